//! Resources: what a resource is
//! ([`ResourceHandler`](crate::server::ResourceHandler), fixed or a
//! template) and `resources/read`.
//!
//! | file | what it holds |
//! |---|---|
//! | `resource` | [`ResourceHandler`](crate::server::ResourceHandler), its definition, caching hints and result |
//! | `read` | `resources/read`: the URI resolved, then the MRTR pipeline |

pub(crate) mod read;
pub(crate) mod resource;

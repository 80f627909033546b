//! Completion: what suggests values for a prompt argument or a template
//! variable, and `completion/complete`.
//!
//! | file | what it holds |
//! |---|---|
//! | `completer` | [`Completer`](crate::server::Completer) and what it is asked with |
//! | `complete` | `completion/complete`: the reference resolved, the completer run |

pub(crate) mod complete;
pub(crate) mod completer;

//! [`ServerEra`]: the era the server speaks, as the connection holds it
//! once settled, with what the client keeps of it.
//!
//! The era is a property of the connection to one server, so the
//! connection holds it, once, from the moment it settles: the reader
//! matches it for what the server sends of its own (`delivery`), and every
//! method of the client matches it for what it sends. The public label is
//! [`Era`]; this is what the client acts on. Dropping the legacy era is
//! dropping the `Legacy` variant, and the arms that match it.

use std::sync::Arc;

use super::legacy::LegacyServer;
use crate::client::era::Era;
use crate::wire::ServerCapabilities;

/// The era of the server, settled, and what the client keeps of it.
#[derive(Clone)]
pub(crate) enum ServerEra {
    /// A modern server.
    Modern {
        /// The version the settlement agreed on. A request carries the
        /// protocol's current version, which a `-32022` may move later.
        version: String,
        /// The capabilities the server declared in its answer to the
        /// `server/discover` probe; `None` when the era settled without
        /// that answer (a forced era, or a probe the server refused). The
        /// Skills client reads it (feature `skills`).
        #[cfg_attr(not(feature = "skills"), allow(dead_code))]
        discovered: Option<Arc<ServerCapabilities>>,
    },
    /// A legacy server, and the session the client keeps with it.
    Legacy(Arc<LegacyServer>),
}

impl ServerEra {
    /// The label users see.
    pub fn era(&self) -> Era {
        match self {
            ServerEra::Modern { .. } => Era::Modern,
            ServerEra::Legacy(_) => Era::Legacy,
        }
    }
}

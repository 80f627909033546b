//! What replicas tell each other about legacy sessions, and on which
//! channel: presa's own format, which stores move as bytes.
//!
//! There are five kinds of channel, and a note for each:
//!
//! 1. `session:ID`, heard by every replica that holds session `ID`
//!    ([`SessionNote`]): its record changed, it ended, its client
//!    cancelled a request, or its standalone stream opened somewhere;
//! 2. `replica:ID`, heard by replica `ID` alone ([`ReplicaNote`]): a
//!    client's answer to a request that replica sent. Publishing to it
//!    also tells whether the replica is alive: a dead one hears nothing;
//! 3. `offers`, heard by every replica ([`OfferNote`]): what a server
//!    offers changed (a list, or a resource the application updated);
//! 4. `relay:ID`, heard by the one connection that asked a replica to
//!    pass on a stream it holds ([`RelayNote`]);
//! 5. `standalone:ID`, heard by the replica that holds session `ID`'s
//!    standalone stream: each message for it, as its JSON line.
//!
//! A note that does not read is logged and dropped: a replica of another
//! version may send notes this one does not know.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::record::SessionRecord;
use crate::wire::{RequestId, Response};

/// The channel of session `id`.
pub(crate) fn session_channel(id: &str) -> String {
    format!("session:{id}")
}

/// The channel of session `id`'s standalone stream.
pub(crate) fn standalone_channel(id: &str) -> String {
    format!("standalone:{id}")
}

/// The channel of replica `id`.
pub(crate) fn replica_channel(id: &str) -> String {
    format!("replica:{id}")
}

/// The channel of what the servers offer.
pub(crate) const OFFERS_CHANNEL: &str = "offers";

/// A note about one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "camelCase")]
pub(crate) enum SessionNote {
    /// The record changed: the new one.
    Changed {
        /// The record as stored.
        record: Box<SessionRecord>,
    },
    /// The session ended (`DELETE`): every replica drops it.
    Ended,
    /// The client cancelled its request `id`, which runs on some replica.
    Cancelled {
        /// The request's id.
        id: RequestId,
    },
    /// A replica opened the session's standalone stream: the others send
    /// it the messages they kept while no replica held it.
    StandaloneOpened,
}

/// A note for one replica.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "camelCase")]
pub(crate) enum ReplicaNote {
    /// The client of session `session` answered a request of the
    /// replica's.
    Answer {
        /// The session's id.
        session: String,
        /// The client's response.
        response: Response,
    },
    /// A client reconnected to another replica with the id of an event
    /// of this replica's: pass the stream on, from after that event, on
    /// channel `to`.
    Replay {
        /// The session's id.
        session: String,
        /// The stream's number on this replica.
        stream: u64,
        /// The last event the client has.
        after: u64,
        /// The relay channel to publish on.
        to: String,
    },
}

/// A stream one replica passes on to another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "camelCase")]
pub(crate) enum RelayNote {
    /// The replica holds the stream: its events follow.
    Found,
    /// The replica holds no such stream (it ended long ago).
    Unknown,
    /// One event of the stream.
    Event {
        /// Its sequence number.
        seq: u64,
        /// Its message, a JSON line.
        line: String,
    },
    /// The stream is complete.
    End,
}

/// A fresh relay channel's name.
pub(crate) fn relay_channel() -> String {
    format!("relay:{}", crate::util::random_id::<12>())
}

/// A change of what a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "camelCase")]
pub(crate) enum OfferNote {
    /// A tool was added or removed.
    Tools,
    /// A prompt was added or removed.
    Prompts,
    /// A resource or template was added or removed.
    Resources,
    /// The resource at `uri` changed.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
}

/// `note` as bytes on a channel.
pub(crate) fn encode(note: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(note).unwrap_or_default()
}

/// The note in `bytes`, or `None` (logged) when it does not read.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    match serde_json::from_slice(bytes) {
        Ok(note) => Some(note),
        Err(error) => {
            tracing::warn!(%error, "dropped a note from another replica that does not read");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_back_equal_and_strangers_are_dropped() {
        let note = SessionNote::Cancelled {
            id: RequestId::Number(7),
        };
        assert_eq!(decode::<SessionNote>(&encode(&note)), Some(note));
        let offer = OfferNote::ResourceUpdated {
            uri: "a://b".into(),
        };
        assert_eq!(decode::<OfferNote>(&encode(&offer)), Some(offer));
        assert_eq!(decode::<SessionNote>(br#"{"note":"fromTheFuture"}"#), None);
    }
}

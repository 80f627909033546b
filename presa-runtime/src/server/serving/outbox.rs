//! [`Outbox`]: where a connection's messages go. Each is charged to the
//! connection's memory budget by its length until the transport has
//! written it, without waiting (the connection's rule 5).

use crate::server::era::RequestEra;
use crate::transport::{Closed, FrameSender};
use crate::util::Budget;
use crate::wire::Message;

/// Where a request's messages go: the transport, each charged to the
/// connection's budget until written. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox {
    outgoing: FrameSender,
    budget: Budget,
    /// The era whose requests of the server's own this outbox writes.
    era: RequestEra,
}

impl Outbox {
    /// An outbox onto `outgoing`, charged to `budget`, that writes the
    /// messages of `era`.
    pub(crate) fn new(outgoing: FrameSender, budget: Budget, era: RequestEra) -> Self {
        Outbox {
            outgoing,
            budget,
            era,
        }
    }

    /// Writes `message`; `Err` once the peer is gone.
    pub(crate) async fn send(&self, message: Message) -> Result<(), Closed> {
        // A request of the server's own: not written once withdrawn, and
        // counted as sent once the transport has it, so that withdrawing
        // it tells the client of no request it never got.
        let asked = match &message {
            Message::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        if let Some(id) = &asked
            && !self.era.sending(id)
        {
            return Ok(());
        }
        let line = message.to_line();
        let charge = self.budget.force(line.len());
        self.outgoing.send_charged(line, charge).await?;
        if let Some(id) = asked {
            self.era.sent(&id);
        }
        Ok(())
    }
}

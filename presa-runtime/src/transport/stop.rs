//! How you tell a transport that reads a byte stream to read no more.

use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// Tells a transport to read no more from its byte stream. Frames already
/// read are still delivered, a partial last line is discarded (the rest
/// of it was never read), and then `incoming` ends. Clones stop the same
/// transport.
#[derive(Debug, Clone, Default)]
pub struct StopReading {
    stopped: CancellationToken,
}

impl StopReading {
    /// Reads no more; idempotent.
    pub fn stop(&self) {
        self.stopped.cancel();
    }

    /// Whether [`stop`](Self::stop) was called.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.is_cancelled()
    }

    /// Resolves once [`stop`](Self::stop) is called.
    pub(crate) fn stopped(&self) -> WaitForCancellationFutureOwned {
        self.stopped.clone().cancelled_owned()
    }
}

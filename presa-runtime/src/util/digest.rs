//! SHA-256 over JSON, written straight into the hasher.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// A SHA-256 digest.
pub(crate) type Digest256 = [u8; 32];

/// Lets `serde_json` write into the hasher without an intermediate string.
pub(crate) struct HashWriter(pub Sha256);

impl HashWriter {
    pub fn new() -> Self {
        HashWriter(Sha256::new())
    }

    pub fn finish(self) -> Digest256 {
        self.0.finalize().into()
    }
}

impl std::io::Write for HashWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The digest of `value`'s compact JSON text: equal for equal values of a
/// type whose serialization is deterministic, without the text in memory.
pub(crate) fn json_digest(value: &impl Serialize) -> Digest256 {
    let mut hasher = HashWriter::new();
    // Writing into a hasher cannot fail; a value that does not serialize
    // gets the digest of what it wrote before failing.
    let _ = serde_json::to_writer(&mut hasher, value);
    hasher.finish()
}

//! [`SkillError`]: what can go wrong when a client lists, gets, loads or
//! reads a skill (SEP-2640, "Integrity and Verification" and "Limits").
//!
//! A verification failure is not a protocol error: the server answered,
//! and the answer does not match the entry the client holds. Each message
//! names the file, says what differs, and says what to do: refresh the
//! entry with `get_skill` and ask the user to approve the skill again,
//! since a changed file set revokes an earlier approval.

use crate::client::error::ClientError;
use crate::wire::{FrontmatterError, SkillDigest};

/// A failed Skills call. A new way to fail is a new variant, so a `match`
/// on one needs a `_` arm.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The request itself failed: the connection, a JSON-RPC error from
    /// the server, or an answer of the wrong shape.
    #[error(transparent)]
    Request(#[from] ClientError),
    /// The server did not declare the Skills extension, so the client
    /// sends it no Skills request.
    #[error(
        "the server does not declare the Skills extension (io.modelcontextprotocol/skills) in \
         server/discover, so it serves no skills/list or skills/get; its files, if any, are \
         ordinary resources (read them with read_resource)"
    )]
    NotDeclared,
    /// The listing ran past the client's bound on pages.
    #[error(
        "skills/list returned more than {limit} pages; page through it yourself with \
         list_skills_page"
    )]
    TooManyPages {
        /// The bound on pages.
        limit: usize,
    },
    /// The listing ran past the client's bound on entries.
    #[error(
        "skills/list returned more than {limit} skills; page through it yourself with \
         list_skills_page"
    )]
    TooManyEntries {
        /// The bound on entries.
        limit: usize,
    },
    /// The URI given to `get_skill` is not a `SKILL.md` URI.
    #[error(
        "`{uri}` is not the URI of a skill: a skill is named by the URI of its SKILL.md, \
         such as skill://git-workflow/SKILL.md"
    )]
    NotASkillUri {
        /// The URI given.
        uri: String,
    },
    /// The entry breaks a rule of the spec, so the client will not load it.
    #[error("the entry of {uri} is invalid, so the skill cannot be loaded: {reason}")]
    InvalidEntry {
        /// The skill's `SKILL.md` URI.
        uri: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// The entry says `"dynamic"`, and the caller did not opt in.
    #[error(
        "{uri} is a dynamic skill: its entry lists no files and no digests, so nothing it \
         serves can be verified. Load it with load_skill_allowing_dynamic only if you accept \
         unverified content"
    )]
    Dynamic {
        /// The skill's `SKILL.md` URI.
        uri: String,
    },
    /// The entry lists more files than the spec's limit.
    #[error(
        "{uri} lists {count} files, more than the {limit} a skill may have; the client \
         declines to load it"
    )]
    TooManyFiles {
        /// The skill's `SKILL.md` URI.
        uri: String,
        /// How many files the entry lists.
        count: usize,
        /// The spec's limit on files: 512.
        limit: usize,
    },
    /// The entry's files add up to more than the spec's limit.
    #[error(
        "{uri} adds up to {total} bytes, more than the {limit} bytes a skill may have; the \
         client declines to load it"
    )]
    TooLarge {
        /// The skill's `SKILL.md` URI.
        uri: String,
        /// The sum of the sizes the entry lists.
        total: u64,
        /// The spec's limit on bytes: 16 MiB.
        limit: u64,
    },
    /// A dynamic skill's reads went past the spec's total-size limit.
    #[error(
        "reading {uri} would take the dynamic skill {skill} past {limit} bytes in all; the \
         client stops loading it"
    )]
    DynamicTooLarge {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// The file whose read crossed the limit.
        uri: String,
        /// The spec's limit on bytes: 16 MiB.
        limit: u64,
    },
    /// A path to read cannot name a file of the skill.
    #[error("`{reference}` does not name a file of {skill}: {reason}")]
    BadReference {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// The path or URI asked for.
        reference: String,
        /// Why.
        reason: &'static str,
    },
    /// The file is not in the held entry; no request was sent.
    #[error(
        "{uri} is not listed in the entry of {skill}, so it is not a file of the skill you \
         approved; if the skill has changed, call get_skill again and re-approve it"
    )]
    Unlisted {
        /// The skill's `SKILL.md` URI.
        skill: String,
        /// The file asked for.
        uri: String,
    },
    /// The file's length is not the entry's `size`.
    #[error(
        "{uri} changed since its entry was fetched: the entry says {expected} bytes and the \
         server sent {got}. The content was discarded; call get_skill again and re-approve it"
    )]
    SizeMismatch {
        /// The file.
        uri: String,
        /// The size the entry lists.
        expected: u64,
        /// The length the server sent.
        got: u64,
    },
    /// The file's SHA-256 digest is not the entry's `digest`.
    #[error(
        "{uri} changed since its entry was fetched: the entry says {expected} and the content \
         hashes to {got}. The content was discarded; call get_skill again and re-approve it"
    )]
    DigestMismatch {
        /// The file.
        uri: String,
        /// The digest the entry lists.
        expected: SkillDigest,
        /// The digest of what the server sent.
        got: SkillDigest,
    },
    /// The fetched `SKILL.md` has no frontmatter the client can read.
    #[error("{uri} cannot be loaded: {error}")]
    BadFrontmatter {
        /// The `SKILL.md` URI.
        uri: String,
        /// What is wrong with it.
        error: FrontmatterError,
    },
    /// The fetched `SKILL.md` frontmatter differs from the entry's.
    #[error(
        "{uri} does not match its entry: the frontmatter differs in {}. The skill was not \
         loaded; call get_skill again and re-approve it",
        fields.join(", ")
    )]
    FrontmatterMismatch {
        /// The `SKILL.md` URI.
        uri: String,
        /// The fields that differ, sorted.
        fields: Vec<String>,
    },
    /// The `resources/read` answer does not carry the file's content.
    #[error("the server's answer to resources/read of {uri} is unusable: {reason}")]
    Contents {
        /// The file.
        uri: String,
        /// What is wrong with the answer.
        reason: String,
    },
}

impl SkillError {
    /// Whether this is a verification failure (SEP-2640, "Integrity and
    /// Verification"): the content does not match the held entry. The
    /// cure is to refresh the entry and approve the skill again.
    pub fn is_verification_failure(&self) -> bool {
        matches!(
            self,
            SkillError::Unlisted { .. }
                | SkillError::SizeMismatch { .. }
                | SkillError::DigestMismatch { .. }
                | SkillError::FrontmatterMismatch { .. }
        )
    }
}

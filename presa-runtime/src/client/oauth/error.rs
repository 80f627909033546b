//! [`OAuthError`]: which step of signing in failed, and why, in words
//! that never hold a secret.

use std::fmt;

/// The step of signing in that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// Finding the resource's metadata and its authorization server's.
    Discovery,
    /// Getting a client id: pre-registered, a metadata document, or
    /// dynamic registration.
    Registration,
    /// The user-agent step: the authorization request and its response.
    Authorization,
    /// Getting a token at the token endpoint.
    Token,
    /// Refreshing a token.
    Refresh,
    /// Getting a token with more scopes after `insufficient_scope`.
    StepUp,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::Discovery => "discovery",
            Step::Registration => "registration",
            Step::Authorization => "authorization",
            Step::Token => "token request",
            Step::Refresh => "refresh",
            Step::StepUp => "step-up",
        })
    }
}

/// Signing in failed at [`step`](OAuthError::step). The message says what
/// was asked of whom and what came back; it never holds a token, a
/// secret or an authorization code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("OAuth {step} failed: {reason}")]
pub struct OAuthError {
    step: Step,
    reason: String,
}

impl OAuthError {
    pub(crate) fn new(step: Step, reason: impl Into<String>) -> Self {
        OAuthError {
            step,
            reason: reason.into(),
        }
    }

    /// The step that failed.
    pub fn step(&self) -> Step {
        self.step
    }
}

//! [`Scopes`]: what a caller is allowed to do.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// The OAuth scopes a caller holds: every scope, or the ones its token
/// names.
///
/// Which one a caller holds is the transport's to say. A transport that
/// authenticates nobody because its peer is the process's own user (stdio,
/// in-process) gives [`Scopes::every`]; an HTTP authenticator gives the
/// token's scopes, and one that admits callers without a token gives
/// [`Scopes::none`].
///
/// As an extractor (see [`FromContext`](crate::server::FromContext)),
/// `Scopes` is the calling request's scopes:
///
/// ```
/// use presa_runtime::server::{Scopes, ToolError};
///
/// fn delete_everything(scopes: &Scopes) -> Result<String, ToolError> {
///     if !scopes.contains("admin") {
///         return Err(ToolError::new("this needs the admin scope"));
///     }
///     Ok("done".into())
/// }
///
/// assert!(delete_everything(&Scopes::every()).is_ok());
/// assert!(delete_everything(&Scopes::from_iter(["jobs:build"])).is_err());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Scopes(Grant);

#[derive(Clone, PartialEq, Eq)]
enum Grant {
    Every,
    Listed(Arc<BTreeSet<String>>),
}

impl Scopes {
    /// Every scope: the caller of a transport whose peer is trusted.
    pub fn every() -> Self {
        Scopes(Grant::Every)
    }

    /// No scope at all.
    pub fn none() -> Self {
        Scopes(Grant::Listed(Arc::default()))
    }

    /// Whether `scope` is held.
    pub fn contains(&self, scope: &str) -> bool {
        match &self.0 {
            Grant::Every => true,
            Grant::Listed(scopes) => scopes.contains(scope),
        }
    }

    /// Whether these are every scope rather than a list.
    pub fn is_every(&self) -> bool {
        matches!(self.0, Grant::Every)
    }

    /// The scopes listed, in order; none for [`Scopes::every`], which
    /// lists nothing.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let listed = match &self.0 {
            Grant::Every => None,
            Grant::Listed(scopes) => Some(scopes.iter().map(String::as_str)),
        };
        listed.into_iter().flatten()
    }

    /// Of `required`, those not held, in the order given.
    pub fn missing<'a>(&self, required: &[&'a str]) -> Vec<&'a str> {
        required
            .iter()
            .copied()
            .filter(|scope| !self.contains(scope))
            .collect()
    }
}

impl<S: Into<String>> FromIterator<S> for Scopes {
    fn from_iter<I: IntoIterator<Item = S>>(scopes: I) -> Self {
        Scopes(Grant::Listed(Arc::new(
            scopes.into_iter().map(Into::into).collect(),
        )))
    }
}

impl Default for Scopes {
    /// No scope: a caller holds nothing it was not given.
    fn default() -> Self {
        Scopes::none()
    }
}

impl fmt::Debug for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Grant::Every => f.write_str("Scopes::every()"),
            Grant::Listed(scopes) => f.debug_set().entries(scopes.iter()).finish(),
        }
    }
}

impl fmt::Display for Scopes {
    /// The scopes space-separated, as OAuth writes them; `*` for every
    /// scope.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Grant::Every => f.write_str("*"),
            Grant::Listed(scopes) => {
                let mut first = true;
                for scope in scopes.iter() {
                    if !first {
                        f.write_str(" ")?;
                    }
                    f.write_str(scope)?;
                    first = false;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_holds_what_no_list_names() {
        assert!(Scopes::every().contains("anything"));
        assert_eq!(Scopes::every().iter().count(), 0);
        assert!(!Scopes::none().contains("anything"));
        assert!(!Scopes::default().contains("anything"));
    }

    #[test]
    fn missing_scopes_keep_their_order() {
        let held = Scopes::from_iter(["b"]);
        assert_eq!(held.missing(&["c", "b", "a"]), ["c", "a"]);
        assert!(Scopes::every().missing(&["c"]).is_empty());
    }

    #[test]
    fn scopes_print_as_oauth_writes_them() {
        assert_eq!(Scopes::from_iter(["b", "a"]).to_string(), "a b");
        assert_eq!(Scopes::every().to_string(), "*");
        assert_eq!(Scopes::none().to_string(), "");
    }
}

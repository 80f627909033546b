//! Scopes on handlers: which tools, prompts and resources a caller may
//! use, and which it is shown.
//!
//! A handler declares the OAuth scopes its callers must hold
//! (`#[tool(scopes = ["jobs:build"])]`, the same on `#[prompt]` and
//! `#[resource]`). The rules:
//!
//! 1. a caller holds a scope when its [`Scopes`](crate::server::Scopes) name it,
//!    or name a broader scope that implies it
//!    ([`ServerBuilder::scope_implies`](crate::server::ServerBuilder::scope_implies):
//!    the MCP authorization spec has servers account for hierarchies);
//! 2. a call of a handler whose scopes the caller does not all hold is
//!    refused before anything of it runs, and so is a
//!    `completion/complete` of its arguments: over Streamable HTTP with `403`
//!    and the step-up challenge, `error="insufficient_scope"` naming every
//!    scope the handler declares; on other transports with `-31004` and
//!    `data.requiredScopes`;
//! 3. which scopes a caller holds is its transport's to say: stdio and
//!    in-process callers hold every scope (their peer is the process's own
//!    user), an HTTP caller the scopes of its token, an anonymous HTTP
//!    caller none;
//! 4. lists show every handler by default ([`Listing::Everything`]), so
//!    that a client sees what it may step up to;
//!    [`Listing::Permitted`] shows each caller only what it may use, and
//!    marks those lists' `cacheScope` private;
//! 5. a visibility filter
//!    ([`ServerBuilder::visibility`](crate::server::ServerBuilder::visibility))
//!    hides a handler from some callers by any rule of yours. To such a
//!    caller a hidden handler does not exist: lists leave it out, and a
//!    call, a read, a completion or an HTTP request for it is answered as
//!    for an unknown name (`-32602`), never with a step-up challenge
//!    that would tell it is there. Lists are then `cacheScope` private,
//!    since two callers may see different ones; their `ttlMs` stays, so a
//!    client that caches a list keeps it for that long, for itself only;
//! 6. tasks are not scoped again: a task belongs to the caller that
//!    created it, which held the scopes then.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use super::identity::Caller;
use crate::server::request::reply::insufficient_scope;
use crate::wire::{CacheScope, ErrorObject};

/// Which handlers a list shows a caller (rule 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Listing {
    /// Every handler, including those the caller lacks scopes for: it may
    /// step up to them. The default.
    #[default]
    Everything,
    /// Only the handlers the caller holds every scope of.
    Permitted,
}

/// What a handler is, for a visibility filter: a tool, a prompt, a
/// resource or a resource template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogKind {
    /// A tool, named by its name.
    Tool,
    /// A prompt, named by its name.
    Prompt,
    /// A resource, named by its URI.
    Resource,
    /// A resource template, named by its URI template.
    ResourceTemplate,
}

/// A handler, as a visibility filter sees it (rule 5).
#[derive(Debug, Clone, Copy)]
pub struct CatalogItem<'a> {
    kind: CatalogKind,
    name: &'a str,
    scopes: &'static [&'static str],
}

impl<'a> CatalogItem<'a> {
    /// The handler of `kind` named `name`, which requires `scopes`.
    pub(crate) fn new(kind: CatalogKind, name: &'a str, scopes: &'static [&'static str]) -> Self {
        CatalogItem { kind, name, scopes }
    }

    /// A tool, prompt, resource or resource template.
    pub fn kind(&self) -> CatalogKind {
        self.kind
    }

    /// The tool or prompt's name, the resource's URI, or the template's
    /// URI template.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The scopes its callers must hold (`scopes = [...]` on its macro).
    pub fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }
}

/// A visibility filter: whether a caller may know of a handler.
pub(crate) type Visibility = Arc<dyn Fn(&Caller, &CatalogItem<'_>) -> bool + Send + Sync>;

/// The scope hierarchy, listing and visibility a server was built with.
#[derive(Clone, Default)]
pub(crate) struct ScopeRules {
    /// Each broader scope, and every scope it implies (transitively).
    implied: HashMap<String, BTreeSet<String>>,
    pub listing: Listing,
    /// Rule 5; `None` shows every handler to every caller.
    pub visibility: Option<Visibility>,
}

impl fmt::Debug for ScopeRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopeRules")
            .field("implied", &self.implied)
            .field("listing", &self.listing)
            .field("visibility", &self.visibility.is_some())
            .finish()
    }
}

impl ScopeRules {
    /// The rules of `implies` (each broader scope with the narrower ones
    /// it implies directly) and `listing`.
    pub fn new(implies: &[(String, Vec<String>)], listing: Listing) -> Self {
        let direct: HashMap<&str, Vec<&str>> =
            implies
                .iter()
                .fold(HashMap::new(), |mut map, (broader, narrower)| {
                    map.entry(broader.as_str())
                        .or_insert_with(Vec::new)
                        .extend(narrower.iter().map(String::as_str));
                    map
                });
        let implied = direct
            .keys()
            .map(|broader| {
                let mut reached = BTreeSet::new();
                let mut next = vec![*broader];
                while let Some(scope) = next.pop() {
                    for narrower in direct.get(scope).into_iter().flatten() {
                        if reached.insert((*narrower).to_owned()) {
                            next.push(narrower);
                        }
                    }
                }
                ((*broader).to_owned(), reached)
            })
            .collect();
        ScopeRules {
            implied,
            listing,
            visibility: None,
        }
    }

    /// These rules, with visibility filter `visibility` (rule 5).
    pub fn with_visibility(mut self, visibility: Option<Visibility>) -> Self {
        self.visibility = visibility;
        self
    }

    /// Whether `caller` may know of `item` at all (rule 5).
    pub fn visible(&self, caller: &Caller, item: &CatalogItem<'_>) -> bool {
        self.visibility
            .as_ref()
            .is_none_or(|visible| visible(caller, item))
    }

    /// Whether `caller` holds `scope` (rule 1).
    fn holds(&self, caller: &Caller, scope: &str) -> bool {
        caller.scopes.contains(scope)
            || caller.scopes.iter().any(|held| {
                self.implied
                    .get(held)
                    .is_some_and(|implied| implied.contains(scope))
            })
    }

    /// Whether `caller` holds every scope of `required`.
    pub fn permits(&self, caller: &Caller, required: &[&str]) -> bool {
        required.iter().all(|scope| self.holds(caller, scope))
    }

    /// Whether a list shows `caller` `item` (rules 4 and 5).
    pub fn lists(&self, caller: &Caller, item: &CatalogItem<'_>) -> bool {
        (self.listing == Listing::Everything || self.permits(caller, item.scopes))
            && self.visible(caller, item)
    }
}

/// Rule 2 on a call of `item`, which requires `scopes`: `-31004` unless
/// `caller` holds them all.
pub(crate) fn authorize(
    rules: &ScopeRules,
    caller: &Caller,
    item: &str,
    scopes: &[&str],
) -> Result<(), ErrorObject> {
    if rules.permits(caller, scopes) {
        Ok(())
    } else {
        Err(insufficient_scope(item, scopes))
    }
}

/// Which entries a list shows one caller (rule 4).
pub(crate) struct ListFilter<'a> {
    pub rules: &'a ScopeRules,
    pub caller: &'a Caller,
}

impl ListFilter<'_> {
    /// Whether the list shows `item`.
    pub fn admits(&self, item: CatalogItem<'_>) -> bool {
        self.rules.lists(self.caller, &item)
    }

    /// The list's `cacheScope`: private once it depends on the caller.
    pub fn cache_scope(&self) -> CacheScope {
        match (self.rules.listing, &self.rules.visibility) {
            (Listing::Everything, None) => CacheScope::Public,
            (Listing::Permitted, _) | (_, Some(_)) => CacheScope::Private,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(implies: &[(&str, &[&str])]) -> ScopeRules {
        let implies: Vec<(String, Vec<String>)> = implies
            .iter()
            .map(|(b, n)| (b.to_string(), n.iter().map(|s| s.to_string()).collect()))
            .collect();
        ScopeRules::new(&implies, Listing::Everything)
    }

    #[test]
    fn a_broader_scope_holds_what_it_implies_transitively() {
        let rules = rules(&[("admin", &["jobs"]), ("jobs", &["jobs:build", "jobs:read"])]);
        let admin = Caller::subject("a").scopes(["admin"]);
        assert!(rules.permits(&admin, &["jobs:build", "jobs:read", "jobs"]));
        let reader = Caller::subject("r").scopes(["jobs:read"]);
        assert!(rules.permits(&reader, &["jobs:read"]));
        assert!(!rules.permits(&reader, &["jobs:read", "jobs:build"]));
        assert!(rules.permits(&Caller::anonymous(), &["anything"]));
        assert!(rules.permits(&reader, &[]));
    }

    #[test]
    fn a_cycle_of_implications_ends() {
        let rules = rules(&[("a", &["b"]), ("b", &["a"])]);
        assert!(rules.permits(&Caller::subject("x").scopes(["a"]), &["b"]));
    }
}

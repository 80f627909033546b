//! [`Catalog`]: a list of named entries that can change while it is being
//! paged through, with cursors that stay valid across the change.
//!
//! Each entry gets a sequence number when it is added, never reused. Pages
//! follow that order (registration order), and a cursor is the number to
//! continue from. Removing an entry therefore never shifts the entries
//! after it: a client paging through a list that changed meanwhile sees
//! each entry that stayed at most once, and the entries added since at
//! the end. (The spec asks for no consistency across pages, but stable
//! cursors cost nothing here.) A cursor the server never issued is invalid
//! (`-32602`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::server::request::reply::invalid_params;
use crate::wire::ErrorObject;

/// An entry of a catalog, known by a key unique within it: a tool or
/// prompt name, a resource URI, a URI template.
pub(crate) trait CatalogEntry {
    fn key(&self) -> &str;
}

/// The entries of one kind, in registration order.
pub(crate) struct Catalog<T> {
    entries: BTreeMap<u64, Arc<T>>,
    index: HashMap<String, u64>,
    next: u64,
}

impl<T> Default for Catalog<T> {
    fn default() -> Self {
        Catalog {
            entries: BTreeMap::new(),
            index: HashMap::new(),
            next: 0,
        }
    }
}

/// How list results are cut and cached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListSettings {
    /// How many entries one page holds.
    pub page_size: usize,
    /// The `ttlMs` of list results.
    pub ttl: Duration,
}

impl Default for ListSettings {
    fn default() -> Self {
        ListSettings {
            page_size: 100,
            ttl: Duration::from_secs(300),
        }
    }
}

/// One page of a catalog.
pub(crate) struct Page<'a, T> {
    pub entries: Vec<&'a Arc<T>>,
    pub next_cursor: Option<String>,
}

impl<T: CatalogEntry> Catalog<T> {
    /// Adds `entry` at the end; gives it back when its key is taken.
    pub fn insert(&mut self, entry: T) -> Result<(), T> {
        if self.index.contains_key(entry.key()) {
            return Err(entry);
        }
        let seq = self.next;
        self.next += 1;
        self.index.insert(entry.key().to_owned(), seq);
        self.entries.insert(seq, Arc::new(entry));
        Ok(())
    }

    /// Removes the entry with `key`; whether there was one.
    pub fn remove(&mut self, key: &str) -> bool {
        match self.index.remove(key) {
            Some(seq) => self.entries.remove(&seq).is_some(),
            None => false,
        }
    }

    /// The entry with `key`.
    pub fn get(&self, key: &str) -> Option<&Arc<T>> {
        self.index.get(key).and_then(|seq| self.entries.get(seq))
    }

    /// Every entry, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<T>> {
        self.entries.values()
    }

    /// The page starting at `cursor` (the first page without one).
    pub fn page(&self, cursor: Option<&str>, size: usize) -> Result<Page<'_, T>, ErrorObject> {
        let start = match cursor {
            None => 0,
            Some(cursor) => decode_cursor(cursor)
                .filter(|&seq| seq < self.next)
                .ok_or_else(|| invalid_params(format!("Invalid cursor {cursor:?}")))?,
        };
        let mut rest = self.entries.range(start..);
        let entries = rest.by_ref().take(size).map(|(_, entry)| entry).collect();
        let next_cursor = rest.next().map(|(&seq, _)| encode_cursor(seq));
        Ok(Page {
            entries,
            next_cursor,
        })
    }
}

fn encode_cursor(seq: u64) -> String {
    URL_SAFE_NO_PAD.encode(format!("presa:{seq}"))
}

fn decode_cursor(cursor: &str) -> Option<u64> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    std::str::from_utf8(&bytes)
        .ok()?
        .strip_prefix("presa:")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    impl CatalogEntry for String {
        fn key(&self) -> &str {
            self
        }
    }

    fn catalog(keys: &[&str]) -> Catalog<String> {
        let mut catalog = Catalog::default();
        for key in keys {
            catalog.insert((*key).to_owned()).unwrap();
        }
        catalog
    }

    fn keys(page: &Page<'_, String>) -> Vec<String> {
        page.entries.iter().map(|e| e.as_str().to_owned()).collect()
    }

    #[test]
    fn a_cursor_survives_removals_and_additions() {
        let mut catalog = catalog(&["a", "b", "c", "d"]);
        let first = catalog.page(None, 2).unwrap();
        assert_eq!(keys(&first), ["a", "b"]);
        let cursor = first.next_cursor.unwrap();
        assert!(catalog.remove("c"));
        assert!(!catalog.remove("c"));
        catalog.insert("e".into()).unwrap();
        let second = catalog.page(Some(&cursor), 2).unwrap();
        assert_eq!(keys(&second), ["d", "e"]);
        assert!(second.next_cursor.is_none());
    }

    #[test]
    fn keys_are_unique_and_forged_cursors_invalid() {
        let mut catalog = catalog(&["a"]);
        assert_eq!(catalog.insert("a".into()), Err("a".to_owned()));
        assert!(catalog.page(Some("bogus"), 10).is_err());
        assert!(catalog.page(Some(&encode_cursor(7)), 10).is_err());
        assert!(catalog.get("a").is_some());
    }
}

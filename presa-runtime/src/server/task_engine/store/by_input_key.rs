//! [`ByInputKey`]: what a task keeps by input key.
//!
//! A task holds few keys (the questions of one handler), so a sorted
//! vector serves it better than a `BTreeMap`, which spends the room of
//! eleven entries on its first. Keys are short names (`"confirm"`), and
//! a task keeps each twice (as asked, and as waiting or answered), so a key of
//! up to 23 bytes is kept inline ([`SmolStr`]) instead of in a heap block
//! of its own: two blocks less for every parked task. The map is this
//! crate's own type, so neither collection is part of the store
//! interface: a store only iterates it as `&str` keys and collects it
//! back.

use std::borrow::Borrow;
use std::ops::Index;

use litemap::LiteMap;
use smol_str::SmolStr;

/// Values by input key, in order of key.
#[derive(Debug, Clone, PartialEq)]
pub struct ByInputKey<V>(LiteMap<SmolStr, V>);

impl<V> ByInputKey<V> {
    /// An empty map.
    pub fn new() -> Self {
        ByInputKey(LiteMap::new())
    }

    /// The value of `key`, if any.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.get(key)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(key, _)| key.as_str())
    }

    /// The entries, in order of key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(key, value)| (key.as_str(), value))
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets `key` to `value`. Room is made for one entry at a time: a task
    /// rarely holds more than one or two, and a vector's first growth
    /// would make room for four. A key taken out of another map
    /// ([`into_entries`](Self::into_entries)) moves in without a copy.
    pub(crate) fn insert(&mut self, key: impl Into<SmolStr>, value: V) {
        if self.0.is_empty() {
            self.0 = LiteMap::with_capacity(1);
        }
        self.0.insert(key.into(), value);
    }

    /// The entries, taken out in order of key.
    pub(crate) fn into_entries(self) -> impl Iterator<Item = (SmolStr, V)> {
        self.0.into_iter()
    }

    pub(crate) fn remove(&mut self, key: &str) -> Option<V> {
        self.0.remove(key)
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}

impl<V> Default for ByInputKey<V> {
    fn default() -> Self {
        ByInputKey::new()
    }
}

impl<K: AsRef<str>, V> FromIterator<(K, V)> for ByInputKey<V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        ByInputKey(
            entries
                .into_iter()
                .map(|(key, value)| (SmolStr::new(key), value))
                .collect(),
        )
    }
}

impl<K: Borrow<str> + ?Sized, V> Index<&K> for ByInputKey<V> {
    type Output = V;

    /// The value of `key`; panics if there is none.
    fn index(&self, key: &K) -> &V {
        let key = key.borrow();
        self.get(key)
            .unwrap_or_else(|| panic!("no value for key `{key}`"))
    }
}

//! Spilled results: the full text of every cut observation, kept per session under a handle
//! (`h1`, `h2`, …) in a store bounded by count and bytes.

use std::collections::VecDeque;
use std::sync::Arc;

/// How many spilled results a session keeps.
pub const MAX_HANDLES: usize = 32;
/// How many bytes of spilled text a session keeps in all.
pub const MAX_BYTES: usize = 128 * 1024 * 1024;

/// A bounded store of full texts, oldest evicted first.
#[derive(Debug, Default)]
pub struct OutputStore {
    entries: VecDeque<(u64, Arc<str>)>,
    bytes: usize,
    issued: u64,
}

/// Why a handle could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// Never issued in this session, or not of the `hN` form.
    Unknown,
    /// Issued, then evicted to stay within the bounds.
    Expired,
}

impl OutputStore {
    /// Keeps `text` and returns its handle, evicting the oldest entries to stay in bounds.
    pub fn put(&mut self, text: String) -> String {
        self.issued += 1;
        let id = self.issued;
        let text: Arc<str> = Arc::from(text);
        self.bytes += text.len();
        self.entries.push_back((id, text));
        while self.entries.len() > MAX_HANDLES || (self.bytes > MAX_BYTES && self.entries.len() > 1) {
            if let Some((_, old)) = self.entries.pop_front() {
                self.bytes -= old.len();
            }
        }
        format!("h{id}")
    }

    /// How many handles were issued.
    pub fn issued(&self) -> u64 {
        self.issued
    }

    /// The texts kept under handles issued after the `after`th, oldest first.
    pub fn after(&self, after: u64) -> Vec<(u64, Arc<str>)> {
        self.entries.iter().filter(|(id, _)| *id > after).cloned().collect()
    }

    /// A store as another server left it: `issued` handles, the texts still kept.
    pub fn restored(issued: u64, kept: Vec<(u64, String)>) -> Self {
        let mut store = OutputStore { issued, ..OutputStore::default() };
        for (id, text) in kept.into_iter().filter(|(id, _)| *id <= issued) {
            store.bytes += text.len();
            store.entries.push_back((id, Arc::from(text)));
        }
        store.entries.make_contiguous().sort_by_key(|(id, _)| *id);
        while store.entries.len() > MAX_HANDLES || (store.bytes > MAX_BYTES && store.entries.len() > 1) {
            if let Some((_, old)) = store.entries.pop_front() {
                store.bytes -= old.len();
            }
        }
        store
    }

    /// The full text under `handle`.
    pub fn get(&self, handle: &str) -> Result<Arc<str>, Lookup> {
        let id: u64 = handle.trim().strip_prefix('h').and_then(|n| n.parse().ok()).ok_or(Lookup::Unknown)?;
        if id == 0 || id > self.issued {
            return Err(Lookup::Unknown);
        }
        self.entries
            .iter()
            .find(|(entry_id, _)| *entry_id == id)
            .map(|(_, text)| text.clone())
            .ok_or(Lookup::Expired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_sequential_and_readable() {
        let mut store = OutputStore::default();
        assert_eq!(store.put("a".into()), "h1");
        assert_eq!(store.put("b".into()), "h2");
        assert_eq!(&*store.get("h1").unwrap(), "a");
        assert_eq!(store.get("h3"), Err(Lookup::Unknown));
        assert_eq!(store.get("x1"), Err(Lookup::Unknown));
    }

    #[test]
    fn oldest_handles_expire_past_the_count_bound() {
        let mut store = OutputStore::default();
        for i in 0..MAX_HANDLES + 3 {
            store.put(format!("{i}"));
        }
        assert_eq!(store.get("h1"), Err(Lookup::Expired));
        assert_eq!(store.get("h3"), Err(Lookup::Expired));
        assert_eq!(&*store.get("h4").unwrap(), "3");
    }
}

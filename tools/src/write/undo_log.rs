//! What a session wrote, so `undo` can put it back: bounded in count and bytes.

use std::sync::Arc;

/// Writes one session remembers for `undo`, and their bytes.
const UNDO_MAX_ENTRIES: usize = 256;
const UNDO_MAX_BYTES: usize = 64 << 20;

/// One write this session made, for `undo`.
#[derive(Debug)]
pub struct UndoEntry {
    pub rel: String,
    /// The content before the write; `None` when the write created the file.
    pub before: Option<Arc<Vec<u8>>>,
    pub mode: Option<u32>,
    /// The version the write left; `None` when it deleted the file.
    pub after_version: Option<String>,
}

/// A session's writes, newest last, bounded in count and bytes (oldest dropped).
#[derive(Debug, Default)]
pub struct UndoLog {
    entries: Vec<UndoEntry>,
    bytes: usize,
}

impl UndoLog {
    pub(crate) fn push(&mut self, entry: UndoEntry) {
        self.bytes += entry.before.as_ref().map_or(0, |b| b.len());
        self.entries.push(entry);
        while self.entries.len() > UNDO_MAX_ENTRIES || (self.bytes > UNDO_MAX_BYTES && self.entries.len() > 1)
        {
            let gone = self.entries.remove(0);
            self.bytes -= gone.before.as_ref().map_or(0, |b| b.len());
        }
    }

    /// The newest write to `rel`, if this session still remembers one.
    pub fn last(&self, rel: &str) -> Option<&UndoEntry> {
        self.entries.iter().rev().find(|e| e.rel == rel)
    }

    /// Forgets the newest write to `rel` (after it was undone).
    pub fn pop(&mut self, rel: &str) {
        if let Some(i) = self.entries.iter().rposition(|e| e.rel == rel) {
            let gone = self.entries.remove(i);
            self.bytes -= gone.before.as_ref().map_or(0, |b| b.len());
        }
    }
}

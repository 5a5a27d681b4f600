//! Per-session state: spilled outputs, the tools this session has discovered, and its writes
//! (for `undo`).

use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::outputs::OutputStore;
use crate::writer::UndoLog;

/// The state one agent session owns. The index and the configuration are shared; this is not.
#[derive(Debug, Default)]
pub struct Session {
    pub(crate) outputs: Mutex<OutputStore>,
    pub(crate) enabled: Mutex<BTreeSet<String>>,
    pub(crate) undo: Mutex<UndoLog>,
}

impl Session {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `find_tools` has revealed `name` to this session.
    pub fn has_enabled(&self, name: &str) -> bool {
        self.enabled.lock().expect("session lock").contains(name)
    }
}

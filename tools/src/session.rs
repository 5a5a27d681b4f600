//! Per-session state: spilled outputs and the tools this session has discovered.

use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::outputs::OutputStore;

/// The state one agent session owns. The index and the configuration are shared; this is not.
#[derive(Debug, Default)]
pub struct Session {
    pub(crate) outputs: Mutex<OutputStore>,
    pub(crate) enabled: Mutex<BTreeSet<String>>,
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

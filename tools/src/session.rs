//! Per-session state: spilled outputs, the tools this session has discovered, its writes (for
//! `undo`), and its harness state (gate, stall detector, trace).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::harness::Harness;
use crate::observe::output_store::OutputStore;
use crate::write::undo_log::UndoLog;

/// The state one agent session owns. The index and the configuration are shared; this is not.
#[derive(Debug)]
pub struct Session {
    /// Names this session's trace file: start time, process id and a counter, so sessions of
    /// one server and of several servers never share a name.
    id: String,
    pub(crate) outputs: Mutex<OutputStore>,
    pub(crate) enabled: Mutex<BTreeSet<String>>,
    pub(crate) undo: Mutex<UndoLog>,
    pub(crate) harness: Mutex<Harness>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    pub fn new() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let id = format!("{secs}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        Self {
            id,
            outputs: Mutex::default(),
            enabled: Mutex::default(),
            undo: Mutex::default(),
            harness: Mutex::default(),
        }
    }

    /// This session's id, the name of its trace file.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether `find_tools` has revealed `name` to this session.
    pub fn has_enabled(&self, name: &str) -> bool {
        self.enabled.lock().expect("session lock").contains(name)
    }
}

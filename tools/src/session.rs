//! Per-session state: spilled outputs, the tools this session has discovered, its writes (for
//! `undo`), and its harness state (gate, stall detector, trace).

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::harness::Harness;
use crate::observe::output_store::OutputStore;
use crate::write::undo_log::UndoLog;

/// What of a session outlives its server (`tack serve --state`): its gate and last verify,
/// stall counters, the tools it found, how many results it cut (their texts are saved apart,
/// once each). Not the undo log: the files' old contents stay with the server that wrote them.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SavedSession {
    pub id: String,
    pub enabled: Vec<String>,
    pub harness: serde_json::Value,
    pub verify: Option<serde_json::Value>,
    pub issued: u64,
}

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

    /// What of this session outlives its server (`--state`): see [`SavedSession`]; its last
    /// verify only `with_verify` (a record of every file's hash, written only when it changed).
    pub fn saved(&self, with_verify: bool) -> SavedSession {
        let harness = self.harness.lock().expect("harness lock");
        SavedSession {
            id: self.id.clone(),
            enabled: self.enabled.lock().expect("session lock").iter().cloned().collect(),
            harness: serde_json::to_value(harness.saved()).unwrap_or_default(),
            verify: harness
                .last_verify()
                .filter(|_| with_verify)
                .map(|v| serde_json::to_value(crate::harness::SavedVerify::from(v)).unwrap_or_default()),
            issued: self.outputs.lock().expect("outputs lock").issued(),
        }
    }

    /// How many verifies this session recorded since it was made or restored.
    pub fn verifies(&self) -> u64 {
        self.harness.lock().expect("harness lock").verifies()
    }

    /// The files (relative to the root) this session's last call wrote.
    pub fn last_call_wrote(&self) -> Vec<String> {
        self.harness.lock().expect("harness lock").wrote_in_last_call()
    }

    /// How many results this session has cut (the number of the last handle).
    pub fn issued(&self) -> u64 {
        self.outputs.lock().expect("outputs lock").issued()
    }

    /// The cut results kept under handles issued after the `after`th, oldest first, with their
    /// numbers (`h3` is 3).
    pub fn outputs_after(&self, after: u64) -> Vec<(u64, std::sync::Arc<str>)> {
        self.outputs.lock().expect("outputs lock").after(after)
    }

    /// A session as another server saved it, with the texts of its cut results; a part that
    /// does not decode starts empty, and says so in the log.
    pub fn restored(saved: SavedSession, outputs: Vec<(u64, String)>) -> Self {
        let harness = serde_json::from_value(saved.harness).unwrap_or_else(|err| {
            tracing::warn!("a saved session's counters do not decode ({err}); they start afresh");
            Default::default()
        });
        let verify =
            saved.verify.and_then(|v| match serde_json::from_value::<crate::harness::SavedVerify>(v) {
                Ok(v) => Some(v.into()),
                Err(err) => {
                    tracing::warn!("a saved verify does not decode ({err}); the gate starts afresh");
                    None
                }
            });
        Self {
            id: saved.id,
            outputs: Mutex::new(OutputStore::restored(saved.issued, outputs)),
            enabled: Mutex::new(saved.enabled.into_iter().collect()),
            undo: Mutex::default(),
            harness: Mutex::new(Harness::restored(harness, verify)),
        }
    }

    /// Keeps this session's trace lines for the server to save ([`Session::take_trace_lines`]).
    pub fn keep_trace_lines(&self) {
        self.harness.lock().expect("harness lock").keep_trace_lines();
    }

    /// The trace lines of the calls since the last time this was called.
    pub fn take_trace_lines(&self) -> Vec<String> {
        self.harness.lock().expect("harness lock").take_trace_lines()
    }

    /// Whether `find_tools` has revealed `name` to this session.
    pub fn has_enabled(&self, name: &str) -> bool {
        self.enabled.lock().expect("session lock").contains(name)
    }
}

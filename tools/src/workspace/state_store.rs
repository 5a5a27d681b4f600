//! Where the plan and the handoff note are kept: JSON files in the state directory (outside
//! the repository), written atomically, or memory when the server has no directory.

use std::path::PathBuf;
use std::sync::Mutex;

use serde::Serialize;

/// Why the plan or the note could not be read or saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("the saved {name} is not valid ({source}); write a new one to replace it")]
    Invalid { name: &'static str, source: serde_json::Error },
    #[error("cannot encode {name}: {source}")]
    Encode { name: &'static str, source: serde_json::Error },
    #[error("cannot save {name} in {}: {source}", dir.display())]
    Save { name: &'static str, dir: PathBuf, source: std::io::Error },
}

/// Where the plan and the note live: a directory, or memory when the server has none.
#[derive(Debug, Default)]
pub struct StateStore {
    dir: Option<PathBuf>,
    memory: Mutex<std::collections::BTreeMap<String, Vec<u8>>>,
    /// Counts saves, so whoever keeps the state elsewhere (`--state`) knows when to copy it.
    saves: std::sync::atomic::AtomicU64,
}

impl StateStore {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self { dir, memory: Mutex::default(), saves: Default::default() }
    }

    /// How many saves this store took.
    pub fn saves(&self) -> u64 {
        self.saves.load(std::sync::atomic::Ordering::Acquire)
    }

    /// What a store in memory holds, by name (nothing for a store in a directory).
    pub fn export(&self) -> Vec<(String, Vec<u8>)> {
        self.memory.lock().expect("state lock").iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// Puts `bytes` under `name` in a store in memory, as another server saved it.
    pub fn import(&self, name: &str, bytes: Vec<u8>) {
        self.memory.lock().expect("state lock").insert(name.to_string(), bytes);
    }

    pub fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_deref()
    }

    pub(crate) fn load<T: serde::de::DeserializeOwned>(
        &self,
        name: &'static str,
    ) -> Result<Option<T>, StateError> {
        let bytes = match &self.dir {
            None => self.memory.lock().expect("state lock").get(name).cloned(),
            Some(dir) => match std::fs::read(dir.join(name)) {
                Ok(bytes) => Some(bytes),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
                Err(source) => return Err(StateError::Read { path: dir.join(name), source }),
            },
        };
        match bytes {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|source| StateError::Invalid { name, source }),
        }
    }

    pub(crate) fn save<T: Serialize>(&self, name: &'static str, value: &T) -> Result<(), StateError> {
        let mut bytes =
            serde_json::to_vec_pretty(value).map_err(|source| StateError::Encode { name, source })?;
        bytes.push(b'\n');
        let saved = match &self.dir {
            None => {
                self.memory.lock().expect("state lock").insert(name.to_string(), bytes);
                Ok(())
            }
            Some(dir) => std::fs::create_dir_all(dir)
                .and_then(|()| crate::write::files::write_atomic(&dir.join(name), &bytes, None))
                .map_err(|source| StateError::Save { name, dir: dir.clone(), source }),
        };
        self.saves.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        saved
    }
}

//! Keeps the index current while the server runs: a file watcher (inotify through `notify`) on
//! every directory the index walks, debounced, folds the changed files into a new snapshot (or
//! rescans, for an ignore file), then saves. Queries never wait for it: they read the snapshot
//! before the change until the new one is swapped in.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tack_indexer::{Index, Lang};

/// Quiet time before a burst of changes is applied (an editor save, a `git checkout`): short,
/// since a query after a write should see it; a longer burst is folded in a few steps.
const DEBOUNCE: Duration = Duration::from_millis(50);

/// Quiet time after the last change before the index is saved: saving writes the whole index,
/// and during a run of edits only the last one's is worth writing (a reopen finds any change
/// since by the files' sizes, times and contents).
const SAVE_QUIET: Duration = Duration::from_secs(3);

/// A running watcher: dropping it stops the watcher (saving what is unsaved) and lets go of the
/// index, as when a repository closes.
pub struct Watching {
    stop: mpsc::Sender<Message>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.stop.send(Message::Stop);
    }
}

enum Message {
    Changed(notify::Event),
    Stop,
}

/// Starts watching; the watcher runs until the returned handle is dropped.
pub fn start(index: Arc<Index>) -> anyhow::Result<Watching> {
    let (tx, rx) = mpsc::channel::<Message>();
    let stop = tx.clone();
    let root = index.root().to_path_buf();
    let event_root = root.clone();
    let mut watcher: RecommendedWatcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if matches!(event.kind, EventKind::Access(_))
                || !event.paths.iter().any(|p| matters(&event_root, p))
            {
                return;
            }
            let _ = tx.send(Message::Changed(event));
        })?;
    let mut watched = 0usize;
    for dir in directories(&index, &root) {
        if watcher.watch(&dir, RecursiveMode::NonRecursive).is_ok() {
            watched += 1;
        }
    }
    tracing::info!(directories = watched, "watching for changes");
    std::thread::Builder::new().name("tack-watch".into()).spawn(move || {
        let mut watcher = watcher;
        let save = |index: &Index| {
            let saving = std::time::Instant::now();
            match index.save() {
                Ok(saved) => tracing::debug!(saved, seconds = saving.elapsed().as_secs_f64(), "index saved"),
                Err(err) => tracing::warn!("cannot save the index: {err}"),
            }
        };
        let mut unsaved = false;
        loop {
            let first =
                match if unsaved { rx.recv_timeout(SAVE_QUIET) } else { rx.recv().map_err(Into::into) } {
                    Ok(Message::Changed(event)) => event,
                    Err(RecvTimeoutError::Timeout) => {
                        save(&index);
                        unsaved = false;
                        continue;
                    }
                    Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => {
                        if unsaved {
                            save(&index);
                        }
                        return;
                    }
                };
            let mut pending = vec![first];
            let mut stopping = false;
            loop {
                match rx.recv_timeout(DEBOUNCE) {
                    Ok(Message::Changed(event)) => pending.push(event),
                    Err(RecvTimeoutError::Timeout) => break,
                    Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => {
                        stopping = true;
                        break;
                    }
                }
            }
            for event in &pending {
                for path in &event.paths {
                    // A new directory (a checkout, an unpacked tree) gets watched too.
                    if matches!(event.kind, EventKind::Create(_)) && matters(&root, path) && path.is_dir() {
                        for dir in directories(&index, path) {
                            let _ = watcher.watch(&dir, RecursiveMode::NonRecursive);
                        }
                    }
                }
            }
            let mut rels: Vec<String> = pending
                .iter()
                .flat_map(|event| &event.paths)
                .filter(|path| matters(&root, path))
                .filter_map(|path| path.strip_prefix(&root).ok()?.to_str().map(str::to_string))
                .collect();
            rels.sort_unstable();
            rels.dedup();
            let ignores_changed =
                rels.iter().any(|rel| rel.ends_with(".gitignore") || rel.ends_with(".ignore"));
            let started = std::time::Instant::now();
            let generation = if ignores_changed {
                index.refresh(&|_, _| {});
                index.snapshot().generation
            } else {
                index.apply_changes(&rels).generation
            };
            tracing::info!(
                paths = rels.len(),
                generation,
                seconds = started.elapsed().as_secs_f64(),
                "index updated"
            );
            unsaved = true;
            if stopping {
                save(&index);
                return;
            }
        }
    })?;
    Ok(Watching { stop })
}

/// Every directory under `dir` that the index would walk into.
fn directories(index: &Index, dir: &Path) -> Vec<PathBuf> {
    index
        .filter()
        .builder(dir)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_dir()))
        .map(|e| e.into_path())
        .collect()
}

/// Whether a changed path can change the index: source and text files, directories, ignore
/// files; nothing under `.git`.
fn matters(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else { return false };
    if rel.components().next().is_some_and(|c| c.as_os_str() == ".git") {
        return false;
    }
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    Lang::of_file(rel).is_some() || rel.extension().is_none() || name == ".gitignore" || name == ".ignore"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_changes_that_can_touch_the_index_matter() {
        let root = Path::new("/r");
        assert!(matters(root, Path::new("/r/src/a.py")));
        assert!(matters(root, Path::new("/r/src/lib.rs")));
        assert!(matters(root, Path::new("/r/src/newdir")));
        assert!(matters(root, Path::new("/r/.gitignore")));
        assert!(!matters(root, Path::new("/r/.git/index")));
        assert!(matters(root, Path::new("/r/notes.txt")), "a text file is searched");
        assert!(!matters(root, Path::new("/r/logo.png")));
        assert!(!matters(root, Path::new("/r/Cargo.lock")));
        assert!(!matters(root, Path::new("/elsewhere/a.py")));
    }
}

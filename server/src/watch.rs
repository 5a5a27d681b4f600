//! Keeps the index current while the server runs: a file watcher (inotify through `notify`) on
//! every directory the index walks, debounced, marks the index dirty and rescans it, then saves.
//! Queries rescan too when they find it dirty, so a change shows in the very next call.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tack_indexer::index::Index;
use tack_indexer::lang::Lang;

/// Quiet time before a burst of changes is applied (an editor save, a `git checkout`).
const DEBOUNCE: Duration = Duration::from_millis(250);

/// Starts watching; the watcher lives as long as the returned thread.
pub fn start(index: Arc<Index>) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel::<notify::Event>();
    let root = index.root().to_path_buf();
    let marker = index.clone();
    let event_root = root.clone();
    let mut watcher: RecommendedWatcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if matches!(event.kind, EventKind::Access(_))
                || !event.paths.iter().any(|p| matters(&event_root, p))
            {
                return;
            }
            // Dirty at once, not after the debounce: the very next query must rescan.
            marker.mark_dirty();
            let _ = tx.send(event);
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
        while let Ok(first) = rx.recv() {
            let mut pending = vec![first];
            loop {
                match rx.recv_timeout(DEBOUNCE) {
                    Ok(event) => pending.push(event),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
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
            if let Some(stats) = index.refresh_if_dirty() {
                tracing::info!(
                    files = stats.files,
                    parsed = stats.parsed,
                    removed = stats.removed,
                    seconds = stats.seconds,
                    "index updated"
                );
            }
            if let Err(err) = index.save() {
                tracing::warn!("cannot save the index: {err}");
            }
        }
    })?;
    Ok(())
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

/// Whether a changed path can change the index: source files, directories, ignore files;
/// nothing under `.git`.
fn matters(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else { return false };
    if rel.components().next().is_some_and(|c| c.as_os_str() == ".git") {
        return false;
    }
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    Lang::from_path(rel).is_some() || rel.extension().is_none() || name == ".gitignore" || name == ".ignore"
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
        assert!(!matters(root, Path::new("/r/notes.txt")));
        assert!(!matters(root, Path::new("/elsewhere/a.py")));
    }
}

//! The write path every writing tool goes through: resolve and lock the paths, read what they
//! hold, check the version the agent named, run the syntax guard over every result, then write
//! all files atomically (restoring the ones already written if a later one fails), record the
//! session's undo history and tell the index.

use std::ops::Range;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
use tack_indexer::RootDir;

use crate::observe::observation::Observation;
use crate::session::Session;
use crate::workspace::Workspace;
use crate::workspace::path_guard::ResolvedPath;
use crate::write::files::{self, Current, FileLock, version_of};
use crate::write::syntax_guard::{self, LineOp, diff_lines, numbered};
use crate::write::undo_log::UndoEntry;

/// Lines shown either side of an edited region.
const ECHO_CONTEXT: usize = 4;
/// Lines one file's echo shows at most.
const ECHO_MAX_LINES: usize = 60;
/// Lines of a conflict's diff shown at most.
const DIFF_MAX_LINES: usize = 40;

/// Resolves a path for writing: inside the root, and not the root itself.
pub fn resolve_for_write(ws: &Workspace, path: &str, verb: &str) -> Result<ResolvedPath, Observation> {
    let resolved =
        ws.root().resolve(path).map_err(|err| Observation::error(format!("cannot {verb} {err}")))?;
    if resolved.rel == "." {
        return Err(Observation::error(format!(
            "cannot {verb} {path}: it is the repository root; name a file inside it"
        )));
    }
    // Where a link leads counts, not only its name.
    let target = resolved.abs.strip_prefix(ws.root().path()).map(|p| p.to_string_lossy().into_owned());
    let refused = |rel: &str| crate::workspace::protected::refuses(ws.root().path(), rel);
    if !ws.config().allow_protected_writes
        && let Some(kind) = refused(&resolved.rel).or_else(|| target.ok().and_then(|t| refused(&t)))
    {
        return Err(Observation::error(format!(
            "cannot {verb} {}: {}",
            resolved.rel,
            crate::workspace::protected::refusal(kind)
        )));
    }
    Ok(resolved)
}

/// One path, locked, with what it held when the lock was taken.
#[derive(Debug)]
pub struct Target {
    pub rel: String,
    pub current: Current,
}

/// What to do about a write over `[edit] max_file_bytes`.
pub const TOO_LARGE_NEXT: &str = "Write less into one file (split it), or generate a file this large with a \
     command through run; the user can raise the bound with [edit] max_file_bytes in their own tack config.";

/// `1048576 bytes (1.0 MiB)`.
pub fn size_text(bytes: u64) -> String {
    format!("{bytes} bytes ({:.1} MiB)", bytes as f64 / (1u64 << 20) as f64)
}

/// Paths locked for one write. Locks are taken in path order, so two writers that need the
/// same files never wait on each other in a circle.
pub struct Locked<'a> {
    ws: &'a Workspace,
    targets: Vec<Target>,
    _locks: Vec<FileLock>,
}

/// One file's new state: `Some(bytes)` to write, `None` to delete.
#[derive(Debug)]
pub struct Change {
    pub rel: String,
    pub after: Option<Vec<u8>>,
    /// Permission bits for a file that does not exist yet (undo restores a deleted file's).
    pub mode: Option<u32>,
}

/// What a commit did to one file.
#[derive(Debug)]
pub struct Written {
    pub rel: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
    /// The new version; `None` when the file was deleted.
    pub version: Option<String>,
}

/// Locks `paths` (deduplicated) and reads them.
pub fn lock<'a>(ws: &'a Workspace, paths: Vec<ResolvedPath>, verb: &str) -> Result<Locked<'a>, Observation> {
    let mut paths = paths;
    paths.sort_by(|a, b| a.rel.cmp(&b.rel));
    paths.dedup_by(|a, b| a.rel == b.rel);
    let mut locks = Vec::with_capacity(paths.len());
    let mut targets = Vec::with_capacity(paths.len());
    for path in paths {
        let lock = FileLock::acquire(ws.root().path(), &path.rel).map_err(|err| {
            Observation::error(format!("cannot {verb} {}: cannot take its write lock: {err}", path.rel))
        })?;
        locks.push(lock);
        let current = files::read_current(ws.root().dir(), &path.rel).map_err(|err| {
            Observation::error(format!("cannot {verb} {}: {err}; nothing was changed", path.rel))
        })?;
        targets.push(Target { rel: path.rel, current });
    }
    Ok(Locked { ws, targets, _locks: locks })
}

impl Locked<'_> {
    pub fn target(&self, rel: &str) -> &Target {
        self.targets.iter().find(|t| t.rel == rel).expect("every target was locked")
    }

    /// The file's text; `Ok(None)` when it does not exist; an error for binary or non-UTF-8
    /// content, which tack does not edit.
    pub fn text(&self, rel: &str, verb: &str) -> Result<Option<&str>, Observation> {
        match &self.target(rel).current {
            Current::Absent => Ok(None),
            Current::File { bytes, .. } => {
                if bytes[..bytes.len().min(8_000)].contains(&0) {
                    return Err(Observation::error(format!(
                        "cannot {verb} {rel}: it is a binary file; tack edits text files only"
                    )));
                }
                std::str::from_utf8(bytes).map(Some).map_err(|_| {
                    Observation::error(format!(
                        "cannot {verb} {rel}: it is not UTF-8 text; tack edits UTF-8 text files only"
                    ))
                })
            }
        }
    }

    /// Refuses when the agent named a version and the file is no longer at it, showing what
    /// changed when the named version's content is still known.
    pub fn check_version(&self, rel: &str, expected: Option<&str>, verb: &str) -> Result<(), Observation> {
        let Some(expected) = expected.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(()) };
        let bytes = match &self.target(rel).current {
            Current::Absent => {
                return Err(Observation::error(format!(
                    "refused to {verb} {rel}: it no longer exists (you named version {expected}); nothing was \
                     changed. List its folder with read_file, or create it with write_file without a version"
                )));
            }
            Current::File { bytes, .. } => bytes,
        };
        let now = version_of(bytes);
        if now == expected {
            return Ok(());
        }
        let mut text = format!(
            "refused to {verb} {rel}: it changed since version {expected} (it is now version {now}), so \
             someone else wrote it; nothing was changed.\n"
        );
        match self.ws.versions().get(expected) {
            Some(then) => {
                text.push_str("what changed since your version:\n");
                text.push_str(&short_diff(&then, bytes, expected, &now));
            }
            None => text.push_str("(the content of your version is no longer known, so no diff)\n"),
        }
        text.push_str(&format!(
            "Re-read it (read_file) and retry with version=\"{now}\", keeping the other change.\n"
        ));
        Err(Observation::error(text))
    }

    /// Guards and writes `changes`, all or none. `retry` is the guard's next step for this tool.
    /// With `undoable`, the writes enter the session's undo history.
    pub fn commit(
        self,
        session: &Session,
        changes: Vec<Change>,
        guard: bool,
        undoable: bool,
        retry: &str,
    ) -> Result<Vec<Written>, Observation> {
        // Undo restores what was there before, so only new content is bounded.
        if undoable {
            self.bound(&changes)?;
        }
        if guard {
            self.guard(&changes, retry)?;
        }
        let written = self.write_all(&changes)?;
        self.record(session, &written, &changes, undoable);
        Ok(written)
    }

    /// Refuses the whole change when it would leave a file over `[edit] max_file_bytes` that is
    /// larger than it was.
    fn bound(&self, changes: &[Change]) -> Result<(), Observation> {
        let max = self.ws.config().edit.max_file_bytes;
        for change in changes {
            let Some(after) = &change.after else { continue };
            let before = match &self.target(&change.rel).current {
                Current::File { bytes, .. } => bytes.len(),
                Current::Absent => 0,
            };
            if after.len() as u64 > max && after.len() > before {
                return Err(Observation::error(format!(
                    "refused: this would make {} {}, over the {} tack writes to one file; nothing was changed. {}",
                    change.rel,
                    size_text(after.len() as u64),
                    size_text(max),
                    TOO_LARGE_NEXT
                )));
            }
        }
        Ok(())
    }

    /// Refuses the whole change when it would add a syntax error to any file, naming each.
    fn guard(&self, changes: &[Change], retry: &str) -> Result<(), Observation> {
        let mut refusals = Vec::new();
        for change in changes {
            let Some(after) = change.after.as_deref().and_then(|a| std::str::from_utf8(a).ok()) else {
                continue;
            };
            let before = match &self.target(&change.rel).current {
                Current::File { bytes, .. } => std::str::from_utf8(bytes).ok(),
                Current::Absent => None,
            };
            let issues = syntax_guard::new_issues(&change.rel, before, after);
            if !issues.is_empty() {
                refusals.push((change.rel.clone(), after, issues));
            }
        }
        if let [(rel, after, issues)] = refusals.as_slice() {
            return Err(Observation::error(syntax_guard::refusal(rel, after, issues, retry)));
        }
        if refusals.is_empty() {
            return Ok(());
        }
        let mut text = format!(
            "refused: this would add syntax errors to {} files; nothing was applied, no file was changed.\n",
            refusals.len()
        );
        for (rel, after, issues) in &refusals {
            text.push_str(&syntax_guard::describe(rel, after, issues));
        }
        text.push_str(retry);
        text.push('\n');
        Err(Observation::error(text))
    }

    /// Writes each changed file atomically, in order; on a failure, restores the files written
    /// before it and says whether that worked.
    fn write_all(&self, changes: &[Change]) -> Result<Vec<Written>, Observation> {
        let mut done: Vec<(usize, Vec<String>)> = Vec::new();
        let mut written = Vec::with_capacity(changes.len());
        for (i, change) in changes.iter().enumerate() {
            let target = self.target(&change.rel);
            let before = match &target.current {
                Current::File { bytes, .. } => Some(bytes.clone()),
                Current::Absent => None,
            };
            if before != change.after {
                match apply(self.ws.root().dir(), target, change) {
                    Ok(created_dirs) => done.push((i, created_dirs)),
                    Err(err) => {
                        let restored = self.roll_back(changes, &done);
                        let mut text = format!("cannot write {}: {err}; ", change.rel);
                        if done.is_empty() {
                            text.push_str("nothing was changed.");
                        } else if restored.is_empty() {
                            text.push_str(&format!(
                                "the {} files written before it were restored, so nothing was changed.",
                                done.len()
                            ));
                        } else {
                            text.push_str(&format!(
                                "restoring the files written before it failed for: {}. Check them with read_file.",
                                restored.join(", ")
                            ));
                        }
                        return Err(Observation::error(text));
                    }
                }
            }
            written.push(Written {
                rel: change.rel.clone(),
                version: change.after.as_deref().map(version_of),
                before,
                after: change.after.clone(),
            });
        }
        Ok(written)
    }

    /// Tells the index, the version cache, the session's undo log and its harness what changed.
    fn record(&self, session: &Session, written: &[Written], changes: &[Change], undoable: bool) {
        let mut rels = Vec::new();
        for (w, change) in written.iter().zip(changes) {
            if w.before == w.after {
                continue;
            }
            rels.push(w.rel.clone());
            if let Some(after) = &w.after {
                self.ws.versions().remember(after);
            }
            if undoable {
                let mode = match &self.target(&w.rel).current {
                    Current::File { mode, .. } => Some(*mode),
                    Current::Absent => change.mode,
                };
                session.undo.lock().expect("undo lock").push(UndoEntry {
                    rel: w.rel.clone(),
                    before: w.before.clone().map(Arc::new),
                    mode,
                    after_version: w.version.clone(),
                });
            }
        }
        self.ws.files_changed(&rels);
        session.harness.lock().expect("harness lock").record_write(&rels);
    }

    /// Puts back what the first writes of a failed commit changed; returns the paths it could
    /// not restore.
    fn roll_back(&self, changes: &[Change], done: &[(usize, Vec<String>)]) -> Vec<String> {
        let root = self.ws.root().dir();
        let mut failed = Vec::new();
        for (i, created_dirs) in done.iter().rev() {
            let target = self.target(&changes[*i].rel);
            let (parent, name) = split(&target.rel);
            let ok = match &target.current {
                Current::File { bytes, mode, uid, gid } => root
                    .open_dir(parent)
                    .and_then(|dir| {
                        files::write_atomic_in(dir.as_fd(), name, bytes, Some((*mode, *uid, *gid)))
                    })
                    .is_ok(),
                Current::Absent => {
                    match root.open_dir(parent).and_then(|dir| files::remove_durably_in(dir.as_fd(), name)) {
                        Ok(()) => true,
                        Err(err) => err.kind() == std::io::ErrorKind::NotFound,
                    }
                }
            };
            for dir in created_dirs.iter().rev() {
                let (parent, name) = split(dir);
                if let Ok(parent) = root.open_dir(parent) {
                    let _ = rustix::fs::unlinkat(&parent, name, AtFlags::REMOVEDIR);
                }
            }
            if !ok {
                failed.push(target.rel.clone());
            }
        }
        failed
    }
}

#[cfg(test)]
thread_local! {
    /// A path whose write fails, so tests can reach the roll-back.
    static FAIL_WRITE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// A root-relative path's folder (`.` for the root) and name.
fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or((".", rel))
}

/// Writes or deletes one file beneath the root's descriptor; returns the folders it had to
/// create, outermost first.
fn apply(root: &RootDir, target: &Target, change: &Change) -> std::io::Result<Vec<String>> {
    #[cfg(test)]
    if FAIL_WRITE.with(|f| f.borrow().as_deref() == Some(target.rel.as_str())) {
        return Err(std::io::Error::other("injected failure"));
    }
    let (parent, name) = split(&target.rel);
    match (&change.after, &target.current) {
        (None, Current::Absent) => Ok(Vec::new()),
        (None, Current::File { .. }) => {
            files::remove_durably_in(root.open_dir(parent)?.as_fd(), name).map(|()| Vec::new())
        }
        (Some(bytes), current) => {
            let (dir, created) = make_dirs(root, parent)?;
            let keep = match current {
                Current::File { mode, uid, gid, .. } => Some((*mode, *uid, *gid)),
                Current::Absent => change.mode.map(|mode| {
                    // SAFETY: getuid/getgid have no preconditions and cannot fail.
                    (mode, unsafe { libc::getuid() }, unsafe { libc::getgid() })
                }),
            };
            files::write_atomic_in(dir.as_fd(), name, bytes, keep)?;
            Ok(created)
        }
    }
}

/// Opens the folder `rel` beneath the root one component at a time, never following a link,
/// making each one that is missing. Returns it and the folders made, outermost first.
fn make_dirs(root: &RootDir, rel: &str) -> std::io::Result<(OwnedFd, Vec<String>)> {
    let mut dir = root.open_dir(".")?;
    let mut made = Vec::new();
    if rel == "." {
        return Ok((dir, made));
    }
    let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC;
    let mut end = 0;
    for part in rel.split('/') {
        end += part.len() + usize::from(end > 0);
        let next = match rustix::fs::openat(&dir, part, flags, Mode::empty()) {
            Err(Errno::NOENT) => {
                // Another writer may make it first: then it is theirs, and it exists.
                match rustix::fs::mkdirat(&dir, part, Mode::from_bits_truncate(0o777)) {
                    Ok(()) => made.push(rel[..end].to_string()),
                    Err(Errno::EXIST) => {}
                    Err(err) => return Err(err.into()),
                }
                rustix::fs::openat(&dir, part, flags, Mode::empty())
            }
            other => other,
        };
        dir = next.map_err(|errno| match errno {
            Errno::LOOP | Errno::NOTDIR => std::io::Error::other(format!(
                "{} is not a folder (a link or a file is in its place), so tack did not write beneath it",
                &rel[..end]
            )),
            errno => errno.into(),
        })?;
    }
    Ok((dir, made))
}

/// A unified diff of two versions, cut to a few dozen lines.
pub fn short_diff(old: &[u8], new: &[u8], old_name: &str, new_name: &str) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header(&format!("version {old_name}"), &format!("version {new_name}"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: String = lines.iter().take(DIFF_MAX_LINES).map(|l| format!("{l}\n")).collect();
    if lines.len() > DIFF_MAX_LINES {
        out.push_str(&format!("… {} more diff lines\n", lines.len() - DIFF_MAX_LINES));
    }
    out
}

/// The edited regions of `after`, given as sorted byte spans, with a few lines either side.
pub fn echo_spans(after: &str, spans: &[Range<usize>]) -> String {
    let lines: Vec<&str> = after.split('\n').collect();
    // One pass over the text: line numbers of span ends, counted from the previous offset.
    let bytes = after.as_bytes();
    let (mut offset, mut line) = (0usize, 0usize);
    let mut line_of = |target: usize| {
        let target = target.clamp(offset, after.len());
        line += bytes[offset..target].iter().filter(|&&b| b == b'\n').count();
        offset = target;
        line
    };
    let mut ranges: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for s in spans {
        let first = line_of(s.start);
        // A span that ends with its line break ends on the line before.
        let end = if s.end > s.start && bytes.get(s.end - 1) == Some(&b'\n') { s.end - 1 } else { s.end };
        ranges.push(first..line_of(end).max(first) + 1);
    }
    echo_ranges(&lines, after.ends_with('\n'), &ranges)
}

/// The regions where `after` differs from `before` (all of it for a new file).
pub fn echo_diff(before: Option<&str>, after: &str) -> String {
    let new: Vec<&str> = after.split('\n').collect();
    let ranges: Vec<Range<usize>> = match before {
        None => std::iter::once(0..new.len()).collect(),
        Some(before) => {
            let old: Vec<&str> = before.split('\n').collect();
            diff_lines(&old, &new)
                .into_iter()
                .filter_map(|op| match op {
                    LineOp::Change { new, .. } => Some(new),
                    LineOp::Equal { .. } => None,
                })
                .collect()
        }
    };
    echo_ranges(&new, after.ends_with('\n'), &ranges)
}

/// Numbered windows around 0-based line ranges (an empty range shows where lines were
/// removed), merged, and cut to [`ECHO_MAX_LINES`].
fn echo_ranges(lines: &[&str], ends_with_newline: bool, ranges: &[Range<usize>]) -> String {
    let n_lines = if ends_with_newline { lines.len() - 1 } else { lines.len() };
    if n_lines == 0 || (n_lines == 1 && lines[0].is_empty()) {
        return "(the file is now empty)\n".to_string();
    }
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for range in ranges {
        let first = range.start.saturating_sub(ECHO_CONTEXT) + 1;
        let last = (range.end + ECHO_CONTEXT).min(n_lines);
        let window = (first.min(n_lines), last);
        match windows.last_mut() {
            Some(prev) if window.0 <= prev.1 + 1 => prev.1 = prev.1.max(window.1),
            _ => windows.push(window),
        }
    }
    let mut shown = Vec::new();
    let mut budget = ECHO_MAX_LINES;
    let mut cut = 0;
    for &(start, end) in &windows {
        if budget == 0 {
            cut += 1;
            continue;
        }
        let end = end.min(start + budget - 1);
        budget -= end - start + 1;
        shown.push((start, end));
    }
    let mut text = numbered(lines, &shown);
    let last_shown = shown.last().map_or(0, |w| w.1);
    let last_window = windows.last().map_or(0, |w| w.1);
    if cut > 0 || last_shown < last_window {
        text.push_str(&format!(
            "… the edit goes on past line {last_shown}; read_file(start={}) shows the rest\n",
            last_shown + 1
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_write_failing_midway_restores_the_files_written_before_it() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        fs::write(dir.path().join("c.txt"), "c\n").unwrap();
        let tb = Workspace::new(dir.path(), crate::Config::default()).unwrap();
        let session = Session::new();
        let paths = ["a.txt", "new/b.txt", "c.txt"].map(|p| resolve_for_write(&tb, p, "write").unwrap());
        let locked = lock(&tb, paths.to_vec(), "write").unwrap();
        let changes = vec![
            Change { rel: "a.txt".into(), after: Some(b"A\n".to_vec()), mode: None },
            Change { rel: "new/b.txt".into(), after: Some(b"B\n".to_vec()), mode: None },
            Change { rel: "c.txt".into(), after: None, mode: None },
        ];
        FAIL_WRITE.with(|f| *f.borrow_mut() = Some("c.txt".into()));
        let err = locked.commit(&session, changes, true, true, "").unwrap_err();
        FAIL_WRITE.with(|f| *f.borrow_mut() = None);
        assert_eq!(
            err.text,
            "cannot write c.txt: injected failure; the 2 files written before it were restored, so nothing was changed."
        );
        assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\n");
        assert_eq!(fs::read_to_string(dir.path().join("c.txt")).unwrap(), "c\n");
        assert!(!dir.path().join("new").exists(), "the folder made for b.txt is gone too");
        assert!(session.undo.lock().unwrap().last("a.txt").is_none(), "a failed write leaves no undo entry");
    }

    #[test]
    fn echo_shows_four_lines_either_side() {
        let text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let at = text.find("l10").unwrap();
        let echo = echo_spans(&text, std::slice::from_ref(&(at..at + 4)));
        assert_eq!(echo, " 6\tl6\n 7\tl7\n 8\tl8\n 9\tl9\n10\tl10\n11\tl11\n12\tl12\n13\tl13\n14\tl14\n");
        let before: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let after = before.replace("l2\n", "");
        assert_eq!(echo_diff(Some(&before), &after), "1\tl1\n2\tl3\n3\tl4\n4\tl5\n5\tl6\n");
        assert_eq!(echo_diff(Some("a\n"), ""), "(the file is now empty)\n");
    }

    #[test]
    fn long_echoes_are_cut_with_a_pointer_to_the_rest() {
        let text: String = (1..=500).map(|i| format!("l{i}\n")).collect();
        let echo = echo_diff(None, &text);
        assert_eq!(echo.lines().count(), ECHO_MAX_LINES + 1);
        assert!(
            echo.ends_with("… the edit goes on past line 60; read_file(start=61) shows the rest\n"),
            "{echo}"
        );
    }
}

//! The persistent symbol index: every source file's symbols, keyed by path, reused while the
//! file's content is unchanged, saved outside the repository, and swapped in whole snapshots so
//! a query never sees a half-updated index.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Instant, UNIX_EPOCH};

use rayon::prelude::*;
use tree_sitter::Parser;

use crate::graph::SymbolGraph;
use crate::resolve::Resolver;
use crate::snapshot::{FileEntry, Lang, MAX_PARSE_BYTES, Snapshot, utf8_lossy};
use crate::store::{load, load_graph, remove_stale_temps, save, save_graph};
use crate::symbols::FileSymbols;
use crate::walk::Filter;

/// Work a refresh runs on its new snapshot while the snapshot's graph is built.
pub type Beside<'a> = &'a (dyn Fn(&Snapshot) + Sync);

/// The entry of file `rel` as it is now: the old one when size and mtime match (and `trust_times`),
/// a copy with new times when only they changed, else freshly parsed (the `bool`). `None`:
/// unreadable. A path a caller says it changed is read whatever its times say: two writes of one
/// length within a clock tick leave both the same.
fn entry_for(
    dir: &crate::beneath::RootDir,
    rel: String,
    lang: Lang,
    (size, mtime_ns): (u64, u64),
    old: Option<&Arc<FileEntry>>,
    trust_times: bool,
) -> Option<(Arc<FileEntry>, bool)> {
    // A file its name gives no language may be a script whose `#!` line does (`bin/rbenv`):
    // as before while its times say it is the same file, else as its first line says.
    let by_name = lang;
    let script = |old: &FileEntry| !by_name.has_grammar() && old.lang.has_grammar();
    let lang = match old {
        Some(old) if script(old) => old.lang,
        _ => lang,
    };
    if let Some(old) = old
        && trust_times
        && old.size == size
        && old.mtime_ns == mtime_ns
        && old.lang == lang
    {
        return Some((old.clone(), false));
    }
    let (hash, content) = match read_content(dir, &rel).ok()? {
        Content::Whole(bytes) => (content_hash(&bytes), Content::Whole(bytes)),
        Content::Large { hash, lines } => (hash, Content::Large { hash, lines }),
    };
    let lang = match &content {
        Content::Whole(bytes)
            if !by_name.has_grammar() && !rel.rsplit('/').next().unwrap_or("").contains('.') =>
        {
            Lang::from_shebang(bytes).unwrap_or(by_name)
        }
        Content::Large { .. } if !by_name.has_grammar() => by_name,
        _ => lang,
    };
    match old {
        Some(old) if old.hash == hash && old.lang == lang && old.size == size && old.mtime_ns == mtime_ns => {
            Some((old.clone(), false))
        }
        Some(old) if old.hash == hash && old.lang == lang => {
            let mut same = (**old).clone();
            same.size = size;
            same.mtime_ns = mtime_ns;
            Some((Arc::new(same), false))
        }
        // A text file is searched by its words: nothing to parse, and nothing to keep of a
        // binary file, a generated one, or one past the parse bound.
        _ if !lang.has_grammar() => {
            let Content::Whole(bytes) = content else { return None };
            let lines = count_lines(&bytes);
            if !crate::lang::is_text(&bytes) || crate::lang::is_generated(size, lines) {
                return None;
            }
            // A manifest keeps what it declares (`composer.json`'s namespaces and folders).
            let symbols = crate::lang::manifest_symbols(&rel, &bytes).unwrap_or_default();
            Some((Arc::new(FileEntry { path: rel, lang, size, mtime_ns, hash, lines, symbols }), true))
        }
        _ => {
            let entry = match content {
                Content::Whole(bytes) => parse_entry(rel, lang, size, mtime_ns, hash, &bytes),
                Content::Large { lines, .. } => FileEntry {
                    path: rel,
                    lang,
                    size,
                    mtime_ns,
                    hash,
                    lines,
                    symbols: FileSymbols::default(),
                },
            };
            Some((Arc::new(entry), true))
        }
    }
}

/// A file as the index takes it in.
enum Content {
    /// At most [`MAX_PARSE_BYTES`]: parsed.
    Whole(Vec<u8>),
    /// Larger (whatever its size said when it was listed): hashed and its lines counted as it
    /// streams past, never held whole. A 500 MB file cost 508 MB when it was read whole.
    Large { hash: [u8; 16], lines: u32 },
}

fn read_content(dir: &crate::beneath::RootDir, rel: &str) -> std::io::Result<Content> {
    use std::io::Read as _;
    let mut file = dir.open_file(rel)?;
    let mut head = Vec::new();
    (&mut file).take(MAX_PARSE_BYTES + 1).read_to_end(&mut head)?;
    if head.len() as u64 <= MAX_PARSE_BYTES {
        return Ok(Content::Whole(head));
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(&head);
    let mut newlines = memchr::memchr_iter(b'\n', &head).count();
    let mut last = head.last().copied();
    drop(head);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        hasher.update(&buf[..n]);
        newlines += memchr::memchr_iter(b'\n', &buf[..n]).count();
        last = Some(buf[n - 1]);
    }
    let mut hash = [0u8; 16];
    hash.copy_from_slice(&hasher.finalize().as_bytes()[..16]);
    let lines = newlines + usize::from(last.is_some_and(|b| b != b'\n'));
    Ok(Content::Large { hash, lines: lines as u32 })
}

/// A file's modification time in nanoseconds (0 when the system has none).
fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64)
}

/// What one refresh did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefreshStats {
    pub files: usize,
    /// Files parsed in this refresh (new or changed content).
    pub parsed: usize,
    /// Files whose saved symbols were reused.
    pub reused: usize,
    pub removed: usize,
    pub seconds: f64,
}

/// How opening went: the saved index was used, there was none, or it was unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadOutcome {
    Loaded {
        files: usize,
    },
    NoSavedIndex,
    Rebuilt {
        reason: String,
    },
    /// No usable saved index, and another worktree or clone of the repository had one: its
    /// entries are reused where path and content match (see [`Donor`](crate::Donor)).
    Seeded {
        from: crate::worktree::Donor,
        files: usize,
        reason: Option<String>,
    },
    InMemory,
}

/// The live index of one root.
pub struct Index {
    root: PathBuf,
    filter: Filter,
    store: Option<PathBuf>,
    current: RwLock<Arc<Snapshot>>,
    /// A first scan has completed: from then on queries never wait for an update.
    ready: AtomicBool,
    unsaved: AtomicBool,
    /// One more than the generation last saved (0: none).
    saved: AtomicU64,
    update: Mutex<()>,
    /// Files parsed since the index was opened: tests and logs read it to prove reuse.
    parsed_total: AtomicU64,
}

impl Index {
    /// Opens the index of `root`, loading the saved one from `store` (a directory) when it is
    /// usable. Nothing is scanned yet: the first [`Index::snapshot`] or [`Index::refresh`] does.
    pub fn open(root: &Path, filter: Filter, store: Option<PathBuf>) -> (Self, LoadOutcome) {
        if let Some(dir) = &store {
            remove_stale_temps(dir);
        }
        let (files, outcome) = match &store {
            None => (BTreeMap::new(), LoadOutcome::InMemory),
            Some(dir) => match load(&dir.join("index.bin"), root) {
                Ok(Some(entries)) => {
                    let n = entries.iter().filter(|e| e.lang.has_grammar()).count();
                    let files = entries.into_iter().map(|e| (e.path.clone(), Arc::new(e))).collect();
                    (files, LoadOutcome::Loaded { files: n })
                }
                Ok(None) => seeded(dir, root, None).unwrap_or((BTreeMap::new(), LoadOutcome::NoSavedIndex)),
                Err(reason) => seeded(dir, root, Some(reason.clone()))
                    .unwrap_or((BTreeMap::new(), LoadOutcome::Rebuilt { reason })),
            },
        };
        let snapshot = new_snapshot(files, 0);
        // The resolved references saved with the index, when they belong to exactly its files:
        // a reopen then resolves only what changed since; and the ranks saved with them, so
        // the first unfocused map ranks nothing.
        if let Some(dir) = &store
            && !snapshot.files.is_empty()
        {
            load_graph(dir, &snapshot);
        }
        let index = Self {
            root: root.to_path_buf(),
            filter,
            store,
            current: RwLock::new(Arc::new(snapshot)),
            ready: AtomicBool::new(false),
            unsaved: AtomicBool::new(false),
            saved: AtomicU64::new(0),
            update: Mutex::new(()),
            parsed_total: AtomicU64::new(0),
        };
        (index, outcome)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file filter the index walks with.
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    /// Files parsed since the index was opened.
    pub fn parsed_total(&self) -> u64 {
        self.parsed_total.load(Ordering::SeqCst)
    }

    /// The newest complete snapshot. Only a query before the first scan has finished waits (for
    /// that scan); after it, no query waits for an update: a change is folded in by the call
    /// that made it ([`Index::apply_changes`]) or by the watcher ([`Index::refresh`]), off every
    /// other call's path, and swapped in whole with its graph built.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        if !self.ready.load(Ordering::Acquire) {
            let _guard = self.update.lock().expect("index update lock");
            if !self.ready.load(Ordering::Acquire) {
                self.refresh_locked(&|_, _| {}, None);
            }
        }
        self.current.read().expect("index lock").clone()
    }

    /// Folds the files at `rels` (root-relative) into a new snapshot, returned once it is the
    /// current one: the caller's next query sees its own change. A changed file is re-read and
    /// re-parsed, a missing one (or a folder's files) removed; a path the index does not know
    /// yet (a new file may be ignored) makes a full rescan instead.
    pub fn apply_changes(&self, rels: &[String]) -> Arc<Snapshot> {
        let guard = self.update.lock().expect("index update lock");
        if !self.ready.load(Ordering::Acquire) {
            self.refresh_locked(&|_, _| {}, None);
            drop(guard);
            return self.current.read().expect("index lock").clone();
        }
        let previous = self.current.read().expect("index lock").clone();
        let mut files = previous.all_entries();
        let dir = crate::beneath::RootDir::open(&self.root).ok();
        let mut parsed = 0;
        let mut changed = false;
        for rel in rels {
            let abs = self.root.join(rel);
            match std::fs::symlink_metadata(&abs) {
                Ok(meta) if meta.is_file() => {
                    let Some(lang) = Lang::of_file(&abs) else { continue };
                    let Some(old) = files.get(rel.as_str()) else {
                        // Whether a new file is ignored takes the walker: rescan.
                        self.refresh_locked(&|_, _| {}, None);
                        drop(guard);
                        return self.current.read().expect("index lock").clone();
                    };
                    let times = (meta.len(), mtime_ns(&meta));
                    let Some((entry, was_parsed)) =
                        dir.as_ref().and_then(|d| entry_for(d, rel.clone(), lang, times, Some(old), false))
                    else {
                        // A text file that turned binary, generated or too large is searched no more.
                        changed |= files.remove(rel.as_str()).is_some();
                        continue;
                    };
                    parsed += usize::from(was_parsed && entry.lang.has_grammar());
                    if !Arc::ptr_eq(old, &entry) {
                        files.insert(rel.clone(), entry);
                        changed = true;
                    }
                }
                Ok(meta) if meta.is_dir() => {
                    self.refresh_locked(&|_, _| {}, None);
                    drop(guard);
                    return self.current.read().expect("index lock").clone();
                }
                _ => {
                    let prefix = format!("{rel}/");
                    let before = files.len();
                    files.retain(|path, _| path != rel && !path.starts_with(&prefix));
                    changed |= files.len() != before;
                }
            }
        }
        self.parsed_total.fetch_add(parsed as u64, Ordering::SeqCst);
        if changed {
            self.install(files, &previous, None);
        }
        self.current.read().expect("index lock").clone()
    }

    /// Makes `files` the current snapshot, with its graph and name resolution built first (side
    /// by side, after `beside`'s work on the new snapshot), so no query pays for them.
    fn install(
        &self,
        files: BTreeMap<String, Arc<FileEntry>>,
        previous: &Snapshot,
        beside: Option<Beside<'_>>,
    ) {
        let started = Instant::now();
        let snapshot = new_snapshot(files, previous.generation + 1);
        // A few changed files update the previous resolver and graph (the graph resolves with
        // the new resolver); anything else builds them anew.
        if let Some(resolver) =
            previous.derived.get::<Resolver>().and_then(|r| Resolver::update(&r, previous, &snapshot))
        {
            snapshot.derived.set(Arc::new(resolver));
        }
        let resolver_done = started.elapsed();
        if let Some(graph) =
            previous.derived.get::<SymbolGraph>().and_then(|g| SymbolGraph::update(&g, previous, &snapshot))
        {
            snapshot.derived.set(Arc::new(graph));
            crate::map::carry_tables(previous, &snapshot);
        }
        let graph_done = started.elapsed();
        // The graph resolves every reference, on rayon's threads. Its edges are laid out when a
        // PageRank over all of them asks: a map after an edit folds the change into the ranks
        // before it, reading only the changed files' edges.
        let build = || {
            snapshot.graph();
        };
        // One after the other, not side by side: what `beside` holds (the search index's writer
        // and the documents it queues, hundreds of megabytes at 30,000 files) is freed before
        // the graph grows. Both keep every core busy, so the wall time is nearly the same.
        if let Some(beside) = beside {
            beside(&snapshot);
        }
        build();
        tracing::debug!(
            resolver_ms = resolver_done.as_millis() as u64,
            graph_update_ms = (graph_done - resolver_done).as_millis() as u64,
            built_ms = started.elapsed().as_millis() as u64,
            "snapshot installed"
        );
        let generation = snapshot.generation;
        // `beside` saved the files before the graph was done: the graph follows them. Should
        // that fail, a reopen resolves every reference again; nothing else depends on it.
        if self.saved.load(Ordering::SeqCst) == generation + 1
            && let Some(dir) = &self.store
            && let Err(err) = save_graph(dir, &snapshot)
        {
            tracing::warn!("cannot save the resolved references in {}: {err}", dir.display());
        }
        *self.current.write().expect("index lock") = Arc::new(snapshot);
        // `beside` may have saved it already.
        if self.saved.load(Ordering::SeqCst) != generation + 1 {
            self.unsaved.store(true, Ordering::SeqCst);
        }
    }

    /// Walks the root, reuses what is unchanged, parses the rest in parallel, and swaps in the
    /// new snapshot. `progress(done, total)` reports parsing.
    pub fn refresh(&self, progress: &(dyn Fn(usize, usize) + Sync)) -> RefreshStats {
        let _guard = self.update.lock().expect("index update lock");
        self.refresh_locked(progress, None)
    }

    /// [`Index::refresh`], running `beside` on the new snapshot (when something changed) before
    /// its graph and name resolution are built: the search index catches up first.
    pub fn refresh_with(&self, progress: &(dyn Fn(usize, usize) + Sync), beside: Beside<'_>) -> RefreshStats {
        let _guard = self.update.lock().expect("index update lock");
        self.refresh_locked(progress, Some(beside))
    }

    /// [`Index::refresh_with`] for a caller that holds the update lock.
    fn refresh_locked(
        &self,
        progress: &(dyn Fn(usize, usize) + Sync),
        beside: Option<Beside<'_>>,
    ) -> RefreshStats {
        let started = Instant::now();
        let previous = self.current.read().expect("index lock").clone();

        let mut candidates: Vec<(String, Lang, u64, u64)> = Vec::new();
        for entry in self.filter.builder(&self.root).build().flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Some(lang) = Lang::of_file(entry.path()) else { continue };
            let Some(rel) = entry.path().strip_prefix(&self.root).ok().and_then(|p| p.to_str()) else {
                continue;
            };
            let Ok(meta) = entry.metadata() else { continue };
            candidates.push((rel.replace('\\', "/"), lang, meta.len(), mtime_ns(&meta)));
        }

        // Largest first, each file taken by the next free thread (`par_bridge` hands them out
        // in order), so no thread is left parsing one big file while the others idle. A split
        // of the sorted list would give one thread every large file.
        candidates.sort_unstable_by_key(|c| std::cmp::Reverse(c.2));
        // Files are read beneath the root's descriptor, so a folder swapped for a link after
        // the walk cannot bring outside content in.
        let dir = crate::beneath::RootDir::open(&self.root).ok();
        let total = candidates.len();
        let done = AtomicU64::new(0);
        let parsed = AtomicU64::new(0);
        let results: Vec<Arc<FileEntry>> = candidates
            .into_iter()
            .par_bridge()
            .filter_map(|(rel, lang, size, mtime_ns)| {
                let old = previous.entry(&rel);
                let (entry, was_parsed) = entry_for(dir.as_ref()?, rel, lang, (size, mtime_ns), old, true)?;
                if was_parsed && entry.lang.has_grammar() {
                    parsed.fetch_add(1, Ordering::Relaxed);
                }
                let n = done.fetch_add(1, Ordering::Relaxed) as usize + 1;
                if n.is_multiple_of(64) || n == total {
                    progress(n, total);
                }
                Some(entry)
            })
            .collect();

        let files: BTreeMap<String, Arc<FileEntry>> =
            results.into_iter().map(|e| (e.path.clone(), e)).collect();
        let parsed = parsed.load(Ordering::Relaxed) as usize;
        let before = previous.files.len() + previous.texts.len();
        let removed = previous.all_entries().keys().filter(|k| !files.contains_key(*k)).count();
        let reused = files.values().filter(|e| e.lang.has_grammar()).count() - parsed;
        let changed = parsed > 0
            || removed > 0
            || files.len() != before
            || files.iter().any(|(k, v)| previous.entry(k).is_none_or(|old| !Arc::ptr_eq(old, v)));
        if changed {
            self.install(files, &previous, beside);
        }
        self.ready.store(true, Ordering::Release);
        self.parsed_total.fetch_add(parsed as u64, Ordering::SeqCst);
        let files = self.current.read().expect("index lock").files.len();
        RefreshStats { files, parsed, reused, removed, seconds: started.elapsed().as_secs_f64() }
    }

    /// Writes the index to its store when it changed since the last save (temp file + rename,
    /// so a crash never leaves half an index).
    pub fn save(&self) -> std::io::Result<bool> {
        if self.store.is_none() || !self.unsaved.swap(false, Ordering::SeqCst) {
            return Ok(false);
        }
        let snapshot = self.current.read().expect("index lock").clone();
        let result = self.save_snapshot(&snapshot);
        if !matches!(result, Ok(true)) {
            self.unsaved.store(true, Ordering::SeqCst);
        }
        result
    }

    /// Writes `snapshot` to the store: a refresh's new snapshot can be saved by its `beside`
    /// work, while its graph is built, and is then not saved again.
    pub fn save_snapshot(&self, snapshot: &Snapshot) -> std::io::Result<bool> {
        let Some(dir) = &self.store else { return Ok(false) };
        save(dir, &self.root, snapshot)?;
        if snapshot.derived.get::<SymbolGraph>().is_some() {
            save_graph(dir, snapshot)?;
        }
        self.saved.fetch_max(snapshot.generation + 1, Ordering::SeqCst);
        Ok(true)
    }
}

/// The size and modification time of `entry`'s file under `dir` when its content is still the
/// entry's (its hash matches); `None` when it differs, is gone or cannot be read.
pub(crate) fn times_if_same(dir: &crate::beneath::RootDir, entry: &FileEntry) -> Option<(u64, u64)> {
    let file = dir.open_file(&entry.path).ok()?;
    let meta = file.metadata().ok()?;
    if meta.len() != entry.size {
        return None;
    }
    drop(file);
    let hash = match read_content(dir, &entry.path).ok()? {
        Content::Whole(bytes) => content_hash(&bytes),
        Content::Large { hash, .. } => hash,
    };
    (hash == entry.hash).then(|| (meta.len(), mtime_ns(&meta)))
}

pub(crate) fn content_hash(bytes: &[u8]) -> [u8; 16] {
    let mut hash = [0u8; 16];
    hash.copy_from_slice(&blake3::hash(bytes).as_bytes()[..16]);
    hash
}

/// A snapshot of `entries`: the files a grammar parses apart from the text files.
fn new_snapshot(entries: BTreeMap<String, Arc<FileEntry>>, generation: u64) -> Snapshot {
    let (files, texts) = entries.into_iter().partition(|(_, e)| e.lang.has_grammar());
    Snapshot::new(files, texts, generation)
}

fn parse_entry(
    path: String,
    lang: Lang,
    size: u64,
    mtime_ns: u64,
    hash: [u8; 16],
    bytes: &[u8],
) -> FileEntry {
    thread_local! {
        static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
    }
    let source = utf8_lossy(bytes);
    let lines = count_lines(bytes);
    let symbols = if size > MAX_PARSE_BYTES {
        FileSymbols::default()
    } else {
        PARSER.with(|parser| crate::extract::extract_with(&mut parser.borrow_mut(), lang, &source))
    };
    if let Some(too_deep) = symbols.too_deep {
        tracing::warn!("{path}: {}", too_deep.reason());
    }
    FileEntry { path, lang, size, mtime_ns, hash, lines, symbols }
}

/// The Python shop fixture's package, copied to a temporary folder and indexed in memory: for
/// tests that edit one of its files and look at what the update kept.
#[cfg(test)]
pub(crate) struct ShopCopy {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    pub(crate) index: Index,
}

#[cfg(test)]
impl ShopCopy {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/py_shop");
        for rel in ["shop/__init__.py", "shop/cart.py", "shop/checkout.py", "shop/item.py", "shop/pricing.py"]
        {
            let to = dir.path().join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(fixture.join(rel), to).unwrap();
        }
        let root = dir.path().canonicalize().unwrap();
        let (index, _) = Index::open(&root, crate::Filter::new(&root, &[]).unwrap(), None);
        ShopCopy { _dir: dir, root, index }
    }

    /// Writes `change` of file `rel`'s text and folds it in.
    pub(crate) fn edit(&self, rel: &str, change: impl FnOnce(&str) -> String) -> Arc<Snapshot> {
        let path = self.root.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        let changed = change(&text);
        assert_ne!(changed, text, "the edit of {rel} changes it");
        std::fs::write(&path, changed).unwrap();
        let after = self.index.apply_changes(&[rel.to_string()]);
        assert!(after.graph().was_updated(), "the edit of {rel} updated the graph");
        after
    }
}

#[cfg(test)]
#[test]
fn a_file_past_the_parse_bound_streams_to_the_hash_and_line_count_of_reading_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = "x = 1\n".repeat((MAX_PARSE_BYTES as usize) / 6 + 100);
    text.push_str("tail");
    std::fs::write(dir.path().join("big.py"), &text).unwrap();
    let root = crate::beneath::RootDir::open(dir.path()).unwrap();
    match read_content(&root, "big.py").unwrap() {
        Content::Large { hash, lines } => {
            assert_eq!(hash, content_hash(text.as_bytes()));
            assert_eq!(lines, count_lines(text.as_bytes()));
        }
        Content::Whole(_) => panic!("{} bytes were read whole", text.len()),
    }
    std::fs::write(dir.path().join("small.py"), "y = 2\n").unwrap();
    assert!(matches!(read_content(&root, "small.py").unwrap(), Content::Whole(b) if b == b"y = 2\n"));
}

/// How many lines `str::lines` finds in `bytes` (a last line without its newline counts), with
/// a vectorized count of the newlines. Replacing invalid UTF-8 never adds or drops one.
fn count_lines(bytes: &[u8]) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    (newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))) as u32
}

/// The entries of another worktree's saved index, to start from. They stand as the previous
/// snapshot: the first scan keeps each one whose content hash matches the file here (taking
/// this root's times) and parses the rest.
fn seeded(
    store: &Path,
    root: &Path,
    reason: Option<String>,
) -> Option<(BTreeMap<String, Arc<FileEntry>>, LoadOutcome)> {
    let donor = crate::worktree::find(store, root)?;
    let entries = load(&donor.store.join("index.bin"), &donor.root).ok()??;
    let files: BTreeMap<String, Arc<FileEntry>> =
        entries.into_iter().map(|e| (e.path.clone(), Arc::new(e))).collect();
    let n = files.values().filter(|e| e.lang.has_grammar()).count();
    Some((files, LoadOutcome::Seeded { from: donor, files: n, reason }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::FORMAT_VERSION;
    use std::fs;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
        let repo = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        fs::write(repo.path().join("a.py"), "def alpha():\n    return beta()\n").unwrap();
        fs::write(repo.path().join("b.py"), "def beta():\n    return 1\n").unwrap();
        fs::write(repo.path().join("notes.md"), "not code").unwrap();
        (repo, store)
    }

    fn open(repo: &Path, store: &Path) -> (Index, LoadOutcome) {
        let root = repo.canonicalize().unwrap();
        Index::open(&root, Filter::new(&root, &[]).unwrap(), Some(store.to_path_buf()))
    }

    #[test]
    fn lines_are_counted_as_str_lines_counts_them() {
        let cases: [&[u8]; 10] = [
            b"",
            b"\n",
            b"a",
            b"a\n",
            b"a\nb",
            b"a\r\nb\r\n",
            b"\n\n",
            b"a\n\nb\n",
            b"\xc3\xa9\xff\n",
            b"x\xf0\n\x80",
        ];
        for bytes in cases {
            assert_eq!(count_lines(bytes), utf8_lossy(bytes).lines().count() as u32, "{bytes:?}");
        }
        let invalid = b"caf\xc3\nb\xff\xfe\n\xe2\x82";
        assert_eq!(count_lines(invalid), String::from_utf8_lossy(invalid).lines().count() as u32);
        assert_eq!(utf8_lossy(invalid), String::from_utf8_lossy(invalid));
    }

    #[test]
    fn reopening_an_unchanged_root_parses_nothing() {
        let (repo, store) = setup();
        let (index, outcome) = open(repo.path(), store.path());
        assert_eq!(outcome, LoadOutcome::NoSavedIndex);
        let first = index.refresh(&|_, _| {});
        assert_eq!((first.files, first.parsed), (2, 2));
        assert!(index.save().unwrap());
        let snapshot = index.snapshot();
        drop(index);

        let (index, outcome) = open(repo.path(), store.path());
        assert_eq!(outcome, LoadOutcome::Loaded { files: 2 });
        let again = index.refresh(&|_, _| {});
        assert_eq!((again.files, again.parsed, again.reused), (2, 0, 2));
        assert_eq!(index.parsed_total(), 0);
        let reopened = index.snapshot();
        assert_eq!(reopened.files.values().collect::<Vec<_>>(), snapshot.files.values().collect::<Vec<_>>());
    }

    #[test]
    fn a_snapshot_saved_beside_its_graph_build_is_not_saved_again() {
        let (repo, store) = setup();
        let (index, _) = open(repo.path(), store.path());
        let saved = AtomicU64::new(0);
        let stats = index.refresh_with(&|_, _| {}, &|snapshot| {
            assert_eq!(snapshot.files.len(), 2);
            assert!(index.save_snapshot(snapshot).unwrap());
            saved.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!((stats.parsed, saved.load(Ordering::SeqCst)), (2, 1));
        assert!(!index.save().unwrap(), "the installed snapshot is the one saved");
        // Nothing changed: nothing to install, `beside` does not run.
        index.refresh_with(&|_, _| {}, &|_| panic!("nothing was installed"));
        fs::write(repo.path().join("b.py"), "def beta():\n    return 2\n").unwrap();
        index.apply_changes(&["b.py".to_string()]);
        assert!(index.save().unwrap(), "a later change is saved");
        drop(index);
        let (index, outcome) = open(repo.path(), store.path());
        assert_eq!(outcome, LoadOutcome::Loaded { files: 2 });
        assert_eq!(index.refresh(&|_, _| {}).parsed, 0);
    }

    /// A script with no extension is parsed in the language its `#!` line names, kept so while
    /// it is unchanged, and searched as text once its first line names no parsed language.
    #[test]
    fn a_script_without_an_extension_is_in_the_language_of_its_interpreter() {
        let (repo, store) = setup();
        let script = repo.path().join("rbenv-init");
        fs::write(&script, "#!/usr/bin/env bash\nset -e\n\nprint_init() {\n  echo init\n}\n").unwrap();
        fs::write(repo.path().join("README"), "# rbenv\nRun rbenv-init from bash.\n").unwrap();
        let (index, _) = open(repo.path(), store.path());
        index.refresh(&|_, _| {});
        let snapshot = index.snapshot();
        let entry = snapshot.files.get("rbenv-init").expect("the script is parsed");
        assert_eq!(entry.lang, Lang::Bash);
        assert_eq!(
            entry.symbols.defs.iter().map(|d| d.name().to_string()).collect::<Vec<_>>(),
            ["print_init"]
        );
        assert!(snapshot.texts.contains_key("README"), "a file with no `#!` line stays text");
        // Unchanged: reused as it was, not read as text.
        let stats = index.refresh(&|_, _| {});
        assert_eq!(stats.parsed, 0);
        assert_eq!(index.snapshot().files.get("rbenv-init").map(|e| e.lang), Some(Lang::Bash));
        // Rewritten in a language tack does not parse: a text file.
        fs::write(&script, "#!/usr/bin/perl\nsub print_init { print 'init'; }\n").unwrap();
        let changed = index.apply_changes(&["rbenv-init".to_string()]);
        assert!(!changed.files.contains_key("rbenv-init"));
        assert_eq!(changed.texts.get("rbenv-init").map(|e| e.lang), Some(Lang::Text));
    }

    #[test]
    fn text_files_are_kept_apart_for_search_and_binary_generated_or_lock_files_left_out() {
        let (repo, store) = setup();
        fs::write(repo.path().join("install.pl"), "sub enable_plugin {\n  print \"on\";\n}\n").unwrap();
        fs::write(repo.path().join("logo.dat"), b"\x89PNG\0\0binary").unwrap();
        fs::write(repo.path().join("blob"), b"head\0tail").unwrap();
        fs::write(repo.path().join("data.json"), format!("[{}]\n", "1,".repeat(6000))).unwrap();
        fs::write(repo.path().join("yarn.lock"), "alpha@1:\n  version 1\n").unwrap();
        let (index, _) = open(repo.path(), store.path());
        let stats = index.refresh(&|_, _| {});
        assert_eq!((stats.files, stats.parsed), (2, 2), "text files are not parsed");
        let snapshot = index.snapshot();
        assert_eq!(snapshot.files.keys().collect::<Vec<_>>(), ["a.py", "b.py"]);
        assert_eq!(snapshot.texts.keys().collect::<Vec<_>>(), ["install.pl", "notes.md"]);
        assert!(snapshot.texts.values().all(|e| e.symbols.defs.is_empty() && !e.lang.has_grammar()));
        assert_eq!(snapshot.entry("install.pl").map(|e| e.lines), Some(3));
        assert!(index.save().unwrap());
        drop(index);

        let (index, outcome) = open(repo.path(), store.path());
        assert_eq!(outcome, LoadOutcome::Loaded { files: 2 });
        assert_eq!(index.snapshot().texts.len(), 2, "text files are saved and loaded with the rest");
        // A text file that turns binary is searched no more; a new one is found by the rescan.
        fs::write(repo.path().join("notes.md"), b"now\0binary").unwrap();
        fs::write(repo.path().join("more.txt"), "more notes\n").unwrap();
        let snapshot = index.apply_changes(&["notes.md".into(), "more.txt".into()]);
        assert_eq!(snapshot.texts.keys().collect::<Vec<_>>(), ["install.pl", "more.txt"]);
        assert_eq!(index.parsed_total(), 0, "no source file was parsed again");
    }

    #[test]
    fn a_killed_saves_temp_file_is_removed_on_open_and_a_live_ones_kept() {
        let (repo, store) = setup();
        // No process has a pid this large (the kernel's limit is 2^22).
        let dead = store.path().join("index.bin.tmp999999999");
        let live = store.path().join(format!("index.bin.tmp{}", std::process::id()));
        fs::write(&dead, "half a save").unwrap();
        fs::write(&live, "a save in progress").unwrap();
        let _ = open(repo.path(), store.path());
        assert!(!dead.exists(), "the dead save's file is gone");
        assert!(live.exists(), "a live process's save is left alone");
    }

    #[test]
    fn only_changed_content_is_reparsed_and_deletions_disappear() {
        let (repo, store) = setup();
        let (index, _) = open(repo.path(), store.path());
        index.refresh(&|_, _| {});
        fs::write(repo.path().join("a.py"), "def alpha():\n    return 2\n\ndef gamma():\n    pass\n")
            .unwrap();
        fs::remove_file(repo.path().join("b.py")).unwrap();
        let before = index.snapshot();
        let snapshot = index.apply_changes(&["a.py".into(), "b.py".into()]);
        assert_eq!(snapshot.files.keys().collect::<Vec<_>>(), vec!["a.py"]);
        let names: Vec<&str> = snapshot.files["a.py"].symbols.defs.iter().map(|d| d.name()).collect();
        assert_eq!(names, vec!["alpha", "gamma"]);
        assert_eq!(index.parsed_total(), 3, "two at first, then only a.py");
        assert_eq!(snapshot.generation, before.generation + 1);
        assert!(Arc::ptr_eq(&index.snapshot(), &snapshot), "the fold is the current snapshot");
        assert_eq!(before.files.len(), 2, "a reader's older snapshot is left as it was");

        // Nothing changed: no new snapshot. A new file: a rescan, which finds it.
        assert!(Arc::ptr_eq(&index.apply_changes(&["a.py".into()]), &snapshot));
        fs::create_dir(repo.path().join("pkg")).unwrap();
        fs::write(repo.path().join("pkg/c.py"), "def c():\n    pass\n").unwrap();
        let with_new = index.apply_changes(&["pkg/c.py".into()]);
        assert_eq!(with_new.files.keys().collect::<Vec<_>>(), vec!["a.py", "pkg/c.py"]);
        // A removed folder takes its files with it.
        fs::remove_dir_all(repo.path().join("pkg")).unwrap();
        assert_eq!(index.apply_changes(&["pkg".into()]).files.keys().collect::<Vec<_>>(), vec!["a.py"]);
    }

    #[test]
    fn a_named_change_is_read_even_when_size_and_time_stayed_the_same() {
        let (repo, store) = setup();
        let (index, _) = open(repo.path(), store.path());
        index.refresh(&|_, _| {});
        let path = repo.path().join("a.py");
        let modified = fs::metadata(&path).unwrap().modified().unwrap();
        let before = fs::read_to_string(&path).unwrap();
        // Same length, and the time set back: what two writes within one clock tick look like.
        let after = before.replace("alpha", "omega");
        assert_eq!(after.len(), before.len());
        fs::write(&path, &after).unwrap();
        fs::File::options().write(true).open(&path).unwrap().set_modified(modified).unwrap();
        let snapshot = index.apply_changes(&["a.py".into()]);
        let names: Vec<&str> = snapshot.files["a.py"].symbols.defs.iter().map(|d| d.name()).collect();
        assert!(names.contains(&"omega") && !names.contains(&"alpha"), "{names:?}");
    }

    #[test]
    fn a_query_does_not_wait_while_a_change_is_folded_in() {
        let (repo, store) = setup();
        let (index, _) = open(repo.path(), store.path());
        let first = index.snapshot();
        let _update = index.update.lock().unwrap();
        // The update lock is held, as by a fold in progress: a query still answers, at once.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| tx.send(index.snapshot().generation).unwrap());
            let generation =
                rx.recv_timeout(std::time::Duration::from_secs(10)).expect("the query did not wait");
            assert_eq!(generation, first.generation);
        });
    }

    #[test]
    fn a_corrupt_or_old_index_is_rebuilt_not_fatal() {
        let (repo, store) = setup();
        fs::write(store.path().join("index.bin"), b"TACKIDX\0\x01\0\0\0garbage").unwrap();
        let (index, outcome) = open(repo.path(), store.path());
        assert!(matches!(outcome, LoadOutcome::Rebuilt { .. }), "{outcome:?}");
        assert_eq!(index.snapshot().files.len(), 2);
        let mut old = b"TACKIDX\0".to_vec();
        old.extend_from_slice(&999u32.to_le_bytes());
        old.extend_from_slice(&[0; 8]);
        fs::write(store.path().join("index.bin"), old).unwrap();
        let (_, outcome) = open(repo.path(), store.path());
        assert_eq!(
            outcome,
            LoadOutcome::Rebuilt {
                reason: format!("the saved index has format 999, this tack writes {FORMAT_VERSION}")
            }
        );
    }
}

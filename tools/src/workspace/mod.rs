//! The workspace: what every call shares (the root and its path guard, the configuration, the
//! file filter, the symbol index, the search index, recent file versions, the plan and note).
//! Tools read it; none of it belongs to one session.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::Context as _;
use regex::Regex;
use tack_indexer::{Index, LoadOutcome, Snapshot, TextIndex};

use crate::observe::limits::{self, Limits};
use crate::write::files::VersionCache;

pub(crate) mod config;
pub(crate) mod git_files;
pub(crate) mod path_guard;
pub(crate) mod protected;
pub(crate) mod state_store;

use config::Config;
use path_guard::Root;
use state_store::StateStore;

/// Why the search index is not available.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SearchIndexError {
    /// The index's own message says which index and why.
    #[error("{0}")]
    Open(String),
    #[error("{0}")]
    Update(String),
}

/// Everything the tools share.
pub struct Workspace {
    root: Root,
    config: Config,
    deny: Vec<(String, Regex)>,
    filter: tack_indexer::Filter,
    index: Arc<Index>,
    /// Where the full-text index is saved (`None`: in memory), and the index once opened.
    text_store: Option<PathBuf>,
    text: OnceLock<Result<Arc<TextIndex>, SearchIndexError>>,
    versions: VersionCache,
    /// The plan and the handoff note (per repository), and where session traces go.
    state: StateStore,
    /// Files under the root hard-linked to something outside it, found before the first
    /// command and again after each (in the background).
    linked: Arc<LinkedFiles>,
    /// See [`Workspace::toolchain_caches`].
    caches: OnceLock<Vec<PathBuf>>,
}

/// The last list of files hard-linked outside the root, and whether a walk is under way.
#[derive(Default)]
struct LinkedFiles {
    found: std::sync::Mutex<Option<Arc<Vec<PathBuf>>>>,
    walking: std::sync::atomic::AtomicBool,
    /// A command ended while a walk was under way: walk once more after it.
    again: std::sync::atomic::AtomicBool,
}

impl Workspace {
    /// Opens a workspace. Fails, naming the setting, when the configuration is unusable.
    pub fn new(root: &Path, config: Config) -> anyhow::Result<Self> {
        let root = Root::new(root).with_context(|| format!("cannot open the root {}", root.display()))?;
        let mut deny = Vec::new();
        for rule in &config.run.deny {
            let re =
                Regex::new(rule).with_context(|| format!("[run] deny rule {rule:?} is not a valid regex"))?;
            deny.push((rule.clone(), re));
        }
        // The error names the glob and what is wrong with it.
        let filter = tack_indexer::Filter::new(root.path(), &config.ignore)
            .map_err(|err| anyhow::anyhow!("tack.toml: {err}"))?
            .with_refusals_to(|refusal| tracing::warn!("{refusal}"));
        if config.output.max_tokens < limits::MIN_TOKENS {
            anyhow::bail!(
                "[output] max_tokens must be at least {}, got {}",
                limits::MIN_TOKENS,
                config.output.max_tokens
            );
        }
        if let Some(window) = config.output.context_window
            && window < limits::MIN_TOKENS * 8
        {
            anyhow::bail!(
                "the context window must be at least {} tokens (a result takes at most an eighth of it), got {window}",
                limits::MIN_TOKENS * 8
            );
        }
        let index = Arc::new(Index::open(root.path(), filter.clone(), None).0);
        Ok(Self {
            root,
            config,
            deny,
            filter,
            index,
            text_store: None,
            text: OnceLock::new(),
            versions: VersionCache::default(),
            state: StateStore::default(),
            linked: Arc::default(),
            caches: OnceLock::new(),
        })
    }

    /// Replaces the in-memory index with one saved in `store` (a directory outside the
    /// repository), loading what was saved there. Says how loading went.
    pub fn with_index_store(mut self, store: &Path) -> (Self, LoadOutcome) {
        let (index, outcome) = Index::open(self.root.path(), self.filter.clone(), Some(store.to_path_buf()));
        self.index = Arc::new(index);
        self.text_store = Some(store.join("search"));
        if let LoadOutcome::Seeded { from, .. } = &outcome
            && let Err(err) = tack_indexer::seed_search(&from.store.join("search"), &store.join("search"))
        {
            tracing::warn!("the search index starts empty: copying {}'s failed: {err}", from.root.display());
        }
        (self, outcome)
    }

    /// Keeps the plan, the handoff note and the session traces in `dir` (outside the
    /// repository) instead of memory.
    pub fn with_state_dir(mut self, dir: &Path) -> Self {
        self.state = StateStore::new(Some(dir.to_path_buf()));
        self
    }

    /// Files under the root that share their data with one outside it: commands see them
    /// read-only. Found on the first call; [`Workspace::refresh_linked`] finds them again.
    pub(crate) fn linked_outside(&self) -> Arc<Vec<PathBuf>> {
        let mut found = self.linked.found.lock().unwrap_or_else(|e| e.into_inner());
        found.get_or_insert_with(|| Arc::new(walk_linked(self.root.path()))).clone()
    }

    /// Finds the hard-linked files again in the background (a command may have installed
    /// packages); the next command after the walk sees the new list.
    pub(crate) fn refresh_linked(&self) {
        use std::sync::atomic::Ordering;
        if self.linked.walking.swap(true, Ordering::AcqRel) {
            self.linked.again.store(true, Ordering::Release);
            return;
        }
        let linked = self.linked.clone();
        let root = self.root.path().to_path_buf();
        std::thread::spawn(move || {
            loop {
                let started = std::time::Instant::now();
                let found = Arc::new(walk_linked(&root));
                *linked.found.lock().unwrap_or_else(|e| e.into_inner()) = Some(found);
                // Rest nine times as long as the walk took, so that on a large `.venv` or
                // `node_modules` (300 ms for 46,000 files) a stream of short commands costs at
                // most a tenth of a core; a command ending meanwhile gets its walk after.
                std::thread::sleep(started.elapsed() * 9);
                if linked.again.swap(false, Ordering::AcqRel) {
                    continue;
                }
                linked.walking.store(false, Ordering::Release);
                // A command that ended between the check and the store would be missed.
                if !linked.again.swap(false, Ordering::AcqRel) || linked.walking.swap(true, Ordering::AcqRel)
                {
                    break;
                }
            }
        });
    }

    /// Folders outside the root that the toolchains of the root's projects keep caches in (Go's
    /// build and module caches), made if missing: commands may write there, as the user's own
    /// builds do. Found once.
    pub(crate) fn toolchain_caches(&self) -> &[PathBuf] {
        self.caches.get_or_init(|| {
            let root = self.root.path();
            let folders = project_folders(root).into_iter().map(|f| root.join(f));
            let mut caches: Vec<PathBuf> = std::iter::once(root.to_path_buf())
                .chain(folders)
                .flat_map(|dir| tack_indexer::project_checks(&dir))
                .flat_map(|c| c.caches)
                .collect();
            caches.sort();
            caches.dedup();
            caches.retain(|dir| std::fs::create_dir_all(dir).is_ok());
            caches
        })
    }

    /// Every indexed file's content hash (source and text files: a script or a configuration
    /// changes what a check does too) as the tree is now, the index first brought up to date
    /// with the disk: what a passing verify verified, and what `done` compares with it, so a
    /// change by `run`, another agent or an editor is seen as well as tack's own writes.
    pub(crate) fn tree(&self) -> std::collections::BTreeMap<String, [u8; 16]> {
        self.index.refresh(&|_, _| {});
        let snapshot = self.index.snapshot();
        snapshot.files.iter().chain(&snapshot.texts).map(|(path, entry)| (path.clone(), entry.hash)).collect()
    }

    /// Where the plan and the note are saved; `None` when they live in memory.
    pub fn state_dir(&self) -> Option<&Path> {
        self.state.dir()
    }

    /// The plan and the handoff note, which a server keeping its state elsewhere (`--state`)
    /// copies in before a call and out after one that saved.
    pub fn shared_state(&self) -> &StateStore {
        &self.state
    }

    pub(crate) fn state(&self) -> &StateStore {
        &self.state
    }

    /// The full-text index, opened on first use and brought in step with `snapshot` unless
    /// another call is doing that (a write's own call waits for its sync; readers do not).
    pub fn text_index(&self, snapshot: &Snapshot) -> Result<Arc<TextIndex>, SearchIndexError> {
        let text = self
            .text
            .get_or_init(|| {
                TextIndex::open(self.text_store.as_deref())
                    .map(|(text, dropped)| {
                        if let Some(reason) = dropped {
                            tracing::warn!("rebuilding the search index: {reason}");
                        }
                        Arc::new(text)
                    })
                    .map_err(|err| SearchIndexError::Open(err.to_string()))
            })
            .clone()?;
        text.sync_unless_busy(self.root.path(), snapshot)
            .map_err(|err| SearchIndexError::Update(err.to_string()))?;
        Ok(text)
    }

    /// The symbol index every structural tool reads.
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    /// Tells the index that these files changed (a tool wrote them), so the next call sees it.
    pub fn files_changed(&self, rel_paths: &[String]) {
        // Folded in by this call, so its session's next query sees the change while every
        // other session goes on reading the snapshot before it.
        let snapshot = self.index.apply_changes(rel_paths);
        if let Some(Ok(text)) = self.text.get()
            && let Err(err) = text.sync(self.root.path(), &snapshot)
        {
            tracing::warn!("the search index was not updated after a write: {err}");
        }
    }

    pub fn root(&self) -> &Root {
        &self.root
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// What a call from `client` may send back.
    pub fn limits(&self, client: Option<&str>) -> Limits {
        Limits::new(&self.config.output, client)
    }

    /// Recent file contents by version, so a refused write can show what changed.
    pub(crate) fn versions(&self) -> &VersionCache {
        &self.versions
    }

    /// A walker over `dir` with the repository's ignore rules.
    pub fn walk_builder(&self, dir: &Path) -> ignore::WalkBuilder {
        self.filter.builder(dir)
    }

    /// The deny rule `command` matches, if any.
    pub fn denied(&self, command: &str) -> Option<&str> {
        self.deny.iter().find(|(_, re)| re.is_match(command)).map(|(rule, _)| rule.as_str())
    }
}

/// [`protected::linked_outside`], saying in the log when there are more than are bound.
fn walk_linked(root: &Path) -> Vec<PathBuf> {
    let started = std::time::Instant::now();
    let found = protected::linked_outside(root);
    tracing::debug!(
        files = found.files,
        binds = found.wanted,
        seconds = started.elapsed().as_secs_f64(),
        "hard links to outside the root found"
    );
    if found.wanted > found.binds.len() {
        tracing::warn!(
            "{} files under {} are hard links to files outside it, in {} places; commands see the first {} read-only, and may change the others' outside twins",
            found.files,
            root.display(),
            found.wanted,
            found.binds.len()
        );
    }
    found.binds
}

/// Folders one and two levels below the root that may hold a project of their own: not hidden
/// and not a dependency or build folder. Ignore files are not consulted: the walker would open
/// them itself, and one that is a FIFO would hang the server (the indexer reads them bounded).
pub(crate) fn project_folders(root: &Path) -> Vec<String> {
    const NOT_PROJECTS: &[&str] =
        &["node_modules", "target", "build", "dist", "vendor", "venv", "__pycache__"];
    let mut folders: Vec<String> = ignore::WalkBuilder::new(root)
        .max_depth(Some(2))
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || (!name.starts_with('.') && !NOT_PROJECTS.contains(&name.as_ref()))
        })
        .build()
        .flatten()
        .filter(|e| e.depth() > 0 && e.file_type().is_some_and(|t| t.is_dir()))
        .filter_map(|e| e.path().strip_prefix(root).ok().and_then(|p| p.to_str()).map(str::to_string))
        .collect();
    folders.sort();
    folders
}

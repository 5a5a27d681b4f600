//! Many repositories behind one server: each has a name and a root, opens on first use (its
//! saved index loaded, its watcher started), and the least recently used closes past
//! `--max-open`. Per agent, a [`Desk`] keeps a session in each repository it used, so its
//! outputs, undo, gate and commands in one never reach another, and the repository it works in
//! when a call names none.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tack_tools::{Session, Toolbox};

/// The argument that names the repository a call is for.
pub const ARGUMENT: &str = "repo";

/// Most repositories the instructions name; the rest are counted, and an unknown name's error
/// lists them all.
const NAMED_IN_INSTRUCTIONS: usize = 40;

/// One repository the server may open.
#[derive(Debug, Clone)]
pub struct RepoSpec {
    pub name: String,
    pub root: PathBuf,
    /// Where its index is saved (`None`: in memory, no cache directory).
    pub store: Option<PathBuf>,
    /// A bundle to start from when the store holds no index yet.
    pub bundle: Option<PathBuf>,
}

/// An open repository: its toolbox, and its watcher, which stops when this is dropped.
pub struct Opened {
    pub toolbox: Toolbox,
    _watching: Option<crate::watch::Watching>,
}

impl Opened {
    pub fn new(toolbox: Toolbox, watching: Option<crate::watch::Watching>) -> Self {
        Self { toolbox, _watching: watching }
    }
}

impl Drop for Opened {
    fn drop(&mut self) {
        // Past this, the watcher (stopping now) and a first refresh still running hold the index.
        tracing::debug!(
            root = %self.toolbox.workspace().root().path().display(),
            holders = Arc::strong_count(self.toolbox.workspace().index()),
            "repository dropped"
        );
    }
}

/// Opens a repository: the toolbox with its saved index, the watcher, the first refresh.
pub type Opener = dyn Fn(&RepoSpec) -> anyhow::Result<Opened> + Send + Sync;

/// The repositories of one server.
pub struct Repos {
    specs: Vec<RepoSpec>,
    names: Vec<String>,
    /// Each repository's open state, locked while it opens so that two calls open it once.
    slots: Vec<Mutex<Option<Arc<Opened>>>>,
    /// The open repositories, least recently used first.
    recent: Mutex<Vec<usize>>,
    max_open: usize,
    opener: Box<Opener>,
    /// A toolbox on the first repository that never loads an index: it lists and describes the
    /// tools (the same for every repository), and shapes calls across repositories.
    lead: Toolbox,
}

/// Which repositories a call is for.
#[derive(Debug, PartialEq, Eq)]
pub enum Choice {
    One(usize),
    Many(Vec<usize>),
}

impl Repos {
    pub fn new(specs: Vec<RepoSpec>, max_open: usize, lead: Toolbox, opener: Box<Opener>) -> Self {
        let names = specs.iter().map(|s| s.name.clone()).collect();
        let slots = specs.iter().map(|_| Mutex::new(None)).collect();
        Self { specs, names, slots, recent: Mutex::default(), max_open: max_open.max(1), opener, lead }
    }

    pub fn len(&self) -> usize {
        self.specs.len()
    }

    pub fn lead(&self) -> &Toolbox {
        &self.lead
    }

    pub fn name(&self, at: usize) -> &str {
        &self.names[at]
    }

    /// The open repository at `at`, opening it (and closing the least recently used past the
    /// bound) when it is closed. An error says why it cannot be opened.
    pub fn get(&self, at: usize) -> Result<Arc<Opened>, String> {
        let opened = {
            let mut slot = self.slots[at].lock().expect("repository lock");
            match &*slot {
                Some(opened) => opened.clone(),
                None => {
                    let started = std::time::Instant::now();
                    let opened = Arc::new((self.opener)(&self.specs[at]).map_err(|err| format!("{err:#}"))?);
                    tracing::info!(
                        repo = self.names[at],
                        ms = started.elapsed().as_millis() as u64,
                        "repository opened"
                    );
                    *slot = Some(opened.clone());
                    opened
                }
            }
        };
        self.used(at);
        Ok(opened)
    }

    /// Marks `at` the most recently used, and closes the least recently used past the bound.
    /// A call still running on a closed repository keeps it until the call ends.
    fn used(&self, at: usize) {
        let closing: Vec<usize> = {
            let mut recent = self.recent.lock().expect("recent lock");
            recent.retain(|&r| r != at);
            recent.push(at);
            let over = recent.len().saturating_sub(self.max_open);
            recent.drain(..over).collect()
        };
        for gone in closing {
            if self.slots[gone].lock().expect("repository lock").take().is_some() {
                tracing::info!(repo = self.names[gone], "repository closed (least recently used)");
            }
        }
    }

    /// How many repositories are open.
    #[cfg(test)]
    fn open_count(&self) -> usize {
        self.slots.iter().filter(|s| s.lock().expect("repository lock").is_some()).count()
    }

    /// The repositories a call's `repo` names: none given, the desk's own; a name; `*` for
    /// all; names joined by commas, or a list. An unknown name is an error that lists them.
    pub fn choose(&self, given: Option<Value>, desk: &Desk) -> Result<Choice, String> {
        let names: Vec<String> = match given {
            None | Some(Value::Null) => return Ok(Choice::One(desk.default_repo())),
            Some(Value::String(text)) if text.trim() == "*" => {
                return Ok(Choice::Many((0..self.len()).collect()));
            }
            Some(Value::String(text)) => text.split(',').map(|n| n.trim().to_string()).collect(),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(name) => Ok(name.trim().to_string()),
                    other => Err(format!("repo lists names, not {other}")),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!(
                    "repo is a repository's name, \"*\" or a list of names, not {other}; the repositories: {}",
                    self.names.join(", ")
                ));
            }
        };
        let mut chosen = Vec::new();
        for name in names.iter().filter(|n| !n.is_empty()) {
            match self.names.iter().position(|n| n == name) {
                Some(at) if !chosen.contains(&at) => chosen.push(at),
                Some(_) => {}
                None => {
                    return Err(format!(
                        "no repository is named \"{name}\"; this server serves {}",
                        self.names.join(", ")
                    ));
                }
            }
        }
        match chosen.as_slice() {
            [] => Ok(Choice::One(desk.default_repo())),
            [one] => Ok(Choice::One(*one)),
            _ => Ok(Choice::Many(chosen)),
        }
    }

    /// What the instructions add when there are several repositories.
    pub fn instructions(&self) -> Option<String> {
        if self.len() < 2 {
            return None;
        }
        let shown: Vec<&str> = self.names.iter().take(NAMED_IN_INSTRUCTIONS).map(String::as_str).collect();
        let more = self.len().saturating_sub(shown.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        Some(format!(
            "\nThis server serves {} repositories: {}{more}. Every tool takes repo=NAME; without it a call goes to the \
             repository you named first (else {}). search and context take repo=\"*\" or names joined by commas to \
             rank across repositories, each result naming its [repository].",
            self.len(),
            shown.join(", "),
            self.names[0]
        ))
    }
}

/// Takes the `repo` argument out of a call's arguments: at the top, or inside `call_tool`'s
/// `arguments`, where a model may put it too.
pub fn take_repo(args: &mut Value) -> Option<Value> {
    let Value::Object(object) = args else { return None };
    let top = object.remove(ARGUMENT);
    let nested = match object.get_mut("arguments") {
        Some(Value::Object(inner)) => inner.remove(ARGUMENT),
        _ => None,
    };
    top.or(nested)
}

/// One agent's state across repositories: a session in each it used, and the one its calls
/// go to when they name none (the first it named, else the server's first).
#[derive(Default)]
pub struct Desk {
    inner: Mutex<DeskInner>,
}

#[derive(Default)]
struct DeskInner {
    sessions: HashMap<usize, Arc<Session>>,
    default: Option<usize>,
    /// The agent's handle, under which its state is kept (`--state`) or found again.
    handle: Option<String>,
    /// Per repository, the version of the kept session this desk's copy is.
    versions: HashMap<usize, i64>,
}

impl Desk {
    pub fn new() -> Self {
        Self::default()
    }

    /// The agent's session in repository `at`, made on first use.
    pub fn session(&self, at: usize) -> Arc<Session> {
        let mut inner = self.inner.lock().expect("desk lock");
        inner.sessions.entry(at).or_insert_with(|| Arc::new(Session::new())).clone()
    }

    /// The agent's handle, when it has one.
    pub fn handle(&self) -> Option<String> {
        self.inner.lock().expect("desk lock").handle.clone()
    }

    pub fn set_handle(&self, handle: &str) {
        self.inner.lock().expect("desk lock").handle = Some(handle.to_string());
    }

    /// The version of the kept session the agent's session in repository `at` is a copy of
    /// (`None`: it has none, or one never kept).
    pub fn version(&self, at: usize) -> Option<i64> {
        let inner = self.inner.lock().expect("desk lock");
        if inner.sessions.contains_key(&at) { inner.versions.get(&at).copied() } else { None }
    }

    /// Notes that the agent's session in repository `at` is now kept at `version`.
    pub fn kept(&self, at: usize, version: i64) {
        self.inner.lock().expect("desk lock").versions.insert(at, version);
    }

    /// Puts in place, for repository `at`, the session another server kept at `version`.
    pub fn restore(&self, at: usize, session: Session, version: i64) {
        let mut inner = self.inner.lock().expect("desk lock");
        inner.sessions.insert(at, Arc::new(session));
        inner.versions.insert(at, version);
    }

    /// Becomes the agent `handle` names, whose state is kept elsewhere: the sessions of the
    /// agent this desk was are let go, and the named one's are read as calls need them.
    pub fn resume(&self, handle: &str) {
        let mut inner = self.inner.lock().expect("desk lock");
        if inner.handle.as_deref() != Some(handle) {
            inner.sessions.clear();
            inner.versions.clear();
            inner.handle = Some(handle.to_string());
        }
    }

    /// Every session the agent has, in the order of their repositories.
    pub fn sessions(&self) -> Vec<Arc<Session>> {
        let inner = self.inner.lock().expect("desk lock");
        let mut sessions: Vec<(usize, Arc<Session>)> =
            inner.sessions.iter().map(|(at, s)| (*at, s.clone())).collect();
        sessions.sort_by_key(|(at, _)| *at);
        sessions.into_iter().map(|(_, s)| s).collect()
    }

    /// The repository a call that names none goes to.
    pub fn default_repo(&self) -> usize {
        self.inner.lock().expect("desk lock").default.unwrap_or(0)
    }

    /// A call named repository `at`: the first one named becomes the agent's own.
    pub fn named(&self, at: usize) {
        self.inner.lock().expect("desk lock").default.get_or_insert(at);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;
    use tack_tools::{Config, Profile};

    use super::*;

    /// Three repositories in a temporary folder, at most `max_open` open, counting the opens.
    fn three(max_open: usize) -> (tempfile::TempDir, Repos, Arc<AtomicUsize>) {
        let dir = tempfile::tempdir().unwrap();
        let specs: Vec<RepoSpec> = ["alpha", "beta", "gamma"]
            .iter()
            .map(|name| {
                let root = dir.path().join(name);
                std::fs::create_dir(&root).unwrap();
                RepoSpec { name: name.to_string(), root, store: None, bundle: None }
            })
            .collect();
        let opens = Arc::new(AtomicUsize::new(0));
        let counted = opens.clone();
        let opener: Box<Opener> = Box::new(move |spec: &RepoSpec| {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(Opened::new(Toolbox::new(&spec.root, Config::default(), Profile::Core, true)?, None))
        });
        let lead = Toolbox::new(&specs[0].root, Config::default(), Profile::Core, true).unwrap();
        (dir, Repos::new(specs, max_open, lead, opener), opens)
    }

    #[test]
    fn a_call_names_one_repository_all_of_them_or_a_list_and_an_unknown_name_lists_them() {
        let (_dir, repos, _) = three(8);
        let desk = Desk::new();
        assert_eq!(repos.choose(None, &desk), Ok(Choice::One(0)), "the server's first by default");
        assert_eq!(repos.choose(Some(json!("gamma")), &desk), Ok(Choice::One(2)));
        assert_eq!(repos.choose(Some(json!(" * ")), &desk), Ok(Choice::Many(vec![0, 1, 2])));
        assert_eq!(repos.choose(Some(json!("gamma, alpha")), &desk), Ok(Choice::Many(vec![2, 0])));
        assert_eq!(repos.choose(Some(json!(["beta", "beta"])), &desk), Ok(Choice::One(1)));
        desk.named(2);
        desk.named(1);
        assert_eq!(repos.choose(None, &desk), Ok(Choice::One(2)), "the first repository the agent named");
        expect_test::expect![[r#"no repository is named "delta"; this server serves alpha, beta, gamma"#]]
            .assert_eq(&repos.choose(Some(json!("delta")), &desk).unwrap_err());
        expect_test::expect![[r#"repo is a repository's name, "*" or a list of names, not 3; the repositories: alpha, beta, gamma"#]]
            .assert_eq(&repos.choose(Some(json!(3)), &desk).unwrap_err());
    }

    #[test]
    fn repositories_open_on_first_use_and_the_least_recently_used_closes_past_the_bound() {
        let (_dir, repos, opens) = three(2);
        assert_eq!(repos.open_count(), 0, "nothing opens before it is used");
        let alpha = repos.get(0).unwrap();
        repos.get(1).unwrap();
        repos.get(0).unwrap();
        assert_eq!(opens.load(Ordering::SeqCst), 2, "an open repository is not opened again");
        repos.get(2).unwrap();
        assert_eq!(repos.open_count(), 2);
        assert_eq!(opens.load(Ordering::SeqCst), 3);
        // beta was used least recently: it closed, alpha stayed.
        repos.get(0).unwrap();
        assert_eq!(opens.load(Ordering::SeqCst), 3);
        repos.get(1).unwrap();
        assert_eq!(opens.load(Ordering::SeqCst), 4, "a closed repository opens again");
        assert_eq!(repos.open_count(), 2);
        // A call still holding a closed repository keeps using it.
        assert!(alpha.toolbox.workspace().root().path().ends_with("alpha"));
    }

    #[test]
    fn an_agent_has_its_own_session_in_each_repository() {
        let desk = Desk::new();
        let a = desk.session(0);
        let b = desk.session(1);
        assert!(!Arc::ptr_eq(&a, &b), "outputs, undo and the gate stay in their repository");
        assert!(Arc::ptr_eq(&a, &desk.session(0)));
        assert_eq!(desk.sessions().len(), 2);
        let mut args = json!({"path": "a.py", "repo": "beta"});
        assert_eq!(take_repo(&mut args), Some(json!("beta")));
        assert_eq!(args, json!({"path": "a.py"}));
        let mut args = json!({"name": "read_output", "arguments": {"repo": "gamma", "handle": "h1"}});
        assert_eq!(take_repo(&mut args), Some(json!("gamma")));
        assert_eq!(args, json!({"name": "read_output", "arguments": {"handle": "h1"}}));
    }
}

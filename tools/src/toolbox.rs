//! The toolbox: the shared workspace (root, configuration, file filter) and the one entry point
//! that runs a tool by name and shapes what it returns.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use regex::Regex;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tack_indexer::{Index, LoadOutcome, TextIndex};
use tokio_util::sync::CancellationToken;

use crate::catalog::{self, Group, ToolSpec};
use crate::config::Config;
use crate::discover;
use crate::edit;
use crate::fsutil::VersionCache;
use crate::guard::Root;
use crate::limits::{self, Limits};
use crate::navigate;
use crate::observation::Observation;
use crate::patch_tools;
use crate::read_file;
use crate::read_output;
use crate::replace_symbol;
use crate::repo_map;
use crate::run;
use crate::search;
use crate::session::Session;
use crate::shape::{self, Budget, human_bytes};
use crate::state::{self, StateStore};
use crate::verify;

/// Which tools are listed from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// The core tools; the rest are found with `find_tools`.
    #[default]
    Core,
    /// Every tool.
    Full,
}

/// Reports progress on long work: `(progress, total, message)`.
pub type Progress = Box<dyn Fn(f64, Option<f64>, &str) + Send + Sync>;

/// What one call may consult besides its arguments.
#[derive(Default)]
pub struct CallContext {
    /// Cancelled when the client cancels the call; long work polls it and stops.
    pub cancel: CancellationToken,
    /// Where progress goes, when the client asked for it.
    pub progress: Option<Progress>,
    /// Whether the client's tool list may change during the connection (2025 protocol
    /// revisions) or must stay fixed (2026-07-28, where `call_tool` is the route).
    pub list_can_change: bool,
    /// The client's `clientInfo.name`, when it sent one: a known client's own limit on a tool
    /// result joins tack's cap.
    pub client: Option<String>,
}

impl CallContext {
    pub fn progress(&self, progress: f64, total: Option<f64>, message: &str) {
        if let Some(report) = &self.progress {
            report(progress, total, message);
        }
    }
}

/// The result of [`Toolbox::call`].
#[derive(Debug)]
pub struct CallOutcome {
    pub observation: Observation,
    /// The session's tool list changed: the server should notify the client.
    pub tools_changed: bool,
}

/// `run`'s description with what this machine's kernel does not enforce, made once.
fn run_description(base: &'static str) -> &'static str {
    static TEXT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let caveats =
            crate::contain::caveats(crate::contain::containment(), crate::contain::confines_writes());
        if caveats.is_empty() { base } else { Box::leak(format!("{base}{caveats}").into_boxed_str()) }
    })
}

/// Everything the tools share: the root, the configuration, the file filter.
pub struct Toolbox {
    root: Root,
    config: Config,
    profile: Profile,
    specs: Vec<ToolSpec>,
    deny: Vec<(String, Regex)>,
    filter: tack_indexer::Filter,
    index: Arc<Index>,
    /// Where the full-text index is saved (`None`: in memory), and the index once opened.
    text_store: Option<std::path::PathBuf>,
    text: std::sync::OnceLock<Result<Arc<TextIndex>, String>>,
    versions: VersionCache,
    /// The plan and the handoff note (per repository), and where session traces go.
    state: StateStore,
    /// Replaces secrets in results, when the configuration asks for it.
    redactor: Option<crate::redact::Redactor>,
}

impl Toolbox {
    /// Opens a workspace. Fails, naming the setting, when the configuration is unusable.
    pub fn new(root: &Path, config: Config, profile: Profile, read_only: bool) -> anyhow::Result<Self> {
        let root = Root::new(root).with_context(|| format!("cannot open the root {}", root.display()))?;
        let mut deny = Vec::new();
        for rule in &config.run.deny {
            let re =
                Regex::new(rule).with_context(|| format!("[run] deny rule {rule:?} is not a valid regex"))?;
            deny.push((rule.clone(), re));
        }
        let filter = tack_indexer::Filter::new(root.path(), &config.ignore)
            .context("an ignore glob in tack.toml does not parse")?;
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
        let mut specs: Vec<ToolSpec> =
            catalog::all().iter().filter(|t| !(read_only && t.writes)).cloned().collect();
        if let Some(run) = specs.iter_mut().find(|t| t.name == "run") {
            run.description = run_description(run.description);
        }
        let index = Arc::new(Index::open(root.path(), filter.clone(), None).0);
        let redactor = config.output.redact_secrets.then(|| crate::redact::Redactor::new(std::env::vars()));
        Ok(Self {
            root,
            config,
            profile,
            specs,
            deny,
            filter,
            index,
            text_store: None,
            text: std::sync::OnceLock::new(),
            versions: VersionCache::default(),
            state: StateStore::default(),
            redactor,
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

    /// Where the plan and the note are saved; `None` when they live in memory.
    pub fn state_dir(&self) -> Option<&Path> {
        self.state.dir()
    }

    pub(crate) fn state(&self) -> &StateStore {
        &self.state
    }

    /// The full-text index, opened on first use and brought in step with `snapshot` unless
    /// another call is doing that (a write's own call waits for its sync; readers do not).
    pub fn text_index(&self, snapshot: &tack_indexer::Snapshot) -> Result<Arc<TextIndex>, String> {
        let text = self
            .text
            .get_or_init(|| {
                TextIndex::open(self.text_store.as_deref())
                    .map(|(text, _dropped)| Arc::new(text))
                    .map_err(|err| format!("the search index cannot be opened: {err}"))
            })
            .clone()?;
        text.sync_unless_busy(self.root.path(), snapshot)
            .map_err(|err| format!("the search index cannot be updated: {err}"))?;
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

    /// Whether results carry structured data and tools their output schemas (`--structured`).
    pub fn structured(&self) -> bool {
        self.config.output.structured
    }

    /// What a call from `client` may send back.
    pub fn limits(&self, client: Option<&str>) -> Limits {
        Limits::new(&self.config.output, client)
    }

    /// Every tool this workspace offers (fewer under `--read-only`), in catalogue order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.specs.iter().find(|t| t.name == name)
    }

    /// The tools to list for a session: core ones, everything under the full profile, and
    /// what `find_tools` revealed when the client's list may change.
    pub fn listed(&self, session: &Session, list_can_change: bool) -> Vec<&ToolSpec> {
        self.specs
            .iter()
            .filter(|t| {
                t.group == Group::Core
                    || self.profile == Profile::Full
                    || (list_can_change && session.has_enabled(t.name))
            })
            .collect()
    }

    /// The server's instructions: what tack is for and when to reach for which tool.
    pub fn instructions(&self) -> String {
        let mut text = String::from(
            "tack serves one repository to coding agents, with results shaped to be read at a glance. \
             Start with repo_map in an unfamiliar repository: the files and signatures that matter most, \
             ranked by how the code references itself; give it focus= (paths, symbols, words) to center it. \
             search finds code (text, regex, or words from a bug report); read_file shows 100 numbered lines \
             at a time and says what lies above and below. ",
        );
        if self.spec("edit_file").is_some() {
            text.push_str(
                "edit_file replaces one exact, unique snippet (old -> new; pass read_file's version to refuse \
                 stale edits) and refuses any edit that would add a syntax error, leaving the file untouched; \
                 apply_patch, write_file, replace_symbol and undo (through find_tools) cover multi-file patches, \
                 whole files and definitions. ",
            );
        }
        if self.spec("run").is_some() {
            text.push_str(
                "run executes a shell command in the repository root with a timeout (tests, builds, git). ",
            );
            // What this kernel does not enforce is said in run's own description.
            let containment = crate::contain::containment();
            if containment.isolates_network() && !self.config.run.network {
                text.push_str("Commands reach no network but their own localhost, so downloads fail. ");
            }
            if crate::contain::confines_writes() {
                if self.config.run.writable.is_empty() {
                    text.push_str("Commands may write only inside the repository and $TMPDIR. ");
                } else {
                    text.push_str(
                        "Commands may write only inside the repository, $TMPDIR and the folders the user allowed. ",
                    );
                }
            }
        }
        if !self.config.refused.is_empty() {
            text.push_str(&format!(
                "This repository's tack.toml tried to loosen {}; tack ignored it (only the user can). ",
                self.config.refused.join(", ")
            ));
        }
        text.push_str(
            "Every result is capped: a long one keeps its head and tail, and the marker names a handle that \
             read_output pages. find_tools reveals specialised tools (navigation, patches, plans) and call_tool \
             calls any tool by name. Paths are relative to the root; nothing outside it is touched. A failed \
             call answers with what to do next.",
        );
        text
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

    /// Runs the tool `name` with JSON `args` and shapes the result to the cap. Every call passes
    /// here, so this is where the gate's verdict joins writing tools' results, the stall
    /// detector watches, and the trace is written.
    pub fn call(&self, session: &Session, name: &str, args: Value, ctx: &CallContext) -> CallOutcome {
        let started = std::time::Instant::now();
        let key = format!("{name} {args}");
        let args_for_trace = args.clone();
        let limits = self.limits(ctx.client.as_deref());
        let (observation, tools_changed) = match self.dispatch(session, name, args, ctx, &limits) {
            Ok(pair) => pair,
            Err(observation) => (observation, false),
        };
        let budget = if observation.is_error { limits.error_budget } else { limits.budget };
        let mut observation = self.shape(session, name, observation, budget);
        if let Some(redactor) = &self.redactor {
            observation.text = redactor.text(&observation.text);
            if let Some(data) = &mut observation.structured {
                redactor.value(data);
            }
        }
        let target = called_tool(name, &args_for_trace);
        let spec = self.spec(&target);
        let digest =
            blake3::hash(format!("{}\n{}", observation.is_error, observation.text).as_bytes()).to_hex();
        let digest = digest[..16].to_string();
        let reads = spec.is_some_and(|t| {
            t.group == Group::Navigate
                || matches!(t.name, "repo_map" | "search" | "read_file" | "read_output")
        });
        let (nudge, verified, trace_path) = {
            let mut harness = session.harness.lock().expect("harness lock");
            if harness.trace_path().is_none()
                && let Some(dir) = self.state.dir()
            {
                harness.set_trace_path(dir.join("traces").join(format!("{}.jsonl", session.id())));
            }
            let nudge = harness.observe(&target, reads, key, digest.clone(), &self.config.stall);
            (nudge, harness.verified_since_last_edit(), harness.trace_path().is_some())
        };
        // Writing tools (and verify itself) carry the gate's verdict; verify says it in its own text.
        if !observation.is_error && spec.is_some_and(|t| t.writes && t.name != "run") {
            if let Some(Value::Object(map)) = &mut observation.structured {
                map.insert("verified_since_last_edit".into(), Value::Bool(verified));
            }
            if target != "verify" {
                if !observation.text.ends_with('\n') {
                    observation.text.push('\n');
                }
                observation.text.push_str(if verified {
                    "verified since the last edit\n"
                } else {
                    "not verified since the last edit: verify runs the checks\n"
                });
            }
        }
        if let Some(nudge) = &nudge {
            tracing::info!(session = session.id(), tool = target, "stall nudge: {nudge}");
            if !observation.text.ends_with('\n') {
                observation.text.push('\n');
            }
            observation.text.push_str(nudge);
            observation.text.push('\n');
        }
        if trace_path {
            shape::warm_tokenizer();
            let tokens = shape::count_tokens_if_ready(&observation.text);
            let mut record = serde_json::json!({
                "tool": target,
                "args": args_for_trace,
                // Exact once the tokenizer is loaded; until then about four bytes a token.
                "tokens": tokens.unwrap_or(observation.text.len().div_ceil(4)),
                "digest": digest,
                "ms": started.elapsed().as_millis() as u64,
                "error": observation.is_error.then(|| observation.text.lines().next().unwrap_or("").to_string()),
                "verified_since_last_edit": verified,
            });
            if tokens.is_none() {
                record["tokens_estimated"] = Value::Bool(true);
            }
            if target != name {
                record["via"] = Value::String(name.to_string());
            }
            if let Some(nudge) = &nudge {
                record["stall"] = Value::String(nudge.clone());
            }
            if target == "done" {
                record["gate"] = observation.structured.clone().unwrap_or(Value::Null);
            }
            if target == "verify" {
                record["verify"] = observation
                    .structured
                    .as_ref()
                    .map(|s| serde_json::json!({"ok": s["ok"], "checks": s["checks"].as_array().map(|c| c.iter().map(|c| serde_json::json!({"name": c["name"], "exit": c["exit"], "passed": c["passed"], "failed": c["failed"]})).collect::<Vec<_>>())}))
                    .unwrap_or(Value::Null);
            }
            session.harness.lock().expect("harness lock").trace(record);
        }
        CallOutcome { observation, tools_changed }
    }

    fn dispatch(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        ctx: &CallContext,
        limits: &Limits,
    ) -> Result<(Observation, bool), Observation> {
        if self.spec(name).is_none() {
            return Err(Observation::error(format!(
                "no tool named {name:?} is available; find_tools lists the tools"
            )));
        }
        let args = if args.is_null() { Value::Object(Default::default()) } else { args };
        let observation = match name {
            "repo_map" => repo_map::repo_map(self, parse(name, args)?, limits.budget),
            "search" => search::search(self, parse(name, args)?, limits.search_limit),
            "read_file" => read_file::read_file(self, parse(name, args)?, limits.read_lines),
            "edit_file" => edit::edit_file(self, session, parse(name, args)?),
            "run" => run::run(self, parse(name, args)?, ctx),
            "definition" => navigate::definition(self, parse(name, args)?),
            "references" => navigate::references(self, parse(name, args)?),
            "callers" => navigate::callers(self, parse(name, args)?),
            "outline" => navigate::outline(self, parse(name, args)?, limits.budget),
            "symbols" => navigate::symbols(self, parse(name, args)?),
            "verify" => verify::verify(self, session, parse(name, args)?, ctx),
            "todo" => state::todo(self, parse(name, args)?),
            "done" => state::done(self, session, parse(name, args)?),
            "handoff" => state::handoff(self, session, parse(name, args)?),
            "apply_patch" => patch_tools::apply_patch(self, session, parse(name, args)?),
            "write_file" => patch_tools::write_file(self, session, parse(name, args)?),
            "replace_symbol" => replace_symbol::replace_symbol(self, session, parse(name, args)?),
            "undo" => patch_tools::undo(self, session, parse(name, args)?),
            "read_output" => read_output::read_output(session, parse(name, args)?),
            "find_tools" => return Ok(discover::find_tools(self, session, parse(name, args)?, ctx)),
            "call_tool" => {
                let (target, arguments) = discover::call_target(self, parse(name, args)?)?;
                return self.dispatch(session, &target, arguments, ctx, limits);
            }
            other => unreachable!("catalogue tool {other} has no dispatch arm"),
        };
        Ok((observation, false))
    }

    /// Applies the cap: over it, keep head and tail and spill the full text under a handle
    /// (except for `read_output`, which pages handles and never makes new ones).
    fn shape(
        &self,
        session: &Session,
        name: &str,
        mut observation: Observation,
        budget: Budget,
    ) -> Observation {
        if shape::fits_budget(&observation.text, budget) {
            return observation;
        }
        let limit = budget.describe();
        if name == "read_output" {
            let (text, _) = shape::head_tail(&observation.text, budget, |o| {
                format!(
                    "[… {} lines ({}) omitted to stay under {limit}; ask for fewer lines, or use grep= …]",
                    o.lines,
                    human_bytes(o.bytes)
                )
            });
            observation.text = text;
            return observation;
        }
        let full = std::mem::take(&mut observation.text);
        let handle = session.outputs.lock().expect("outputs lock").put(full.clone());
        let (text, _) = shape::head_tail(&full, budget, |o| marker(&handle, o, &limit));
        observation.text = text;
        if let Some(Value::Object(map)) = &mut observation.structured {
            map.insert("output_handle".into(), Value::String(handle));
        }
        observation
    }
}

/// The tool a call runs: `call_tool`'s target, else the name itself.
fn called_tool(name: &str, args: &Value) -> String {
    if name == "call_tool"
        && let Some(target) = args.get("name").and_then(Value::as_str)
    {
        return target.to_string();
    }
    name.to_string()
}

/// The line that replaces the cut middle of a result.
fn marker(handle: &str, o: &shape::Omission, limit: &str) -> String {
    if o.lines == 0 {
        return format!(
            "[… long lines were shortened ({} cut) to stay under {limit}; the full text is kept: read_output(handle=\"{handle}\") …]",
            human_bytes(o.bytes)
        );
    }
    let last = o.first_line + o.lines - 1;
    format!(
        "[… {} lines ({}) omitted: lines {}-{last} of {}. The full text is kept: read_output(handle=\"{handle}\", start={}) pages it, grep= filters it …]",
        o.lines,
        human_bytes(o.bytes),
        o.first_line,
        o.total_lines,
        o.first_line
    )
}

/// Decodes a tool's arguments; a mismatch is an error result naming the problem and the fields.
fn parse<T: DeserializeOwned>(name: &str, args: Value) -> Result<T, Observation> {
    serde_json::from_value(args).map_err(|err| {
        let fields = catalog::all()
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.input_schema.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        Observation::error(format!("invalid arguments for {name}: {err}; its arguments are: {fields}"))
    })
}

//! The front door: looks a tool up in the catalogue, runs it on the workspace, shapes what it
//! returns to the call's limits, and records the call in the session's harness and trace.

use serde_json::Value;
use std::sync::OnceLock;
use tack_indexer::LoadOutcome;

use crate::call_context::CallContext;
use crate::observe::observation::Observation;
use crate::observe::redact::Redactor;
use crate::observe::shape::{self, Budget, human_bytes};
use crate::session::Session;
use crate::tool::{Across, AcrossCall, Call, Entry, Gate, Group, Overflow, Reply, ToolSpec, catalog};
use crate::workspace::Workspace;
use crate::workspace::config::Config;

/// Which tools are listed from the start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// The core tools; the rest are found with `find_tools`.
    #[default]
    Core,
    /// Every tool.
    Full,
}

/// The result of [`Toolbox::call`].
#[derive(Debug)]
pub struct CallOutcome {
    pub observation: Observation,
    /// The session's tool list changed: the server should notify the client.
    pub tools_changed: bool,
}

/// The tools offered on one workspace, and the one way to call them.
pub struct Toolbox {
    ws: Workspace,
    profile: Profile,
    /// The catalogue's tools this workspace offers (no writing ones under `--read-only`), made
    /// when first asked for: `tack index` never does, and skips the schemas and the sandbox
    /// probes that `run`'s description needs.
    offered: OnceLock<Vec<&'static Entry>>,
    read_only: bool,
    /// Replaces secrets in results, when the configuration asks for it.
    redactor: Option<Redactor>,
}

impl Toolbox {
    /// Opens a workspace and offers its tools. Fails, naming the setting, when the
    /// configuration is unusable.
    pub fn new(
        root: &std::path::Path,
        config: Config,
        profile: Profile,
        read_only: bool,
    ) -> anyhow::Result<Self> {
        let redactor = config.output.redact_secrets.then(|| Redactor::new(std::env::vars()));
        let ws = Workspace::new(root, config)?;
        Ok(Self { ws, profile, offered: OnceLock::new(), read_only, redactor })
    }

    fn offered(&self) -> &[&'static Entry] {
        self.offered
            .get_or_init(|| catalog::all().iter().filter(|e| !(self.read_only && e.spec.writes)).collect())
    }

    /// Loads the index saved in `store`, see [`Workspace::with_index_store`].
    pub fn with_index_store(mut self, store: &std::path::Path) -> (Self, LoadOutcome) {
        let (ws, outcome) = self.ws.with_index_store(store);
        self.ws = ws;
        (self, outcome)
    }

    /// Keeps the plan, the note and the traces in `dir`, see [`Workspace::with_state_dir`].
    pub fn with_state_dir(mut self, dir: &std::path::Path) -> Self {
        self.ws = self.ws.with_state_dir(dir);
        self
    }

    /// What every call shares: root, configuration, indexes.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// Whether results carry structured data and tools their output schemas (`--structured`).
    pub fn structured(&self) -> bool {
        self.ws.config().output.structured
    }

    /// Every tool this workspace offers (fewer under `--read-only`), in catalogue order.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.offered().iter().map(|e| &e.spec)
    }

    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.entry(name).map(|e| &e.spec)
    }

    /// The tool a call of `name` with `args` runs: `call_tool`'s target, else `name`'s own.
    pub fn spec_of_call(&self, name: &str, args: &Value) -> Option<&ToolSpec> {
        let target = self.entry(name).and_then(|e| (e.target)(args)).unwrap_or(name);
        self.spec(target)
    }

    fn entry(&self, name: &str) -> Option<&'static Entry> {
        self.offered().iter().copied().find(|e| e.spec.name == name)
    }

    /// The tools to list for a session: core ones, everything under the full profile, and
    /// what `find_tools` revealed when the client's list may change.
    pub fn listed(&self, session: &Session, list_can_change: bool) -> Vec<&ToolSpec> {
        self.specs()
            .filter(|t| {
                t.group == Group::Core
                    || self.profile == Profile::Full
                    || (list_can_change && session.has_enabled(t.name))
            })
            .collect()
    }

    /// The sentence the instructions open with.
    pub const PURPOSE: &'static str =
        "tack serves one repository to coding agents, with results shaped to be read at a glance.";

    /// What the instructions say about the offered tool `name`, if anything: the plugin's skill
    /// quotes these sentences word for word.
    pub fn guide(&self, name: &str) -> Option<String> {
        self.entry(name).and_then(|e| (e.guide)(&self.ws))
    }

    /// The server's instructions: what tack is for, and what each offered tool that has
    /// something to say is for, in catalogue order.
    pub fn instructions(&self) -> String {
        let mut text = format!("{} ", Self::PURPOSE);
        for entry in self.offered() {
            if let Some(guide) = (entry.guide)(&self.ws) {
                text.push_str(&guide);
            }
        }
        let refused = &self.ws.config().refused;
        if !refused.is_empty() {
            text.push_str(&format!(
                "This repository's tack.toml tried to loosen {}; tack ignored it (only the user can). ",
                refused.join(", ")
            ));
        }
        text.push_str(
            "Every result is capped: a long one keeps its head and tail, and the marker names a handle that \
             read_output pages. Paths are relative to the root; nothing outside it is touched. A failed call \
             answers with what to do next.",
        );
        text
    }

    /// Runs the tool `name` with JSON `args` and shapes the result to the cap. Every call passes
    /// here, so this is where the gate's verdict joins writing tools' results, the stall
    /// detector watches, and the trace is written.
    pub fn call(&self, session: &Session, name: &str, args: Value, ctx: &CallContext) -> CallOutcome {
        self.call_with(session, name, args, ctx, &|args, limits| {
            self.dispatch(session, name, args, ctx, limits)
        })
    }

    /// Runs `search` or `context` across the repositories `across` names (`repo="*"`), shaped
    /// and recorded as [`Toolbox::call`] does, in `session`; another tool is an error that says
    /// to name one repository.
    pub fn call_across(
        &self,
        session: &Session,
        across: &Across<'_>,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> CallOutcome {
        self.call_with(session, name, args, ctx, &|args, limits| {
            let call = AcrossCall { repos: across, ctx, limits };
            // Through `call_tool`, the tool it names runs, with the arguments it holds.
            let (name, args) = match self.entry(name).and_then(|e| (e.target)(&args)) {
                Some(target) if target != name => {
                    (target.to_string(), args.get("arguments").cloned().unwrap_or(Value::Null))
                }
                _ => (name.to_string(), args),
            };
            let args = if args.is_null() { Value::Object(Default::default()) } else { args };
            let observation = self.entry(&name).and_then(|entry| entry.run_across(&call, args)).unwrap_or_else(|| {
                Observation::error(format!(
                    "{name} runs in one repository: pass repo= with one name (of {}); search and context take repo=\"*\"",
                    across.names.join(", ")
                ))
            });
            (observation, false)
        })
    }

    /// The front door's work around a run: shaping to the cap, redaction, the gate, the stall
    /// detector and the trace.
    fn call_with(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        ctx: &CallContext,
        run: &dyn Fn(Value, &crate::observe::limits::Limits) -> (Observation, bool),
    ) -> CallOutcome {
        let started = std::time::Instant::now();
        let key = call_key(name, &args);
        let args_for_trace = clipped(&args);
        let limits = self.ws.limits(ctx.client.as_deref());
        let target = self.entry(name).and_then(|e| (e.target)(&args)).unwrap_or(name).to_string();
        let entry = self.entry(&target);
        let (observation, tools_changed) = run(args, &limits);
        let budget = if observation.is_error { limits.error_budget } else { limits.budget };
        let overflow = entry.map_or(Overflow::Spill, |e| e.spec.overflow);
        let mut observation = self.redact(self.shape(session, overflow, observation, budget));
        let digest =
            blake3::hash(format!("{}\n{}", observation.is_error, observation.text).as_bytes()).to_hex();
        let digest = digest[..16].to_string();
        let failure = entry.and_then(|e| (e.failure)(&observation));
        let seen = self.observe(session, entry, &target, key, &digest, failure);
        add_gate(&mut observation, entry.map_or(Gate::Silent, |e| e.spec.gate), seen.verified);
        if let Some(nudge) = &seen.nudge {
            tracing::info!(session = session.id(), tool = target, "stall nudge: {nudge}");
            push_line(&mut observation.text, nudge);
        }
        if seen.traced {
            let mut record = trace_record(&observation, &target, args_for_trace, &digest, started, &seen);
            if target != name {
                record["via"] = Value::String(name.to_string());
            }
            if let Some((key, value)) = entry.and_then(|e| (e.trace)(observation.structured.as_ref())) {
                record[key] = value;
            }
            session.harness.lock().expect("harness lock").trace(record);
        }
        CallOutcome { observation, tools_changed }
    }

    /// Replaces secrets in the text and the data, when the configuration asks for it.
    fn redact(&self, mut observation: Observation) -> Observation {
        if let Some(redactor) = &self.redactor {
            observation.text = redactor.text(&observation.text);
            if let Some(data) = &mut observation.structured {
                redactor.value(data);
            }
        }
        observation
    }

    /// Feeds the finished call to the session's harness: the stall detector, the gate, and
    /// (with a state directory) the trace file.
    fn observe(
        &self,
        session: &Session,
        entry: Option<&Entry>,
        target: &str,
        key: String,
        digest: &str,
        failure: Option<String>,
    ) -> Seen {
        let reads = entry.is_some_and(|e| e.spec.reads);
        let mut harness = session.harness.lock().expect("harness lock");
        if !harness.traced()
            && let Some(dir) = self.ws.state_dir()
        {
            harness.set_trace_path(dir.join("traces").join(format!("{}.jsonl", session.id())));
        }
        let nudge =
            harness.observe(target, reads, key, digest.to_string(), failure.clone(), &self.ws.config().stall);
        Seen {
            nudge,
            failure,
            verified: harness.verified_since_last_edit(),
            traced: harness.traced(),
            wrote: harness.last_wrote(),
        }
    }

    /// Runs `name`, following one forward (`call_tool` names the tool it runs).
    fn dispatch(
        &self,
        session: &Session,
        name: &str,
        args: Value,
        ctx: &CallContext,
        limits: &crate::observe::limits::Limits,
    ) -> (Observation, bool) {
        let call = Call { ws: &self.ws, session, ctx, limits, offered: self.offered() };
        let (mut name, mut args) = (name.to_string(), args);
        for _ in 0..2 {
            let Some(entry) = self.entry(&name) else {
                return (
                    Observation::error(format!(
                        "no tool named {name:?} is available; find_tools lists the tools"
                    )),
                    false,
                );
            };
            let args_object = if args.is_null() { Value::Object(Default::default()) } else { args };
            match entry.run(&call, args_object) {
                Reply::Done(observation) => return (observation, false),
                Reply::ListChanged(observation) => return (observation, true),
                Reply::Forward(target, arguments) => (name, args) = (target, arguments),
            }
        }
        (
            Observation::error("call_tool cannot call call_tool; name the tool to run, such as read_output"),
            false,
        )
    }

    /// Applies the cap: over it, keep head and tail and spill the full text under a handle
    /// (unless the tool pages handles itself: it never makes new ones).
    fn shape(
        &self,
        session: &Session,
        overflow: Overflow,
        mut observation: Observation,
        budget: Budget,
    ) -> Observation {
        if shape::fits_budget(&observation.text, budget) {
            return observation;
        }
        let limit = budget.describe();
        if overflow == Overflow::Cut {
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

/// What the harness made of a call.
struct Seen {
    nudge: Option<String>,
    /// The call's failure signature, if it failed (see [`failure_signature`]).
    failure: Option<String>,
    verified: bool,
    traced: bool,
    /// Files the call wrote.
    wrote: usize,
}

/// Writing tools (and verify itself) carry the gate's verdict; verify says it in its own text.
fn add_gate(observation: &mut Observation, gate: Gate, verified: bool) {
    if observation.is_error || gate == Gate::Silent {
        return;
    }
    if let Some(Value::Object(map)) = &mut observation.structured {
        map.insert("verified_since_last_edit".into(), Value::Bool(verified));
    }
    if gate == Gate::Carried {
        push_line(
            &mut observation.text,
            if verified {
                "verified since the last edit"
            } else {
                "not verified since the last edit: verify runs the checks"
            },
        );
    }
}

/// Appends `line` on a line of its own.
fn push_line(text: &mut String, line: &str) {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
}

/// The session trace's record of one call.
/// Identifies a call by its tool and a hash of its arguments, so a call with megabytes of
/// arguments is not kept whole by the stall detector.
fn call_key(name: &str, args: &Value) -> String {
    let mut hasher = blake3::Hasher::new();
    // Writing JSON into a hasher cannot fail.
    let _ = serde_json::to_writer(&mut hasher, args);
    format!("{name} {}", &hasher.finalize().to_hex()[..32])
}

/// The longest string argument a trace keeps whole.
const TRACED_STRING_BYTES: usize = 4096;

/// The arguments as a trace keeps them: a string longer than [`TRACED_STRING_BYTES`] is cut,
/// with its length said, so the trace (and the call's memory) stays small.
fn clipped(args: &Value) -> Value {
    match args {
        Value::String(text) if text.len() > TRACED_STRING_BYTES => {
            let mut end = TRACED_STRING_BYTES;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            Value::String(format!("{}… ({} bytes)", &text[..end], text.len()))
        }
        Value::Array(items) => Value::Array(items.iter().map(clipped).collect()),
        Value::Object(fields) => Value::Object(fields.iter().map(|(k, v)| (k.clone(), clipped(v))).collect()),
        other => other.clone(),
    }
}

fn trace_record(
    observation: &Observation,
    target: &str,
    args: Value,
    digest: &str,
    started: std::time::Instant,
    seen: &Seen,
) -> Value {
    shape::warm_tokenizer();
    let tokens = shape::count_tokens_if_ready(&observation.text);
    let mut record = serde_json::json!({
        "tool": target,
        "args": args,
        // Exact once the tokenizer is loaded; until then about four bytes a token.
        "tokens": tokens.unwrap_or(observation.text.len().div_ceil(4)),
        "digest": digest,
        "ms": started.elapsed().as_millis() as u64,
        "error": observation.is_error.then(|| observation.text.lines().next().unwrap_or("").to_string()),
        "verified_since_last_edit": seen.verified,
    });
    if tokens.is_none() {
        record["tokens_estimated"] = Value::Bool(true);
    }
    if seen.wrote > 0 {
        record["wrote"] = seen.wrote.into();
    }
    if let Some(nudge) = &seen.nudge {
        record["stall"] = Value::String(nudge.clone());
    }
    if let Some(failure) = &seen.failure {
        record["failure"] = Value::String(failure.clone());
    }
    record
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

#[cfg(test)]
mod tests {
    use super::{TRACED_STRING_BYTES, call_key, clipped};
    use serde_json::json;

    #[test]
    fn a_call_is_known_by_a_hash_of_its_arguments_and_traced_with_long_strings_cut() {
        let huge = "é".repeat(1 << 20);
        let args = json!({"query": huge, "paths": ["a.py", huge], "n": 3});
        let key = call_key("search", &args);
        assert_eq!(key.len(), "search ".len() + 32, "{key}");
        assert_eq!(key, call_key("search", &args.clone()));
        assert_ne!(key, call_key("search", &json!({"query": "other", "paths": ["a.py", huge], "n": 3})));
        assert_ne!(key, call_key("context", &args));
        let traced = clipped(&args);
        let kept = traced["query"].as_str().unwrap();
        assert!(kept.len() < TRACED_STRING_BYTES + 32, "{}", kept.len());
        assert!(kept.ends_with("… (2097152 bytes)"), "{}", &kept[kept.len() - 40..]);
        assert_eq!(traced["paths"][0], "a.py");
        assert_eq!(traced["paths"][1], traced["query"]);
        assert_eq!(traced["n"], 3);
        assert_eq!(clipped(&json!({"query": "short"})), json!({"query": "short"}));
    }
}

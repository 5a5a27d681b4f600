//! What a tool is: a type with a [`Spec`], typed parameters and output (the schemas come from
//! them) and one `run`. The catalogue ([`catalog`]) lists them in the order clients see them;
//! everything that lists, finds, calls, describes or shapes a tool reads it.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::call_context::CallContext;
use crate::observe::limits::Limits;
use crate::observe::observation::Observation;
use crate::session::Session;
use crate::workspace::Workspace;

pub(crate) mod apply_patch;
pub(crate) mod call_tool;
pub(crate) mod catalog;
pub(crate) mod context;
pub(crate) mod edit_file;
pub(crate) mod find_tools;
pub(crate) mod navigate;
pub(crate) mod plan;
pub(crate) mod read_file;
pub(crate) mod read_output;
pub(crate) mod replace_symbol;
pub(crate) mod repo_map;
pub(crate) mod run;
mod schema;
pub(crate) mod search;
pub(crate) mod verify;

/// Where a tool is found: core tools are always listed, the rest through `find_tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Core,
    Navigate,
    Patch,
    State,
    Output,
}

impl Group {
    pub fn name(self) -> &'static str {
        match self {
            Group::Core => "core",
            Group::Navigate => "navigate",
            Group::Patch => "patch",
            Group::State => "state",
            Group::Output => "output",
        }
    }
}

/// The MCP behaviour hints, in tack's own terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

pub(crate) const READS: Annotations =
    Annotations { read_only: true, destructive: false, idempotent: true, open_world: false };

/// Tools that change files in place: a repeated call may change them again.
pub(crate) const EDITS: Annotations =
    Annotations { read_only: false, destructive: true, idempotent: false, open_world: false };

/// Tools that write the same result however often they run.
pub(crate) const REWRITES: Annotations =
    Annotations { read_only: false, destructive: true, idempotent: true, open_world: false };

/// Tools that keep the session's own records (plan, note): nothing in the repository changes.
pub(crate) const RECORDS: Annotations =
    Annotations { read_only: false, destructive: false, idempotent: true, open_world: false };

/// What a tool's result says of the verification gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Nothing: the tool changes no file the gate counts.
    Silent,
    /// A file-changing tool: the result carries `verified_since_last_edit` and a line saying it.
    Carried,
    /// `verify`: the result carries `verified_since_last_edit`, and its own text says it.
    OwnText,
}

/// What happens to a result over the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// Head and tail stay, and the full text is kept under a handle that `read_output` pages.
    Spill,
    /// Head and tail stay and nothing is kept: a tool that pages handles never makes new ones.
    Cut,
}

/// Everything about a tool but its types and its code.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    pub title: &'static str,
    pub group: Group,
    pub description: &'static str,
    pub annotations: Annotations,
    /// Changes the repository or runs commands: removed under `--read-only`.
    pub writes: bool,
    /// Reads the repository: the stall detector counts reads without edits.
    pub reads: bool,
    pub gate: Gate,
    pub overflow: Overflow,
    /// What a call costs the server, so it knows where to run it.
    pub work: Work,
}

/// Where the server runs a tool's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Milliseconds of CPU: a bounded pool of one worker per core, sessions taking turns, so
    /// one agent's burst of calls cannot take the cores from the others.
    Quick,
    /// CPU-bound for up to a second (maps): workers of their own at a lower priority, sessions
    /// taking turns, so a burst of it cannot hold back other tools.
    Heavy,
    /// Mostly waits for a command it started, for up to its timeout: a thread of its own, so
    /// it never holds a worker.
    Waits,
}

impl Spec {
    /// A tool that only reads the repository, with results spilled over the cap.
    pub(crate) const fn reader(
        name: &'static str,
        title: &'static str,
        group: Group,
        description: &'static str,
    ) -> Self {
        Spec {
            name,
            title,
            group,
            description,
            annotations: READS,
            writes: false,
            reads: true,
            gate: Gate::Silent,
            overflow: Overflow::Spill,
            work: Work::Quick,
        }
    }

    /// A tool that changes files: the gate's verdict joins its result.
    pub(crate) const fn editor(
        name: &'static str,
        title: &'static str,
        group: Group,
        description: &'static str,
        annotations: Annotations,
    ) -> Self {
        Spec {
            name,
            title,
            group,
            description,
            annotations,
            writes: true,
            reads: false,
            gate: Gate::Carried,
            overflow: Overflow::Spill,
            work: Work::Quick,
        }
    }
}

/// A tool as clients see it: its spec and the schemas of its arguments and result.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The tool also runs across several repositories at once (`repo="*"`): `search`, `context`.
    pub across: bool,
    pub spec: Spec,
    pub input_schema: Map<String, Value>,
    pub output_schema: Option<Map<String, Value>>,
}

impl std::ops::Deref for ToolSpec {
    type Target = Spec;

    fn deref(&self) -> &Spec {
        &self.spec
    }
}

/// What one call of a tool may use.
pub(crate) struct Call<'a> {
    pub ws: &'a Workspace,
    pub session: &'a Session,
    pub ctx: &'a CallContext,
    pub limits: &'a Limits,
    /// The tools this workspace offers, in catalogue order.
    pub offered: &'a [&'static Entry],
}

/// A call across several repositories (`repo="*"` or a list): their names, and a way to visit
/// each one's workspace in turn, which opens a closed repository (and may close another).
pub struct Across<'a> {
    pub names: &'a [String],
    /// Runs the closure on the workspace of the repository at this place in `names`; an
    /// error says why that repository could not be opened.
    pub visit: &'a Visit<'a>,
}

/// Runs a closure on the workspace of one repository of a call [`Across`] several.
pub type Visit<'a> = dyn Fn(usize, &mut dyn FnMut(&Workspace)) -> Result<(), String> + Sync + 'a;

/// What a call across repositories may use.
pub(crate) struct AcrossCall<'a> {
    pub repos: &'a Across<'a>,
    pub ctx: &'a CallContext,
    pub limits: &'a Limits,
}

impl AcrossCall<'_> {
    /// Visits every repository in turn (saying so as progress), collecting what `each` finds;
    /// a repository that cannot be opened is named in the second list with why.
    pub(crate) fn each<T>(&self, mut each: impl FnMut(&Workspace) -> T) -> (Vec<(usize, T)>, Vec<String>) {
        let names = self.repos.names;
        let mut found = Vec::new();
        let mut failed = Vec::new();
        for (at, name) in names.iter().enumerate() {
            if self.ctx.cancel.is_cancelled() {
                failed.push(format!("{name}: not searched, the call was cancelled"));
                continue;
            }
            if let Some(progress) = &self.ctx.progress {
                progress(at as f64, Some(names.len() as f64), &format!("repository {name}"));
            }
            let mut got = None;
            match (self.repos.visit)(at, &mut |ws| got = Some(each(ws))) {
                Ok(()) => found.extend(got.map(|got| (at, got))),
                Err(err) => failed.push(format!("{name}: {err}")),
            }
        }
        (found, failed)
    }
}

/// What a tool's run answers.
pub(crate) enum Reply {
    Done(Observation),
    /// Done, and the session's tool list changed: the client is told.
    ListChanged(Observation),
    /// Run this other tool with these arguments instead (`call_tool`).
    Forward(String, Value),
}

impl From<Observation> for Reply {
    fn from(observation: Observation) -> Self {
        Reply::Done(observation)
    }
}

/// One tool: a type with its spec, typed parameters and output, and one `run`.
pub(crate) trait Tool {
    type Params: DeserializeOwned + schemars::JsonSchema;
    type Output: schemars::JsonSchema;
    const SPEC: Spec;

    fn run(call: &Call<'_>, params: Self::Params) -> Reply;

    /// The description clients read; the spec's unless this machine adds something.
    fn description() -> &'static str {
        Self::SPEC.description
    }

    /// The schema of the structured result; `None` when the result is another tool's.
    fn output_schema() -> Option<Map<String, Value>> {
        Some(schema::output::<Self::Output>())
    }

    /// What the server's instructions say about this tool, given what the workspace allows.
    fn guide(_ws: &Workspace) -> Option<String> {
        None
    }

    /// A field the session trace keeps from the structured result, with its key.
    fn trace(_structured: Option<&Value>) -> Option<(&'static str, Value)> {
        None
    }

    /// The tool a call really runs, when it names another one in its arguments.
    fn target(_args: &Value) -> Option<&str> {
        None
    }

    /// What identifies this call's failure across calls that differ, for the stall detector
    /// (failing test ids, a command's first error line); `None` when it did not fail.
    fn failure(_observation: &Observation) -> Option<String> {
        None
    }

    /// How the tool runs across several repositories, if it does.
    const ACROSS: Option<fn(&AcrossCall<'_>, Self::Params) -> Observation> = None;
}

/// A catalogue entry: a tool's spec and schemas, and its code behind plain function pointers.
pub(crate) struct Entry {
    pub spec: ToolSpec,
    run: fn(&Call<'_>, Value) -> Reply,
    pub guide: fn(&Workspace) -> Option<String>,
    pub trace: fn(Option<&Value>) -> Option<(&'static str, Value)>,
    pub target: fn(&Value) -> Option<&str>,
    pub failure: fn(&Observation) -> Option<String>,
    across: fn(&AcrossCall<'_>, Value) -> Option<Observation>,
    /// The result's required fields that may serialize as `null` (a test keeps it empty).
    #[cfg(test)]
    pub required_nullable: fn() -> Vec<String>,
}

impl Entry {
    pub(crate) fn of<T: Tool>() -> Entry {
        let output =
            T::output_schema().map(|s| if T::SPEC.gate == Gate::Carried { schema::gated(s) } else { s });
        Entry {
            spec: ToolSpec {
                across: T::ACROSS.is_some(),
                spec: Spec { description: T::description(), ..T::SPEC },
                input_schema: schema::input::<T::Params>(),
                output_schema: output,
            },
            run: run_typed::<T>,
            guide: T::guide,
            trace: T::trace,
            target: T::target,
            failure: T::failure,
            across: run_across::<T>,
            #[cfg(test)]
            required_nullable: schema::required_nullable::<T::Output>,
        }
    }

    /// Decodes the arguments and runs the tool; arguments that do not decode are an error
    /// result naming the problem and the tool's fields.
    pub(crate) fn run(&self, call: &Call<'_>, args: Value) -> Reply {
        (self.run)(call, args)
    }

    /// Runs the tool across repositories; `None` when it does not run so.
    pub(crate) fn run_across(&self, call: &AcrossCall<'_>, args: Value) -> Option<Observation> {
        (self.across)(call, args)
    }
}

fn run_across<T: Tool>(call: &AcrossCall<'_>, args: Value) -> Option<Observation> {
    let across = T::ACROSS?;
    Some(match serde_json::from_value::<T::Params>(args) {
        Ok(params) => across(call, params),
        Err(err) => invalid::<T>(err),
    })
}

fn invalid<T: Tool>(err: serde_json::Error) -> Observation {
    let fields = schema::input::<T::Params>()
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let name = T::SPEC.name;
    Observation::error(format!("invalid arguments for {name}: {err}; its arguments are: {fields}"))
}

fn run_typed<T: Tool>(call: &Call<'_>, args: Value) -> Reply {
    match serde_json::from_value::<T::Params>(args) {
        Ok(params) => T::run(call, params),
        Err(err) => invalid::<T>(err).into(),
    }
}

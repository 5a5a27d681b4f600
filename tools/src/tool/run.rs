//! `run`: a shell command in the root, contained (`contain`) and killed on timeout or
//! cancellation, stdout and stderr merged in the order they were written.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::call_context::CallContext;
use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::process::{contain, seccomp};
use crate::tool::{Annotations, Call, Gate, Group, Reply, Spec, Tool, Work};
use crate::workspace::Workspace;

/// The longest timeout a call may ask for, in seconds.
pub const MAX_TIMEOUT_S: u64 = 600;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// The command line, run with `sh -c` in the repository root.
    pub command: String,
    /// Seconds before the command's process group is killed (default 120, at most 600).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub timeout_s: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RunOutput {
    /// The exit code; absent when the command was killed or died of a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True when the timeout killed the command.
    pub timed_out: bool,
    /// True when the client cancelled the call and the command was killed.
    pub cancelled: bool,
    /// Lines of output the command wrote (stdout and stderr together).
    pub output_lines: u64,
}

pub(crate) struct Run;

impl Tool for Run {
    type Params = RunParams;
    type Output = RunOutput;
    const SPEC: Spec = Spec {
        gate: Gate::Silent,
        work: Work::Waits,
        ..Spec::editor(
            "run",
            "Run a shell command",
            Group::Core,
            "Run a shell command (sh -c) in the repository root. First line `exit=N` or `timeout \
             after Ns`, then stdout and stderr merged in order. Long output keeps head and tail; the middle \
             stays readable with read_output.",
            Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
        )
    };

    fn run(call: &Call<'_>, params: RunParams) -> Reply {
        run(call.ws, params, call.ctx).into()
    }

    /// With what this machine's kernel does not enforce, made once.
    fn description() -> &'static str {
        static TEXT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
        TEXT.get_or_init(|| {
            let base = Self::SPEC.description;
            let caveats = contain::caveats(
                contain::containment(),
                contain::confines_writes(),
                seccomp::filters_syscalls(),
            );
            if caveats.is_empty() { base } else { Box::leak(format!("{base}{caveats}").into_boxed_str()) }
        })
    }

    /// A command that exits non-zero: its first error line, else its exit code.
    fn failure(observation: &Observation) -> Option<String> {
        let exit = observation.structured.as_ref()?["exit_code"].as_i64();
        if exit == Some(0) {
            return None;
        }
        // The first line is tack's status line; the command's output follows.
        let output = observation.text.split_once('\n').map_or("", |(_, rest)| rest);
        crate::harness::first_error_line(output).or_else(|| exit.map(|code| format!("exit={code}")))
    }

    fn guide(ws: &Workspace) -> Option<String> {
        let mut text = String::from(
            "run executes a shell command in the repository root with a timeout (tests, builds, git). ",
        );
        // What this kernel does not enforce is said in run's own description.
        if contain::containment().isolates_network() && !ws.config().run.network {
            text.push_str("Commands reach no network but their own localhost, so downloads fail. ");
        }
        if matches!(contain::containment(), contain::Containment::Namespaces { mounts: true, .. }) {
            text.push_str(
                "Commands see only the system, their toolchains, the repository and $TMPDIR (also /tmp). ",
            );
        }
        if contain::confines_writes() {
            text.push_str(if ws.config().run.writable.is_empty() {
                "Commands may write only inside the repository and $TMPDIR. "
            } else {
                "Commands may write only inside the repository, $TMPDIR and the folders the user allowed. "
            });
            let caches = ws.toolchain_caches();
            if !caches.is_empty() {
                let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
                let shown: Vec<String> = caches
                    .iter()
                    .map(|dir| match home.as_deref().and_then(|h| dir.strip_prefix(h).ok()) {
                        Some(rel) => format!("~/{}", rel.display()),
                        None => dir.display().to_string(),
                    })
                    .collect();
                let sees_layer =
                    matches!(contain::containment(), contain::Containment::Namespaces { mounts: true, .. });
                text.push_str(&if sees_layer {
                    format!(
                        "What they write to the toolchains' caches ({}) stays in tack's copy for this repository. ",
                        shown.join(", ")
                    )
                } else {
                    format!("They may also write the toolchains' caches: {}. ", shown.join(", "))
                });
            }
        }
        Some(text)
    }
}

fn run(ws: &Workspace, params: RunParams, ctx: &CallContext) -> Observation {
    let command = params.command.trim();
    if command.is_empty() {
        return Observation::error("cannot run an empty command; pass command=\"...\"");
    }
    if let Some(rule) = ws.denied(command) {
        return Observation::error(format!(
            "refused: the command matches the deny rule /{rule}/ ([run] deny in tack.toml); nothing was run. \
             If it must run, a person can run it outside tack"
        ));
    }
    let timeout_s = params.timeout_s.unwrap_or(ws.config().run.timeout_s).clamp(1, MAX_TIMEOUT_S);
    let execution = match crate::process::execute::execute(ws, command, timeout_s, ctx) {
        Ok(execution) => execution,
        Err(err) => return Observation::error(err.to_string()),
    };
    let exit_code = execution.exit_code();
    let timed_out = matches!(execution.end, crate::process::execute::End::TimedOut(_));
    let cancelled = matches!(execution.end, crate::process::execute::End::Cancelled);
    let mut text = execution.status_line();
    let body = execution.output;
    let removed = execution.removed;
    let output_lines = body.lines().count() as u64;
    text.push('\n');
    if body.is_empty() {
        text.push_str("(no output)\n");
    } else {
        text.push_str(&body);
        if !body.ends_with('\n') {
            text.push('\n');
        }
    }
    for line in &removed {
        text.push_str(line);
        text.push('\n');
    }
    let out = RunOutput { exit_code, timed_out, cancelled, output_lines };
    Observation::ok(text, json!(out))
}

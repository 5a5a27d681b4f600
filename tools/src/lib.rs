//! The agent-facing tools of tack: arguments in, a shaped [`Observation`] out.
//!
//! Layers, each using only those below it:
//! - [`Toolbox`] (`toolbox.rs`), the front door: looks a tool up in the catalogue, runs it,
//!   shapes the result, records the call;
//! - `tool/`: one type per tool behind the `Tool` trait, and `tool/catalog.rs`, the one list;
//! - `write/` (writer, patch format, text matching, syntax guard), `harness/` (gate, stall
//!   detector, trace, and `runners/`: the test runners and linters whose output `verify`
//!   reads), `process/` (running commands, containment), `observe/` (observations, caps,
//!   handles, lenient arguments, limits, redaction);
//! - [`Workspace`] (what every call shares) and [`Session`] (what one agent has).
//!
//! Nothing here names MCP: the server turns a [`ToolSpec`] into a protocol tool and an
//! [`Observation`] into a protocol result.

mod call_context;
mod harness;
mod observe;
mod process;
mod session;
mod tool;
mod toolbox;
mod workspace;
mod write;

pub use call_context::{CallContext, Progress};
pub use harness::runners::runner_names;
pub use harness::summarize_trace;
pub use observe::limits::Limits;
pub use observe::observation::Observation;
pub use observe::shape::{count_tokens, warm_tokenizer};
pub use process::contain::{Containment, confines_writes, containment};
pub use process::seccomp::filters_syscalls;
pub use session::{SavedSession, Session};
pub use tool::{Across, Annotations, Gate, Group, Overflow, Spec, ToolSpec, Work};
pub use toolbox::{CallOutcome, Profile, Toolbox};
pub use workspace::config::{
    CheckConfig, ClientLimit, Config, OutputConfig, RunConfig, StallConfig, VerifyConfig,
};
pub use workspace::path_guard::{PathError, ResolvedPath, Root};
pub use workspace::state_store::StateStore;
pub use workspace::{SearchIndexError, Workspace};
pub use write::files::{is_temp_name, version_of, write_atomic};

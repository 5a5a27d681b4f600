//! The agent-facing tools of tack: arguments in, a shaped [`Observation`] out.
//!
//! Nothing here names MCP: the server turns a [`ToolSpec`] into a protocol tool and an
//! [`Observation`] into a protocol result. Shaping (caps, handles) happens once, in
//! [`Toolbox::call`], so every tool obeys the same observation rules.

mod catalog;
mod checks;
mod config;
mod contain;
mod discover;
mod edit;
mod fsutil;
mod guard;
mod harness;
mod lenient;
mod limits;
mod matcher;
mod navigate;
mod observation;
mod outputs;
mod patch;
mod patch_tools;
#[cfg(test)]
mod proptests;
mod read_file;
mod read_output;
mod redact;
mod replace_symbol;
mod repo_map;
mod run;
mod search;
mod session;
mod shape;
mod state;
mod syntax_guard;
mod toolbox;
mod verify;
mod writer;

pub use catalog::{Annotations, Group, ToolSpec};
pub use config::{CheckConfig, ClientLimit, Config, OutputConfig, RunConfig, StallConfig, VerifyConfig};
pub use contain::{Containment, confines_writes, containment};
pub use fsutil::{is_temp_name, version_of};
pub use guard::{PathError, ResolvedPath, Root};
pub use harness::summarize_trace;
pub use limits::Limits;
pub use observation::Observation;
pub use session::Session;
pub use shape::count_tokens;
pub use toolbox::{CallContext, CallOutcome, Profile, Progress, Toolbox};

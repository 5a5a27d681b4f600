//! The agent-facing tools of tack: arguments in, a shaped [`Observation`] out.
//!
//! Nothing here names MCP: the server turns a [`ToolSpec`] into a protocol tool and an
//! [`Observation`] into a protocol result. Shaping (caps, handles) happens once, in
//! [`Toolbox::call`], so every tool obeys the same observation rules.

mod catalog;
mod config;
mod discover;
mod guard;
mod lenient;
mod navigate;
mod observation;
mod outputs;
mod read_file;
mod read_output;
mod repo_map;
mod run;
mod search;
mod session;
mod shape;
mod toolbox;

pub use catalog::{Annotations, Group, ToolSpec};
pub use config::{Config, OutputConfig, RunConfig};
pub use guard::{PathError, ResolvedPath, Root};
pub use observation::Observation;
pub use session::Session;
pub use shape::count_tokens;
pub use toolbox::{CallContext, CallOutcome, Profile, Progress, Toolbox};

//! tack's indexer: files → tree-sitter symbols → graph → ranks → repository map. Knows nothing
//! of MCP, async runtimes or processes.

mod error;

pub use error::Error;

pub mod beneath;
pub mod graph;
pub mod index;
pub mod lang;
pub mod map;
pub mod matcher;
pub mod names;
pub mod resolve;
pub mod search;
pub mod symbols;
pub mod syntax;
pub mod text;
pub mod walk;
pub mod worktree;

//! tack's indexer: files → tree-sitter symbols → graph → ranks. Knows nothing of MCP, async
//! runtimes or processes.

pub mod lang;
pub mod symbols;
pub mod syntax;
pub mod walk;

//! tack's indexer: files → tree-sitter symbols → graph → ranks → repository map. Knows nothing
//! of MCP, async runtimes or processes.
//!
//! The modules are private; what other crates use is re-exported here, so this file is the
//! whole public surface.

#![warn(unreachable_pub)]

mod beneath;
mod error;
mod graph;
mod index;
mod lang;
mod map;
mod matcher;
mod names;
mod rank;
mod resolve;
mod symbols;
mod syntax;
mod text;
mod walk;
mod worktree;

pub use error::Error;

// Files: which ones belong to the repository, and opening them beneath the root.
pub use beneath::{RootDir, special_kind};
pub use lang::Lang;
pub use walk::Filter;

// The index: snapshots of every file's symbols, kept in step with the files and saved.
pub use index::{
    Beside, FileEntry, Index, LoadOutcome, MAX_PARSE_BYTES, RefreshStats, Snapshot, default_store,
};
pub use worktree::{Donor, seed_search};

// One file's symbols, and the matcher that runs the query files over its tree.
pub use matcher::{Capture, Layout, Patterns};
pub use names::Pos;
pub use symbols::{Def, DefKind, FileSymbols, Ref, RefKind, extract, extract_from_tree, parse_only};
pub use syntax::{SyntaxIssue, syntax_issues};

// What names mean, and how files depend on each other.
pub use graph::{Ranks, SymbolGraph};
pub use resolve::{AtPosition, Hit, Relation, Resolution, Resolver, Target};

// The repository map, the search index and ranked search.
pub use map::{MapFile, MapSymbol, RepoMap, repo_map, repo_map_cached};
pub use rank::{
    Candidate, HitLine, TermWeights, Weights, best_lines, candidates, enclosing_symbol, keep_strong_hits,
    named_terms, query_terms,
};
pub use text::{SyncStats, TextIndex};

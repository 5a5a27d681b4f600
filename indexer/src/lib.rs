//! tack's indexer: files → tree-sitter symbols → graph → ranks → repository map. Knows nothing
//! of MCP, async runtimes or processes.
//!
//! The modules are private; what other crates use is re-exported here, so this file is the
//! whole public surface.

#![warn(unreachable_pub)]

// The modules in floors, each group importing only its own and the groups above it (a tidy test
// holds the import graph free of cycles). The ground floor: data and the vocabulary every
// floor speaks.
mod error;
mod meaning;
mod names;
mod snapshot;
mod symbols;
// Files and the query engine, which know no language.
mod beneath;
mod matcher;
mod walk;
// Every language's knowledge, behind `lang::Language`.
mod lang;
// Extraction and name resolution.
mod depth;
mod extract;
mod resolve;
mod syntax;
// What reads the resolved snapshot: the graph, the map, search.
mod forms;
mod fuzzy;
mod graph;
mod map;
mod rank;
mod text;
// The index on top: refreshing, saving, seeding from a sibling worktree.
mod bundle;
mod index;
mod store;
#[cfg(test)]
mod test_support;
mod worktree;

pub use error::Error;
pub use lang::{NO_CHECKED_PROJECT, ProjectCheck, check_runners, heading_at, project_checks};

// Files: which ones belong to the repository, and opening them beneath the root.
pub use beneath::{RootDir, read_bounded, special_kind};
pub use snapshot::Lang;
pub use walk::Filter;

// The index: snapshots of every file's symbols, kept in step with the files and saved.
pub use bundle::{BundleSummary, Refused, unpack_bundle, write_bundle};
pub use index::{Beside, Index, LoadOutcome, RefreshStats};
pub use snapshot::{FileEntry, MAX_PARSE_BYTES, Snapshot, shown_path};
pub use store::default_store;
pub use worktree::{Donor, seed_search};

// One file's symbols, and the matcher that runs the query files over its tree.
pub use depth::{MAX_NESTING, MAX_TREE_DEPTH};
pub use extract::{extract, extract_from_tree, parse_only};
pub use matcher::{Capture, Layout, Patterns};
pub use names::Pos;
pub use symbols::{Def, DefIter, DefKind, DefRef, DefText, Defs, FileSymbols, Names, Ref, RefKind, TooDeep};
pub use syntax::{SyntaxIssue, syntax_issues};

// What names mean, and how files depend on each other.
pub use graph::{Personal, Ranks, Share, SymbolGraph};
pub use meaning::Target;
pub use resolve::{AtPosition, Hit, Relation, Resolution, Resolver};

// The repository map, the search index and ranked search.
pub use fuzzy::{NameMatch, find_definitions};
pub use map::{MapFile, MapSymbol, RepoMap, repo_map, repo_map_cached};
pub use rank::{
    Candidate, HitLine, Qualified, QueryNames, TermWeights, Weights, best_lines, candidates,
    demote_versioned_copies, enclosing_function, enclosing_symbol, is_test_code, keep_strong_hits,
    named_terms, query_terms, query_words, term_weights,
};
pub use text::{QueryWord, SyncStats, TextIndex};

//! The indexer's one error type: each variant names the object that failed, and its message
//! says what failed and why, so a caller can show it as it is.

use std::path::{Path, PathBuf};

/// What can fail in the indexer. Messages are lowercase and end without a period. The
/// underlying error's message is part of the message, so it is not also a `source()`: a report
/// that prints the chain would say it twice.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The search index cannot be opened, made or rebuilt (`path: None`: the in-memory one).
    #[error("{} cannot be opened: {cause}", search_index(.path.as_deref()))]
    SearchIndexOpen { path: Option<PathBuf>, cause: Box<dyn std::error::Error + Send + Sync> },
    /// The search index cannot be brought in step with a snapshot.
    #[error("{} cannot be updated: {cause}", search_index(.path.as_deref()))]
    SearchIndexUpdate { path: Option<PathBuf>, cause: Box<dyn std::error::Error + Send + Sync> },
    /// A search of the search index failed.
    #[error("{} cannot be searched: {cause}", search_index(.path.as_deref()))]
    SearchIndexRead { path: Option<PathBuf>, cause: Box<dyn std::error::Error + Send + Sync> },
    /// Query source holds something tack's matcher cannot run; `reason` names the line.
    #[error("the query does not compile: {reason}")]
    Query { reason: String },
    /// An index bundle cannot be written.
    #[error("the bundle {} cannot be written: {cause}", .path.display())]
    Bundle { path: PathBuf, cause: String },
    /// An ignore glob (from `tack.toml`) does not parse.
    #[error("the ignore glob {glob:?} does not parse: {reason}")]
    IgnoreGlob { glob: String, reason: String },
}

/// The search index as a message names it.
fn search_index(path: Option<&Path>) -> String {
    match path {
        Some(path) => format!("the search index at {}", path.display()),
        None => "the in-memory search index".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_object_and_the_cause() {
        let cause = || "disk full".into();
        let open = Error::SearchIndexOpen { path: Some("/cache/search".into()), cause: cause() };
        assert_eq!(open.to_string(), "the search index at /cache/search cannot be opened: disk full");
        let update = Error::SearchIndexUpdate { path: None, cause: cause() };
        assert_eq!(update.to_string(), "the in-memory search index cannot be updated: disk full");
        let glob = Error::IgnoreGlob { glob: "src/[".into(), reason: "unclosed character class".into() };
        assert_eq!(glob.to_string(), "the ignore glob \"src/[\" does not parse: unclosed character class");
        assert!(std::error::Error::source(&open).is_none(), "the cause is in the message, once");
    }
}

//! `search` in its `text`, `regex` and `auto` modes: ripgrep's matcher over the files the
//! walker admits, one result per file, best first, totals always.

use std::path::PathBuf;
use std::sync::Mutex;

use globset::{Glob, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, SearcherBuilder, sinks::Lossy};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::lenient;
use crate::observation::Observation;
use crate::toolbox::Toolbox;

/// Files shown when the call names no limit.
pub const DEFAULT_LIMIT: u64 = 10;
/// The most files one call may ask for.
pub const MAX_LIMIT: u64 = 50;
/// Hit lines shown per file.
const HITS_PER_FILE: usize = 3;
/// A hit line is cut to this many characters.
const HIT_CHARS: usize = 200;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Auto,
    Text,
    Regex,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// What to look for: text, a regular expression (mode=regex), or words.
    pub query: String,
    /// How many files to show (default 10, at most 50).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub limit: Option<u64>,
    /// Only files whose path matches this glob (such as `src/**/*.py`) or lie under this folder.
    #[serde(default)]
    pub path: Option<String>,
    /// `auto` (default: the literal text, or when that is nowhere, its words), `text` (literal,
    /// case-insensitive unless the query has a capital) or `regex` (Rust regex syntax).
    #[serde(default)]
    pub mode: Option<Mode>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hit {
    /// 1-based line number.
    pub line: u64,
    /// The line's text, cut at 200 characters.
    pub text: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileResult {
    pub path: String,
    /// Higher is better; in text and regex modes, the number of matching lines.
    pub score: f64,
    pub hits: Vec<Hit>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOutput {
    /// Matching lines in all files.
    pub total_matches: u64,
    /// Files with at least one match.
    pub total_files: u64,
    /// One result per file, best first, at most `limit`.
    pub results: Vec<FileResult>,
}

/// One file's matches before ranking.
struct FileMatches {
    path: String,
    matches: u64,
    /// Distinct query words seen in the file (word fallback only).
    words: u64,
    hits: Vec<Hit>,
}

pub fn search(toolbox: &Toolbox, params: SearchParams) -> Observation {
    let query = params.query.trim();
    if query.is_empty() {
        return Observation::error("cannot search for an empty query; pass query=\"...\"");
    }
    let limit = params.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize;
    let mode = params.mode.unwrap_or_default();
    let scope = match Scope::new(toolbox, params.path.as_deref()) {
        Ok(scope) => scope,
        Err(obs) => return obs,
    };

    let matcher = match mode {
        Mode::Auto | Mode::Text => literal_matcher(query),
        Mode::Regex => RegexMatcherBuilder::new().build(query).map_err(|err| {
            format!("the regex does not parse: {err}; fix it, or use mode=text for a literal search")
        }),
    };
    let matcher = match matcher {
        Ok(matcher) => matcher,
        Err(msg) => return Observation::error(msg),
    };
    let mut found = scan(toolbox, &scope, &matcher, None);
    let mut by_words = false;
    if found.is_empty() && mode == Mode::Auto {
        let words = query_words(query);
        if words.len() > 1
            && let Ok(any) = literal_alternation(&words)
        {
            found = scan(toolbox, &scope, &any, Some(&words));
            by_words = true;
        }
    }
    // Best first: more distinct words, then more matching lines; the path breaks ties so the
    // order is the same on every run.
    found.sort_by(|a, b| b.words.cmp(&a.words).then(b.matches.cmp(&a.matches)).then(a.path.cmp(&b.path)));
    render(query, mode, by_words, limit, params.path.as_deref(), found)
}

/// Where to look: a folder to walk and an optional glob on root-relative paths.
struct Scope {
    dir: PathBuf,
    glob: Option<GlobMatcher>,
}

impl Scope {
    fn new(toolbox: &Toolbox, path: Option<&str>) -> Result<Self, Observation> {
        let root = toolbox.root().path().to_path_buf();
        let Some(path) = path.map(str::trim).filter(|p| !p.is_empty() && *p != "." && *p != "./") else {
            return Ok(Self { dir: root, glob: None });
        };
        if path.contains(['*', '?', '[', '{']) {
            let pattern = path.trim_start_matches("./");
            let glob = Glob::new(pattern).map_err(|err| {
                Observation::error(format!(
                    "path={path:?} is not a valid glob: {err}; try a form such as src/**/*.py"
                ))
            })?;
            return Ok(Self { dir: root, glob: Some(glob.compile_matcher()) });
        }
        let resolved =
            toolbox.root().resolve(path).map_err(|err| Observation::error(format!("cannot search {err}")))?;
        if !resolved.abs.exists() {
            return Err(Observation::error(format!(
                "cannot search {}: no such file or folder; pass a folder, a file, or a glob such as **/*.py",
                resolved.rel
            )));
        }
        Ok(Self { dir: resolved.abs, glob: None })
    }
}

fn literal_matcher(query: &str) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .case_smart(true)
        .fixed_strings(true)
        .build(query)
        .map_err(|err| format!("cannot search for {query:?}: {err}"))
}

fn literal_alternation(words: &[String]) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .case_insensitive(true)
        .fixed_strings(true)
        .build_literals(words)
        .map_err(|err| err.to_string())
}

/// Words of three or more characters, lowercased and without repeats, in query order.
fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let word = word.to_lowercase();
        if word.chars().count() >= 3 && !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

fn scan(
    toolbox: &Toolbox,
    scope: &Scope,
    matcher: &RegexMatcher,
    words: Option<&[String]>,
) -> Vec<FileMatches> {
    let results: Mutex<Vec<FileMatches>> = Mutex::new(Vec::new());
    let walker = toolbox.walk_builder(&scope.dir).threads(2).build_parallel();
    walker.run(|| {
        let results = &results;
        let mut searcher =
            SearcherBuilder::new().binary_detection(BinaryDetection::quit(0)).line_number(true).build();
        Box::new(move |entry| {
            let Ok(entry) = entry else { return WalkState::Continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some(rel) = toolbox.root().relative(entry.path()) else { return WalkState::Continue };
            if let Some(glob) = &scope.glob
                && !glob.is_match(&rel)
            {
                return WalkState::Continue;
            }
            let mut matches = 0u64;
            let mut hits = Vec::new();
            let mut seen_words: Vec<bool> = vec![false; words.map_or(0, |w| w.len())];
            let sink = Lossy(|line_no, line: &str| {
                matches += 1;
                if let Some(words) = words {
                    let lower = line.to_lowercase();
                    for (i, w) in words.iter().enumerate() {
                        if lower.contains(w.as_str()) {
                            seen_words[i] = true;
                        }
                    }
                }
                if hits.len() < HITS_PER_FILE {
                    hits.push(Hit { line: line_no, text: hit_text(line) });
                }
                Ok(true)
            });
            if searcher.search_path(matcher, entry.path(), sink).is_ok() && matches > 0 {
                let words = seen_words.iter().filter(|s| **s).count() as u64;
                results.lock().expect("results lock").push(FileMatches { path: rel, matches, words, hits });
            }
            WalkState::Continue
        })
    });
    results.into_inner().expect("results lock")
}

fn hit_text(line: &str) -> String {
    let line = line.trim_end_matches(['\n', '\r']);
    let trimmed = line.trim();
    if trimmed.chars().count() <= HIT_CHARS {
        return trimmed.to_string();
    }
    let cut: String = trimmed.chars().take(HIT_CHARS).collect();
    format!("{cut} …")
}

fn render(
    query: &str,
    mode: Mode,
    by_words: bool,
    limit: usize,
    path: Option<&str>,
    found: Vec<FileMatches>,
) -> Observation {
    let total_files = found.len() as u64;
    let total_matches: u64 = found.iter().map(|f| f.matches).sum();
    let mut text = format!("{total_matches} matches in {total_files} files\n");
    if by_words {
        text.push_str(&format!("(no file has {query:?} as written; these have the most of its words)\n"));
    }
    let mut shown: Vec<FileResult> = Vec::new();
    for f in found.into_iter().take(limit) {
        text.push_str(&format!("{} ({})\n", f.path, f.matches));
        let width = f.hits.iter().map(|h| h.line.to_string().len()).max().unwrap_or(1);
        for hit in &f.hits {
            text.push_str(&format!("  {:>width$}: {}\n", hit.line, hit.text));
        }
        let score = if by_words { (f.words * 1_000_000 + f.matches) as f64 } else { f.matches as f64 };
        shown.push(FileResult { path: f.path, score, hits: f.hits });
    }
    let more = total_files as usize - shown.len();
    if total_files == 0 {
        let scope = path.map(|p| format!(" under {p}")).unwrap_or_default();
        let case = if mode != Mode::Regex && query.chars().any(char::is_uppercase) {
            " (the query has capitals, so case must match)"
        } else {
            ""
        };
        text.push_str(&format!(
            "no file{scope} contains it{case}; files ignored by .gitignore and hidden files are not searched"
        ));
        text.push('\n');
    } else if more > 0 {
        text.push_str(&format!(
            "… {more} more files; narrow with path= (a folder or a glob such as src/**/*.py) or a more specific query\n"
        ));
    }
    let out = SearchOutput { total_matches, total_files, results: shown };
    Observation::ok(text, json!(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_skip_short_and_repeated_words() {
        assert_eq!(
            query_words("The parser fails on an empty parser input"),
            vec!["the", "parser", "fails", "empty", "input"]
        );
        assert_eq!(query_words("read_to_end()"), vec!["read_to_end"]);
    }

    #[test]
    fn hit_text_is_trimmed_and_cut() {
        assert_eq!(hit_text("    return x\n"), "return x");
        let long = "y".repeat(300);
        assert_eq!(hit_text(&long).chars().count(), HIT_CHARS + 2);
    }
}

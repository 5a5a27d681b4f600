//! `search`: `auto` ranks files for a bug report, a phrase or identifiers (BM25 over the text
//! index with structure, in `tack_indexer::search`); `text` and `regex` run ripgrep's matcher
//! over the files the walker admits. One result per file, best first, totals always, and every
//! hit line names its enclosing symbol.

use std::path::PathBuf;
use std::sync::Mutex;

use globset::{Glob, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, SearcherBuilder, sinks::Lossy};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_indexer::{
    Candidate, HitLine, QueryNames, QueryWord, Snapshot, TermWeights, Weights, best_lines, candidates,
    demote_versioned_copies, enclosing_symbol, keep_strong_hits, query_terms, query_words, shown_path,
};

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::tool::{AcrossCall, Call, Group, Reply, Spec, Tool};
use crate::workspace::Workspace;

/// The most files one call may ask for.
pub const MAX_LIMIT: u64 = 50;
/// The longest query searched, in bytes: a query's terms, its regex or its literal are built
/// in memory many times its size, and no question needs more.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;
/// Hit lines shown per file.
const HITS_PER_FILE: usize = 3;
/// A hit line is cut to this many characters.
const HIT_CHARS: usize = 160;
/// The most memory one file's scan may take for its buffer, and so the longest line it reads:
/// a file with a longer line (minified, generated, a data dump) is not searched and the result
/// says so. Unbounded, a 500 MB file of one line took 1.3 GB.
const MAX_LINE_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Auto,
    Text,
    Regex,
    Symbol,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    /// A phrase or identifiers (auto); literal text (text); a regular expression (regex).
    pub query: String,
    /// How many files to show (default 10, at most 50).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub limit: Option<u64>,
    /// A folder, or a glob such as `src/**/*.py`, to search within.
    #[serde(default)]
    pub path: Option<String>,
    /// `auto` (default: files ranked for the words and identifiers), `text` (literal lines,
    /// case-insensitive unless the query has a capital), `regex` (Rust syntax) or `symbol`
    /// (definitions by name: exact, prefix, camel humps such as `CA` for `CartAdapter`, fuzzy).
    #[serde(default)]
    pub mode: Option<Mode>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Hit {
    /// 1-based line number.
    pub line: u64,
    /// The line's text, trimmed and cut at 160 characters.
    pub text: String,
    /// The innermost definition containing the line, by qualified name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileResult {
    pub path: String,
    /// The repository the file is in, when several were searched (`repo="*"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// Higher is better: the ranking score (auto) or the number of matching lines (text, regex).
    pub score: f64,
    pub hits: Vec<Hit>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOutput {
    /// Matching lines (text, regex), or the query terms each matching file holds, summed (auto).
    pub total_matches: u64,
    /// Files with at least one match.
    pub total_files: u64,
    /// One result per file, best first, at most `limit`.
    pub results: Vec<FileResult>,
}

pub(crate) struct Search;

impl Tool for Search {
    type Params = SearchParams;
    type Output = SearchOutput;
    const SPEC: Spec = Spec::reader(
        "search",
        "Search code",
        Group::Core,
        "Search the repository: by default rank files for a phrase or identifiers; mode=text literal \
             lines, mode=regex a regex, mode=symbol definitions by name. Files best first, with numbered \
             hit lines and their enclosing symbol. path= narrows to a folder or glob.",
    );

    fn run(call: &Call<'_>, params: SearchParams) -> Reply {
        search(call.ws, params, call.limits.search_limit).into()
    }

    const ACROSS: Option<fn(&AcrossCall<'_>, SearchParams) -> Observation> = Some(search_across);

    fn guide(_ws: &Workspace) -> Option<String> {
        Some(
            "For a phrase, an error or identifiers, search ranks the files they are about, each with its best \
             lines; mode=text or mode=regex lists matching lines, like rg. "
                .into(),
        )
    }
}

fn search(ws: &Workspace, params: SearchParams, default_limit: u64) -> Observation {
    match find(ws, &params, default_limit) {
        Ok(found) => found.render(params.query.trim(), None),
        Err(obs) => obs,
    }
}

/// What one workspace's search found, before it is written out.
struct Found {
    out: SearchOutput,
    mode: Mode,
    /// The `path=` the search was narrowed to.
    label: Option<String>,
    /// Files not searched: a line longer than [`MAX_LINE_BYTES`].
    too_long: Vec<String>,
}

impl Found {
    /// The text an agent reads; `across` names the repositories searched, when there were several.
    fn render(self, query: &str, across: Option<&[String]>) -> Observation {
        let Found { out, mode, label, mut too_long } = self;
        let mut obs = render(query, mode, label.as_deref(), out, across);
        if !too_long.is_empty() {
            too_long.sort();
            let n = too_long.len();
            let shown: Vec<&str> = too_long.iter().take(5).map(String::as_str).collect();
            let more = if n > 5 { format!(" and {} more", n - 5) } else { String::new() };
            obs.text.push_str(&format!(
                "{n} {} not searched: a line longer than {} KiB ({}{more}); grep one with run if it matters\n",
                if n == 1 { "file was" } else { "files were" },
                MAX_LINE_BYTES >> 10,
                shown.join(", ")
            ));
        }
        obs
    }
}

fn find(ws: &Workspace, params: &SearchParams, default_limit: u64) -> Result<Found, Observation> {
    let query = params.query.trim();
    if query.is_empty() {
        return Err(Observation::error("cannot search for an empty query; pass query=\"...\""));
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(Observation::error(format!(
            "the query is {} bytes; search takes at most {MAX_QUERY_BYTES} (16 KB): pass the words or \
             identifiers that matter, or give a long report to context, which cuts it itself",
            query.len()
        )));
    }
    let limit = params.limit.unwrap_or(default_limit).clamp(1, MAX_LIMIT) as usize;
    let mode = params.mode.unwrap_or_default();
    let scope = Scope::new(ws, params.path.as_deref())?;
    let label = scope.label.clone();
    let found = |out| Ok(Found { out, mode, label: label.clone(), too_long: Vec::new() });
    let snapshot = ws.index().snapshot();
    if mode == Mode::Symbol {
        return found(by_symbol(&snapshot, &scope, query, limit));
    }
    if mode == Mode::Auto {
        let terms = query_terms(query);
        // A query of punctuation only (`->`, `::`) has no terms: search it literally.
        if !terms.is_empty() {
            match ranked(ws, &snapshot, &scope, query, &terms, limit) {
                Ok(out) => return found(out),
                // The literal search still answers; the log says why ranking did not.
                Err(err) => tracing::warn!("ranked search failed, searching literally: {err}"),
            }
        }
    }
    let matcher = match mode {
        Mode::Auto | Mode::Text | Mode::Symbol => literal_matcher(query),
        Mode::Regex => RegexMatcherBuilder::new().build(query).map_err(|err| {
            format!("the regex does not parse: {err}; fix it, or use mode=text for a literal search")
        }),
    };
    let matcher = matcher.map_err(Observation::error)?;
    let (mut found, too_long) = scan(ws, &scope, &matcher);
    // Best first: more matching lines; the path breaks ties so the order is stable.
    found.sort_by(|a, b| b.matches.cmp(&a.matches).then(a.path.cmp(&b.path)));
    let total_files = found.len() as u64;
    let total_matches: u64 = found.iter().map(|f| f.matches).sum();
    let results = found
        .into_iter()
        .take(limit)
        .map(|f| {
            let entry = snapshot.files.get(&f.path);
            let hits = f
                .hits
                .into_iter()
                .map(|(line, text)| Hit {
                    line,
                    text,
                    symbol: entry.and_then(|e| enclosing_symbol(e, line as u32)),
                })
                .collect();
            FileResult { path: f.path, repo: None, score: f.matches as f64, hits }
        })
        .collect();
    Ok(Found { out: SearchOutput { total_matches, total_files, results }, mode, label, too_long })
}

/// `search` across repositories: each one searched in turn with the same arguments, then one
/// list, best first. Ranked scores (and counts of matching lines) compare across repositories;
/// definitions by name take turns, each repository's best first.
fn search_across(call: &AcrossCall<'_>, params: SearchParams) -> Observation {
    let (found, failed) = call.each(|ws| find(ws, &params, call.limits.search_limit));
    let names = call.repos.names;
    let mut lists = Vec::new();
    let mut refused: Vec<(usize, Observation)> = Vec::new();
    for (at, result) in found {
        match result {
            Ok(found) => lists.push((at, found)),
            Err(obs) => refused.push((at, obs)),
        }
    }
    if lists.is_empty() {
        // The same refusal everywhere (an empty query, a regex that does not parse) is said once.
        return match refused.into_iter().next() {
            Some((_, obs)) => obs,
            None => Observation::error(format!("no repository could be searched: {}", failed.join("; "))),
        };
    }
    let limit = params.limit.unwrap_or(call.limits.search_limit).clamp(1, MAX_LIMIT) as usize;
    let mode = lists[0].1.mode;
    let mut total_matches = 0;
    let mut total_files = 0;
    let mut too_long = Vec::new();
    let mut queues: Vec<std::collections::VecDeque<FileResult>> = Vec::new();
    for (at, found) in &mut lists {
        total_matches += found.out.total_matches;
        total_files += found.out.total_files;
        too_long.extend(found.too_long.drain(..).map(|path| format!("[{}] {path}", names[*at])));
        queues.push(
            std::mem::take(&mut found.out.results)
                .into_iter()
                .map(|result| FileResult { repo: Some(names[*at].clone()), ..result })
                .collect(),
        );
    }
    let mut results = Vec::new();
    let mut turn = 0;
    while results.len() < limit {
        // Each list keeps its own order; the next result is the best of the lists' heads.
        let next = if mode == Mode::Symbol {
            (0..queues.len()).map(|k| (turn + k) % queues.len()).find(|&k| !queues[k].is_empty())
        } else {
            (0..queues.len())
                .filter(|&k| !queues[k].is_empty())
                .max_by(|&a, &b| queues[a][0].score.total_cmp(&queues[b][0].score).then(b.cmp(&a)))
        };
        let Some(k) = next else { break };
        results.extend(queues[k].pop_front());
        turn = k + 1;
    }
    let mut searched: Vec<String> = lists.iter().map(|(at, _)| names[*at].clone()).collect();
    searched.sort();
    let label = lists[0].1.label.clone();
    let mut obs = Found { out: SearchOutput { total_matches, total_files, results }, mode, label, too_long }
        .render(params.query.trim(), Some(&searched));
    let mut skipped: Vec<String> = failed;
    skipped.extend(
        refused
            .into_iter()
            .map(|(at, obs)| format!("{}: {}", names[at], obs.text.lines().next().unwrap_or_default())),
    );
    if !skipped.is_empty() {
        obs.text.push_str(&format!("not searched: {}\n", skipped.join("; ")));
    }
    obs
}

/// The files a query ranks, best first, each with its score; every file is a candidate the
/// `admits` filter lets through and a field of which matches.
pub(crate) struct RankedFiles {
    pub text: std::sync::Arc<tack_indexer::TextIndex>,
    /// The query's words with their forms and weights, as the files were ranked by them.
    pub words: Vec<QueryWord>,
    pub files: Vec<(f64, Candidate)>,
}

/// What a versioned copy of a better file loses ([`demote_versioned_copies`]): as much as a test.
const VERSIONED_COPY: f64 = 1.0;

/// `auto` mode's ranking of files, shared by `search` and `context`.
pub(crate) fn rank_files(
    ws: &Workspace,
    snapshot: &Snapshot,
    admits: &dyn Fn(&str) -> bool,
    query: &str,
    terms: &[String],
) -> Result<RankedFiles, String> {
    let text = ws.text_index(snapshot).map_err(|err| err.to_string())?;
    let weights = Weights::for_query(query, terms);
    let named = QueryNames::of(query);
    let words = query_words(&text, query, terms).map_err(|err| err.to_string())?;
    let found =
        candidates(snapshot, &text, &words, &named, weights.pagerank > 0.0).map_err(|err| err.to_string())?;
    let mut scored: Vec<(f64, Candidate)> = found
        .into_iter()
        .filter(|c| admits(&c.path))
        .filter(|c| c.body + c.defs + c.path_match + c.docs > 0.0)
        .map(|c| (c.score(&weights), c))
        .collect();
    // A query about one identifier puts the files defining it first.
    let sought = sought_identifier(query);
    let name = sought.map(|s| s.rsplit(['.', ':', '#']).next().unwrap_or(s));
    let defines = |path: &str| {
        name.is_some_and(|name| {
            snapshot.files.get(path).is_some_and(|e| e.symbols.defs.iter().any(|d| d.name() == name))
        })
    };
    // A query naming a diagnostic's code puts the few source files that write its number first
    // (a changelog that lists the code does not raise it).
    let codes: Vec<String> =
        terms.iter().filter(|t| t.bytes().all(|b| b.is_ascii_digit())).cloned().collect();
    let raising: Vec<String> = if codes.is_empty() {
        Vec::new()
    } else {
        let per_file = text.terms_per_file(&codes).map_err(|err| err.to_string())?;
        let sources: Vec<String> = per_file.into_keys().filter(|p| snapshot.files.contains_key(p)).collect();
        if sources.len() <= MOST_RAISING { sources } else { Vec::new() }
    };
    let raises = |path: &str| raising.iter().any(|p| p == path);
    let order = |scored: &mut Vec<(f64, Candidate)>| {
        scored.sort_by(|a, b| {
            defines(&b.1.path)
                .cmp(&defines(&a.1.path))
                .then(raises(&b.1.path).cmp(&raises(&a.1.path)))
                .then(b.0.total_cmp(&a.0))
                .then(a.1.path.cmp(&b.1.path))
        });
    };
    order(&mut scored);
    if demote_versioned_copies(&mut scored, VERSIONED_COPY) {
        order(&mut scored);
    }
    Ok(RankedFiles { text, words, files: scored })
}

/// Most files that may write a diagnostic's number for them to be where it is raised: more
/// write it as some other number.
const MOST_RAISING: usize = 3;

/// Most words a query may write beside an identifier in backticks and still be about it alone.
const MOST_WORDS_BESIDE: usize = 5;

/// The identifier a query is about, when it is about one: the query itself when it is one
/// identifier (`Rack::Multipart::UploadedFile`), or the one it writes in backticks among at most
/// [`MOST_WORDS_BESIDE`] other words (`` `bats_pipe` implementation ``, ``where is `Unit`
/// defined``). A longer question or a report is about more than a name it quotes.
fn sought_identifier(query: &str) -> Option<&str> {
    let query = query.trim();
    let identifier = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || "_.:#".contains(c));
    if !query.contains(char::is_whitespace) && identifier(query) {
        return Some(query);
    }
    let parts: Vec<&str> = query.split('`').collect();
    // One span in backticks: text, code, text.
    let [before, code, after] = parts.as_slice() else { return None };
    let words = before.split_whitespace().count() + after.split_whitespace().count();
    (identifier(code) && words <= MOST_WORDS_BESIDE && !query.contains('\n')).then_some(*code)
}

/// The `auto` mode: every candidate file scored, the best `limit` with their best lines.
fn ranked(
    ws: &Workspace,
    snapshot: &Snapshot,
    scope: &Scope,
    query: &str,
    terms: &[String],
    limit: usize,
) -> Result<SearchOutput, String> {
    let RankedFiles { text, words, files: scored } =
        rank_files(ws, snapshot, &|p| scope.admits(p), query, terms)?;
    let total_files = scored.len() as u64;
    let per_file = text.terms_per_file(terms).map_err(|err| err.to_string())?;
    let total_matches: u64 =
        scored.iter().map(|(_, c)| per_file.get(&c.path).copied().unwrap_or(0) as u64).sum();
    let line_weights = TermWeights::new(&text, &words).naming(query);
    let shown: Vec<(f64, Candidate)> = scored.into_iter().take(limit).collect();
    let mut lines: Vec<Vec<HitLine>> = shown
        .iter()
        .map(|(_, c)| {
            snapshot
                .entry(&c.path)
                .map(|entry| best_lines(ws.root().path(), entry, &line_weights, HITS_PER_FILE))
                .unwrap_or_default()
        })
        .collect();
    keep_strong_hits(&mut lines);
    let results = shown
        .into_iter()
        .zip(lines)
        .map(|((score, c), lines)| {
            let hits = lines
                .into_iter()
                .map(|h| Hit { line: h.line as u64, text: hit_text(&h.text), symbol: h.symbol })
                .collect();
            FileResult { path: c.path, repo: None, score: (score * 1000.0).round() / 1000.0, hits }
        })
        .collect();
    Ok(SearchOutput { total_matches, total_files, results })
}

/// The `symbol` mode: definitions whose names match, grouped by file in the order of each file's
/// best match; each hit is a definition's line, naming the definition.
fn by_symbol(snapshot: &Snapshot, scope: &Scope, query: &str, limit: usize) -> SearchOutput {
    let found: Vec<_> =
        tack_indexer::find_definitions(snapshot, query).into_iter().filter(|f| scope.admits(f.2)).collect();
    let total_matches = found.len() as u64;
    let mut order: Vec<&str> = Vec::new();
    let mut by_file: std::collections::HashMap<&str, Vec<Hit>> = std::collections::HashMap::new();
    for (_, _, path, def) in &found {
        let hits = by_file.entry(path).or_insert_with(|| {
            order.push(path);
            Vec::new()
        });
        if hits.len() < HITS_PER_FILE {
            hits.push(Hit {
                line: def.line as u64,
                text: hit_text(def.header()),
                symbol: Some(def.qualified().to_string()),
            });
        }
    }
    let total_files = order.len() as u64;
    let results = order
        .iter()
        .take(limit)
        .enumerate()
        .map(|(rank, path)| FileResult {
            path: path.to_string(),
            repo: None,
            score: (total_files as usize - rank) as f64,
            hits: by_file.remove(path).unwrap_or_default(),
        })
        .collect();
    SearchOutput { total_matches, total_files, results }
}

/// Where to look: a folder to walk and an optional glob on root-relative paths.
struct Scope {
    dir: PathBuf,
    /// The folder relative to the root, when narrowed to one.
    prefix: Option<String>,
    glob: Option<GlobMatcher>,
    label: Option<String>,
}

impl Scope {
    fn new(ws: &Workspace, path: Option<&str>) -> Result<Self, Observation> {
        let root = ws.root().path().to_path_buf();
        let Some(path) = path.map(str::trim).filter(|p| !p.is_empty() && *p != "." && *p != "./") else {
            return Ok(Self { dir: root, prefix: None, glob: None, label: None });
        };
        let label = Some(path.to_string());
        if path.contains(['*', '?', '[', '{']) {
            let pattern = path.trim_start_matches("./");
            let glob = Glob::new(pattern).map_err(|err| {
                Observation::error(format!(
                    "path={path:?} is not a valid glob: {err}; try a form such as src/**/*.py"
                ))
            })?;
            return Ok(Self { dir: root, prefix: None, glob: Some(glob.compile_matcher()), label });
        }
        let resolved =
            ws.root().resolve(path).map_err(|err| Observation::error(format!("cannot search {err}")))?;
        if !resolved.abs.exists() {
            return Err(Observation::error(format!(
                "cannot search {}: no such file or folder; pass a folder, a file, or a glob such as **/*.py",
                resolved.rel
            )));
        }
        let prefix = (resolved.rel != ".").then(|| resolved.rel.clone());
        Ok(Self { dir: resolved.abs, prefix, glob: None, label })
    }

    /// Whether a root-relative path is inside the scope.
    fn admits(&self, rel: &str) -> bool {
        if let Some(glob) = &self.glob {
            return glob.is_match(rel);
        }
        match &self.prefix {
            Some(prefix) => {
                rel == prefix || rel.strip_prefix(prefix.as_str()).is_some_and(|r| r.starts_with('/'))
            }
            None => true,
        }
    }
}

fn literal_matcher(query: &str) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .case_smart(true)
        .fixed_strings(true)
        .build(query)
        .map_err(|err| format!("cannot search for {query:?}: {err}"))
}

/// One file's matches in text and regex modes.
struct FileMatches {
    path: String,
    matches: u64,
    hits: Vec<(u64, String)>,
}

/// Each file's matches, and the files not searched because a line was over [`MAX_LINE_BYTES`].
fn scan(ws: &Workspace, scope: &Scope, matcher: &RegexMatcher) -> (Vec<FileMatches>, Vec<String>) {
    let results: Mutex<Vec<FileMatches>> = Mutex::new(Vec::new());
    let too_long: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let walker = ws.walk_builder(&scope.dir).threads(2).build_parallel();
    walker.run(|| {
        let results = &results;
        let too_long = &too_long;
        // The buffer holds at least one whole line; the heap limit keeps a file's memory to it.
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .heap_limit(Some(MAX_LINE_BYTES))
            .build();
        Box::new(move |entry| {
            let Ok(entry) = entry else { return WalkState::Continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some(rel) = ws.root().relative(entry.path()) else { return WalkState::Continue };
            if !scope.admits(&rel) {
                return WalkState::Continue;
            }
            let mut matches = 0u64;
            let mut hits = Vec::new();
            let sink = Lossy(|line_no, line: &str| {
                matches += 1;
                if hits.len() < HITS_PER_FILE {
                    hits.push((line_no, hit_text(line)));
                }
                Ok(true)
            });
            // Opened beneath the root's descriptor: a folder swapped for a link during the walk
            // cannot bring an outside file's lines in.
            let Ok(file) = ws.root().dir().open_file(&rel) else { return WalkState::Continue };
            match searcher.search_file(matcher, &file, sink) {
                Ok(()) if matches > 0 => {
                    results.lock().expect("results lock").push(FileMatches { path: rel, matches, hits })
                }
                Ok(()) => {}
                // The line buffer would have to grow past the heap limit. Anything else (a file
                // that vanished or cannot be read) leaves the file out, as before.
                Err(err) if err.to_string().contains("allocation limit") => {
                    too_long.lock().expect("too-long lock").push(rel)
                }
                Err(_) => {}
            }
            WalkState::Continue
        })
    });
    (results.into_inner().expect("results lock"), too_long.into_inner().expect("too-long lock"))
}

fn hit_text(line: &str) -> String {
    let trimmed = line.trim_end_matches(['\n', '\r']).trim();
    if trimmed.chars().count() <= HIT_CHARS {
        return trimmed.to_string();
    }
    let cut: String = trimmed.chars().take(HIT_CHARS).collect();
    format!("{cut} …")
}

fn render(
    query: &str,
    mode: Mode,
    path: Option<&str>,
    out: SearchOutput,
    across: Option<&[String]>,
) -> Observation {
    let mut text = format!("{} matches in {} files", out.total_matches, out.total_files);
    if let Some(names) = across {
        text.push_str(&format!(
            " of {} {} ({})",
            names.len(),
            if names.len() == 1 { "repository" } else { "repositories" },
            names.join(", ")
        ));
    }
    text.push('\n');
    for result in &out.results {
        let shown = match &result.repo {
            Some(repo) => format!("[{repo}] {}", shown_path(&result.path)),
            None => shown_path(&result.path).to_string(),
        };
        match mode {
            Mode::Auto | Mode::Symbol => text.push_str(&format!("{shown}\n")),
            _ => text.push_str(&format!("{shown} ({})\n", result.score as u64)),
        }
        let width = result.hits.iter().map(|h| h.line.to_string().len()).max().unwrap_or(1);
        for hit in &result.hits {
            match &hit.symbol {
                Some(symbol) => {
                    text.push_str(&format!("  {:>width$}: {}  # in {symbol}\n", hit.line, hit.text))
                }
                None => text.push_str(&format!("  {:>width$}: {}\n", hit.line, hit.text)),
            }
        }
    }
    let more = out.total_files as usize - out.results.len();
    if out.total_files == 0 {
        let scope = path.map(|p| format!(" under {p}")).unwrap_or_default();
        let case = if mode != Mode::Regex && query.chars().any(char::is_uppercase) && mode == Mode::Text {
            " (the query has capitals, so case must match)"
        } else {
            ""
        };
        if mode == Mode::Symbol {
            text.push_str(&format!(
                "no definition{scope} is named like it; mode=auto finds it in code and comments\n"
            ));
        } else {
            text.push_str(&format!(
                "no file{scope} contains it{case}; files ignored by .gitignore and hidden files are not searched\n"
            ));
        }
    } else if more > 0 {
        text.push_str(&format!(
            "… {more} more files; narrow with path= (a folder or a glob such as src/**/*.py) or a more specific query\n"
        ));
    }
    if across.is_some() && !out.results.is_empty() {
        text.push_str("[name] is the file's repository: pass repo=\"name\" to read, edit or search in it\n");
    }
    Observation::ok(text, json!(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_about_one_identifier_when_it_is_one_or_quotes_one_among_few_words() {
        assert_eq!(sought_identifier("Rack::Multipart::UploadedFile"), Some("Rack::Multipart::UploadedFile"));
        assert_eq!(sought_identifier("`bats_pipe` implementation"), Some("bats_pipe"));
        assert_eq!(sought_identifier("where is the `Unit` type defined"), Some("Unit"));
        // Six words beside it: a question about more than the name.
        assert_eq!(sought_identifier("why does `parse` drop the last entry"), None);
        assert_eq!(sought_identifier("`a` and `b`"), None);
        assert_eq!(sought_identifier("`not an identifier` here"), None);
        assert_eq!(sought_identifier("`parse` fails\nwith a long body"), None);
        assert_eq!(sought_identifier("parse config"), None);
    }

    #[test]
    fn hit_text_is_trimmed_and_cut() {
        assert_eq!(hit_text("    return x\n"), "return x");
        let long = "y".repeat(300);
        assert_eq!(hit_text(&long).chars().count(), HIT_CHARS + 2);
    }
}

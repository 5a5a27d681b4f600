//! Ranked search: BM25 over the text index's fields combined with structure (definition names,
//! path, PageRank personalized by the query's identifiers, the graph neighbourhood of strong
//! hits), and the best hit lines of each file with their enclosing symbol.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use petgraph::visit::EdgeRef;

use crate::index::{FileEntry, Snapshot};
use crate::text::{TextIndex, code_terms};

/// Words that carry no meaning in a bug report or a code query.
const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "was", "were", "be",
    "been", "it", "its", "this", "that", "as", "at", "by", "from", "not", "no", "but", "if", "then", "else",
    "when", "into", "than", "so", "such", "can", "will", "would", "should", "could", "may", "might", "do",
    "does", "did", "has", "have", "had", "we", "you", "they", "he", "she", "them", "our", "your", "their",
    "my", "me", "us", "there", "here", "which", "what", "who", "how", "why", "all", "any", "some", "also",
    "just", "only", "now", "use", "used", "using", "get", "set", "fix", "fixes", "fixed", "add", "adds",
    "added", "make", "makes", "new", "one", "two", "more", "most", "other", "out", "up", "via", "per",
    "like", "need", "needs", "don", "doesn", "isn", "t", "s",
];

/// The weights of the ranking formula ([`Candidate::score`]: a weighted sum of the fields, each
/// normalized by the best candidate, less a penalty for test, example and bench paths), chosen
/// by a grid search on the localization development set (`bench/tune_search.py`; every positive
/// PageRank weight lowered Acc@1), never by hand on one example.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    pub body: f64,
    pub defs: f64,
    pub path: f64,
    pub docs: f64,
    pub pagerank: f64,
    pub neighbors: f64,
    pub test_penalty: f64,
}

impl Weights {
    /// The weights for a query: a short one that asks about tests ("tests for the parser") does
    /// not push tests down. A long report that mentions tests in passing ("fix X, add tests") is
    /// still about the code: on the development set lifting the penalty there cost 3 points.
    pub fn for_terms(terms: &[String]) -> Weights {
        let mut w = Weights::DEFAULT;
        let about_tests =
            terms.iter().any(|t| matches!(t.as_str(), "test" | "tests" | "testing" | "pytest" | "conftest"));
        if about_tests && terms.len() <= 6 {
            w.test_penalty = 0.0;
        }
        w
    }

    pub const DEFAULT: Weights = Weights {
        body: 1.0,
        defs: 0.25,
        path: 0.15,
        docs: 0.1,
        pagerank: 0.0,
        neighbors: 0.1,
        test_penalty: 1.0,
    };
}

/// One file's features, each normalized to [0, 1] within the query's candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub path: String,
    pub body: f64,
    pub defs: f64,
    pub path_match: f64,
    pub docs: f64,
    /// PageRank personalized by the query's identifiers, relative to the best candidate.
    pub pagerank: f64,
    /// The strongest lexical match among the files it references or is referenced by.
    pub neighbors: f64,
    /// A test, an example, a benchmark or a generated bundle: ranked below the code.
    pub is_test: bool,
}

impl Candidate {
    pub fn score(&self, w: &Weights) -> f64 {
        w.body * self.body
            + w.defs * self.defs
            + w.path * self.path_match
            + w.docs * self.docs
            + w.pagerank * self.pagerank
            + w.neighbors * self.neighbors
            - if self.is_test { w.test_penalty } else { 0.0 }
    }
}

/// The distinct terms of a query: identifiers whole and split, lowercased, without stop words
/// and one-letter parts. HTML comments are left out: in a pasted issue or pull request they
/// hold the template's instructions (`<!-- Don't forget to add tests ... cargo clippy ... -->`),
/// the same words in every report, never what the report is about.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    code_terms(&without_html_comments(query), |term, _, _, _| {
        if term.len() > 1
            && !STOP.contains(&term)
            && !term.bytes().all(|b| b.is_ascii_digit())
            && seen.insert(term.to_string())
        {
            out.push(term.to_string());
        }
    });
    out
}

/// `text` less its `<!-- ... -->` spans; a comment left open runs to the end. Text with no
/// comment is returned as it is.
fn without_html_comments(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("<!--") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        // A space keeps the words on either side apart.
        out.push(' ');
        rest = match rest[start + 4..].find("-->") {
            Some(end) => &rest[start + 4 + end + 3..],
            None => "",
        };
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Whether a path looks like a test, an example, a benchmark or a documentation website's
/// sources (`www/`, `website/`) rather than the code under it.
pub(crate) fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/').peekable();
    let mut dirs = Vec::new();
    let mut file = "";
    while let Some(part) = parts.next() {
        if parts.peek().is_some() {
            dirs.push(part);
        } else {
            file = part;
        }
    }
    dirs.iter().any(|d| {
        matches!(
            *d,
            "tests" | "test" | "testing" | "benches" | "bench" | "examples" | "fuzz" | "www" | "website"
        )
    }) || file.starts_with("test_")
        || crate::lang::specs().any(|spec| {
            spec.test_file_suffixes.iter().any(|suffix| file.ends_with(suffix))
                || spec.test_file_names.contains(&file)
        })
}

/// Whether a file looks generated as one long run of code rather than written: a minified
/// bundle (`jquery-1.7.min.js` among a Java project's Javadoc assets) averages hundreds of bytes
/// a line. Ranked as a test is, below the code.
pub(crate) fn is_bundle(entry: &FileEntry) -> bool {
    entry.size >= 8 * 1024 && entry.size / u64::from(entry.lines.max(1)) >= 300
}

/// Every file matching the query, with its features. Files are candidates when a field matches
/// or when they neighbour one of the ten strongest lexical matches. The personalized PageRank
/// (a power iteration over every edge) is computed only when `with_pagerank` asks for it: with
/// the chosen weight of 0 a query should not pay for it; the tuning dump does.
pub fn candidates(
    snapshot: &Snapshot,
    text: &TextIndex,
    terms: &[String],
    with_pagerank: bool,
) -> Result<Vec<Candidate>, crate::Error> {
    let fields = text.fields();
    let body = text.field_scores(fields.body, terms)?;
    let defs = text.field_scores(fields.defs, terms)?;
    let path = text.field_scores(fields.path_terms, terms)?;
    let docs = text.field_scores(fields.docs, terms)?;
    let norm =
        |m: &FxHashMap<String, f32>| m.values().fold(0f32, |a, b| a.max(*b)).max(f32::MIN_POSITIVE) as f64;
    let (nb, nd, np, no) = (norm(&body), norm(&defs), norm(&path), norm(&docs));
    let get = |m: &FxHashMap<String, f32>, p: &str, n: f64| m.get(p).map_or(0.0, |s| *s as f64 / n);

    let graph = snapshot.graph();
    // PageRank personalized by the query's words that name definitions (Aider's mentioned
    // identifiers) and by the lexical matches themselves.
    let mut personalization = vec![0.0; graph.files.len()];
    let ident_ids: HashSet<u32> = terms.iter().filter_map(|t| graph.ident_id(t)).collect();
    for id in &ident_ids {
        for &f in graph.definers(*id) {
            personalization[f as usize] += 1.0;
        }
    }
    for (p, s) in &body {
        if let Some(i) = graph.file_index(p) {
            personalization[i] += *s as f64 / nb;
        }
    }
    let weight = |_src: u32, edge: &crate::graph::Edge| {
        if ident_ids.contains(&edge.ident) { edge.weight * 10.0 } else { edge.weight }
    };
    let rank = if with_pagerank {
        graph.pagerank(&personalization, &weight).0
    } else {
        vec![0.0; graph.files.len()]
    };
    let max_rank = rank.iter().cloned().fold(f64::MIN_POSITIVE, f64::max);

    let lexical = |p: &str| get(&body, p, nb) + get(&defs, p, nd);
    let mut paths: FxHashSet<&str> = FxHashSet::default();
    for m in [&body, &defs, &path, &docs] {
        paths.extend(m.keys().map(String::as_str));
    }
    // The ten strongest lexical matches, each scored once.
    let mut strongest: Vec<(f64, &str)> = paths.iter().map(|p| (lexical(p), *p)).collect();
    let by_strength = |a: &(f64, &str), b: &(f64, &str)| b.0.total_cmp(&a.0).then(a.1.cmp(b.1));
    if strongest.len() > 10 {
        strongest.select_nth_unstable_by(9, by_strength);
        strongest.truncate(10);
    }
    strongest.sort_by(by_strength);
    let mut neighbor_score: HashMap<usize, f64> = HashMap::new();
    for &(strength, p) in &strongest {
        let Some(i) = graph.file_index(p) else { continue };
        let node = petgraph::graph::NodeIndex::new(i);
        for edge in
            graph.graph.edges(node).chain(graph.graph.edges_directed(node, petgraph::Direction::Incoming))
        {
            let other = if edge.source() == node { edge.target() } else { edge.source() };
            if other != node {
                let entry = neighbor_score.entry(other.index()).or_default();
                *entry = entry.max(strength);
            }
        }
    }
    let neighbor_paths: Vec<&str> = neighbor_score.keys().map(|&i| graph.files[i].as_str()).collect();
    paths.extend(neighbor_paths);

    let mut out: Vec<Candidate> = paths
        .into_iter()
        .map(|p| {
            let i = graph.file_index(p);
            Candidate {
                path: p.to_string(),
                body: get(&body, p, nb),
                defs: get(&defs, p, nd),
                path_match: get(&path, p, np),
                docs: get(&docs, p, no),
                pagerank: i.map_or(0.0, |i| rank[i] / max_rank),
                neighbors: i.and_then(|i| neighbor_score.get(&i)).copied().unwrap_or(0.0) / 2.0,
                is_test: is_test_path(p) || snapshot.files.get(p).is_some_and(|e| is_bundle(e)),
            }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// One line worth showing.
#[derive(Debug, Clone, PartialEq)]
pub struct HitLine {
    pub line: u32,
    pub text: String,
    pub symbol: Option<String>,
}

/// The innermost definition containing `line`, by qualified name.
pub fn enclosing_symbol(entry: &FileEntry, line: u32) -> Option<String> {
    entry
        .symbols
        .defs
        .iter()
        .filter(|d| d.line <= line && line <= d.end_line)
        .max_by_key(|d| (d.line, std::cmp::Reverse(d.end_line)))
        .map(|d| d.qualified.clone())
}

/// What each query term weighs when lines are picked: its rarity across the files (IDF), and
/// the terms once each in the query's order. Counted once per query, for every file's lines.
pub struct TermWeights<'a> {
    idf: FxHashMap<&'a str, f64>,
    distinct: Vec<&'a str>,
    /// Finds any of the terms in a line, ignoring ASCII case.
    finder: Option<aho_corasick::AhoCorasick>,
}

impl<'a> TermWeights<'a> {
    pub fn new(text: &TextIndex, terms: &'a [String]) -> Self {
        let mut distinct: Vec<&str> = Vec::with_capacity(terms.len());
        for t in terms {
            if !distinct.contains(&t.as_str()) {
                distinct.push(t);
            }
        }
        let idf = distinct
            .iter()
            .map(|t| {
                let (df, total) = text.doc_freq(t);
                (*t, ((total as f64 + 1.0) / (df as f64 + 1.0)).ln() + 1.0)
            })
            .collect();
        let finder = aho_corasick::AhoCorasick::builder().ascii_case_insensitive(true).build(&distinct).ok();
        TermWeights { idf, distinct, finder }
    }
}

/// The `n` lines of a file that best match the query terms, best first: each line scores the
/// rarity (IDF) of the distinct query terms it holds, and a definition's own line scores double.
pub fn best_lines(root: &Path, entry: &FileEntry, weights: &TermWeights<'_>, n: usize) -> Vec<HitLine> {
    let Ok(bytes) = crate::beneath::read(root, &entry.path) else { return Vec::new() };
    let Some(finder) = &weights.finder else { return Vec::new() };
    let source = String::from_utf8_lossy(&bytes);
    let def_lines: FxHashSet<u32> = entry.symbols.defs.iter().map(|d| d.line).collect();
    let mut scored: Vec<(f64, u32, &str)> = Vec::new();
    // A term comes from a line only if the line holds it, ASCII case aside: the tokenizer's
    // terms are lowercased pieces of the line. So only lines where the finder matches are
    // tokenized. A match never spans lines (terms are identifier pieces).
    let (mut line_no, mut line_start, mut scanned) = (1u32, 0usize, 0usize);
    let mut last_line = 0u32;
    for found in finder.find_iter(source.as_bytes()) {
        let at = found.start();
        for (i, b) in source.as_bytes()[scanned..at].iter().enumerate() {
            if *b == b'\n' {
                line_no += 1;
                line_start = scanned + i + 1;
            }
        }
        scanned = at;
        if line_no == last_line {
            continue;
        }
        last_line = line_no;
        let rest = &source[line_start..];
        let line = rest.split('\n').next().unwrap_or(rest);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        code_terms(line, |term, _, _, _| {
            if let Some((t, _)) = weights.idf.get_key_value(term) {
                seen.insert(t);
            }
        });
        if seen.is_empty() {
            continue;
        }
        // Summed in the query's order: a hash set's order would change the last bits, and
        // with them the order of equal lines, from one run to the next.
        let mut score: f64 =
            weights.distinct.iter().filter(|t| seen.contains(*t)).map(|t| weights.idf[t]).sum();
        if def_lines.contains(&line_no) {
            score *= 2.0;
        }
        scored.push((score, line_no, line));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(n);
    scored
        .into_iter()
        .map(|(_, line, text)| HitLine {
            line,
            text: text.to_string(),
            symbol: enclosing_symbol(entry, line),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_drop_stop_words_and_keep_identifiers() {
        assert_eq!(
            query_terms("The parser fails on an empty `read_to_end` buffer"),
            ["parser", "fails", "empty", "read_to_end", "read", "end", "buffer"]
        );
        assert_eq!(query_terms("parseHTTPResponse"), ["parsehttpresponse", "parse", "http", "response"]);
    }

    #[test]
    fn query_terms_leave_out_html_comments() {
        let report = "Fix `transpose` errors\n# Tests\n<!-- Run `cargo clippy` and\ncargo test -->\nAdded a test<!--x-->case\n<!-- left open: toolkit";
        assert_eq!(query_terms(report), ["transpose", "errors", "tests", "test", "case"]);
        // A comment marker alone, or a closing one without an opening, is text as usual.
        assert_eq!(query_terms("a --> b_c"), ["b_c"]);
    }

    #[test]
    fn minified_bundles_are_told_from_code() {
        let entry = |size: u64, lines: u32| FileEntry {
            path: "docs/jquery.min.js".into(),
            lang: crate::Lang::JavaScript,
            size,
            mtime_ns: 0,
            hash: [0; 16],
            lines,
            symbols: Default::default(),
        };
        assert!(is_bundle(&entry(93_000, 4)), "a minified file: few very long lines");
        assert!(!is_bundle(&entry(93_000, 2_400)), "code: about 40 bytes a line");
        assert!(!is_bundle(&entry(2_000, 1)), "a small one-liner is no bundle");
    }

    #[test]
    fn test_paths_are_recognized() {
        assert!(is_test_path("tests/test_cart.py"));
        assert!(is_test_path("src/foo/tests.rs"));
        assert!(is_test_path("crates/core/tests/util.rs"));
        assert!(is_test_path("pkg/conftest.py"));
        assert!(!is_test_path("src/testing_helpers_are_code.rs") || is_test_path("src/testing/x.rs"));
        assert!(!is_test_path("src/search.rs"));
        assert!(is_test_path("www/src/components/QuickIntro.tsx"));
        assert!(!is_test_path("doc/man_docs.go"), "cobra's doc generator is its code");
        assert!(!is_test_path("click/testing.py"));
    }
}

//! Ranked search: BM25 over the text index's fields combined with structure (definition names,
//! path, PageRank personalized by the query's identifiers, the graph neighbourhood of strong
//! hits), and the best hit lines of each file with their enclosing symbol.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::snapshot::{FileEntry, Snapshot};
use crate::symbols::{Def, DefKind};
use crate::text::{QueryWord, TextIndex, code_terms, is_compound};

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
    pub named: f64,
    /// What a file earns whose path or definition ends as a qualified name the query writes
    /// (`summary::Config`, `TypeAdapter.validate_json`, `src/a/b.rs`): the qualifier chooses
    /// among the definitions of one name.
    pub qualified: f64,
    pub test_penalty: f64,
    /// What a document (a README, a guide, a manual page) loses against code, unless the query
    /// asks about documents (see [`Weights::for_terms`]). A bug report's words are the words its
    /// feature's documentation uses too: with documents ranked at their text alone, the
    /// localization development set lost 0.03 Acc@1 and 0.05 Acc@5 to READMEs, guides and
    /// manual pages; at 0.5 it is within 0.01 of code alone (1.0 cost 0.01 Acc@1 more, 0.3 kept
    /// 0.02 Acc@5 lost). Once a repository's code is scaled by its own best file, 0.5 let
    /// Sphinx's reST primer above the LaTeX writer for a report about reST in LaTeX; 0.75 keeps
    /// it below and costs the code-search questions 0.006 NDCG@10 (`BENCHMARKS.md`).
    pub prose_penalty: f64,
}

/// Words by which a question asks about documents: a guide, the upgrade notes, how to contribute.
const ABOUT_DOCUMENTS: &[&str] = &[
    "doc",
    "docs",
    "documentation",
    "documented",
    "guide",
    "guides",
    "tutorial",
    "tutorials",
    "readme",
    "upgrade",
    "upgrading",
    "migrate",
    "migrating",
    "migration",
    "changelog",
    "contributing",
    "manual",
    "faq",
];

impl Weights {
    /// The weights for a query: a short one that asks about tests ("tests for the parser") does
    /// not push tests down, nor one that asks about documents ("upgrade guide to version 8")
    /// documents. A long report that mentions tests or documents in passing ("fix X, add tests,
    /// update the docs") is still about the code: on the development set lifting the test
    /// penalty there cost 3 points.
    pub fn for_terms(terms: &[String]) -> Weights {
        let mut w = Weights::DEFAULT;
        let about_tests =
            terms.iter().any(|t| matches!(t.as_str(), "test" | "tests" | "testing" | "pytest" | "conftest"));
        if about_tests && terms.len() <= 6 {
            w.test_penalty = 0.0;
        }
        let about_documents = terms.iter().any(|t| ABOUT_DOCUMENTS.contains(&t.as_str()));
        if about_documents && terms.len() <= 8 {
            w.prose_penalty = 0.0;
        }
        w
    }

    /// [`Weights::for_terms`], and for a question of one line (`how`, `what`, `where`, `which`,
    /// `why`, or a `?` at its end) that asks about tests, up to 14 terms, no test penalty either:
    /// "how are the integration tests organized: temp directories, running the binary and
    /// comparing its output" asks for the tests' own files.
    pub fn for_query(query: &str, terms: &[String]) -> Weights {
        let mut w = Weights::for_terms(terms);
        let query = query.trim();
        let first = query.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        let question = !query.contains('\n')
            && (matches!(first.as_str(), "how" | "what" | "where" | "which" | "why") || query.ends_with('?'));
        if question
            && terms.len() <= 14
            && terms.iter().any(|t| matches!(t.as_str(), "test" | "tests" | "testing"))
        {
            w.test_penalty = 0.0;
        }
        w
    }

    pub const DEFAULT: Weights = Weights {
        body: 1.0,
        defs: 0.25,
        path: 0.3,
        docs: 0.1,
        pagerank: 0.0,
        neighbors: 0.1,
        named: 0.5,
        qualified: 1.5,
        test_penalty: 1.0,
        prose_penalty: 0.75,
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
    /// 1 when the query names, as one identifier of two parts or more ([`named_terms`]), the
    /// file (its name less the extension: `BaseStubbing.java`) or a definition in it
    /// (`read_to_end`); else 0.
    pub named: f64,
    /// 1 when a qualified name the query writes ([`Qualified`]) ends at the file or one of its
    /// definitions; else 0.
    pub qualified: f64,
    /// A test, an example, a benchmark or a generated bundle: ranked below the code.
    pub is_test: bool,
    /// Documentation or a record of changes (a README, a guide, a changelog), not code.
    pub is_prose: bool,
}

impl Candidate {
    pub fn score(&self, w: &Weights) -> f64 {
        w.body * self.body
            + w.defs * self.defs
            + w.path * self.path_match
            + w.docs * self.docs
            + w.pagerank * self.pagerank
            + w.neighbors * self.neighbors
            + w.named * self.named
            + w.qualified * self.qualified
            - if self.is_test { w.test_penalty } else { 0.0 }
            - if self.is_prose && !self.is_test { w.prose_penalty } else { 0.0 }
    }
}

/// The distinct terms of a query: identifiers whole and split, lowercased, without stop words
/// and one-letter parts. HTML comments are left out: in a pasted issue or pull request they
/// hold the template's instructions (`<!-- Don't forget to add tests ... cargo clippy ... -->`),
/// the same words in every report, never what the report is about.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let text = without_html_comments(query);
    code_terms(&text, |term, from, _, _| {
        if term.len() > 1
            && !STOP.contains(&term)
            && (!term.bytes().all(|b| b.is_ascii_digit()) || is_code_number(&text, from, term))
            && seen.insert(term.to_string())
        {
            out.push(term.to_string());
        }
    });
    out
}

/// Whether the digits `term`, at `from` in `text`, are the number of a diagnostic's code: three
/// or more after a capital (`SC2103`, `E501`, `TS2322`, `CS0168`), where the code that raises it
/// may write the number alone. Other numbers (`#1169`, `5.3`, `sha256`) name no code.
fn is_code_number(text: &str, from: usize, term: &str) -> bool {
    term.len() >= 3 && from > 0 && text.as_bytes()[from - 1].is_ascii_uppercase()
}

/// What a word of a report's title weighs (its first line, when more lines follow), against 1
/// for a word of its body: the title says what is wrong; the body also quotes, explains and
/// digresses.
pub(crate) const TITLE: f32 = 1.5;
/// What a word weighs that only quoted text holds (a fenced or indented block, a `>` line, a
/// shell prompt's line) and that is not written as an identifier there: a quoted manual page or
/// log names the topic's words, not the code's.
pub(crate) const QUOTED: f32 = 0.3;

/// What each of `terms` (a query's, in [`query_terms`]'s order) weighs, by where the query
/// writes it: [`TITLE`] in a title, 1 in prose, [`QUOTED`] in quoted text unless written as an
/// identifier there (with `_`, a digit, a case change, or touching `(`, `.`, `::`); a word
/// written in several places weighs its most. A query of one line weighs every word 1.
pub fn term_weights(query: &str, terms: &[String]) -> Vec<f32> {
    let text = without_html_comments(query);
    let lines: Vec<&str> = text.lines().collect();
    let mut weights: FxHashMap<String, f32> = FxHashMap::default();
    let several = lines.iter().filter(|l| !l.trim().is_empty()).count() > 1;
    let (mut title_seen, mut fenced) = (false, false);
    for line in &lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let quoted = fenced
            || line.starts_with("    ")
            || line.starts_with('\t')
            || trimmed.starts_with('>')
            || trimmed.starts_with("$ ");
        let place = if several && !title_seen {
            title_seen = true;
            TITLE
        } else if quoted {
            QUOTED
        } else {
            1.0
        };
        let bytes = line.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if !(bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            let word = &line[start..at];
            let touches = |b: Option<&u8>| b.is_some_and(|b| matches!(b, b'(' | b'.' | b':'));
            let identifier = is_compound(word)
                || word.bytes().any(|b| b.is_ascii_digit())
                || touches(bytes.get(at))
                || touches(start.checked_sub(1).and_then(|i| bytes.get(i)));
            let weight = if place < 1.0 && identifier { 1.0 } else { place };
            code_terms(word, |term, _, _, _| {
                let w = weights.entry(term.to_string()).or_insert(0.0);
                *w = w.max(weight);
            });
        }
    }
    terms.iter().map(|t| weights.get(t).copied().filter(|w| *w > 0.0).unwrap_or(1.0)).collect()
}

/// A query's terms ([`query_terms`]) as ranking weighs them: each with its forms in the index
/// ([`TextIndex::word_forms`]) and its weight ([`term_weights`]).
pub fn query_words(text: &TextIndex, query: &str, terms: &[String]) -> Result<Vec<QueryWord>, crate::Error> {
    let forms = text.word_forms(terms)?;
    // Words of one stem (`option` and `options`, `retry` and `retried`) are one word met twice:
    // the first stands for both, at the weight of the weightier.
    let mut words: Vec<QueryWord> = Vec::with_capacity(forms.len());
    let mut stems: Vec<Option<String>> = Vec::with_capacity(forms.len());
    for (mut word, weight) in forms.into_iter().zip(term_weights(query, terms)) {
        let stem = word.forms.first().and_then(|(t, _)| crate::forms::stem(t));
        match stem.as_ref().and_then(|s| stems.iter().position(|o| o.as_ref() == Some(s))) {
            Some(at) => words[at].weight = words[at].weight.max(weight),
            None => {
                word.weight = weight;
                words.push(word);
                stems.push(stem);
            }
        }
    }
    Ok(words)
}

/// The identifiers of two parts or more a query writes (`BaseStubbing`, `read_to_end`),
/// lowercased, each once: the names by which it can name a file or a definition
/// ([`Candidate::named`]). Words written apart (`base stubbing`) are not among them.
/// The single names a query writes as code: a word right before `(` (`host()`, `iter(x)`) or
/// alone between backticks (`` `pdb` ``), lowercased, in the query's order, at least three
/// letters and no stop word. A report that says "the host() function" means the function of
/// that name, not the lines that say "host".
pub(crate) fn written_names(query: &str) -> Vec<String> {
    let text = without_html_comments(query);
    let bytes = text.as_bytes();
    let mut out: Vec<String> = Vec::new();
    code_terms(&text, |term, start, end, _| {
        let word = &text[start..end];
        let called = bytes.get(end) == Some(&b'(');
        let quoted = start > 0 && opens_code(&bytes[..start]) && bytes.get(end) == Some(&b'`');
        if (called || quoted)
            && term.len() == word.len()
            && term.len() >= 3
            && !STOP.contains(&term)
            && !out.iter().any(|t| t == term)
        {
            out.push(term.to_string());
        }
    });
    out
}

/// Whether the text before a name opens code for it: a backtick right before it, or before the
/// path it ends (`` `ProgressBar.generator` ``, `` `Globset::backslash_escape` ``: the last
/// name of a qualified one is the definition meant).
fn opens_code(before: &[u8]) -> bool {
    let mut at = before.len();
    loop {
        match before[..at].last() {
            Some(b'`') => return true,
            Some(b'.' | b':' | b'#') => {
                while at > 0 && matches!(before[at - 1], b'.' | b':' | b'#') {
                    at -= 1;
                }
                let name = before[..at]
                    .iter()
                    .rev()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                if name == 0 {
                    return false;
                }
                at -= name;
            }
            _ => return false,
        }
    }
}

pub fn named_terms(query: &str) -> Vec<String> {
    let text = without_html_comments(query);
    let mut out: Vec<String> = Vec::new();
    code_terms(&text, |term, start, end, _| {
        if is_compound(&text[start..end]) && !out.iter().any(|t| t == term) {
            out.push(term.to_string());
        }
    });
    out
}

/// Folders that say nothing of what a module is called: `crates/ignore/src/types.rs` is
/// `ignore::types`. (A file that stands for its folder, `src/config/mod.rs`, is its folder's
/// name: [`crate::lang::module_name`].)
const SAYS_NOTHING: &[&str] = &["src", "source", "sources", "java"];

/// Extensions that make a dotted word a file's name in a query (`setup.cfg`, `README.md`)
/// besides those of the languages a grammar reads: `Foo.bar` is a member, not a file.
const FILE_EXTENSIONS: &[&str] =
    &["md", "rst", "txt", "toml", "yaml", "yml", "json", "ini", "cfg", "xml", "html", "sh", "gradle"];

/// The names a query writes: identifiers of two parts or more ([`named_terms`]) and qualified
/// names ([`Qualified::all_in`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryNames {
    pub terms: Vec<String>,
    pub qualified: Vec<Qualified>,
    /// The scope a title gives itself (`fix(client): …`, `printer: …`), lowercased: the folder
    /// of the code it is about.
    pub scopes: Vec<String>,
    /// Words a title writes side by side ([`word_pairs`]), lowercased: a command and its
    /// subcommand (`into duration`, `overlay use`) that a file's folder and name may spell.
    pub pairs: Vec<(String, String)>,
}

/// How well a file under a folder named as the title's scope fits, of a qualified name's 1.
pub(crate) const IN_SCOPE: f64 = 0.33;

impl QueryNames {
    pub fn of(query: &str) -> QueryNames {
        QueryNames {
            terms: named_terms(query),
            qualified: Qualified::all_in(query),
            scopes: scopes(query),
            pairs: word_pairs(query),
        }
    }

    /// How well the query's names fit the file at `path`: its best qualified name's fit
    /// ([`Qualified::ends_at`]), else [`IN_SCOPE`] when the title's scope is a folder of its path
    /// or the module the file is, leading underscores aside (`LaTeX: …` names `writers/latex.py`
    /// as well as `latex/`, `bashcomplete: …` names `_bashcomplete.py`).
    fn fit(&self, path: &str, entry: Option<&FileEntry>) -> f64 {
        let best = self.qualified.iter().map(|q| q.ends_at(path, entry)).fold(0.0, f64::max);
        let folders = path.rsplit_once('/').map_or("", |(dirs, _)| dirs);
        let module = crate::lang::module_name(path);
        let in_scope = self.scopes.iter().any(|s| {
            module.trim_start_matches('_').eq_ignore_ascii_case(s)
                || folders.split('/').any(|d| d.trim_start_matches('_').eq_ignore_ascii_case(s))
        });
        let best = if in_scope { best.max(IN_SCOPE) } else { best };
        if best < 1.0 && !self.pairs.is_empty() {
            // The module's folder and name, a keyword's `_` dropped (`overlay/use_.rs`).
            let mut back = path.rsplit('/');
            let file = back.next().unwrap_or(path);
            // A file that stands for its folder (`geo/mod.rs`): the folder above that one.
            if file.split('.').next() != Some(module) {
                back.next();
            }
            let folder = back.next();
            let name = module.trim_end_matches('_');
            let pair = |x: &str, y: &str| {
                self.pairs.iter().any(|(a, b)| a.eq_ignore_ascii_case(x) && b.eq_ignore_ascii_case(y))
            };
            if folder.is_some_and(|folder| pair(folder, name)) {
                return 1.0;
            }
            // A file named for what it is and what kind of thing it is (`ssh.completion.bash`,
            // `cart.service.ts`): the pair of its name's first two parts.
            let mut parts = file.split('.');
            if let (Some(what), Some(kind), Some(_)) = (parts.next(), parts.next(), parts.next())
                && pair(what, kind)
            {
                return 1.0;
            }
        }
        best
    }
}

/// Most pairs of words a title gives [`QueryNames::pairs`].
const MOST_PAIRS: usize = 16;

/// The pairs of words side by side in a query's title (its first line), lowercased, letters
/// only, two or more each, with nothing but space (and backticks) between them: `Fix a bug with
/// the into duration command` gives (`into`, `duration`) among others; `field validators, model
/// serializers` gives no (`validators`, `model`), nor a path's folders. Stop words count: a
/// command's name often is one (`into`, `from`, `use`).
fn word_pairs(query: &str) -> Vec<(String, String)> {
    let title = query.trim_start().split('\n').next().unwrap_or("");
    let mut out: Vec<(String, String)> = Vec::new();
    let mut previous: Option<String> = None;
    for token in title.split_whitespace() {
        let opens = token.starts_with(['(', '[', '"', '\'']);
        let word = token.trim_start_matches(['`', '(', '[', '"', '\'']);
        let closes =
            word.trim_end_matches('`').ends_with([',', '.', ';', ':', '!', '?', ')', ']', '"', '\'']);
        let word = word.trim_end_matches(['`', ',', '.', ';', ':', '!', '?', ')', ']', '"', '\'']);
        let word = (word.len() >= 2 && word.bytes().all(|b| b.is_ascii_alphabetic()))
            .then(|| word.to_ascii_lowercase());
        if let (Some(a), Some(b)) = (previous.as_ref().filter(|_| !opens), word.as_ref())
            && !out.iter().any(|(x, y)| x == a && y == b)
        {
            out.push((a.clone(), b.clone()));
        }
        previous = if closes { None } else { word };
    }
    out.truncate(MOST_PAIRS);
    out
}

/// The scope of a title written as a conventional commit or a component's prefix:
/// `fix(client): …` and `feat(server,react)!: …` give `client`, `server`, `react`;
/// `printer: …` gives `printer`. The type words (`fix`, `feat`, …) are no scope.
fn scopes(query: &str) -> Vec<String> {
    let title = query.trim_start().split('\n').next().unwrap_or("");
    let Some((head, _)) = title.split_once(": ") else { return Vec::new() };
    let word =
        |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let head = head.trim().trim_end_matches('!');
    let inner = match head.split_once('(') {
        Some((kind, rest)) if word(kind) => rest.strip_suffix(')').unwrap_or(""),
        Some(_) => return Vec::new(),
        None if word(head)
            && !matches!(
                head.to_ascii_lowercase().as_str(),
                "fix"
                    | "feat"
                    | "chore"
                    | "docs"
                    | "doc"
                    | "test"
                    | "tests"
                    | "refactor"
                    | "perf"
                    | "style"
                    | "build"
                    | "ci"
                    | "revert"
                    | "note"
                    | "bug"
                    | "issue"
            ) =>
        {
            head
        }
        None => return Vec::new(),
    };
    // A scope of several words (`TAP-output`, `http-client`) names its folder or module whole or
    // by one of its words.
    let mut out: Vec<String> = Vec::new();
    for w in inner.split([',', '/', ' ']).map(|w| w.trim().trim_matches('`')).filter(|w| word(w)) {
        let w = w.to_ascii_lowercase();
        let parts: Vec<String> =
            w.split('-').filter(|p| p.len() > 1 && *p != w).map(str::to_string).collect();
        out.push(w);
        out.extend(parts.into_iter().filter(|p| !out.contains(p)).collect::<Vec<_>>());
    }
    out
}

/// A name a query writes with its qualifiers: `config::Loader`, `TypeAdapter.validate_json`,
/// `Foo#bar`, `pydantic._internal._config`, or a file: `src/a/b.rs`, `inject_errors.c`. Its
/// segments are lowercased, outermost first; a file's last segment keeps its extension.
#[derive(Debug, Clone, PartialEq)]
pub struct Qualified {
    pub segments: Vec<String>,
    pub file: bool,
}

impl Qualified {
    /// Every qualified name `query`'s first line writes, each once, in order: runs of identifiers joined by
    /// `::`, `.`, `#`, `/` or `->`, of two segments or more, or one file name whose extension a
    /// language or a text file has. Version numbers (`1.2.3`) and web addresses are not names.
    pub fn all_in(query: &str) -> Vec<Qualified> {
        let text = without_html_comments(query);
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut out: Vec<Qualified> = Vec::new();
        // A report's body also names the files it looked at, the docs it read and the paths of
        // its logs: only its title's names choose (on the localization development set, names
        // in bodies cost Acc@1).
        let text = text.trim_start();
        let text = text.split('\n').next().unwrap_or(text);
        let b = text.as_bytes();
        let mut at = 0;
        while at < b.len() {
            if !ident(b[at]) {
                at += 1;
                continue;
            }
            let start = at;
            let mut segments: Vec<&str> = Vec::new();
            // The separator before each segment after the first.
            let mut seps: Vec<&str> = Vec::new();
            let mut last_sep = "";
            loop {
                let from = at;
                while at < b.len() && ident(b[at]) {
                    at += 1;
                }
                segments.push(&text[from..at]);
                let sep = ["::", "->", ".", "#", "/"].into_iter().find(|sep| text[at..].starts_with(sep));
                match sep {
                    Some(sep) if b.get(at + sep.len()).is_some_and(|c| ident(*c)) => {
                        last_sep = sep;
                        seps.push(sep);
                        at += sep.len();
                    }
                    _ => break,
                }
            }
            // A web address (`https://…`, `github.com/…`) or a path's tail after `./` names no
            // definition.
            // Nor does a name's pattern (`.test.js`).
            let after_scheme = text[at..].starts_with("://") || text[..start].ends_with("//");
            if after_scheme || text[..start].ends_with('.') || segments[0].bytes().all(|c| c.is_ascii_digit())
            {
                continue;
            }
            let extension = segments.last().filter(|_| last_sep == ".").map(|ext| ext.to_ascii_lowercase());
            let file = extension.is_some_and(|ext| {
                crate::Lang::from_path(std::path::Path::new(&format!("x.{ext}"))).is_some()
                    || FILE_EXTENSIONS.contains(&ext.as_str())
            });
            let mut segments: Vec<String> = segments.iter().map(|s| s.to_ascii_lowercase()).collect();
            if file {
                // A file's name is every segment after its folders: `base.theme.bash`,
                // `cart.test.ts`.
                let dots = seps.iter().rev().take_while(|sep| **sep == ".").count();
                let name = segments.split_off(segments.len() - dots - 1).join(".");
                segments.push(name);
            } else if segments.len() < 2 {
                continue;
            }
            let q = Qualified { segments, file };
            if !out.contains(&q) {
                out.push(q);
            }
        }
        out
    }

    /// How well this name ends at the file at `path` (a file's name: the path ends with its
    /// segments) or at one of its definitions (`entry`): the last segment is the definition's
    /// name, or the file's name less its extension, and the others are the path's folders, the
    /// file's name and the definition's qualifiers just before it: 1 (`summary::Config` at
    /// `Config` in `crates/printer/src/summary.rs`; `config::Loader` in `src/config/mod.rs`,
    /// where `src`, `mod`, `lib`, `index` and the like say nothing), or with others between
    /// them: 0.5 (`pydantic.networks.X` in `pydantic/v1/networks.py`); else 0.
    pub fn ends_at(&self, path: &str, entry: Option<&FileEntry>) -> f64 {
        let lower = path.to_ascii_lowercase();
        let mut components: Vec<&str> = lower.split('/').collect();
        if self.file {
            let fits = components.len() >= self.segments.len()
                && components[components.len() - self.segments.len()..]
                    .iter()
                    .zip(&self.segments)
                    .all(|(c, s)| c == s);
            return if fits { 1.0 } else { 0.0 };
        }
        let Some((last, outer)) = self.segments.split_last() else { return 0.0 };
        // A file that stands for its folder (`config/mod.rs`) is the folder.
        let module = crate::lang::module_name(&lower).to_string();
        let stands_for_folder = components.len() > 1 && components[components.len() - 2] == module;
        if stands_for_folder {
            components.pop();
        } else if let Some(file) = components.last_mut() {
            *file = file.split('.').next().unwrap_or(file);
        }
        // How the outer segments sit at the end of `context`: right at its end, else in order.
        let fit = |context: &[&str]| -> f64 {
            let context: Vec<&str> = context.iter().copied().filter(|c| !SAYS_NOTHING.contains(c)).collect();
            let n = outer.len();
            if context.len() >= n
                && context[context.len() - n..].iter().zip(outer).all(|(c, s)| c.eq_ignore_ascii_case(s))
            {
                return 1.0;
            }
            let mut wanted = outer.iter().peekable();
            for part in &context {
                if wanted.peek().is_some_and(|w| part.eq_ignore_ascii_case(w)) {
                    wanted.next();
                }
            }
            if wanted.peek().is_none() { 0.5 } else { 0.0 }
        };
        let mut best = 0.0f64;
        if components.last().is_some_and(|f| f == last) {
            best = fit(&components[..components.len() - 1]);
        }
        let Some(entry) = entry else { return best };
        for d in entry.symbols.defs.iter() {
            if best == 1.0 {
                break;
            }
            if !d.name().eq_ignore_ascii_case(last) {
                continue;
            }
            let qualified = d.qualified();
            let inner: Vec<&str> = qualified.split(['.', ':', '#']).filter(|s| !s.is_empty()).collect();
            let mut context = components.clone();
            context.extend(&inner[..inner.len().saturating_sub(1)]);
            best = best.max(fit(&context));
        }
        best
    }
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
            "tests"
                | "test"
                | "testing"
                | "spec"
                | "specs"
                | "benches"
                | "bench"
                | "examples"
                | "fuzz"
                | "www"
                | "website"
        )
    }) || is_test_file_name(file)
}

/// Whether a file's name (without its folders) is a test's: `test_*`, or a language's test
/// suffix or name (`*_test.go`, `*.test.ts`, `conftest.py`).
fn is_test_file_name(file: &str) -> bool {
    file.starts_with("test_")
        || crate::lang::specs().any(|spec| {
            spec.test_file_suffixes.iter().any(|suffix| file.ends_with(suffix))
                || spec.test_file_names.contains(&file)
        })
}

/// Whether code is a test: a test definition (`test_*`, inside `mod tests` or `class TestX`, see
/// `is_test_def`), or any code in a test file (`tests/`, `test_*.py`, `*_test.go`, `*.test.ts`,
/// …). Unlike [`is_test_path`], examples, benchmarks and websites are not tests.
pub fn is_test_code(path: &str, entry: &FileEntry, def: Option<u32>) -> bool {
    if def.is_some_and(|d| is_test_def(&entry.symbols.defs, d as usize)) {
        return true;
    }
    let (dirs, file) = match path.rsplit_once('/') {
        Some((dirs, file)) => (dirs, file),
        None => ("", path),
    };
    dirs.split('/').any(|d| matches!(d, "tests" | "test" | "testing" | "spec" | "specs" | "__tests__"))
        || is_test_file_name(file)
}

/// Whether a file looks generated as one long run of code rather than written: a minified
/// bundle (`jquery-1.7.min.js` among a Java project's Javadoc assets) averages hundreds of bytes
/// a line. Ranked as a test is, below the code.
pub(crate) fn is_bundle(entry: &FileEntry) -> bool {
    entry.size >= 8 * 1024 && entry.size / u64::from(entry.lines.max(1)) >= 300
}

/// Each file's PageRank personalized by the query's words that name definitions (Aider's
/// mentioned identifiers) and by the lexical matches themselves, edges into definitions the
/// query names ×10: a file's rank is what its nodes hold.
fn query_pagerank(
    snapshot: &Snapshot,
    graph: &crate::graph::SymbolGraph,
    terms: &[String],
    body: &FxHashMap<&str, f64>,
) -> Vec<f64> {
    let mut personalization = vec![0.0; graph.n_nodes()];
    let mut named = vec![false; graph.n_nodes()];
    for (f, entry) in snapshot.files.values().enumerate() {
        for (d, def) in entry.symbols.defs.iter().enumerate() {
            if terms.iter().any(|t| t == def.name()) {
                let node = graph.def_node(f, d) as usize;
                personalization[node] += 1.0;
                named[node] = true;
            }
        }
    }
    for (p, s) in body {
        if let Some(i) = graph.file_index(p) {
            personalization[graph.file_node(i) as usize] += *s;
        }
    }
    let weight = |_src: u32, dst: u32, w: f32| {
        if named[dst as usize] { w as f64 * crate::graph::BOOST } else { w as f64 }
    };
    let rank = graph.pagerank(&personalization, &weight);
    (0..graph.files.len())
        .map(|f| (graph.file_node(f) as usize..graph.file_node(f + 1) as usize).map(|n| rank[n]).sum())
        .collect()
}

/// Every file matching the query, with its features. Files are candidates when a field matches
/// or when they neighbour one of the ten strongest lexical matches. The personalized PageRank
/// (a power iteration over every edge) is computed only when `with_pagerank` asks for it: with
/// the chosen weight of 0 a query should not pay for it; the tuning dump does.
pub fn candidates(
    snapshot: &Snapshot,
    text: &TextIndex,
    words: &[QueryWord],
    names: &QueryNames,
    with_pagerank: bool,
) -> Result<Vec<Candidate>, crate::Error> {
    let named = names.terms.as_slice();
    let terms: Vec<String> = words.iter().filter_map(|w| w.forms.first()).map(|(t, _)| t.clone()).collect();
    let terms = terms.as_slice();
    let fields = text.fields();
    let body = text.field_scores(fields.body, words)?;
    let defs = text.field_scores(fields.defs, words)?;
    let path = text.field_scores(fields.path_terms, words)?;
    let docs = text.field_scores(fields.docs, words)?;
    // In a repository mostly of code (parsed files a quarter of its files or more), each field
    // of a parsed file is scaled by the field's best parsed file, as if the repository held only
    // its code: its documents, scripts and configuration change no parsed file's features. A
    // text file is scaled by the best file of all. Where code is a few stray files (the one
    // Java file of a Scala library), every file is scaled by the best of all: a stray file that
    // matches weakly is not lifted to the top of its own scale. Nor when a short query asks
    // about documents ("user guide for a root command"): then they compete with the code on
    // one scale.
    let parsed = |p: &str| crate::Lang::from_path(std::path::Path::new(p)).is_some();
    let mostly_code = snapshot.files.len() * 4 >= snapshot.files.len() + snapshot.texts.len()
        && Weights::for_terms(terms).prose_penalty > 0.0;
    let scaled = |m| scale_field(m, &parsed, mostly_code);
    let (body, defs, path, docs) = (scaled(&body), scaled(&defs), scaled(&path), scaled(&docs));
    let get = |m: &FxHashMap<&str, f64>, p: &str| m.get(p).copied().unwrap_or(0.0);

    let graph = snapshot.graph();
    let rank = if with_pagerank {
        query_pagerank(snapshot, &graph, terms, &body)
    } else {
        vec![0.0; graph.files.len()]
    };
    let max_rank = rank.iter().cloned().fold(f64::MIN_POSITIVE, f64::max);

    let lexical = |p: &str| get(&body, p) + get(&defs, p);
    // A changelog names every bug fixed and every feature added, and a build script every module
    // and dependency: each ranks as a test does, below the code it tells of or builds.
    let is_test = |p: &str| {
        is_test_path(p)
            || crate::lang::is_changelog(p)
            || crate::lang::is_build_script(p)
            || snapshot.entry(p).is_some_and(|e| is_bundle(e))
    };
    let mut paths: FxHashSet<&str> = FxHashSet::default();
    for m in [&body, &defs, &path, &docs] {
        paths.extend(m.keys().copied());
    }
    // The ten strongest lexical matches among the parsed files (a text file has no neighbours),
    // each scored once, a test's strength less the score's test penalty: the files a test calls
    // are what it tests, not what the query is about.
    let penalty = Weights::for_terms(terms).test_penalty;
    let seed = |p: &str| lexical(p) - if is_test(p) { penalty } else { 0.0 };
    let mut strongest: Vec<(f64, &str)> = paths.iter().filter(|p| parsed(p)).map(|p| (seed(p), *p)).collect();
    let by_strength = |a: &(f64, &str), b: &(f64, &str)| b.0.total_cmp(&a.0).then(a.1.cmp(b.1));
    if strongest.len() > 10 {
        strongest.select_nth_unstable_by(9, by_strength);
        strongest.truncate(10);
    }
    strongest.sort_by(by_strength);
    let mut neighbor_score: HashMap<usize, f64> = HashMap::new();
    for &(_, p) in &strongest {
        let strength = lexical(p);
        let Some(i) = graph.file_index(p) else { continue };
        for &other in graph.neighbours(i) {
            let entry = neighbor_score.entry(other as usize).or_default();
            *entry = entry.max(strength);
        }
    }
    let neighbor_paths: Vec<&str> = neighbor_score.keys().map(|&i| graph.files[i].as_str()).collect();
    paths.extend(neighbor_paths);

    // Only a file whose name or definitions hold a query term can be named by the query.
    let is_named = |p: &str| {
        let names = |name: &str| named.iter().any(|t| t.eq_ignore_ascii_case(name));
        let stem = p.rsplit('/').next().unwrap_or(p);
        let stem = stem.split('.').next().unwrap_or(stem);
        !named.is_empty()
            && ((path.contains_key(p) && names(stem))
                || (defs.contains_key(p)
                    && snapshot.files.get(p).is_some_and(|e| e.symbols.defs.iter().any(|d| names(d.name())))))
    };
    let mut out: Vec<Candidate> = paths
        .into_iter()
        .map(|p| {
            let i = graph.file_index(p);
            Candidate {
                path: p.to_string(),
                body: get(&body, p),
                defs: get(&defs, p),
                path_match: get(&path, p),
                docs: get(&docs, p),
                pagerank: i.map_or(0.0, |i| rank[i] / max_rank),
                neighbors: i.and_then(|i| neighbor_score.get(&i)).copied().unwrap_or(0.0) / 2.0,
                named: if is_named(p) { 1.0 } else { 0.0 },
                qualified: names.fit(p, snapshot.files.get(p).map(|e| &**e)),
                is_test: is_test(p),
                is_prose: crate::lang::is_prose(p),
            }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// A field's scores divided by the best parsed file's when `own_scale` and `parsed(path)`, else by
/// the best file's; a path looked up once.
fn scale_field<'a>(
    m: &'a FxHashMap<String, f32>,
    parsed: &dyn Fn(&str) -> bool,
    own_scale: bool,
) -> FxHashMap<&'a str, f64> {
    let of_code: Vec<bool> = m.keys().map(|p| parsed(p)).collect();
    let best = |code_only: bool| {
        m.values()
            .zip(&of_code)
            .filter(|(_, code)| !code_only || **code)
            .fold(0f32, |a, (b, _)| a.max(*b))
            .max(f32::MIN_POSITIVE) as f64
    };
    let (best_code, best_all) = (best(true), best(false));
    m.iter()
        .zip(&of_code)
        .map(|((p, s), code)| (p.as_str(), *s as f64 / if own_scale && *code { best_code } else { best_all }))
        .collect()
}

/// Lowers by `penalty` each file of a ranked list (best first) that is a versioned copy of a
/// file ranked above it: the same name in the same folders but one, where one of the two
/// differing folders names a version (`docs/manual/v1.5/manual.yml` below
/// `docs/manual/dev/manual.yml`). Six releases of one manual say the same words and would fill
/// a result. Says whether it lowered any (the caller sorts again).
pub fn demote_versioned_copies(ranked: &mut [(f64, Candidate)], penalty: f64) -> bool {
    let versioned = |folder: &str| folder.bytes().any(|b| b.is_ascii_digit());
    // The files kept so far by name and depth: a copy has both of the file it copies.
    let mut kept: FxHashMap<(&str, usize), Vec<Vec<&str>>> = FxHashMap::default();
    let mut copies: Vec<usize> = Vec::new();
    // Only the head of a ranking is read: further down, a copy takes no one's place.
    for (at, (_, c)) in ranked.iter().enumerate().take(COPIES_LOOKED_AT) {
        let parts: Vec<&str> = c.path.split('/').collect();
        let key = (parts.last().copied().unwrap_or(""), parts.len());
        let same = kept.entry(key).or_default();
        let copy = same.iter().any(|k| {
            let mut differ = (0..parts.len()).filter(|i| k[*i] != parts[*i]);
            match (differ.next(), differ.next()) {
                (Some(i), None) => versioned(k[i]) || versioned(parts[i]),
                _ => false,
            }
        });
        if copy {
            copies.push(at);
        } else {
            same.push(parts);
        }
    }
    for at in &copies {
        ranked[*at].0 -= penalty;
    }
    !copies.is_empty()
}

/// How many of a ranking's files [`demote_versioned_copies`] looks at.
const COPIES_LOOKED_AT: usize = 200;

/// One line worth showing.
#[derive(Debug, Clone, PartialEq)]
pub struct HitLine {
    pub line: u32,
    pub text: String,
    pub symbol: Option<String>,
    /// The score of the definition the line stands for (see [`best_lines`]).
    pub score: f64,
    /// That definition, as an index into the file's definitions; `None` for the lines outside
    /// every definition.
    pub def: Option<u32>,
}

/// The innermost definition containing `line`, by qualified name.
pub fn enclosing_symbol(entry: &FileEntry, line: u32) -> Option<String> {
    innermost(entry, line).map(|d| entry.symbols.defs.at(d).qualified().to_string())
}

/// The definition `line` belongs to as a function ranking counts it (see `function_unit`): the
/// outermost function around it, else the innermost definition; an index into the file's
/// definitions.
pub fn enclosing_function(entry: &FileEntry, line: u32) -> Option<u32> {
    innermost(entry, line).map(|d| function_unit(&entry.symbols.defs, d) as u32)
}

fn innermost(entry: &FileEntry, line: u32) -> Option<usize> {
    entry
        .symbols
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.line <= line && line <= d.end_line)
        .max_by_key(|(_, d)| (d.line, std::cmp::Reverse(d.end_line)))
        .map(|(i, _)| i)
}

/// Function ranking's BM25 saturation and length normalization, the weight of the query terms a
/// definition's name holds, and the factors by which a test function's score and a container's
/// (a class's own lines, a constant) are multiplied. Chosen on the localization development set
/// (facc@5 varied by under 0.02 over k1 0.3–1.0, b 0.5–0.75, name 0.5–1).
const FN_K1: f64 = 0.6;
const FN_B: f64 = 0.5;
const FN_NAME: f64 = 1.0;
const FN_TEST: f64 = 0.5;
const FN_CONTAINER: f64 = 0.3;
/// How many times its name's rarity a definition earns that the query writes as code
/// (`host()`, `` `pdb` ``): enough to put it above the functions that only say the words.
const FN_WRITTEN: f64 = 3.0;

/// What each query term weighs when lines are picked: its rarity across the files (IDF), and
/// the terms once each in the query's order. Counted once per query, for every file's lines.
pub struct TermWeights<'a> {
    idf: FxHashMap<&'a str, f64>,
    /// Names the query writes as code ([`written_names`]): a definition of one of these names
    /// earns its name's rarity [`FN_WRITTEN`] times more.
    written: Vec<String>,
    distinct: Vec<&'a str>,
    /// Each distinct term's place in `distinct`.
    index: FxHashMap<&'a str, usize>,
    /// Finds any of the terms in a line, ignoring ASCII case.
    finder: Option<aho_corasick::AhoCorasick>,
}

impl<'a> TermWeights<'a> {
    /// The weights of `words`' forms ([`query_words`]): each form's rarity, times its share of
    /// its word and its word's weight, so a folded form or a word of a report's body finds a
    /// line but counts less than the title's own words.
    pub fn new(text: &TextIndex, words: &'a [QueryWord]) -> Self {
        let mut distinct: Vec<&str> = Vec::new();
        let mut idf: FxHashMap<&'a str, f64> = FxHashMap::default();
        for word in words {
            for (form, share) in &word.forms {
                let (df, total) = text.doc_freq(form);
                let weight = (((total as f64 + 1.0) / (df as f64 + 1.0)).ln() + 1.0)
                    * f64::from(*share)
                    * f64::from(word.weight);
                match idf.get_mut(form.as_str()) {
                    Some(w) => *w = w.max(weight),
                    None => {
                        // A form the index does not hold finds no line worth a look.
                        if df == 0 && *share < 1.0 {
                            continue;
                        }
                        distinct.push(form);
                        idf.insert(form, weight);
                    }
                }
            }
        }
        let finder = aho_corasick::AhoCorasick::builder().ascii_case_insensitive(true).build(&distinct).ok();
        let index = distinct.iter().enumerate().map(|(i, t)| (*t, i)).collect();
        TermWeights { idf, written: Vec::new(), distinct, index, finder }
    }

    /// These weights, where a definition named as `query` writes code ([`written_names`])
    /// ranks first among its file's.
    pub fn naming(mut self, query: &str) -> Self {
        self.written = written_names(query);
        self
    }
}

/// A line holding query terms: its number and text, its score as a hit line, and how often it
/// holds each term (by index into the distinct terms).
struct Matched<'s> {
    line: u32,
    text: &'s str,
    score: f64,
    counts: Vec<(usize, u32)>,
}

/// The `n` lines of a file worth showing for a query, one per definition, best definition first.
///
/// Every line holding a query term is given to its function (the outermost function or method
/// around it, so closures count for their function), else to its innermost definition (a
/// class's own lines), else to the lines outside every definition, which name no symbol.
/// A definition scores BM25 over its own lines (the distinct query terms' rarity across files,
/// each term's count saturated and the definition's length normalized by its file's average),
/// plus the rarity of the query terms its name and its class's name hold. Test functions
/// (`test_*`, `mod tests`) score less: a fix is about the code; so do classes' own lines,
/// constants and the lines outside every definition, which are rarely what a report means.
/// Each definition shows its best line, labelled with it (a line scores the rarity of the
/// distinct terms it holds, the definition's own line double); when fewer definitions match
/// than `n`, the best definitions' next lines fill the rest.
pub fn best_lines(root: &Path, entry: &FileEntry, weights: &TermWeights<'_>, n: usize) -> Vec<HitLine> {
    // The lines of a file past the parse bound are looked for in its first part only: a
    // whole 500 MB file would be read for the ten lines shown.
    let read = crate::beneath::RootDir::open(root)
        .and_then(|dir| dir.read_prefix(&entry.path, crate::snapshot::MAX_PARSE_BYTES));
    let Ok(bytes) = read else { return Vec::new() };
    let Some(finder) = &weights.finder else { return Vec::new() };
    let source = crate::snapshot::utf8_lossy(&bytes);
    let defs = &entry.symbols.defs;
    let def_lines: FxHashSet<u32> = defs.iter().map(|d| d.line).collect();
    let mut lines: Vec<Matched<'_>> = Vec::new();
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
        let mut counts: Vec<(usize, u32)> = Vec::new();
        code_terms(line, |term, _, _, _| {
            if let Some(&at) = weights.index.get(term) {
                match counts.iter_mut().find(|(i, _)| *i == at) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((at, 1)),
                }
            }
        });
        if counts.is_empty() {
            continue;
        }
        // Summed in the query's order: a hash set's order would change the last bits, and
        // with them the order of equal lines, from one run to the next.
        counts.sort_unstable();
        let mut score: f64 = counts.iter().map(|(i, _)| weights.idf[weights.distinct[*i]]).sum();
        if def_lines.contains(&line_no) {
            score *= 2.0;
        }
        lines.push(Matched { line: line_no, text: line, score, counts });
    }
    if lines.is_empty() {
        return Vec::new();
    }
    // Each definition's own length: its lines less those of the definitions nested in it, but
    // for the functions nested in a function, which count for it (see `function_unit`).
    let mut own: Vec<f64> = defs.iter().map(|d| f64::from(d.end_line.saturating_sub(d.line) + 1)).collect();
    let absorbed: Vec<bool> = defs
        .iter()
        .map(|d| {
            is_function(&d) && d.parent().and_then(|p| defs.get(p as usize)).is_some_and(|p| is_function(&p))
        })
        .collect();
    for (d, absorbed) in defs.iter().zip(&absorbed) {
        if let Some(parent) = d.parent().filter(|_| !absorbed) {
            let span = f64::from(d.end_line.saturating_sub(d.line) + 1);
            if let Some(p) = own.get_mut(parent as usize) {
                *p = (*p - span).max(1.0);
            }
        }
    }
    let in_defs: f64 = defs
        .iter()
        .filter(|d| d.parent().is_none())
        .map(|d| f64::from(d.end_line.saturating_sub(d.line) + 1))
        .sum();
    let outside = (f64::from(entry.lines) - in_defs).max(1.0);
    let units = own.iter().zip(&absorbed).filter(|(_, a)| !**a).map(|(o, _)| *o);
    let average = (units.clone().sum::<f64>() + outside) / (units.count() + 1) as f64;
    // Groups of lines by innermost definition; `defs.len()` stands for the lines outside all.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut unit_of: Vec<usize> = Vec::with_capacity(lines.len());
    // The innermost definition of every line up to the last matching one: definitions in order
    // of their first line, the longer first, each over its span, so a nested one overwrites
    // the one around it.
    let last = lines.last().map_or(0, |m| m.line) as usize;
    let mut innermost = vec![usize::MAX; last + 1];
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|i| (defs[*i].line, std::cmp::Reverse(defs[*i].end_line)));
    for i in order {
        let (from, to) = (defs[i].line as usize, (defs[i].end_line as usize).min(last));
        if from <= to {
            innermost[from..=to].fill(i);
        }
    }
    for (at, Matched { line, .. }) in lines.iter().enumerate() {
        let inner = match innermost[*line as usize] {
            usize::MAX => defs.len(),
            i => function_unit(defs, i),
        };
        unit_of.push(inner);
        match groups.iter_mut().find(|(g, _)| *g == inner) {
            Some((_, members)) => members.push(at),
            None => groups.push((inner, vec![at])),
        }
    }
    let (k1, b) = (FN_K1, FN_B);
    let mut ranked: Vec<(f64, usize, Vec<usize>)> = groups
        .into_iter()
        .map(|(group, mut members)| {
            let len = own.get(group).copied().unwrap_or(outside);
            let mut tf = vec![0u32; weights.distinct.len()];
            for &m in &members {
                for (i, c) in &lines[m].counts {
                    tf[*i] += c;
                }
            }
            let norm = k1 * (1.0 - b + b * len / average);
            let mut score: f64 = tf
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(i, c)| {
                    let c = f64::from(*c);
                    weights.idf[weights.distinct[i]] * c * (k1 + 1.0) / (c + norm)
                })
                .sum();
            if let Some(def) = defs.get(group) {
                // The terms its name holds, and its class's: `FishComplete.format_completion`
                // is about fish.
                let mut named: Vec<usize> = Vec::new();
                let parent = def.parent().and_then(|p| defs.get(p as usize));
                for name in std::iter::once(def.name()).chain(parent.as_ref().map(|p| p.name())) {
                    code_terms(name, |term, _, _, _| {
                        if let Some(&at) = weights.index.get(term)
                            && !named.contains(&at)
                        {
                            named.push(at);
                        }
                    });
                }
                named.sort_unstable();
                score += FN_NAME * named.iter().map(|i| weights.idf[weights.distinct[*i]]).sum::<f64>();
                if weights.written.iter().any(|w| def.name().eq_ignore_ascii_case(w)) {
                    let rarity =
                        weights.idf.get(def.name().to_ascii_lowercase().as_str()).copied().unwrap_or(1.0);
                    score += FN_WRITTEN * rarity;
                }
                if !is_function(&def) {
                    score *= FN_CONTAINER;
                }
                if is_test_def(defs, group) {
                    score *= FN_TEST;
                }
            } else {
                // Imports, a module's docstring, top-level statements.
                score *= FN_CONTAINER;
            }
            members.sort_by(|x, y| {
                lines[*y].score.total_cmp(&lines[*x].score).then(lines[*x].line.cmp(&lines[*y].line))
            });
            (score, group, members)
        })
        .collect();
    // Best first; a tie goes to the definition that comes first in the file.
    let first_line = |r: &(f64, usize, Vec<usize>)| lines[r.2.iter().copied().min().unwrap_or(0)].line;
    ranked.sort_by(|x, y| y.0.total_cmp(&x.0).then(first_line(x).cmp(&first_line(y))));
    // Each picked line with its definition's score.
    let mut picked: Vec<(usize, f64)> = Vec::with_capacity(n);
    let mut depth = 0;
    while picked.len() < n {
        let before = picked.len();
        for (score, _, members) in &ranked {
            if picked.len() == n {
                break;
            }
            if let Some(m) = members.get(depth) {
                picked.push((*m, *score));
            }
        }
        if picked.len() == before {
            break;
        }
        depth += 1;
    }
    picked
        .into_iter()
        .map(|(m, score)| {
            let Matched { line, text, .. } = &lines[m];
            let def = defs.get(unit_of[m]).map(|_| unit_of[m] as u32);
            // A document's line is named by its heading, the structure it has without a grammar.
            let symbol = match defs.get(unit_of[m]) {
                Some(d) => Some(d.qualified().to_string()),
                None if defs.is_empty() => crate::lang::heading_at(&entry.path, &source, *line),
                None => None,
            };
            HitLine { line: *line, text: text.to_string(), symbol, score, def }
        })
        .collect()
}

/// A file's hit lines past its first are kept only where their definition scores at least this
/// share of the best definition among all the files of the result.
const HIT_SHARE: f64 = 0.5;

/// Drops the weak hit lines of a ranked result (one list of [`best_lines`] per file, in rank
/// order): each file keeps its first line, and the others only where their definition scores at
/// least half the best definition of the whole result. A file whose second and third functions
/// match only in passing gives their places to the next files' best ones, which the reader (and
/// the first five names of the result) then reach. Chosen on the localization development set
/// (function-level facc@5 +0.064 there, the same for shares 0.45–0.55), and +0.025 on the
/// TypeScript, JavaScript, Go and Java repositories it was not chosen on.
pub fn keep_strong_hits(files: &mut [Vec<HitLine>]) {
    let best = files.iter().flatten().map(|h| h.score).fold(0.0, f64::max);
    for hits in files.iter_mut() {
        let mut first = true;
        hits.retain(|h| std::mem::replace(&mut first, false) || h.score >= HIT_SHARE * best);
    }
}

/// The definition a line inside `defs[at]` belongs to: the outermost of the functions around
/// it, so a closure or a nested helper counts for the function that holds it (`option` rather
/// than `option.decorator`); a class's own lines count for the class.
fn function_unit(defs: &[Def], at: usize) -> usize {
    let mut unit = at;
    while is_function(&defs[unit])
        && let Some(parent) = defs[unit].parent().map(|p| p as usize)
        // A parent comes before its children; a saved index that says otherwise cannot loop.
        && parent < unit
        && defs.get(parent).is_some_and(is_function)
    {
        unit = parent;
    }
    unit
}

fn is_function(def: &Def) -> bool {
    matches!(def.kind, DefKind::Function | DefKind::Method)
}

/// Whether a definition is a test: named `test_*` or `test*` (Python, Go, Java), or inside a
/// module or class named like one (`mod tests`, `class TestParser`).
fn is_test_def(defs: &crate::symbols::Defs, at: usize) -> bool {
    let mut at = Some(at as u32);
    while let Some(i) = at {
        let Some(def) = defs.get(i as usize) else { return false };
        let name = def.name();
        if name.starts_with("test") || name.starts_with("Test") || name == "tests" {
            return true;
        }
        at = def.parent().filter(|p| *p < i);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's entry with no symbols.
    fn file_entry(path: &str, lang: crate::Lang, size: u64, lines: u32) -> FileEntry {
        FileEntry {
            path: path.into(),
            lang,
            size,
            mtime_ns: 0,
            hash: [0; 16],
            lines,
            symbols: Default::default(),
        }
    }

    /// Tests are test files and test definitions; examples and benchmarks, which rank below the
    /// code as tests do, are not tests of it.
    #[test]
    fn test_code_is_a_test_file_or_a_test_definition_but_not_an_example() {
        let plain = |path: &str, lang| file_entry(path, lang, 10, 1);
        for path in
            ["tests/cli.py", "pkg/test_parse.py", "cmd/root_test.go", "src/app.test.ts", "a/__tests__/b.js"]
        {
            let lang = crate::Lang::from_path(std::path::Path::new(path)).unwrap();
            assert!(is_test_code(path, &plain(path, lang), None), "{path}");
        }
        for path in ["examples/demo.py", "benches/speed.rs", "src/parser.rs"] {
            let lang = crate::Lang::from_path(std::path::Path::new(path)).unwrap();
            assert!(!is_test_code(path, &plain(path, lang), None), "{path}");
        }
        assert!(is_test_path("examples/demo.py"), "an example still ranks as a test does");
        let source = "def parse():\n    pass\n\nclass TestParse:\n    def check(self):\n        parse()\n";
        let entry = FileEntry {
            symbols: crate::extract::extract(crate::Lang::Python, source),
            ..plain("src/parse.py", crate::Lang::Python)
        };
        let at = |name: &str| entry.symbols.defs.iter().position(|d| d.name() == name).map(|i| i as u32);
        assert!(!is_test_code("src/parse.py", &entry, at("parse")));
        assert!(is_test_code("src/parse.py", &entry, at("check")), "a method of class TestParse");
        assert_eq!(enclosing_function(&entry, 6), at("check"));
        assert_eq!(enclosing_function(&entry, 2), at("parse"));
    }

    #[test]
    fn query_terms_drop_stop_words_and_keep_identifiers() {
        assert_eq!(
            query_terms("The parser fails on an empty `read_to_end` buffer"),
            ["parser", "fails", "empty", "read_to_end", "read", "end", "buffer"]
        );
        assert_eq!(query_terms("parseHTTPResponse"), ["parsehttpresponse", "parse", "http", "response"]);
        // A diagnostic's number is a term; an issue's, a version's or a digest's is not.
        assert_eq!(query_terms("Silence SC2103 (fixes #667)"), ["silence", "sc2103", "sc", "2103"]);
        assert_eq!(query_terms("bash 5.3 sha256 E12"), ["bash", "sha256", "sha", "e12"]);
    }

    #[test]
    fn query_terms_leave_out_html_comments() {
        let report = "Fix `transpose` errors\n# Tests\n<!-- Run `cargo clippy` and\ncargo test -->\nAdded a test<!--x-->case\n<!-- left open: toolkit";
        assert_eq!(query_terms(report), ["transpose", "errors", "tests", "test", "case"]);
        // A comment marker alone, or a closing one without an opening, is text as usual.
        assert_eq!(query_terms("a --> b_c"), ["b_c"]);
    }

    #[test]
    fn names_written_as_code_are_calls_and_backticked_words() {
        let report = "Patch `pdb` in `CliRunner`; changed the host() function, not iter(x) nor `a.b`";
        assert_eq!(written_names(report), ["pdb", "clirunner", "host", "iter"]);
        assert!(written_names("the host function returns an empty string").is_empty());
        assert!(written_names("fix `is` and f(x)").is_empty(), "stop words and short names");
        // The last name of a qualified one in backticks is the definition meant.
        let qualified = "`ProgressBar.generator` consumes; `Globset::backslash_escape` and `a.b.c_d`";
        assert_eq!(written_names(qualified), ["generator", "backslash_escape", "c_d"]);
        assert!(written_names("ProgressBar.generator` is odd").is_empty(), "no opening backtick");
    }

    #[test]
    fn a_function_the_task_writes_as_a_call_ranks_first_in_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let source = "def encode(path):\n    # hyperlinks: paths with spaces\n    spaces = quote(path)\n    return hyperlinks(paths, spaces)\n\ndef host():\n    return ''\n";
        std::fs::write(dir.path().join("hyperlink.py"), source).unwrap();
        let mut entry = file_entry("hyperlink.py", crate::Lang::Python, source.len() as u64, 7);
        for (name, line, end_line) in [("encode", 1, 4), ("host", 6, 7)] {
            let text = crate::symbols::DefText { qualified: name, ..Default::default() };
            entry.symbols.defs.push(name, DefKind::Function, (line, end_line), (0, 0), None, text);
        }
        let (text, _) = TextIndex::open(None).unwrap();
        let task = "Fix hyperlinks for paths with spaces: changed the host() function";
        let words = text.word_forms(&query_terms(task)).unwrap();
        let first = |weights: &TermWeights<'_>| best_lines(dir.path(), &entry, weights, 2)[0].symbol.clone();
        assert_eq!(first(&TermWeights::new(&text, &words)).as_deref(), Some("encode"), "the words alone");
        assert_eq!(first(&TermWeights::new(&text, &words).naming(task)).as_deref(), Some("host"));
    }

    #[test]
    fn a_method_whose_class_the_task_names_ranks_first_among_its_twins() {
        let dir = tempfile::tempdir().unwrap();
        let method = "    def format_completion(self, item):\n        # help text of the completion\n        return item.help\n";
        let source = format!("class BashComplete:\n{method}\n\nclass FishComplete:\n{method}");
        std::fs::write(dir.path().join("complete.py"), &source).unwrap();
        let mut entry = file_entry("complete.py", crate::Lang::Python, source.len() as u64, 9);
        entry.symbols = crate::extract(crate::Lang::Python, &source);
        let (text, _) = TextIndex::open(None).unwrap();
        let words = text.word_forms(&query_terms("fish completion shows help on many lines")).unwrap();
        let lines = best_lines(dir.path(), &entry, &TermWeights::new(&text, &words), 2);
        let symbols: Vec<_> = lines.iter().map(|l| l.symbol.as_deref().unwrap_or("")).collect();
        assert_eq!(symbols[0], "FishComplete.format_completion", "{symbols:?}");
    }

    #[test]
    fn hit_lines_survive_definitions_whose_parents_loop() {
        // A saved index is read back from disk: a definition that names itself or a later one
        // as its parent must not hang the search.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.py"),
            "def outer():\n    def inner():\n        return parse_body\n",
        )
        .unwrap();
        let mut entry = file_entry("a.py", crate::Lang::Python, 60, 3);
        for (name, line, end_line, parent) in [("outer", 1, 3, 1), ("inner", 2, 3, 1)] {
            let text = crate::symbols::DefText { qualified: name, ..Default::default() };
            entry.symbols.defs.push(name, DefKind::Function, (line, end_line), (0, 0), Some(parent), text);
        }
        let (text, _) = TextIndex::open(None).unwrap();
        let words = text.word_forms(&["parse_body".to_string()]).unwrap();
        let hits = best_lines(dir.path(), &entry, &TermWeights::new(&text, &words), 3);
        assert_eq!(
            hits.iter().map(|h| (h.line, h.symbol.as_deref())).collect::<Vec<_>>(),
            [(3, Some("inner"))]
        );
    }

    #[test]
    fn the_files_whose_neighbours_join_the_candidates_are_the_strongest_code_before_tests() {
        // Ten tests match the query best; the code they test calls a helper that shares no word
        // with the query. The helper is a candidate through the code, which the tests must not
        // push out of the ten strongest matches whose neighbours are looked at.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("tests")).unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        for i in 0..10 {
            let calls = "    parse_header(\"header\")\n".repeat(6);
            let test =
                format!("from app.parser import parse_header\n\ndef test_parse_header_{i}():\n{calls}");
            std::fs::write(root.join(format!("tests/test_parse_header_{i}.py")), test).unwrap();
        }
        std::fs::write(
            root.join("app/parser.py"),
            "from app.store import keep\n\ndef parse_header(text):\n    return keep(text)\n",
        )
        .unwrap();
        std::fs::write(root.join("app/__init__.py"), "").unwrap();
        std::fs::write(root.join("app/store.py"), "def keep(value):\n    return value\n").unwrap();
        let (index, _) = crate::Index::open(&root, crate::Filter::new(&root, &[]).unwrap(), None);
        let snapshot = index.snapshot();
        let (text, _) = TextIndex::open(None).unwrap();
        text.sync(&root, &snapshot).unwrap();
        let words = |q: &str| query_words(&text, q, &query_terms(q)).unwrap();
        let found = candidates(&snapshot, &text, &words("parse header fails"), &QueryNames::default(), false)
            .unwrap();
        let features = |path: &str| found.iter().find(|c| c.path == path).cloned();
        let parser = features("app/parser.py").expect("a lexical match");
        let strongest_test = features("tests/test_parse_header_0.py").expect("a lexical match");
        assert!(strongest_test.body + strongest_test.defs > parser.body + parser.defs);
        let store = features("app/store.py").expect("a candidate through the code that calls it");
        assert!((store.body, store.defs) == (0.0, 0.0) && store.neighbors > 0.0, "{store:?}");
        // A short query about tests keeps them among the strongest: the penalty is lifted.
        let found =
            candidates(&snapshot, &text, &words("tests for parse header"), &QueryNames::default(), false)
                .unwrap();
        assert!(found.iter().all(|c| c.path != "app/store.py"));
    }

    /// The candidates of `query` over a repository of `files` (path, text).
    fn candidates_of(files: &[(&str, String)], query: &str) -> Vec<Candidate> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let (index, _) = crate::Index::open(&root, crate::Filter::new(&root, &[]).unwrap(), None);
        let snapshot = index.snapshot();
        let (text, _) = TextIndex::open(None).unwrap();
        text.sync(&root, &snapshot).unwrap();
        let words = query_words(&text, query, &query_terms(query)).unwrap();
        candidates(&snapshot, &text, &words, &QueryNames::of(query), false).unwrap()
    }

    #[test]
    fn a_repository_of_code_ranks_its_code_as_without_its_documents() {
        let code: Vec<(&str, String)> = vec![
            ("src/maker.py", "def inline_maker():\n    return groovy_meta()\n".into()),
            (
                "src/generator.py",
                "from src.maker import inline_maker\n\ndef generate():\n    inline_maker()\n".into(),
            ),
            ("src/other.py", "def other():\n    return 1\n".into()),
        ];
        let mut with_documents = code.clone();
        // A guide that says every word of the query, many times: the best match of all.
        let guide = "Inline maker and groovy generator.\n".repeat(20);
        with_documents
            .extend([("docs/guide.md", guide), ("build.gradle", "apply plugin: 'groovy'\n".into())]);
        let query = "inline maker fails on groovy generator";
        let (alone, with) = (candidates_of(&code, query), candidates_of(&with_documents, query));
        for candidate in &alone {
            let same = with.iter().find(|c| c.path == candidate.path);
            assert_eq!(same, Some(candidate), "the code's features do not change");
        }
        let guide = with.iter().find(|c| c.path == "docs/guide.md").expect("the guide is a candidate");
        assert!(guide.body == 1.0 && guide.is_prose, "{guide:?}");
        // A short question about the guide puts code and documents on one scale: the code is
        // scaled by the guide, its better match.
        let query = "guide to the inline maker";
        let (alone, with) = (candidates_of(&code, query), candidates_of(&with_documents, query));
        let body = |found: &[Candidate], path: &str| found.iter().find(|c| c.path == path).unwrap().body;
        assert!(body(&with, "src/maker.py") < body(&alone, "src/maker.py"));
        let w = Weights::for_terms(&query_terms(query));
        let score = |path: &str| with.iter().find(|c| c.path == path).unwrap().score(&w);
        assert!(score("docs/guide.md") > score("src/maker.py"));
    }

    #[test]
    fn a_stray_code_file_among_text_files_is_scaled_with_them() {
        // A Perl library (no grammar) with one Python script: the script's weak match is not
        // the best of its own scale.
        let mut files: Vec<(&str, String)> =
            vec![("scripts/release.py", "def bump():\n    # the rack version\n    pass\n".into())];
        let perl = "sub call {\n  my ($status, $headers, $body) = $app->call($env);\n  $headers->{etag} //= digest($body);\n}\n";
        files.push(("lib/Rack/etag.pm", perl.into()));
        let names: Vec<String> = (0..6).map(|i| format!("lib/Rack/other{i}.pm")).collect();
        for name in &names {
            files.push((name, "sub other {\n  1;\n}\n".into()));
        }
        let found = candidates_of(&files, "rack etag version of the body");
        let script = found.iter().find(|c| c.path == "scripts/release.py").expect("a match");
        let etag = found.iter().find(|c| c.path == "lib/Rack/etag.pm").expect("a match");
        assert!(etag.body == 1.0 && script.body < 0.5, "{etag:?} {script:?}");
    }

    /// The paths `query` ranks over `files`, best first, as `search` orders them by score.
    fn ranked(files: &[(&str, String)], query: &str) -> Vec<String> {
        let weights = Weights::for_terms(&query_terms(query));
        let mut found: Vec<(f64, String)> =
            candidates_of(files, query).into_iter().map(|c| (c.score(&weights), c.path)).collect();
        found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        found.into_iter().map(|(_, p)| p).collect()
    }

    /// A build script names every module it builds (mockito's `settings.gradle.kts` lists the
    /// inline mock maker's project): it ranks below the code that holds the words too.
    #[test]
    fn a_build_script_ranks_below_the_code_it_builds() {
        let mut files: Vec<(&str, String)> = vec![
            (
                "settings.gradle.kts",
                "include(\"inline-mock-maker\")\ninclude(\"groovy-inline-mock-maker-projects\")\n// groovy projects fix\n".into(),
            ),
            (
                "src/main/kotlin/mocks/InlineMockMaker.kt",
                "class InlineMockMaker {\n    fun mock(type: Class<*>) = type\n}\n".into(),
            ),
        ];
        for name in ["src/main/kotlin/mocks/A.kt", "src/main/kotlin/mocks/B.kt", "src/main/kotlin/mocks/C.kt"]
        {
            files.push((name, "class Other {\n    fun other() = 1\n}\n".into()));
        }
        let order = ranked(&files, "Fix the inline mock maker for Groovy projects");
        assert_eq!(order[0], "src/main/kotlin/mocks/InlineMockMaker.kt", "{order:?}");
        assert!(crate::lang::is_build_script("swift/Package.swift"));
        assert!(!crate::lang::is_build_script("Sources/Shop/MyPackage.swift"), "a name, not a suffix");
    }

    #[test]
    fn a_plural_meets_its_singular_and_a_word_its_abbreviation() {
        let mut files: Vec<(&str, String)> = vec![
            (
                "src/build.py",
                "def make_parser(grammar):\n    return Parser(grammar)\n\n\ndef parser_for(kind):\n    return make_parser(kind)\n".into(),
            ),
            ("src/shapes.py", "KIND = 1\n\n\ndef kind_of(kind):\n    return kind.kind\n".into()),
            ("src/num.rs", "pub fn to_f64(text: &str) -> f64 {\n    text.parse().unwrap_or(0.0)\n}\n".into()),
            (
                "src/bytes.rs",
                "pub fn bytes(text: &str) -> Vec<u8> {\n    let text = text.trim();\n    text.bytes().collect()\n}\n".into(),
            ),
        ];
        for i in 0..4 {
            files.push((
                ["src/a.py", "src/b.py", "src/c.py", "src/d.py"][i],
                "def other():\n    return 1\n".into(),
            ));
        }
        assert_eq!(ranked(&files, "how are parsers made for a kind")[0], "src/build.py");
        assert_eq!(ranked(&files, "text as floats")[0], "src/num.rs");
    }

    #[test]
    fn a_qualifier_chooses_among_types_of_one_name() {
        let files: Vec<(&str, String)> = vec![
            (
                "src/config/mod.rs",
                "pub struct Loader {\n    entries: Vec<String>,\n}\n\nimpl Loader {\n    pub fn load(&self) -> Vec<String> {\n        self.entries.clone()\n    }\n}\n".into(),
            ),
            (
                "src/plugin/loader.rs",
                "/// Loads plugins; the last entry wins.\npub struct Loader {\n    last: Option<String>,\n}\n\nimpl Loader {\n    pub fn entry(&self) -> Option<String> {\n        self.last.clone()\n    }\n}\n".into(),
            ),
            ("src/main.rs", "mod config;\nmod plugin;\nfn main() {}\n".into()),
        ];
        assert_eq!(ranked(&files, "`config::Loader` drops the last entry")[0], "src/config/mod.rs");
        assert_eq!(ranked(&files, "`plugin::Loader` drops the last entry")[0], "src/plugin/loader.rs");
        assert_eq!(
            ranked(&files, "Loader in src/config/mod.rs drops the last entry")[0],
            "src/config/mod.rs"
        );
    }

    #[test]
    fn versioned_copies_of_a_better_file_rank_below_the_other_files() {
        let candidate = |path: &str| Candidate {
            path: path.to_string(),
            body: 0.0,
            defs: 0.0,
            path_match: 0.0,
            docs: 0.0,
            pagerank: 0.0,
            neighbors: 0.0,
            named: 0.0,
            qualified: 0.0,
            is_test: false,
            is_prose: false,
        };
        let mut ranked: Vec<(f64, Candidate)> = [
            (3.0, "docs/manual/dev/manual.yml"),
            (2.9, "docs/manual/v1.5/manual.yml"),
            (2.8, "docs/manual/v1.6/manual.yml"),
            (2.0, "src/main.c"),
            (1.9, "src/lib/main.c"),
            (1.8, "crates/a/mod.rs"),
            (1.7, "crates/b/mod.rs"),
        ]
        .into_iter()
        .map(|(s, p)| (s, candidate(p)))
        .collect();
        let before: Vec<f64> = ranked.iter().map(|(s, _)| *s).collect();
        assert!(demote_versioned_copies(&mut ranked, 1.0));
        let lowered: Vec<&str> = ranked
            .iter()
            .zip(&before)
            .filter(|((s, _), b)| *s < **b)
            .map(|((_, c), _)| c.path.as_str())
            .collect();
        // Files of one name in other folders (`a/mod.rs`, `b/mod.rs`, `src/lib/main.c`) are no
        // copies: no folder names a version.
        assert_eq!(lowered, ["docs/manual/v1.5/manual.yml", "docs/manual/v1.6/manual.yml"]);
    }

    #[test]
    fn a_titles_scope_names_the_folder_or_module_of_its_code() {
        assert_eq!(scopes("fix(client): enable instrumenting fetch"), ["client"]);
        assert_eq!(scopes("feat(server,react)!: stream\n\nbody: words"), ["server", "react"]);
        assert_eq!(scopes("printer: fix a panic"), ["printer"]);
        assert_eq!(scopes("fix(TAP-output): error if no test files"), ["tap-output", "tap", "output"]);
        assert_eq!(scopes("fix(`client`): skip calling `.abort()`"), ["client"]);
        assert!(scopes("fix: a typo").is_empty());
        assert!(scopes("Issue #267: Ensure hidden flags do not change help").is_empty());
        assert!(scopes("a title\n\nscope: in the body").is_empty());
        let names = QueryNames::of("fix(client): enable instrumenting fetch");
        assert_eq!(names.fit("packages/client/src/getFetch.ts", None), IN_SCOPE);
        assert_eq!(names.fit("packages/server/src/fetch.ts", None), 0.0);
        let names = QueryNames::of("LaTeX: fix mark-up when a role has two classes");
        assert_eq!(names.fit("sphinx/writers/latex.py", None), IN_SCOPE, "the module the scope names");
        assert_eq!(names.fit("sphinx/builders/latex/transforms.py", None), IN_SCOPE);
        assert_eq!(names.fit("sphinx/writers/text.py", None), 0.0);
        // A private module or folder is named without its leading underscore.
        let names = QueryNames::of("bashcomplete: adapt to changes for chain commands");
        assert_eq!(names.fit("click/_bashcomplete.py", None), IN_SCOPE, "{names:?}");
        assert_eq!(names.fit("src/_bashcomplete/core.py", None), IN_SCOPE);
        assert_eq!(names.fit("click/core.py", None), 0.0);
    }

    #[test]
    fn a_title_naming_a_command_and_its_subcommand_finds_their_file() {
        let names = QueryNames::of("Fix a bug with `us` in the `into duration` command\n\nsee into string");
        assert_eq!(names.fit("crates/nu-command/src/conversions/into/duration.rs", None), 1.0);
        assert_eq!(
            names.fit("crates/nu-command/src/conversions/into/string.rs", None),
            0.0,
            "a body's words"
        );
        assert_eq!(names.fit("crates/nu-command/src/duration.rs", None), 0.0);
        let names = QueryNames::of("overlay use: keep PWD after activating the overlay");
        assert_eq!(names.fit("crates/nu-cmd-lang/src/core_commands/overlay/use_.rs", None), 1.0);
        assert_eq!(names.fit("crates/nu-cmd-lang/src/core_commands/overlay/hide.rs", None), 0.0);
        assert_eq!(QueryNames::of("geo point parsing").fit("src/geo/point/mod.rs", None), 1.0);
        let names = QueryNames::of("Fix grep error on MacOS with ssh completion");
        assert_eq!(names.fit("completion/available/ssh.completion.bash", None), 1.0, "what and its kind");
        assert_eq!(names.fit("plugins/available/ssh.plugin.bash", None), 0.0);
        assert_eq!(names.fit("completion/ssh.bash", None), 0.0, "a name of one part and an extension");
        assert!(word_pairs("Fix: a b c_d 42 x").is_empty(), "letters only, two or more");
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(word_pairs("into duration: us\nfrom ini"), [pair("into", "duration")]);
        assert_eq!(
            word_pairs("field validators, model serializers"),
            [pair("field", "validators"), pair("model", "serializers")]
        );
        assert!(word_pairs("see crates/core/flags/hiargs.rs").is_empty(), "a path is no pair");
    }

    #[test]
    fn qualified_names_are_read_from_a_query() {
        let all = |q: &str| -> Vec<(Vec<String>, bool)> {
            Qualified::all_in(q).into_iter().map(|q| (q.segments, q.file)).collect()
        };
        let seg = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            all("`config::Loader` and TypeAdapter.validate_json, Foo#bar, a->b in src/a/b.rs or setup.cfg"),
            [
                (seg(&["config", "loader"]), false),
                (seg(&["typeadapter", "validate_json"]), false),
                (seg(&["foo", "bar"]), false),
                (seg(&["a", "b"]), false),
                (seg(&["src", "a", "b.rs"]), true),
                (seg(&["setup.cfg"]), true),
            ]
        );
        assert_eq!(
            all("Fix warnings for themes/base.theme.bash and cart.test.ts"),
            [(seg(&["themes", "base.theme.bash"]), true), (seg(&["cart.test.ts"]), true)],
            "a file's name keeps its inner dots"
        );
        assert!(all("version 1.2.3 at https://example.com/a/b, the end, in `.test.js` files.").is_empty());
        assert_eq!(
            all("\n  `a::B` fails\n\nsee c::D and src/c.rs\n"),
            [(seg(&["a", "b"]), false)],
            "a report's body names what it looked at: only its title chooses"
        );
    }

    #[test]
    fn a_reports_title_outweighs_a_quoted_manual_page() {
        let manual = "Places a line containing a group separator between contiguous groups of matches. \
                      With the only matching option, this has no effect and a warning is given.";
        let mut files: Vec<(&str, String)> = vec![
            (
                "src/output.py",
                "def print_context(lines, before):\n    \"\"\"Print the context lines before a match.\"\"\"\n    for line in lines[-before:]:\n        print(line)\n".into(),
            ),
            (
                "src/separator.py",
                format!("def separate(groups):\n    \"\"\"{manual}\"\"\"\n    return '--'.join(groups)\n"),
            ),
        ];
        for i in 0..4 {
            files.push((
                ["src/a.py", "src/b.py", "src/c.py", "src/d.py"][i],
                "def other():\n    return 1\n".into(),
            ));
        }
        let report = format!(
            "Context lines printed twice before a match\n\nThe manual says:\n\n```\n-B NUM, --before-context=NUM\n    {manual}\n```\n"
        );
        assert_eq!(ranked(&files, &report)[0], "src/output.py");
    }

    #[test]
    fn a_query_names_by_its_identifiers_of_two_parts_or_more() {
        let query = "Fix `BaseStubbing` leak in read_to_end; base stubbing parse <!-- MockMaker -->";
        assert_eq!(named_terms(query), ["basestubbing", "read_to_end"]);
        assert!(named_terms("the parser drops the last line").is_empty());
    }

    #[test]
    fn weak_hits_past_a_files_first_are_dropped_against_the_whole_results_best() {
        let hit =
            |line: u32, score: f64| HitLine { line, text: String::new(), symbol: None, score, def: None };
        let mut files =
            vec![vec![hit(1, 10.0), hit(2, 5.0), hit(3, 4.9)], vec![hit(7, 2.0), hit(8, 6.0)], vec![]];
        keep_strong_hits(&mut files);
        let lines: Vec<Vec<u32>> = files.iter().map(|f| f.iter().map(|h| h.line).collect()).collect();
        // Half the best (10) is 5: each file keeps its first line, however weak.
        assert_eq!(lines, [vec![1, 2], vec![7, 8], vec![]]);
    }

    #[test]
    fn minified_bundles_are_told_from_code() {
        let entry =
            |size: u64, lines: u32| file_entry("docs/jquery.min.js", crate::Lang::JavaScript, size, lines);
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
        assert!(is_test_path("spec/support/fake_cart.rb"), "a spec folder holds tests and their helpers");
        assert!(!is_test_path("src/testing_helpers_are_code.rs") || is_test_path("src/testing/x.rs"));
        assert!(!is_test_path("src/search.rs"));
        assert!(is_test_path("www/src/components/QuickIntro.tsx"));
        assert!(!is_test_path("doc/man_docs.go"), "cobra's doc generator is its code");
        assert!(!is_test_path("click/testing.py"));
    }
}

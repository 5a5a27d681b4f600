//! The navigate group: `definition`, `references`, `callers` (and callees), `outline` and
//! `symbols`, answered from the index's name resolution. Every answer says how many lines are
//! resolved and how many are candidates (same name, receiver unknown), resolved first.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_indexer::{
    Def, DefRef, Defs, Hit, Lang, NameMatch, Pos, Resolver, Snapshot, Target, find_definitions, shown_path,
};

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::observe::shape::{Budget, cut_chars, fits_budget};
use crate::tool::{Call, Group, Reply, Spec, Tool};
use crate::workspace::Workspace;

/// Lines listed per kind (resolved, candidates) when the call names no limit.
pub const DEFAULT_LIMIT: u64 = 50;
pub const MAX_LIMIT: u64 = 500;
/// A result line's source text is cut to this many characters.
const TEXT_CHARS: usize = 160;
/// Symbols listed when the call names no limit.
const DEFAULT_SYMBOLS: u64 = 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavParams {
    /// A name, qualified or not: `Cart.add`, `shop.cart.Cart`, `shapes::Circle::new`, `apply_discount`.
    #[serde(default)]
    pub symbol: Option<String>,
    /// A file, with line and column: the name at that position.
    #[serde(default)]
    pub path: Option<String>,
    /// 1-based line in `path`.
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub line: Option<u64>,
    /// 1-based column of the name in `line` (default: the first name on the line).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub column: Option<u64>,
    /// Only list results under this folder or file (such as `src/` or `tests/`).
    #[serde(default)]
    pub within: Option<String>,
    /// Most lines listed of each kind (default 50, at most 500).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub limit: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Where the function is called from.
    #[default]
    Callers,
    /// What the function calls.
    Callees,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallersParams {
    /// A function's name, qualified or not: `Cart.total`, `shapes::Circle::new`.
    #[serde(default)]
    pub symbol: Option<String>,
    /// A file, with line and column: the function named at that position.
    #[serde(default)]
    pub path: Option<String>,
    /// 1-based line in `path`.
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub line: Option<u64>,
    /// 1-based column of the name in `line` (default: the first name on the line).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub column: Option<u64>,
    /// `callers` (default): where it is called from; `callees`: what it calls.
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Only list results under this folder or file.
    #[serde(default)]
    pub within: Option<String>,
    /// Most lines listed of each kind (default 50, at most 500).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub limit: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct NavOutput {
    /// Lines bound by name resolution.
    pub total_resolved: u64,
    /// Lines with the same name whose receiver could not be resolved.
    pub total_candidates: u64,
    /// Resolved lines, definitions first (up to the limit).
    pub resolved: Vec<NavHit>,
    /// Candidate lines (up to the limit).
    pub candidates: Vec<NavHit>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NavHit {
    pub path: String,
    pub line: u32,
    /// The line's text, trimmed.
    pub text: String,
    /// The enclosing definition's qualified name (`<module>` at top level).
    pub symbol: String,
    /// `definition`, `call`, `import`, `type use`, `inheritance` or `reference`.
    pub relation: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineParams {
    /// A source file, relative to the root.
    pub path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolsParams {
    /// A name or part of one: exact, prefix, camel humps (`CA` finds `CartAdapter`) or letters in order.
    pub query: String,
    /// Most symbols listed (default 20, at most 500).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub limit: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolsOutput {
    /// Definitions that match (symbols) or that the file has (outline).
    pub total: u64,
    pub symbols: Vec<SymbolOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolOut {
    pub name: String,
    pub qualified_name: String,
    pub kind: String,
    pub path: String,
    pub line: u32,
    pub end_line: u32,
    pub signature: String,
}

/// Which navigation question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Question {
    Definition,
    References,
    Callers,
    Callees,
}

pub(crate) struct Definition;

impl Tool for Definition {
    type Params = NavParams;
    type Output = NavOutput;
    const SPEC: Spec = Spec::reader(
        "definition",
        "Go to definition",
        Group::Navigate,
        "Where a name is defined, resolved like a language server: by symbol (Cart.add, \
             shapes::Circle::new) or by path+line+column of a use. Says resolved vs candidates (same name, \
             receiver type unknown); each line: path:line, text, enclosing symbol, relation.",
    );

    fn run(call: &Call<'_>, params: NavParams) -> Reply {
        definition(call.ws, params).into()
    }
}

fn definition(ws: &Workspace, params: NavParams) -> Observation {
    navigate(ws, Question::Definition, params)
}

pub(crate) struct References;

impl Tool for References {
    type Params = NavParams;
    type Output = NavOutput;
    const SPEC: Spec = Spec::reader(
        "references",
        "Find references",
        Group::Navigate,
        "Every use of a definition (calls, imports, type uses, inheritance), by symbol or by \
             path+line+column; resolved by name resolution first, then candidates (same name, receiver \
             unknown), with totals. within= narrows to a folder.",
    );

    fn run(call: &Call<'_>, params: NavParams) -> Reply {
        references(call.ws, params).into()
    }
}

fn references(ws: &Workspace, params: NavParams) -> Observation {
    navigate(ws, Question::References, params)
}

pub(crate) struct Callers;

impl Tool for Callers {
    type Params = CallersParams;
    type Output = NavOutput;
    const SPEC: Spec = Spec::reader(
        "callers",
        "Callers and callees",
        Group::Navigate,
        "Who calls a function (direction=callers, default) or what it calls \
             (direction=callees), by symbol or path+line+column; resolved calls first, then candidates, \
             with totals.",
    );

    fn run(call: &Call<'_>, params: CallersParams) -> Reply {
        callers(call.ws, params).into()
    }
}

fn callers(ws: &Workspace, params: CallersParams) -> Observation {
    let question = match params.direction.unwrap_or_default() {
        Direction::Callers => Question::Callers,
        Direction::Callees => Question::Callees,
    };
    let params = NavParams {
        symbol: params.symbol,
        path: params.path,
        line: params.line,
        column: params.column,
        within: params.within,
        limit: params.limit,
    };
    navigate(ws, question, params)
}

/// What the call points at: the targets, how it was named, and a note worth passing on.
struct Subject {
    targets: Vec<Target>,
    /// Candidates when the name at a position could not be resolved.
    candidates: Vec<Target>,
    label: String,
    note: Option<String>,
    /// Named by `symbol=` rather than found at a position.
    by_symbol: bool,
}

fn navigate(ws: &Workspace, question: Question, params: NavParams) -> Observation {
    let snapshot = ws.index().snapshot();
    let resolver = snapshot.resolver();
    let subject = match subject(ws, &snapshot, &resolver, &params) {
        Ok(subject) => subject,
        Err(err) => return err,
    };
    let limit = params.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize;
    let within = match params.within.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
        None => None,
        Some(w) => match ws.root().resolve(w) {
            Ok(resolved) => Some(resolved.rel),
            Err(err) => return Observation::error(format!("cannot narrow to {err}")),
        },
    };
    let (resolved, candidates, what) = match question {
        Question::Definition => {
            let resolved: Vec<Hit> =
                subject.targets.iter().flat_map(|t| resolver.definition_hits(*t)).collect();
            let candidates: Vec<Hit> =
                subject.candidates.iter().flat_map(|t| resolver.definition_hits(*t)).collect();
            // A bare name asked by symbol= can name several definitions: say so, and how to pick.
            let what = if subject.by_symbol && subject.targets.len() > 1 {
                let example = qualified(&resolver, subject.targets[0]);
                format!(
                    "definitions named {} ({} of them; a qualified name such as {example:?} picks one)",
                    subject.label,
                    subject.targets.len()
                )
            } else {
                format!("definition of {}", subject.label)
            };
            (resolved, candidates, what)
        }
        Question::References | Question::Callers | Question::Callees => {
            if subject.targets.len() > 1 {
                return ambiguous(&resolver, &subject);
            }
            let Some(&target) = subject.targets.first() else {
                return unresolved(&resolver, &subject, question);
            };
            let (resolved, candidates) = match question {
                Question::References => resolver.references(target),
                Question::Callers => resolver.callers(target),
                _ => resolver.callees(target),
            };
            let verb = match question {
                Question::References => "references to",
                Question::Callers => "callers of",
                _ => "callees of",
            };
            (resolved, candidates, format!("{verb} {}", resolver.describe(target)))
        }
    };
    let keep = |hits: Vec<Hit>| -> Vec<Hit> {
        let mut hits: Vec<Hit> = hits
            .into_iter()
            .filter(|h| within.as_deref().is_none_or(|w| under(resolver.path(h.file), w)))
            .collect();
        // One line per source line: `a.f() + b.f()` reads once.
        let mut seen = std::collections::HashSet::new();
        hits.retain(|h| seen.insert((h.file, h.line)));
        hits
    };
    let (resolved, candidates) = (keep(resolved), keep(candidates));
    let mut lines = LineCache::new(ws);
    let resolved_out: Vec<NavHit> =
        resolved.iter().take(limit).map(|h| nav_hit(&resolver, &mut lines, h)).collect();
    let candidates_out: Vec<NavHit> =
        candidates.iter().take(limit).map(|h| nav_hit(&resolver, &mut lines, h)).collect();

    let mut text = format!(
        "{what}: {} resolved, {} {}{}\n",
        resolved.len(),
        candidates.len(),
        plural(candidates.len(), "candidate", "candidates"),
        within.as_deref().map(|w| format!(" (within {w})")).unwrap_or_default()
    );
    if let Some(note) = &subject.note {
        text.push_str(&format!("note: {note}\n"));
    }
    if resolved.is_empty() && candidates.is_empty() {
        text.push_str(&nothing_found(question));
    }
    for hit in &resolved_out {
        text.push_str(&hit_line(hit));
    }
    if resolved.len() > limit {
        text.push_str(&more_line(resolved.len() - limit, "resolved", &resolved[limit..], &resolver));
    }
    if !candidates.is_empty() {
        text.push_str(
            "candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):\n",
        );
        for hit in &candidates_out {
            text.push_str(&hit_line(hit));
        }
        if candidates.len() > limit {
            text.push_str(&more_line(
                candidates.len() - limit,
                "candidates",
                &candidates[limit..],
                &resolver,
            ));
        }
    }
    let out = NavOutput {
        total_resolved: resolved.len() as u64,
        total_candidates: candidates.len() as u64,
        resolved: resolved_out,
        candidates: candidates_out,
    };
    Observation::ok(text, json!(out))
}

fn nothing_found(question: Question) -> String {
    match question {
        Question::Definition => {
            "nothing in the repository defines it (a builtin, or a name from a package outside the repository)\n"
                .into()
        }
        Question::References => "no references in the repository\n".into(),
        Question::Callers => "no calls in the repository; references lists every other use\n".into(),
        Question::Callees => "it calls nothing defined in the repository\n".into(),
    }
}

fn more_line(n: usize, what: &str, rest: &[Hit], resolver: &Resolver) -> String {
    // Name the files that hold most of the rest, so the agent knows where to narrow.
    let mut per_file: HashMap<u32, usize> = HashMap::new();
    for h in rest {
        *per_file.entry(h.file).or_default() += 1;
    }
    let mut files: Vec<(u32, usize)> = per_file.into_iter().collect();
    files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top: Vec<String> =
        files.iter().take(5).map(|(f, n)| format!("{} ({n})", shown_path(resolver.path(*f)))).collect();
    format!(
        "… {n} more {what} in {} {}, most in {}; pass within= a folder or file to narrow, or limit= (at most {MAX_LIMIT})\n",
        files.len(),
        plural(files.len(), "file", "files"),
        top.join(", ")
    )
}

fn hit_line(hit: &NavHit) -> String {
    format!("{}:{}: {}  ({}, {})\n", shown_path(&hit.path), hit.line, hit.text, hit.relation, hit.symbol)
}

pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

fn under(path: &str, within: &str) -> bool {
    within == "." || path == within || path.starts_with(&format!("{}/", within.trim_end_matches('/')))
}

fn nav_hit(resolver: &Resolver, lines: &mut LineCache, hit: &Hit) -> NavHit {
    let path = resolver.path(hit.file).to_string();
    NavHit {
        text: lines.line(&path, hit.line),
        line: hit.line,
        path,
        symbol: hit.symbol.clone().unwrap_or_else(|| "<module>".into()),
        relation: hit.relation.as_str().into(),
    }
}

/// Source lines read from disk once per file per call.
pub(crate) struct LineCache<'a> {
    ws: &'a Workspace,
    files: HashMap<String, Vec<String>>,
}

impl<'a> LineCache<'a> {
    pub(crate) fn new(ws: &'a Workspace) -> Self {
        Self { ws, files: HashMap::new() }
    }

    /// Every line of the file at `path` (none when it cannot be read).
    pub(crate) fn lines(&mut self, path: &str) -> &[String] {
        let ws = self.ws;
        self.files.entry(path.to_string()).or_insert_with(|| {
            let text = ws.root().dir().read(path).unwrap_or_default();
            String::from_utf8_lossy(&text).lines().map(str::to_string).collect()
        })
    }

    /// Line `line` (1-based), trimmed and cut at 160 characters.
    pub(crate) fn line(&mut self, path: &str, line: u32) -> String {
        let text = self.lines(path).get(line.saturating_sub(1) as usize).map_or("", |l| l.trim());
        cut_chars(text, TEXT_CHARS)
    }
}

/// Resolves the call's arguments to what they name.
fn subject(
    ws: &Workspace,
    snapshot: &Snapshot,
    resolver: &Resolver,
    params: &NavParams,
) -> Result<Subject, Observation> {
    let symbol = params.symbol.as_deref().map(str::trim).filter(|s| !s.is_empty());
    match (&params.path, params.line, symbol) {
        (Some(path), Some(line), _) => at_position(ws, snapshot, resolver, path, line, params.column),
        (Some(path), None, None) => Err(Observation::error(format!(
            "line= is missing: pass path={path:?} with line= and column= (1-based) of a name, or symbol= such as \"Cart.add\""
        ))),
        (_, _, Some(symbol)) => {
            let targets = resolver.lookup_symbol(symbol);
            if targets.is_empty() {
                return Err(Observation::error(format!(
                    "no definition named {symbol:?} in the repository; symbols(query={symbol:?}) searches by prefix, camel humps and letters in order"
                )));
            }
            Ok(Subject {
                targets,
                candidates: Vec::new(),
                label: format!("`{symbol}`"),
                note: None,
                by_symbol: true,
            })
        }
        _ => Err(Observation::error(
            "say what to look up: symbol= (a name such as \"Cart.add\" or \"shapes::Circle::new\"), or path= with line= and column= (1-based) of a name",
        )),
    }
}

fn at_position(
    ws: &Workspace,
    snapshot: &Snapshot,
    resolver: &Resolver,
    path: &str,
    line: u64,
    column: Option<u64>,
) -> Result<Subject, Observation> {
    let rel = match ws.root().resolve(path) {
        Ok(resolved) => resolved.rel,
        Err(err) => return Err(Observation::error(format!("cannot look in {err}"))),
    };
    let Some(file) = resolver.file_index(&rel) else {
        let exists = ws.root().path().join(&rel).is_file();
        return Err(Observation::error(if exists {
            format!(
                "{rel} is not a source file tack indexes (Python and Rust); search finds text in any file"
            )
        } else {
            format!("{rel} does not exist; search or read_file(path=\".\") finds the right path")
        }));
    };
    let entry = &snapshot.files[&rel];
    let n_lines = entry.lines.max(1);
    if line == 0 || line > n_lines as u64 {
        return Err(Observation::error(format!(
            "{rel} has {n_lines} lines; line {line} is outside it (lines are 1-based)"
        )));
    }
    let line = line as u32;
    let mut lines = LineCache::new(ws);
    let column = match column {
        Some(c) if c > 0 => c.min(u32::MAX as u64 / 2) as u32,
        _ => match first_name_column(resolver, file, line) {
            Some(c) => c,
            None => {
                return Err(Observation::error(format!(
                    "no name on {rel}:{line}, which reads: {}; pick a line with a name and give its column",
                    quote(&lines.line(&rel, line))
                )));
            }
        },
    };
    let at = resolver.at(file, Pos::new(line, column)).or_else(|| {
        // A name the index keeps no reference for (`self`): read it from the line.
        let raw = ws.root().dir().read(&rel).ok()?;
        let text = String::from_utf8_lossy(&raw);
        let source_line = text.lines().nth(line as usize - 1)?;
        let (start, name) = identifier_at(resolver.entry(file).lang, source_line, column as usize)?;
        let resolution = resolver.resolve_name(file, Pos::new(line, start as u32), name);
        Some(tack_indexer::AtPosition { name: name.to_string(), resolution })
    });
    let Some(at) = at else {
        let text = lines.line(&rel, line);
        return Err(Observation::error(if text.is_empty() {
            format!("{rel}:{line} is an empty line; give the line and 1-based column of a name")
        } else {
            format!(
                "no name at {rel}:{line}:{column}; the line reads: {}; give the 1-based column of a name on it",
                quote(&text)
            )
        }));
    };
    let label = format!("`{}` at {rel}:{line}:{column}", at.name);
    Ok(Subject {
        targets: at.resolution.resolved,
        candidates: at.resolution.candidates,
        label,
        note: at.resolution.note,
        by_symbol: false,
    })
}

/// The identifier over a 1-based byte column, with its 1-based start.
fn identifier_at(lang: Lang, line: &str, column: usize) -> Option<(usize, &str)> {
    let bytes = line.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let at = column.checked_sub(1)?.min(bytes.len().checked_sub(1)?);
    let at = if is_ident(bytes[at]) { at } else { at.checked_sub(1).filter(|&a| is_ident(bytes[a]))? };
    let start = (0..=at).rev().take_while(|&i| is_ident(bytes[i])).last()?;
    let end = (at..bytes.len()).take_while(|&i| is_ident(bytes[i])).last()? + 1;
    let word = &line[start..end];
    (!word.starts_with(|c: char| c.is_ascii_digit()) && !lang.is_keyword(word)).then_some((start + 1, word))
}

fn quote(text: &str) -> String {
    format!("`{text}`")
}

/// The column of the first definition or reference on a line.
fn first_name_column(resolver: &Resolver, file: u32, line: u32) -> Option<u32> {
    let symbols = &resolver.entry(file).symbols;
    let def = symbols
        .defs
        .iter()
        .find(|d| d.line == line)
        .and_then(|d| d.header().find(d.name()))
        .map(|i| i as u32 + 1);
    let reference = symbols.refs.iter().find(|r| r.line == line).map(|r| r.column());
    match (def, reference) {
        (Some(d), Some(r)) => Some(d.min(r)),
        (d, r) => d.or(r),
    }
}

fn ambiguous(resolver: &Resolver, subject: &Subject) -> Observation {
    let mut listed: Vec<String> = subject.targets.iter().take(10).map(|t| resolver.describe(*t)).collect();
    if subject.targets.len() > 10 {
        listed.push(format!("and {} more", subject.targets.len() - 10));
    }
    let example = subject.targets.first().map(|t| qualified(resolver, *t)).unwrap_or_default();
    Observation::error(format!(
        "{} names {} definitions: {}. Pass a qualified name (symbol={example:?}) or path=, line= and column= of one",
        subject.label,
        subject.targets.len(),
        listed.join("; ")
    ))
}

fn unresolved(resolver: &Resolver, subject: &Subject, question: Question) -> Observation {
    let mut text = format!("{} is not bound to a definition tack can see", subject.label);
    if let Some(note) = &subject.note {
        text.push_str(&format!(" ({note})"));
    }
    if !subject.candidates.is_empty() {
        let listed: Vec<String> = subject.candidates.iter().take(10).map(|t| resolver.describe(*t)).collect();
        let verb = if question == Question::References { "references" } else { "callers" };
        text.push_str(&format!(
            "; definitions with that name: {}. Call {verb} with symbol= one of them, or with the path and line of its definition",
            listed.join("; ")
        ));
    } else {
        text.push_str(
            "; it is a builtin, a local of code outside the index, or defined outside the repository",
        );
    }
    Observation::error(text)
}

fn qualified(resolver: &Resolver, target: Target) -> String {
    let described = resolver.describe(target);
    described.split_whitespace().nth(1).unwrap_or(&described).to_string()
}

// ----- outline -----

pub(crate) struct Outline;

impl Tool for Outline {
    type Params = OutlineParams;
    type Output = SymbolsOutput;
    const SPEC: Spec = Spec::reader(
        "outline",
        "Outline a file",
        Group::Navigate,
        "A file's definitions as a tree: classes, functions, methods, constants with line spans \
             and signatures. Cheaper than reading the file to see what it holds.",
    );

    fn run(call: &Call<'_>, params: OutlineParams) -> Reply {
        outline(call.ws, params, call.limits.budget).into()
    }
}

fn outline(ws: &Workspace, params: OutlineParams, budget: Budget) -> Observation {
    let rel = match ws.root().resolve(&params.path) {
        Ok(resolved) => resolved.rel,
        Err(err) => return Observation::error(format!("cannot outline {err}")),
    };
    let snapshot = ws.index().snapshot();
    let Some(entry) = snapshot.files.get(&rel) else {
        let exists = ws.root().path().join(&rel).is_file();
        return Observation::error(if exists {
            format!("{rel} is not a source file tack indexes (Python and Rust); read_file shows any file")
        } else {
            format!("{rel} does not exist; read_file(path=\".\") lists the root")
        });
    };
    let defs = &entry.symbols.defs;
    // Room for the notes below the outline.
    let budget = Budget {
        tokens: budget.tokens.saturating_sub(200).max(300),
        chars: budget.chars.map(|c| c.saturating_sub(600).max(1_000)),
        bytes: budget.bytes.map(|c| c.saturating_sub(600).max(1_000)),
    };
    let header = format!(
        "{}: {} {}, {} lines{}\n",
        shown_path(&rel),
        defs.len(),
        plural(defs.len(), "definition", "definitions"),
        entry.lines,
        if let Some(too_deep) = entry.symbols.too_deep {
            format!(" ({})", too_deep.reason())
        } else if entry.symbols.syntax_issues > 0 {
            format!(" ({} syntax errors; what parses is shown)", entry.symbols.syntax_issues)
        } else {
            String::new()
        }
    );
    // The most detailed view that fits: every definition with its signature; then nested
    // ones by name only; then top-level ones with counts of what they hold; then names only.
    let mut text = String::new();
    for detail in [Detail::Full, Detail::NestedNames, Detail::TopLevel, Detail::TopNames] {
        text = format!("{header}{}", render_outline(defs, detail));
        if fits_budget(&text, budget) {
            if detail != Detail::Full {
                text.push_str(&format!(
                    "(shortened to fit: {}; read_file(path={rel:?}, start=N) shows any part)\n",
                    detail.describe()
                ));
            }
            break;
        }
    }
    if entry.size > tack_indexer::MAX_PARSE_BYTES {
        text.push_str(&format!(
            "the file is larger than {} MB, so tack does not parse it; read_file(path={rel:?}) pages it\n",
            tack_indexer::MAX_PARSE_BYTES / (1024 * 1024)
        ));
    } else if defs.is_empty() {
        text.push_str("no definitions (functions, classes, constants) in this file\n");
    }
    let out = SymbolsOutput {
        total: defs.len() as u64,
        symbols: defs.iter().map(|d| symbol_out(&rel, d)).collect(),
    };
    Observation::ok(text, json!(out))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    Full,
    NestedNames,
    TopLevel,
    TopNames,
}

impl Detail {
    fn describe(self) -> &'static str {
        match self {
            Detail::Full => "everything",
            Detail::NestedNames => "nested definitions by name and line",
            Detail::TopLevel => "top-level definitions, with how many they hold",
            Detail::TopNames => "top-level definitions by name and line",
        }
    }
}

fn depth(defs: &[Def], def: &Def) -> usize {
    let mut n = 0;
    let mut parent = def.parent();
    while let Some(p) = parent {
        n += 1;
        parent = defs[p as usize].parent();
    }
    n
}

fn render_outline(defs: &Defs, detail: Detail) -> String {
    let mut out = String::new();
    match detail {
        Detail::Full => {
            for def in defs {
                let indent = "  ".repeat(depth(defs, &def));
                out.push_str(&format!(
                    "{indent}{}-{} {}: {}\n",
                    def.line,
                    def.end_line,
                    def.kind.as_str(),
                    def.signature()
                ));
            }
        }
        Detail::NestedNames => {
            for (i, def) in defs.iter().enumerate() {
                if def.parent().is_some() {
                    continue;
                }
                out.push_str(&format!(
                    "{}-{} {}: {}\n",
                    def.line,
                    def.end_line,
                    def.kind.as_str(),
                    def.signature()
                ));
                let children: Vec<String> = defs
                    .iter()
                    .filter(|d| d.parent() == Some(i as u32))
                    .map(|d| format!("{} {}", d.name(), d.line))
                    .collect();
                if !children.is_empty() {
                    out.push_str(&format!("  {}\n", children.join(", ")));
                }
            }
        }
        Detail::TopLevel => {
            for (i, def) in defs.iter().enumerate() {
                if def.parent().is_some() {
                    continue;
                }
                let held = defs.iter().filter(|d| d.parent() == Some(i as u32)).count();
                let held = if held > 0 { format!(" ({held} inside)") } else { String::new() };
                out.push_str(&format!(
                    "{}-{} {}: {}{held}\n",
                    def.line,
                    def.end_line,
                    def.kind.as_str(),
                    def.signature()
                ));
            }
        }
        Detail::TopNames => {
            let names: Vec<String> = defs
                .iter()
                .filter(|d| d.parent().is_none())
                .map(|d| format!("{} {}", d.name(), d.line))
                .collect();
            for chunk in names.chunks(8) {
                out.push_str(&chunk.join(", "));
                out.push('\n');
            }
        }
    }
    out
}

fn symbol_out(path: &str, def: DefRef) -> SymbolOut {
    SymbolOut {
        name: def.name().to_string(),
        qualified_name: def.qualified().to_string(),
        kind: def.kind.as_str().into(),
        path: path.to_string(),
        line: def.line,
        end_line: def.end_line,
        signature: def.signature().to_string(),
    }
}

// ----- symbols -----

pub(crate) struct Symbols;

impl Tool for Symbols {
    type Params = SymbolsParams;
    type Output = SymbolsOutput;
    const SPEC: Spec = Spec::reader(
        "symbols",
        "Find symbols by name",
        Group::Navigate,
        "Find definitions by name across the repository: exact, prefix, camel humps (CA finds \
             CartAdapter), substring, letters in order. Each with kind, path:line and signature.",
    );

    fn run(call: &Call<'_>, params: SymbolsParams) -> Reply {
        symbols(call.ws, params).into()
    }
}

fn symbols(ws: &Workspace, params: SymbolsParams) -> Observation {
    let query = params.query.trim();
    if query.is_empty() {
        return Observation::error(
            "query is empty; pass part of a name, such as \"Cart\", \"apply_disc\" or \"CA\" (camel humps)",
        );
    }
    let limit = params.limit.unwrap_or(DEFAULT_SYMBOLS).clamp(1, MAX_LIMIT) as usize;
    let snapshot = ws.index().snapshot();
    let found = find_definitions(&snapshot, query);
    let total = found.len();
    let mut counts: Vec<(NameMatch, usize)> = Vec::new();
    for (how, ..) in &found {
        let how = if *how == NameMatch::ExactIgnoringCase { NameMatch::Exact } else { *how };
        match counts.last_mut() {
            Some((m, n)) if *m == how => *n += 1,
            _ => counts.push((how, 1)),
        }
    }
    let mut merged: Vec<(NameMatch, usize)> = Vec::new();
    for (m, n) in counts {
        match merged.iter_mut().find(|(x, _)| *x == m) {
            Some((_, total)) => *total += n,
            None => merged.push((m, n)),
        }
    }
    let breakdown: Vec<String> = merged.iter().map(|(m, n)| format!("{n} {}", m.as_str())).collect();
    let mut text = if total == 0 {
        format!(
            "no definition matches {query:?}; search(query={query:?}) finds it in text (comments, strings, other languages)\n"
        )
    } else {
        format!(
            "{total} {} match {query:?} ({}){}\n",
            plural(total, "definition", "definitions"),
            breakdown.join(", "),
            if total > limit { format!("; showing the best {limit}") } else { String::new() }
        )
    };
    let shown: Vec<SymbolOut> =
        found.iter().take(limit).map(|(_, _, path, def)| symbol_out(path, *def)).collect();
    for s in &shown {
        text.push_str(&format!(
            "{}:{} {} {}: {}\n",
            shown_path(&s.path),
            s.line,
            s.kind,
            s.qualified_name,
            s.signature
        ));
    }
    if total > limit {
        text.push_str(&format!(
            "… {} more; a longer or qualified query (such as \"Cart.add\") narrows, limit= shows more (at most {MAX_LIMIT})\n",
            total - limit
        ));
    }
    Observation::ok(text, json!(SymbolsOutput { total: total as u64, symbols: shown }))
}

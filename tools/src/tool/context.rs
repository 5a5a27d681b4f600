//! `context`: one call for a task. From a bug report, a failing test's output, a request or
//! identifiers, it gives the functions the task most likely means (the `auto` search's function
//! ranking) with their bodies, the callers, callees and tests of the first few as one-line
//! signatures with `path:line`, then the files ranked after them. Everything is packed to a
//! token budget in that order of value, and the result says what it left out.

use std::borrow::Cow;
use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_indexer::{
    DefRef, HitLine, RefKind, Resolver, Share, Snapshot, Target, TermWeights, best_lines, enclosing_function,
    is_test_code, keep_strong_hits, query_terms, shown_path,
};

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::observe::shape::{Budget, count_tokens, cut_chars, fits_budget, shorten_line};
use crate::tool::navigate::{LineCache, plural};
use crate::tool::repo_map::one_or_many;
use crate::tool::search::{RankedFiles, rank_files};
use crate::tool::{AcrossCall, Call, Group, Reply, Spec, Tool};
use crate::workspace::Workspace;

/// The least budget a call may ask for (the default is the limits' `context_tokens`).
const MIN_TOKENS: u64 = 300;
/// Files whose functions are ranked, and the function lines each may give.
const FILES: usize = 12;
const LINES_PER_FILE: usize = 6;
/// A budget's tokens per function shown: 2,000 tokens show up to 11 functions.
const TOKENS_PER_FUNCTION: u64 = 180;
/// The functions whose callers, callees and tests are listed, and how many of each (a line
/// names how to list the rest). Two callees instead of three cut a result by 21 tokens on the
/// development set and lost no fixed function; the links of the first two functions alone, not
/// three, cut it by 61 more and lost none: a third function is the fix less often than the first
/// two, and its links less often still (`BENCHMARKS.md`).
const LINKED: usize = 2;
const LINKS: usize = 2;
const CALLERS: usize = 2;
const TESTS: usize = 2;
/// A file's best functions taken before the next files' (the rest come after every file's):
/// a fix lies in the second or third file ranked as often as in the first's fifth function.
/// On the development set 4 showed two more fixed functions than no bound and lost none; 3
/// lost two others, 5 and more changed nothing (`BENCHMARKS.md`).
const FIRST_PER_FILE: usize = 4;
/// For a report, the files ranked first whose weakly matching functions are shown too (the rest
/// give those places to the next files' best): on the development set 1 showed two more fixed
/// functions than 0 and lost none; 2 lost one of those two again (`BENCHMARKS.md`).
const WHOLE_FILES: usize = 1;
/// The functions shown with more than their signature and best line; past them, the tail.
const HEAD: usize = 3;
/// A function in the tail is shown only when it scores at least this share of the best
/// function: a weaker one says less than the files listed next. On the development set a third
/// kept every fixed function seen and cut a result's tokens by a tenth (`BENCHMARKS.md`).
const TAIL_SHARE: f64 = 1.0 / 3.0;
/// Files listed after the functions (the closing line counts the rest, which `search` ranks):
/// on the development set the fourth and fifth named a fixed file twice in 110 tasks, both
/// where no fixed function was shown, at 21 tokens a result.
const NEXT_FILES: usize = 3;
/// Tokens kept back for the list of next files and the closing line.
const RESERVE: usize = 120;
/// A signature or a listed line is cut to this many characters.
const LINE_CHARS: usize = 100;
/// The longest task searched as written, in bytes; a longer one is cut by [`cut_task`].
const MAX_TASK_BYTES: usize = 16 * 1024;
/// Of a task cut, the head kept as written: a report's title and first lines.
const TASK_HEAD_BYTES: usize = 4 * 1024;
/// A longer word is no name a question means (a hash, base64, a minified line).
const MAX_WORD_BYTES: usize = 80;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextParams {
    /// A bug report, a failing test's output, a request or identifiers, as written.
    pub task: String,
    /// Token budget (default 2000).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub tokens: Option<u64>,
    /// Paths or symbols to put first.
    #[serde(default, deserialize_with = "one_or_many")]
    pub focus: Option<Vec<String>>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ContextOutput {
    /// The functions shown, best first.
    pub functions: Vec<FunctionOut>,
    /// Files ranked after the functions' files, best first.
    pub next_files: Vec<String>,
    /// Ranked functions the budget left out.
    pub functions_left_out: u64,
    /// Tokens in the text.
    pub tokens: u64,
    /// The repository shown, when several were asked (`repo="*"`): the one the task matches best.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// The other repositories' best files for the task, as `[repository] path`, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FunctionOut {
    pub path: String,
    /// Qualified name: `Session.request`, `Searcher::search_slice`.
    pub symbol: String,
    pub line: u32,
    pub end_line: u32,
    /// Every line of the body is shown (else the lines around the matches).
    pub whole: bool,
    /// A passage of a file without definitions (a document, a script no grammar reads): its
    /// lines around the matches, `symbol` the heading above them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub passage: bool,
    pub callers: Vec<Link>,
    pub callees: Vec<Link>,
    pub tests: Vec<Link>,
}

/// A line elsewhere: a call site, a callee's definition, a test's call.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Link {
    pub path: String,
    pub line: u32,
    /// The enclosing function's signature (for a callee, its own), or the line's text.
    pub signature: String,
    /// A test listed because it calls a function of this name that resolution could not tell
    /// from others: shown only when no test's call resolves to the function.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_name: bool,
}

pub(crate) struct Context;

impl Tool for Context {
    type Params = ContextParams;
    type Output = ContextOutput;
    const SPEC: Spec = Spec::reader(
        "context",
        "Code for a task",
        Group::Core,
        "Start here for a task (a bug report, a failing test's output, a request): in one call, the \
             functions it most likely means with their bodies, callers, callees and tests as path:line, \
             and the files to read next.",
    );

    fn run(call: &Call<'_>, params: ContextParams) -> Reply {
        context(call.ws, params, call.limits.budget, call.limits.context_tokens).into()
    }

    const ACROSS: Option<fn(&AcrossCall<'_>, ContextParams) -> Observation> = Some(context_across);

    fn guide(_ws: &Workspace) -> Option<String> {
        Some(
            "For a task (a bug report, a failing test, a request), call context first: the functions it is \
             about, with bodies, callers, callees and tests, in one call; search and read_file follow up. "
                .into(),
        )
    }
}

/// A function to show: where it is, and the lines the ranking picked in it. A file without
/// definitions has no function: its hit lines are shown as a passage (`def` is `None`).
struct Function {
    path: String,
    def: Option<u32>,
    hits: Vec<u32>,
    /// Its definition's score in the ranking of its file's functions (a focus's: infinite).
    score: f64,
}

/// `functions` (in rank order, a file's together) with each file's first `most` before any
/// file's later ones, each part in its order.
fn first_of_each_file(functions: Vec<Function>, most: usize) -> Vec<Function> {
    let mut taken: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let (first, later): (Vec<Function>, Vec<Function>) = functions.into_iter().partition(|f| {
        let n = taken.entry(f.path.clone()).or_default();
        *n += 1;
        *n <= most
    });
    first.into_iter().chain(later).collect()
}

/// `functions` without those past the [`HEAD`] that score under [`TAIL_SHARE`] of the best
/// (a focus's are always kept): their files are listed with the next ones instead.
fn weak_tail_dropped(functions: Vec<Function>) -> Vec<Function> {
    let best = functions.iter().map(|f| f.score).filter(|s| s.is_finite()).fold(0.0, f64::max);
    functions
        .into_iter()
        .enumerate()
        .filter(|(at, f)| *at < HEAD || f.score >= TAIL_SHARE * best)
        .map(|(_, f)| f)
        .collect()
}

/// Drops the weak hits of the files `top` names ([`keep_strong_hits`]), but for a report
/// (`report`) the first [`WHOLE_FILES`] keep those in functions: a report's body names much in
/// passing, and the function it is about, in the file ranked first more often than in any other,
/// may match only so; the next files' best are more often not it. A question is precise, and a
/// type's own lines (its header, its fields) say less than the method of it shown already.
fn keep_hits(snapshot: &Snapshot, top: &[&str], hits: &mut Vec<Vec<HitLine>>, report: bool) {
    if !report {
        keep_strong_hits(hits);
        return;
    }
    let mut strong = hits.clone();
    keep_strong_hits(&mut strong);
    for ((path, all), kept) in top.iter().zip(hits.iter()).zip(strong.iter_mut()).take(WHOLE_FILES) {
        let Some(entry) = snapshot.files.get(*path) else { continue };
        let function = |h: &HitLine| {
            h.def.and_then(|d| entry.symbols.defs.get(d as usize)).is_some_and(|d| {
                matches!(d.kind, tack_indexer::DefKind::Function | tack_indexer::DefKind::Method)
            })
        };
        *kept = all.iter().filter(|h| kept.contains(h) || function(h)).cloned().collect();
    }
    *hits = strong;
}

/// Whether a task is a report: a first line (its title) and more after it.
fn is_report(task: &str) -> bool {
    task.trim().lines().skip(1).any(|line| !line.trim().is_empty())
}

/// How much of a body to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// Every line but comments and the docstring past its first line, when at most this many
    /// are left.
    Code(u32),
    /// The signature and at most this many of the best matching lines (the second field), each
    /// with this many lines around it (the first).
    Around(u32, usize),
}

fn context(ws: &Workspace, params: ContextParams, cap: Budget, default_tokens: u64) -> Observation {
    let task = params.task.trim();
    if task.is_empty() {
        return Observation::error(
            "context needs the task: pass task=\"...\" (a bug report, a failing test's output, a request, or identifiers)",
        );
    }
    let task = cut_task(task);
    let task = task.as_ref();
    let tokens = (params.tokens.unwrap_or(default_tokens).max(MIN_TOKENS) as usize).min(cap.tokens);
    let budget = Budget { tokens, ..cap };
    let snapshot = ws.index().snapshot();
    let resolver = snapshot.resolver();
    let focus = Focus::new(ws, &resolver, params.focus.as_deref().unwrap_or_default());
    let query =
        if focus.words.is_empty() { task.to_string() } else { format!("{task} {}", focus.words.join(" ")) };
    let terms = query_terms(&query);
    if terms.is_empty() && focus.defs.is_empty() {
        return Observation::error(
            "the task has no words to search for; pass the report, error or identifiers as written",
        );
    }
    let RankedFiles { text, words, mut files } = if terms.is_empty() {
        RankedFiles {
            words: Vec::new(),
            text: match ws.text_index(&snapshot) {
                Ok(text) => text,
                Err(err) => return Observation::error(format!("cannot rank files: {err}")),
            },
            files: Vec::new(),
        }
    } else {
        match rank_files(ws, &snapshot, &|_| true, &query, &terms) {
            Ok(ranked) => ranked,
            Err(err) => return Observation::error(format!("cannot rank files: {err}")),
        }
    };
    // Files under a focus path first, in their own order.
    files.sort_by_key(|(_, c)| !focus.admits_first(&c.path));
    let weights = TermWeights::new(&text, &words).naming(&query);
    let max_functions = (tokens as u64 / TOKENS_PER_FUNCTION).max(3) as usize;
    // A larger budget looks at more files.
    let top: Vec<&str> = files.iter().take(FILES.max(max_functions)).map(|(_, c)| c.path.as_str()).collect();
    let mut hits: Vec<Vec<HitLine>> = top
        .iter()
        .map(|path| {
            snapshot
                .entry(path)
                .map(|entry| best_lines(ws.root().path(), entry, &weights, LINES_PER_FILE))
                .unwrap_or_default()
        })
        .collect();
    keep_hits(&snapshot, &top, &mut hits, is_report(task));

    let mut functions: Vec<Function> = focus
        .defs
        .iter()
        .map(|(path, def)| Function {
            path: path.clone(),
            def: Some(*def),
            hits: Vec::new(),
            score: f64::INFINITY,
        })
        .collect();
    for (path, lines) in top.iter().zip(&hits) {
        // A file no grammar reads (a document, a script) is shown as the passage around its best
        // lines; a parsed file's lines outside its definitions (imports) are not shown.
        let passage = snapshot.texts.contains_key(*path);
        for hit in lines {
            let def = match hit.def {
                Some(def) => Some(def),
                None if passage => None,
                None => continue,
            };
            match functions.iter_mut().find(|f| f.path == *path && f.def == def) {
                Some(f) => f.hits.push(hit.line),
                None => functions.push(Function {
                    path: path.to_string(),
                    def,
                    hits: vec![hit.line],
                    score: hit.score,
                }),
            }
        }
    }
    let functions = weak_tail_dropped(first_of_each_file(functions, FIRST_PER_FILE));
    let mut sources = LineCache::new(ws);
    // Each section with the place of its function among those shown, and whether it is the body.
    let mut sections: Vec<(usize, bool, String)> = Vec::new();
    let mut used = 0usize;
    let mut shown: Vec<FunctionOut> = Vec::new();
    let room = tokens.saturating_sub(RESERVE);
    for function in &functions {
        if shown.len() == max_functions {
            break;
        }
        let Some(at) = function.def else {
            let lines = sources.lines(&function.path);
            let (around, most) = match shown.len() {
                0 => (3, 6),
                1 | 2 => (2, 4),
                _ => (1, 2),
            };
            let Some((block, first, last, heading)) = (0..=around).rev().find_map(|around| {
                let passage = render_passage(&function.path, &function.hits, lines, around, most)?;
                (used + count_tokens(&passage.0) <= room).then_some(passage)
            }) else {
                continue;
            };
            used += count_tokens(&block);
            sections.push((shown.len(), true, block));
            shown.push(FunctionOut {
                path: function.path.clone(),
                symbol: heading.unwrap_or_default(),
                line: first,
                end_line: last,
                whole: false,
                passage: true,
                callers: Vec::new(),
                callees: Vec::new(),
                tests: Vec::new(),
            });
            continue;
        };
        let Some(entry) = snapshot.files.get(&function.path) else { continue };
        let Some(def) = entry.symbols.defs.get(at as usize) else { continue };
        let lines = sources.lines(&function.path);
        // The detail goes by the function's place among those shown: the first whole up to 30
        // lines, else its best lines with one line around each; the second and third whole up
        // to 15, else their best lines alone; from the fourth on, the signature and its best
        // line, enough to tell it is the one (on the development set the first three held 81 of
        // the 96 fixed functions seen; these bounds, instead of 40 lines, two around and one,
        // with two callees and three next files took a result from 1,152 tokens to 1,001 and
        // lost none, `BENCHMARKS.md`).
        let tries: &[Detail] = match shown.len() {
            0 => &[Detail::Code(30), Detail::Around(1, 6), Detail::Around(0, 6)],
            1..HEAD => &[Detail::Code(15), Detail::Around(0, 4)],
            _ => &[Detail::Around(0, 1)],
        };
        let Some((block, whole, cost)) = tries.iter().find_map(|detail| {
            let (block, whole) = render_body(&function.path, def, &function.hits, &terms, lines, *detail);
            let cost = count_tokens(&block);
            (!block.is_empty() && used + cost <= room).then_some((block, whole, cost))
        }) else {
            continue;
        };
        used += cost;
        sections.push((shown.len(), true, block));
        let mut out = FunctionOut {
            path: function.path.clone(),
            symbol: def.qualified().to_string(),
            line: def.line,
            end_line: def.end_line,
            whole,
            passage: false,
            callers: Vec::new(),
            callees: Vec::new(),
            tests: Vec::new(),
        };
        if shown.len() < LINKED
            && let Some(file) = resolver.file_index(&function.path)
        {
            let graph = links(&snapshot, &resolver, &mut sources, file, at);
            let block = render_links(&graph, &function.path, def);
            let cost = count_tokens(&block);
            if !block.is_empty() && used + cost <= room {
                used += cost;
                sections.push((shown.len(), false, block));
                (out.callers, out.callees, out.tests) = (graph.callers, graph.callees, graph.tests);
            }
        }
        shown.push(out);
    }
    // The files ranked after those whose functions are shown, with the names their hits name.
    let shown_files: Vec<&str> = shown.iter().map(|f| f.path.as_str()).collect();
    let mut next: Vec<(String, String)> = Vec::new();
    for (i, (_, c)) in files.iter().enumerate() {
        if next.len() == NEXT_FILES {
            break;
        }
        if shown_files.contains(&c.path.as_str()) {
            continue;
        }
        let mut names: Vec<&str> = Vec::new();
        for h in hits.get(i).into_iter().flatten() {
            if let Some(s) = h.symbol.as_deref()
                && !names.contains(&s)
                && names.len() < 3
            {
                names.push(s);
            }
        }
        next.push((c.path.clone(), names.join(", ")));
    }
    if shown.is_empty() && next.is_empty() {
        return Observation::ok(
            "nothing in the repository matches the task; try other words, or search(query=..., mode=text)\n",
            json!(ContextOutput {
                functions: Vec::new(),
                next_files: Vec::new(),
                functions_left_out: 0,
                tokens: 0,
                repo: None,
                elsewhere: Vec::new(),
            }),
        );
    }
    // Within the client's own length limit too: the last sections go first, and the header and
    // the closing lines count what is left.
    // The next files go first, from the last; then sections, from the last.
    let mut text = render(&shown, &sections, &next, functions.len(), files.len());
    while !fits_budget(&text, budget) {
        if next.pop().is_none() {
            let Some((at, body, _)) = sections.pop() else { break };
            if body {
                shown.truncate(at);
            } else if let Some(f) = shown.get_mut(at) {
                (f.callers, f.callees, f.tests) = (Vec::new(), Vec::new(), Vec::new());
            }
        }
        text = render(&shown, &sections, &next, functions.len(), files.len());
    }
    let out = ContextOutput {
        next_files: next.into_iter().map(|(p, _)| p).collect(),
        functions_left_out: (functions.len() - shown.len()) as u64,
        tokens: count_tokens(&text) as u64,
        functions: shown,
        repo: None,
        elsewhere: Vec::new(),
    };
    Observation::ok(text, json!(out))
}

/// Files of each other repository named after the one `context` shows.
const ELSEWHERE_FILES: usize = 2;

/// `context` across repositories: the task is ranked in each in turn; the repository whose
/// best file scores highest answers as `context` does, in the budget left after the other
/// repositories' best files, which follow it one line each.
fn context_across(call: &AcrossCall<'_>, params: ContextParams) -> Observation {
    let task = params.task.trim();
    if task.is_empty() {
        return Observation::error(
            "context needs the task: pass task=\"...\" (a bug report, a failing test's output, a request, or identifiers)",
        );
    }
    let cut = cut_task(task);
    let focus = params.focus.as_deref().unwrap_or_default();
    let query = if focus.is_empty() { cut.to_string() } else { format!("{cut} {}", focus.join(" ")) };
    let terms = query_terms(&query);
    let (found, mut failed) = call.each(|ws| {
        let snapshot = ws.index().snapshot();
        rank_files(ws, &snapshot, &|_| true, &query, &terms).map(|ranked| {
            ranked
                .files
                .iter()
                .take(ELSEWHERE_FILES)
                .map(|(score, c)| (*score, c.path.clone()))
                .collect::<Vec<_>>()
        })
    });
    let names = call.repos.names;
    let mut ranked: Vec<(usize, Vec<(f64, String)>)> = Vec::new();
    for (at, result) in found {
        match result {
            Ok(files) if !files.is_empty() => ranked.push((at, files)),
            Ok(_) => {}
            Err(err) => failed.push(format!("{}: {err}", names[at])),
        }
    }
    // Best first; a tie goes to the repository named first.
    ranked.sort_by(|a, b| b.1[0].0.total_cmp(&a.1[0].0).then(a.0.cmp(&b.0)));
    let Some(&(best, _)) = ranked.first() else {
        let mut text = format!("no repository's files match the task ({})\n", names.join(", "));
        if !failed.is_empty() {
            text.push_str(&format!("not searched: {}\n", failed.join("; ")));
        }
        return Observation::error(text);
    };
    let elsewhere: Vec<String> = ranked[1..]
        .iter()
        .flat_map(|(at, files)| {
            files.iter().map(move |(_, path)| format!("[{}] {}", names[*at], shown_path(path)))
        })
        .collect();
    let mut tail = String::new();
    if !elsewhere.is_empty() {
        tail.push_str("other repositories' best files (pass repo=\"name\" to look there):\n");
        for line in &elsewhere {
            tail.push_str(&format!("  {line}\n"));
        }
    }
    if !failed.is_empty() {
        tail.push_str(&format!("not searched: {}\n", failed.join("; ")));
    }
    let head = format!("repository {}, where the task matches best:\n", names[best]);
    let cap = call.limits.budget;
    let tokens =
        (params.tokens.unwrap_or(call.limits.context_tokens).max(MIN_TOKENS) as usize).min(cap.tokens);
    let spent = count_tokens(&head) + count_tokens(&tail);
    let own_tokens = tokens.saturating_sub(spent).max(MIN_TOKENS as usize) as u64;
    let mut own = Some(ContextParams { tokens: Some(own_tokens), ..params });
    let mut shown = None;
    if let Err(err) = (call.repos.visit)(best, &mut |ws| {
        if let Some(params) = own.take() {
            shown = Some(context(ws, params, cap, call.limits.context_tokens));
        }
    }) {
        return Observation::error(format!("cannot open the repository {}: {err}", names[best]));
    }
    let Some(mut obs) = shown else {
        return Observation::error("the repository closed during the call; call again");
    };
    if obs.is_error {
        return obs;
    }
    obs.text = format!("{head}{}{tail}", obs.text);
    if let Some(serde_json::Value::Object(data)) = &mut obs.structured {
        data.insert("repo".into(), json!(names[best]));
        if !elsewhere.is_empty() {
            data.insert("elsewhere".into(), json!(elsewhere));
        }
        data.insert("tokens".into(), json!(count_tokens(&obs.text)));
    }
    obs
}

/// The whole text: a header counting the functions shown, their sections, the next files, and
/// what was left out (of `ranked` functions and `matching` files) with how to get it.
fn render(
    shown: &[FunctionOut],
    sections: &[(usize, bool, String)],
    next: &[(String, String)],
    ranked: usize,
    matching: usize,
) -> String {
    let mut text = if shown.is_empty() && ranked > 0 {
        "no function fits the budget; raise tokens=, or read the files below\n".to_string()
    } else if shown.is_empty() {
        "no function matches the task; the files below do\n".to_string()
    } else {
        let whole = shown.iter().filter(|f| f.whole).count();
        let passages = shown.iter().filter(|f| f.passage).count();
        let functions = shown.len() - passages;
        let mut counted = Vec::new();
        if functions > 0 || passages == 0 {
            counted.push(format!("{functions} {}", plural(functions, "function", "functions")));
        }
        if passages > 0 {
            counted.push(format!("{passages} {}", plural(passages, "passage", "passages")));
        }
        let legend = if functions > 0 {
            format!("{whole} whole; ⋮ marks lines left out; ← caller, → callee, test: a test calling it")
        } else {
            "⋮ marks lines left out".to_string()
        };
        format!("{} for the task, best first ({legend})\n", counted.join(" and "))
    };
    for (_, _, section) in sections {
        text.push_str(section);
    }
    if !next.is_empty() {
        text.push_str("next files:\n");
        for (path, names) in next {
            if names.is_empty() {
                text.push_str(&format!("  {}\n", shown_path(path)));
            } else {
                text.push_str(&format!("  {}: {names}\n", shown_path(path)));
            }
        }
    }
    let functions_left_out = ranked - shown.len();
    let more_files = matching.saturating_sub(shown_files_count(shown) + next.len());
    let mut left: Vec<String> = Vec::new();
    if functions_left_out > 0 {
        left.push(format!(
            "{functions_left_out} more ranked {}",
            plural(functions_left_out, "function", "functions")
        ));
    }
    if more_files > 0 {
        left.push(format!("{more_files} more matching {}", plural(more_files, "file", "files")));
    }
    if !left.is_empty() {
        text.push_str(&format!(
            "left out: {}; search(query=...) ranks every file, read_file(path=..., start=...) shows a whole body, callers(symbol=...) lists every caller\n",
            left.join(", ")
        ));
    }
    text
}

fn shown_files_count(shown: &[FunctionOut]) -> usize {
    let mut paths: Vec<&str> = shown.iter().map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    paths.len()
}

/// A function's block: a header naming it with its path and lines, then numbered lines, `⋮`
/// where lines are left out. Says whether the whole body is shown.
fn render_body(
    path: &str,
    def: DefRef<'_>,
    hits: &[u32],
    terms: &[String],
    lines: &[String],
    detail: Detail,
) -> (String, bool) {
    let first = def.line.max(1);
    let end = def.end_line.max(first);
    let last = end.min(lines.len() as u32);
    // The file changed on disk since it was indexed and no longer holds the definition.
    if first > last {
        return (String::new(), false);
    }
    let span = last.saturating_sub(first) + 1;
    let lang = tack_indexer::Lang::from_path(std::path::Path::new(path));
    let keep: Vec<u32> = match detail {
        Detail::Code(most) => {
            let prose = prose_lines(lang, lines, first, last);
            let sig_end = signature_end(lines, first, last);
            // The docstring's first line with words stays: it says what the function is for.
            let summary = (sig_end + 1..=last).take_while(|l| prose[(*l - first) as usize]).find(|l| {
                lines
                    .get(*l as usize - 1)
                    .is_some_and(|t| t.chars().filter(|c| c.is_alphanumeric()).count() >= 4)
            });
            let keep: Vec<u32> = (first..=last)
                .filter(|l| *l <= sig_end || !prose[(*l - first) as usize] || Some(*l) == summary)
                .collect();
            if keep.len() as u32 > most {
                return (String::new(), false);
            }
            keep
        }
        Detail::Around(around, most) => {
            let mut picked: Vec<u32> = Vec::new();
            for &h in hits {
                if h > first && h <= last && !picked.contains(&h) {
                    picked.push(h);
                }
            }
            picked.truncate(most);
            for line in matching_lines(lang, lines, first, last, terms) {
                if picked.len() >= most {
                    break;
                }
                if !picked.contains(&line) {
                    picked.push(line);
                }
            }
            // A body with no matching line shows its first lines.
            if picked.is_empty() {
                picked.extend((first + 1..=last).take(2));
            }
            // The whole signature, when it spans a few lines.
            let mut keep: Vec<u32> = (first..=signature_end(lines, first, last)).collect();
            for line in picked {
                keep.push(line);
                // Blank lines around a match say nothing.
                let near = line.saturating_sub(around).max(first)..=(line + around).min(last);
                keep.extend(
                    near.filter(|l| lines.get(*l as usize - 1).is_some_and(|t| !t.trim().is_empty())),
                );
            }
            keep.sort_unstable();
            keep.dedup();
            keep
        }
    };
    // A one-line gap costs what its `⋮` would: show the line instead.
    let mut filled: Vec<u32> = Vec::with_capacity(keep.len());
    for line in keep.into_iter().chain(std::iter::once(last + 1)) {
        if let Some(&before) = filled.last()
            && line == before + 2
            && before < last
        {
            filled.push(before + 1);
        }
        if line <= last {
            filled.push(line);
        }
    }
    let keep = filled;
    let whole = keep.len() as u32 == span && last == end;
    let width = keep.last().map_or(1, |l| l.to_string().len());
    let mut block =
        format!("{}:{first}-{last} {} ({})\n", shown_path(path), def.qualified(), def.kind.as_str());
    let mut previous = first.saturating_sub(1);
    for line in keep {
        if line > previous + 1 {
            block.push_str("⋮\n");
        }
        let text = lines.get(line as usize - 1).map_or("", String::as_str);
        block.push_str(&format!("{line:>width$}\t{}\n", shorten_line(text)));
        previous = line;
    }
    if previous < last {
        block.push_str("⋮\n");
    }
    (block, whole)
}

/// A passage of a file without definitions: the hit lines (at most `most`), each with the
/// `around` lines on either side that are not blank, under a header naming the lines and the
/// heading above the first hit (a document's section). With the first and last line shown and
/// that heading; `None` when the file no longer holds the lines.
fn render_passage(
    path: &str,
    hits: &[u32],
    lines: &[String],
    around: u32,
    most: usize,
) -> Option<(String, u32, u32, Option<String>)> {
    let n = lines.len() as u32;
    let mut picked: Vec<u32> = hits.iter().copied().filter(|h| (1..=n).contains(h)).collect();
    picked.dedup();
    picked.truncate(most);
    let mut keep: Vec<u32> = Vec::new();
    for &line in &picked {
        keep.push(line);
        let near = line.saturating_sub(around).max(1)..=(line + around).min(n);
        keep.extend(near.filter(|l| lines.get(*l as usize - 1).is_some_and(|t| !t.trim().is_empty())));
    }
    keep.sort_unstable();
    keep.dedup();
    let (&first, &last) = (keep.first()?, keep.last()?);
    let heading = tack_indexer::heading_at(path, &lines.join("\n"), picked.iter().copied().min()?);
    let width = last.to_string().len();
    let mut block = format!("{}:{first}-{last}", shown_path(path));
    if let Some(heading) = &heading {
        block.push_str(&format!(" {}", shorten_line(heading)));
    }
    block.push_str(" (text)\n");
    let mut previous = first;
    for line in keep {
        // A one-line gap costs what its `⋮` would: the line is shown instead.
        if line == previous + 2 {
            let text = lines.get(previous as usize).map_or("", String::as_str);
            block.push_str(&format!("{:>width$}\t{}\n", previous + 1, shorten_line(text)));
        } else if line > previous + 2 {
            block.push_str("⋮\n");
        }
        let text = lines.get(line as usize - 1).map_or("", String::as_str);
        block.push_str(&format!("{line:>width$}\t{}\n", shorten_line(text)));
        previous = line;
    }
    Some((block, first, last, heading))
}

/// The last line of a signature that starts at `first`: the first line ending as a header ends
/// (`:`, `{`, `=>`), if one does within six lines; else `first`.
fn signature_end(lines: &[String], first: u32, last: u32) -> u32 {
    for line in first..=(first + 5).min(last) {
        let text = lines.get(line as usize - 1).map_or("", |l| l.trim_end());
        if text.ends_with(':') || text.ends_with('{') || text.ends_with("=>") {
            return line;
        }
    }
    first
}

/// Which lines of `first..=last` are prose: comments, and docstrings (lines from one with an
/// odd number of triple quotes to the next).
fn prose_lines(lang: Option<tack_indexer::Lang>, lines: &[String], first: u32, last: u32) -> Vec<bool> {
    let mut in_docstring = false;
    (first..=last)
        .map(|line| {
            let text = lines.get(line as usize - 1).map_or("", String::as_str);
            let quotes = text.matches("\"\"\"").count() + text.matches("'''").count();
            let prose = in_docstring || quotes > 0 || is_comment(lang, text);
            if quotes % 2 == 1 {
                in_docstring = !in_docstring;
            }
            prose
        })
        .collect()
}

/// The lines of `first..=last` (past the first) holding query terms: code before comments and
/// docstrings (a fix changes code), then the most distinct terms, then the earlier line.
fn matching_lines(
    lang: Option<tack_indexer::Lang>,
    lines: &[String],
    first: u32,
    last: u32,
    terms: &[String],
) -> Vec<u32> {
    let terms: Vec<&str> = terms.iter().map(String::as_str).filter(|t| t.len() >= 3).collect();
    let prose = prose_lines(lang, lines, first, last);
    let mut found: Vec<(bool, usize, u32)> = Vec::new();
    for line in first + 1..=last {
        let Some(text) = lines.get(line as usize - 1) else { break };
        let lower = text.to_ascii_lowercase();
        let mut seen: Vec<&str> = Vec::new();
        for t in &terms {
            if !seen.contains(t) && lower.contains(t) {
                seen.push(t);
            }
        }
        if !seen.is_empty() {
            found.push((prose[(line - first) as usize], seen.len(), line));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    found.into_iter().map(|(_, _, l)| l).collect()
}

/// Whether a line is a comment in the file's language (none in a file tack does not parse).
fn is_comment(lang: Option<tack_indexer::Lang>, text: &str) -> bool {
    lang.is_some_and(|lang| lang.is_comment_line(text))
}

/// A function's callers, callees and the tests that call it, from name resolution.
struct Links {
    callers: Vec<Link>,
    more_callers: usize,
    callees: Vec<Link>,
    more_callees: usize,
    tests: Vec<Link>,
}

fn links(
    snapshot: &Snapshot,
    resolver: &Resolver,
    sources: &mut LineCache<'_>,
    file: u32,
    def: u32,
) -> Links {
    let target = Target::Def { file, def };
    let (def_line, def_end) = snapshot
        .files
        .get(resolver.path(file))
        .and_then(|e| e.symbols.defs.get(def as usize))
        .map_or((0, 0), |d| (d.line, d.end_line));
    // Read from the graph, whose edges are the references as resolved: nothing resolves again.
    let graph = snapshot.graph();
    let mut calls: Vec<(String, u32, bool)> = Vec::new();
    if let Some(g) = graph.file_index(resolver.path(file)) {
        for (f, r, share) in graph.references_to(g, def as usize) {
            // A guess on a standard method's name (`.get()` on a dict) says nothing.
            if share == Share::StdMethod {
                continue;
            }
            let resolved = share == Share::Resolved;
            let path = &graph.files[f as usize];
            let Some(entry) = snapshot.files.get(path) else { continue };
            let Some(r) = entry.symbols.refs.get(r as usize) else { continue };
            if matches!(r.kind(), RefKind::Call | RefKind::MethodCall) {
                calls.push((path.clone(), r.line, resolved));
            }
        }
    }
    // Resolved calls first, then candidates: a test's call that only matches the name counts
    // when no test's call resolves (and says so).
    calls.sort_by_key(|c| !c.2);
    let mut out = Links {
        callers: Vec::new(),
        more_callers: 0,
        callees: Vec::new(),
        more_callees: 0,
        tests: Vec::new(),
    };
    // One line per calling function (or per line at module level).
    let mut seen: Vec<(&str, Option<u32>, u32)> = Vec::new();
    let mut by_name: Vec<Link> = Vec::new();
    for (path, line, resolved) in &calls {
        let Some(entry) = snapshot.files.get(path) else { continue };
        let enclosing = enclosing_function(entry, *line);
        // A call from a closure inside the function itself (recursion) is not a caller.
        if *path == resolver.path(file) && enclosing == Some(def) {
            continue;
        }
        let key = (path.as_str(), enclosing, if enclosing.is_some() { 0 } else { *line });
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let is_test = is_test_code(path, entry, enclosing);
        let signature = match enclosing.and_then(|d| entry.symbols.defs.get(d as usize)) {
            Some(d) => d.signature().to_string(),
            None => sources.line(path, *line),
        };
        let link = Link {
            path: path.to_string(),
            line: *line,
            signature: cut_chars(signature.trim(), LINE_CHARS),
            by_name: false,
        };
        if is_test {
            // A test whose call resolves elsewhere tests another function of the name.
            if *resolved && out.tests.len() < TESTS {
                out.tests.push(link);
            } else if !*resolved && by_name.len() < TESTS {
                by_name.push(Link { by_name: true, ..link });
            }
        } else if *resolved {
            if out.callers.len() < CALLERS {
                out.callers.push(link);
            } else {
                out.more_callers += 1;
            }
        }
    }
    if out.tests.is_empty() {
        out.tests = by_name;
    }
    let (callees, _) = resolver.callees(target);
    let mut all_callees: Vec<Link> = Vec::new();
    for hit in callees {
        let path = resolver.path(hit.file);
        let Some(entry) = snapshot.files.get(path) else { continue };
        // A definition, not a name imported from outside the repository.
        let Some(callee) = entry
            .symbols
            .defs
            .iter()
            .find(|d| d.line == hit.line && Some(d.qualified()) == hit.symbol.as_deref())
        else {
            continue;
        };
        // A recursive call, or a call of a function nested inside, is not a callee worth a line.
        if hit.file == file && (def_line..=def_end).contains(&callee.line) {
            continue;
        }
        all_callees.push(Link {
            path: path.to_string(),
            line: hit.line,
            signature: cut_chars(callee.signature().trim(), LINE_CHARS),
            by_name: false,
        });
    }
    // One callee past the bound costs what the line naming how to list it would: it is shown.
    if all_callees.len() > LINKS + 1 {
        out.more_callees = all_callees.len() - LINKS;
        all_callees.truncate(LINKS);
    }
    out.callees = all_callees;
    out
}

fn render_links(links: &Links, path: &str, def: DefRef<'_>) -> String {
    let mut block = String::new();
    for l in &links.callers {
        block.push_str(&format!("  ← {}:{} {}\n", shown_path(&l.path), l.line, l.signature));
    }
    if links.more_callers > 0 {
        block.push_str(&format!(
            "  ← {} more: callers(symbol=\"{}\")\n",
            links.more_callers,
            def.qualified()
        ));
    }
    for l in &links.callees {
        block.push_str(&format!("  → {}:{} {}\n", shown_path(&l.path), l.line, l.signature));
    }
    if links.more_callees > 0 {
        block.push_str(&format!(
            "  → {} more: callers(path=\"{path}\", line={}, direction=\"callees\")\n",
            links.more_callees, def.line
        ));
    }
    for l in &links.tests {
        let how = if l.by_name { " (calls the name; not resolved)" } else { "" };
        block.push_str(&format!("  test {}:{} {}{how}\n", shown_path(&l.path), l.line, l.signature));
    }
    block
}

/// What `focus` names: definitions to show first, paths whose files rank first, and words that
/// join the task.
struct Focus {
    defs: Vec<(String, u32)>,
    paths: Vec<String>,
    words: Vec<String>,
}

impl Focus {
    fn new(ws: &Workspace, resolver: &Resolver, items: &[String]) -> Self {
        let mut focus = Focus { defs: Vec::new(), paths: Vec::new(), words: Vec::new() };
        for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
            if let Ok(resolved) = ws.root().resolve(item)
                && resolved.abs.exists()
                && resolved.rel != "."
            {
                focus.paths.push(resolved.rel);
                continue;
            }
            let defs: Vec<(String, u32)> = resolver
                .lookup_symbol(item)
                .into_iter()
                .filter_map(|t| match t {
                    Target::Def { file, def } => Some((resolver.path(file).to_string(), def)),
                    _ => None,
                })
                .take(3)
                .collect();
            if defs.is_empty() {
                focus.words.push(item.to_string());
            } else {
                for d in defs {
                    if !focus.defs.contains(&d) {
                        focus.defs.push(d);
                    }
                }
            }
        }
        focus
    }

    /// Whether `path` lies under a focus path.
    fn admits_first(&self, path: &str) -> bool {
        self.paths
            .iter()
            .any(|p| path == p || path.strip_prefix(p.as_str()).is_some_and(|r| r.starts_with('/')))
    }
}

/// A task as searched: as written up to [`MAX_TASK_BYTES`]; past it, its first
/// [`TASK_HEAD_BYTES`] (the title and first lines, which say what it is about) and then each
/// distinct word of the rest once, in order, up to [`MAX_TASK_BYTES`] in all. Repeated lines,
/// long dumps and encoded blobs add nothing a search can use, and the memory a search takes
/// grows with the text it is given.
fn cut_task(task: &str) -> Cow<'_, str> {
    if task.len() <= MAX_TASK_BYTES {
        return Cow::Borrowed(task);
    }
    let mut head_end = TASK_HEAD_BYTES;
    while !task.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let (head, rest) = task.split_at(head_end);
    let mut out = String::with_capacity(MAX_TASK_BYTES);
    out.push_str(head);
    let mut kept: HashSet<&str> = HashSet::new();
    for word in rest.split_whitespace().filter(|w| w.len() <= MAX_WORD_BYTES) {
        if out.len() + word.len() + 1 > MAX_TASK_BYTES {
            break;
        }
        if kept.insert(word) {
            out.push(' ');
            out.push_str(word);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::{MAX_TASK_BYTES, TASK_HEAD_BYTES, cut_task, is_comment};

    #[test]
    fn a_long_task_keeps_its_head_and_each_distinct_word_of_the_rest_once() {
        let short = "Cart.total ignores the discount";
        assert_eq!(cut_task(short), short);
        let head = format!("Title: Cart.total is wrong\n{}", "é".repeat(TASK_HEAD_BYTES));
        let task = format!("{head} {}", "repeated_word other_word ".repeat(100_000));
        let cut = cut_task(&task);
        assert!(cut.len() <= MAX_TASK_BYTES, "{}", cut.len());
        assert!(cut.starts_with("Title: Cart.total is wrong\néé"));
        assert!(cut.is_char_boundary(cut.len()));
        assert_eq!(cut.matches("repeated_word").count(), 1, "a repeated word is kept once");
        assert_eq!(cut.matches("other_word").count(), 1);
    }

    #[test]
    fn comments_are_told_from_attributes_directives_and_stars_in_code() {
        use tack_indexer::Lang;
        for (lang, comment) in [
            (Lang::Python, "# a note"),
            (Lang::Python, "    #: an attribute's doc"),
            (Lang::Rust, "// a note"),
            (Lang::C, "/* a block"),
            (Lang::Java, " * more of it"),
            (Lang::Java, " */"),
            (Lang::JavaScript, "*"),
        ] {
            assert!(is_comment(Some(lang), comment), "{lang:?}: {comment:?}");
        }
        for (lang, code) in [
            (Some(Lang::Rust), "#[cfg(test)]"),
            (Some(Lang::Python), "#!/usr/bin/env python"),
            (Some(Lang::C), "#include <stdio.h>"),
            (Some(Lang::Cpp), "#define N 3"),
            (Some(Lang::Python), "*args,"),
            (Some(Lang::C), "*p = 1;"),
            (Some(Lang::Python), "x = 1  # trailing"),
            (None, "# a heading"),
        ] {
            assert!(!is_comment(lang, code), "{lang:?}: {code:?}");
        }
    }
}

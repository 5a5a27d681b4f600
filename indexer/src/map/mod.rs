//! The repository map: definitions ranked by personalized PageRank, the most important ones
//! rendered file by file with `⋮` for skipped lines, as many as fit the token budget.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use crate::graph::{Personal, SymbolGraph};
use crate::snapshot::{FileEntry, Snapshot};
use crate::symbols::DefKind;

mod saved;

pub(crate) use saved::{load_saved, write_saved};

/// Rendered source lines are cut to this many characters.
pub(crate) const LINE_CHARS: usize = 100;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MapSymbol {
    pub name: String,
    pub kind: String,
    pub line: u32,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MapFile {
    pub path: String,
    /// The file's PageRank (all files sum to 1), rounded to six significant digits.
    pub rank: f64,
    pub symbols: Vec<MapSymbol>,
}

/// A rendered map and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RepoMap {
    pub text: String,
    pub files: Vec<MapFile>,
    pub total_files: usize,
    pub total_defs: usize,
    pub shown_defs: usize,
    pub tokens: usize,
}

/// What the focus named, resolved against the index.
#[derive(Debug, Default)]
struct Focus {
    files: HashSet<usize>,
    /// Identifiers the repository defines.
    idents: std::collections::BTreeSet<String>,
    /// Their definitions, as (file, definition).
    defs: Vec<(u32, u32)>,
}

/// How many maps one snapshot remembers.
const RECENT_MAPS: usize = 16;

/// A remembered map: focus, budget, token counter (its address), and the map.
type Remembered = (Vec<String>, usize, usize, Arc<RepoMap>);

/// The last few maps of one snapshot, newest last.
#[derive(Debug, Default)]
pub(crate) struct Recent(std::sync::Mutex<std::collections::VecDeque<Remembered>>);

/// [`repo_map`], remembered: the same focus and budget on the same snapshot is answered from
/// memory (agents ask again, and a map for a focus is the same until a file changes).
pub fn repo_map_cached(
    snapshot: &Snapshot,
    focus: &[String],
    budget: usize,
    count_tokens: fn(&str) -> usize,
) -> Arc<RepoMap> {
    // A counter is known by its address: two copies of one function only miss the memory.
    let counter = count_tokens as usize;
    let hit = |(f, b, c, _): &Remembered| f == focus && *b == budget && *c == counter;
    let recent = snapshot.derived.get_or_init(Recent::default);
    if let Some(entry) = recent.0.lock().expect("map memory").iter().find(|e| hit(e)) {
        return entry.3.clone();
    }
    let map = Arc::new(repo_map(snapshot, focus, budget, &count_tokens));
    let mut recent = recent.0.lock().expect("map memory");
    if !recent.iter().any(hit) {
        if recent.len() == RECENT_MAPS {
            recent.pop_front();
        }
        recent.push_back((focus.to_vec(), budget, counter, map.clone()));
    }
    map
}

/// Builds the map within `budget` tokens, counted by `count_tokens` (which counts any non-empty
/// text as at least one token).
/// The map of a root with no file in a language tack parses: its text files by path, as many
/// as `budget` tokens hold, so even a repository of scripts or documents shows its layout.
fn text_files_map(snapshot: &Snapshot, budget: usize, count_tokens: &dyn Fn(&str) -> usize) -> String {
    if snapshot.texts.is_empty() {
        return "repo map: no file under the root is in a language tack parses, and none is text\n".into();
    }
    let n = snapshot.texts.len();
    let mut text = format!(
        "repo map: no definitions (no file is in a language tack parses); {n} text {}, which search ranks:\n",
        if n == 1 { "file" } else { "files" }
    );
    let mut used = count_tokens(&text);
    for (shown, path) in snapshot.texts.keys().enumerate() {
        let line = format!("{}\n", crate::snapshot::shown_path(path));
        let cost = count_tokens(&line);
        // Room is kept for the closing line.
        if used + cost + 8 > budget {
            text.push_str(&format!("… {} more\n", n - shown));
            break;
        }
        used += cost;
        text.push_str(&line);
    }
    text
}

pub fn repo_map(
    snapshot: &Snapshot,
    focus: &[String],
    budget: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> RepoMap {
    let started = std::time::Instant::now();
    let graph = snapshot.graph();
    let entries: Vec<&FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
    let total_defs: usize = entries.iter().map(|e| e.symbols.defs.len()).sum();
    let focus_set = resolve_focus(snapshot, &graph, focus);
    let focus_nodes = focus_defs(&graph, &focus_set);
    // PageRank needs only who uses each node, not the rest of the tables: when the tables are
    // made, it runs as soon as those are, beside the rest.
    let rank = |users: UsersOf| {
        let started = std::time::Instant::now();
        let rank = rank_nodes(&graph, users, &entries, &focus_set, &focus_nodes);
        (rank, started.elapsed().as_millis() as u64)
    };
    // Before the tables are made, the copy saved with the index stands for them, and without a
    // focus the ranks saved with it are the graph's: the first maps of a new process make
    // neither (nor name resolution, which the tables read). A focus's users are then read from
    // the resolved references, unless who uses each node is made already.
    let copy = saved::unused_copy(snapshot);
    let tables;
    let (mut all_users, mut focus_users) = (None, None);
    let mut ranked = None;
    let facts = match &copy {
        Some(copy) => {
            let mut facts = copy.facts();
            if !focus_nodes.is_empty() {
                facts.users = match snapshot.derived.get::<Users>() {
                    Some(users) => UsersOf::All(all_users.insert(users)),
                    None => UsersOf::Focus(focus_users.insert(FocusUsers::read(&graph, &focus_nodes))),
                };
            }
            facts
        }
        None => {
            tables = tables_of(snapshot, &graph, |users| ranked = Some(rank(UsersOf::All(users))));
            tables.facts()
        }
    };
    let (node_rank, rank_ms) = ranked.unwrap_or_else(|| rank(facts.users));
    let rank_done = started.elapsed();
    let file_rank = file_ranks(&graph, &facts, &node_rank);
    let tier = file_tiers(&graph, &facts, &focus_set, &focus_nodes);
    // A map of `budget` tokens shows at most `budget` lines of at most `max_per_line`
    // definitions each (119 where one minified line holds that many), but nearly every map is
    // full long before `budget` definitions: those are ordered first, and all that could be
    // shown only when the search for the most that fit reaches the end of them (before it, it
    // tries the counts it would try on the whole order, and finds the same).
    let order = |most: usize| order_defs(&graph, &facts, &focus_nodes, &node_rank, &file_rank, most);
    let could_show = budget.saturating_mul(facts.max_per_line);
    let items = order(budget.min(could_show));
    tracing::debug!(
        tables_and_rank_ms = rank_done.as_millis() as u64,
        rank_ms,
        saved = copy.is_some(),
        order_ms = (started.elapsed() - rank_done).as_millis() as u64,
        "map ranked"
    );
    let mut map =
        Render { entries, files: &graph.files, file_rank: file_rank.clone(), tier, items, focus, total_defs };
    if map.items.is_empty() {
        let text = if map.entries.is_empty() {
            text_files_map(snapshot, budget, count_tokens)
        } else {
            map.header(0, 0)
        };
        let tokens = count_tokens(&text);
        return RepoMap {
            text,
            files: Vec::new(),
            total_files: map.entries.len(),
            total_defs,
            shown_defs: 0,
            tokens,
        };
    }
    let (mut fitted, reached_end) = fit_budget(&map, budget, facts.max_per_line, count_tokens);
    if reached_end && budget < could_show {
        map.items = order(could_show);
        fitted = fit_budget(&map, budget, facts.max_per_line, count_tokens).0;
    }
    let (shown_defs, text, files, tokens) = fitted;
    RepoMap { text, files, total_files: map.entries.len(), total_defs, shown_defs, tokens }
}

/// Each node's PageRank personalized by the focus. Without one every node weighs the same; with
/// one, each focus file's nodes share a weight of 1, a focus identifier's definitions weigh 1
/// and what references them 0.5 (so a focus symbol pulls in both its definition and its
/// users), and edges into a focus identifier's definitions count ×10.
fn rank_nodes(
    graph: &SymbolGraph,
    users: UsersOf,
    entries: &[&FileEntry],
    focus_set: &Focus,
    focus_nodes: &[u32],
) -> Arc<Vec<f64>> {
    let n = graph.n_nodes();
    let mut personalization = vec![0.0; n];
    for &f in &focus_set.files {
        let nodes = 1 + entries[f].symbols.defs.len();
        let first = graph.file_node(f) as usize;
        for slot in &mut personalization[first..first + nodes] {
            *slot = f64::max(*slot, 1.0 / nodes as f64);
        }
    }
    for &node in focus_nodes {
        personalization[node as usize] = 1.0;
        for &user in users.of(node) {
            personalization[user as usize] = f64::max(personalization[user as usize], 0.5);
        }
    }
    let personal =
        Personal { weights: &personalization, boosted: focus_nodes, users: &|node| users.of(node) };
    let ranks = graph.pagerank_keyed(focus_set.key(), &personal);
    tracing::debug!(iterations = ranks.iterations, "pagerank");
    ranks.rank
}

/// The nodes of every definition a focus identifier names, in node order.
fn focus_defs(graph: &SymbolGraph, focus_set: &Focus) -> Vec<u32> {
    let mut nodes: Vec<u32> =
        focus_set.defs.iter().map(|&(f, d)| graph.def_node(f as usize, d as usize)).collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

/// Every definition named `name`, as (file, definition), in file order: from name resolution's
/// table when it is made, else read from the files (a focused map of a new process does not
/// wait for name resolution, which a server makes in the background after its first scan).
fn defs_named(snapshot: &Snapshot, name: &str) -> Vec<(u32, u32)> {
    if let Some(resolver) = snapshot.derived.get::<crate::resolve::Resolver>() {
        return resolver.defs_named(name).into_owned();
    }
    let mut found = Vec::new();
    for (f, entry) in snapshot.files.values().enumerate() {
        for (d, def) in entry.symbols.defs.iter().enumerate() {
            if def.name() == name {
                found.push((f as u32, d as u32));
            }
        }
    }
    found
}

/// Where each file stands before ranks count: the focus files and the files defining a focus
/// identifier first (0), then the files referencing those definitions (1), then the rest (2).
fn file_tiers(graph: &SymbolGraph, facts: &NodeFacts, focus_set: &Focus, focus_nodes: &[u32]) -> Vec<u8> {
    let mut tier = vec![2u8; graph.files.len()];
    for &node in focus_nodes {
        for &user in facts.users(node) {
            tier[graph.node_place(user).0] = 1;
        }
    }
    for &node in focus_nodes {
        tier[graph.node_place(node).0] = 0;
    }
    for &f in &focus_set.files {
        tier[f] = 0;
    }
    tier
}

/// A file's rank: what its nodes hold, each as much as a newcomer should care about it.
fn file_ranks(graph: &SymbolGraph, facts: &NodeFacts, node_rank: &[f64]) -> Vec<f64> {
    (0..graph.files.len())
        .map(|f| {
            let (from, to) = (graph.file_node(f) as usize, graph.file_node(f + 1) as usize);
            (from..to).map(|node| node_rank[node] * facts.care[node] as f64).sum()
        })
        .collect()
}

/// PageRank's key for the ranks without a focus (and for a focus that names nothing).
fn no_focus_key() -> u64 {
    Focus::default().key()
}

impl Focus {
    /// Names this focus for PageRank's warm start: files keep their numbers in a graph updated
    /// from another, so the next snapshot's map for the same focus starts from this one's ranks.
    fn key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut files: Vec<usize> = self.files.iter().copied().collect();
        files.sort_unstable();
        let mut hasher = rustc_hash::FxHasher::default();
        (files, &self.idents).hash(&mut hasher);
        hasher.finish()
    }
}

/// Each definition at most once, as (file, definition), in the order the map takes them: a focus
/// identifier's definitions, then the definitions that reference them (so the map shows both
/// ends of the focus), then the entries by rank, then what is no entry of its own (a trait
/// impl's `fmt`, a `__repr__`), by rank; the best `most` of those last two.
fn order_defs(
    graph: &SymbolGraph,
    facts: &NodeFacts,
    focus: &[u32],
    node_rank: &[f64],
    file_rank: &[f64],
    most: usize,
) -> Vec<(usize, usize)> {
    let mut seen = vec![false; graph.n_nodes()];
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut take = |node: u32, items: &mut Vec<(usize, usize)>| {
        if let (file, Some(def)) = graph.node_place(node)
            && !std::mem::replace(&mut seen[node as usize], true)
        {
            items.push((file, def));
        }
    };
    for &node in focus {
        take(node, &mut items);
    }
    let mut users: Vec<u32> = focus.iter().flat_map(|&node| facts.users(node).iter().copied()).collect();
    users.sort_unstable();
    users.dedup();
    users.sort_by(|&a, &b| {
        let (fa, fb) = (graph.node_place(a).0, graph.node_place(b).0);
        file_rank[fb].total_cmp(&file_rank[fa]).then(a.cmp(&b))
    });
    for node in users {
        take(node, &mut items);
    }
    // PageRank's depth (who references the referrers) times breadth: how many definitions and
    // files name this one, to a small power.
    let mut scores: Vec<f64> = (0..graph.n_nodes())
        .map(|node| node_rank[node] * facts.care[node] as f64 * facts.breadth[node] as f64)
        .collect();
    // A type holds what its members hold: a class whose methods everyone calls matters as
    // much as one everyone names.
    for (node, &parent) in facts.parent.iter().enumerate() {
        if parent != u32::MAX && facts.entry[node] {
            scores[parent as usize] += node_rank[node] * facts.care[node] as f64;
        }
    }
    // A definition's later signatures count as the first.
    for (node, &first) in facts.first_twin.iter().enumerate() {
        if first != u32::MAX {
            scores[first as usize] += node_rank[node] * facts.care[node] as f64;
        }
    }
    // The best `most` in a heap whose top is the last of them: a node after it is
    // passed over with one comparison, and no list of every node is made (24 bytes a node,
    // 38 MB at 1.6 million, allocated and written on each map).
    let mut best: std::collections::BinaryHeap<Ranked> = std::collections::BinaryHeap::new();
    for (node, &score) in scores.iter().enumerate() {
        let item = Ranked(facts.entry[node], score, node as u32);
        if best.len() < most {
            best.push(item);
        } else if let Some(mut last) = best.peek_mut()
            && item < *last
        {
            *last = item;
        }
    }
    for Ranked(_, _, node) in best.into_sorted_vec() {
        take(node, &mut items);
    }
    items
}

/// A node as the map orders them: entries first, then the rest; each best score first, ties
/// in node order (files by path). `Less` comes first; node numbers make the order total.
#[derive(Debug, Clone, Copy)]
struct Ranked(bool, f64, u32);

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.cmp(&self.0).then(other.1.total_cmp(&self.1)).then(self.2.cmp(&other.2))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

/// What rendering a map needs: the files, their ranks, and the definitions in map order.
struct Render<'a> {
    entries: Vec<&'a FileEntry>,
    /// Paths by file number.
    files: &'a [String],
    file_rank: Vec<f64>,
    /// Each file's tier (see [`file_tiers`]): files are shown by tier, then rank.
    tier: Vec<u8>,
    items: Vec<(usize, usize)>,
    focus: &'a [String],
    total_defs: usize,
}

impl Render<'_> {
    /// The map's first line: what it shows of how much, and the focus.
    fn header(&self, files: usize, defs: usize) -> String {
        let mut h = format!(
            "repo map: {files} of {} files, {defs} of {} definitions, most referenced first",
            self.entries.len(),
            self.total_defs
        );
        if !self.focus.is_empty() {
            h.push_str(&format!(" (focus: {})", self.focus.join(", ")));
        }
        h.push('\n');
        h
    }

    /// The map of the first `n` definitions, and its files: files best first, each chosen
    /// definition with the header lines of what encloses it, `⋮` for the lines between.
    fn render(&self, n: usize) -> (String, Vec<MapFile>) {
        let (entries, file_rank) = (&self.entries, &self.file_rank);
        let mut per_file: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(file, def) in &self.items[..n] {
            per_file.entry(file).or_default().push(def);
        }
        let mut files: Vec<usize> = per_file.keys().copied().collect();
        files.sort_by(|a, b| {
            (self.tier[*a].cmp(&self.tier[*b]))
                .then(file_rank[*b].total_cmp(&file_rank[*a]))
                .then_with(|| self.files[*a].cmp(&self.files[*b]))
        });
        let mut text = self.header(files.len(), n);
        let mut out = Vec::with_capacity(files.len());
        for file in files {
            let entry = entries[file];
            let defs = &entry.symbols.defs;
            let chosen = &per_file[&file];
            // Show each chosen definition and the headers of what encloses it.
            let mut shown: BTreeSet<(u32, usize)> = BTreeSet::new();
            for &d in chosen {
                let mut current = Some(d);
                while let Some(i) = current {
                    shown.insert((defs[i].line, i));
                    current = defs[i].parent().map(|p| p as usize);
                }
            }
            let width = shown.iter().next_back().map_or(1, |(line, _)| line.to_string().len());
            text.push_str(&crate::snapshot::shown_path(&entry.path));
            text.push_str(":\n");
            let mut last_line = 0;
            for &(line, i) in &shown {
                if line == last_line {
                    continue;
                }
                if line > last_line + 1 {
                    text.push_str("⋮\n");
                }
                let header: String = defs.at(i).header().chars().take(LINE_CHARS).collect();
                text.push_str(&format!("{line:>width$}│{header}\n"));
                last_line = line;
            }
            if last_line < entry.lines {
                text.push_str("⋮\n");
            }
            let mut symbols: Vec<MapSymbol> = chosen
                .iter()
                .map(|&i| MapSymbol {
                    name: defs.at(i).qualified().to_string(),
                    kind: defs[i].kind.as_str().to_string(),
                    line: defs[i].line,
                })
                .collect();
            symbols.sort_by_key(|s| s.line);
            out.push(MapFile { path: entry.path.clone(), rank: round6(file_rank[file]), symbols });
        }
        (text, out)
    }
}

/// The largest map within `budget` tokens, as (definitions shown, text, files, tokens): a
/// search on how many ranked definitions to show, doubling and then halving, to the most that
/// fit (Aider stops within 15% below the budget; each step is one render of a few hundred
/// lines, and the map's last 15% shows a tenth more of the repository), then a step down
/// should the exact count exceed the estimate.
/// The most definitions of `map` that fit `budget`: their count, text, files and tokens, and
/// whether the search tried all of the map's definitions (a longer list would have gone on).
fn fit_budget(
    map: &Render,
    budget: usize,
    max_per_line: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> ((usize, String, Vec<MapFile>, usize), bool) {
    // Token counts during the search add up cached per-line counts (the tokenizer splits at
    // line breaks, so the sum matches the whole); the chosen map is then counted exactly.
    let line_tokens: std::cell::RefCell<HashMap<String, usize>> = Default::default();
    let count_by_lines = |text: &str| -> usize {
        let mut cache = line_tokens.borrow_mut();
        text.split_inclusive('\n')
            .map(|line| match cache.get(line) {
                Some(n) => *n,
                None => {
                    let n = count_tokens(line);
                    cache.insert(line.to_string(), n);
                    n
                }
            })
            .sum()
    };
    let n_items = map.items.len();
    let mut lower = 0usize;
    let mut upper = n_items;
    let mut middle = (budget / 25).clamp(1, n_items);
    let mut best: Option<(usize, String, Vec<MapFile>, usize)> = None;
    // Until a count fails to fit, the next guess doubles: a map is a few hundred of a
    // repository's hundreds of thousands of definitions, and rendering half of them to find
    // that out costs more than the whole search.
    let mut bounded = false;
    let mut reached_end = n_items == 0;
    while lower <= upper && middle >= 1 {
        reached_end |= middle == n_items;
        // Every line counts at least one token and `middle` definitions take at least this many
        // lines: a count that cannot fit is not rendered.
        let tokens = if 1 + middle.div_ceil(max_per_line) > budget {
            None
        } else {
            let (text, files) = map.render(middle);
            let tokens = count_by_lines(&text);
            let fits = tokens <= budget;
            if fits && best.as_ref().is_none_or(|b| tokens > b.3) {
                best = Some((middle, text, files, tokens));
            }
            fits.then_some(tokens)
        };
        if tokens.is_some() {
            if middle == n_items {
                break;
            }
            lower = middle + 1;
        } else {
            if middle == 0 {
                break;
            }
            upper = middle - 1;
            bounded = true;
        }
        middle = if bounded { (lower + upper) / 2 } else { (middle * 2).min(upper) };
        if middle == 0 {
            break;
        }
    }
    let (mut shown_defs, mut text, mut files, _) =
        best.unwrap_or_else(|| (0, map.header(0, 0), Vec::new(), 0));
    let mut tokens = count_tokens(&text);
    // Should the exact count exceed the sum of the lines, step down until it fits.
    while tokens > budget && shown_defs > 0 {
        shown_defs -= 1;
        (text, files) = if shown_defs == 0 { (map.header(0, 0), Vec::new()) } else { map.render(shown_defs) };
        tokens = count_tokens(&text);
    }
    ((shown_defs, text, files, tokens), reached_end)
}

/// What a newcomer cares about less: tests, their helpers and fixtures, examples, demos and
/// playgrounds, benchmarks, vendored, generated and minified files, and a `mod tests` inside
/// code. Their definitions keep their ranks, scaled by this.
const AUX_CARE: f32 = 0.02;
/// A private definition (Python's `_name`, Rust without `pub` or with `pub(crate)`, whatever
/// lies in Go's `internal/`) is read after the public ones.
const PRIVATE_CARE: f32 = 0.1;
/// A member (a method, a nested definition) is read after the type it belongs to, which also
/// holds the member's rank.
const MEMBER_CARE: f32 = 0.7;
/// What a package offers (what `__init__.py`, `index.ts` or `lib.rs` imports, what `__all__`
/// lists, what their globs bring along) is what a newcomer reads first. The figures are in
/// BENCHMARKS.md (map quality).
const SURFACE_CARE: f32 = 10.0;
/// A function or constant the package's surface names (a surface file imports it by name, or an
/// `__all__` lists it; not one a glob brings along) is there for callers outside the
/// repository, whom the graph does not see: inside it few use it (Vite's `loadEnv` has 4
/// users, `VERSION` 6), while a type it offers is named by every signature that takes one
/// (`UserConfig`, 25). A glob re-exports whatever a module makes public, helpers and numeric
/// constants too, so what it brings weighs as a type does.
const SURFACE_VALUE_CARE: f32 = 100.0;

/// A type defined in one line that names nothing of the repository, itself or through a member
/// (`struct FuncIndex(u32);`, Go's `type Pgid uint64`, `type LogType = 'error' | 'warn'`; not
/// `type Handler interface{ Serve(c *Context) }`), names a value: vocabulary every
/// signature carries, referenced everywhere and so ranked high, not a part the code is built
/// of. Its care is scaled by this.
const VOCABULARY_CARE: f32 = 0.1;
/// PageRank measures depth (how much the referrers are referenced); a newcomer also meets a
/// definition in proportion to how many places name it. A definition's score is scaled by
/// (1 + the definitions and files referencing it) to this power.
const USERS_EXPONENT: f32 = 0.2;
/// Nodes with fewer users than this have their breadth from a table.
const FEW_USERS: u32 = 256;

/// What every map of one snapshot shares, computed once: how much a newcomer cares about each
/// node, which definitions are entries of their own, and who references each node.
#[derive(Debug)]
pub(crate) struct Tables {
    /// Per node: how much a newcomer cares, 1 for the code itself scaled by the factors above
    /// ([`AUX_CARE`] for what serves it, [`PRIVATE_CARE`], [`MEMBER_CARE`], [`VOCABULARY_CARE`],
    /// [`SURFACE_CARE`], [`SURFACE_VALUE_CARE`]).
    care: Vec<f32>,
    /// Per node: whether it is an entry of its own (not a file's node, not a protocol method
    /// such as a trait impl's `fmt` or a `__repr__`).
    entry: Vec<bool>,
    /// Per node: the node of the definition enclosing it (`u32::MAX` for none).
    parent: Vec<u32>,
    /// Per node: the first of a run of definitions of one name, kind and parent next to each
    /// other, when this one is a later signature of it (an overload, a property's setter), which
    /// then holds its rank; `u32::MAX` for none.
    first_twin: Vec<u32>,
    /// Who uses each node.
    users: Arc<Users>,
    /// The most definitions that share one line of one file (at least 1).
    max_per_line: usize,
    /// Each file's part, for the next snapshot's tables.
    carried: Arc<Carried>,
}

/// What the next snapshot's tables take from these: each file's part, and the names of the
/// repository's interfaces (sorted), which a file's part also depends on.
#[derive(Debug)]
pub(crate) struct Carried {
    files: Vec<Arc<FileCare>>,
    interfaces: Vec<String>,
    surface: Surface,
}

/// What each file the surface search read offers, for the next snapshot's search to take while
/// the file, its resolved references and the repository's files are the same.
#[derive(Debug, Default)]
struct Surface {
    /// A hash of every file's path, in order: the files' numbers in `offered`.
    files: u64,
    /// By file number.
    offered: rustc_hash::FxHashMap<u32, Arc<Offered>>,
}

/// What one file offers the surface, as (file, local node), when reached at the top (a surface
/// file, an export list) or through a glob (`inner`), and the modules its globs bring in (what
/// they resolve to is among its resolved references, so it is the same while those are).
#[derive(Debug)]
struct Offered {
    file: Arc<FileEntry>,
    out: crate::graph::OutId,
    inner: bool,
    nodes: Vec<(u32, u32)>,
    globs: Vec<u32>,
}

/// A hash of the paths of `graph`'s files, in order.
fn files_hash(graph: &SymbolGraph) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    graph.files.hash(&mut hasher);
    hasher.finish()
}

/// What the map tables of the snapshot a new one was made from carry over, for the new one's
/// tables to take what is the same from.
#[derive(Debug, Default)]
pub(crate) struct TablesSeed(std::sync::Mutex<Option<Arc<Carried>>>);

/// Hands what `previous`'s map tables carry over (or, when it built none, what it was handed)
/// to `next`, whose graph was updated from `previous`'s: `next`'s tables then take each file's
/// part that is still the same instead of making it again. When the graph kept its edges as
/// laid out, who uses each node is handed on too.
pub(crate) fn carry_tables(previous: &Snapshot, next: &Snapshot) {
    let carried = previous.derived.get::<Tables>().map(|t| t.carried.clone()).or_else(|| {
        previous.derived.get::<TablesSeed>().and_then(|seed| seed.0.lock().expect("seed").clone())
    });
    if let Some(carried) = carried {
        next.derived.set(Arc::new(TablesSeed(std::sync::Mutex::new(Some(carried)))));
    }
    // The same edges have the same users; other edges, users made from these.
    if next.derived.get::<SymbolGraph>().is_some_and(|after| after.edges_as_before())
        && let Some(users) = previous.derived.get::<Users>()
    {
        next.derived.set(users);
    } else {
        let seed = match previous.derived.get::<Users>().zip(previous.derived.get::<SymbolGraph>()) {
            Some((users, graph)) => Some(Seeded::of(users, &graph)),
            None => previous.derived.get::<UsersSeed>().and_then(|seed| seed.take()),
        };
        if let Some(seed) = seed {
            next.derived.set(Arc::new(UsersSeed(std::sync::Mutex::new(Some(seed)))));
        }
    }
}

/// Who used each node in an earlier snapshot, with that snapshot's numbering of nodes and each
/// file's resolved references: the next [`Users`] are these with the changed files' edges
/// taken out and put in again. Handed on by snapshots that made no map; taken (and the earlier
/// lists freed) when the lists are made.
#[derive(Debug, Default)]
pub(crate) struct UsersSeed(std::sync::Mutex<Option<Seeded>>);

impl UsersSeed {
    fn take(&self) -> Option<Seeded> {
        self.0.lock().expect("users seed").take()
    }
}

#[derive(Debug)]
pub(crate) struct Seeded {
    users: Arc<Users>,
    files: u64,
    node_base: Arc<Vec<u32>>,
    out: Vec<crate::graph::OutId>,
}

impl Seeded {
    fn of(users: Arc<Users>, graph: &SymbolGraph) -> Self {
        let out = (0..graph.files.len()).map(|f| graph.out_id(f)).collect();
        Seeded { users, files: files_hash(graph), node_base: graph.node_base().clone(), out }
    }
}

/// One file's part of [`Tables`]: its node, then each definition's, numbered within the file
/// (`parent` and `first_twin` too); and what it was made from, so the tables of a later
/// snapshot take it when its file and the file's resolved references are the same.
#[derive(Debug)]
struct FileCare {
    care: Vec<f32>,
    entry: Vec<bool>,
    parent: Vec<u32>,
    first_twin: Vec<u32>,
    max_per_line: usize,
    file: Arc<FileEntry>,
    out: crate::graph::OutId,
}

impl FileCare {
    /// The file's nodes; `names_any` says, per node of the file, whether it references anything
    /// of the repository.
    fn of(
        file: &Arc<FileEntry>,
        out: crate::graph::OutId,
        interfaces: &HashSet<&str>,
        names_any: &[bool],
    ) -> Self {
        let defs = &file.symbols.defs;
        // What a definition or anything inside it names (an interface's method signature names
        // its parameters' types): children come after their parents.
        let mut names = names_any.to_vec();
        for (d, def) in defs.iter().enumerate().rev() {
            if let Some(p) = def.parent()
                && names[1 + d]
            {
                names[1 + p as usize] = true;
            }
        }
        let nodes = 1 + defs.len();
        let mut out = FileCare {
            care: vec![1.0; nodes],
            entry: vec![true; nodes],
            parent: vec![u32::MAX; nodes],
            first_twin: vec![u32::MAX; nodes],
            max_per_line: 1,
            file: file.clone(),
            out,
        };
        out.entry[0] = false;
        let mut lines: Vec<u32> = defs.iter().map(|d| d.line).collect();
        lines.sort_unstable();
        for run in lines.chunk_by(|a, b| a == b) {
            out.max_per_line = out.max_per_line.max(run.len());
        }
        let aux_file = is_auxiliary(file);
        let language = file.lang.language();
        let internal = language.is_internal_path(&file.path);
        let protocol = protocol_methods(file, interfaces);
        for (d, def) in defs.iter().enumerate() {
            let local = 1 + d;
            if let Some(before) = d.checked_sub(1).map(|b| defs.at(b))
                && (before.name(), before.kind, before.parent()) == (def.name(), def.kind, def.parent())
            {
                let previous = local - 1;
                out.first_twin[local] = if out.first_twin[previous] == u32::MAX {
                    previous as u32
                } else {
                    out.first_twin[previous]
                };
                out.entry[local] = false;
            }
            if let Some(p) = def.parent() {
                out.parent[local] = 1 + p;
            }
            let in_tests = aux_file || ancestors(file, d).any(|a| is_test_module(defs.at(a)));
            let parent_def = def.parent().map(|p| defs.at(p as usize));
            if in_tests {
                out.care[local] = AUX_CARE;
            }
            if internal || language.is_private(def, parent_def) {
                out.care[local] *= PRIVATE_CARE;
            }
            if def.kind == DefKind::Method || parent_def.is_some() {
                out.care[local] *= MEMBER_CARE;
            }
            if is_vocabulary(&def) && !names[local] {
                out.care[local] *= VOCABULARY_CARE;
            }
            if protocol[d] || language.is_type_parameter(def) || language.names_a_file(def) {
                out.entry[local] = false;
            }
        }
        if aux_file {
            out.care[0] = AUX_CARE;
        }
        out
    }
}

/// The per-node tables each file's part makes, laid end to end.
struct FileTables {
    care: Vec<f32>,
    entry: Vec<bool>,
    parent: Vec<u32>,
    first_twin: Vec<u32>,
    max_per_line: usize,
    carried: Carried,
}

impl FileTables {
    /// Each file's part, taken from `previous` (another snapshot's tables) where its file and
    /// resolved references are the same.
    fn build(snapshot: &Snapshot, graph: &SymbolGraph, previous: Option<&Carried>) -> Self {
        let n = graph.n_nodes();
        let arcs: Vec<&Arc<FileEntry>> = snapshot.files.values().collect();
        let mut interfaces: Vec<&str> = arcs
            .iter()
            .flat_map(|e| e.symbols.defs.iter())
            .filter(|d| d.kind == DefKind::Interface)
            .map(|d| d.name())
            .collect();
        interfaces.sort_unstable();
        interfaces.dedup();
        // The previous part of each file, by path (both lists are in path order).
        let previous =
            previous.filter(|p| p.interfaces.iter().map(String::as_str).eq(interfaces.iter().copied()));
        let mut before: Vec<Option<&Arc<FileCare>>> = vec![None; arcs.len()];
        if let Some(previous) = previous {
            let mut old = previous.files.iter().peekable();
            for (f, entry) in arcs.iter().enumerate() {
                while old.next_if(|o| o.file.path < entry.path).is_some() {}
                before[f] = old.next_if(|o| o.file.path == entry.path);
            }
        }
        let interface_set: HashSet<&str> = interfaces.iter().copied().collect();
        // Each file's nodes on rayon's threads, then laid end to end: files are numbered in
        // order and each file's node comes before its definitions'.
        let files: Vec<Arc<FileCare>> = arcs
            .par_iter()
            .enumerate()
            .map(|(f, file)| {
                let out = graph.out_id(f);
                match before[f] {
                    Some(old) if Arc::ptr_eq(&old.file, file) && old.out == out => old.clone(),
                    _ => Arc::new(FileCare::of(file, out, &interface_set, &graph.has_edges_from(f))),
                }
            })
            .collect();
        let mut out = FileTables {
            care: Vec::with_capacity(n),
            entry: Vec::with_capacity(n),
            parent: Vec::with_capacity(n),
            first_twin: Vec::with_capacity(n),
            max_per_line: 1,
            carried: Carried {
                files: Vec::new(),
                interfaces: interfaces.into_iter().map(str::to_string).collect(),
                surface: Surface::default(),
            },
        };
        for (f, file) in files.iter().enumerate() {
            let base = graph.file_node(f);
            let global = |&local: &u32| if local == u32::MAX { local } else { base + local };
            out.care.extend_from_slice(&file.care);
            out.parent.extend(file.parent.iter().map(global));
            out.entry.extend_from_slice(&file.entry);
            out.first_twin.extend(file.first_twin.iter().map(global));
            out.max_per_line = out.max_per_line.max(file.max_per_line);
        }
        debug_assert_eq!(out.care.len(), n);
        out.carried.files = files;
        out
    }
}

/// Per node, (1 + its users) to the power [`USERS_EXPONENT`], from where each node's users
/// start (the last entry: where the last one's end). Most nodes have few users: theirs is read
/// from a table (a `powf` a node took a third of the time at 1.6 million nodes), the same value.
fn breadth_of(start: &[u32]) -> Vec<f32> {
    breadth_of_counts(start.windows(2).map(|w| w[1] - w[0]))
}

/// Per node, (1 + its users) to the power [`USERS_EXPONENT`], from how many users each has.
fn breadth_of_counts(users: impl Iterator<Item = u32>) -> Vec<f32> {
    let of = |users: u32| (1.0 + users as f32).powf(USERS_EXPONENT);
    let few: Vec<f32> = (0..FEW_USERS).map(of).collect();
    users.map(|users| few.get(users as usize).copied().unwrap_or_else(|| of(users))).collect()
}

/// Who uses each node: the graph's edges turned around, and each node's breadth. Kept beside
/// the map tables, made first: PageRank needs them and nothing else of the tables.
#[derive(Debug)]
pub(crate) struct Users {
    /// Per node: (1 + its users) to the power [`USERS_EXPONENT`].
    breadth: Vec<f32>,
    /// Node `i` is referenced by `list[start[i]..start[i + 1]]`, in node order.
    start: Vec<u32>,
    list: Vec<u32>,
    /// Made from an earlier snapshot's ([`Users::updated`]).
    updated: bool,
}

impl Users {
    /// The nodes with an edge into `node`.
    fn of(&self, node: u32) -> &[u32] {
        let node = node as usize;
        &self.list[self.start[node] as usize..self.start[node + 1] as usize]
    }

    fn build(graph: &SymbolGraph) -> Self {
        let n = graph.n_nodes();
        let mut counts = vec![0u32; n + 1];
        graph.for_each_edge(|_, dst| counts[dst as usize + 1] += 1);
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let mut fill = counts.clone();
        let mut list = vec![0u32; counts[n] as usize];
        graph.for_each_edge(|src, dst| {
            list[fill[dst as usize] as usize] = src;
            fill[dst as usize] += 1;
        });
        Users { breadth: breadth_of(&counts), start: counts, list, updated: false }
    }

    /// The users of `graph`'s nodes made from `seed`'s: each node keeps its users from files
    /// whose resolved references are the same (renumbered), and gains those from the changed
    /// files' edges. The same lists as [`Users::build`], in a pass that copies instead of
    /// scattering every edge; `None` (build them) when files came or went or many changed.
    fn updated(seed: &Seeded, graph: &SymbolGraph) -> Option<Self> {
        let n_files = graph.files.len();
        if seed.files != files_hash(graph) || seed.out.len() != n_files {
            return None;
        }
        let (old_base, new_base) = (seed.node_base.as_slice(), graph.node_base().as_slice());
        let count = |base: &[u32], f: usize| base[f + 1] - base[f];
        let changed: Vec<bool> = (0..n_files).map(|f| seed.out[f] != graph.out_id(f)).collect();
        if changed.iter().filter(|&&c| c).count() > (n_files / 8).max(8)
            || (0..n_files).any(|f| !changed[f] && count(old_base, f) != count(new_base, f))
        {
            return None;
        }
        // An earlier node as a user: its number now, or none when its file's edges changed.
        let mut source = vec![u32::MAX; seed.users.start.len() - 1];
        for f in (0..n_files).filter(|&f| !changed[f]) {
            for local in 0..count(old_base, f) {
                source[(old_base[f] + local) as usize] = new_base[f] + local;
            }
        }
        // The changed files' edges, by target, then user.
        let mut added: Vec<(u32, u32)> = (0..n_files)
            .filter(|&f| changed[f])
            .flat_map(|f| graph.file_edges(f).map(|(src, dst)| (dst, src)))
            .collect();
        added.sort_unstable();
        let mut start = Vec::with_capacity(graph.n_nodes() + 1);
        start.push(0u32);
        let mut list: Vec<u32> = Vec::with_capacity(seed.users.list.len() + added.len());
        let mut next = 0;
        for f in 0..n_files {
            // A node of a changed file keeps its number's users from unchanged files: their
            // edges point into the file by that number, in both graphs.
            for local in 0..count(new_base, f) {
                let node = new_base[f] + local;
                let from = list.len();
                if local < count(old_base, f) {
                    let kept = seed.users.of(old_base[f] + local).iter().map(|&s| source[s as usize]);
                    list.extend(kept.filter(|&s| s != u32::MAX));
                }
                let first = next;
                while added.get(next).is_some_and(|&(dst, _)| dst == node) {
                    next += 1;
                }
                if first < next {
                    list.extend(added[first..next].iter().map(|&(_, src)| src));
                    list[from..].sort_unstable();
                }
                start.push(list.len() as u32);
            }
        }
        debug_assert_eq!(next, added.len(), "every added edge has a target");
        Some(Users { breadth: breadth_of(&start), start, list, updated: true })
    }
}

/// What ordering a map's definitions reads of each node besides its rank: the snapshot's
/// [`Tables`], or the copy of them saved with the index.
struct NodeFacts<'a> {
    care: &'a [f32],
    entry: &'a [bool],
    parent: &'a [u32],
    first_twin: &'a [u32],
    /// Per node: (1 + its users) to the power [`USERS_EXPONENT`].
    breadth: &'a [f32],
    max_per_line: usize,
    /// Who uses each node (asked only of a focus's definitions).
    users: UsersOf<'a>,
}

impl<'a> NodeFacts<'a> {
    /// The nodes with an edge into `node`.
    fn users(&self, node: u32) -> &'a [u32] {
        self.users.of(node)
    }
}

/// Who uses the nodes a map asks about (a focus's definitions).
#[derive(Debug, Clone, Copy)]
enum UsersOf<'a> {
    /// Nobody's: a map without a focus asks of none.
    None,
    /// Every node's.
    All(&'a Users),
    /// A focus's definitions' alone.
    Focus(&'a FocusUsers),
}

impl<'a> UsersOf<'a> {
    /// The nodes with an edge into `node`.
    fn of(self, node: u32) -> &'a [u32] {
        match self {
            UsersOf::None => &[],
            UsersOf::All(users) => users.of(node),
            UsersOf::Focus(users) => users.of(node),
        }
    }
}

/// Who uses a focus's definitions, read from the resolved references when who uses each node
/// is not made yet: the same lists as [`Users`] holds. Only the focus's nodes are asked of: the
/// graph of a saved copy was read from the index, so PageRank has no earlier graph whose
/// boosted nodes a fold would ask about.
#[derive(Debug)]
struct FocusUsers {
    nodes: Vec<u32>,
    users: Vec<Vec<u32>>,
}

impl FocusUsers {
    /// The users of `nodes` (sorted, deduplicated) in `graph`.
    fn read(graph: &SymbolGraph, nodes: &[u32]) -> Self {
        let started = std::time::Instant::now();
        let users = graph.users_of(nodes);
        tracing::debug!(ms = started.elapsed().as_millis() as u64, nodes = nodes.len(), "focus users read");
        FocusUsers { nodes: nodes.to_vec(), users }
    }

    fn of(&self, node: u32) -> &[u32] {
        self.nodes.binary_search(&node).map_or(&[], |at| &self.users[at])
    }
}

/// The tables of `snapshot` (whose graph is `graph`), made on first use from what the snapshot
/// before carried over; `with_users` runs as soon as who uses each node is known, beside the
/// rest, when this call makes them.
fn tables_of(
    snapshot: &Snapshot,
    graph: &SymbolGraph,
    with_users: impl FnOnce(&Users) + Send,
) -> Arc<Tables> {
    snapshot.derived.get_or_init(|| {
        let previous =
            snapshot.derived.get::<TablesSeed>().and_then(|seed| seed.0.lock().expect("seed").take());
        let tables = Tables::build(snapshot, graph, previous.as_deref(), with_users);
        // The copy saved with the index stood for these; it is no longer read.
        saved::forget(snapshot);
        tables
    })
}

/// The graph and tables of `snapshot`, with its ranks without a focus (which the graph keeps),
/// made unless they are: what every unfocused map reads, and what the index saves.
fn unfocused(snapshot: &Snapshot) -> (Arc<SymbolGraph>, Arc<Tables>) {
    let graph = snapshot.graph();
    let entries: Vec<&FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
    let no_focus = Focus::default();
    let rank = |users: &Users| rank_nodes(&graph, UsersOf::All(users), &entries, &no_focus, &[]);
    let mut ranked = None;
    let tables = tables_of(snapshot, &graph, |users| ranked = Some(rank(users)));
    if ranked.is_none() {
        rank(&tables.users);
    }
    (graph, tables)
}

impl Snapshot {
    /// Makes what every map of this snapshot shares (name resolution, the map's tables) and its
    /// ranks without a focus, unless they are made (or loaded): a server calls it once its first
    /// scan is done, so its first focused map or first edit does not pay for them.
    pub fn prepare_maps(&self) {
        if !self.files.is_empty() {
            unfocused(self);
        }
    }
}

impl Tables {
    /// What ordering a map's definitions reads of each node.
    fn facts(&self) -> NodeFacts<'_> {
        NodeFacts {
            care: &self.care,
            entry: &self.entry,
            parent: &self.parent,
            first_twin: &self.first_twin,
            breadth: &self.users.breadth,
            max_per_line: self.max_per_line,
            users: UsersOf::All(&self.users),
        }
    }

    /// The tables of `snapshot`, whose graph is `graph`; each file's part is taken from
    /// `previous` (another snapshot's tables) where its file and resolved references are the
    /// same.
    pub(crate) fn build(
        snapshot: &Snapshot,
        graph: &SymbolGraph,
        previous: Option<&Carried>,
        with_users: impl FnOnce(&Users) + Send,
    ) -> Self {
        let started = std::time::Instant::now();
        let entries: Vec<&FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
        // Side by side: who uses each node (then `with_users`), and each file's care with the
        // surface.
        let (mut files, mut users, mut surface) = (None, None, None);
        let (mut files_ms, mut users_ms, mut surface_ms, mut users_updated) = (0, 0, 0, false);
        rayon::join(
            || {
                let t = std::time::Instant::now();
                let made = snapshot.derived.get_or_init(|| {
                    let seed = snapshot.derived.get::<UsersSeed>().and_then(|seed| seed.take());
                    seed.and_then(|seed| Users::updated(&seed, graph)).unwrap_or_else(|| Users::build(graph))
                });
                users_ms = t.elapsed().as_millis() as u64;
                users_updated = made.updated;
                with_users(&made);
                users = Some(made);
            },
            || {
                rayon::join(
                    || {
                        let t = std::time::Instant::now();
                        files = Some(FileTables::build(snapshot, graph, previous));
                        files_ms = t.elapsed().as_millis() as u64;
                    },
                    || {
                        let t = std::time::Instant::now();
                        surface = Some(surface_nodes(snapshot, graph, previous.map(|p| &p.surface)));
                        surface_ms = t.elapsed().as_millis() as u64;
                    },
                )
            },
        );
        let (files, users, surface) =
            (files.expect("joined"), users.expect("joined"), surface.expect("joined"));
        let FileTables { mut care, entry, parent, first_twin, max_per_line, mut carried } = files;
        let (surface, offered) = surface;
        carried.surface = offered;
        for (node, named) in surface {
            let value = matches!(graph.node_place(node), (f, Some(d))
                if matches!(entries[f].symbols.defs[d].kind, DefKind::Function | DefKind::Constant));
            care[node as usize] *= if value && named { SURFACE_VALUE_CARE } else { SURFACE_CARE };
        }
        let joined = started.elapsed();
        let carried = Arc::new(carried);
        let mut tables = Self { care, entry, parent, first_twin, users, max_per_line, carried };
        tables.mark_test_support(graph, &entries);
        tracing::debug!(
            files_ms,
            users_ms,
            users_updated,
            surface_ms,
            joined_ms = joined.as_millis() as u64,
            test_support_ms = (started.elapsed() - joined).as_millis() as u64,
            "map tables built"
        );
        tables
    }

    /// The nodes with an edge into `node`.
    fn users(&self, node: u32) -> &[u32] {
        self.users.of(node)
    }

    /// Files only tests use (a test helper outside `tests/`, a fixture that imitates a library)
    /// count as tests: some edge from another file reaches them, and every such edge comes from
    /// code a newcomer cares less about.
    fn mark_test_support(&mut self, graph: &SymbolGraph, entries: &[&FileEntry]) {
        // Twice: a file only test helpers use is one too. The second time a file is judged
        // again only when a file with an edge into it was marked after it was first judged (in
        // the first pass after it, in the second before it): else its users' care is as it was
        // and so is the verdict. The same marks as judging every file twice, in a pass over
        // the few marked files' edges instead of every edge.
        let n = entries.len();
        let mut again = vec![false; n];
        for f in 0..n {
            if self.judge_test_support(graph, f) {
                for t in graph.target_files(f) {
                    if (t as usize) < f {
                        again[t as usize] = true;
                    }
                }
            }
        }
        for f in 0..n {
            if again[f] && self.judge_test_support(graph, f) {
                for t in graph.target_files(f) {
                    if t as usize > f {
                        again[t as usize] = true;
                    }
                }
            }
        }
    }

    /// Marks file `f` as test support when some edge from another file reaches it and every
    /// such edge comes from code a newcomer cares less about; whether it marked it.
    fn judge_test_support(&mut self, graph: &SymbolGraph, f: usize) -> bool {
        let (from, to) = (graph.file_node(f), graph.file_node(f + 1));
        if self.care[from as usize] <= AUX_CARE {
            return false;
        }
        let mut used = false;
        let mut by_code = false;
        for node in from..to {
            for &user in self.users(node) {
                if (from..to).contains(&user) {
                    continue;
                }
                used = true;
                by_code |= self.care[user as usize] > AUX_CARE;
            }
        }
        if used && !by_code {
            for node in from..to {
                self.care[node as usize] = AUX_CARE;
            }
        }
        used && !by_code
    }
}

/// What the repository's packages offer: the definitions their surface files import at their
/// top, and those a module's export list (`__all__`) names, found through name resolution;
/// each with whether it is named (a surface file imports it by name, an `__all__` lists it:
/// `true`) or only a glob brings it (`false`).
///
/// Each file's offer is taken from `previous` (another snapshot's search) while the file, its
/// resolved references and the repository's files are the same; the offers read are returned
/// for the next snapshot.
fn surface_nodes(
    snapshot: &Snapshot,
    graph: &SymbolGraph,
    previous: Option<&Surface>,
) -> (Vec<(u32, bool)>, Surface) {
    let resolver = snapshot.resolver();
    let arcs: Vec<&Arc<FileEntry>> = snapshot.files.values().collect();
    let entries: Vec<&FileEntry> = arcs.iter().map(|e| e.as_ref()).collect();
    let mut out = Vec::new();
    // Surface files, then the modules their globs bring in, each once.
    let mut todo: Vec<(u32, u32)> = Vec::new();
    let is_surface_file = |file: &FileEntry| {
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        file.lang.spec().surface_files.contains(&name)
    };
    // A surface file under a folder that has one of its own is an inner module's, not the
    // package's (`server/index.ts` below `node/index.ts`): only the outermost count.
    let surface_dirs: HashSet<&str> =
        entries.iter().filter(|file| is_surface_file(file)).map(|file| folder(&file.path)).collect();
    let outermost = |file: &FileEntry| {
        let own = folder(&file.path);
        let mut dir = own;
        while let Some((up, _)) = dir.rsplit_once('/') {
            if surface_dirs.contains(up) {
                return false;
            }
            dir = up;
        }
        own.is_empty() || !surface_dirs.contains("")
    };
    for (f, file) in entries.iter().enumerate() {
        if (is_surface_file(file) && outermost(file)) || file.symbols.exports.is_some() {
            todo.push((f as u32, 0));
        }
    }
    // In waves, each file on rayon's threads: a module is reached at its least depth.
    let mut seen: HashSet<u32> = todo.iter().map(|(f, _)| *f).collect();
    let files = files_hash(graph);
    let previous = previous.filter(|p| p.files == files);
    // The nodes file `f` offers, as (file, local node).
    let offer = |f: u32, inner: bool| -> Vec<(u32, u32)> {
        let mut nodes = Vec::new();
        let file = entries[f as usize];
        let symbols = &file.symbols;
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        let whole = inner || file.lang.spec().surface_files.contains(&name);
        let exports: HashSet<&str> = symbols.exports.iter().flatten().map(String::as_str).collect();
        let language = file.lang.language();
        for (d, def) in symbols.defs.iter().enumerate() {
            let offered = if inner { !language.is_private(def, None) } else { exports.contains(def.name()) };
            if def.parent().is_none() && offered {
                nodes.push((f, 1 + d as u32));
            }
        }
        // What its imports at the top resolve to (the graph's parts, in reference order): a
        // definition, or a module-level constant bound where it is defined.
        let mut resolved = graph.resolved_parts(f as usize).peekable();
        for (i, r) in symbols.refs.iter().enumerate() {
            if resolved.peek().is_none() {
                break;
            }
            let offered = r.kind() == crate::symbols::RefKind::Import
                && r.enclosing().is_none()
                && (whole || exports.contains(symbols.ref_name(&r)));
            while let Some((_, file, local)) = resolved.next_if(|&(n, _, _)| n <= i as u32) {
                if offered && local > 0 {
                    nodes.push((file, local));
                }
            }
        }
        nodes
    };
    let offered_by = |(f, depth): (u32, u32)| -> Arc<Offered> {
        let (inner, out) = (depth > 0, graph.out_id(f as usize));
        let entry = &arcs[f as usize];
        let kept = previous
            .and_then(|p| p.offered.get(&f))
            .filter(|o| Arc::ptr_eq(&o.file, entry) && o.out == out && o.inner == inner);
        if let Some(o) = kept {
            return o.clone();
        }
        let name = entry.path.rsplit('/').next().unwrap_or(&entry.path);
        let globs = if inner || entry.lang.spec().surface_files.contains(&name) {
            resolver.glob_modules(f)
        } else {
            Vec::new()
        };
        Arc::new(Offered { file: (*entry).clone(), out, inner, nodes: offer(f, inner), globs })
    };
    let mut read = Surface { files, offered: Default::default() };
    while !todo.is_empty() {
        let wave: Vec<(u32, Arc<Offered>, u32)> =
            todo.par_iter().map(|&(f, depth)| (f, offered_by((f, depth)), depth)).collect();
        todo.clear();
        for (f, offered, depth) in wave {
            out.extend(
                offered
                    .nodes
                    .iter()
                    .map(|&(file, local)| (graph.file_node(file as usize) + local, depth == 0)),
            );
            if depth < 4 {
                for &m in &offered.globs {
                    if seen.insert(m) {
                        todo.push((m, depth + 1));
                    }
                }
            }
            read.offered.insert(f, offered);
        }
    }
    // A node named both ways counts as named.
    out.sort_unstable_by_key(|&(node, named)| (node, !named));
    out.dedup_by_key(|(node, _)| *node);
    (out, read)
}

/// The folder of a path relative to the root (`""` at the root).
fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The definitions enclosing definition `d` of `file`, innermost first.
fn ancestors<'a>(file: &'a FileEntry, d: usize) -> impl Iterator<Item = usize> + 'a {
    std::iter::successors(Some(d), |&i| file.symbols.defs[i].parent().map(|p| p as usize))
}

/// A module of tests inside code (Rust's `mod tests`).
fn is_test_module(def: crate::symbols::DefRef) -> bool {
    def.kind == DefKind::Module && matches!(def.name(), "tests" | "test")
}

/// Whether a definition is a one-line type, a candidate for [`VOCABULARY_CARE`].
fn is_vocabulary(def: &crate::symbols::Def) -> bool {
    def.line == def.end_line
        && matches!(def.kind, DefKind::Class | DefKind::Enum | DefKind::Type | DefKind::Interface)
}

/// Whether a file serves the code rather than being it: a test by its path, a benchmark or an
/// example, a fixture, vendored, generated or minified.
fn is_auxiliary(file: &FileEntry) -> bool {
    let path = file.path.as_str();
    if crate::rank::is_test_path(path) || crate::rank::is_bundle(file) {
        return true;
    }
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or("");
    let aux_dir = |d: &&str| {
        let d = d.to_ascii_lowercase();
        matches!(
            d.as_str(),
            "vendor"
                | "vendored"
                | "_vendor"
                | "third_party"
                | "third-party"
                | "thirdparty"
                | "node_modules"
                | "fixtures"
                | "fixture"
                | "testdata"
                | "test-data"
                | "benchmarks"
                | "benchmark"
                | "example"
                | "samples"
                | "sample"
                | "demo"
                | "demos"
                | "playground"
                | "playgrounds"
                | "generated"
                | "docs"
                | "doc"
        ) || d.split(['-', '_']).any(|word| {
            matches!(
                word,
                "test"
                    | "tests"
                    | "testing"
                    | "testutils"
                    | "testdata"
                    | "fixtures"
                    | "bench"
                    | "benches"
                    | "fuzz"
                    | "fuzzing"
            )
        }) || d.starts_with("test")
    };
    let stem = name.split('.').next().unwrap_or(name);
    parts.iter().any(aux_dir)
        || stem.ends_with("_pb2")
        || stem.ends_with("_pb2_grpc")
        || name.ends_with(".pb.go")
        || stem.ends_with("_generated")
        || name.contains(".generated.")
}

/// Which of a file's definitions are methods that fill in a protocol rather than say what the
/// code does: those the language names so (Python's `__repr__`), a member or method named like
/// a method of the standard library's everyday types (a mapping's `get`, `items`; a `Vec`'s
/// `push`; Rust's and Go's methods have no parent, their type not being a definition around
/// them), and
/// every method of an `impl` of a trait the repository does not define (`impl fmt::Display`).
fn protocol_methods(file: &FileEntry, interfaces: &HashSet<&str>) -> Vec<bool> {
    let symbols = &file.symbols;
    let spec = file.lang.language();
    let everyday = file.lang.spec().std_methods;
    let external_impls: Vec<(u32, u32)> = symbols
        .impls
        .iter()
        .filter(|i| i.trait_path != crate::names::NONE)
        .filter(|i| {
            let path = symbols.text(i.trait_path);
            let last = path.rsplit([':', '.']).next().unwrap_or(path);
            let last = last.split('<').next().unwrap_or(last);
            !interfaces.contains(last)
        })
        .map(|i| (i.start.line, i.end.line))
        .collect();
    symbols
        .defs
        .iter()
        .map(|def| {
            let method = matches!(def.kind, DefKind::Method | DefKind::Function);
            method
                && (spec.is_protocol_method(def.name())
                    || ((def.parent().is_some() || def.kind == DefKind::Method)
                        && everyday.contains(&def.name()))
                    || external_impls.iter().any(|&(start, end)| start <= def.line && def.line <= end))
        })
        .collect()
}

fn round6(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let digits = 6 - x.abs().log10().ceil() as i32;
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// Paths, folders and identifiers named in the focus. A qualified name such as `Cart.add` or
/// `shapes::Circle::new` contributes each of its parts.
fn resolve_focus(snapshot: &Snapshot, graph: &SymbolGraph, focus: &[String]) -> Focus {
    let mut out = Focus::default();
    for item in focus {
        let item = item.trim().trim_start_matches("./").trim_end_matches('/');
        if item.is_empty() {
            continue;
        }
        if let Some(i) = graph.file_index(item) {
            out.files.insert(i);
            continue;
        }
        let as_dir = format!("{item}/");
        let as_suffix = format!("/{item}");
        let mut matched_path = false;
        for (i, path) in snapshot.files.keys().enumerate() {
            if path.starts_with(&as_dir) || path.ends_with(&as_suffix) {
                out.files.insert(i);
                matched_path = true;
            }
        }
        if matched_path {
            continue;
        }
        // A qualified name: the last part is the identifier, the parts before it name scopes,
        // which count when they name a file (`geo::distance` → geo.rs).
        let parts: Vec<&str> =
            item.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let qualified = parts.len() > 1 && (item.contains("::") || item.contains('.'));
        for (n, word) in parts.iter().enumerate() {
            let is_scope = qualified && n + 1 < parts.len();
            if !is_scope && !out.idents.contains(*word) {
                let defs = defs_named(snapshot, word);
                if !defs.is_empty() {
                    out.idents.insert(word.to_string());
                    out.defs.extend(defs);
                }
            }
            // Aider's rule: a word of five or more letters names the file with that stem; a
            // scope of a qualified name does at any length.
            if is_scope || word.len() >= 5 {
                let word = word.to_lowercase();
                for (i, path) in snapshot.files.keys().enumerate() {
                    let stem = path.rsplit('/').next().unwrap_or(path).split('.').next().unwrap_or("");
                    if stem.to_lowercase() == word {
                        out.files.insert(i);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::ShopCopy;

    /// A file's entry, its symbols extracted from `text`.
    fn entry(path: &str, text: &str) -> FileEntry {
        let lang = crate::snapshot::Lang::from_path(std::path::Path::new(path)).expect("a known language");
        let symbols = crate::extract::extract(lang, text);
        let (size, lines) = (text.len() as u64, text.lines().count() as u32);
        FileEntry { path: path.to_string(), lang, size, mtime_ns: 0, hash: [0; 16], lines, symbols }
    }

    /// An edit that keeps the edges as laid out keeps who uses each node; one that adds an
    /// edge makes them again.
    #[test]
    fn users_are_kept_with_the_edges() {
        let shop = ShopCopy::new();
        let count = |s: &str| s.len() / 4;
        let users = |snapshot: &Snapshot| {
            repo_map(snapshot, &[], 1024, &count);
            snapshot.derived.get::<Users>().expect("the map made them")
        };
        let before = users(&shop.index.snapshot());
        let edit = |from: &str, to: &str| shop.edit("shop/pricing.py", |text| text.replace(from, to));
        let literal = edit("amount * (1 + TAX_RATE)", "amount * (2 + TAX_RATE)");
        assert!(Arc::ptr_eq(&users(&literal), &before));
        let call = edit("amount * (2 + TAX_RATE)", "apply_discount(amount, None) * (2 + TAX_RATE)");
        let after = users(&call);
        assert!(!Arc::ptr_eq(&after, &before));
        assert_eq!(after.list.len(), call.graph().n_edges());
    }

    /// A focus's users read from the resolved references are the lists every edge turned
    /// around gives, node by node, on a repository with many files (tack's own source).
    #[test]
    fn users_read_from_the_resolved_references_are_the_edges_turned_around() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src").canonicalize().unwrap();
        let index = crate::Index::open(&root, crate::Filter::new(&root, &[]).unwrap(), None).0;
        let snapshot = index.snapshot();
        let graph = snapshot.graph();
        let all = Users::build(&graph);
        let nodes: Vec<u32> = (0..graph.n_nodes() as u32).collect();
        let read = FocusUsers::read(&graph, &nodes);
        assert!(all.list.len() > 1000, "a graph with edges: {}", all.list.len());
        for &node in &nodes {
            assert_eq!(read.of(node), all.of(node), "node {node}");
        }
        // A few nodes alone (every third), and one no edge reaches.
        let few: Vec<u32> = nodes.iter().copied().filter(|n| n % 3 == 0).collect();
        let read = FocusUsers::read(&graph, &few);
        for &node in &nodes {
            let expected = if node % 3 == 0 { all.of(node) } else { &[][..] };
            assert_eq!(read.of(node), expected, "node {node}");
        }
    }

    /// Definitions that share a line share its tokens: when the first as many definitions as
    /// the budget has tokens all fit, the map goes on to the definitions after them.
    #[test]
    fn a_map_goes_past_as_many_definitions_as_tokens_when_they_share_lines() {
        // One line of 150 functions, each called from five files, and a helper nothing calls:
        // the functions come first in the map's order, and all share one line.
        let line: String = (0..150).map(|i| format!("export function f{i}(){{return {i}}}")).collect();
        let names: Vec<String> = (0..150).map(|i| format!("f{i}")).collect();
        let calls: String = names.iter().map(|f| format!("  {f}();\n")).collect();
        let import = format!("import {{ {} }} from \"../lib/all.js\";\n", names.join(", "));
        let callers: Vec<(String, String)> = (0..5)
            .map(|k| (format!("app/caller{k}.js"), format!("{import}function caller{k}() {{\n{calls}}}\n")))
            .collect();
        let mut files = vec![entry("lib/all.js", &format!("{line}\n"))];
        files.extend(callers.iter().map(|(path, text)| entry(path, text)));
        files.push(entry("app/util.js", "function helper() {\n  return 1;\n}\n"));
        let snapshot = Snapshot::from_entries(files);
        let count = |s: &str| s.split_whitespace().count();
        let map = repo_map(&snapshot, &[], 100, &count);
        assert!(map.tokens <= 100, "{} tokens", map.tokens);
        assert!(
            map.text.contains("app/util.js") && map.text.contains("function helper"),
            "{} {}",
            map.shown_defs,
            map.text
        );
    }

    /// A helper only another helper uses is marked when the other is, whichever comes first
    /// by path: the second pass judges again the file the first marked helper has an edge into.
    #[test]
    fn files_only_tests_use_are_marked_through_a_chain_of_helpers() {
        let snapshot = Snapshot::from_entries([
            entry("app/__init__.py", ""),
            entry("app/aaa_base.py", "def base_value():\n    return 1\n"),
            entry("app/core.py", "def total(items):\n    return sum(items)\n"),
            entry("app/main.py", "from app.core import total\n\ndef run():\n    return total([1])\n"),
            entry(
                "app/zzz_helper.py",
                "from app.aaa_base import base_value\n\ndef make_items():\n    return [base_value()]\n",
            ),
            entry(
                "tests/test_core.py",
                "from app.core import total\nfrom app.zzz_helper import make_items\n\ndef test_total():\n    assert total(make_items()) == 1\n",
            ),
        ]);
        repo_map(&snapshot, &[], 1024, &|s: &str| s.len() / 4);
        let tables = snapshot.derived.get::<Tables>().expect("the map built its tables");
        let graph = snapshot.graph();
        let marked: Vec<(&str, bool)> = graph
            .files
            .iter()
            .enumerate()
            .map(|(f, path)| (path.as_str(), tables.care[graph.file_node(f) as usize] <= AUX_CARE))
            .collect();
        assert_eq!(
            marked,
            [
                ("app/__init__.py", false),
                ("app/aaa_base.py", true),
                ("app/core.py", false),
                ("app/main.py", false),
                ("app/zzz_helper.py", true),
                ("tests/test_core.py", true),
            ]
        );
    }

    /// Every per-node table, for comparing two builds.
    fn table_facts(t: &Tables) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}",
            t.care,
            t.entry,
            t.parent,
            t.first_twin,
            t.users.breadth,
            t.users.start,
            t.users.list,
            t.max_per_line
        )
    }

    /// After an edit, a snapshot's map tables take the previous snapshot's part of every file
    /// whose entry and resolved references stayed the same, make the others again, and are
    /// what tables built from nothing are.
    #[test]
    fn tables_after_an_edit_take_the_unchanged_files_parts_and_equal_a_full_build() {
        let shop = ShopCopy::new();
        let before = shop.index.snapshot();
        repo_map(&before, &[], 1024, &|s: &str| s.len() / 4);
        let old = before.derived.get::<Tables>().expect("the map built its tables");
        // A definition added last: pricing.py's entry is new, and so are its resolved
        // references; no other file's references bind differently.
        let after = shop.edit("shop/pricing.py", |text| format!("{text}\n\ndef zero():\n    return 0\n"));
        repo_map(&after, &[], 1024, &|s: &str| s.len() / 4);
        let new = after.derived.get::<Tables>().expect("the map built its tables");
        let taken: Vec<(&str, bool)> = new
            .carried
            .files
            .iter()
            .zip(&old.carried.files)
            .map(|(n, o)| (n.file.path.as_str(), Arc::ptr_eq(n, o)))
            .collect();
        assert_eq!(
            taken,
            [
                ("shop/__init__.py", true),
                ("shop/cart.py", true),
                ("shop/checkout.py", true),
                ("shop/item.py", true),
                ("shop/pricing.py", false)
            ]
        );
        let full = Tables::build(&after, &after.graph(), None, |_| {});
        assert_eq!(table_facts(&new), table_facts(&full));
        // Who uses each node was made from the snapshot before's lists (the edit renumbered
        // every node after pricing.py's and changed its edges), as a build from nothing makes it.
        let users_facts = |u: &Users| format!("{:?}\n{:?}\n{:?}", u.breadth, u.start, u.list);
        assert!(new.users.updated);
        // The lists they were made from are let go.
        assert!(after.derived.get::<UsersSeed>().is_some_and(|seed| seed.take().is_none()));
        assert_eq!(users_facts(&new.users), users_facts(&Users::build(&after.graph())));
        assert!(new.carried.files.iter().zip(&full.carried.files).all(|(a, b)| !Arc::ptr_eq(a, b)));
        // What the package's `__init__.py` offers is taken too: neither it nor what its imports
        // bind changed. Once it changes, it is read again.
        let offer = |t: &Tables| t.carried.surface.offered.get(&0).cloned().expect("__init__.py read");
        assert!(Arc::ptr_eq(&offer(&new), &offer(&old)));
        let again = shop.edit("shop/__init__.py", |text| format!("{text}\n# the package\n"));
        repo_map(&again, &[], 1024, &|s: &str| s.len() / 4);
        let newer = again.derived.get::<Tables>().expect("the map built its tables");
        assert!(!Arc::ptr_eq(&offer(&newer), &offer(&new)));
        assert_eq!(table_facts(&newer), table_facts(&Tables::build(&again, &again.graph(), None, |_| {})));
        assert!(newer.users.updated);
        assert_eq!(users_facts(&newer.users), users_facts(&Users::build(&again.graph())));
    }
}

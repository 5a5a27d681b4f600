//! The repository map: definitions ranked by personalized PageRank, the most important ones
//! rendered file by file with `⋮` for skipped lines, as many as fit the token budget.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::index::{FileEntry, Snapshot};

/// Rendered source lines are cut to this many characters.
pub(crate) const LINE_CHARS: usize = 100;
/// A map is accepted once it is this close below the budget (Aider's 15%).
const CLOSE_ENOUGH: f64 = 0.15;

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
    idents: HashSet<u32>,
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
    if let Some(entry) = snapshot.maps.0.lock().expect("map memory").iter().find(|e| hit(e)) {
        return entry.3.clone();
    }
    let map = Arc::new(repo_map(snapshot, focus, budget, &count_tokens));
    let mut recent = snapshot.maps.0.lock().expect("map memory");
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
pub fn repo_map(
    snapshot: &Snapshot,
    focus: &[String],
    budget: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> RepoMap {
    let graph = snapshot.graph();
    let entries: Vec<&FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
    let total_defs: usize = entries.iter().map(|e| e.symbols.defs.len()).sum();
    let focus_set = resolve_focus(snapshot, &graph, focus);
    let (file_rank, carried) = rank_files(&graph, &focus_set);
    let tables = snapshot.map_tables();
    let ranked = rank_slots(&tables, &carried);
    let items = order_defs(&entries, &graph, &tables, &focus_set, &file_rank, ranked, total_defs);
    let map = Render { entries, files: &graph.files, file_rank, items, focus, total_defs };
    if map.items.is_empty() {
        let text = if map.entries.is_empty() {
            "repo map: no Python or Rust files under the root\n".to_string()
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
    let (shown_defs, text, files, tokens) = fit_budget(&map, budget, tables.max_per_line, count_tokens);
    RepoMap { text, files, total_files: map.entries.len(), total_defs, shown_defs, tokens }
}

/// Each file's PageRank personalized by the focus, and the rank each edge carries. Focus files
/// and files defining a focus identifier weigh 1, files using one 0.5 (so a focus symbol pulls
/// in both its definition and its users); edges for a focus identifier count ×10, edges from a
/// focus file ×50.
fn rank_files(graph: &crate::graph::SymbolGraph, focus_set: &Focus) -> (Vec<f64>, Vec<f64>) {
    let mut personalization = vec![0.0; graph.files.len()];
    for &f in &focus_set.files {
        personalization[f] = 1.0;
    }
    for id in &focus_set.idents {
        for &f in graph.definers(*id) {
            personalization[f as usize] = f64::max(personalization[f as usize], 1.0);
        }
        for &f in graph.referencers(*id) {
            personalization[f as usize] = f64::max(personalization[f as usize], 0.5);
        }
    }
    // Looked up once per edge: flags, not hash sets.
    let mut focus_ident = vec![false; graph.idents.len()];
    for &id in &focus_set.idents {
        focus_ident[id as usize] = true;
    }
    let mut focus_file = vec![false; graph.files.len()];
    for &f in &focus_set.files {
        focus_file[f] = true;
    }
    let weight = |src: u32, edge: &crate::graph::Edge| {
        let mut w = edge.weight;
        if focus_ident[edge.ident as usize] {
            w *= 10.0;
        }
        if focus_file[src as usize] {
            w *= 50.0;
        }
        w
    };
    let ranks = graph.pagerank_keyed(focus_set.key(), &personalization, &weight);
    (ranks.rank, ranks.carried)
}

impl Focus {
    /// Names this focus for PageRank's warm start: files and identifiers keep their numbers in
    /// a graph updated from another, so the next snapshot's map for the same focus starts from
    /// this one's ranks.
    fn key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut files: Vec<usize> = self.files.iter().copied().collect();
        files.sort_unstable();
        let mut idents: Vec<u32> = self.idents.iter().copied().collect();
        idents.sort_unstable();
        let mut hasher = rustc_hash::FxHasher::default();
        (files, idents).hash(&mut hasher);
        hasher.finish()
    }
}

/// Every slot (the definitions of one name in the file an edge points at), best first: each
/// edge's rank lands in its slot; ties go by file, then identifier.
fn rank_slots(tables: &Tables, carried: &[f64]) -> Vec<u32> {
    let mut slot_rank = vec![0.0; tables.slots.len()];
    for (&slot, amount) in tables.edge_slot.iter().zip(carried) {
        slot_rank[slot as usize] += amount;
    }
    let mut ranked: Vec<u32> = (0..tables.slots.len() as u32).collect();
    ranked.sort_by(|&a, &b| {
        let ((file_a, ident_a), (file_b, ident_b)) = (tables.slots[a as usize], tables.slots[b as usize]);
        // Files are numbered in path order and identifiers carry their string order.
        slot_rank[b as usize]
            .total_cmp(&slot_rank[a as usize])
            .then(file_a.cmp(&file_b))
            .then(tables.ident_order[ident_a as usize].cmp(&tables.ident_order[ident_b as usize]))
    });
    ranked
}

/// Every definition once, as (file, definition), in the order the map takes them: a focus
/// identifier's definitions, then the definitions that use it (the enclosing function or class
/// of each reference, so the map shows both ends of the focus), then each ranked slot's
/// definitions, then the definitions no other file points at, by their file's rank and line.
fn order_defs(
    entries: &[&FileEntry],
    graph: &crate::graph::SymbolGraph,
    tables: &Tables,
    focus_set: &Focus,
    file_rank: &[f64],
    ranked: Vec<u32>,
    total_defs: usize,
) -> Vec<(usize, usize)> {
    let mut seen = vec![false; tables.n_defs];
    let mut first_time =
        |(file, def): (usize, usize)| !std::mem::replace(&mut seen[tables.def_base[file] + def], true);
    let mut items: Vec<(usize, usize)> = Vec::with_capacity(total_defs);
    let mut focus_ids: Vec<u32> = focus_set.idents.iter().copied().collect();
    focus_ids.sort();
    for id in &focus_ids {
        let name = graph.idents[*id as usize].as_str();
        for &f in graph.definers(*id) {
            for (i, def) in entries[f as usize].symbols.defs.iter().enumerate() {
                if def.name == name {
                    items.push((f as usize, i));
                }
            }
        }
    }
    let mut users: Vec<(usize, usize)> = Vec::new();
    for id in &focus_ids {
        let name = graph.idents[*id as usize].as_str();
        for &f in graph.referencers(*id) {
            let symbols = &entries[f as usize].symbols;
            for r in &symbols.refs {
                if let Some(d) = r.enclosing
                    && symbols.ref_name(r) == name
                {
                    users.push((f as usize, d as usize));
                }
            }
        }
    }
    users.sort_by(|a, b| file_rank[b.0].total_cmp(&file_rank[a.0]).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    items.extend(users);
    items.retain(|&item| first_time(item));
    // Each (file, identifier) by rank stands for every definition of that name there.
    for slot in ranked {
        let file = tables.slots[slot as usize].0 as usize;
        for &def in tables.defs_of(slot) {
            if first_time((file, def as usize)) {
                items.push((file, def as usize));
            }
        }
    }
    let mut rest: Vec<(usize, usize)> = Vec::new();
    for (file, entry) in entries.iter().enumerate() {
        for def in 0..entry.symbols.defs.len() {
            if first_time((file, def)) {
                rest.push((file, def));
            }
        }
    }
    rest.sort_by(|a, b| file_rank[b.0].total_cmp(&file_rank[a.0]).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    items.extend(rest);
    items
}

/// What rendering a map needs: the files, their ranks, and the definitions in map order.
struct Render<'a> {
    entries: Vec<&'a FileEntry>,
    /// Paths by file number.
    files: &'a [String],
    file_rank: Vec<f64>,
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
            file_rank[*b].total_cmp(&file_rank[*a]).then_with(|| self.files[*a].cmp(&self.files[*b]))
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
                    current = defs[i].parent.map(|p| p as usize);
                }
            }
            let width = shown.iter().next_back().map_or(1, |(line, _)| line.to_string().len());
            text.push_str(&entry.path);
            text.push_str(":\n");
            let mut last_line = 0;
            for &(line, i) in &shown {
                if line == last_line {
                    continue;
                }
                if line > last_line + 1 {
                    text.push_str("⋮\n");
                }
                let header: String = defs[i].header.chars().take(LINE_CHARS).collect();
                text.push_str(&format!("{line:>width$}│{header}\n"));
                last_line = line;
            }
            if last_line < entry.lines {
                text.push_str("⋮\n");
            }
            let mut symbols: Vec<MapSymbol> = chosen
                .iter()
                .map(|&i| MapSymbol {
                    name: defs[i].qualified.clone(),
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
/// binary search on how many ranked definitions to show (Aider's search, accepting a map within
/// 15% below the budget), then a step down should the exact count exceed the estimate.
fn fit_budget(
    map: &Render,
    budget: usize,
    max_per_line: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> (usize, String, Vec<MapFile>, usize) {
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
    while lower <= upper && middle >= 1 {
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
        let fits = tokens.is_some();
        if let Some(tokens) = tokens
            && (budget - tokens) as f64 / budget as f64 <= CLOSE_ENOUGH
        {
            break;
        }
        if fits {
            if middle == n_items {
                break;
            }
            lower = middle + 1;
        } else {
            if middle == 0 {
                break;
            }
            upper = middle - 1;
        }
        middle = (lower + upper) / 2;
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
    (shown_defs, text, files, tokens)
}

/// What every map of one snapshot shares, computed once: each edge's slot (the definitions of
/// one name in the file the edge points at), each slot's definitions, identifiers' string order
/// as numbers, and one numbering of all definitions.
#[derive(Debug)]
pub(crate) struct Tables {
    edge_slot: Vec<u32>,
    /// (file, identifier) of each slot.
    slots: Vec<(u32, u32)>,
    /// Slot `i` holds definitions `slot_defs[slot_start[i]..slot_start[i + 1]]`, in file order.
    slot_start: Vec<u32>,
    slot_defs: Vec<u32>,
    ident_order: Vec<u32>,
    /// Definition `d` of file `f` is number `def_base[f] + d`.
    def_base: Vec<usize>,
    n_defs: usize,
    /// The most definitions that share one line of one file (at least 1).
    max_per_line: usize,
}

impl Tables {
    pub(crate) fn build(snapshot: &Snapshot, graph: &crate::graph::SymbolGraph) -> Self {
        let mut def_base = Vec::with_capacity(snapshot.files.len());
        let mut n_defs = 0;
        let mut max_per_line = 1;
        // Every definition whose name the graph knows, as (file, identifier, definition): sorted,
        // one slot's definitions are one run of it, in file order.
        let mut named: Vec<(u32, u32, u32)> = Vec::with_capacity(snapshot.n_defs());
        let mut lines: Vec<u32> = Vec::new();
        for (file, entry) in snapshot.files.values().enumerate() {
            def_base.push(n_defs);
            n_defs += entry.symbols.defs.len();
            lines.clear();
            lines.extend(entry.symbols.defs.iter().map(|d| d.line));
            lines.sort_unstable();
            for run in lines.chunk_by(|a, b| a == b) {
                max_per_line = max_per_line.max(run.len());
            }
            for (i, def) in entry.symbols.defs.iter().enumerate() {
                if let Some(id) = graph.ident_id(&def.name) {
                    named.push((file as u32, id, i as u32));
                }
            }
        }
        named.sort_unstable();
        // A graph's edges come grouped by identifier (`SymbolGraph::assemble`), so a slot is new
        // when its file was last met under another identifier: slots are numbered in the order
        // of their first edge without a table of every (file, identifier) met.
        let mut last: Vec<(u32, u32)> = vec![(u32::MAX, 0); graph.files.len()];
        let mut slots = Vec::new();
        let mut group = 0;
        let edge_slot = graph
            .graph
            .edge_references()
            .map(|e| {
                let (file, ident) = (e.target().index(), e.weight().ident);
                debug_assert!(ident >= group, "edges grouped by identifier");
                group = ident;
                let seen = &mut last[file];
                if seen.0 != ident {
                    *seen = (ident, slots.len() as u32);
                    slots.push((file as u32, ident));
                }
                seen.1
            })
            .collect();
        let mut slot_start = Vec::with_capacity(slots.len() + 1);
        let mut slot_defs = Vec::new();
        for &(file, ident) in &slots {
            slot_start.push(slot_defs.len() as u32);
            let from = named.partition_point(|&(f, i, _)| (f, i) < (file, ident));
            let run = named[from..].iter().take_while(|&&(f, i, _)| (f, i) == (file, ident));
            slot_defs.extend(run.map(|&(_, _, def)| def));
        }
        slot_start.push(slot_defs.len() as u32);
        let by_string = graph.idents_by_string();
        let mut ident_order = vec![0; by_string.len()];
        for (order, &id) in by_string.iter().enumerate() {
            ident_order[id as usize] = order as u32;
        }
        Self { edge_slot, slots, slot_start, slot_defs, ident_order, def_base, n_defs, max_per_line }
    }

    fn defs_of(&self, slot: u32) -> &[u32] {
        let slot = slot as usize;
        &self.slot_defs[self.slot_start[slot] as usize..self.slot_start[slot + 1] as usize]
    }
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
fn resolve_focus(snapshot: &Snapshot, graph: &crate::graph::SymbolGraph, focus: &[String]) -> Focus {
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
            if !is_scope && let Some(id) = graph.ident_id(word) {
                out.idents.insert(id);
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

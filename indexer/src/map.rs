//! The repository map: definitions ranked by personalized PageRank, the most important ones
//! rendered file by file with `⋮` for skipped lines, as many as fit the token budget.

use std::collections::{BTreeSet, HashMap, HashSet};

use petgraph::visit::EdgeRef;
use serde::Serialize;

use crate::index::Snapshot;

/// Rendered source lines are cut to this many characters.
pub const LINE_CHARS: usize = 100;
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

/// Builds the map within `budget` tokens, counted by `count_tokens`.
pub fn repo_map(
    snapshot: &Snapshot,
    focus: &[String],
    budget: usize,
    count_tokens: &dyn Fn(&str) -> usize,
) -> RepoMap {
    let graph = snapshot.graph();
    let entries: Vec<&crate::index::FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
    let total_defs: usize = entries.iter().map(|e| e.symbols.defs.len()).sum();
    let focus_set = resolve_focus(snapshot, &graph, focus);

    // Personalization: focus files, files defining a focus identifier, and (at half weight)
    // files using one, so a focus symbol pulls in both its definition and its users.
    let mut personalization = vec![0.0; graph.files.len()];
    for &f in &focus_set.files {
        personalization[f] = 1.0;
    }
    for id in &focus_set.idents {
        for &f in graph.definers.get(id).into_iter().flatten() {
            personalization[f as usize] = f64::max(personalization[f as usize], 1.0);
        }
        for &f in graph.referencers.get(id).into_iter().flatten() {
            personalization[f as usize] = f64::max(personalization[f as usize], 0.5);
        }
    }
    let weight = |src: u32, edge: &crate::graph::Edge| {
        let mut w = edge.weight;
        if focus_set.idents.contains(&edge.ident) {
            w *= 10.0;
        }
        if focus_set.files.contains(&(src as usize)) {
            w *= 50.0;
        }
        w
    };
    let (file_rank, carried) = graph.pagerank(&personalization, &weight);

    // Spread each file's rank onto the definitions its edges point at.
    let mut def_rank: HashMap<(u32, u32), f64> = HashMap::new();
    for (edge, amount) in graph.graph.edge_references().zip(&carried) {
        *def_rank.entry((edge.target().index() as u32, edge.weight().ident)).or_default() += amount;
    }
    let mut ranked: Vec<((u32, u32), f64)> = def_rank.into_iter().collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| graph.files[a.0.0 as usize].cmp(&graph.files[b.0.0 as usize]))
            .then_with(|| graph.idents[a.0.1 as usize].cmp(&graph.idents[b.0.1 as usize]))
    });
    // A focus identifier's definitions come first, then the definitions that use it (the
    // enclosing function or class of each reference), so the map shows both ends of the focus.
    let mut items: Vec<(usize, usize)> = Vec::with_capacity(total_defs);
    let mut focus_ids: Vec<u32> = focus_set.idents.iter().copied().collect();
    focus_ids.sort();
    for id in &focus_ids {
        let name = graph.idents[*id as usize].as_str();
        for &f in graph.definers.get(id).into_iter().flatten() {
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
        for &f in graph.referencers.get(id).into_iter().flatten() {
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
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    items.retain(|item| seen.insert(*item));
    // Then each (file, identifier) by rank, standing for every definition of that name there.
    let mut by_name: HashMap<usize, HashMap<&str, Vec<usize>>> = HashMap::new();
    for ((file, ident), _) in &ranked {
        let file = *file as usize;
        let names = by_name.entry(file).or_insert_with(|| {
            let mut map: HashMap<&str, Vec<usize>> = HashMap::new();
            for (i, def) in entries[file].symbols.defs.iter().enumerate() {
                map.entry(def.name.as_str()).or_default().push(i);
            }
            map
        });
        for &def in names.get(graph.idents[*ident as usize].as_str()).into_iter().flatten() {
            if seen.insert((file, def)) {
                items.push((file, def));
            }
        }
    }

    // Definitions no other file points at come last, by their file's rank, then line.
    let mut rest: Vec<(usize, usize)> = Vec::new();
    for (file, entry) in entries.iter().enumerate() {
        for def in 0..entry.symbols.defs.len() {
            if seen.insert((file, def)) {
                rest.push((file, def));
            }
        }
    }
    rest.sort_by(|a, b| file_rank[b.0].total_cmp(&file_rank[a.0]).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    items.extend(rest);

    let header = |files: usize, defs: usize| {
        let mut h = format!(
            "repo map: {files} of {} files, {defs} of {total_defs} definitions, most referenced first",
            entries.len()
        );
        if !focus.is_empty() {
            h.push_str(&format!(" (focus: {})", focus.join(", ")));
        }
        h.push('\n');
        h
    };
    if items.is_empty() {
        let text = if entries.is_empty() {
            "repo map: no Python or Rust files under the root\n".to_string()
        } else {
            header(0, 0)
        };
        let tokens = count_tokens(&text);
        return RepoMap {
            text,
            files: Vec::new(),
            total_files: entries.len(),
            total_defs,
            shown_defs: 0,
            tokens,
        };
    }

    let render = |n: usize| -> (String, Vec<MapFile>) {
        let mut per_file: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(file, def) in &items[..n] {
            per_file.entry(file).or_default().push(def);
        }
        let mut files: Vec<usize> = per_file.keys().copied().collect();
        files.sort_by(|a, b| {
            file_rank[*b].total_cmp(&file_rank[*a]).then_with(|| graph.files[*a].cmp(&graph.files[*b]))
        });
        let mut text = header(files.len(), n);
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
    };

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
    // Binary search on how many ranked definitions to show (Aider's search, 15% tolerance).
    let mut lower = 0usize;
    let mut upper = items.len();
    let mut middle = (budget / 25).clamp(1, items.len());
    let mut best: Option<(usize, String, Vec<MapFile>, usize)> = None;
    while lower <= upper && middle >= 1 {
        let (text, files) = render(middle);
        let tokens = count_by_lines(&text);
        let fits = tokens <= budget;
        if fits && best.as_ref().is_none_or(|b| tokens > b.3) {
            best = Some((middle, text, files, tokens));
        }
        if fits && (budget - tokens) as f64 / budget as f64 <= CLOSE_ENOUGH {
            break;
        }
        if fits {
            if middle == items.len() {
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
    let (mut shown_defs, mut text, mut files, _) = best.unwrap_or_else(|| (0, header(0, 0), Vec::new(), 0));
    let mut tokens = count_tokens(&text);
    // Should the exact count exceed the sum of the lines, step down until it fits.
    while tokens > budget && shown_defs > 0 {
        shown_defs -= 1;
        (text, files) = if shown_defs == 0 { (header(0, 0), Vec::new()) } else { render(shown_defs) };
        tokens = count_tokens(&text);
    }
    RepoMap { text, files, total_files: entries.len(), total_defs, shown_defs, tokens }
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

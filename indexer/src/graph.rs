//! The definition/reference graph over files, weighted the way Aider's repository map weighs
//! it, and a personalized PageRank over it whose rank is then spread onto definitions.

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use std::sync::Arc;

use crate::index::{FileEntry, Snapshot};
use crate::symbols::{DefKind, RefKind};

const REF_KINDS: [RefKind; 7] = [
    RefKind::Name,
    RefKind::Attribute,
    RefKind::Type,
    RefKind::Import,
    RefKind::Inheritance,
    RefKind::MethodCall,
    RefKind::Call,
];
const N_REF_KINDS: usize = REF_KINDS.len();

/// One edge: `src` references `ident`, which `dst` defines.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    pub ident: u32,
    /// The weight before focus: identifier multiplier × √(weighted references).
    pub weight: f64,
}

/// The file graph of one snapshot.
#[derive(Debug)]
pub struct SymbolGraph {
    /// Node `i` is `files[i]`; paths in sorted order.
    pub files: Vec<String>,
    pub graph: DiGraph<u32, Edge>,
    /// Identifier `i` is `idents[i]`.
    pub idents: Arc<Vec<String>>,
    ident_ids: Arc<FxHashMap<String, u32>>,
    /// What each identifier contributes, shared with the graphs updated from this one.
    parts: FxHashMap<u32, Arc<IdentParts>>,
    /// Source and target file of each edge, in edge order.
    ends: Vec<(u32, u32)>,
    /// The pairs of distinct files joined by edges, made on first use: what PageRank walks.
    pairs: std::sync::OnceLock<Pairs>,
    /// Where keyed PageRank calls start: the ranks each key reached on the graph this one was
    /// updated from (or, for a key not asked there, where it started there). Fixed for the
    /// graph's life, so the same call on the same graph gives the same ranks to the last bit.
    warm_from: WarmStarts,
    /// The ranks each key reached on this graph: where the next graph's calls start.
    reached: std::sync::Mutex<WarmStarts>,
    /// Made by [`SymbolGraph::update`], not by a full build.
    updated: bool,
    /// The identifiers in string order, made on first use; a graph updated from one that has
    /// it inserts its new names into it instead of sorting every name again.
    by_string: std::sync::OnceLock<Arc<Vec<u32>>>,
}

/// At most this many focuses keep their ranks for a warm start.
const WARM_STARTS: usize = 16;

/// Recent converged ranks by the caller's key, newest last.
#[derive(Debug, Default, Clone)]
struct WarmStarts(std::collections::VecDeque<(u64, Arc<Vec<f64>>)>);

impl WarmStarts {
    fn get(&self, key: u64) -> Option<Arc<Vec<f64>>> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, r)| r.clone())
    }

    fn put(&mut self, key: u64, ranks: Arc<Vec<f64>>) {
        self.0.retain(|(k, _)| *k != key);
        if self.0.len() == WARM_STARTS {
            self.0.pop_front();
        }
        self.0.push_back((key, ranks));
    }

    /// The starts of a graph updated from one that started from `self` and reached `reached`:
    /// the ranks reached where there are some, else the older start.
    fn then(&self, reached: &WarmStarts) -> WarmStarts {
        let mut next = self.clone();
        for (key, ranks) in &reached.0 {
            next.put(*key, ranks.clone());
        }
        next
    }
}

/// One PageRank: each file's rank, the rank each edge carries, and how many power iterations
/// it took.
#[derive(Debug)]
pub struct Ranks {
    pub rank: Vec<f64>,
    pub carried: Vec<f64>,
    pub iterations: usize,
}

/// Every (source, target) pair of distinct files that edges join, numbered in the order of the
/// first edge between them. One pair holds all the identifiers one file takes from another, so
/// PageRank's power iteration walks pairs rather than edges (CPython's standard library: 659,036
/// edges between far fewer pairs).
#[derive(Debug)]
struct Pairs {
    /// Each edge's pair, `u32::MAX` for a self-loop.
    of_edge: Vec<u32>,
    ends: Vec<(u32, u32)>,
}

impl Pairs {
    fn new(edges: &[(u32, u32)]) -> Pairs {
        let mut index: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        let mut ends = Vec::new();
        let of_edge = edges
            .iter()
            .map(|&(src, dst)| {
                if src == dst {
                    return u32::MAX;
                }
                *index.entry((src, dst)).or_insert_with(|| {
                    ends.push((src, dst));
                    (ends.len() - 1) as u32
                })
            })
            .collect();
        Pairs { of_edge, ends }
    }
}

/// One identifier's share of the graph: who defines it (and as what), who references it (and
/// how), and the edges that follow. A changed file recomputes only the identifiers it defines
/// or references.
#[derive(Debug, Default)]
struct IdentParts {
    /// Files defining it, in file order, with the kinds of definition each holds.
    defined: Vec<(u32, Vec<DefKind>)>,
    definers: Vec<u32>,
    /// Weighted reference counts by kind, per referencing file, in file order.
    counts: Vec<(u32, [f64; N_REF_KINDS])>,
    /// (source, target, edge), in the order a full build adds them.
    edges: Vec<(u32, u32, Edge)>,
    /// Files with an edge for it, in file order.
    users: Vec<u32>,
}

/// At most this many changed files are folded into a graph; more rebuild it.
const MAX_UPDATED_FILES: usize = 64;
/// At most this many names new to the graph (each looked up in every file); more rebuild it.
const MAX_NEW_NAMES: usize = 256;

/// How much one reference counts, by kind: a call, an import, a base class or a type use says
/// more about a dependency than a bare name that happens to match a definition elsewhere.
fn ref_weight(kind: RefKind) -> f64 {
    match kind {
        RefKind::Call | RefKind::MethodCall | RefKind::Import | RefKind::Inheritance | RefKind::Type => 1.0,
        RefKind::Attribute => 0.5,
        RefKind::Name => 0.25,
    }
}

/// Aider multiplies long (8+ characters, snake/camel/kebab) names by 10. tack counts imports,
/// type uses and plain names as references too, and at ×10 two references to a long name
/// outweighed four files using a short one, so long names get a milder bonus.
pub(crate) const LONG_NAME: f64 = 2.0;

/// The identifier multiplier, before focus: long identifiers ×[`LONG_NAME`], private ones ×0.1,
/// names defined in more than five files ×0.1.
fn ident_multiplier(ident: &str, n_definers: usize) -> f64 {
    let mut mul = 1.0;
    let has_letter = ident.chars().any(char::is_alphabetic);
    let snake = ident.contains('_') && has_letter;
    let kebab = ident.contains('-') && has_letter;
    let camel = ident.chars().any(char::is_uppercase) && ident.chars().any(char::is_lowercase);
    if (snake || kebab || camel) && ident.chars().count() >= 8 {
        mul *= LONG_NAME;
    }
    if ident.starts_with('_') {
        mul *= 0.1;
    }
    if n_definers > 5 {
        mul *= 0.1;
    }
    mul
}

/// A file's weighted reference counts per identifier (only names `ids` knows), by identifier.
fn file_counts(entry: &FileEntry, ids: &FxHashMap<String, u32>) -> Vec<(u32, [f64; N_REF_KINDS])> {
    // A file's names are distinct: look each up once, then count by name index.
    let by_name: Vec<Option<u32>> =
        entry.symbols.names.iter().map(|n| ids.get(n.as_str()).copied()).collect();
    let mut counts: FxHashMap<u32, [f64; N_REF_KINDS]> = FxHashMap::default();
    for r in &entry.symbols.refs {
        if let Some(id) = by_name[r.name as usize] {
            counts.entry(id).or_insert([0.0; N_REF_KINDS])[r.kind as usize] += ref_weight(r.kind);
        }
    }
    let mut counts: Vec<(u32, [f64; N_REF_KINDS])> = counts.into_iter().collect();
    counts.sort_unstable_by_key(|(id, _)| *id);
    counts
}

/// A file's definitions per identifier: the kinds of each, in order of first appearance.
fn file_defs(entry: &FileEntry, ids: &FxHashMap<String, u32>) -> Vec<(u32, Vec<DefKind>)> {
    let mut out: Vec<(u32, Vec<DefKind>)> = Vec::new();
    let mut at: FxHashMap<u32, usize> = FxHashMap::default();
    for def in &entry.symbols.defs {
        let Some(&id) = ids.get(def.name.as_str()) else { continue };
        let slot = *at.entry(id).or_insert_with(|| {
            out.push((id, Vec::new()));
            out.len() - 1
        });
        if !out[slot].1.contains(&def.kind) {
            out[slot].1.push(def.kind);
        }
    }
    out
}

/// Every defined name, numbered in order of first definition (files in path order).
fn number_idents(entries: &[&FileEntry]) -> (Vec<String>, FxHashMap<String, u32>) {
    let mut idents: Vec<String> = Vec::new();
    let mut ident_ids: FxHashMap<String, u32> = FxHashMap::default();
    for entry in entries {
        for def in &entry.symbols.defs {
            ident_ids.entry(def.name.clone()).or_insert_with(|| {
                idents.push(def.name.clone());
                idents.len() as u32 - 1
            });
        }
    }
    (idents, ident_ids)
}

/// Each identifier's definers (with the kinds each defines) and weighted reference counts, not
/// yet linked: counted per file in parallel, then merged in file order.
fn gather_parts(entries: &[&FileEntry], ident_ids: &FxHashMap<String, u32>) -> FxHashMap<u32, IdentParts> {
    let per_file: Vec<_> = entries
        .par_iter()
        .map(|entry| (file_defs(entry, ident_ids), file_counts(entry, ident_ids)))
        .collect();
    let mut parts: FxHashMap<u32, IdentParts> = FxHashMap::default();
    for (file, (defs, counts)) in per_file.into_iter().enumerate() {
        for (id, kinds) in defs {
            parts.entry(id).or_default().defined.push((file as u32, kinds));
        }
        for (id, n) in counts {
            parts.entry(id).or_default().counts.push((file as u32, n));
        }
    }
    parts
}

/// Appends the names the changed files define for the first time to the numbering, and returns
/// their ids. (A full build would number them by file order instead: same graph, other edge
/// order.)
fn number_new_names(
    idents: &mut Arc<Vec<String>>,
    ident_ids: &mut Arc<FxHashMap<String, u32>>,
    changed: &[(u32, &FileEntry, &FileEntry)],
) -> Vec<u32> {
    let mut new_ids: Vec<u32> = Vec::new();
    for (_, _, new) in changed {
        for def in &new.symbols.defs {
            if !ident_ids.contains_key(def.name.as_str()) {
                let id = idents.len() as u32;
                Arc::make_mut(idents).push(def.name.clone());
                Arc::make_mut(ident_ids).insert(def.name.clone(), id);
                new_ids.push(id);
            }
        }
    }
    new_ids
}

/// Adds to each name new to the graph the reference counts of the unchanged files that use it
/// (a changed file defines it, so it is in `touched`; unchanged files' counts were never taken).
fn add_unchanged_users(
    touched: &mut FxHashMap<u32, IdentParts>,
    new_ids: &[u32],
    idents: &[String],
    entries: &[&FileEntry],
    changed_files: &FxHashSet<u32>,
) {
    for &id in new_ids {
        let name = idents[id as usize].as_str();
        let one: FxHashMap<String, u32> = std::iter::once((name.to_string(), id)).collect();
        let parts = touched.get_mut(&id).expect("a new name is defined by a changed file");
        for (file, entry) in entries.iter().enumerate() {
            if changed_files.contains(&(file as u32)) || !entry.symbols.names.iter().any(|n| n == name) {
                continue;
            }
            parts.counts.extend(file_counts(entry, &one).into_iter().map(|(_, n)| (file as u32, n)));
        }
    }
}

/// `parts` with each touched identifier's replaced: its files put in file order and its edges
/// linked anew, or dropped when no file defines or references it any more.
fn relink(
    parts: &FxHashMap<u32, Arc<IdentParts>>,
    touched: FxHashMap<u32, IdentParts>,
    idents: &[String],
    entries: &[&FileEntry],
) -> FxHashMap<u32, Arc<IdentParts>> {
    let mut parts = parts.clone();
    for (id, mut p) in touched {
        p.defined.sort_by_key(|(f, _)| *f);
        p.counts.sort_by_key(|(f, _)| *f);
        if p.defined.is_empty() && p.counts.is_empty() {
            parts.remove(&id);
            continue;
        }
        p.link(&idents[id as usize], entries);
        parts.insert(id, Arc::new(p));
    }
    parts
}

impl IdentParts {
    /// The edges of one identifier from who defines and who references it.
    fn link(&mut self, ident: &str, entries: &[&FileEntry]) {
        let defs = &self.defined;
        self.definers = defs.iter().map(|(f, _)| *f).collect();
        self.edges.clear();
        self.users.clear();
        if defs.is_empty() {
            return;
        }
        let mut linked = false;
        let mul = ident_multiplier(ident, defs.len());
        for &(src, by_kind) in &self.counts {
            // A name the file defines itself most likely means that definition: no edge to
            // other definers. And a file using its own definitions says nothing about its
            // weight to others (a self-loop would also make it a rank sink).
            if defs.iter().any(|(f, _)| *f == src) {
                continue;
            }
            let lang = entries[src as usize].lang;
            for (dst, kinds) in defs {
                let n: f64 = REF_KINDS
                    .iter()
                    .filter(|k| kinds.iter().any(|d| k.can_mean(lang, *d)))
                    .map(|k| by_kind[*k as usize])
                    .sum();
                if n <= 0.0 {
                    continue;
                }
                self.edges.push((src, *dst, Edge { ident: 0, weight: mul * n.sqrt() }));
                linked = true;
                if self.users.last() != Some(&src) {
                    self.users.push(src);
                }
            }
        }
        if !linked {
            // A definition nobody else references still holds a little rank (Aider: 0.1).
            for (dst, _) in defs {
                self.edges.push((*dst, *dst, Edge { ident: 0, weight: 0.1 }));
            }
        }
    }
}

impl SymbolGraph {
    /// The graph of `snapshot`, built whole: identifiers numbered, each one's definers and
    /// references gathered, its edges linked, and the edges assembled into one graph.
    pub fn build(snapshot: &Snapshot) -> Self {
        let entries: Vec<&FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
        let (idents, ident_ids) = number_idents(&entries);
        let parts = gather_parts(&entries, &ident_ids)
            .into_iter()
            .map(|(id, mut p)| {
                p.link(&idents[id as usize], &entries);
                (id, Arc::new(p))
            })
            .collect();
        Self::assemble(snapshot, Arc::new(idents), Arc::new(ident_ids), parts, false)
    }

    /// The graph of `snapshot` made from `previous` (the graph of `before`) by recomputing only
    /// what the changed files define or reference; `None` when a full build is due (files
    /// added or removed, or too many changes).
    pub fn update(previous: &SymbolGraph, before: &Snapshot, snapshot: &Snapshot) -> Option<Self> {
        let changed = crate::index::changed_between(before, snapshot)?;
        if changed.len() > MAX_UPDATED_FILES {
            return None;
        }
        let entries: Vec<&FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
        let old_entries: Vec<&FileEntry> = before.files.values().map(|e| e.as_ref()).collect();
        let changed: Vec<(u32, &FileEntry, &FileEntry)> =
            changed.into_iter().map(|i| (i, old_entries[i as usize], entries[i as usize])).collect();
        let mut idents = previous.idents.clone();
        let mut ident_ids = previous.ident_ids.clone();
        let new_ids = number_new_names(&mut idents, &mut ident_ids, &changed);
        if new_ids.len() > MAX_NEW_NAMES {
            return None;
        }
        let changed_files: FxHashSet<u32> = changed.iter().map(|(f, _, _)| *f).collect();
        let mut touched = previous.touched_parts(&changed, &changed_files, &ident_ids);
        add_unchanged_users(&mut touched, &new_ids, &idents, &entries, &changed_files);
        let parts = relink(&previous.parts, touched, &idents, &entries);
        let mut graph = Self::assemble(snapshot, idents, ident_ids, parts, true);
        // Same files in the same order: the previous ranks are one small change away from these.
        graph.warm_from = previous.warm_from.then(&previous.reached.lock().expect("warm starts"));
        // Names keep their numbers and new ones come last: each new name goes where it sorts.
        if let Some(order) = previous.by_string.get() {
            let mut order = Vec::clone(order);
            for &id in &new_ids {
                let name = &graph.idents[id as usize];
                let at = order.partition_point(|&o| graph.idents[o as usize] < *name);
                order.insert(at, id);
            }
            let _ = graph.by_string.set(Arc::new(order));
        }
        Some(graph)
    }

    /// The parts of every identifier a changed file defines or references, before or after the
    /// change: what the unchanged files give it, plus the changed files' definitions and
    /// reference counts now (in change order; sorted before linking).
    fn touched_parts(
        &self,
        changed: &[(u32, &FileEntry, &FileEntry)],
        changed_files: &FxHashSet<u32>,
        ident_ids: &FxHashMap<String, u32>,
    ) -> FxHashMap<u32, IdentParts> {
        let mut touched: FxHashMap<u32, IdentParts> = FxHashMap::default();
        for (_, old, _) in changed {
            for (id, _) in file_defs(old, ident_ids) {
                self.share_of_unchanged(&mut touched, id, changed_files);
            }
            for (id, _) in file_counts(old, ident_ids) {
                self.share_of_unchanged(&mut touched, id, changed_files);
            }
        }
        for &(file, _, new) in changed {
            for (id, kinds) in file_defs(new, ident_ids) {
                self.share_of_unchanged(&mut touched, id, changed_files).defined.push((file, kinds));
            }
            for (id, n) in file_counts(new, ident_ids) {
                self.share_of_unchanged(&mut touched, id, changed_files).counts.push((file, n));
            }
        }
        touched
    }

    /// Identifier `id`'s parts as the files that did not change make them, added to `touched`
    /// on first use.
    fn share_of_unchanged<'a>(
        &self,
        touched: &'a mut FxHashMap<u32, IdentParts>,
        id: u32,
        changed: &FxHashSet<u32>,
    ) -> &'a mut IdentParts {
        touched.entry(id).or_insert_with(|| {
            let old = self.parts.get(&id);
            IdentParts {
                defined: old
                    .map(|p| p.defined.iter().filter(|(f, _)| !changed.contains(f)).cloned().collect())
                    .unwrap_or_default(),
                counts: old
                    .map(|p| p.counts.iter().filter(|(f, _)| !changed.contains(f)).copied().collect())
                    .unwrap_or_default(),
                ..Default::default()
            }
        })
    }

    /// The petgraph graph from every identifier's edges, identifiers in id order.
    fn assemble(
        snapshot: &Snapshot,
        idents: Arc<Vec<String>>,
        ident_ids: Arc<FxHashMap<String, u32>>,
        parts: FxHashMap<u32, Arc<IdentParts>>,
        updated: bool,
    ) -> Self {
        let files: Vec<String> = snapshot.files.keys().cloned().collect();
        let n_edges = parts.values().map(|p| p.edges.len()).sum();
        let mut graph: DiGraph<u32, Edge> = DiGraph::with_capacity(files.len(), n_edges);
        for i in 0..files.len() {
            graph.add_node(i as u32);
        }
        let mut ends = Vec::with_capacity(n_edges);
        let mut ids: Vec<u32> = parts.keys().copied().collect();
        ids.sort_unstable();
        // Edges come grouped by identifier, in identifier order: the map's tables rely on it.
        for id in ids {
            for &(src, dst, edge) in &parts[&id].edges {
                graph.add_edge(
                    NodeIndex::new(src as usize),
                    NodeIndex::new(dst as usize),
                    Edge { ident: id, ..edge },
                );
                ends.push((src, dst));
            }
        }
        Self {
            files,
            graph,
            idents,
            ident_ids,
            parts,
            ends,
            pairs: std::sync::OnceLock::new(),
            warm_from: WarmStarts::default(),
            reached: Default::default(),
            updated,
            by_string: std::sync::OnceLock::new(),
        }
    }

    /// Whether this graph was updated from the previous snapshot's rather than built whole.
    pub fn was_updated(&self) -> bool {
        self.updated
    }

    /// The files that define identifier `id`, in file order.
    pub fn definers(&self, id: u32) -> &[u32] {
        self.parts.get(&id).map_or(&[], |p| &p.definers)
    }

    /// The files whose references to identifier `id` made edges, in file order.
    pub fn referencers(&self, id: u32) -> &[u32] {
        self.parts.get(&id).map_or(&[], |p| &p.users)
    }

    /// Identifier numbers in the string order of their names.
    pub fn idents_by_string(&self) -> Arc<Vec<u32>> {
        self.by_string
            .get_or_init(|| {
                let mut order: Vec<u32> = (0..self.idents.len() as u32).collect();
                order.sort_unstable_by(|a, b| self.idents[*a as usize].cmp(&self.idents[*b as usize]));
                Arc::new(order)
            })
            .clone()
    }

    pub fn ident_id(&self, name: &str) -> Option<u32> {
        self.ident_ids.get(name).copied()
    }

    pub fn file_index(&self, path: &str) -> Option<usize> {
        self.files.binary_search_by(|p| p.as_str().cmp(path)).ok()
    }

    pub fn n_edges(&self) -> usize {
        self.graph.edge_count()
    }

    /// Weighted personalized PageRank (damping 0.85) by power iteration; `weight` may rescale
    /// each edge for the query's focus. An empty or all-zero `personalization` is uniform.
    /// Returns the rank of each file and, per edge, the rank it carries.
    pub fn pagerank(
        &self,
        personalization: &[f64],
        weight: &dyn Fn(u32, &Edge) -> f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let ranks = self.iterate(personalization, weight, None);
        (ranks.rank, ranks.carried)
    }

    /// [`Self::pagerank`] for a focus the caller names by `key` (the same key must mean the same
    /// personalization and weights on a given graph): it starts from the ranks the same key
    /// reached on the graph this one was updated from, where a cold start begins from the
    /// personalization. One changed file moves the ranks little, so the iteration stops
    /// sooner; the fixed point, and so the ranks within the tolerance, are the same whatever
    /// the start, and one graph always starts a key at the same place.
    pub fn pagerank_keyed(
        &self,
        key: u64,
        personalization: &[f64],
        weight: &dyn Fn(u32, &Edge) -> f64,
    ) -> Ranks {
        let start = self.warm_from.get(key);
        let ranks = self.iterate(personalization, weight, start.as_deref().map(Vec::as_slice));
        self.reached.lock().expect("warm starts").put(key, Arc::new(ranks.rank.clone()));
        ranks
    }

    fn iterate(
        &self,
        personalization: &[f64],
        weight: &dyn Fn(u32, &Edge) -> f64,
        start: Option<&[f64]>,
    ) -> Ranks {
        let n = self.files.len();
        if n == 0 {
            return Ranks { rank: Vec::new(), carried: Vec::new(), iterations: 0 };
        }
        let total: f64 = personalization.iter().sum();
        let p: Vec<f64> = if total > 0.0 {
            personalization.iter().map(|v| v / total).collect()
        } else {
            vec![1.0 / n as f64; n]
        };
        let weights: Vec<f64> =
            self.graph.edge_references().map(|e| weight(e.source().index() as u32, e.weight())).collect();
        // Self-loops (definitions nobody else uses) hold rank for spreading onto definitions
        // but carry none in the iteration: a file whose only edges are self-loops would
        // otherwise be a sink that swallows the whole graph's rank.
        let mut out_weight = vec![0.0; n];
        let mut out_flow = vec![0.0; n];
        for (e, w) in self.graph.edge_references().zip(&weights) {
            out_weight[e.source().index()] += w;
            if e.source() != e.target() {
                out_flow[e.source().index()] += w;
            }
        }
        let damping = 0.85;
        // Each pair's share of its source's rank, once per call: the iterations then cost one
        // multiplication per pair.
        let pairs = self.pairs.get_or_init(|| Pairs::new(&self.ends));
        let mut share = vec![0.0; pairs.ends.len()];
        for (&pair, w) in pairs.of_edge.iter().zip(&weights) {
            if let Some(slot) = share.get_mut(pair as usize) {
                *slot += w;
            }
        }
        for (slot, &(src, _)) in share.iter_mut().zip(&pairs.ends) {
            let flow = out_flow[src as usize];
            *slot = if flow > 0.0 { damping * *slot / flow } else { 0.0 };
        }
        let mut rank = match start {
            Some(start) if start.len() == n => start.to_vec(),
            _ => p.clone(),
        };
        let mut next = vec![0.0; n];
        let mut iterations = 0;
        while iterations < 100 {
            iterations += 1;
            let dangling: f64 = (0..n).filter(|&i| out_flow[i] == 0.0).map(|i| rank[i]).sum();
            for (slot, pi) in next.iter_mut().zip(&p) {
                *slot = (1.0 - damping + damping * dangling) * pi;
            }
            for (&(src, dst), share) in pairs.ends.iter().zip(&share) {
                next[dst as usize] += rank[src as usize] * share;
            }
            let delta: f64 = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
            std::mem::swap(&mut rank, &mut next);
            if delta < 1e-9 {
                break;
            }
        }
        let carried = self
            .graph
            .edge_references()
            .zip(&weights)
            .map(|(e, w)| {
                let src = e.source().index();
                if out_weight[src] > 0.0 { rank[src] * w / out_weight[src] } else { 0.0 }
            })
            .collect();
        Ranks { rank, carried, iterations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_favour_specific_names() {
        assert_eq!(ident_multiplier("parse_file_header", 1), LONG_NAME);
        assert_eq!(ident_multiplier("HttpResponse", 1), LONG_NAME);
        assert_eq!(ident_multiplier("parse", 1), 1.0);
        assert!((ident_multiplier("_private_helper", 1) - LONG_NAME * 0.1).abs() < 1e-12);
        assert!((ident_multiplier("get", 6) - 0.1).abs() < 1e-12);
    }
}

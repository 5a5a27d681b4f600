//! The definition/reference graph over files, weighted the way Aider's repository map weighs
//! it, and a personalized PageRank over it whose rank is then spread onto definitions.

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::index::Snapshot;
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
    pub idents: Vec<String>,
    ident_ids: FxHashMap<String, u32>,
    /// For each identifier, the files that define it.
    pub definers: FxHashMap<u32, Vec<u32>>,
    /// For each identifier, the files that reference it.
    pub referencers: FxHashMap<u32, Vec<u32>>,
    /// Source and target file of each edge, in edge order: what PageRank walks.
    ends: Vec<(u32, u32)>,
}

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
pub const LONG_NAME: f64 = 2.0;

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

impl SymbolGraph {
    pub fn build(snapshot: &Snapshot) -> Self {
        let files: Vec<String> = snapshot.files.keys().cloned().collect();
        let entries: Vec<&crate::index::FileEntry> = snapshot.files.values().map(|e| e.as_ref()).collect();
        let mut idents: Vec<String> = Vec::new();
        let mut ident_ids: FxHashMap<String, u32> = FxHashMap::default();
        // For each identifier, the files defining it and which kinds of definition they hold.
        let mut defined: FxHashMap<u32, Vec<(u32, Vec<DefKind>)>> = FxHashMap::default();
        for (file_idx, entry) in entries.iter().enumerate() {
            for def in &entry.symbols.defs {
                let id = *ident_ids.entry(def.name.clone()).or_insert_with(|| {
                    idents.push(def.name.clone());
                    idents.len() as u32 - 1
                });
                let list = defined.entry(id).or_default();
                match list.last_mut() {
                    Some((f, kinds)) if *f == file_idx as u32 => {
                        if !kinds.contains(&def.kind) {
                            kinds.push(def.kind);
                        }
                    }
                    _ => list.push((file_idx as u32, vec![def.kind])),
                }
            }
        }

        // Weighted reference counts per (identifier, referencing file), by kind of use; files
        // are counted in parallel, then merged in file order.
        let per_file: Vec<Vec<(u32, [f64; N_REF_KINDS])>> = entries
            .par_iter()
            .map(|entry| {
                // A file's names are distinct: look each up once, then count by name index.
                let ids: Vec<Option<u32>> =
                    entry.symbols.names.iter().map(|n| ident_ids.get(n.as_str()).copied()).collect();
                let mut per_file: FxHashMap<u32, [f64; N_REF_KINDS]> = FxHashMap::default();
                for r in &entry.symbols.refs {
                    if let Some(id) = ids[r.name as usize] {
                        per_file.entry(id).or_insert([0.0; N_REF_KINDS])[r.kind as usize] +=
                            ref_weight(r.kind);
                    }
                }
                let mut per_file: Vec<(u32, [f64; N_REF_KINDS])> = per_file.into_iter().collect();
                per_file.sort_unstable_by_key(|(id, _)| *id);
                per_file
            })
            .collect();
        let mut counts: FxHashMap<u32, Vec<(u32, [f64; N_REF_KINDS])>> = FxHashMap::default();
        for (file_idx, per_file) in per_file.into_iter().enumerate() {
            for (id, n) in per_file {
                counts.entry(id).or_default().push((file_idx as u32, n));
            }
        }

        let mut graph: DiGraph<u32, Edge> = DiGraph::with_capacity(files.len(), 0);
        for i in 0..files.len() {
            graph.add_node(i as u32);
        }
        let mut referencers: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let mut ids: Vec<&u32> = defined.keys().collect();
        ids.sort();
        for &id in ids {
            let defs = &defined[&id];
            let mut linked = false;
            if let Some(refs) = counts.get(&id) {
                let mul = ident_multiplier(&idents[id as usize], defs.len());
                let mut users = Vec::new();
                for &(src, by_kind) in refs {
                    // A name the file defines itself most likely means that definition: no
                    // edge to other definers. And a file using its own definitions says
                    // nothing about its weight to others (a self-loop would also make it a
                    // rank sink).
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
                        graph.add_edge(
                            NodeIndex::new(src as usize),
                            NodeIndex::new(*dst as usize),
                            Edge { ident: id, weight: mul * n.sqrt() },
                        );
                        linked = true;
                        if users.last() != Some(&src) {
                            users.push(src);
                        }
                    }
                }
                if !users.is_empty() {
                    referencers.insert(id, users);
                }
            }
            if !linked {
                // A definition nobody else references still holds a little rank (Aider: 0.1).
                for (dst, _) in defs {
                    let node = NodeIndex::new(*dst as usize);
                    graph.add_edge(node, node, Edge { ident: id, weight: 0.1 });
                }
            }
        }
        let definers =
            defined.into_iter().map(|(id, list)| (id, list.into_iter().map(|(f, _)| f).collect())).collect();
        let ends =
            graph.edge_references().map(|e| (e.source().index() as u32, e.target().index() as u32)).collect();
        Self { files, graph, idents, ident_ids, definers, referencers, ends }
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
        let n = self.files.len();
        if n == 0 {
            return (Vec::new(), Vec::new());
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
        let mut rank = p.clone();
        let mut next = vec![0.0; n];
        for _ in 0..100 {
            let dangling: f64 = (0..n).filter(|&i| out_flow[i] == 0.0).map(|i| rank[i]).sum();
            for (slot, pi) in next.iter_mut().zip(&p) {
                *slot = (1.0 - damping + damping * dangling) * pi;
            }
            for (&(src, dst), w) in self.ends.iter().zip(&weights) {
                if src != dst {
                    let src = src as usize;
                    next[dst as usize] += damping * rank[src] * w / out_flow[src];
                }
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
        (rank, carried)
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

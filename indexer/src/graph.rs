//! The graph of what references what, from name resolution: a node per definition and one per
//! file (its module-level code), an edge from the definition holding a reference to each
//! definition the reference binds, and a personalized PageRank over the nodes.

use petgraph::Directed;
use petgraph::csr::Csr;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use std::sync::Arc;

use crate::meaning::Target;
use crate::resolve::Resolver;
use crate::snapshot::{FileEntry, Snapshot};
use crate::symbols::{Ref, RefKind};

/// How much one reference counts, by kind: a call, an import, a base class or a type use says
/// more about a dependency than a bare name. A part keeps the number of its weight here.
const KIND_WEIGHTS: [f32; 3] = [1.0, 0.5, 0.25];

fn kind_weight(kind: RefKind) -> u8 {
    match kind {
        RefKind::Call | RefKind::MethodCall | RefKind::Import | RefKind::Inheritance | RefKind::Type => 0,
        RefKind::Attribute => 1,
        RefKind::Name => 2,
    }
}

/// A reference whose receiver cannot be typed has every same-named definition as a candidate;
/// it splits its weight over them, and past this many it says nothing about any of them (a
/// `.clone()` with 40 definers).
const MAX_CANDIDATES: usize = 8;
/// A resolved reference's share counts whole; a candidate is a guess, counting half as much;
/// and a guess at a method the standard library's everyday types have (`.get()`, `.len()`) is
/// a poor one: the call most likely goes to the library. A part keeps the number of its share.
const SHARES: [f32; 3] = [1.0, 0.5, 0.05];
/// [`SHARES`]' numbers.
/// How a reference in the graph binds its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// Name resolution bound it.
    Resolved,
    /// Same name, the receiver's type unknown.
    Candidate,
    /// A candidate whose name is a standard method's (`get`, `push`): a weak guess.
    StdMethod,
}

const RESOLVED: u8 = 0;
const CANDIDATE: u8 = 1;
const STD_METHOD: u8 = 2;

/// Files resolved between drops of their scope tables when a graph is built whole with a
/// resolver of its own.
const FILES_PER_BATCH: usize = 1024;

/// References of one file resolved in one run; a file with more is resolved in runs side by
/// side ([`file_out`]).
const REFS_PER_RUN: usize = 1024;

/// At most this many changed files are folded into a graph, or one in [`UPDATED_SHARE`] of its
/// files when that is more (a checkout started from a bundle a hundred files behind, a branch
/// switched in a large workspace); more rebuild it.
const MAX_UPDATED_FILES: usize = 64;
const UPDATED_SHARE: usize = 64;

/// A node within its file: 0 is the file's module-level code, `1 + d` its definition `d`.
type Local = u32;

/// What one reference gives: a weight from `src` (in the referencing file) to node `dst` of
/// file `dst_file`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Part {
    /// The reference's index in its file's `refs`.
    r: u32,
    src: Local,
    dst_file: u32,
    dst: Local,
    /// The reference's kind's weight and its share, as `3 × kind + share` (numbers into
    /// [`KIND_WEIGHTS`] and [`SHARES`]).
    class: u8,
    /// Over how many targets the reference's weight is split.
    split: u32,
}

impl Part {
    fn weight(&self) -> f32 {
        KIND_WEIGHTS[usize::from(self.class / 3)] * SHARES[usize::from(self.class % 3)] / self.split as f32
    }

    /// Whether the part is one of a reference's candidates rather than what it resolves to.
    fn guess(&self) -> bool {
        self.class % 3 != RESOLVED
    }
}

/// A file's parts in reference order, packed: per part, LEB128 numbers for the step from the
/// previous part's reference (doubled, plus one when the source differs from the previous
/// part's), the source when it differs, the target file as a zigzag step from the previous
/// part's, and the target; then a byte for the class, with its top bit set when the weight is
/// split over more than one target, and then the split. About 6 bytes a part, against 24.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Parts {
    bytes: Vec<u8>,
    len: u32,
}

impl FromIterator<Part> for Parts {
    fn from_iter<I: IntoIterator<Item = Part>>(iter: I) -> Self {
        use crate::symbols::{put_number, zigzag};
        let mut out = Parts::default();
        let mut last = Part { r: 0, src: 0, dst_file: 0, dst: 0, class: 0, split: 1 };
        for p in iter {
            let new_src = p.src != last.src;
            put_number(&mut out.bytes, ((p.r - last.r) << 1) | u32::from(new_src));
            if new_src {
                put_number(&mut out.bytes, p.src);
            }
            put_number(&mut out.bytes, zigzag(i64::from(p.dst_file) - i64::from(last.dst_file)));
            put_number(&mut out.bytes, p.dst);
            out.bytes.push(p.class | if p.split == 1 { 0 } else { 0x80 });
            if p.split != 1 {
                put_number(&mut out.bytes, p.split);
            }
            out.len += 1;
            last = p;
        }
        out.bytes.shrink_to_fit();
        out
    }
}

impl Parts {
    fn iter(&self) -> impl Iterator<Item = Part> + '_ {
        use crate::symbols::{take_number, unzigzag};
        let mut at = 0;
        let mut last = Part { r: 0, src: 0, dst_file: 0, dst: 0, class: 0, split: 1 };
        (0..self.len).map(move |_| {
            let bytes = &self.bytes;
            let step = take_number(bytes, &mut at);
            let r = last.r.wrapping_add(step >> 1);
            let src = if step & 1 == 1 { take_number(bytes, &mut at) } else { last.src };
            let dst_file = (i64::from(last.dst_file) + unzigzag(take_number(bytes, &mut at))) as u32;
            let dst = take_number(bytes, &mut at);
            let class = bytes.get(at).copied().unwrap_or(0);
            at += 1;
            let split = if class & 0x80 != 0 { take_number(bytes, &mut at).max(1) } else { 1 };
            last = Part { r, src, dst_file, dst, class: (class & 0x7f).min(8), split };
            last
        })
    }

    fn len(&self) -> usize {
        self.len as usize
    }
}

/// One file's outgoing references, resolved: each reference's parts in reference order, and
/// the edges they add up to (per source and target: √ of the summed weights, Aider's damping
/// of many references).
#[derive(Debug, Default)]
struct FileOut {
    parts: Parts,
    /// (source, target file, target, weight), sorted; added up from the parts when first asked
    /// for (`tack index` saves the parts and lays out no edges).
    edges: std::sync::OnceLock<Vec<Edge>>,
}

/// An edge of one file: (source, target file, target, weight).
type Edge = (Local, u32, Local, f32);

/// The edges parts add up to, sorted.
fn edges_of(parts: impl Iterator<Item = Part>) -> Vec<Edge> {
    let mut keyed: Vec<((Local, u32, Local), f32)> =
        parts.map(|p| ((p.src, p.dst_file, p.dst), p.weight())).collect();
    keyed.sort_unstable_by_key(|(k, _)| *k);
    let mut edges: Vec<Edge> = Vec::new();
    for run in keyed.chunk_by(|a, b| a.0 == b.0) {
        let (src, file, dst) = run[0].0;
        let total: f32 = run.iter().map(|(_, w)| w).sum();
        edges.push((src, file, dst, total.sqrt()));
    }
    edges.shrink_to_fit();
    edges
}

impl FileOut {
    /// These parts with their target files numbered by `new_of` (old number → new), those
    /// into a file that is gone dropped.
    fn renumbered(&self, new_of: &[Option<u32>]) -> FileOut {
        let parts = self
            .parts
            .iter()
            .filter_map(|p| {
                new_of.get(p.dst_file as usize).copied().flatten().map(|dst_file| Part { dst_file, ..p })
            })
            .collect();
        FileOut::new(parts)
    }

    /// These parts, and the edges they add up to.
    fn new(parts: Vec<Part>) -> FileOut {
        let edges = std::sync::OnceLock::from(edges_of(parts.iter().copied()));
        FileOut { parts: parts.into_iter().collect(), edges }
    }

    /// These parts; their edges are added up when first asked for.
    fn parts_only(parts: Vec<Part>) -> FileOut {
        FileOut { parts: parts.into_iter().collect(), edges: std::sync::OnceLock::new() }
    }

    fn edges(&self) -> &[Edge] {
        self.edges.get_or_init(|| edges_of(self.parts.iter()))
    }

    /// How many edges the parts add up to, without keeping them when they were not made yet.
    fn n_edges(&self) -> usize {
        self.edges.get().map_or_else(|| edges_of(self.parts.iter()).len(), Vec::len)
    }
}

/// Which resolved references a file has in a graph: equal in two graphs when the later one kept
/// the earlier one's (the file and what its references bind did not change).
#[derive(Debug, Clone)]
pub(crate) struct OutId(Arc<FileOut>);

impl PartialEq for OutId {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The node a resolved target is, as (file, local node): a definition, a module (its file's
/// node), or a module-level constant whose binding is its identity; `None` for what is no
/// node (a local variable, a name imported from outside).
pub(crate) fn target_node(resolver: &Resolver, target: Target) -> Option<(u32, Local)> {
    match target {
        Target::Def { file, def } => Some((file, 1 + def)),
        Target::Module { file } => Some((file, 0)),
        Target::Binding { file, binding } => {
            let symbols = &resolver.entry(file).symbols;
            let b = symbols.bindings.get(binding as usize)?;
            if b.scope != 0 {
                return None;
            }
            let name = symbols.text(b.name);
            let from = symbols.defs.partition_point(|d| d.line < b.line);
            symbols
                .defs
                .iter_from(from)
                .take_while(|d| d.line == b.line)
                .position(|d| d.name() == name)
                .map(|i| (file, 1 + (from + i) as u32))
        }
        Target::Import { .. } => None,
    }
}

/// The parts reference `r` (number `i` of `file`) gives: its weight over what it resolves to, or
/// a share of it over a few candidates; nothing for a reference to its own definition.
fn resolve_parts(resolver: &Resolver, file: u32, (i, r): (u32, &Ref), out: &mut Vec<Part>) {
    let src = r.enclosing().map_or(0, |d| 1 + d);
    let resolution = resolver.resolve_ref_within(file, r, MAX_CANDIDATES);
    let (targets, share) = if !resolution.resolved.is_empty() {
        (resolution.resolved, RESOLVED)
    } else if resolution.candidates.len() <= MAX_CANDIDATES {
        let entry = resolver.entry(file);
        let std = entry.lang.spec().std_methods.contains(&entry.symbols.ref_name(r));
        (resolution.candidates, if std { STD_METHOD } else { CANDIDATE })
    } else {
        return;
    };
    let nodes: Vec<(u32, Local)> = targets.into_iter().filter_map(|t| target_node(resolver, t)).collect();
    if nodes.is_empty() {
        return;
    }
    let (class, split) = (3 * kind_weight(r.kind()) + share, nodes.len() as u32);
    for (dst_file, dst) in nodes {
        if (dst_file, dst) != (file, src) {
            out.push(Part { r: i, src, dst_file, dst, class, split });
        }
    }
}

/// Every reference of `file` resolved: its parts (with their edges, if `with_edges`), in
/// reference order. A large file's references are resolved in runs side by side: an edit
/// resolves the edited file again alone, and its references are what can share the cores.
fn file_out(resolver: &Resolver, file: u32, with_edges: bool) -> FileOut {
    let refs = &resolver.entry(file).symbols.refs;
    let run = |first: usize, refs: &mut dyn Iterator<Item = Ref>| {
        let mut parts = Vec::new();
        for (i, r) in refs.enumerate() {
            resolve_parts(resolver, file, ((first + i) as u32, &r), &mut parts);
        }
        parts
    };
    let parts = if refs.len() <= REFS_PER_RUN {
        run(0, &mut refs.iter())
    } else {
        let all: Vec<Ref> = refs.iter().collect();
        let runs: Vec<Vec<Part>> = all
            .par_chunks(REFS_PER_RUN)
            .enumerate()
            .map(|(k, chunk)| run(k * REFS_PER_RUN, &mut chunk.iter().copied()))
            .collect();
        runs.concat()
    };
    if with_edges { FileOut::new(parts) } else { FileOut::parts_only(parts) }
}

/// The names a file gives others: what it defines and what it binds or imports at its top.
/// A reference elsewhere can bind differently after the file changed only through one of them.
fn given_names(entry: &FileEntry, out: &mut FxHashSet<String>) {
    let symbols = &entry.symbols;
    out.extend(symbols.defs.iter().map(|d| d.name().to_string()));
    out.extend(symbols.bindings.iter().filter(|b| b.scope == 0).map(|b| symbols.text(b.name).to_string()));
    out.extend(symbols.imports.iter().filter(|i| i.scope == 0).map(|i| symbols.text(i.bound).to_string()));
}

/// The names a file gives others that may bind differently after it changed from `old` to
/// `new`: those of its definitions from the first that differs on (a reference elsewhere binds
/// a definition by its place in the file, and reads its signature: a return type types a
/// call's result), and of its top-level bindings and imports that differ. A change to its impl
/// blocks or export list gives every name, as [`given_names`] does.
fn changed_given_names(old: &FileEntry, new: &FileEntry, out: &mut FxHashSet<String>) {
    let (a, b) = (&old.symbols, &new.symbols);
    let impls = |s: &crate::symbols::FileSymbols| -> Vec<(String, String)> {
        s.impls.iter().map(|i| (s.text(i.self_ty).to_string(), s.text(i.trait_path).to_string())).collect()
    };
    if impls(a) != impls(b) || a.exports != b.exports {
        given_names(old, out);
        given_names(new, out);
        return;
    }
    // A definition that starts or stops providing (a fixture's decorator added or taken off)
    // changes what the parameters of its name mean elsewhere.
    let same = |x: crate::symbols::DefRef, y: crate::symbols::DefRef| {
        (&x.name(), x.kind, x.parent(), x.signature(), x.provides())
            == (&y.name(), y.kind, y.parent(), y.signature(), y.provides())
    };
    let first =
        a.defs.iter().zip(&b.defs).position(|(x, y)| !same(x, y)).unwrap_or(a.defs.len().min(b.defs.len()));
    out.extend(a.defs.iter_from(first).chain(b.defs.iter_from(first)).map(|d| d.name().to_string()));
    let top =
        |s: &crate::symbols::FileSymbols| -> FxHashSet<(String, String, String)> {
            let bindings =
                s.bindings.iter().filter(|b| b.scope == 0).map(|b| {
                    (s.text(b.name).to_string(), format!("{:?}", b.kind), s.text(b.hint).to_string())
                });
            let imports = s.imports.iter().filter(|i| i.scope == 0).map(|i| {
                (s.text(i.bound).to_string(), s.text(i.module).to_string(), s.text(i.item).to_string())
            });
            bindings.chain(imports).collect()
        };
    let (ta, tb) = (top(a), top(b));
    out.extend(ta.symmetric_difference(&tb).map(|(name, _, _)| name.clone()));
    // A top-level glob that changed (a `from m import *`, a `use m::*`, Java's package, which
    // is kept as one) changes what the file's names are to others and what others' are in it:
    // every name it gives, and the words of the modules named.
    let globs = |s: &crate::symbols::FileSymbols| -> FxHashSet<(String, bool)> {
        s.imports
            .iter()
            .filter(|i| i.scope == 0 && i.glob)
            .map(|i| (s.text(i.module).to_string(), i.alias))
            .collect()
    };
    let (ga, gb) = (globs(a), globs(b));
    if ga != gb {
        given_names(old, out);
        given_names(new, out);
        for (module, _) in ga.symmetric_difference(&gb) {
            out.extend(
                module
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
        }
    }
}

/// Whether reference `r` of a file may bind differently once names in `names` change: its name
/// or a part of what qualifies it is one of them.
fn touches(
    symbols: &crate::symbols::FileSymbols,
    r: &crate::symbols::Ref,
    names: &FxHashSet<String>,
) -> bool {
    names.contains(symbols.ref_name(r))
        || symbols
            .text(r.qualifier)
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|part| !part.is_empty() && names.contains(part))
}

/// What changed between two snapshots, by file number.
struct FileChange {
    /// Files of the new snapshot that are new or differ, in order.
    changed: Vec<u32>,
    /// Files of the old snapshot that are gone.
    removed: Vec<u32>,
    /// Per file of the new snapshot: its number in the old one, if it was there.
    old_of: Vec<Option<u32>>,
    /// Per file of the old snapshot: its number in the new one; `None` when every file kept
    /// its number.
    new_of: Option<Vec<Option<u32>>>,
}

impl FileChange {
    fn between(before: &Snapshot, after: &Snapshot) -> Self {
        let mut change =
            FileChange { changed: Vec::new(), removed: Vec::new(), old_of: Vec::new(), new_of: None };
        let mut new_of = Vec::with_capacity(before.files.len());
        let mut old = before.files.iter().enumerate().peekable();
        for (f, (path, entry)) in after.files.iter().enumerate() {
            while let Some((o, _)) = old.next_if(|(_, (p, _))| *p < path) {
                change.removed.push(o as u32);
                new_of.push(None);
            }
            match old.next_if(|(_, (p, _))| *p == path) {
                Some((o, (_, previous))) => {
                    change.old_of.push(Some(o as u32));
                    new_of.push(Some(f as u32));
                    if !Arc::ptr_eq(previous, entry) {
                        change.changed.push(f as u32);
                    }
                }
                None => {
                    change.old_of.push(None);
                    change.changed.push(f as u32);
                }
            }
        }
        for (o, _) in old {
            change.removed.push(o as u32);
            new_of.push(None);
        }
        // Files only added after every old one leave the old numbers as they were.
        if new_of.iter().enumerate().any(|(o, n)| *n != Some(o as u32)) {
            change.new_of = Some(new_of);
        }
        change
    }
}

/// The words of a path without its extension (`pkg/http_util.py` gives `pkg`, `http_util`):
/// what an import of a file added or removed may name, and so what references may bind
/// differently.
fn path_words(path: &str, out: &mut FxHashSet<String>) {
    let stem = path.rsplit_once('.').filter(|(_, ext)| !ext.contains('/')).map_or(path, |(stem, _)| stem);
    out.extend(stem.split(['/', '.', '-']).filter(|w| !w.is_empty()).map(str::to_string));
}

/// `previous` with the references that touch `names` resolved again, the others kept.
fn file_out_updated(
    resolver: &Resolver,
    file: u32,
    previous: &FileOut,
    names: &FxHashSet<String>,
) -> FileOut {
    let symbols = &resolver.entry(file).symbols;
    // A variable whose evident type names one of them (`cart = Cart()`, or an alias of such a
    // variable) types what is called on it: references through it bind again too.
    let mut names = std::borrow::Cow::Borrowed(names);
    for _ in 0..2 {
        let typed: Vec<String> = symbols
            .bindings
            .iter()
            .filter(|b| {
                let hint = symbols.text(b.hint);
                !hint.is_empty()
                    && !names.contains(symbols.text(b.name))
                    && hint
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| !w.is_empty() && names.contains(w))
            })
            .map(|b| symbols.text(b.name).to_string())
            .collect();
        if typed.is_empty() {
            break;
        }
        names.to_mut().extend(typed);
    }
    let names = names.as_ref();
    let mut parts = Vec::with_capacity(previous.parts.len());
    let mut old = previous.parts.iter().peekable();
    for (i, r) in symbols.refs.iter().enumerate() {
        let i = i as u32;
        let kept = old.peek().is_some_and(|p| p.r == i);
        if touches(symbols, &r, names) {
            while old.next_if(|p| p.r == i).is_some() {}
            resolve_parts(resolver, file, (i, &r), &mut parts);
        } else if kept {
            while let Some(p) = old.next_if(|p| p.r == i) {
                parts.push(p);
            }
        }
    }
    FileOut::new(parts)
}

/// Definition names, numbered in order of first definition; `definers[i]` are the files
/// defining `idents[i]`, in file order.
#[derive(Debug, Default)]
struct Names {
    idents: Vec<String>,
    ids: FxHashMap<String, u32>,
    definers: Vec<Vec<u32>>,
}

impl Names {
    fn build(entries: &[Arc<FileEntry>]) -> Names {
        let mut names = Names::default();
        for (f, entry) in entries.iter().enumerate() {
            for def in &entry.symbols.defs {
                let id = *names.ids.entry(def.name().to_string()).or_insert_with(|| {
                    names.idents.push(def.name().to_string());
                    names.definers.push(Vec::new());
                    names.idents.len() as u32 - 1
                });
                let list = &mut names.definers[id as usize];
                if list.last() != Some(&(f as u32)) {
                    list.push(f as u32);
                }
            }
        }
        names
    }
}

/// The resolved graph of one snapshot.
#[derive(Debug)]
pub struct SymbolGraph {
    /// File `i` is `files[i]`; paths in sorted order.
    pub files: Vec<String>,
    /// File `f`'s node is `node_base[f]`, its definition `d` is `node_base[f] + 1 + d`; the
    /// last entry is the number of nodes.
    node_base: Arc<Vec<u32>>,
    /// Each file's resolved references, shared with the graphs updated from this one.
    out: Vec<Arc<FileOut>>,
    /// Every edge from source node to target node, weighted; rows in node order. Made on first
    /// use: `tack index` saves the resolved references and needs no edges.
    graph: std::sync::OnceLock<Arc<Csr<(), f32, Directed, u32>>>,
    /// The files, for the names table.
    entries: Vec<Arc<FileEntry>>,
    /// Definition names, made on first use (the map finds definitions by name through the
    /// resolver's table, which an update keeps, or, before name resolution is made, by
    /// reading the files' definitions).
    names: std::sync::OnceLock<Names>,
    /// Where keyed PageRank calls start: the ranks each key reached on the graph this one was
    /// updated from (or, for a key not asked there, where it started there). Fixed for the
    /// graph's life, so the same call on the same graph gives the same ranks to the last bit.
    warm_from: WarmStarts,
    /// The ranks each key reached on this graph: where the next graph's calls start.
    reached: std::sync::Mutex<WarmStarts>,
    /// Made by [`SymbolGraph::update`], not by a full build.
    updated: bool,
    /// Updated from a graph whose edges and numbering of nodes were these.
    edges_as_before: bool,
    /// Read from the parts saved beside the index.
    loaded: bool,
    /// Each file's neighbours through edges either way, made on first use.
    neighbours: std::sync::OnceLock<Vec<Vec<u32>>>,
}

/// PageRank's damping.
const DAMPING: f64 = 0.85;

/// The power iteration stops when an iteration moves the ranks less than this (L1).
const TOLERANCE: f64 = 1e-9;

/// How much more an edge into a focus identifier's definitions counts.
pub(crate) const BOOST: f64 = 10.0;

/// A focus for [`SymbolGraph::pagerank_keyed`].
pub struct Personal<'a> {
    /// Each node's weight in the personalization; empty or all zero: every node the same.
    pub weights: &'a [f64],
    /// The nodes whose incoming edges count [`BOOST`] times, sorted.
    pub boosted: &'a [u32],
    /// The nodes with an edge into a node (asked only of boosted nodes).
    pub users: &'a dyn Fn(u32) -> &'a [u32],
}

impl Personal<'static> {
    /// No focus: every node weighs the same and no edge is boosted.
    pub const UNIFORM: Personal<'static> = Personal { weights: &[], boosted: &[], users: &|_| &[] };
}

impl Personal<'_> {
    /// The nodes with a weight, and their weights.
    fn nonzero(&self) -> Vec<(u32, f64)> {
        self.weights.iter().enumerate().filter(|(_, v)| **v > 0.0).map(|(u, v)| (u as u32, *v)).collect()
    }
}

/// One graph's numbering of nodes and its boosted nodes, for [`SymbolGraph::fold`].
struct Flow<'a> {
    base: &'a [u32],
    boosted: &'a [u32],
}

impl Flow<'_> {
    /// The node an edge goes to.
    fn at(&self, &(_, dst_file, dst, _): &Edge) -> u32 {
        self.base[dst_file as usize] + dst
    }

    /// Adds to `residual` `sign` times what each source of `edges` (one file's, sorted by
    /// source) passes on of its `y`: `d` times each edge's weight (boosted ones [`BOOST`]
    /// times) over the source's out-weight, to the node `to` numbers it by (none: dropped).
    fn pass_on(
        &self,
        edges: &[Edge],
        y: impl Fn(Local) -> f64,
        to: impl Fn(&Edge) -> Option<u32>,
        sign: f64,
        residual: &mut FxHashMap<u32, f64>,
    ) {
        let weight =
            |e: &Edge| e.3 as f64 * if self.boosted.binary_search(&self.at(e)).is_ok() { BOOST } else { 1.0 };
        for row in edges.chunk_by(|a, b| a.0 == b.0) {
            let flow: f64 = row.iter().map(weight).sum();
            let y_src = y(row[0].0);
            for e in row {
                if let Some(node) = to(e) {
                    *residual.entry(node).or_default() += sign * DAMPING * weight(e) / flow * y_src;
                }
            }
        }
    }
}

/// The items of one sorted list or the other, not both.
fn symmetric_difference<'a>(a: &'a [u32], b: &'a [u32]) -> impl Iterator<Item = &'a u32> {
    let only = |x: &'a [u32], y: &'a [u32]| x.iter().filter(move |v| y.binary_search(v).is_err());
    only(a, b).chain(only(b, a))
}

/// Iterations of a warm-started PageRank before each edge's share is listed (see
/// [`SymbolGraph::iterate`]).
const UNLISTED_ITERATIONS: usize = 3;

/// At most this many focuses keep their ranks for a warm start.
const WARM_STARTS: usize = 16;

/// Recent converged ranks by the caller's key, newest last.
#[derive(Debug, Default, Clone)]
struct WarmStarts(std::collections::VecDeque<(u64, Arc<Reached>)>);

/// Ranks one graph reached, with that graph's numbering of nodes, and what they were reached
/// from: enough for the next graph to fold a few changed files into them (see
/// [`SymbolGraph::fold_in`]).
#[derive(Debug)]
struct Reached {
    node_base: Arc<Vec<u32>>,
    rank: Arc<Vec<f64>>,
    /// The personalization's nonzero weights by node (unscaled), or `None`: every node 1.
    personal: Option<Vec<(u32, f64)>>,
    /// The nodes whose incoming edges counted [`BOOST`] times.
    boosted: Vec<u32>,
    /// Each file's resolved references.
    out: Vec<Arc<FileOut>>,
    /// The ranks times this solve `y = p + d·M·y` for the unscaled personalization `p`
    /// (PageRank's fixed point without its dangling term and its scale).
    scale: f64,
    /// How far the ranks are from the fixed point: ‖F(x) − x‖₁ for the iteration's map F.
    residual: f64,
}

impl Reached {
    /// These ranks for a graph with the same files numbered by `node_base`: a file whose
    /// definitions changed in number keeps the ranks of as many as it still has, and a new one
    /// starts from the mean.
    fn renumbered(&self, node_base: &Arc<Vec<u32>>) -> Option<Vec<f64>> {
        if Arc::ptr_eq(&self.node_base, node_base) || *self.node_base == **node_base {
            return Some(self.rank.to_vec());
        }
        if self.node_base.len() != node_base.len() {
            return None;
        }
        let n = *node_base.last()? as usize;
        let mut out = vec![1.0 / n as f64; n];
        for f in 0..node_base.len() - 1 {
            let (old, new) = (self.node_base[f] as usize, node_base[f] as usize);
            let len = (self.node_base[f + 1] as usize - old).min(node_base[f + 1] as usize - new);
            out[new..new + len].copy_from_slice(&self.rank[old..old + len]);
        }
        let total: f64 = out.iter().sum();
        out.iter_mut().for_each(|r| *r /= total);
        Some(out)
    }
}

impl WarmStarts {
    fn get(&self, key: u64) -> Option<Arc<Reached>> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, r)| r.clone())
    }

    fn put(&mut self, key: u64, ranks: Arc<Reached>) {
        self.0.retain(|(k, _)| *k != key);
        if self.0.len() == WARM_STARTS {
            // The oldest focus goes; the ranks without one stay, for every unfocused map.
            let oldest = self.0.iter().position(|(_, r)| r.personal.is_some()).unwrap_or(0);
            self.0.remove(oldest);
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

/// The ranks without a focus one graph reached, with what folding a change into them needs
/// (see [`Reached`]): what the index saves so a new process need not iterate again.
#[derive(Debug, Clone)]
pub(crate) struct UniformRanks {
    pub(crate) rank: Arc<Vec<f64>>,
    pub(crate) scale: f64,
    pub(crate) residual: f64,
}

/// One PageRank: each node's rank and how many power iterations it took.
#[derive(Debug)]
pub struct Ranks {
    pub rank: Arc<Vec<f64>>,
    pub iterations: usize,
}

/// Bumped whenever what a reference resolves to, or how its parts are weighed, changes: saved
/// parts of another version are resolved again.
const SAVED_VERSION: u32 = 5;

/// A graph's resolved references as they are saved beside the index, for the snapshot whose
/// files (paths and contents) hash to `files`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Saved {
    version: u32,
    tack: String,
    files: [u8; 16],
    parts: Vec<Parts>,
}

/// [`Saved`] as it is written: borrowed from the graph, the same bytes.
#[derive(serde::Serialize)]
struct SavedRef<'a> {
    version: u32,
    tack: &'a str,
    files: [u8; 16],
    parts: Vec<&'a Parts>,
}

/// What the saved parts belong to: every file's path and content, in order.
fn files_fingerprint(snapshot: &Snapshot) -> [u8; 16] {
    let mut hasher = blake3::Hasher::new();
    for entry in snapshot.files.values() {
        hasher.update(&(entry.path.len() as u64).to_le_bytes());
        hasher.update(entry.path.as_bytes());
        hasher.update(&entry.hash);
    }
    let mut out = [0u8; 16];
    out.copy_from_slice(&hasher.finalize().as_bytes()[..16]);
    out
}

impl Snapshot {
    /// The definition/reference graph, built on first use and shared by later queries.
    pub fn graph(&self) -> Arc<SymbolGraph> {
        self.derived.get_or_init(|| SymbolGraph::build(self))
    }
}

impl SymbolGraph {
    /// Writes this graph's resolved references, serialized for `snapshot` (the one it was built
    /// for), to `out` as they are read: no copy of the parts is made (at 30,000 files they are
    /// hundreds of megabytes).
    pub(crate) fn write_to(&self, snapshot: &Snapshot, out: impl std::io::Write) -> std::io::Result<()> {
        let saved = SavedRef {
            version: SAVED_VERSION,
            tack: env!("CARGO_PKG_VERSION"),
            files: files_fingerprint(snapshot),
            parts: self.out.iter().map(|o| &o.parts).collect(),
        };
        postcard::to_io(&saved, out).map(drop).map_err(std::io::Error::other)
    }

    /// The graph of `snapshot` from saved parts, when they were saved for exactly its files by
    /// this version, and the bytes after them; an error otherwise (then it is built).
    pub(crate) fn from_bytes<'b>(
        snapshot: &Snapshot,
        bytes: &'b [u8],
    ) -> Result<(Self, &'b [u8]), &'static str> {
        let (saved, rest): (Saved, _) = postcard::take_from_bytes(bytes).map_err(|_| "it does not decode")?;
        if saved.version != SAVED_VERSION || saved.tack != env!("CARGO_PKG_VERSION") {
            return Err("another version of tack saved it");
        }
        if saved.files != files_fingerprint(snapshot) || saved.parts.len() != snapshot.files.len() {
            return Err("it belongs to other files or contents than the saved index");
        }
        // Parts that point past what their target file defines are from another snapshot.
        let n_defs: Vec<u32> = snapshot.files.values().map(|e| e.symbols.defs.len() as u32).collect();
        let fits = saved.parts.iter().zip(snapshot.files.values()).all(|(parts, entry)| {
            parts.iter().all(|p| {
                (p.r as usize) < entry.symbols.refs.len()
                    && p.src <= entry.symbols.defs.len() as u32
                    && n_defs.get(p.dst_file as usize).is_some_and(|&n| p.dst <= n)
            })
        });
        if !fits {
            return Err("its references point past the saved definitions");
        }
        let out = saved
            .parts
            .into_iter()
            .map(|parts| Arc::new(FileOut { parts, edges: std::sync::OnceLock::new() }))
            .collect();
        Ok((Self { loaded: true, ..Self::assemble(snapshot, out, false) }, rest))
    }

    /// The graph of `snapshot`, built whole: every reference of every file resolved.
    pub fn build(snapshot: &Snapshot) -> Self {
        if let Some(resolver) = snapshot.derived.get::<Resolver>() {
            let out: Vec<Arc<FileOut>> = (0..resolver.n_files() as u32)
                .into_par_iter()
                .map(|f| Arc::new(file_out(&resolver, f, false)))
                .collect();
            return Self::assemble(snapshot, out, false);
        }
        // No resolver yet: this one is the graph's alone while it resolves, so the files' scope
        // tables can be dropped after each batch of files (every file's at once were the peak
        // of a cold index, about 62 MB at 30,000 files); a table another batch needs is made
        // again. Then it is the snapshot's, for the queries after.
        Self::build_in_batches(snapshot, FILES_PER_BATCH)
    }

    /// [`SymbolGraph::build`] with a resolver of its own, `per_batch` files resolved between
    /// drops of the files' scope tables; the resolver is the snapshot's after.
    fn build_in_batches(snapshot: &Snapshot, per_batch: usize) -> Self {
        let mut resolver = Resolver::for_resolving(snapshot);
        let n = resolver.n_files() as u32;
        let mut out: Vec<Arc<FileOut>> = Vec::with_capacity(n as usize);
        for start in (0..n).step_by(per_batch) {
            let end = n.min(start + per_batch as u32);
            out.par_extend((start..end).into_par_iter().map(|f| Arc::new(file_out(&resolver, f, false))));
            resolver.forget_file_tables();
            // The tables' pages go back to the system rather than stay free in the allocator.
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            // SAFETY: malloc_trim only releases memory the allocator holds free.
            unsafe {
                libc::malloc_trim(0);
            }
        }
        snapshot.derived.set(Arc::new(resolver));
        Self::assemble(snapshot, out, false)
    }

    /// The graph of `snapshot` made from `previous` (the graph of `before`): the changed and new
    /// files' references resolved again, and in the other files those that name what a changed,
    /// new or removed file defines, binds or imports, before or after the change, or a word of
    /// a new or removed file's path (what an import of it names); the rest kept, renumbered
    /// when files came or went. `None` when a full build is due (too many changes).
    pub fn update(previous: &SymbolGraph, before: &Snapshot, snapshot: &Snapshot) -> Option<Self> {
        let change = FileChange::between(before, snapshot);
        if change.changed.len() + change.removed.len()
            > MAX_UPDATED_FILES.max(snapshot.files.len() / UPDATED_SHARE)
        {
            return None;
        }
        let resolver = snapshot.resolver();
        let old: Vec<&Arc<FileEntry>> = before.files.values().collect();
        let mut names: FxHashSet<String> = FxHashSet::default();
        for &f in &change.changed {
            if let Some(o) = change.old_of[f as usize] {
                changed_given_names(old[o as usize], resolver.entry(f), &mut names);
            } else {
                path_words(&resolver.entry(f).path, &mut names);
                given_names(resolver.entry(f), &mut names);
            }
        }
        for &o in &change.removed {
            given_names(old[o as usize], &mut names);
            path_words(&old[o as usize].path, &mut names);
        }
        names.remove("");
        let mut affected: FxHashSet<u32> = FxHashSet::default();
        for name in &names {
            affected.extend(resolver.files_referencing(name).iter().copied());
        }
        let changed: FxHashSet<u32> = change.changed.iter().copied().collect();
        let started = std::time::Instant::now();
        let out: Vec<Arc<FileOut>> = (0..resolver.n_files() as u32)
            .into_par_iter()
            .map(|f| match change.old_of[f as usize] {
                Some(o) if !changed.contains(&f) => {
                    let old = &previous.out[o as usize];
                    let old = match &change.new_of {
                        None => old.clone(),
                        Some(new_of) => Arc::new(old.renumbered(new_of)),
                    };
                    if affected.contains(&f) {
                        Arc::new(file_out_updated(&resolver, f, &old, &names))
                    } else {
                        old
                    }
                }
                _ => Arc::new(file_out(&resolver, f, true)),
            })
            .collect();
        tracing::debug!(
            names = names.len(),
            affected_files = affected.len(),
            ms = started.elapsed().as_millis() as u64,
            "references resolved again"
        );
        let mut graph = Self::assemble(snapshot, out, true);
        // A change that left every edge as it was (a body edited, no call or name added or
        // removed, no definition added or removed) keeps the edges as laid out.
        graph.edges_as_before = change.new_of.is_none()
            && graph.node_base == previous.node_base
            && graph
                .out
                .iter()
                .zip(&previous.out)
                .all(|(new, old)| Arc::ptr_eq(new, old) || new.edges() == old.edges());
        if graph.edges_as_before
            && let Some(laid_out) = previous.graph.get()
        {
            let _ = graph.graph.set(laid_out.clone());
        }
        // Same files in the same order: the previous ranks are one small change away from these
        // wherever the numbering of nodes is the same.
        graph.warm_from = previous.warm_from.then(&previous.reached.lock().expect("warm starts"));
        Some(graph)
    }

    /// Whether this graph's edges are laid out in the same place as `other`'s (one kept the
    /// other's).
    pub fn shares_edges_with(&self, other: &SymbolGraph) -> bool {
        matches!((self.graph.get(), other.graph.get()), (Some(a), Some(b)) if Arc::ptr_eq(a, b))
    }

    /// The global numbering of nodes from each file's part.
    fn assemble(snapshot: &Snapshot, out: Vec<Arc<FileOut>>, updated: bool) -> Self {
        let files: Vec<String> = snapshot.files.keys().cloned().collect();
        let mut node_base = Vec::with_capacity(files.len() + 1);
        let mut n = 0u32;
        for entry in snapshot.files.values() {
            node_base.push(n);
            n += 1 + entry.symbols.defs.len() as u32;
        }
        node_base.push(n);
        Self {
            files,
            node_base: Arc::new(node_base),
            out,
            graph: std::sync::OnceLock::new(),
            entries: snapshot.files.values().cloned().collect(),
            names: std::sync::OnceLock::new(),
            warm_from: WarmStarts::default(),
            reached: Default::default(),
            updated,
            edges_as_before: false,
            loaded: false,
            neighbours: std::sync::OnceLock::new(),
        }
    }

    /// Whether this graph was updated from one with the same edges and numbering of nodes.
    pub(crate) fn edges_as_before(&self) -> bool {
        self.edges_as_before
    }

    /// Every edge, made from each file's edges on first use.
    pub(crate) fn csr(&self) -> &Csr<(), f32, Directed, u32> {
        self.graph.get_or_init(|| Arc::new(self.lay_out()))
    }

    /// Every edge laid out in node order.
    fn lay_out(&self) -> Csr<(), f32, Directed, u32> {
        {
            let started = std::time::Instant::now();
            let node_base = &self.node_base;
            self.make_file_edges();
            // Every file's edges numbered globally, each file's run filled on rayon's threads.
            let mut edges = vec![(0u32, 0u32, 0f32); self.out.iter().map(|o| o.edges().len()).sum()];
            let mut runs = Vec::with_capacity(self.out.len());
            let mut rest = edges.as_mut_slice();
            for o in &self.out {
                let (run, after) = rest.split_at_mut(o.edges().len());
                runs.push(run);
                rest = after;
            }
            runs.into_par_iter().zip(self.out.par_iter()).enumerate().for_each(|(f, (run, o))| {
                for (slot, &(src, dst_file, dst, w)) in run.iter_mut().zip(o.edges()) {
                    *slot = (node_base[f] + src, node_base[dst_file as usize] + dst, w);
                }
            });
            // Each file's edges are sorted by (source, target file, target) and nodes are
            // numbered in file order, so the whole list is sorted.
            let mut graph: Csr<(), f32, Directed, u32> =
                Csr::from_sorted_edges(&edges).expect("edges sorted by source, then target");
            while graph.node_count() < self.n_nodes() {
                graph.add_node(());
            }
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                edges = edges.len(),
                "graph assembled"
            );
            graph
        }
    }

    /// Whether this graph was updated from the previous snapshot's rather than built whole.
    pub fn was_updated(&self) -> bool {
        self.updated
    }

    /// Whether this graph was read from the resolved references saved with the index.
    pub fn was_loaded(&self) -> bool {
        self.loaded
    }

    pub fn n_nodes(&self) -> usize {
        *self.node_base.last().unwrap_or(&0) as usize
    }

    pub fn n_edges(&self) -> usize {
        match self.graph.get() {
            Some(graph) => graph.edge_count(),
            None => self.out.iter().map(|o| o.n_edges()).sum(),
        }
    }

    /// Every edge as (source node, target node, weight), in source order, then target order,
    /// read from each file's edges: nothing is laid out for it.
    pub fn edges(&self) -> impl Iterator<Item = (u32, u32, f32)> + '_ {
        self.make_file_edges();
        let node_base = &self.node_base;
        self.out.iter().enumerate().flat_map(move |(f, o)| {
            let base = node_base[f];
            o.edges()
                .iter()
                .map(move |&(src, dst_file, dst, w)| (base + src, node_base[dst_file as usize] + dst, w))
        })
    }

    /// Calls `visit` with each edge's source and target node, in [`Self::edges`]' order.
    pub(crate) fn for_each_edge(&self, mut visit: impl FnMut(u32, u32)) {
        self.make_file_edges();
        for (f, o) in self.out.iter().enumerate() {
            let base = self.node_base[f];
            for &(src, dst_file, dst, _) in o.edges() {
                visit(base + src, self.node_base[dst_file as usize] + dst);
            }
        }
    }

    /// Adds up the edges of every file whose edges were not made yet, on rayon's threads.
    fn make_file_edges(&self) {
        self.out.par_iter().for_each(|o| {
            o.edges();
        });
    }

    /// File `file`'s own node (its module-level code).
    pub fn file_node(&self, file: usize) -> u32 {
        self.node_base[file]
    }

    /// The node of definition `def` of file `file`.
    pub fn def_node(&self, file: usize, def: usize) -> u32 {
        self.node_base[file] + 1 + def as u32
    }

    /// The file a node belongs to, and the definition it is (`None`: the file's own node).
    pub fn node_place(&self, node: u32) -> (usize, Option<usize>) {
        let file = self.node_base.partition_point(|&b| b <= node) - 1;
        let local = node - self.node_base[file];
        (file, (local > 0).then(|| local as usize - 1))
    }

    /// Which resolved references file `file` has.
    pub(crate) fn out_id(&self, file: usize) -> OutId {
        OutId(self.out[file].clone())
    }

    /// Per node of file `file` (its own first), whether an edge leaves it.
    pub(crate) fn has_edges_from(&self, file: usize) -> Vec<bool> {
        let mut out = vec![false; (self.node_base[file + 1] - self.node_base[file]) as usize];
        for &(src, ..) in self.out[file].edges() {
            out[src as usize] = true;
        }
        out
    }

    /// Where each file's nodes start (see `node_base`); the last entry is the number of nodes.
    pub(crate) fn node_base(&self) -> &Arc<Vec<u32>> {
        &self.node_base
    }

    /// File `file`'s edges as (source, target) nodes, by source, then target.
    pub(crate) fn file_edges(&self, file: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let base = self.node_base[file];
        self.out[file]
            .edges()
            .iter()
            .map(move |&(src, dst_file, dst, _)| (base + src, self.node_base[dst_file as usize] + dst))
    }

    /// The files file `file` has an edge into, its own among them, once or more each.
    pub(crate) fn target_files(&self, file: usize) -> impl Iterator<Item = u32> + '_ {
        self.out[file].edges().iter().map(|&(_, dst_file, _, _)| dst_file)
    }

    /// What the references of file `file` resolve to, guesses left out: (reference number,
    /// target file, the target's node within it), in reference order.
    pub(crate) fn resolved_parts(&self, file: usize) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.out[file].parts.iter().filter(|p| !p.guess()).map(|p| (p.r, p.dst_file, p.dst))
    }

    fn names(&self) -> &Names {
        self.names.get_or_init(|| Names::build(&self.entries))
    }

    /// The files that define identifier `id`, in file order.
    pub fn definers(&self, id: u32) -> &[u32] {
        self.names().definers.get(id as usize).map_or(&[], Vec::as_slice)
    }

    pub fn ident_id(&self, name: &str) -> Option<u32> {
        self.names().ids.get(name).copied()
    }

    pub fn ident(&self, id: u32) -> &str {
        &self.names().idents[id as usize]
    }

    /// The name numbered `id`, if there is one.
    pub fn ident_name(&self, id: u32) -> Option<&str> {
        self.names().idents.get(id as usize).map(String::as_str)
    }

    pub fn file_index(&self, path: &str) -> Option<usize> {
        self.files.binary_search_by(|p| p.as_str().cmp(path)).ok()
    }

    /// The references that name definition `def` of `file`, read from what the graph was made
    /// of (nothing is resolved again): each as the referring file, the reference's index in that
    /// file's `refs`, and how resolution bound it, in file and reference order. Only `file` and the files joined to it
    /// can hold one, so a common name (`__init__`, `new`) costs no more than a rare one.
    pub fn references_to(&self, file: usize, def: usize) -> Vec<(u32, u32, Share)> {
        let dst = 1 + def as Local;
        let mut files: Vec<u32> = self.neighbours(file).to_vec();
        files.push(file as u32);
        files.sort_unstable();
        let mut found = Vec::new();
        for f in files {
            let Some(out) = self.out.get(f as usize) else { continue };
            for p in out.parts.iter() {
                if p.dst_file as usize == file && p.dst == dst {
                    let share = match p.class % 3 {
                        RESOLVED => Share::Resolved,
                        CANDIDATE => Share::Candidate,
                        _ => Share::StdMethod,
                    };
                    found.push((f, p.r, share));
                }
            }
        }
        found.dedup();
        found
    }

    /// The nodes with an edge into each of `targets` (sorted, deduplicated), each list in node
    /// order: the same as every edge turned around would give, read from each file's resolved
    /// references without adding up any file's edges (which, at 25,000 files, takes longer
    /// than a focused map may).
    pub(crate) fn users_of(&self, targets: &[u32]) -> Vec<Vec<u32>> {
        let mut found: Vec<(usize, u32)> = (0..self.out.len())
            .into_par_iter()
            .flat_map_iter(|f| {
                let base = self.node_base[f];
                self.out[f].parts.iter().filter_map(move |p| {
                    let target = self.node_base.get(p.dst_file as usize)? + p.dst;
                    targets.binary_search(&target).ok().map(|at| (at, base + p.src))
                })
            })
            .collect();
        // Nodes are numbered in file order: sorted, each target's users are in node order.
        found.sort_unstable();
        found.dedup();
        let mut users = vec![Vec::new(); targets.len()];
        for (at, user) in found {
            users[at].push(user);
        }
        users
    }

    /// The files joined to `file` by an edge either way, in file order.
    pub fn neighbours(&self, file: usize) -> &[u32] {
        let all = self.neighbours.get_or_init(|| {
            let mut all: Vec<Vec<u32>> = vec![Vec::new(); self.files.len()];
            for (f, o) in self.out.iter().enumerate() {
                for &(_, dst_file, _, _) in o.edges() {
                    if dst_file as usize != f {
                        all[f].push(dst_file);
                        all[dst_file as usize].push(f as u32);
                    }
                }
            }
            for list in &mut all {
                list.sort_unstable();
                list.dedup();
            }
            all
        });
        &all[file]
    }

    /// Personalized PageRank (damping 0.85) over the nodes by power iteration; `weight` may
    /// rescale each edge (source, target, weight) for a focus. An empty or all-zero
    /// `personalization` is uniform.
    pub fn pagerank<W>(&self, personalization: &[f64], weight: &W) -> Vec<f64>
    where
        W: Fn(u32, u32, f32) -> f64 + ?Sized,
    {
        self.iterate(personalization, weight, None, 0).rank
    }

    /// [`Self::pagerank`] for a focus the caller names by `key`, whose edges into
    /// `personal.boosted` count [`BOOST`] times: it starts from the ranks the same key reached on
    /// the graph this one was updated from, where a cold start begins from the personalization.
    /// One changed file moves the ranks little: its edges' change is folded into the ranks
    /// directly when that meets the tolerance ([`Self::fold_in`]), else the iteration starts
    /// there and stops sooner; the fixed point, and so the ranks within the tolerance, are the
    /// same whatever the start, and one graph always starts a key at the same place.
    pub fn pagerank_keyed(&self, key: u64, personal: &Personal) -> Ranks {
        let n = self.n_nodes();
        let boosted = |dst: u32| personal.boosted.binary_search(&dst).is_ok();
        let weight = |_: u32, dst: u32, w: f32| if boosted(dst) { w as f64 * BOOST } else { w as f64 };
        let uniform = personal.weights.len() != n || personal.weights.iter().all(|&v| v <= 0.0);
        let personal_nodes = (!uniform).then(|| personal.nonzero());
        // Asked before on this graph (another budget, or a focus that names nothing, as no
        // focus): the ranks it reached, which asking again from the same start would give.
        let done = self.reached.lock().expect("warm starts").get(key);
        if let Some(done) = done.filter(|done| {
            Arc::ptr_eq(&done.node_base, &self.node_base)
                && done.personal == personal_nodes
                && done.boosted == personal.boosted
        }) {
            return Ranks { rank: done.rank.clone(), iterations: 0 };
        }
        let from = self.warm_from.get(key);
        let folded = from.as_ref().and_then(|from| self.fold_in(from, personal, uniform));
        let (rank, iterations, residual, scale) = match folded {
            Some((rank, residual, scale)) => (rank, 0, residual, scale),
            None => {
                let start = from.and_then(|r| r.renumbered(&self.node_base));
                let run = self.iterate(personal.weights, &weight, start, UNLISTED_ITERATIONS);
                let total = if uniform { n as f64 } else { personal.weights.iter().sum() };
                let scale = total / (1.0 - DAMPING + DAMPING * run.dangling);
                (run.rank, run.iterations, DAMPING * run.delta, scale)
            }
        };
        let rank = Arc::new(rank);
        let reached = Reached {
            node_base: self.node_base.clone(),
            rank: rank.clone(),
            personal: personal_nodes,
            boosted: personal.boosted.to_vec(),
            out: self.out.clone(),
            scale,
            residual,
        };
        self.reached.lock().expect("warm starts").put(key, Arc::new(reached));
        Ranks { rank, iterations }
    }

    /// The ranks key `key` reached on this graph without a focus (every node weighing the same,
    /// no edge boosted), when it was asked: what saving them needs to make them again.
    pub(crate) fn uniform_reached(&self, key: u64) -> Option<UniformRanks> {
        let done = self.reached.lock().expect("warm starts").get(key)?;
        let uniform = Arc::ptr_eq(&done.node_base, &self.node_base)
            && done.personal.is_none()
            && done.boosted.is_empty();
        uniform.then(|| UniformRanks { rank: done.rank.clone(), scale: done.scale, residual: done.residual })
    }

    /// Takes `ranks` (saved from a graph with these very parts) as what key `key` reached here
    /// without a focus: [`Self::pagerank_keyed`] then answers it at once, and the graphs updated
    /// from this one start from them, as if this graph had iterated to them.
    pub(crate) fn seed_uniform(&self, key: u64, ranks: UniformRanks) {
        let reached = Reached {
            node_base: self.node_base.clone(),
            rank: ranks.rank,
            personal: None,
            boosted: Vec::new(),
            out: self.out.clone(),
            scale: ranks.scale,
            residual: ranks.residual,
        };
        self.reached.lock().expect("warm starts").put(key, Arc::new(reached));
    }

    /// The ranks `from` (the same key's on the graph this one was updated from) reached, with the
    /// change of a few files' edges and of the personalization folded in: `None` when more
    /// changed, or when the result would be further from the fixed point than the tolerance.
    ///
    /// In `y = p + d·M·y` form (ranks times `from.scale`) the residual of the old ranks on this
    /// graph is the personalization's change plus, for each changed file's nodes, what their
    /// new edges pass on less what their old ones did: only those files' edges are read. The
    /// ranks plus that residual are one iteration on, and their own residual is at most `d`
    /// times its size, added to what `from` had.
    fn fold_in(&self, from: &Reached, personal: &Personal, uniform: bool) -> Option<(Vec<f64>, f64, f64)> {
        let (mut y, step, left) = self.fold(from, personal, uniform)?;
        let scale: f64 = y.iter().sum();
        if !(scale > 0.0 && step < TOLERANCE && left < TOLERANCE) {
            return None;
        }
        y.iter_mut().for_each(|v| *v /= scale);
        Some((y, left, scale))
    }

    /// [`Self::fold_in`]'s iteration: the ranks in `y` form, the step (L1, scaled) and the
    /// residual it leaves; `None` when too much changed to fold in.
    fn fold(&self, from: &Reached, personal: &Personal, uniform: bool) -> Option<(Vec<f64>, f64, f64)> {
        let (old_base, new_base) = (&from.node_base, &self.node_base);
        if old_base.len() != new_base.len()
            || uniform != from.personal.is_none()
            || from.residual >= TOLERANCE
        {
            return None;
        }
        let files = new_base.len() - 1;
        let len = |base: &[u32], f: usize| base[f + 1] - base[f];
        // A node as (file, local) in the old numbering, and in the new one if it is still there.
        let old_place = |u: u32| {
            let f = old_base.partition_point(|&b| b <= u) - 1;
            (f, u - old_base[f])
        };
        let new_node = |(f, local): (usize, u32)| (local < len(new_base, f)).then(|| new_base[f] + local);
        let mut changed: Vec<usize> = (0..files)
            .filter(|&f| !Arc::ptr_eq(&self.out[f], &from.out[f]) || len(old_base, f) != len(new_base, f))
            .collect();
        // An edge into a node boosted in one graph and not the other counts differently: its
        // source's file changed too.
        let mut old_boosted: Vec<u32> = from.boosted.iter().filter_map(|&u| new_node(old_place(u))).collect();
        old_boosted.sort_unstable();
        for &v in symmetric_difference(&old_boosted, personal.boosted) {
            changed.extend((personal.users)(v).iter().map(|&u| self.node_place(u).0));
        }
        changed.sort_unstable();
        changed.dedup();
        if changed.len() > MAX_UPDATED_FILES {
            return None;
        }
        // The old ranks in `y` form, numbered as this graph numbers nodes; a node a changed file
        // added starts at 0.
        let mut y = vec![0.0; *new_base.last()? as usize];
        for f in 0..files {
            let (old, new) = (old_base[f] as usize, new_base[f] as usize);
            let keep = len(old_base, f).min(len(new_base, f)) as usize;
            for (slot, x) in y[new..new + keep].iter_mut().zip(&from.rank[old..old + keep]) {
                *slot = x * from.scale;
            }
        }
        let mut residual: FxHashMap<u32, f64> = FxHashMap::default();
        // The personalization's change.
        let new_p = if uniform { Vec::new() } else { personal.nonzero() };
        match &from.personal {
            None => {
                for &f in &changed {
                    for local in len(old_base, f)..len(new_base, f) {
                        *residual.entry(new_base[f] + local).or_default() += 1.0;
                    }
                }
            }
            Some(old_p) => {
                for &(u, v) in old_p {
                    if let Some(node) = new_node(old_place(u)) {
                        *residual.entry(node).or_default() -= v;
                    }
                }
                for &(u, v) in &new_p {
                    *residual.entry(u).or_default() += v;
                }
            }
        }
        // What each changed file's nodes passed on before and pass on now.
        for &f in &changed {
            let old = Flow { base: old_base, boosted: &from.boosted };
            let y_old = |src: Local| from.rank[(old_base[f] + src) as usize] * from.scale;
            old.pass_on(from.out[f].edges(), y_old, |e| new_node((e.1 as usize, e.2)), -1.0, &mut residual);
            let new = Flow { base: new_base, boosted: personal.boosted };
            let y_new = |src: Local| y[(new_base[f] + src) as usize];
            new.pass_on(self.out[f].edges(), y_new, |e| Some(new.at(e)), 1.0, &mut residual);
        }
        let mut moved: Vec<(u32, f64)> = residual.into_iter().collect();
        moved.sort_unstable_by_key(|(u, _)| *u);
        for &(u, r) in &moved {
            y[u as usize] += r;
        }
        let scale: f64 = y.iter().sum();
        let step = moved.iter().map(|(_, r)| r.abs()).sum::<f64>() / scale;
        Some((y, step, from.residual * from.scale / scale + DAMPING * step))
    }

    /// The power iteration, from `start` when given, else from the personalization: the ranks
    /// and how many iterations they took.
    ///
    /// A cold start whose personalization reaches at most half the nodes through edges iterates
    /// over those nodes alone: the rest hold no rank at any iteration (rank flows only along
    /// edges and back to the personalization), so the ranks are the same to the last bit, and
    /// no edge outside them is read or laid out.
    fn iterate<W>(&self, personalization: &[f64], weight: &W, start: Option<Vec<f64>>, unlisted: usize) -> Run
    where
        W: Fn(u32, u32, f32) -> f64 + ?Sized,
    {
        let n = self.n_nodes();
        if n == 0 {
            return Run { rank: Vec::new(), iterations: 0, delta: 0.0, dangling: 0.0 };
        }
        let total: f64 = personalization.iter().sum();
        let focused = total > 0.0 && personalization.len() == n;
        let warm = start.as_ref().is_some_and(|s| s.len() == n);
        if focused
            && !warm
            && let Some(reached) = self.reached_from(personalization, n / 2)
        {
            let p: Vec<f64> = reached.nodes.iter().map(|&u| personalization[u as usize] / total).collect();
            let row = |i: u32| {
                let (from, to) = (reached.start[i as usize] as usize, reached.start[i as usize + 1] as usize);
                (&reached.dst[from..to], &reached.weight[from..to])
            };
            let global = |i: u32| reached.nodes[i as usize];
            let few = power(reached.nodes.len(), row, global, p, weight, None, 0);
            let mut rank = vec![0.0; n];
            for (&u, r) in reached.nodes.iter().zip(&few.rank) {
                rank[u as usize] = *r;
            }
            return Run { rank, ..few };
        }
        let p: Vec<f64> = if focused {
            personalization.iter().map(|v| v / total).collect()
        } else {
            vec![1.0 / n as f64; n]
        };
        let graph = self.csr();
        let row = |src: u32| (graph.neighbors_slice(src), graph.edges_slice(src));
        power(n, row, |i| i, p, weight, start.filter(|_| warm), unlisted)
    }

    /// The nodes the personalization's reach through edges, when they are at most `most`: in
    /// node order, with their edges numbered among them.
    fn reached_from(&self, personalization: &[f64], most: usize) -> Option<Reach> {
        let n = self.n_nodes();
        let mut seen = vec![false; n];
        let mut todo: Vec<u32> = Vec::new();
        for (u, _) in personalization.iter().enumerate().filter(|(_, v)| **v > 0.0) {
            seen[u] = true;
            todo.push(u as u32);
        }
        let mut count = todo.len();
        if count > most {
            return None;
        }
        while let Some(u) = todo.pop() {
            for &(_, dst_file, dst, _) in self.row(u) {
                let v = (self.node_base[dst_file as usize] + dst) as usize;
                if !std::mem::replace(&mut seen[v], true) {
                    count += 1;
                    if count > most {
                        return None;
                    }
                    todo.push(v as u32);
                }
            }
        }
        let nodes: Vec<u32> = (0..n as u32).filter(|&u| seen[u as usize]).collect();
        let mut index_of = vec![0u32; n];
        for (i, &u) in nodes.iter().enumerate() {
            index_of[u as usize] = i as u32;
        }
        let mut reach = Reach { start: vec![0], dst: Vec::new(), weight: Vec::new(), nodes };
        for &u in &reach.nodes {
            for &(_, dst_file, dst, w) in self.row(u) {
                reach.dst.push(index_of[(self.node_base[dst_file as usize] + dst) as usize]);
                reach.weight.push(w);
            }
            reach.start.push(reach.dst.len() as u32);
        }
        Some(reach)
    }

    /// The edges leaving node `u`, from its file's edges.
    fn row(&self, u: u32) -> &[Edge] {
        let (file, _) = self.node_place(u);
        let local = u - self.node_base[file];
        let edges = self.out[file].edges();
        let from = edges.partition_point(|e| e.0 < local);
        let to = from + edges[from..].partition_point(|e| e.0 == local);
        &edges[from..to]
    }
}

/// Some nodes of a graph and the edges between them, numbered among them: `nodes[i]` is node
/// `i`'s number in the graph, and its edges go to `dst[start[i]..start[i + 1]]`.
struct Reach {
    nodes: Vec<u32>,
    start: Vec<u32>,
    dst: Vec<u32>,
    weight: Vec<f32>,
}

/// What a power iteration reached: the ranks, how many iterations they took, how much the last
/// one moved them (L1), and what the nodes without edges hold.
#[derive(Debug, PartialEq)]
struct Run {
    rank: Vec<f64>,
    iterations: usize,
    delta: f64,
    dangling: f64,
}

/// PageRank's power iteration over `n` nodes whose edges `row` gives (targets, weights),
/// `global` numbering a node as `weight` knows it; `p` is the personalization, summing to 1.
///
/// Each edge's share of its source's rank is its weight times the damping over its source's
/// out-weight. A cold start takes dozens of iterations, so the shares are worked out once into
/// a list; a warm one usually meets the tolerance in one or two, fewer than the list costs to
/// make (an allocation the size of the edges), so its first `unlisted` iterations work each
/// share out where it is used, the same arithmetic to the last bit. A cold start's iterations
/// read the edges by target ([`ByTarget`]), on every core.
fn power<'g, W, R, G>(
    n: usize,
    row: R,
    global: G,
    p: Vec<f64>,
    weight: &W,
    start: Option<Vec<f64>>,
    unlisted: usize,
) -> Run
where
    W: Fn(u32, u32, f32) -> f64 + ?Sized,
    R: Fn(u32) -> (&'g [u32], &'g [f32]),
    G: Fn(u32) -> u32,
{
    let damping = DAMPING;
    let edges = |src: u32| {
        let (targets, weights) = row(src);
        targets.iter().zip(weights)
    };
    let out_weight: Vec<f64> = (0..n as u32)
        .map(|src| edges(src).map(|(&dst, &w)| weight(global(src), global(dst), w)).sum())
        .collect();
    let share_of = |src: u32, dst: u32, w: f32| {
        let (s, flow) = (weight(global(src), global(dst), w), out_weight[src as usize]);
        if flow > 0.0 { damping * s / flow } else { s }
    };
    let list_shares = || -> Vec<f64> {
        let mut share = Vec::new();
        for src in 0..n as u32 {
            share.extend(edges(src).map(|(&dst, &w)| share_of(src, dst, w)));
        }
        share
    };
    let dangling_nodes: Vec<u32> = (0..n as u32).filter(|&i| out_weight[i as usize] <= 0.0).collect();
    let warm = start.is_some();
    let by_target = (!warm).then(|| ByTarget::new(n, &row, &share_of));
    let mut rank = start.unwrap_or_else(|| p.clone());
    let mut shares: Option<Vec<f64>> = None;
    let mut next = vec![0.0; n];
    let (mut iterations, mut delta) = (0, 0.0);
    while iterations < 100 {
        iterations += 1;
        if by_target.is_none() && shares.is_none() && iterations > unlisted {
            shares = Some(list_shares());
        }
        let dangling: f64 = dangling_nodes.iter().map(|&i| rank[i as usize]).sum();
        let teleport = 1.0 - damping + damping * dangling;
        if let Some(by_target) = &by_target {
            by_target.step(&rank, &p, teleport, &mut next);
        } else {
            for (slot, pi) in next.iter_mut().zip(&p) {
                *slot = teleport * pi;
            }
            match &shares {
                Some(share) => {
                    let mut at = 0;
                    for src in 0..n as u32 {
                        let targets = row(src).0;
                        let from = rank[src as usize];
                        for (&dst, s) in targets.iter().zip(&share[at..at + targets.len()]) {
                            next[dst as usize] += from * s;
                        }
                        at += targets.len();
                    }
                }
                None => {
                    for src in 0..n as u32 {
                        let from = rank[src as usize];
                        for (&dst, &w) in edges(src) {
                            next[dst as usize] += from * share_of(src, dst, w);
                        }
                    }
                }
            }
        }
        delta = next.iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if delta < TOLERANCE {
            break;
        }
    }
    let dangling = dangling_nodes.iter().map(|&i| rank[i as usize]).sum();
    Run { rank, iterations, delta, dangling }
}

/// Nodes whose new ranks one task of [`ByTarget::step`] works out.
const NODES_PER_TASK: usize = 4096;

/// Every edge by its target, sources in order, each with its share of its source's rank
/// (12 bytes an edge): a cold start's iterations sum each node's new rank from its sources,
/// on every core. In source order, that is the arithmetic of adding each source's share to its
/// targets in source order, to the last bit.
struct ByTarget {
    /// Node `i`'s sources are `sources[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    sources: Vec<u32>,
    shares: Vec<f64>,
}

impl ByTarget {
    /// `row` gives a node's targets and their weights, `share_of` an edge's share.
    fn new<'g>(
        n: usize,
        row: &dyn Fn(u32) -> (&'g [u32], &'g [f32]),
        share_of: &dyn Fn(u32, u32, f32) -> f64,
    ) -> ByTarget {
        let mut start = vec![0u32; n + 1];
        for src in 0..n as u32 {
            for &dst in row(src).0 {
                start[dst as usize + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut filled = start.clone();
        let edges = start[n] as usize;
        let (mut sources, mut shares) = (vec![0u32; edges], vec![0.0f64; edges]);
        for src in 0..n as u32 {
            let (targets, weights) = row(src);
            for (&dst, &w) in targets.iter().zip(weights) {
                let slot = &mut filled[dst as usize];
                sources[*slot as usize] = src;
                shares[*slot as usize] = share_of(src, dst, w);
                *slot += 1;
            }
        }
        ByTarget { start, sources, shares }
    }

    /// One iteration: `next[i]` is `teleport · p[i]` plus each source's rank times its share.
    fn step(&self, rank: &[f64], p: &[f64], teleport: f64, next: &mut [f64]) {
        next.par_chunks_mut(NODES_PER_TASK).enumerate().for_each(|(task, chunk)| {
            for (k, slot) in chunk.iter_mut().enumerate() {
                let dst = task * NODES_PER_TASK + k;
                let mut sum = teleport * p[dst];
                let edges = self.start[dst] as usize..self.start[dst + 1] as usize;
                for (&src, &s) in self.sources[edges.clone()].iter().zip(&self.shares[edges]) {
                    sum += rank[src as usize] * s;
                }
                *slot = sum;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, Parts};
    use crate::{Filter, Index};

    /// Packed parts read back as written: steps back and forth between target files, sources
    /// that change and stay, large numbers, every class, weights split or whole; and bytes
    /// cut short or garbled read as something, never a panic.
    #[test]
    fn packed_parts_read_back_as_written() {
        let mut parts = Vec::new();
        let mut r = 0;
        for i in 0..200u32 {
            r += i % 3;
            parts.push(Part {
                r,
                src: if i % 7 < 3 { 0 } else { 1 + i / 7 },
                dst_file: [0, 30_000, 12, 12, u32::MAX >> 4][i as usize % 5],
                dst: [0, 1, 200_000, 5][i as usize % 4],
                class: (i % 9) as u8,
                split: 1 + i % 11,
            });
        }
        let packed: Parts = parts.iter().copied().collect();
        assert_eq!(packed.len(), 200);
        assert_eq!(packed.iter().collect::<Vec<_>>(), parts);
        assert!(packed.bytes.len() < 200 * 9, "{} bytes", packed.bytes.len());
        assert_eq!(parts[4].weight(), 0.5 * 0.5 / 5.0);
        assert!(parts.iter().all(|p| p.guess() == (p.class % 3 != 0)));
        for cut in [1, 7, packed.bytes.len() / 2] {
            let damaged = Parts { bytes: packed.bytes[..cut].to_vec(), len: packed.len };
            assert_eq!(damaged.iter().count(), 200);
        }
        let garbled = Parts { bytes: vec![0xff; 64], len: 50 };
        assert!(garbled.iter().all(|p| p.weight().is_finite() && p.class < 9));
    }

    /// A graph built in batches, each file's scope tables dropped after every two files and
    /// made again when a later file's references need them, is the graph built with one
    /// resolver that keeps them all; the resolver it hands to the snapshot then makes the table
    /// of files referencing a name on first use, the same as one made whole.
    #[test]
    fn a_graph_built_in_batches_is_the_graph_built_at_once() {
        use super::{Resolver, SymbolGraph};
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").canonicalize().unwrap();
        let open = || Index::open(&root, Filter::new(&root, &[]).unwrap(), None).0.snapshot();
        let (kept, batched) = (open(), open());
        let resolver = kept.resolver();
        let at_once = SymbolGraph::build(&kept);
        let in_batches = SymbolGraph::build_in_batches(&batched, 2);
        assert!(batched.files.len() > 20, "{} files", batched.files.len());
        assert!(at_once.n_edges() > 100, "{} edges", at_once.n_edges());
        assert_eq!(in_batches.edges().collect::<Vec<_>>(), at_once.edges().collect::<Vec<_>>());
        let handed = batched.derived.get::<Resolver>().expect("the batches' resolver is the snapshot's");
        for name in ["Cart", "total", "add", "Shape", "main", "no_such_name"] {
            assert_eq!(handed.files_referencing(name), resolver.files_referencing(name), "{name}");
        }
        assert!(!resolver.files_referencing("Cart").is_empty());
    }

    /// The calls the graph holds into each definition of the fixtures (read without resolving
    /// anything again, only in the files joined to the definition's) are the resolver's own
    /// resolved callers of it, found by resolving every reference to its name in every file.
    #[test]
    fn references_to_a_definition_are_the_resolvers_callers() {
        use crate::meaning::Target;
        use crate::symbols::RefKind;
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").canonicalize().unwrap();
        let snapshot = Index::open(&root, Filter::new(&root, &[]).unwrap(), None).0.snapshot();
        let resolver = snapshot.resolver();
        let graph = snapshot.graph();
        let mut checked = 0;
        for (f, path) in graph.files.iter().enumerate() {
            let entry = &snapshot.files[path];
            for d in 0..entry.symbols.defs.len() {
                let file = resolver.file_index(path).unwrap();
                let (resolved, _) = resolver.callers(Target::Def { file, def: d as u32 });
                // The graph keeps no edge from a definition to itself: a recursive call, one in
                // the definition's own lines but none of its children's.
                let defs = &entry.symbols.defs;
                let within =
                    |def: usize, line: u32| (defs.at(def).line..=defs.at(def).end_line).contains(&line);
                let recursive = |line: u32| {
                    within(d, line)
                        && !(0..defs.len()).any(|o| defs.at(o).parent() == Some(d as u32) && within(o, line))
                };
                let mut want: Vec<(String, u32)> = resolved
                    .iter()
                    .filter(|h| !(h.file == file && recursive(h.line)))
                    .map(|h| (resolver.path(h.file).to_string(), h.line))
                    .collect();
                let mut got: Vec<(String, u32)> = graph
                    .references_to(f, d)
                    .into_iter()
                    .filter(|(_, _, share)| *share == super::Share::Resolved)
                    .filter_map(|(g, r, _)| {
                        let p = &graph.files[g as usize];
                        let r = snapshot.files[p].symbols.refs.get(r as usize)?;
                        matches!(r.kind(), RefKind::Call | RefKind::MethodCall).then(|| (p.clone(), r.line))
                    })
                    .collect();
                for list in [&mut want, &mut got] {
                    list.sort();
                    list.dedup();
                }
                assert_eq!(got, want, "{path} {}", entry.symbols.defs.at(d).qualified());
                checked += usize::from(!want.is_empty());
            }
        }
        assert!(checked > 30, "{checked} definitions with callers");
    }

    /// A pytest fixture's node is referenced from the tests and fixtures whose parameters it
    /// fills (the map ranks it by them), not from a function that only shares the name.
    #[test]
    fn a_fixture_is_referenced_from_the_tests_it_fills() {
        use crate::snapshot::Snapshot;
        use crate::test_support::entry as file;
        let snapshot = Snapshot::from_entries(vec![
            file("tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef cart():\n    return []\n"),
            file("tests/test_cart.py", "def test_empty(cart):\n    assert not cart\n"),
            file("app.py", "def total(cart):\n    return sum(cart)\n"),
        ]);
        let graph = snapshot.graph();
        let conftest = graph.file_index("tests/conftest.py").unwrap();
        let users: Vec<(String, u32)> = graph
            .references_to(conftest, 0)
            .into_iter()
            .map(|(f, r, _)| {
                let path = &graph.files[f as usize];
                (path.clone(), snapshot.files[path].symbols.refs.get(r as usize).unwrap().line)
            })
            .collect();
        assert_eq!(users, [("tests/test_cart.py".to_string(), 1), ("tests/test_cart.py".to_string(), 2)]);
    }

    /// A decorator added to a function that keeps its name and signature makes it a fixture:
    /// the graph updated by that change holds the test's edges to it, as one built afresh does.
    #[test]
    fn a_graph_updated_by_a_new_fixture_decorator_holds_the_tests_edges() {
        use super::SymbolGraph;
        use crate::snapshot::Snapshot;
        use crate::test_support::entry;
        use std::sync::Arc;
        let plain = "import pytest\n\ndef cart():\n    return []\n";
        let before = Snapshot::from_entries(vec![
            entry("tests/conftest.py", plain),
            entry("tests/test_cart.py", "def test_empty(cart):\n    assert not cart\n"),
        ]);
        let mut files = before.files.clone();
        let fixture = plain.replace("def cart", "@pytest.fixture\ndef cart");
        files.insert("tests/conftest.py".into(), Arc::new(entry("tests/conftest.py", &fixture)));
        let after = Snapshot::new(files, Default::default(), 1);
        let users = |graph: &SymbolGraph| {
            graph.references_to(graph.file_index("tests/conftest.py").unwrap(), 0).len()
        };
        let old = before.graph();
        assert_eq!(users(&old), 0);
        let updated = SymbolGraph::update(&old, &before, &after).expect("an update of one file");
        let fresh = Snapshot::new(after.files.clone(), Default::default(), 1).graph();
        assert_eq!((users(&updated), users(&fresh)), (2, 2));
    }

    /// A key asked again on one graph (a map of another budget; a focus that names nothing,
    /// which ranks as no focus) gets the ranks it reached there, without iterating; the same key
    /// with other weights is ranked anew.
    #[test]
    fn a_key_asked_again_on_one_graph_takes_the_ranks_it_reached() {
        use super::Personal;
        const KEY: u64 = 7;
        let shop = crate::index::ShopCopy::new();
        let graph = shop.index.snapshot().graph();
        let first = graph.pagerank_keyed(KEY, &Personal::UNIFORM);
        assert!(first.iterations > 0);
        let again = graph.pagerank_keyed(KEY, &Personal::UNIFORM);
        assert_eq!((again.iterations, &again.rank), (0, &first.rank));
        // Another key starts where the first did: the same ranks, iterated.
        let other = graph.pagerank_keyed(KEY + 1, &Personal::UNIFORM);
        assert_eq!((other.iterations, &other.rank), (first.iterations, &first.rank));
        let mut weights = vec![0.0; graph.n_nodes()];
        weights[1] = 1.0;
        let focused = Personal { weights: &weights, boosted: &[], users: &|_| &[] };
        let ranked = graph.pagerank_keyed(KEY, &focused);
        assert!(ranked.iterations > 0 && ranked.rank != first.rank);
        assert_eq!(graph.pagerank_keyed(KEY, &focused).iterations, 0);
    }

    /// The warm starts keep the last focuses' ranks, and the ranks without a focus however many
    /// focuses come after them.
    #[test]
    fn the_ranks_without_a_focus_outlast_any_number_of_focuses() {
        use super::{Reached, WARM_STARTS, WarmStarts};
        use std::sync::Arc;
        let reached = |personal: Option<Vec<(u32, f64)>>| {
            Arc::new(Reached {
                node_base: Arc::new(vec![0, 1]),
                rank: Arc::new(vec![1.0]),
                personal,
                boosted: Vec::new(),
                out: Vec::new(),
                scale: 1.0,
                residual: 0.0,
            })
        };
        let mut starts = WarmStarts::default();
        starts.put(1, reached(Some(vec![(0, 1.0)])));
        starts.put(0, reached(None));
        for key in 2..2 + 3 * WARM_STARTS as u64 {
            starts.put(key, reached(Some(vec![(0, 1.0)])));
        }
        assert!(starts.get(0).is_some_and(|r| r.personal.is_none()));
        assert!(starts.get(1).is_none() && starts.get(2).is_none());
        assert!(
            (2 + 3 * WARM_STARTS as u64 - (WARM_STARTS as u64 - 1)..2 + 3 * WARM_STARTS as u64)
                .all(|k| starts.get(k).is_some())
        );
        assert_eq!(starts.0.len(), WARM_STARTS);
    }

    /// A file with more references than one run resolves them in runs side by side: the parts
    /// are those of one run over them all, in reference order, each numbered as its reference.
    #[test]
    fn a_large_files_references_resolved_in_runs_are_resolved_as_in_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("shapes.py"), "class Shape:\n    def area(self):\n        return 0\n")
            .unwrap();
        let calls: String = (0..1500)
            .map(|i| format!("def f{i}(s: Shape):\n    return s.area() + f{}(s)\n", i / 2))
            .collect();
        std::fs::write(root.join("many.py"), format!("from shapes import Shape\n{calls}")).unwrap();
        let snapshot = Index::open(&root, Filter::new(&root, &[]).unwrap(), None).0.snapshot();
        let resolver = snapshot.resolver();
        let file = snapshot.files.keys().position(|p| p == "many.py").unwrap() as u32;
        let refs = &resolver.entry(file).symbols.refs;
        assert!(refs.len() > 3 * super::REFS_PER_RUN, "{} references", refs.len());
        let mut one_run = Vec::new();
        for (i, r) in refs.iter().enumerate() {
            super::resolve_parts(&resolver, file, (i as u32, &r), &mut one_run);
        }
        let in_runs: Vec<_> = super::file_out(&resolver, file, false).parts.iter().collect();
        assert!(
            in_runs.len() > 3000 && in_runs.iter().any(|p| p.dst_file != file),
            "{} parts",
            in_runs.len()
        );
        assert_eq!(in_runs, one_run);
    }

    /// An edit that leaves every edge as it was keeps the edges as laid out; one that adds an
    /// edge lays them out again.
    #[test]
    fn an_edit_that_leaves_the_edges_keeps_them_laid_out() {
        let shop = crate::index::ShopCopy::new();
        let before = shop.index.snapshot();
        before.graph().csr();
        let edit = |from: &str, to: &str| shop.edit("shop/pricing.py", |text| text.replace(from, to));
        let literal = edit("amount * (1 + TAX_RATE)", "amount * (2 + TAX_RATE)");
        assert!(literal.graph().shares_edges_with(&before.graph()));
        let call = edit("amount * (2 + TAX_RATE)", "apply_discount(amount, None) * (2 + TAX_RATE)");
        assert!(!call.graph().shares_edges_with(&literal.graph()));
        assert!(call.graph().n_edges() > literal.graph().n_edges());
    }

    /// A cold start's iterations, read by target on every core, give the ranks of adding each
    /// source's shares to its targets, to the last bit and in as many iterations.
    #[test]
    fn ranks_pulled_by_target_are_the_ranks_pushed_by_source() {
        // Three tasks' worth of nodes, each with up to six targets (some none: dangling).
        let n = 3 * super::NODES_PER_TASK + 17;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut starts, mut targets, mut weights) = (vec![0usize], Vec::new(), Vec::new());
        for _ in 0..n {
            let mut row: Vec<u32> = (0..next() % 7).map(|_| (next() % n as u64) as u32).collect();
            row.sort_unstable();
            row.dedup();
            weights.extend(row.iter().map(|_| (1 + next() % 5) as f32));
            targets.extend(row);
            starts.push(targets.len());
        }
        let row = |src: u32| {
            let (from, to) = (starts[src as usize], starts[src as usize + 1]);
            (&targets[from..to], &weights[from..to])
        };
        let boost = |_: u32, dst: u32, w: f32| if dst.is_multiple_of(7) { w as f64 * 10.0 } else { w as f64 };
        let mut focused = vec![0.0; n];
        for u in (0..n).step_by(11) {
            focused[u] = 1.0 / n.div_ceil(11) as f64;
        }
        for p in [vec![1.0 / n as f64; n], focused] {
            let pulled = super::power(n, row, |i| i, p.clone(), &boost, None, 0);
            // A start at the personalization with every share listed: the iteration by source.
            let pushed = super::power(n, row, |i| i, p.clone(), &boost, Some(p), 0);
            assert!(pulled.iterations > 5, "{} iterations", pulled.iterations);
            assert_eq!(
                (pulled.iterations, pulled.delta.to_bits()),
                (pushed.iterations, pushed.delta.to_bits())
            );
            assert!(pulled.rank.iter().zip(&pushed.rank).all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    /// A cold start whose personalization reaches few nodes iterates over those alone and gives
    /// the ranks of the iteration over every node, to the last bit; one that reaches most nodes
    /// iterates over all of them.
    #[test]
    fn a_focus_that_reaches_few_nodes_gives_the_ranks_of_all() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/py_shop");
        let (index, _) = Index::open(&root.canonicalize().unwrap(), Filter::new(&root, &[]).unwrap(), None);
        let graph = index.snapshot().graph();
        let n = graph.n_nodes();
        let focus = |_: u32, dst: u32, w: f32| if dst.is_multiple_of(3) { w as f64 * 10.0 } else { w as f64 };
        let every = |personalization: &[f64]| {
            let total: f64 = personalization.iter().sum();
            let p = personalization.iter().map(|v| v / total).collect();
            let csr = graph.csr();
            let row = |src: u32| (csr.neighbors_slice(src), csr.edges_slice(src));
            super::power(n, row, |i| i, p, &focus, None, 0)
        };
        // The nodes with edges and no users lead into the rest; some reach only a few.
        let mut reaches: Vec<(usize, u32)> = (0..n as u32)
            .filter_map(|u| {
                let mut p = vec![0.0; n];
                p[u as usize] = 1.0;
                graph.reached_from(&p, n).map(|r| (r.nodes.len(), u))
            })
            .collect();
        reaches.sort_unstable();
        let (few, small) = *reaches.iter().find(|(len, _)| *len > 2).expect("a node reaching a few");
        assert!(few < n / 2, "{few} of {n} nodes reached");
        let mut personalization = vec![0.0; n];
        personalization[small as usize] = 1.0;
        let ranks = graph.iterate(&personalization, &focus, None, 0);
        assert!(ranks.iterations > 1, "{} iterations", ranks.iterations);
        assert_eq!(ranks, every(&personalization));
        assert_eq!(ranks.rank.iter().filter(|r| **r > 0.0).count(), few);
        // Everything at once: no shortcut.
        let all = vec![1.0; n];
        assert!(graph.reached_from(&all, n / 2).is_none());
        assert_eq!(graph.iterate(&all, &focus, None, 0), every(&all));
    }

    /// Folding an edit into the ranks of the graph before is one iteration of `y = p + d·M·y` on
    /// the graph after, from the ranks before: checked against that iteration over every edge,
    /// unfocused and with a focus whose boosted definitions the edit adds and calls.
    #[test]
    fn folding_an_edit_in_is_one_iteration_over_every_edge() {
        use super::{BOOST, DAMPING, Personal, SymbolGraph};
        const KEY: u64 = 3;
        let focus = |g: &SymbolGraph| -> (Vec<f64>, Vec<u32>, Vec<Vec<u32>>) {
            let f = g.file_index("shop/pricing.py").unwrap();
            let mut weights = vec![0.0; g.n_nodes()];
            for node in g.file_node(f)..g.file_node(f + 1) {
                weights[node as usize] = 0.25;
            }
            let mut boosted = Vec::new();
            for (f, entry) in g.entries.iter().enumerate() {
                for (d, def) in entry.symbols.defs.iter().enumerate() {
                    if matches!(def.name(), "surcharge" | "apply_discount") {
                        boosted.push(g.def_node(f, d));
                    }
                }
            }
            let mut users = vec![Vec::new(); g.n_nodes()];
            for (src, dst, _) in g.edges() {
                users[dst as usize].push(src);
            }
            (weights, boosted, users)
        };
        for focused in [false, true] {
            let shop = crate::index::ShopCopy::new();
            let old = shop.index.snapshot().graph();
            let (weights, boosted, users) = focus(&old);
            let personal = |(weights, boosted, users): &(Vec<f64>, Vec<u32>, Vec<Vec<u32>>),
                            run: &dyn Fn(&Personal)| {
                let users = |u: u32| users[u as usize].as_slice();
                match focused {
                    true => run(&Personal { weights, boosted, users: &users }),
                    false => run(&Personal::UNIFORM),
                }
            };
            personal(&(weights, boosted, users), &|p| {
                old.pagerank_keyed(KEY, p);
            });
            // Before `apply_discount`, so the definitions after it are numbered anew.
            let after = shop.edit("shop/pricing.py", |text| {
                let added = "def surcharge(amount):\n    return with_tax(apply_discount(amount, None))\n\n\n";
                text.replace("def apply_discount", &format!("{added}def apply_discount"))
            });
            let new = after.graph();
            let from = new.warm_from.get(KEY).expect("the key's ranks before");
            let looked = focus(&new);
            assert!(!focused || looked.1.len() > 1, "surcharge and apply_discount boosted");
            personal(&looked, &|p| {
                let (y, step, _) = new.fold(&from, p, !focused).expect("one file changed");
                // The same iteration over every edge of the graph after.
                let n = new.n_nodes();
                let mut start = vec![0.0; n];
                for f in 0..new.files.len() {
                    let (o, m) = (from.node_base[f] as usize, new.node_base[f] as usize);
                    let keep = (from.node_base[f + 1] as usize - o).min(new.node_base[f + 1] as usize - m);
                    for i in 0..keep {
                        start[m + i] = from.rank[o + i] * from.scale;
                    }
                }
                let mut expected: Vec<f64> = if focused { p.weights.to_vec() } else { vec![1.0; n] };
                let weight = |dst: u32, w: f32| w as f64 * if p.boosted.contains(&dst) { BOOST } else { 1.0 };
                let edges: Vec<(u32, u32, f32)> = new.edges().collect();
                for run in edges.chunk_by(|a, b| a.0 == b.0) {
                    let flow: f64 = run.iter().map(|&(_, dst, w)| weight(dst, w)).sum();
                    for &(src, dst, w) in run {
                        expected[dst as usize] += DAMPING * weight(dst, w) / flow * start[src as usize];
                    }
                }
                let total: f64 = expected.iter().sum();
                let off: f64 = y.iter().zip(&expected).map(|(a, b)| (a - b).abs()).sum::<f64>() / total;
                assert!(off < 1e-8, "focused {focused}: {off} off the iteration");
                assert!(step > 1e-4, "focused {focused}: the edit moved the ranks ({step})");
            });
        }
    }

    /// A warm start's shares worked out where they are used give the ranks that listing them
    /// gives, to the last bit, whenever the listing starts.
    #[test]
    fn shares_worked_out_in_place_give_the_listed_shares_ranks() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/py_shop");
        let root = root.canonicalize().unwrap();
        let (index, _) = Index::open(&root, Filter::new(&root, &[]).unwrap(), None);
        let graph = index.snapshot().graph();
        let n = graph.n_nodes();
        assert!(graph.n_edges() > 20, "{} edges", graph.n_edges());
        let focus = |_: u32, dst: u32, w: f32| if dst.is_multiple_of(3) { w as f64 * 10.0 } else { w as f64 };
        let mut personalization = vec![0.0; n];
        personalization[1] = 1.0;
        // Somewhere off the fixed point, as after an edit.
        let start: Vec<f64> = (0..n).map(|i| (1 + i % 5) as f64 / n as f64 / 3.0).collect();
        let listed = graph.iterate(&personalization, &focus, Some(start.clone()), 0);
        assert!(listed.iterations > 3, "{} iterations", listed.iterations);
        for unlisted in [1, 2, 3, 100] {
            let in_place = graph.iterate(&personalization, &focus, Some(start.clone()), unlisted);
            assert_eq!(in_place, listed, "the first {unlisted} iterations in place");
        }
    }
}

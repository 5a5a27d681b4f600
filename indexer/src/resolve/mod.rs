//! Name resolution over a [`Snapshot`]: which definition a name at a position means, and which
//! references mean a definition. Built once per snapshot generation; each file's scope table is
//! built on first use. A name bound by the language's rules is `resolved`; a name whose receiver
//! cannot be typed gets the same-named definitions as `candidates`, never as resolved.
//!
//! This file builds and updates a [`Resolver`] and its per-file tables; `lookup` binds one
//! reference, `queries` answers what the tools ask, and `callbacks` is what the languages'
//! tables call back (`meaning::Binder`).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::lang::{LANGUAGES, N_LANGS, module_roots};
use crate::meaning::{Bound, Entry, Tables, Target, Value};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::{FileEntry, Lang, Snapshot};
use crate::symbols::{DefRef, FileSymbols, innermost_scope};

/// The identity references are compared by: every binding of one variable is the same variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Def(u32, u32),
    Module(u32),
    Var(u32, u32, String),
    Import(u32, u32),
}

/// One file's lookup tables, built on first use.
pub(crate) struct FileCtx {
    /// Every name id, sorted by its text: the file's `names`, then the definition names that
    /// are not among them (ids from `names.len()` on, see `extra`). A lookup is a binary
    /// search; no name is copied (a map of owned names cost ~250 MB at 30,000 files).
    by_text: Narrow,
    /// For id `names.len() + i`, the definition whose name it is.
    extra: Narrow,
    /// Sorted by (scope, name, position).
    entries: Vec<Entry>,
    /// For each definition, the scope that is its body ([`NONE`] when it has none).
    pub(crate) own_scope: Narrow,
    /// For each definition, the scope its name is bound in ([`NONE`]: reached only through its
    /// type, like a Rust method).
    pub(crate) def_scope: Narrow,
    /// Each class's inheritance references, in order, by class: a member lookup walks a
    /// class's bases at every step, and found them by decoding every reference of the file.
    bases: Vec<(u32, crate::symbols::Ref)>,
    /// (parent, child) for every nested definition, in order.
    children: Vec<(u32, u32)>,
}

/// Name resolution over one snapshot.
pub struct Resolver {
    files: Vec<Arc<FileEntry>>,
    by_path: Arc<HashMap<String, u32>>,
    ctx: Vec<OnceLock<Arc<FileCtx>>>,
    /// Definitions by name: (file, def).
    defs_by_name: NameTable<(u32, u32)>,
    /// Python class-body bindings by name (attributes): (file, binding).
    attrs_by_name: NameTable<(u32, u32)>,
    /// The definitions that provide to parameters of their name ([`Def::provides`], pytest's
    /// fixtures), by name: a parameter's use looks only here, so a name no fixture has costs
    /// one lookup.
    ///
    /// [`Def::provides`]: crate::symbols::Def::provides
    providers_by_name: NameTable<(u32, u32)>,
    /// The files whose references include a name: only updates and `references` read it, so
    /// a graph built whole with a resolver of its own leaves it to first use (24 MB at 30,000
    /// files, at the peak of a cold index).
    files_by_ref: OnceLock<NameTable<u32>>,
    /// Each language's tables, indexed by `Lang as usize`.
    tables: [Arc<dyn Tables>; N_LANGS],
}

/// Files changed since the tables were last built whole beyond which an update rebuilds them.
const MAX_STALE_FILES: usize = 64;

/// Entries by name, in file order: the tables of the last full build, and for the files that
/// changed since (`stale`), their entries now. A lookup merges the two in file order, so an
/// updated table answers as a rebuilt one would.
struct NameTable<V> {
    base: Arc<Packed<V>>,
    stale: Arc<rustc_hash::FxHashSet<u32>>,
    fresh: HashMap<String, Vec<V>>,
}

/// The file an entry belongs to.
trait InFile: Copy + Ord + Default {
    fn file(self) -> u32;
}

impl InFile for u32 {
    fn file(self) -> u32 {
        self
    }
}

impl InFile for (u32, u32) {
    fn file(self) -> u32 {
        self.0
    }
}

impl<V: InFile> NameTable<V> {
    fn whole(base: Packed<V>) -> Self {
        Self { base: Arc::new(base), stale: Default::default(), fresh: HashMap::new() }
    }

    fn get(&self, name: &str) -> std::borrow::Cow<'_, [V]> {
        let base = self.base.get(name);
        let fresh = self.fresh.get(name).map_or(&[][..], Vec::as_slice);
        if fresh.is_empty() && !base.iter().any(|v| self.stale.contains(&v.file())) {
            return std::borrow::Cow::Borrowed(base);
        }
        let mut out: Vec<V> = base.iter().copied().filter(|v| !self.stale.contains(&v.file())).collect();
        out.extend_from_slice(fresh);
        out.sort_unstable();
        std::borrow::Cow::Owned(out)
    }
}

/// Entries by name, packed: the names end to end in one string, a hash index of them, and each
/// name's entries a run of one list. At 30,000 files the three tables have a million names;
/// a map of owned names to vectors cost about 100 bytes a name more.
struct Packed<V> {
    text: String,
    /// Where name `k` ends in `text`.
    ends: Vec<u32>,
    /// Name `k`'s entries are `values[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    values: Vec<V>,
    /// Name numbers by the hash of their text.
    index: hashbrown::HashTable<u32>,
}

fn hash_name(name: &str) -> u64 {
    use std::hash::BuildHasher as _;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// A [`Packed`] table being filled: each name's text goes straight into the table's one string
/// when first met, and the values are numbered by name; nothing else is kept per entry (a list
/// of every (name, value) first cost about 120 MB more at 30,000 files, the peak of a cold
/// index).
struct PackedBuilder<V> {
    text: String,
    ends: Vec<u32>,
    index: hashbrown::HashTable<u32>,
    /// (name number, value), in the order given.
    keyed: Vec<(u32, V)>,
}

/// Name `k` of a table whose names end at `ends` in `text`.
fn name_at<'a>(text: &'a str, ends: &[u32], k: u32) -> &'a str {
    let start = k.checked_sub(1).map_or(0, |before| ends[before as usize] as usize);
    &text[start..ends[k as usize] as usize]
}

impl<V: InFile> PackedBuilder<V> {
    fn new() -> Self {
        Self { text: String::new(), ends: Vec::new(), index: hashbrown::HashTable::new(), keyed: Vec::new() }
    }

    fn push(&mut self, name: &str, value: V) {
        let (text, ends) = (&self.text, &self.ends);
        let entry = self.index.entry(
            hash_name(name),
            |&k| name_at(text, ends, k) == name,
            |&k| hash_name(name_at(text, ends, k)),
        );
        let k = match entry {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let k = self.ends.len() as u32;
                slot.insert(k);
                self.text.push_str(name);
                self.ends.push(self.text.len() as u32);
                k
            }
        };
        self.keyed.push((k, value));
    }

    /// The table: each name's values in the order they were given.
    fn finish(self) -> Packed<V> {
        let PackedBuilder { mut text, mut ends, mut index, keyed } = self;
        // A counting sort by name number: stable, so each name's values stay in order.
        let mut starts = vec![0u32; ends.len() + 1];
        for &(id, _) in &keyed {
            starts[id as usize + 1] += 1;
        }
        for k in 0..ends.len() {
            starts[k + 1] += starts[k];
        }
        let mut fill = starts.clone();
        let mut values = vec![V::default(); keyed.len()];
        for (id, value) in keyed {
            values[fill[id as usize] as usize] = value;
            fill[id as usize] += 1;
        }
        text.shrink_to_fit();
        ends.shrink_to_fit();
        index.shrink_to_fit(|&k| hash_name(name_at(&text, &ends, k)));
        Packed { text, ends, starts, values, index }
    }
}

impl<V: InFile> Packed<V> {
    fn name(&self, k: u32) -> &str {
        name_at(&self.text, &self.ends, k)
    }

    /// The values of `name`, in the order given.
    fn get(&self, name: &str) -> &[V] {
        match self.index.find(hash_name(name), |&k| self.name(k) == name) {
            Some(&k) => &self.values[self.starts[k as usize] as usize..self.starts[k as usize + 1] as usize],
            None => &[],
        }
    }
}

/// Calls `def` and `attr` with file `i`'s entries of the two tables of what is defined: each
/// definition, each binding in a class body (Python attributes).
fn each_defined_name<'a>(
    i: u32,
    symbols: &'a crate::symbols::FileSymbols,
    mut def: impl FnMut(&'a str, (u32, u32)),
    mut attr: impl FnMut(&'a str, (u32, u32)),
) {
    for (d, definition) in symbols.defs.iter().enumerate() {
        def(definition.name(), (i, d as u32));
    }
    for (b, binding) in symbols.bindings.iter().enumerate() {
        let in_class = symbols.scopes.get(binding.scope as usize).is_some_and(|s| s.kind == ScopeKind::Class);
        if in_class {
            attr(symbols.text(binding.name), (i, b as u32));
        }
    }
}

/// Calls `reference` with each name file `i`'s references use, once.
fn each_referenced_name<'a>(
    i: u32,
    symbols: &'a crate::symbols::FileSymbols,
    mut reference: impl FnMut(&'a str, u32),
) {
    let mut seen = vec![false; symbols.names.len()];
    for r in &symbols.refs {
        if !std::mem::replace(&mut seen[r.name as usize], true) {
            reference(symbols.ref_name(&r), i);
        }
    }
}

/// Every file with its file scope; one the index did not parse (too large) gets it here.
fn with_file_scopes(snapshot: &Snapshot) -> Vec<Arc<FileEntry>> {
    snapshot
        .files
        .values()
        .map(|entry| {
            if !entry.symbols.scopes.is_empty() {
                return entry.clone();
            }
            let mut entry = (**entry).clone();
            entry.symbols.scopes.push(crate::names::Scope {
                kind: ScopeKind::File,
                start: Pos::new(0, 0),
                end: Pos::new(u32::MAX, 0),
                parent: NONE,
                def: NONE,
            });
            Arc::new(entry)
        })
        .collect()
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver").field("files", &self.files.len()).finish_non_exhaustive()
    }
}

impl Snapshot {
    /// Name resolution for this snapshot, built on first use and shared by later queries.
    pub fn resolver(&self) -> Arc<Resolver> {
        self.derived.get_or_init(|| Resolver::new(self))
    }
}

impl Resolver {
    pub fn new(snapshot: &Snapshot) -> Resolver {
        let resolver = Self::for_resolving(snapshot);
        resolver.files_by_ref();
        resolver
    }

    /// A resolver whose table of the files referencing each name is made on first use.
    pub(crate) fn for_resolving(snapshot: &Snapshot) -> Resolver {
        let files = with_file_scopes(snapshot);
        let by_path = files.iter().enumerate().map(|(i, f)| (f.path.clone(), i as u32)).collect();
        let (mut defs, mut attrs, mut providers) =
            (PackedBuilder::new(), PackedBuilder::new(), PackedBuilder::new());
        for (i, file) in files.iter().enumerate() {
            each_defined_name(
                i as u32,
                &file.symbols,
                |name, v| {
                    if file.symbols.defs[v.1 as usize].provides() {
                        providers.push(name, v);
                    }
                    defs.push(name, v)
                },
                |name, v| attrs.push(name, v),
            );
        }
        let (defs_by_name, attrs_by_name) = (defs.finish(), attrs.finish());
        let tables = std::array::from_fn(|i| {
            LANGUAGES[i].tables_with(&files, &module_roots(&snapshot.texts, LANGUAGES[i].spec().lang))
        });
        Resolver {
            ctx: (0..files.len()).map(|_| OnceLock::new()).collect(),
            files,
            by_path: Arc::new(by_path),
            defs_by_name: NameTable::whole(defs_by_name),
            attrs_by_name: NameTable::whole(attrs_by_name),
            providers_by_name: NameTable::whole(providers.finish()),
            files_by_ref: OnceLock::new(),
            tables,
        }
    }

    /// The files whose references include each name, made whole when first asked for.
    fn files_by_ref(&self) -> &NameTable<u32> {
        self.files_by_ref.get_or_init(|| {
            let mut refs = PackedBuilder::new();
            for (i, file) in self.files.iter().enumerate() {
                each_referenced_name(i as u32, &file.symbols, |name, v| refs.push(name, v));
            }
            NameTable::whole(refs.finish())
        })
    }

    /// The resolver of `snapshot` made from `previous` (the resolver of `before`): the name
    /// tables are kept and the changed files' entries laid over them, module tables and the
    /// contexts of unchanged files are shared. `None` when a full build is due (files added
    /// or removed, or too many changed since the last one).
    pub fn update(previous: &Resolver, before: &Snapshot, snapshot: &Snapshot) -> Option<Resolver> {
        let changed = crate::snapshot::changed_between(before, snapshot)?;
        let mut stale: rustc_hash::FxHashSet<u32> = (*previous.defs_by_name.stale).clone();
        stale.extend(&changed);
        if stale.len() > MAX_STALE_FILES {
            return None;
        }
        let files = with_file_scopes(snapshot);
        let mut stale_files: Vec<u32> = stale.iter().copied().collect();
        stale_files.sort_unstable();
        let (mut defs, mut attrs, mut refs, mut providers) = (
            HashMap::<String, Vec<_>>::new(),
            HashMap::<String, Vec<_>>::new(),
            HashMap::<String, Vec<_>>::new(),
            HashMap::<String, Vec<_>>::new(),
        );
        let previous_refs = previous.files_by_ref.get();
        for &i in &stale_files {
            let symbols = &files[i as usize].symbols;
            each_defined_name(
                i,
                symbols,
                |name, v| {
                    if symbols.defs[v.1 as usize].provides() {
                        providers.entry(name.to_string()).or_default().push(v);
                    }
                    defs.entry(name.to_string()).or_default().push(v)
                },
                |name, v| attrs.entry(name.to_string()).or_default().push(v),
            );
            if previous_refs.is_some() {
                each_referenced_name(i, symbols, |name, v| refs.entry(name.to_string()).or_default().push(v));
            }
        }
        let stale = Arc::new(stale);
        let table =
            |base: &NameTable<_>, fresh| NameTable { base: base.base.clone(), stale: stale.clone(), fresh };
        let is_changed = |i: usize| changed.binary_search(&(i as u32)).is_ok();
        Some(Resolver {
            ctx: previous
                .ctx
                .iter()
                .enumerate()
                .map(|(i, ctx)| match ctx.get() {
                    Some(ctx) if !is_changed(i) => OnceLock::from(ctx.clone()),
                    _ => OnceLock::new(),
                })
                .collect(),
            by_path: previous.by_path.clone(),
            defs_by_name: table(&previous.defs_by_name, defs),
            attrs_by_name: table(&previous.attrs_by_name, attrs),
            providers_by_name: table(&previous.providers_by_name, providers),
            // Not made yet before: made whole from these files when first asked for.
            files_by_ref: match previous_refs {
                Some(table) => {
                    OnceLock::from(NameTable { base: table.base.clone(), stale: stale.clone(), fresh: refs })
                }
                None => OnceLock::new(),
            },
            tables: std::array::from_fn(|i| {
                // A manifest changed: the modules it declares are read again.
                let lang = LANGUAGES[i].spec().lang;
                let roots = module_roots(&snapshot.texts, lang);
                let kept = if roots == module_roots(&before.texts, lang) {
                    previous.tables[i].clone().updated(&previous.files, &files, &changed)
                } else {
                    None
                };
                kept.unwrap_or_else(|| LANGUAGES[i].tables_with(&files, &roots))
            }),
            files,
        })
    }

    /// Drops every file's scope table (made again on next use).
    pub(crate) fn forget_file_tables(&mut self) {
        for ctx in &mut self.ctx {
            ctx.take();
        }
    }

    pub fn n_files(&self) -> usize {
        self.files.len()
    }

    /// The module files a file's top-level glob imports bring in (`use a::*`,
    /// `from .x import *`), where they are in the repository.
    pub(crate) fn glob_modules(&self, file: u32) -> Vec<u32> {
        let symbols = self.symbols(file);
        symbols
            .imports
            .iter()
            .filter(|i| i.glob && i.scope == 0)
            .filter_map(|i| match self.tables(file).glob_base(self, file, 0, symbols.text(i.module), 0) {
                Some(Value::Module(m, NONE)) if m != file => Some(m),
                _ => None,
            })
            .collect()
    }

    /// The files whose references include `name`, in file order.
    /// Every definition named `name`, as (file, definition), in file order.
    pub(crate) fn defs_named(&self, name: &str) -> std::borrow::Cow<'_, [(u32, u32)]> {
        self.defs_by_name.get(name)
    }

    pub(crate) fn files_referencing(&self, name: &str) -> std::borrow::Cow<'_, [u32]> {
        self.files_by_ref().get(name)
    }

    pub fn path(&self, file: u32) -> &str {
        &self.files[file as usize].path
    }

    pub fn file_index(&self, path: &str) -> Option<u32> {
        self.by_path.get(path).copied()
    }

    pub fn entry(&self, file: u32) -> &FileEntry {
        &self.files[file as usize]
    }

    pub(crate) fn symbols(&self, file: u32) -> &FileSymbols {
        &self.files[file as usize].symbols
    }

    pub(crate) fn lang(&self, file: u32) -> Lang {
        self.files[file as usize].lang
    }

    /// The tables of a file's language.
    fn tables(&self, file: u32) -> &dyn Tables {
        &*self.tables[self.lang(file) as usize]
    }

    pub(crate) fn def(&self, file: u32, def: u32) -> DefRef<'_> {
        self.symbols(file).defs.at(def as usize)
    }

    pub(crate) fn ctx(&self, file: u32) -> &FileCtx {
        self.ctx[file as usize].get_or_init(|| Arc::new(FileCtx::build(self.lang(file), self.symbols(file))))
    }

    /// The name's id in `file`, if the file has it at all.
    pub(crate) fn name_id(&self, file: u32, name: &str) -> Option<u32> {
        self.ctx(file).name_id(self.symbols(file), name)
    }
}

impl FileCtx {
    fn build(lang: Lang, symbols: &FileSymbols) -> FileCtx {
        // Definition names need not be among the file's names (nothing in the file may refer
        // to them); they get ids after the names'.
        let mut by_text: Vec<u32> = (0..symbols.names.len() as u32).collect();
        by_text.sort_unstable_by(|&a, &b| symbols.names[a].cmp(&symbols.names[b]));
        // The first definition of each name the names lack, numbered in definition order.
        let name = |d: &u32| symbols.defs.at(*d as usize).name();
        let mut extra: Vec<u32> = (0..symbols.defs.len() as u32)
            .filter(|d| by_text.binary_search_by(|&id| symbols.names[id].cmp(name(d))).is_err())
            .collect();
        extra.sort_by(|a, b| name(a).cmp(name(b)).then(a.cmp(b)));
        extra.dedup_by(|later, first| name(later) == name(first));
        extra.sort_unstable();
        let extra_ids = (0..extra.len() as u32).map(|i| symbols.names.len() as u32 + i);
        by_text.extend(extra_ids);
        let extra = Narrow::new(extra);
        let text = |id: u32| -> &str { text_of(symbols, &extra, id) };
        by_text.sort_unstable_by(|&a, &b| text(a).cmp(text(b)));
        let by_text = Narrow::new(by_text);
        let mut own_scope = vec![NONE; symbols.defs.len()];
        for (i, scope) in symbols.scopes.iter().enumerate() {
            if scope.def != NONE {
                own_scope[scope.def as usize] = i as u32;
            }
        }
        let mut def_scope = vec![NONE; symbols.defs.len()];
        let language = lang.language();
        for (i, def) in symbols.defs.iter().enumerate() {
            let reachable_by_name = language.bound_by_name(symbols, &own_scope, def);
            if !reachable_by_name {
                continue;
            }
            // The innermost scope around the definition other than its own: a parent's body, or
            // a block, a callback or another function expression that is no definition.
            let mut scope = innermost_scope(&symbols.scopes, Pos::new(def.line, 1));
            while scope != NONE && scope == own_scope[i] {
                scope = symbols.scopes[scope as usize].parent;
            }
            def_scope[i] = if scope == NONE { 0 } else { scope };
        }
        let mut entries: Vec<Entry> = Vec::new();
        for (i, def) in symbols.defs.iter().enumerate() {
            if def_scope[i] == NONE {
                continue;
            }
            let name =
                position_of(symbols, &extra, &by_text, def.name()).expect("every definition name has an id");
            entries.push(Entry::new(def_scope[i], name, Bound::Def(i as u32)));
        }
        for (i, b) in symbols.bindings.iter().enumerate() {
            entries.push(Entry::new(b.scope, b.name, Bound::Binding(i as u32)));
        }
        for (i, import) in symbols.imports.iter().enumerate() {
            if import.bound != NONE {
                entries.push(Entry::new(import.scope, import.bound, Bound::Import(i as u32)));
            }
        }
        entries.sort_by_key(|e| (e.scope, e.name, e.pos(symbols)));
        entries.shrink_to_fit();
        let mut bases: Vec<(u32, crate::symbols::Ref)> = symbols
            .refs
            .iter()
            .filter(|r| r.kind() == crate::symbols::RefKind::Inheritance)
            .filter_map(|r| Some((r.enclosing()?, r)))
            .collect();
        bases.sort_by_key(|&(class, _)| class);
        bases.shrink_to_fit();
        let mut children: Vec<(u32, u32)> =
            symbols.defs.iter().enumerate().filter_map(|(d, def)| Some((def.parent()?, d as u32))).collect();
        children.sort_unstable();
        children.shrink_to_fit();
        FileCtx {
            by_text,
            extra,
            entries,
            own_scope: Narrow::new(own_scope),
            def_scope: Narrow::new(def_scope),
            bases,
            children,
        }
    }

    /// The inheritance references of class `class`, in order.
    pub(crate) fn bases_of(&self, class: u32) -> impl Iterator<Item = &crate::symbols::Ref> {
        let start = self.bases.partition_point(|&(c, _)| c < class);
        self.bases[start..].iter().take_while(move |&&(c, _)| c == class).map(|(_, r)| r)
    }

    /// The definitions directly inside `def`, in order.
    pub(crate) fn children_of(&self, def: u32) -> impl Iterator<Item = u32> + '_ {
        let start = self.children.partition_point(|&(p, _)| p < def);
        self.children[start..].iter().take_while(move |&&(p, _)| p == def).map(|&(_, d)| d)
    }

    /// The id of `name` in the file of `symbols` (the file this context was built from).
    fn name_id(&self, symbols: &FileSymbols, name: &str) -> Option<u32> {
        position_of(symbols, &self.extra, &self.by_text, name)
    }

    pub(crate) fn entries_of(&self, scope: u32, name: u32) -> &[Entry] {
        let start = self.entries.partition_point(|e| (e.scope, e.name) < (scope, name));
        let end = self.entries.partition_point(|e| (e.scope, e.name) <= (scope, name));
        &self.entries[start..end]
    }
}

/// The text of name id `id`: a name of the file, or past them a definition's name.
fn text_of<'a>(symbols: &'a FileSymbols, extra: &Narrow, id: u32) -> &'a str {
    match symbols.names.get(id) {
        Some(name) => name,
        None => symbols.defs.at(extra.at(id as usize - symbols.names.len()) as usize).name(),
    }
}

/// The id whose text is `name`, in ids sorted by text.
fn position_of(symbols: &FileSymbols, extra: &Narrow, by_text: &Narrow, name: &str) -> Option<u32> {
    let (mut low, mut high) = (0, by_text.len());
    while low < high {
        let mid = low + (high - low) / 2;
        let id = by_text.at(mid);
        match text_of(symbols, extra, id).cmp(name) {
            std::cmp::Ordering::Less => low = mid + 1,
            std::cmp::Ordering::Greater => high = mid,
            std::cmp::Ordering::Equal => return Some(id),
        }
    }
    None
}

/// A list of numbers in 16 bits each when every one fits ([`NONE`] kept as itself), else in 32:
/// a file's scope table keeps four lists of name ids, definitions and scopes for the
/// snapshot's life, and nearly every file's fit (a workspace of 30,000 files: 31 MB in 32 bits).
#[derive(Debug)]
pub(crate) enum Narrow {
    Short(Box<[u16]>),
    Long(Box<[u32]>),
}

impl Narrow {
    fn new(numbers: Vec<u32>) -> Narrow {
        if numbers.iter().all(|&n| n == NONE || n < u32::from(u16::MAX)) {
            Narrow::Short(numbers.iter().map(|&n| if n == NONE { u16::MAX } else { n as u16 }).collect())
        } else {
            Narrow::Long(numbers.into_boxed_slice())
        }
    }

    pub(crate) fn at(&self, i: usize) -> u32 {
        match self {
            Narrow::Short(numbers) => match numbers[i] {
                u16::MAX => NONE,
                n => u32::from(n),
            },
            Narrow::Long(numbers) => numbers[i],
        }
    }

    fn len(&self) -> usize {
        match self {
            Narrow::Short(numbers) => numbers.len(),
            Narrow::Long(numbers) => numbers.len(),
        }
    }
}

pub(super) fn dedup(targets: impl IntoIterator<Item = Target>) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in targets {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

mod callbacks;
mod lookup;
mod queries;

pub use queries::{AtPosition, Hit, Relation, Resolution};

#[cfg(test)]
mod cycle_tests;
#[cfg(test)]
mod tests;

//! Name resolution over a [`Snapshot`]: which definition a name at a position means, and which
//! references mean a definition. Built once per snapshot generation; each file's scope table is
//! built on first use. A name bound by the language's rules is `resolved`; a name whose receiver
//! cannot be typed gets the same-named definitions as `candidates`, never as resolved.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};

use crate::lang::{LANGUAGES, N_LANGS};
use crate::meaning::{Bound, Entry, Found, MAX_DEPTH, Tables, Target, Value, is_marker};
use crate::names::{BindKind, NONE, Pos, ScopeKind};
use crate::snapshot::{FileEntry, Lang, Snapshot};
use crate::symbols::{Def, DefKind, FileSymbols, Ref, RefKind, innermost_scope};

/// The identity references are compared by: every binding of one variable is the same variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Def(u32, u32),
    Module(u32),
    Var(u32, u32, String),
    Import(u32, u32),
}

/// How a line relates to the symbol asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Relation {
    Definition,
    Call,
    Import,
    TypeUse,
    Inheritance,
    Reference,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Definition => "definition",
            Relation::Call => "call",
            Relation::Import => "import",
            Relation::TypeUse => "type use",
            Relation::Inheritance => "inheritance",
            Relation::Reference => "reference",
        }
    }

    fn of(kind: RefKind) -> Relation {
        match kind {
            RefKind::Call | RefKind::MethodCall => Relation::Call,
            RefKind::Import => Relation::Import,
            RefKind::Type => Relation::TypeUse,
            RefKind::Inheritance => Relation::Inheritance,
            RefKind::Name | RefKind::Attribute => Relation::Reference,
        }
    }
}

/// One line of an answer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub relation: Relation,
    /// The qualified name of the enclosing definition (for a definition, its own), or `None` at
    /// module level.
    pub symbol: Option<String>,
}

/// What a name resolves to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Bound by name resolution.
    pub resolved: Vec<Target>,
    /// Same name, but the receiver's type is unknown.
    pub candidates: Vec<Target>,
    /// Why nothing was found, when it is worth saying (a module outside the repository).
    pub note: Option<String>,
}

/// What stands at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtPosition {
    /// The name under the cursor.
    pub name: String,
    pub resolution: Resolution,
}

/// One file's lookup tables, built on first use.
pub(crate) struct FileCtx {
    name_ids: HashMap<String, u32>,
    /// Sorted by (scope, name, position).
    entries: Vec<Entry>,
    /// For each definition, the scope that is its body ([`NONE`] when it has none).
    pub(crate) own_scope: Vec<u32>,
    /// For each definition, the scope its name is bound in ([`NONE`]: reached only through its
    /// type, like a Rust method).
    def_scope: Vec<u32>,
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
    /// The files whose references include a name.
    files_by_ref: NameTable<u32>,
    /// Each language's tables, indexed by `Lang as usize`.
    tables: [Arc<dyn Tables>; N_LANGS],
}

/// Files changed since the tables were last built whole beyond which an update rebuilds them.
const MAX_STALE_FILES: usize = 64;

/// Entries by name, in file order: the tables of the last full build, and for the files that
/// changed since (`stale`), their entries now. A lookup merges the two in file order, so an
/// updated table answers as a rebuilt one would.
struct NameTable<V> {
    base: Arc<HashMap<String, Vec<V>>>,
    stale: Arc<rustc_hash::FxHashSet<u32>>,
    fresh: HashMap<String, Vec<V>>,
}

/// The file an entry belongs to.
trait InFile: Copy + Ord {
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
    fn whole(base: HashMap<String, Vec<V>>) -> Self {
        Self { base: Arc::new(base), stale: Default::default(), fresh: HashMap::new() }
    }

    fn get(&self, name: &str) -> std::borrow::Cow<'_, [V]> {
        let base = self.base.get(name).map_or(&[][..], Vec::as_slice);
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

/// Adds file `i`'s entries to the three name tables.
fn add_names(
    i: u32,
    symbols: &crate::symbols::FileSymbols,
    defs_by_name: &mut HashMap<String, Vec<(u32, u32)>>,
    attrs_by_name: &mut HashMap<String, Vec<(u32, u32)>>,
    files_by_ref: &mut HashMap<String, Vec<u32>>,
) {
    for (d, def) in symbols.defs.iter().enumerate() {
        defs_by_name.entry(def.name.clone()).or_default().push((i, d as u32));
    }
    for (b, binding) in symbols.bindings.iter().enumerate() {
        let in_class = symbols.scopes.get(binding.scope as usize).is_some_and(|s| s.kind == ScopeKind::Class);
        if in_class {
            attrs_by_name.entry(symbols.text(binding.name).to_string()).or_default().push((i, b as u32));
        }
    }
    let mut seen = vec![false; symbols.names.len()];
    for r in &symbols.refs {
        if !std::mem::replace(&mut seen[r.name as usize], true) {
            files_by_ref.entry(symbols.ref_name(r).to_string()).or_default().push(i);
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
        let files = with_file_scopes(snapshot);
        let by_path = files.iter().enumerate().map(|(i, f)| (f.path.clone(), i as u32)).collect();
        let mut defs_by_name: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut attrs_by_name: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut files_by_ref: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            add_names(i as u32, &file.symbols, &mut defs_by_name, &mut attrs_by_name, &mut files_by_ref);
        }
        let tables = std::array::from_fn(|i| LANGUAGES[i].tables(&files));
        Resolver {
            ctx: (0..files.len()).map(|_| OnceLock::new()).collect(),
            files,
            by_path: Arc::new(by_path),
            defs_by_name: NameTable::whole(defs_by_name),
            attrs_by_name: NameTable::whole(attrs_by_name),
            files_by_ref: NameTable::whole(files_by_ref),
            tables,
        }
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
        let (mut defs, mut attrs, mut refs) = (HashMap::new(), HashMap::new(), HashMap::new());
        for &i in &stale_files {
            add_names(i, &files[i as usize].symbols, &mut defs, &mut attrs, &mut refs);
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
            files_by_ref: NameTable {
                base: previous.files_by_ref.base.clone(),
                stale: stale.clone(),
                fresh: refs,
            },
            tables: std::array::from_fn(|i| previous.tables[i].clone().updated(&files, &changed)),
            files,
        })
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
    pub(crate) fn files_referencing(&self, name: &str) -> std::borrow::Cow<'_, [u32]> {
        self.files_by_ref.get(name)
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

    pub(crate) fn def(&self, file: u32, def: u32) -> &Def {
        &self.symbols(file).defs[def as usize]
    }

    pub(crate) fn ctx(&self, file: u32) -> &FileCtx {
        self.ctx[file as usize].get_or_init(|| Arc::new(FileCtx::build(self.lang(file), self.symbols(file))))
    }

    /// The name's id in `file`, if the file has it at all.
    pub(crate) fn name_id(&self, file: u32, name: &str) -> Option<u32> {
        self.ctx(file).name_ids.get(name).copied()
    }

    // ----- What the tools ask -----

    /// The name at a 1-based position and what it means; `None` when no name starts or ends
    /// there.
    pub fn at(&self, file: u32, pos: Pos) -> Option<AtPosition> {
        let symbols = self.symbols(file);
        // A definition's own name.
        for (d, def) in symbols.defs.iter().enumerate() {
            if def.line == pos.line && name_spans(&def.header, &def.name, pos.column) {
                return Some(AtPosition {
                    name: def.name.clone(),
                    resolution: Resolution {
                        resolved: vec![self.canonical(Target::Def { file, def: d as u32 })],
                        ..Default::default()
                    },
                });
            }
        }
        // A reference.
        let first = symbols.refs.partition_point(|r| r.line < pos.line);
        for r in symbols.refs[first..].iter().take_while(|r| r.line == pos.line) {
            let name = symbols.ref_name(r);
            if r.column <= pos.column && pos.column <= r.column + name.len() as u32 {
                return Some(AtPosition { name: name.to_string(), resolution: self.resolve_ref(file, r) });
            }
        }
        // An import before a binding at the same place (`const { f } = require('./m')`
        // binds `f` both ways): the import says where it comes from.
        for (i, import) in symbols.imports.iter().enumerate() {
            let name = symbols.text(import.bound);
            if import.bound != NONE
                && import.line == pos.line
                && import.column <= pos.column
                && pos.column <= import.column + name.len() as u32
            {
                let itself = Target::Import { file, import: i as u32 };
                let found: Vec<Found> = self
                    .follow_import(file, i as u32, 0)
                    .into_iter()
                    .filter(|f| f.target != itself)
                    .collect();
                return Some(AtPosition {
                    name: name.to_string(),
                    resolution: self.resolution(found, file, i),
                });
            }
        }
        // A binding that is not also a reference (a `self` parameter, an import alias).
        for (b, binding) in symbols.bindings.iter().enumerate() {
            let name = symbols.text(binding.name);
            if binding.line == pos.line
                && binding.column <= pos.column
                && pos.column <= binding.column + name.len() as u32
            {
                let target = Target::Binding { file, binding: b as u32 };
                return Some(AtPosition {
                    name: name.to_string(),
                    resolution: Resolution { resolved: vec![target], ..Default::default() },
                });
            }
        }
        None
    }

    /// A bare name the index kept no reference for (`self`, a name inside an f-string), read by
    /// the caller from the source at a position: what it means there.
    pub fn resolve_name(&self, file: u32, pos: Pos, name: &str) -> Resolution {
        let found = self.lookup_lexical(file, pos, name, 0);
        Resolution { resolved: dedup(found.iter().map(|f| f.target)), ..Default::default() }
    }

    fn resolution(&self, found: Vec<Found>, file: u32, import: usize) -> Resolution {
        let mut resolution =
            Resolution { resolved: dedup(found.iter().map(|f| f.target)), ..Default::default() };
        if resolution.resolved.is_empty() {
            let symbols = self.symbols(file);
            let import = &symbols.imports[import];
            resolution.note = Some(format!(
                "{} is imported from {}, which is outside the repository",
                symbols.text(import.bound),
                self.import_source(file, import)
            ));
        }
        resolution
    }

    fn import_source(&self, file: u32, import: &crate::names::Import) -> String {
        self.tables(file).import_source(self.symbols(file), import)
    }

    /// Definitions whose name matches a symbol as written: a qualified name (`Cart.add`,
    /// `shapes::Circle::new`, `shop.cart.Cart`), or a bare name.
    pub fn lookup_symbol(&self, query: &str) -> Vec<Target> {
        let query = query.trim().trim_end_matches("()");
        if query.is_empty() {
            return Vec::new();
        }
        let last = query.rsplit(['.', ':']).next().unwrap_or(query);
        let mut exact = Vec::new();
        let mut suffix = Vec::new();
        for &(file, d) in self.defs_by_name.get(last).iter() {
            let def = self.def(file, d);
            let sep = self.lang(file).spec().separator;
            let qualified = def.qualified.as_str();
            // Qualified names with the file's module path too: `shapes::circle::Circle::new`.
            let with_module = self.tables(file).module_path(file).map(|m| join(&m, &def.qualified, sep));
            let forms = [Some(qualified.to_string()), with_module];
            if forms.iter().flatten().any(|q| q == query) {
                exact.push(self.canonical(Target::Def { file, def: d }));
            } else if forms.iter().flatten().any(|q| q.ends_with(&format!("{sep}{query}"))) {
                suffix.push(self.canonical(Target::Def { file, def: d }));
            }
        }
        if !exact.is_empty() {
            return dedup(exact);
        }
        // A path through re-exports (`shapes::Circle::new` where `shapes` re-exports `Circle`),
        // in each language whose separator the query uses.
        let through: Vec<Target> = LANGUAGES
            .iter()
            .zip(&self.tables)
            .filter(|(language, _)| query.contains(language.spec().separator))
            .flat_map(|(_, tables)| tables.lookup_path(self, query))
            .collect();
        if !through.is_empty() {
            return dedup(through.into_iter().map(|t| self.canonical(t)));
        }
        if !suffix.is_empty() {
            return dedup(suffix);
        }
        // A module by its name or path.
        dedup(self.tables.iter().flat_map(|t| t.module_named(query)).map(|file| Target::Module { file }))
    }

    /// The lines that define a target: a definition's header, every binding of a variable.
    pub fn definition_hits(&self, target: Target) -> Vec<Hit> {
        match target {
            Target::Def { file, def } => {
                let d = self.def(file, def);
                vec![Hit {
                    file,
                    line: d.line,
                    column: 1,
                    relation: Relation::Definition,
                    symbol: Some(d.qualified.clone()),
                }]
            }
            Target::Module { file } => vec![Hit {
                file,
                line: 1,
                column: 1,
                relation: Relation::Definition,
                symbol: self.module_label(file),
            }],
            Target::Binding { file, binding } => {
                let b = self.symbols(file).bindings[binding as usize];
                vec![Hit {
                    file,
                    line: b.line,
                    column: b.column,
                    relation: Relation::Definition,
                    symbol: self.scope_symbol(file, b.scope),
                }]
            }
            Target::Import { file, import } => {
                let i = self.symbols(file).imports[import as usize];
                vec![Hit {
                    file,
                    line: i.line,
                    column: i.column,
                    relation: Relation::Import,
                    symbol: self.scope_symbol(file, i.scope),
                }]
            }
        }
    }

    fn module_label(&self, file: u32) -> Option<String> {
        self.tables(file).module_path(file).filter(|p| !p.is_empty())
    }

    /// The qualified name of the definition a scope belongs to (the nearest one up).
    fn scope_symbol(&self, file: u32, mut scope: u32) -> Option<String> {
        let symbols = self.symbols(file);
        while scope != NONE {
            let s = symbols.scopes[scope as usize];
            if s.def != NONE {
                return Some(symbols.defs[s.def as usize].qualified.clone());
            }
            scope = s.parent;
        }
        None
    }

    /// A short description: `class Cart (shop/cart.py:7)`.
    pub fn describe(&self, target: Target) -> String {
        match target {
            Target::Def { file, def } => {
                let d = self.def(file, def);
                format!("{} {} ({}:{})", d.kind.as_str(), d.qualified, self.path(file), d.line)
            }
            Target::Module { file } => format!("module {}", self.path(file)),
            Target::Binding { file, binding } => {
                let symbols = self.symbols(file);
                let b = symbols.bindings[binding as usize];
                let what = match b.kind {
                    BindKind::Param | BindKind::SelfParam => "parameter",
                    BindKind::Attribute => "attribute",
                    _ if symbols.scopes[b.scope as usize].kind == ScopeKind::Class => "attribute",
                    _ if b.scope == 0 => "variable",
                    _ => "local variable",
                };
                format!("{what} {} ({}:{})", symbols.text(b.name), self.path(file), b.line)
            }
            Target::Import { file, import } => {
                let symbols = self.symbols(file);
                let i = symbols.imports[import as usize];
                format!(
                    "{} imported from {} ({}:{})",
                    symbols.text(i.bound),
                    self.import_source(file, &i),
                    self.path(file),
                    i.line
                )
            }
        }
    }

    /// The name a target is referred to by.
    pub fn target_name(&self, target: Target) -> String {
        match target {
            Target::Def { file, def } => self.def(file, def).name.clone(),
            Target::Module { file } => crate::lang::module_name(self.path(file)).to_string(),
            Target::Binding { file, binding } => {
                let symbols = self.symbols(file);
                symbols.text(symbols.bindings[binding as usize].name).to_string()
            }
            Target::Import { file, import } => {
                let symbols = self.symbols(file);
                symbols.text(symbols.imports[import as usize].bound).to_string()
            }
        }
    }

    /// Every reference to `target`: resolved ones, and candidates (same name, receiver unknown).
    /// The definition lines come first among the resolved.
    pub fn references(&self, target: Target) -> (Vec<Hit>, Vec<Hit>) {
        let target = self.canonical(target);
        let key = self.key(target);
        let name = self.target_name(target);
        let mut resolved: BTreeSet<Hit> = BTreeSet::new();
        let mut candidates: BTreeSet<Hit> = BTreeSet::new();
        let definitions = self.definition_lines(target);
        let def_positions: BTreeSet<(u32, u32)> = definitions.iter().map(|h| (h.file, h.line)).collect();
        for &file in self.files_by_ref.get(&name).iter() {
            let symbols = self.symbols(file);
            let Some(id) = self.name_id(file, &name) else { continue };
            for r in symbols.refs.iter().filter(|r| r.name == id) {
                let resolution = self.resolve_ref(file, r);
                let hit = || Hit {
                    file,
                    line: r.line,
                    column: r.column,
                    relation: Relation::of(r.kind),
                    symbol: r.enclosing.map(|d| symbols.defs[d as usize].qualified.clone()),
                };
                if resolution.resolved.iter().any(|t| self.key(*t) == key) {
                    if !def_positions.contains(&(file, r.line)) {
                        resolved.insert(hit());
                    }
                } else if resolution.candidates.iter().any(|t| self.key(*t) == key) {
                    candidates.insert(hit());
                }
            }
        }
        let mut out = definitions;
        out.extend(resolved);
        (out, candidates.into_iter().collect())
    }

    /// The definition lines of a target; every binding of a variable.
    fn definition_lines(&self, target: Target) -> Vec<Hit> {
        match self.key(target) {
            Key::Var(file, scope, name) => {
                let symbols = self.symbols(file);
                let ctx = self.ctx(file);
                let mut hits: Vec<Hit> = symbols
                    .bindings
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.scope == scope && symbols.text(b.name) == name && !is_marker(b.kind))
                    .flat_map(|(i, _)| self.definition_hits(Target::Binding { file, binding: i as u32 }))
                    .chain(
                        symbols
                            .defs
                            .iter()
                            .enumerate()
                            .filter(|(i, d)| ctx.def_scope[*i] == scope && d.name == name)
                            .flat_map(|(i, _)| self.definition_hits(Target::Def { file, def: i as u32 })),
                    )
                    .collect();
                hits.sort_by_key(|h| (h.line, h.column));
                hits.dedup_by_key(|h| h.line);
                hits
            }
            _ => self.definition_hits(target),
        }
    }

    /// Where a function is called from (resolved and candidates).
    pub fn callers(&self, target: Target) -> (Vec<Hit>, Vec<Hit>) {
        let (resolved, candidates) = self.references(target);
        let calls = |hits: Vec<Hit>| hits.into_iter().filter(|h| h.relation == Relation::Call).collect();
        (calls(resolved), calls(candidates))
    }

    /// What a function calls: the definitions its calls resolve to (resolved and candidates).
    pub fn callees(&self, target: Target) -> (Vec<Hit>, Vec<Hit>) {
        let Target::Def { file, def } = target else { return (Vec::new(), Vec::new()) };
        let symbols = self.symbols(file);
        let inside = |mut d: Option<u32>| {
            while let Some(x) = d {
                if x == def {
                    return true;
                }
                d = symbols.defs[x as usize].parent;
            }
            false
        };
        let mut resolved: Vec<Target> = Vec::new();
        let mut candidates: Vec<Target> = Vec::new();
        for r in symbols.refs.iter().filter(|r| matches!(r.kind, RefKind::Call | RefKind::MethodCall)) {
            if !inside(r.enclosing) {
                continue;
            }
            let resolution = self.resolve_ref(file, r);
            resolved.extend(resolution.resolved);
            candidates.extend(resolution.candidates);
        }
        // What is called is a function, a class or a name imported from outside; a call of a
        // parameter or a variable (a callback) says nothing about which code runs.
        let callable = |t: &Target| matches!(t, Target::Def { .. } | Target::Import { .. });
        let resolved: Vec<Target> = dedup(resolved).into_iter().filter(callable).collect();
        let candidates: Vec<Target> =
            dedup(candidates).into_iter().filter(|t| callable(t) && !resolved.contains(t)).collect();
        let hits = |targets: Vec<Target>| {
            let mut hits: Vec<Hit> = targets
                .into_iter()
                .flat_map(|t| self.definition_hits(t))
                .map(|h| Hit { relation: Relation::Call, ..h })
                .collect();
            hits.sort();
            hits.dedup();
            hits
        };
        (hits(resolved), hits(candidates))
    }

    // ----- Resolution -----

    /// A Python constant is a definition and a binding at once; the binding is its identity.
    fn canonical(&self, target: Target) -> Target {
        if let Target::Def { file, def } = target {
            let d = self.def(file, def);
            if self.lang(file).spec().rules.defs_are_assignments && d.kind == DefKind::Constant {
                let symbols = self.symbols(file);
                if let Some(b) = symbols
                    .bindings
                    .iter()
                    .position(|b| b.scope == 0 && b.line == d.line && symbols.text(b.name) == d.name)
                {
                    return Target::Binding { file, binding: b as u32 };
                }
            }
        }
        target
    }

    fn key(&self, target: Target) -> Key {
        match self.canonical(target) {
            // Where definitions are assignments, a function or class is a variable of its scope
            // too: every `def f` of one scope (in the branches of an `if`, redefined later) is
            // the same name.
            Target::Def { file, def } => match self.ctx(file).def_scope[def as usize] {
                scope if scope != NONE && self.lang(file).spec().rules.defs_are_assignments => {
                    Key::Var(file, scope, self.def(file, def).name.clone())
                }
                _ => Key::Def(file, def),
            },
            Target::Module { file } => Key::Module(file),
            Target::Binding { file, binding } => {
                let symbols = self.symbols(file);
                let b = symbols.bindings[binding as usize];
                Key::Var(file, b.scope, symbols.text(b.name).to_string())
            }
            Target::Import { file, import } => Key::Import(file, import),
        }
    }

    /// What one reference means.
    pub fn resolve_ref(&self, file: u32, r: &Ref) -> Resolution {
        let symbols = self.symbols(file);
        let name = symbols.ref_name(r);
        let pos = Pos::new(r.line, r.column);
        let lang = self.lang(file);
        if r.qualifier == NONE {
            let found = match self.tables(file).bare_ref(self, file, pos, name, r.kind) {
                Some(Ok(found)) => found,
                Some(Err(note)) => return Resolution { note: Some(note), ..Default::default() },
                None => self.lookup_lexical(file, pos, name, 0),
            };
            let resolved: Vec<Target> = dedup(found.iter().map(|f| f.target));
            if resolved.is_empty()
                && lang.spec().rules.external_globs_give_candidates
                && self.has_external_glob(file)
            {
                return Resolution { candidates: self.candidates(file, r), ..Default::default() };
            }
            return Resolution { resolved, ..Default::default() };
        }
        // `f(name=…)`: the parameter of the function called.
        if let Some(callee) = symbols.text(r.qualifier).strip_suffix('(') {
            return Resolution { resolved: self.parameter_of(file, pos, callee, name), ..Default::default() };
        }
        // Where an attribute is a field, which the index does not keep, it is never a method.
        if !lang.spec().rules.attribute_names_members && r.kind == RefKind::Attribute {
            return Resolution::default();
        }
        let qualifier = symbols.text(r.qualifier);
        let base = match self.tables(file).import_base(self, file, qualifier, name, r.kind) {
            Some(Ok(base)) => Some(base),
            Some(Err(note)) => return Resolution { note: Some(note), ..Default::default() },
            None => self.eval_chain(file, pos, qualifier, 0),
        };
        let Some(base) = base else {
            return Resolution { candidates: self.candidates(file, r), ..Default::default() };
        };
        if let Value::External(_) = base {
            return Resolution {
                note: Some(format!("{qualifier} is outside the repository")),
                ..Default::default()
            };
        }
        let found = self.member(base, name, 0);
        if !found.is_empty() {
            return Resolution { resolved: dedup(found.iter().map(|f| f.target)), ..Default::default() };
        }
        match base {
            // A module's missing name is outside what the index can see, not a guess.
            Value::Module(..) => Resolution::default(),
            _ => Resolution { candidates: self.candidates(file, r), ..Default::default() },
        }
    }

    /// The parameter `name` of the function (or the class's `__init__`) a callee names.
    fn parameter_of(&self, file: u32, pos: Pos, callee: &str, name: &str) -> Vec<Target> {
        let function = match self.eval_chain(file, pos, callee, 0) {
            Some(Value::Function(f, d)) => Some((f, d)),
            Some(Value::Class(f, d)) => self.lang(f).language().constructor().and_then(|constructor| {
                self.member(Value::Class(f, d), constructor, 1).iter().find_map(|found| match found.value {
                    Some(Value::Function(f, d)) => Some((f, d)),
                    _ => None,
                })
            }),
            _ => None,
        };
        let Some((f, d)) = function else { return Vec::new() };
        let scope = self.ctx(f).own_scope[d as usize];
        let symbols = self.symbols(f);
        symbols
            .bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| b.scope == scope && b.kind == BindKind::Param && symbols.text(b.name) == name)
            .map(|(i, _)| Target::Binding { file: f, binding: i as u32 })
            .take(1)
            .collect()
    }

    /// Definitions (and Python class attributes) with the reference's name that its kind can mean.
    fn candidates(&self, file: u32, r: &Ref) -> Vec<Target> {
        let lang = self.lang(file);
        let name = self.symbols(file).ref_name(r);
        let mut out: Vec<Target> = self
            .defs_by_name
            .get(name)
            .iter()
            .filter(|&&(f, d)| {
                self.lang(f).spec().family == lang.spec().family && r.kind.can_mean(lang, self.def(f, d).kind)
            })
            .map(|&(f, d)| self.canonical(Target::Def { file: f, def: d }))
            .collect();
        if lang.spec().rules.attribute_names_members
            && matches!(r.kind, RefKind::Attribute | RefKind::MethodCall)
        {
            out.extend(
                self.attrs_by_name.get(name).iter().map(|&(f, b)| Target::Binding { file: f, binding: b }),
            );
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|t| seen.insert(self.key(*t)));
        out.sort();
        out
    }

    fn has_external_glob(&self, file: u32) -> bool {
        let symbols = self.symbols(file);
        symbols.imports.iter().any(|i| {
            i.glob
                && i.scope == 0
                && self.tables(file).glob_base(self, file, 0, symbols.text(i.module), 0).is_none()
        })
    }

    /// A bare name at a position: the innermost binding that is visible there.
    pub(crate) fn lookup_lexical(&self, file: u32, pos: Pos, name: &str, depth: u32) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let lang = self.lang(file);
        let symbols = self.symbols(file);
        let Some(id) = self.name_id(file, name) else {
            return self.lookup_beyond(file, 0, name, depth);
        };
        let mut start = innermost_scope(&symbols.scopes, pos);
        // A class's bases may be looked up where the class statement stands, not in its body.
        let header = symbols.scopes[start as usize];
        let rules = lang.spec().rules;
        if rules.bases_outside_class && header.kind == ScopeKind::Class && header.start.line == pos.line {
            start = header.parent;
        }
        let mut scope = start;
        loop {
            let s = symbols.scopes[scope as usize];
            // A class body may be invisible from the functions nested in it.
            let visible = !(rules.class_body_closed && s.kind == ScopeKind::Class && scope != start);
            if visible {
                let entries = self.ctx(file).entries_of(scope, id);
                if !entries.is_empty() {
                    let marker = entries.iter().find_map(|e| match e.bound {
                        Bound::Binding(b) if is_marker(symbols.bindings[b as usize].kind) => {
                            Some(symbols.bindings[b as usize].kind)
                        }
                        _ => None,
                    });
                    if let Some(marker) = marker {
                        if marker == BindKind::Global {
                            return self.module_scope_lookup(file, id, name, depth);
                        }
                        // `nonlocal`: keep looking outward.
                        if s.parent == NONE {
                            break;
                        }
                        scope = s.parent;
                        continue;
                    }
                    let chosen = lang.language().visible(entries, symbols, pos, scope == start);
                    let found: Vec<Found> =
                        chosen.iter().flat_map(|e| self.entry_found(file, *e, depth)).collect();
                    if !found.is_empty() || rules.first_binding_scope_wins {
                        return found;
                    }
                }
            }
            if rules.module_scope_is_closed && s.kind == ScopeKind::Module {
                return self.lookup_beyond(file, scope, name, depth);
            }
            if s.parent == NONE {
                break;
            }
            scope = s.parent;
        }
        self.lookup_beyond(file, 0, name, depth)
    }

    fn module_scope_lookup(&self, file: u32, id: u32, name: &str, depth: u32) -> Vec<Found> {
        let entries = self.ctx(file).entries_of(0, id);
        let found: Vec<Found> = entries
            .iter()
            .filter(|e| !matches!(e.bound, Bound::Binding(b) if is_marker(self.symbols(file).bindings[b as usize].kind)))
            .flat_map(|e| self.entry_found(file, *e, depth))
            .collect();
        if found.is_empty() { self.lookup_beyond(file, 0, name, depth) } else { found }
    }

    /// After the lexical scopes: glob imports of the module scope, then (Rust) crate names.
    fn lookup_beyond(&self, file: u32, scope: u32, name: &str, depth: u32) -> Vec<Found> {
        let symbols = self.symbols(file);
        for import in symbols.imports.iter().filter(|i| i.glob && i.scope == scope) {
            let module = symbols.text(import.module);
            if let Some(base) = self.tables(file).glob_base(self, file, scope, module, depth + 1) {
                let found = self.member_public(base, name, depth + 1);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        self.tables(file).unbound(self, file, name, depth)
    }

    /// What one scope entry means, imports followed.
    pub(crate) fn entry_found(&self, file: u32, entry: Entry, depth: u32) -> Vec<Found> {
        match entry.bound {
            Bound::Def(d) => vec![self.def_found(file, d)],
            Bound::Binding(b) => {
                let target = Target::Binding { file, binding: b };
                vec![Found { target, value: self.binding_value(file, b, depth + 1) }]
            }
            Bound::Import(i) => self.follow_import(file, i, depth + 1),
        }
    }

    pub(crate) fn def_found(&self, file: u32, d: u32) -> Found {
        let def = self.def(file, d);
        let value = match def.kind {
            DefKind::Class | DefKind::Enum | DefKind::Interface | DefKind::Type => {
                Some(Value::Class(file, d))
            }
            DefKind::Function | DefKind::Method | DefKind::Macro => Some(Value::Function(file, d)),
            DefKind::Module => self.tables(file).module_of_def(self, file, d),
            DefKind::Constant => None,
        };
        Found { target: self.canonical(Target::Def { file, def: d }), value }
    }

    /// Where an import leads.
    fn follow_import(&self, file: u32, import: u32, depth: u32) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.tables(file).follow_import(self, file, import, depth)
    }

    /// The value a binding holds, from its hint.
    fn binding_value(&self, file: u32, binding: u32, depth: u32) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let symbols = self.symbols(file);
        let b = symbols.bindings[binding as usize];
        if b.hint == NONE {
            return None;
        }
        let hint = symbols.text(b.hint);
        let pos = Pos::new(b.line, b.column);
        if b.kind == BindKind::SelfParam {
            return self.tables(file).self_type(self, file, pos, depth).map(|(f, d)| Value::Instance(f, d));
        }
        if let Some(alias) = hint.strip_prefix('=') {
            // `x = other`: the same value, looked up where `other` stands.
            return self.eval_chain(file, pos, alias, depth + 1);
        }
        if hint.ends_with("()") {
            return self.eval_chain(file, pos, hint, depth + 1);
        }
        // An annotation: an instance of the type.
        match self.eval_chain(file, pos, hint, depth + 1)? {
            Value::Class(f, d) => Some(Value::Instance(f, d)),
            _ => None,
        }
    }

    /// Evaluates a qualifier such as `self.items`, `os.path`, `Cart()`, `geo::Point`,
    /// `Circle::new()` at a position.
    pub(crate) fn eval_chain(&self, file: u32, pos: Pos, chain: &str, depth: u32) -> Option<Value> {
        if depth > MAX_DEPTH || chain.is_empty() || chain.contains('?') {
            return None;
        }
        let mut parts = chain.split('.');
        let first = parts.next()?;
        let (first_name, first_call) = split_call(first);
        let mut value = self.tables(file).eval_first(self, file, pos, first_name, depth)?;
        if first_call {
            value = self.call_result(value, depth)?;
        }
        for part in parts {
            let (name, call) = split_call(part);
            let found = self.member(value, name, depth + 1);
            value = found.iter().find_map(|f| f.value)?;
            if call {
                value = self.call_result(value, depth)?;
            }
        }
        Some(value)
    }

    /// The value of calling a class (an instance) or a function with an evident return type.
    fn call_result(&self, value: Value, depth: u32) -> Option<Value> {
        match value {
            Value::Class(f, d) => Some(Value::Instance(f, d)),
            Value::Super(..) => Some(value),
            Value::Function(f, d) => {
                let def = self.def(f, d);
                let ret = self.lang(f).language().return_type(&def.signature)?;
                if let Some(value) = self.tables(f).call_result(self, f, d, ret, depth) {
                    return value;
                }
                let ret = self.lang(f).language().type_hint(ret)?;
                let pos = Pos::new(def.line, 1);
                match self.eval_chain(f, pos, &ret, depth + 1)? {
                    Value::Class(tf, td) => Some(Value::Instance(tf, td)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A member of a value: a module's name, a class's method or attribute (through its bases),
    /// a Rust type's associated item.
    pub(crate) fn member(&self, value: Value, name: &str, depth: u32) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.tables(value_file(value)).member(self, value, name, depth, false)
    }

    /// The classes a class's bases (its inheritance references, in order) evaluate to, the
    /// class itself left out; evaluated as the caller walks them.
    pub(crate) fn bases(&self, file: u32, class: u32, depth: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let symbols = self.symbols(file);
        symbols
            .refs
            .iter()
            .filter(move |b| b.kind == RefKind::Inheritance && b.enclosing == Some(class))
            .filter_map(move |base| {
                let name = symbols.ref_name(base);
                let chain = if base.qualifier == NONE {
                    name.to_string()
                } else {
                    format!("{}.{name}", symbols.text(base.qualifier))
                };
                match self.eval_chain(file, Pos::new(base.line, base.column), &chain, depth + 1) {
                    Some(Value::Class(bf, bd)) if (bf, bd) != (file, class) => Some((bf, bd)),
                    _ => None,
                }
            })
    }

    /// A member as a glob import sees it: Python's `__all__` or public names.
    pub(crate) fn member_public(&self, value: Value, name: &str, depth: u32) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        self.tables(value_file(value)).member(self, value, name, depth, true)
    }
}

impl FileCtx {
    fn build(lang: Lang, symbols: &FileSymbols) -> FileCtx {
        // Definition names need not be among the file's names (nothing in the file may refer
        // to them); they get ids after the names'.
        let mut name_ids: HashMap<String, u32> =
            symbols.names.iter().enumerate().map(|(i, n)| (n.clone(), i as u32)).collect();
        for def in &symbols.defs {
            let next = name_ids.len() as u32;
            name_ids.entry(def.name.clone()).or_insert(next);
        }
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
            let name = name_ids[&def.name];
            entries.push(Entry {
                scope: def_scope[i],
                name,
                pos: Pos::new(def.line, 1),
                bound: Bound::Def(i as u32),
            });
        }
        for (i, b) in symbols.bindings.iter().enumerate() {
            entries.push(Entry {
                scope: b.scope,
                name: b.name,
                pos: Pos::new(b.line, b.column),
                bound: Bound::Binding(i as u32),
            });
        }
        for (i, import) in symbols.imports.iter().enumerate() {
            if import.bound != NONE {
                entries.push(Entry {
                    scope: import.scope,
                    name: import.bound,
                    pos: Pos::new(import.line, import.column),
                    bound: Bound::Import(i as u32),
                });
            }
        }
        entries.sort_by_key(|e| (e.scope, e.name, e.pos));
        FileCtx { name_ids, entries, own_scope, def_scope }
    }

    pub(crate) fn entries_of(&self, scope: u32, name: u32) -> &[Entry] {
        let start = self.entries.partition_point(|e| (e.scope, e.name) < (scope, name));
        let end = self.entries.partition_point(|e| (e.scope, e.name) <= (scope, name));
        &self.entries[start..end]
    }
}

/// Whether the first whole-word `name` in `header` (the definition's own name: `def name`,
/// `pub fn name`) lies over the 1-based byte column `column`.
fn name_spans(header: &str, name: &str, column: u32) -> bool {
    let column = column as usize;
    header
        .match_indices(name)
        .find(|(i, _)| {
            let before_ok = !header[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            let after_ok = !header[i + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            before_ok && after_ok
        })
        .is_some_and(|(i, _)| i < column && column <= i + name.len() + 1)
}

fn split_call(part: &str) -> (&str, bool) {
    match part.strip_suffix("()") {
        Some(name) => (name, true),
        None => (part, false),
    }
}

fn value_file(value: Value) -> u32 {
    match value {
        Value::Module(f, _)
        | Value::Class(f, _)
        | Value::Instance(f, _)
        | Value::Super(f, _)
        | Value::Function(f, _)
        | Value::External(f) => f,
    }
}

fn join(prefix: &str, rest: &str, sep: &str) -> String {
    if prefix.is_empty() { rest.to_string() } else { format!("{prefix}{sep}{rest}") }
}

fn dedup(targets: impl IntoIterator<Item = Target>) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for t in targets {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

mod callbacks;

#[cfg(test)]
mod tests;

//! Rust's side of name resolution: the module tree from `mod` declarations and the file layout
//! (`mod.rs`, `foo.rs` beside `foo/`), paths with `crate`, `self`, `super` and `Self`, `use`
//! (globs, renames, groups), impl blocks (inherent and trait) for associated items and method
//! calls on a receiver whose type is evident.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use crate::lang::common::changed_alike;
use crate::meaning::{Binder, Bound, Found, Lookup, MAX_DEPTH, Tables, Target, Value};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::snapshot::Lang;
use crate::symbols::{DefKind, FileSymbols, RefKind, innermost_scope};

/// Glob imports are followed only this deep, so `use super::*` chains stay cheap.
const GLOB_DEPTH: u32 = 6;

thread_local! {
    /// Whether this thread is finding a type's impl blocks (see [`Modules::impls_of`]).
    static BUILDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The glob searches this thread has in progress.
    static SEARCH: std::cell::RefCell<GlobSearch> = const { std::cell::RefCell::new(GlobSearch::new()) };
}

/// One thread's glob searches in progress, nested: each module with the name it looks for,
/// and how far down the stack a search met one of them again.
struct GlobSearch {
    /// Each search's module, name and depth.
    stack: Vec<(Value, String, u32)>,
    /// The lowest level of the stack that a search met again and could not show it adds
    /// nothing: a search above that level answers as a search started afresh would.
    lowest_cut: usize,
}

impl GlobSearch {
    const fn new() -> GlobSearch {
        GlobSearch { stack: Vec::new(), lowest_cut: usize::MAX }
    }

    /// The level of the search for `name` in `module`'s globs, when one is in progress.
    fn level_of(&self, module: Value, name: &str) -> Option<usize> {
        self.stack.iter().position(|(m, n, _)| *m == module && n == name)
    }

    /// Starts searching `module`'s globs for `name`: its level, and the lowest cut so far.
    fn enter(&mut self, module: Value, name: &str, depth: u32) -> (usize, usize) {
        self.stack.push((module, name.to_string(), depth));
        (self.stack.len() - 1, std::mem::replace(&mut self.lowest_cut, usize::MAX))
    }

    /// Whether each of `bases` (sorted) is searched for `name` already: the lowest level of
    /// them, or `None` when one is not.
    fn searched(&self, bases: &[Value], name: &str) -> Option<usize> {
        let levels = self
            .stack
            .iter()
            .enumerate()
            .filter(|(_, (m, n, _))| n == name && bases.binary_search(m).is_ok())
            .map(|(l, _)| l);
        let lowest = levels.clone().min().unwrap_or(usize::MAX);
        (levels.count() == bases.len()).then_some(lowest)
    }

    /// Ends the innermost search; whether its answer depended on no search around it.
    fn leave(&mut self, (level, outer_cut): (usize, usize)) -> bool {
        self.stack.pop();
        let fresh = self.lowest_cut >= level;
        self.lowest_cut = self.lowest_cut.min(outer_cut);
        fresh
    }
}

/// Glob searches' answers that no search around them shaped, by module, depth (which bounds
/// what a search sees) and name, kept for the snapshot: a generated crate globs a thousand
/// modules into one that each glob back, and every file would search them all for each name.
#[derive(Default)]
struct GlobAnswers {
    found: HashMap<(Value, u32), HashMap<String, Vec<Found>>>,
    /// What each module's globs lead to in the repository, by the depth they were resolved at.
    bases: HashMap<(Value, u32), Arc<Bases>>,
}

/// The modules a module's globs lead to, other than itself: in the globs' order, and sorted.
struct Bases {
    /// The globs' modules in the order they are searched: the host's before those behind a
    /// `cfg` the host does not meet (`#[cfg(windows)] pub use self::windows::*;` on Linux).
    ordered: Vec<Value>,
    /// Whether each of `ordered` is behind a `cfg`, met or not.
    gated: Vec<bool>,
    sorted: Vec<Value>,
}

/// Rust's tables: the module tree, and the impl blocks, found on first use.
pub(super) struct Modules {
    tree: Arc<Tree>,
    /// Impl blocks by the type and the trait they are for.
    impls: ImplMap,
    /// Glob searches' answers and each module's glob targets.
    globs: std::sync::RwLock<GlobAnswers>,
}

/// The module tree: which file each `mod name;` declares, and the crate roots.
struct Tree {
    /// For each file that some `mod name;` declares: the declaring file and the inline module
    /// around the declaration ([`NONE`] for none).
    parent: HashMap<u32, (u32, u32)>,
    /// `mod name;` (file, def) → the file it declares.
    decl_child: HashMap<(u32, u32), u32>,
    /// Crate roots by crate name (the directory above `src/`, `-` read as `_`).
    crates: HashMap<String, u32>,
    /// Each Rust file's module path from its crate root (`shapes::circle`); empty for a root.
    paths: Vec<Option<String>>,
}

impl Modules {
    pub(super) fn new(files: &[Arc<FileEntry>]) -> Modules {
        Modules { tree: Arc::new(Tree::new(files)), impls: ImplMap::default(), globs: Default::default() }
    }

    /// A type's impl blocks (inherent first, then trait impls with their trait). They are
    /// found by name, the first time a type of that name is asked about: the impls whose type
    /// path ends in the name (or in an alias's that no struct, enum or trait has) are resolved
    /// once, for every type of the name. Resolving a path can pass through an associated item,
    /// which asks for impls again: on this thread, while impls are being found, every type
    /// has none (and no glob answer is kept).
    fn impls_of(&self, r: &dyn Binder, ty: (u32, u32)) -> Arc<[ImplOf]> {
        let name = r.def(ty.0, ty.1).name();
        {
            let known = self.impls.by_type.read().unwrap_or_else(|e| e.into_inner());
            if let Some(list) = known.types.get(&ty) {
                return list.clone();
            }
            if known.names.contains(name) {
                return Arc::from([]);
            }
        }
        if BUILDING.with(|b| b.get()) {
            return Arc::from([]);
        }
        let index = self.impls.named.get_or_init(|| Arc::new(ImplIndex::build(r)));
        let candidates = index.named.get(name).into_iter().flatten().chain(&index.other);
        BUILDING.with(|b| b.set(true));
        // Found afresh: not inside the glob searches of the lookup that happens to ask first,
        // which would hide their modules from it.
        let outer = SEARCH.with(|s| std::mem::replace(&mut *s.borrow_mut(), GlobSearch::new()));
        let mut by_type: HashMap<(u32, u32), Vec<ImplOf>> = HashMap::new();
        for &(file, i) in candidates {
            let symbols = r.symbols(file);
            let imp = symbols.impls[i as usize];
            let class = |path: &str| {
                self.resolve_path_at(r, file, imp.start, path, 1).iter().find_map(|f| match f.value {
                    Some(Value::Class(tf, td)) => Some((tf, td)),
                    _ => None,
                })
            };
            let Some(of) = class(symbols.text(imp.self_ty)) else { continue };
            if r.def(of.0, of.1).name() != name {
                continue;
            }
            let trait_def = if imp.trait_path == NONE { None } else { class(symbols.text(imp.trait_path)) };
            by_type.entry(of).or_default().push((file, i, trait_def));
        }
        SEARCH.with(|s| *s.borrow_mut() = outer);
        BUILDING.with(|b| b.set(false));
        let by_type: HashMap<(u32, u32), Arc<[ImplOf]>> = by_type
            .into_iter()
            .map(|(of, mut list)| {
                // Inherent impls first, so their items win over trait items of the same name.
                list.sort_by_key(|(f, i, t)| (t.is_some(), *f, *i));
                list.dedup();
                (of, list.into())
            })
            .collect();
        let list = by_type.get(&ty).cloned().unwrap_or_else(|| Arc::from([]));
        let mut known = self.impls.by_type.write().unwrap_or_else(|e| e.into_inner());
        known.names.insert(name.to_string());
        known.types.extend(by_type);
        list
    }
}

impl Tree {
    fn new(files: &[Arc<FileEntry>]) -> Tree {
        let by_path: HashMap<&str, u32> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.lang == Lang::Rust)
            .map(|(i, f)| (f.path.as_str(), i as u32))
            .collect();
        let mut parent = HashMap::new();
        let mut decl_child = HashMap::new();
        let mut decl_names: HashMap<u32, Vec<String>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != Lang::Rust {
                continue;
            }
            let symbols = &file.symbols;
            let inline: HashSet<u32> =
                symbols.scopes.iter().filter(|s| s.def != NONE).map(|s| s.def).collect();
            let (dir, name) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
            let stem = name.strip_suffix(".rs").unwrap_or(name);
            let owns_dir = matches!(stem, "mod" | "lib" | "main");
            for (d, def) in symbols.defs.iter().enumerate() {
                if def.kind != DefKind::Module || inline.contains(&(d as u32)) {
                    continue;
                }
                // The inline modules around the declaration add directories.
                let mut nested: Vec<&str> = Vec::new();
                let mut around = NONE;
                let mut p = def.parent();
                while let Some(x) = p {
                    if symbols.defs[x as usize].kind == DefKind::Module && inline.contains(&x) {
                        nested.push(symbols.defs.at(x as usize).name());
                        if around == NONE {
                            around = x;
                        }
                    }
                    p = symbols.defs[x as usize].parent();
                }
                nested.reverse();
                let mut bases = Vec::new();
                if !owns_dir {
                    bases.push(join_dir(dir, stem));
                }
                bases.push(dir.to_string());
                let found = bases.iter().find_map(|base| {
                    let mut base = base.clone();
                    for n in &nested {
                        base = join_dir(&base, n);
                    }
                    let flat = format!("{}.rs", join_dir(&base, def.name()));
                    let nested_mod = format!("{}/mod.rs", join_dir(&base, def.name()));
                    by_path.get(flat.as_str()).or_else(|| by_path.get(nested_mod.as_str())).copied()
                });
                if let Some(child) = found
                    && child != i as u32
                    && !parent.contains_key(&child)
                {
                    parent.insert(child, (i as u32, around));
                    decl_child.insert((i as u32, d as u32), child);
                    let mut names: Vec<String> = nested.iter().map(|s| s.to_string()).collect();
                    names.push(def.name().to_string());
                    decl_names.insert(child, names);
                }
            }
        }
        // Module paths, from each root down.
        let mut paths: Vec<Option<String>> = vec![None; files.len()];
        for &file in by_path.values() {
            let mut chain: Vec<String> = Vec::new();
            let mut at = file;
            let mut guard = 0;
            while let Some(&(up, _)) = parent.get(&at) {
                let mut names = decl_names.get(&at).cloned().unwrap_or_default();
                names.reverse();
                chain.extend(names);
                at = up;
                guard += 1;
                if guard > 64 {
                    break;
                }
            }
            chain.reverse();
            paths[file as usize] = Some(chain.join("::"));
        }
        let mut crates = HashMap::new();
        let mut roots: Vec<&str> =
            by_path.keys().copied().filter(|p| !parent.contains_key(&by_path[p])).collect();
        // Libraries first, so a package's `lib.rs` owns its name rather than its `main.rs`.
        roots.sort_by_key(|p| (!p.ends_with("lib.rs"), p.len(), p.to_string()));
        for root in roots {
            let Some(rest) = root.strip_suffix("/src/lib.rs").or_else(|| root.strip_suffix("/src/main.rs"))
            else {
                continue;
            };
            let name = rest.rsplit('/').next().unwrap_or(rest).replace('-', "_");
            crates.entry(name).or_insert(by_path[root]);
        }
        Tree { parent, decl_child, crates, paths }
    }
}

impl Modules {
    fn crate_named(&self, name: &str) -> Option<u32> {
        self.tree.crates.get(name).copied()
    }

    fn root_of(&self, mut file: u32) -> u32 {
        let mut guard = 0;
        while let Some(&(up, _)) = self.tree.parent.get(&file) {
            file = up;
            guard += 1;
            if guard > 64 {
                break;
            }
        }
        file
    }

    /// The module a `mod` definition stands for: an inline module, or the file it declares.
    fn module_of_decl(&self, r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        if r.own_scope(file, def) != NONE {
            return Some(Value::Module(file, def));
        }
        self.tree.decl_child.get(&(file, def)).map(|&child| Value::Module(child, NONE))
    }

    /// The module whose scope holds `scope`.
    fn module_at(&self, r: &dyn Binder, file: u32, mut scope: u32) -> Value {
        let symbols = r.symbols(file);
        while scope != NONE && scope != 0 {
            let s = symbols.scopes[scope as usize];
            if s.kind == ScopeKind::Module && s.def != NONE {
                return Value::Module(file, s.def);
            }
            scope = s.parent;
        }
        Value::Module(file, NONE)
    }

    fn parent_module(&self, r: &dyn Binder, module: Value) -> Option<Value> {
        let Value::Module(file, def) = module else { return None };
        if def != NONE {
            let symbols = r.symbols(file);
            let mut p = symbols.defs[def as usize].parent();
            while let Some(x) = p {
                if r.own_scope(file, x) != NONE && symbols.defs[x as usize].kind == DefKind::Module {
                    return Some(Value::Module(file, x));
                }
                p = symbols.defs[x as usize].parent();
            }
            return Some(Value::Module(file, NONE));
        }
        self.tree.parent.get(&file).map(|&(up, around)| Value::Module(up, around))
    }

    fn module_scope(&self, r: &dyn Binder, file: u32, def: u32) -> u32 {
        if def == NONE { 0 } else { r.own_scope(file, def) }
    }

    /// A name a module's glob imports bring in, from the first glob that has it. A glob that
    /// leads back to a module whose globs this thread is already searching for the same name
    /// (`use super::*` in each of the modules a parent globs, as generated bindings do) is not
    /// searched again: the outer search covers it. Answers no outer search shaped are kept.
    fn glob_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        scope: u32,
        name: &str,
        depth: u32,
    ) -> Vec<Found> {
        let here = Value::Module(file, def);
        // Skipped globs add nothing when each leads to a module searched further up the stack
        // already (or outside the repository): then a search above the lowest of those
        // answers as one started afresh would.
        let skip = |at_depth: u32, otherwise: Option<usize>| {
            let bases = self.known(|answers| answers.bases.get(&(here, at_depth)).cloned());
            let cut =
                bases.and_then(|b| SEARCH.with(|s| s.borrow().searched(&b.sorted, name))).or(otherwise)?;
            SEARCH.with(|s| {
                let mut s = s.borrow_mut();
                s.lowest_cut = s.lowest_cut.min(cut);
            });
            Some(Vec::new())
        };
        let met = SEARCH.with(|s| {
            let s = s.borrow();
            s.level_of(here, name).map(|level| (level, s.stack[level].2))
        });
        if let Some((level, at_depth)) = met {
            return skip(at_depth, Some(level)).unwrap_or_default();
        }
        if let Some(found) =
            self.known(|a| a.found.get(&(here, depth)).and_then(|names| names.get(name)).cloned())
        {
            return found;
        }
        if let Some(none) = skip(depth, None) {
            return none;
        }
        let entered = SEARCH.with(|s| s.borrow_mut().enter(here, name, depth));
        let level = entered.0;
        let bases = match self.known(|a| a.bases.get(&(here, depth)).cloned()) {
            Some(bases) => bases,
            None => {
                let mut globs: Vec<(Value, Option<bool>)> = self
                    .resolve_globs(r, file, scope, depth)
                    .filter(|&(base, _)| base != here && !matches!(base, Value::External(_)))
                    .collect();
                globs.sort_by_key(|(_, cfg)| *cfg == Some(false));
                let (ordered, gated): (Vec<Value>, Vec<bool>) =
                    globs.into_iter().map(|(base, cfg)| (base, cfg.is_some())).unzip();
                let mut sorted = ordered.clone();
                sorted.sort_unstable();
                sorted.dedup();
                let bases = Arc::new(Bases { ordered, gated, sorted });
                // Kept when resolving them met no search in progress, this one's included.
                let fresh = SEARCH.with(|s| s.borrow().lowest_cut > level);
                if fresh && !BUILDING.with(|b| b.get()) {
                    self.globs
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .bases
                        .insert((here, depth), bases.clone());
                }
                bases
            }
        };
        // The first glob that has the name answers. When it is behind a `cfg`, so is a
        // platform's module: the other branches' (`unix`, `windows`) come after it.
        let mut found: Vec<Found> = Vec::new();
        for (&base, &gated) in bases.ordered.iter().zip(&bases.gated) {
            if !found.is_empty() && !gated {
                continue;
            }
            let more = r.member(base, name, depth + 1);
            if more.is_empty() {
                continue;
            }
            let first = found.is_empty();
            found.extend(more.into_iter().filter(|f| !found.contains(f)).collect::<Vec<_>>());
            if first && !gated {
                break;
            }
        }
        let fresh = SEARCH.with(|s| s.borrow_mut().leave(entered));
        // While a type's impls are being found, lookups see none of them: no answer is kept.
        if fresh && !BUILDING.with(|b| b.get()) {
            let mut answers = self.globs.write().unwrap_or_else(|e| e.into_inner());
            answers.found.entry((here, depth)).or_default().insert(name.to_string(), found.clone());
        }
        found
    }

    /// What the kept glob answers say.
    fn known<T>(&self, read: impl FnOnce(&GlobAnswers) -> Option<T>) -> Option<T> {
        read(&self.globs.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// What the glob imports of a module's scope lead to, in order, each with its `cfg`.
    fn resolve_globs<'a>(
        &'a self,
        r: &'a dyn Binder,
        file: u32,
        scope: u32,
        depth: u32,
    ) -> impl Iterator<Item = (Value, Option<bool>)> + 'a {
        let symbols = r.symbols(file);
        symbols.imports.iter().filter(move |i| i.glob && i.scope == scope).filter_map(move |import| {
            let at = Pos::new(import.line, import.column);
            self.resolve_path_at(r, file, at, symbols.text(import.module), depth + 1)
                .iter()
                .find_map(|f| f.value)
                .map(|value| (value, import.cfg))
        })
    }

    /// A path's value as seen from a scope (glob imports).
    fn resolve_path_value(
        &self,
        r: &dyn Binder,
        file: u32,
        scope: u32,
        path: &str,
        depth: u32,
    ) -> Option<Value> {
        if depth > GLOB_DEPTH {
            return None;
        }
        let at = r.symbols(file).scopes.get(scope as usize).map_or(Pos::new(1, 1), |s| s.start);
        self.resolve_path_at(r, file, at, path, depth).iter().find_map(|f| f.value)
    }

    /// What a path (`crate::geo::Point`, `super::Shape`, `Self::new`, `geo`) means at a position.
    fn resolve_path_at(&self, r: &dyn Binder, file: u32, pos: Pos, path: &str, depth: u32) -> Vec<Found> {
        // A chase of its own, bounded with the resolver's.
        let Some(_step) = crate::meaning::step() else { return Vec::new() };
        if depth > MAX_DEPTH || path.is_empty() {
            return Vec::new();
        }
        let path = path.strip_prefix("::").unwrap_or(path);
        let segments: Vec<&str> = path.split("::").collect();
        let symbols = r.symbols(file);
        let scope = innermost_scope(&symbols.scopes, pos);
        let mut found: Vec<Found> = match segments[0] {
            "crate" => {
                let root = self.root_of(file);
                vec![Found { target: Target::Module { file: root }, value: Some(Value::Module(root, NONE)) }]
            }
            // `self::x` is the current module; `self` alone is the receiver.
            "self" if segments.len() > 1 => {
                let module = self.module_at(r, file, scope);
                vec![Found { target: module_target(module), value: Some(module) }]
            }
            "super" => {
                let module = self.module_at(r, file, scope);
                match self.parent_module(r, module) {
                    Some(up) => vec![Found { target: module_target(up), value: Some(up) }],
                    None => return Vec::new(),
                }
            }
            "Self" => match self.self_type(r, file, pos, depth + 1) {
                Some((f, d)) => vec![r.def_found(f, d)],
                None => return Vec::new(),
            },
            first => r.lookup_lexical(file, pos, first, depth + 1),
        };
        for segment in &segments[1..] {
            let value = match (*segment, found.iter().find_map(|f| f.value)) {
                (_, None) => return Vec::new(),
                ("super", Some(v)) => match self.parent_module(r, v) {
                    Some(up) => {
                        found = vec![Found { target: module_target(up), value: Some(up) }];
                        continue;
                    }
                    None => return Vec::new(),
                },
                (_, Some(v)) => v,
            };
            found = r.member(value, segment, depth + 1);
        }
        found
    }

    /// The type of the impl block a method is defined in.
    fn impl_type_of_def(&self, r: &dyn Binder, file: u32, def: u32, depth: u32) -> Option<(u32, u32)> {
        let d = &r.symbols(file).defs[def as usize];
        self.self_type(r, file, Pos::new(d.line, u32::MAX / 2), depth)
    }
}

impl Tables for Modules {
    /// The module tree follows from `mod` declarations: rebuilt when a Rust file's modules
    /// changed. The index of impl blocks by name is kept while no Rust file's impl blocks or
    /// type names changed; which impls each type has is found again in either case.
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let same = |shape: fn(&FileSymbols) -> Vec<(u32, &str, u32)>| {
            changed_alike(Lang::Rust, (before, files), changed, |a, b| shape(&a.symbols) == shape(&b.symbols))
        };
        let tree = if same(module_shape) { self.tree.clone() } else { Arc::new(Tree::new(files)) };
        let impls = ImplMap::default();
        if same(impl_shape)
            && let Some(index) = self.impls.named.get()
        {
            let _ = impls.named.set(index.clone());
        }
        Some(Arc::new(Modules { tree, impls, globs: Default::default() }))
    }

    fn module_path(&self, file: u32) -> Option<String> {
        self.tree.paths.get(file as usize)?.clone()
    }

    /// A path from a crate root: `shapes::Circle::new`, `crate::geo::Point`.
    fn lookup_path(&self, r: &dyn Binder, query: &str) -> Vec<Target> {
        let query = query.strip_prefix("crate::").unwrap_or(query);
        let segments: Vec<&str> = query.split("::").collect();
        let mut roots: Vec<u32> = self
            .tree
            .paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.as_deref() == Some(""))
            .map(|(i, _)| i as u32)
            .collect();
        if let Some(root) = self.crate_named(segments[0]) {
            roots = vec![root];
        }
        let mut out = Vec::new();
        for root in roots {
            let skip = usize::from(self.crate_named(segments[0]) == Some(root) && segments.len() > 1);
            out.extend(r.member_path(Value::Module(root, NONE), &segments[skip..]));
        }
        out
    }

    /// `use foo;` names the crate it imports.
    fn import_source(&self, symbols: &FileSymbols, import: &crate::names::Import) -> String {
        let module = symbols.text(import.module);
        if module.is_empty() { symbols.text(import.item).to_string() } else { module.to_string() }
    }

    /// `Self` alone is the impl's type (or the trait around a default method).
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        _kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        (name == "Self").then(|| Ok(self.resolve_path_at(r, file, pos, name, 0)))
    }

    /// A `use` path is a path as any other: evaluated from its first name.
    fn import_base(
        &self,
        _r: &dyn Binder,
        _file: u32,
        _qualifier: &str,
        _name: &str,
        _kind: RefKind,
    ) -> Option<Lookup<Value>> {
        None
    }

    fn glob_base(&self, r: &dyn Binder, file: u32, scope: u32, module: &str, depth: u32) -> Option<Value> {
        self.resolve_path_value(r, file, scope, module, depth)
    }

    /// A crate of the repository by its name.
    fn unbound(&self, _r: &dyn Binder, _file: u32, name: &str, _depth: u32) -> Vec<Found> {
        match self.crate_named(name) {
            Some(root) => {
                vec![Found { target: Target::Module { file: root }, value: Some(Value::Module(root, NONE)) }]
            }
            None => Vec::new(),
        }
    }

    fn module_of_def(&self, r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        self.module_of_decl(r, file, def)
    }

    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let import = symbols.imports[import as usize];
        let module = symbols.text(import.module);
        let item = symbols.text(import.item);
        let at = Pos::new(import.line, import.column);
        if module.is_empty() {
            // `use foo;` or `extern crate foo;`: a crate of the repository.
            if let Some(root) = self.crate_named(item) {
                return vec![Found {
                    target: Target::Module { file: root },
                    value: Some(Value::Module(root, NONE)),
                }];
            }
            // `use foo;` of a module in scope: look it up without finding this import again.
            let scope = innermost_scope(&symbols.scopes, at);
            return match r.name_id(file, item) {
                Some(id) => r
                    .entries_of(file, scope, id)
                    .iter()
                    .filter(|e| !matches!(e.bound(), Bound::Import(_) | Bound::Binding(_)))
                    .flat_map(|e| r.entry_found(file, *e, depth))
                    .collect(),
                None => Vec::new(),
            };
        }
        let base = self.resolve_path_at(r, file, at, module, depth + 1);
        match base.iter().find_map(|f| f.value) {
            Some(value) => r.member(value, item, depth + 1),
            None => Vec::new(),
        }
    }

    /// The first part of a chain: a path or a name in scope.
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        let found = self.resolve_path_at(r, file, pos, name, depth);
        if found.is_empty()
            && let Some((first, _)) = name.split_once("::")
            && !matches!(first, "crate" | "self" | "super" | "Self" | "")
            && r.lookup_lexical(file, pos, first, depth + 1).is_empty()
        {
            // A path from a crate that is not in the repository (`std::fs::read`).
            return Some(Value::External(file));
        }
        found.iter().find_map(|f| f.value)
    }

    /// The type `Self` means at a position: the impl's type, or the trait around a default
    /// method.
    fn self_type(&self, r: &dyn Binder, file: u32, pos: Pos, depth: u32) -> Option<(u32, u32)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let symbols = r.symbols(file);
        if let Some(imp) = symbols.impls.iter().rev().find(|i| i.start <= pos && pos < i.end) {
            let path = symbols.text(imp.self_ty);
            if path == "Self" {
                return None;
            }
            return self.resolve_path_at(r, file, imp.start, path, depth + 1).iter().find_map(|f| {
                match f.value {
                    Some(Value::Class(tf, td)) => Some((tf, td)),
                    _ => None,
                }
            });
        }
        symbols
            .defs
            .iter()
            .enumerate()
            .rev()
            .find(|(_, d)| d.kind == DefKind::Interface && d.line <= pos.line && pos.line <= d.end_line)
            .map(|(i, _)| (file, i as u32))
    }

    /// `-> Self` returns the impl's type.
    fn call_result(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        ret: &str,
        depth: u32,
    ) -> Option<Option<Value>> {
        (ret == "Self")
            .then(|| self.impl_type_of_def(r, file, def, depth).map(|(f, d)| Value::Instance(f, d)))
    }

    /// The items, `use` names and glob-imported names of a module.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        // A chase of its own, bounded with the resolver's.
        // Not cut as a cycle: the glob answers kept above depend on the whole search.
        let Some(_step) = crate::meaning::step() else { return Vec::new() };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let scope = self.module_scope(r, file, def);
        if scope == NONE {
            return Vec::new();
        }
        if let Some(id) = r.name_id(file, name) {
            let found: Vec<Found> = r
                .entries_of(file, scope, id)
                .iter()
                .filter(|e| !matches!(e.bound(), Bound::Binding(_)))
                .flat_map(|e| r.entry_found(file, *e, depth))
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        if depth > GLOB_DEPTH {
            return Vec::new();
        }
        self.glob_member(r, file, def, scope, name, depth)
    }

    /// An associated item of a type: from its inherent impls, then its trait impls, then the
    /// default methods of those traits; for a trait, its own items; else a field its body
    /// declares (what `self.shape` holds). A type has no bases.
    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH || skip_own {
            return Vec::new();
        }
        let impls = self.impls_of(r, (file, def));
        let mut found = Vec::new();
        let mut traits: Vec<(u32, u32)> = Vec::new();
        for &(f, i, trait_def) in impls.iter() {
            found.extend(impl_items(r, f, i, name).map(|d| r.def_found(f, d)));
            if let Some(t) = trait_def {
                traits.push(t);
            }
        }
        if !found.is_empty() {
            return found;
        }
        if r.def(file, def).kind == DefKind::Interface {
            return r.children_named(file, def, name);
        }
        traits.sort();
        traits.dedup();
        let found: Vec<Found> = traits.into_iter().flat_map(|(f, d)| r.children_named(f, d, name)).collect();
        if !found.is_empty() {
            return found;
        }
        crate::meaning::declared_fields(r, file, def, name, depth)
    }
}

/// The impl blocks of the types asked about, each with the trait it implements; found by the
/// type's name (see [`Modules::impls_of`]).
#[derive(Default)]
struct ImplMap {
    /// The impl blocks by the name their type's path ends in, found on first use.
    named: OnceLock<Arc<ImplIndex>>,
    /// The impl blocks of each type whose name was asked about so far.
    by_type: std::sync::RwLock<ImplsFound>,
}

#[derive(Default)]
struct ImplsFound {
    /// The names whose impls were found: a type of one that is not in `types` has none.
    names: HashSet<String>,
    types: HashMap<(u32, u32), Arc<[ImplOf]>>,
}

/// An impl block of a type: (file, impl index, the trait's (file, def) when it implements one).
type ImplOf = (u32, u32, Option<(u32, u32)>);

/// Every Rust impl block by the last name of its type's path (generics dropped), as (file,
/// impl index).
struct ImplIndex {
    named: HashMap<String, Vec<(u32, u32)>>,
    /// The blocks whose type's name no struct, enum or trait has but an alias does: they
    /// could be any type's. (A `use … as` rename of a type is not followed.)
    other: Vec<(u32, u32)>,
}

impl ImplIndex {
    fn build(r: &dyn Binder) -> ImplIndex {
        let rust = || (0..r.n_files() as u32).filter(|&f| r.lang(f) == Lang::Rust);
        let mut types: HashSet<&str> = HashSet::new();
        let mut aliases: HashSet<&str> = HashSet::new();
        for def in rust().flat_map(|f| r.symbols(f).defs.iter()) {
            match def.kind {
                DefKind::Class | DefKind::Enum | DefKind::Interface => types.insert(def.name()),
                DefKind::Type => aliases.insert(def.name()),
                _ => false,
            };
        }
        let mut named: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut other = Vec::new();
        for file in rust() {
            let symbols = r.symbols(file);
            for (i, imp) in symbols.impls.iter().enumerate() {
                let path = symbols.text(imp.self_ty);
                let path = path.split('<').next().unwrap_or(path);
                let last = path.rsplit("::").next().unwrap_or(path).trim();
                if types.contains(last) {
                    named.entry(last.to_string()).or_default().push((file, i as u32));
                } else if aliases.contains(last) {
                    other.push((file, i as u32));
                }
            }
        }
        ImplIndex { named, other }
    }
}

/// What of a file the module tree is made of: its modules, each as (definition, name, the
/// nearest enclosing definition or `NONE`), the inline ones (with a body) marked by a name
/// ending in `{`.
fn module_shape(symbols: &FileSymbols) -> Vec<(u32, &str, u32)> {
    let inline: HashSet<u32> = symbols.scopes.iter().filter(|s| s.def != NONE).map(|s| s.def).collect();
    let mut out = Vec::new();
    for (d, def) in symbols.defs.iter().enumerate().filter(|(_, def)| def.kind == DefKind::Module) {
        let mark = if inline.contains(&(d as u32)) { "{" } else { "" };
        out.push((d as u32, def.name(), def.parent().unwrap_or(NONE)));
        out.push((d as u32, mark, NONE));
    }
    out
}

/// What of a file [`ImplIndex`] is made of: its impl blocks' types in order, and the names of
/// its types and aliases.
fn impl_shape(symbols: &FileSymbols) -> Vec<(u32, &str, u32)> {
    let impls = symbols.impls.iter().map(|imp| (0, symbols.text(imp.self_ty), 0));
    let types = symbols.defs.iter().filter_map(|def| match def.kind {
        DefKind::Class | DefKind::Enum | DefKind::Interface => Some((1, def.name(), 0)),
        DefKind::Type => Some((2, def.name(), 0)),
        _ => None,
    });
    impls.chain(types).collect()
}

/// The items named `name` directly inside impl block `imp` of `file`.
fn impl_items<'a>(r: &'a dyn Binder, file: u32, imp: u32, name: &'a str) -> impl Iterator<Item = u32> + 'a {
    let symbols = r.symbols(file);
    let block = symbols.impls[imp as usize];
    let inside = move |d: &crate::symbols::Def| block.start.line <= d.line && d.end_line <= block.end.line;
    symbols.defs.iter().enumerate().filter_map(move |(i, d)| {
        let direct = d.parent().is_none_or(|p| symbols.defs.get(p as usize).is_none_or(|p| !inside(&p)));
        (d.name() == name && inside(&d) && direct).then_some(i as u32)
    })
}

fn module_target(module: Value) -> Target {
    match module {
        Value::Module(file, def) if def != NONE => Target::Def { file, def },
        Value::Module(file, _) => Target::Module { file },
        _ => unreachable!("module_target takes modules"),
    }
}

fn join_dir(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") }
}

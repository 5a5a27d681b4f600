//! Rust's side of name resolution: the module tree from `mod` declarations and the file layout
//! (`mod.rs`, `foo.rs` beside `foo/`), paths with `crate`, `self`, `super` and `Self`, `use`
//! (globs, renames, groups), impl blocks (inherent and trait) for associated items and method
//! calls on a receiver whose type is evident.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use crate::meaning::{Binder, Bound, Found, Lookup, MAX_DEPTH, Tables, Target, Value};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::snapshot::Lang;
use crate::symbols::{DefKind, FileSymbols, RefKind, innermost_scope};

/// Glob imports are followed only this deep, so `use super::*` chains stay cheap.
const GLOB_DEPTH: u32 = 6;

thread_local! {
    /// The modules whose glob imports this thread is searching, each with the name it looks for.
    static SEARCHING: std::cell::RefCell<Vec<(Value, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Rust's tables: the module tree, and the impl blocks, found on first use.
pub(super) struct Modules {
    tree: Arc<Tree>,
    /// Impl blocks by the type and the trait they are for.
    impls: OnceLock<ImplMap>,
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
        Modules { tree: Arc::new(Tree::new(files)), impls: OnceLock::new() }
    }

    /// The impl map, built on first use. Building it resolves each impl's type and trait
    /// paths, and a path can pass through an associated item, which asks for the impl map
    /// again: on the thread building it, that nested lookup sees no impls (waiting for the map
    /// there would wait for itself).
    fn impls(&self, r: &dyn Binder) -> &ImplMap {
        static EMPTY: std::sync::LazyLock<ImplMap> =
            std::sync::LazyLock::new(|| ImplMap { by_type: HashMap::new() });
        thread_local! {
            static BUILDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        }
        if let Some(map) = self.impls.get() {
            return map;
        }
        if BUILDING.with(|b| b.get()) {
            return &EMPTY;
        }
        self.impls.get_or_init(|| {
            BUILDING.with(|b| b.set(true));
            // The map is built once for every lookup: not inside the glob searches of the
            // lookup that happens to ask first, which would hide their modules from it.
            let outer = SEARCHING.with(|stack| std::mem::take(&mut *stack.borrow_mut()));
            let map = ImplMap::build(self, r);
            SEARCHING.with(|stack| *stack.borrow_mut() = outer);
            BUILDING.with(|b| b.set(false));
            map
        })
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
                let mut p = def.parent;
                while let Some(x) = p {
                    if symbols.defs[x as usize].kind == DefKind::Module && inline.contains(&x) {
                        nested.push(&symbols.defs[x as usize].name);
                        if around == NONE {
                            around = x;
                        }
                    }
                    p = symbols.defs[x as usize].parent;
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
                    let flat = format!("{}.rs", join_dir(&base, &def.name));
                    let nested_mod = format!("{}/mod.rs", join_dir(&base, &def.name));
                    by_path.get(flat.as_str()).or_else(|| by_path.get(nested_mod.as_str())).copied()
                });
                if let Some(child) = found
                    && child != i as u32
                    && !parent.contains_key(&child)
                {
                    parent.insert(child, (i as u32, around));
                    decl_child.insert((i as u32, d as u32), child);
                    let mut names: Vec<String> = nested.iter().map(|s| s.to_string()).collect();
                    names.push(def.name.clone());
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
            let mut p = symbols.defs[def as usize].parent;
            while let Some(x) = p {
                if r.own_scope(file, x) != NONE && symbols.defs[x as usize].kind == DefKind::Module {
                    return Some(Value::Module(file, x));
                }
                p = symbols.defs[x as usize].parent;
            }
            return Some(Value::Module(file, NONE));
        }
        self.tree.parent.get(&file).map(|&(up, around)| Value::Module(up, around))
    }

    fn module_scope(&self, r: &dyn Binder, file: u32, def: u32) -> u32 {
        if def == NONE { 0 } else { r.own_scope(file, def) }
    }

    /// The items, `use` names and glob-imported names of a module.
    fn module_member(&self, r: &dyn Binder, file: u32, def: u32, name: &str, depth: u32) -> Vec<Found> {
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
                .filter(|e| !matches!(e.bound, Bound::Binding(_)))
                .flat_map(|e| r.entry_found(file, *e, depth))
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        if depth > GLOB_DEPTH {
            return Vec::new();
        }
        // A glob that leads back to a module whose globs this thread is already searching for
        // the same name (`use super::*` in each of the modules a parent globs, as generated
        // bindings do) would search them all again at every level: the outer search covers it.
        let here = Value::Module(file, def);
        let entered = SEARCHING.with(|stack| {
            let mut stack = stack.borrow_mut();
            let known = stack.iter().any(|(value, searched)| *value == here && searched == name);
            if !known {
                stack.push((here, name.to_string()));
            }
            !known
        });
        if !entered {
            return Vec::new();
        }
        let symbols = r.symbols(file);
        let mut found = Vec::new();
        for import in symbols.imports.iter().filter(|i| i.glob && i.scope == scope) {
            let at = Pos::new(import.line, import.column);
            let base = self
                .resolve_path_at(r, file, at, symbols.text(import.module), depth + 1)
                .iter()
                .find_map(|f| f.value);
            if let Some(base) = base
                && base != here
            {
                found = r.member(base, name, depth + 1);
                if !found.is_empty() {
                    break;
                }
            }
        }
        SEARCHING.with(|stack| stack.borrow_mut().pop());
        found
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

    /// An associated item of a type: from its inherent impls, then its trait impls, then the
    /// default methods of those traits; for a trait, its own items.
    fn type_member(&self, r: &dyn Binder, file: u32, def: u32, name: &str, depth: u32) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let impls = self.impls(r);
        let mut found = Vec::new();
        let mut traits: Vec<(u32, u32)> = Vec::new();
        for &(f, i, trait_def) in impls.by_type.get(&(file, def)).into_iter().flatten() {
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
        traits.into_iter().flat_map(|(f, d)| r.children_named(f, d, name)).collect()
    }
}

impl Tables for Modules {
    /// The module tree follows from `mod` declarations too: rebuilt when a Rust file changed.
    /// Impl blocks are found again in either case.
    fn updated(self: Arc<Self>, files: &[Arc<FileEntry>], changed: &[u32]) -> Arc<dyn Tables> {
        let rust_changed = changed.iter().any(|&i| files[i as usize].lang == Lang::Rust);
        let tree = if rust_changed { Arc::new(Tree::new(files)) } else { self.tree.clone() };
        Arc::new(Modules { tree, impls: OnceLock::new() })
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
                    .filter(|e| !matches!(e.bound, Bound::Import(_) | Bound::Binding(_)))
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

    fn member(&self, r: &dyn Binder, value: Value, name: &str, depth: u32, _public: bool) -> Vec<Found> {
        match value {
            Value::Module(file, def) => self.module_member(r, file, def, name, depth),
            Value::Class(f, d) | Value::Instance(f, d) => self.type_member(r, f, d, name, depth),
            Value::Super(..) | Value::Function(..) | Value::External(_) => Vec::new(),
        }
    }
}

/// Every impl block, by the type it is for, with the trait it implements.
struct ImplMap {
    by_type: HashMap<(u32, u32), Vec<ImplOf>>,
}

/// An impl block of a type: (file, impl index, the trait's (file, def) when it implements one).
type ImplOf = (u32, u32, Option<(u32, u32)>);

impl ImplMap {
    fn build(modules: &Modules, r: &dyn Binder) -> ImplMap {
        let mut by_type: HashMap<(u32, u32), Vec<ImplOf>> = HashMap::new();
        for file in 0..r.n_files() as u32 {
            if r.lang(file) != Lang::Rust {
                continue;
            }
            let symbols = r.symbols(file);
            for (i, imp) in symbols.impls.iter().enumerate() {
                let class = |path: &str| {
                    modules.resolve_path_at(r, file, imp.start, path, 1).iter().find_map(|f| match f.value {
                        Some(Value::Class(tf, td)) => Some((tf, td)),
                        _ => None,
                    })
                };
                let Some(ty) = class(symbols.text(imp.self_ty)) else { continue };
                let trait_def =
                    if imp.trait_path == NONE { None } else { class(symbols.text(imp.trait_path)) };
                by_type.entry(ty).or_default().push((file, i as u32, trait_def));
            }
        }
        // Inherent impls first, so their items win over trait items of the same name.
        for list in by_type.values_mut() {
            list.sort_by_key(|(f, i, t)| (t.is_some(), *f, *i));
        }
        ImplMap { by_type }
    }
}

/// The items named `name` directly inside impl block `imp` of `file`.
fn impl_items<'a>(r: &'a dyn Binder, file: u32, imp: u32, name: &'a str) -> impl Iterator<Item = u32> + 'a {
    let symbols = r.symbols(file);
    let block = symbols.impls[imp as usize];
    let inside = move |d: &crate::symbols::Def| block.start.line <= d.line && d.end_line <= block.end.line;
    symbols.defs.iter().enumerate().filter_map(move |(i, d)| {
        let direct = d.parent.is_none_or(|p| !inside(&symbols.defs[p as usize]));
        (d.name == name && inside(d) && direct).then_some(i as u32)
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

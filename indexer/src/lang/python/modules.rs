//! Python's side of name resolution: module names from paths (a directory with `__init__.py`
//! is a package), absolute and relative imports, `__all__`, module members, class members
//! through base classes, `self`, `cls` and `super()`.

use std::collections::HashMap;
use std::sync::Arc;

use crate::meaning::{
    Binder, Bound, Found, Lookup, MAX_DEPTH, Tables, Target, Value, import_found, is_marker, module_found,
};
use crate::names::{BindKind, NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::snapshot::Lang;
use crate::symbols::{RefKind, innermost_scope};

/// Python's tables: every module by its dotted name.
pub(super) struct Modules {
    /// Each Python file's dotted module name.
    name_of: Vec<Option<String>>,
    is_package: Vec<bool>,
    by_name: HashMap<String, Vec<u32>>,
}

impl Modules {
    pub(super) fn new(files: &[Arc<FileEntry>]) -> Modules {
        let packages: std::collections::HashSet<&str> = files
            .iter()
            .filter(|f| f.lang == Lang::Python)
            .filter_map(|f| {
                let (dir, name) = f.path.rsplit_once('/').unwrap_or(("", &f.path));
                matches!(name, "__init__.py" | "__init__.pyi").then_some(dir)
            })
            .collect();
        let mut name_of = Vec::with_capacity(files.len());
        let mut is_package = Vec::with_capacity(files.len());
        let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != Lang::Python {
                name_of.push(None);
                is_package.push(false);
                continue;
            }
            let (mut dir, name) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            let mut parts: Vec<&str> = Vec::new();
            let package = stem == "__init__";
            if !package {
                parts.push(stem);
            }
            // Walk up while the directory is a package.
            while !dir.is_empty() && packages.contains(dir) {
                let (parent, last) = dir.rsplit_once('/').unwrap_or(("", dir));
                parts.push(last);
                dir = parent;
            }
            parts.reverse();
            let module = parts.join(".");
            if module.is_empty() || !module.split('.').all(is_identifier) {
                name_of.push(None);
                is_package.push(false);
                continue;
            }
            by_name.entry(module.clone()).or_default().push(i as u32);
            name_of.push(Some(module));
            is_package.push(package);
        }
        Modules { name_of, is_package, by_name }
    }

    fn module_name(&self, file: u32) -> Option<&str> {
        self.name_of.get(file as usize)?.as_deref()
    }

    /// The file of an absolute module name; with several (`a/x.py` and `b/x.py` both top
    /// level), the one nearest the importing file.
    fn absolute(&self, r: &dyn Binder, from: u32, name: &str) -> Option<u32> {
        let files = self.by_name.get(name)?;
        let from_path = r.path(from);
        files.iter().copied().max_by_key(|&f| {
            let path = r.path(f);
            let common = from_path.bytes().zip(path.bytes()).take_while(|(a, b)| a == b).count();
            // Prefer a `.py` over a `.pyi` stub, then the shorter path.
            (common, !path.ends_with(".pyi"), std::cmp::Reverse(path.len()), std::cmp::Reverse(f))
        })
    }

    /// A dotted module name that is no file: a module another module binds (`os.path` is
    /// `posixpath`, bound by `import posixpath as path` in `os`).
    fn module_through_attributes(&self, r: &dyn Binder, file: u32, name: &str) -> Option<u32> {
        let (head, last) = name.rsplit_once('.')?;
        let base = self.absolute(r, file, head).or_else(|| self.module_through_attributes(r, file, head))?;
        self.module_member(r, base, NONE, last, 1, false).iter().find_map(|f| match f.value {
            Some(Value::Module(m, _)) => Some(m),
            _ => None,
        })
    }
}

impl Tables for Modules {
    /// Python modules follow from paths alone, and files were not added or removed.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        _files: &[Arc<FileEntry>],
        _changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        Some(self)
    }

    fn module_path(&self, file: u32) -> Option<String> {
        self.module_name(file).map(str::to_string)
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        self.by_name.get(name).cloned().unwrap_or_default()
    }

    /// A dotted path from a module name: `shop.cart.Cart.add`.
    fn lookup_path(&self, r: &dyn Binder, query: &str) -> Vec<Target> {
        let parts: Vec<&str> = query.split('.').collect();
        for k in (1..parts.len()).rev() {
            let module = parts[..k].join(".");
            let Some(files) = self.by_name.get(&module) else { continue };
            let Some(&file) = files.first() else { continue };
            let targets = r.member_path(Value::Module(file, NONE), &parts[k..]);
            if !targets.is_empty() {
                return targets;
            }
        }
        Vec::new()
    }

    /// `import a.b`: the module itself.
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        _pos: Pos,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        if kind != RefKind::Import {
            return None;
        }
        Some(match self.absolute(r, file, name) {
            Some(m) => Ok(vec![module_found(m)]),
            None => Err(format!("module {name} is outside the repository")),
        })
    }

    /// A module as an import names it: absolute (`a.b`) or relative to the importing file
    /// (`.`, `..pkg.mod`).
    fn module_file(&self, r: &dyn Binder, file: u32, text: &str) -> Option<u32> {
        let dots = text.len() - text.trim_start_matches('.').len();
        if dots == 0 {
            return self.absolute(r, file, text).or_else(|| self.module_through_attributes(r, file, text));
        }
        let own = self.module_name(file)?;
        let mut package: Vec<&str> = own.split('.').collect();
        if !self.is_package[file as usize] {
            package.pop();
        }
        for _ in 1..dots {
            package.pop()?;
        }
        let rest = &text[dots..];
        if !rest.is_empty() {
            package.extend(rest.split('.'));
        }
        let name = package.join(".");
        if name.is_empty() {
            return None;
        }
        self.absolute(r, file, &name)
    }

    /// Where an import leads; when that is outside the repository (a C module, a package not
    /// in it), the import itself is where the name is bound.
    fn follow_import(&self, r: &dyn Binder, file: u32, index: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let import = symbols.imports[index as usize];
        let module = symbols.text(import.module);
        let found: Vec<Found> = if import.item == NONE {
            // `import a.b` binds `a`; `import a.b as c` binds `a.b`.
            let name = if import.alias { module } else { module.split('.').next().unwrap_or(module) };
            self.module_file(r, file, name).map(module_found).into_iter().collect()
        } else {
            match self.module_file(r, file, module) {
                Some(base) => self.module_member(r, base, NONE, symbols.text(import.item), depth + 1, false),
                None => Vec::new(),
            }
        };
        if found.is_empty() { vec![import_found(file, index)] } else { found }
    }

    /// `self`, `cls` and `super` in a method (or in a function inside one).
    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        if !matches!(name, "self" | "cls" | "super") {
            return None;
        }
        let class = enclosing_class(r, file, pos)?;
        Some(match name {
            "self" => Value::Instance(file, class),
            "cls" => Value::Class(file, class),
            _ => Value::Super(file, class),
        })
    }

    /// A name a module defines, binds or imports; a submodule of a package. `public`: as a
    /// `from m import *` sees it (`__all__`, else names without a leading underscore).
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        _def: u32,
        name: &str,
        depth: u32,
        public: bool,
    ) -> Vec<Found> {
        // A chase of its own, bounded with the resolver's.
        let following = crate::meaning::Following::member(file, u32::from(public), name);
        let Some(_step) = crate::meaning::step_following(following) else { return Vec::new() };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let symbols = r.symbols(file);
        if public {
            let visible = match &symbols.exports {
                Some(all) => all.iter().any(|n| n == name),
                None => !name.starts_with('_'),
            };
            if !visible {
                return Vec::new();
            }
        }
        if let Some(id) = r.name_id(file, name) {
            let entries = r.entries_of(file, 0, id);
            let found: Vec<Found> = entries
                .iter()
                .filter(
                    |e| !matches!(e.bound(), Bound::Binding(b) if is_marker(symbols.bindings[b as usize].kind)),
                )
                .flat_map(|e| r.entry_found(file, *e, depth))
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        if self.is_package[file as usize]
            && let Some(module) = self.module_name(file)
            && let Some(sub) = self.absolute(r, file, &format!("{module}.{name}"))
        {
            return vec![module_found(sub)];
        }
        for import in symbols.imports.iter().filter(|i| i.glob && i.scope == 0) {
            if let Some(base) = self.module_file(r, file, symbols.text(import.module))
                && base != file
            {
                let found = self.module_member(r, base, NONE, name, depth + 1, true);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }

    /// A class's method, nested class or attribute, else the first base (left to right, depth
    /// first) that has it. `skip_own`: for `super()`, start at the bases.
    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        class: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        r.member_through_bases(file, class, depth, skip_own, &|file, class, depth| {
            let symbols = r.symbols(file);
            let own = r.children_named(file, class, name);
            if !own.is_empty() {
                return own;
            }
            let scope = r.own_scope(file, class);
            if let (Some(id), true) = (r.name_id(file, name), scope != NONE) {
                let entries = r.entries_of(file, scope, id);
                // `self.x = …` in the methods says what instances hold; a class-level `x = …`
                // counts only when no method sets it.
                let set_by_methods = entries.iter().any(|e| {
                    matches!(e.bound(), Bound::Binding(b) if symbols.bindings[b as usize].kind == BindKind::Attribute)
                });
                let found: Vec<Found> = entries
                    .iter()
                    .filter(|e| match e.bound() {
                        Bound::Binding(b) => {
                            !set_by_methods || symbols.bindings[b as usize].kind == BindKind::Attribute
                        }
                        Bound::Import(_) => !set_by_methods,
                        Bound::Def(_) => false,
                    })
                    .flat_map(|e| r.entry_found(file, *e, depth))
                    .collect();
                if !found.is_empty() {
                    // One attribute, however many places assign it: the first assignment
                    // stands for it, the others are the same variable.
                    return found;
                }
            }
            Vec::new()
        })
    }
}

/// The class whose method (or lambda or comprehension inside one) contains `pos`.
fn enclosing_class(r: &dyn Binder, file: u32, pos: Pos) -> Option<u32> {
    let symbols = r.symbols(file);
    let mut scope = innermost_scope(&symbols.scopes, pos);
    while scope != NONE {
        let s = symbols.scopes[scope as usize];
        if s.kind == ScopeKind::Function {
            let parent = symbols.scopes.get(s.parent as usize)?;
            if parent.kind == ScopeKind::Class && parent.def != NONE {
                return Some(parent.def);
            }
            // A function nested in a method still sees the method's `self`.
        }
        if s.kind == ScopeKind::Class && s.def != NONE && scope != innermost_scope(&symbols.scopes, pos) {
            return Some(s.def);
        }
        scope = s.parent;
    }
    None
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

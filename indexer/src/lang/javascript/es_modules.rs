//! Name resolution for JavaScript and TypeScript: a module is a file; an import names one by a
//! path relative to the importing file (extensions and `index` files tried as bundlers and
//! `tsc` do), or by a package name: a monorepo's own package (`@trpc/server/http` is
//! `packages/server/src/http.ts`, found as a folder named after the package holding the
//! subpath, under `src/` or not; `package.json` is not read), else a package outside the
//! repository. A module's members are its top-level
//! names and what it re-exports; a class's, its methods and what its bases have; `this` and
//! `super` are the enclosing class.

use std::collections::HashMap;
use std::sync::Arc;

use crate::meaning::{Binder, Found, Lookup, Tables, Target, Value, module_found};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{RefKind, innermost_scope};

/// The folders of the repository by their last name, for package imports.
pub(crate) struct EsModules {
    dirs_by_name: HashMap<String, Vec<String>>,
}

/// What an import path may leave out, in the order tried.
const ENDINGS: &[&str] = &[
    "",
    ".ts",
    ".tsx",
    ".d.ts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    "/index.ts",
    "/index.tsx",
    "/index.js",
    "/index.jsx",
    "/index.mjs",
];

impl EsModules {
    pub(super) fn new(files: &[Arc<FileEntry>]) -> EsModules {
        let mut dirs_by_name: HashMap<String, Vec<String>> = HashMap::new();
        let mut seen: rustc_hash::FxHashSet<&str> = Default::default();
        for file in files.iter().filter(|f| f.lang.spec().family == "ecma") {
            let mut dir = file.path.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if !seen.insert(parent) {
                    break;
                }
                let name = parent.rsplit('/').next().unwrap_or(parent);
                dirs_by_name.entry(name.to_string()).or_default().push(parent.to_string());
                dir = parent;
            }
        }
        for dirs in dirs_by_name.values_mut() {
            // Shallow folders first (`packages/server` before `examples/a/server`).
            dirs.sort_by_key(|d| (d.matches('/').count(), d.clone()));
        }
        EsModules { dirs_by_name }
    }

    /// The file of the repository's own package a scoped specifier names: `@scope/name/sub` in
    /// a folder `name`, as `src/sub` or `sub` (`index` when there is no subpath). Unscoped
    /// names stay outside: `next` is the framework even where the repository has a
    /// `packages/next` of its own (trpc's `@trpc/next`).
    fn resolve_package(&self, r: &dyn Binder, spec: &str) -> Option<u32> {
        let mut parts = spec.splitn(3, '/');
        if !parts.next()?.starts_with('@') {
            return None;
        }
        let (name, sub) = (parts.next()?, parts.next().unwrap_or(""));
        for dir in self.dirs_by_name.get(name)? {
            if dir.split('/').any(|part| part == "node_modules") {
                continue;
            }
            for base in [format!("{dir}/src"), dir.clone()] {
                let stem = if sub.is_empty() { format!("{base}/index") } else { format!("{base}/{sub}") };
                if let Some(found) =
                    ENDINGS.iter().find_map(|ending| r.file_index(&format!("{stem}{ending}")))
                {
                    return Some(found);
                }
            }
        }
        None
    }

    /// The file a module specifier names from `file`, when it is in the repository.
    fn resolve(&self, r: &dyn Binder, file: u32, spec: &str) -> Option<u32> {
        if !spec.starts_with('.') {
            return self.resolve_package(r, spec);
        }
        let dir = r.path(file).rsplit_once('/').map_or("", |(d, _)| d);
        let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        for part in spec.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                other => parts.push(other),
            }
        }
        let base = parts.join("/");
        // TypeScript sources are imported by their output's name: `./cart.js` is `cart.ts`.
        let stem = [".js", ".jsx", ".mjs", ".cjs"].iter().find_map(|e| base.strip_suffix(e));
        ENDINGS
            .iter()
            .map(|ending| format!("{base}{ending}"))
            .chain(stem.into_iter().flat_map(|s| [".ts", ".tsx", ".d.ts"].map(|e| format!("{s}{e}"))))
            .find_map(|path| r.file_index(&path))
    }

    /// A module's top-level names (definitions, bindings, imports), then its `export * from`.
    fn module_member(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        // A chase of its own, bounded with the resolver's.
        let following = crate::meaning::Following::member(file, 0, name);
        let Some(_step) = crate::meaning::step_following(following) else { return Vec::new() };
        r.top_level_then_globs(file, name, depth, &|from, spec| self.resolve(r, from, spec))
    }

    /// A class's own method, else the first base's (`extends`, `implements`) that has it.
    fn class_member(
        &self,
        r: &dyn Binder,
        file: u32,
        class: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        r.member_through_bases(file, class, depth, skip_own, &|file, class, _| {
            r.children_named(file, class, name)
        })
    }
}

/// The class whose body (a method, or a function inside one) holds `pos`.
fn enclosing_class(r: &dyn Binder, file: u32, pos: Pos) -> Option<u32> {
    let symbols = r.symbols(file);
    let mut scope = innermost_scope(&symbols.scopes, pos);
    while scope != NONE {
        let s = symbols.scopes[scope as usize];
        if s.kind == ScopeKind::Class && s.def != NONE {
            return Some(s.def);
        }
        scope = s.parent;
    }
    None
}

impl Tables for EsModules {
    /// Rebuilt when a changed file sits in a folder the tables do not know.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Arc<dyn Tables> {
        let known = changed.iter().all(|&i| {
            let file = &files[i as usize];
            let Some((dir, _)) = file.path.rsplit_once('/') else { return true };
            let name = dir.rsplit('/').next().unwrap_or(dir);
            file.lang.spec().family != "ecma"
                || self.dirs_by_name.get(name).is_some_and(|d| d.iter().any(|d| d == dir))
        });
        if known { self } else { Arc::new(EsModules::new(files)) }
    }

    /// A module has no name of its own beyond its path, which the hits already show.
    fn module_path(&self, _file: u32) -> Option<String> {
        None
    }

    /// `Cart.add` is a definition's own qualified name, which `lookup_symbol` matches first;
    /// there is no module path to start from.
    fn lookup_path(&self, _r: &dyn Binder, _query: &str) -> Vec<Target> {
        Vec::new()
    }

    /// The names of `import { a } from './m'` are the module's.
    fn import_base(
        &self,
        r: &dyn Binder,
        file: u32,
        qualifier: &str,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Value>> {
        if kind != RefKind::Import {
            return None;
        }
        Some(
            self.resolve(r, file, qualifier).map(|m| Value::Module(m, NONE)).ok_or_else(|| {
                format!("{name} is imported from {qualifier}, which is outside the repository")
            }),
        )
    }

    fn glob_base(&self, r: &dyn Binder, file: u32, _scope: u32, module: &str, _depth: u32) -> Option<Value> {
        self.resolve(r, file, module).map(|m| Value::Module(m, NONE))
    }

    /// The module, or the name it exports; the import itself when the module is outside the
    /// repository or the name is not found in it (a default export under another name).
    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let i = symbols.imports[import as usize];
        let itself = Found { target: Target::Import { file, import }, value: Some(Value::External(file)) };
        let Some(m) = self.resolve(r, file, symbols.text(i.module)) else { return vec![itself] };
        if i.item == NONE {
            return vec![module_found(m)];
        }
        let item = symbols.text(i.item);
        let wanted = if item == "default" { symbols.text(i.bound) } else { item };
        let found = self.module_member(r, m, wanted, depth + 1);
        if found.is_empty() { vec![itself] } else { found }
    }

    /// `this` and `super` in a class; otherwise a name in scope.
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        if matches!(name, "this" | "super")
            && let Some(class) = enclosing_class(r, file, pos)
        {
            return Some(if name == "this" {
                Value::Instance(file, class)
            } else {
                Value::Super(file, class)
            });
        }
        r.lookup_lexical(file, pos, name, depth + 1).iter().find_map(|f| f.value)
    }

    fn member(&self, r: &dyn Binder, value: Value, name: &str, depth: u32, _public: bool) -> Vec<Found> {
        match value {
            Value::Module(file, _) => self.module_member(r, file, name, depth),
            Value::Class(f, d) | Value::Instance(f, d) => self.class_member(r, f, d, name, depth, false),
            Value::Super(f, d) => self.class_member(r, f, d, name, depth, true),
            Value::Function(..) | Value::External(_) => Vec::new(),
        }
    }
}

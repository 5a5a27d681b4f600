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

use crate::meaning::{Binder, Found, Tables, Value};
use crate::names::{Import, Pos};
use crate::snapshot::FileEntry;
use crate::symbols::FileSymbols;

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
}

impl Tables for EsModules {
    /// Rebuilt when a changed file sits in a folder the tables do not know.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let known = changed.iter().all(|&i| {
            let file = &files[i as usize];
            let Some((dir, _)) = file.path.rsplit_once('/') else { return true };
            let name = dir.rsplit('/').next().unwrap_or(dir);
            file.lang.spec().family != "ecma"
                || self.dirs_by_name.get(name).is_some_and(|d| d.iter().any(|d| d == dir))
        });
        if known { Some(self) } else { None }
    }

    /// The file a module specifier names from `file`, when it is in the repository.
    fn module_file(&self, r: &dyn Binder, file: u32, spec: &str) -> Option<u32> {
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

    /// A default import looks up the name it binds (a default export under another name is
    /// not found: the import itself stands for it).
    fn imported_name<'s>(&self, symbols: &'s FileSymbols, import: &Import) -> &'s str {
        let item = symbols.text(import.item);
        if item == "default" { symbols.text(import.bound) } else { item }
    }

    /// `this` and `super` in a class.
    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        crate::meaning::class_receiver(r, file, pos, name, ("this", "super"))
    }

    /// A module's top-level names (definitions, bindings, imports), then its `export * from`.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        _def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        // A chase of its own, bounded with the resolver's.
        let following = crate::meaning::Following::member(file, 0, name);
        let Some(_step) = crate::meaning::step_following(following) else { return Vec::new() };
        r.top_level_then_globs(file, name, depth, &|from, spec| self.module_file(r, from, spec))
    }
}

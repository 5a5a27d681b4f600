//! Go's side of name resolution: a package is a directory whose files share one scope; an
//! import path names a package by the module path (learnt from the repository's imports of its
//! own packages, as `go.mod` is not indexed) and the directory below the module's root, or, with
//! no module (a `GOROOT/src` layout), by the directory itself. Members: a package's names, a
//! type's methods (by receiver type, in the type's package), an interface's methods.

use std::collections::HashMap;
use std::sync::Arc;

use crate::lang::common::changed_alike;
use crate::meaning::{Binder, Found, MAX_DEPTH, Tables, Target, Value, declared_fields};
use crate::names::NONE;
use crate::snapshot::FileEntry;
use crate::snapshot::Lang;
use crate::symbols::DefKind;

/// Go's tables: every package directory with its files.
pub(super) struct Packages {
    /// Each Go file's directory.
    dir_of: Vec<Option<String>>,
    /// A package's files, in file order.
    by_dir: HashMap<String, Vec<u32>>,
    /// The module path, when the repository imports its own packages.
    module: Option<String>,
}

/// The name an import binds when it gives none: the path's last element, a major version
/// (`/v2`) and a `go-` prefix or `.v3` suffix dropped.
pub(super) fn default_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let mut last = parts.next().unwrap_or(path);
    let is_version =
        |s: &str| s.len() > 1 && s.starts_with('v') && s[1..].chars().all(|c| c.is_ascii_digit());
    if is_version(last)
        && let Some(before) = parts.next()
    {
        last = before;
    }
    let last = last.split('.').next().unwrap_or(last);
    last.strip_prefix("go-").unwrap_or(last)
}

impl Packages {
    pub(super) fn new(files: &[Arc<FileEntry>]) -> Packages {
        let mut dir_of = Vec::with_capacity(files.len());
        let mut by_dir: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != Lang::Go {
                dir_of.push(None);
                continue;
            }
            let dir = file.path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
            by_dir.entry(dir.clone()).or_default().push(i as u32);
            dir_of.push(Some(dir));
        }
        // The module path: what the repository's imports of its own directories start with.
        let mut votes: HashMap<&str, u32> = HashMap::new();
        for file in files.iter().filter(|f| f.lang == Lang::Go) {
            let symbols = &file.symbols;
            for import in &symbols.imports {
                let path = symbols.text(import.module);
                if by_dir.contains_key(path) {
                    continue;
                }
                let suffix =
                    path.match_indices('/').map(|(i, _)| i).find(|&i| by_dir.contains_key(&path[i + 1..]));
                if let Some(i) = suffix {
                    *votes.entry(&path[..i]).or_default() += 1;
                }
            }
        }
        let module =
            votes.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0))).map(|(m, _)| m.to_string());
        Packages { dir_of, by_dir, module }
    }

    /// The files of a file's package.
    fn package_of(&self, file: u32) -> &[u32] {
        match self.dir_of.get(file as usize).and_then(|d| d.as_deref()) {
            Some(dir) => self.by_dir.get(dir).map_or(&[], Vec::as_slice),
            None => &[],
        }
    }

    /// The file that stands for a package: its first file that is not a test.
    fn representative(&self, r: &dyn Binder, files: &[u32]) -> Option<u32> {
        files.iter().copied().find(|&f| !r.path(f).ends_with("_test.go")).or(files.first().copied())
    }

    /// The package an import path names.
    fn package_at(&self, path: &str) -> Option<&[u32]> {
        let dir = match &self.module {
            Some(module) if path == module => "",
            Some(module) => {
                path.strip_prefix(module.as_str()).and_then(|rest| rest.strip_prefix('/')).unwrap_or(path)
            }
            None => path,
        };
        self.by_dir.get(dir).map(Vec::as_slice)
    }
}

impl Tables for Packages {
    /// A package is a directory, which a change of contents keeps; the module path is voted
    /// by the imports: kept while no changed Go file's imports changed.
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let imports = |file: &FileEntry| -> Vec<String> {
            let symbols = &file.symbols;
            symbols.imports.iter().map(|i| symbols.text(i.module).to_string()).collect()
        };
        let same = changed_alike(Lang::Go, (before, files), changed, |a, b| imports(a) == imports(b));
        if same { Some(self) } else { None }
    }

    /// The package's import path.
    fn module_path(&self, file: u32) -> Option<String> {
        let dir = self.dir_of.get(file as usize)?.as_deref()?;
        Some(match (&self.module, dir) {
            (Some(module), "") => module.clone(),
            (Some(module), dir) => format!("{module}/{dir}"),
            (None, dir) => dir.to_string(),
        })
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        let Some(files) = self.package_at(name) else { return Vec::new() };
        files.iter().copied().find(|f| self.dir_of[*f as usize].is_some()).into_iter().collect()
    }

    /// `pkg.Name`, `pkg.Type.Method`: from each package whose directory ends in `pkg`.
    fn lookup_path(&self, r: &dyn Binder, query: &str) -> Vec<Target> {
        let parts: Vec<&str> = query.split('.').collect();
        if parts.len() < 2 {
            return Vec::new();
        }
        let mut dirs: Vec<&String> = self
            .by_dir
            .keys()
            .filter(|dir| {
                let last = dir.rsplit('/').next().unwrap_or(dir);
                last == parts[0]
                    || (dir.is_empty() && self.module.as_deref().map(default_name) == Some(parts[0]))
            })
            .collect();
        dirs.sort();
        let mut out = Vec::new();
        for dir in dirs {
            let Some(rep) = self.representative(r, &self.by_dir[dir]) else { continue };
            out.extend(r.member_path(Value::Module(rep, NONE), &parts[1..]));
        }
        out
    }

    /// The package an import path names, by its first file that is not a test.
    fn module_file(&self, r: &dyn Binder, _file: u32, path: &str) -> Option<u32> {
        self.representative(r, self.package_at(path)?)
    }

    /// A name the file does not bind: the package's other files.
    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        r.top_level_defs(self.package_of(file), Some(file), name, depth + 1)
    }

    /// The package-level definitions of the name, in every file of the package.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        _def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        r.top_level_defs(self.package_of(file), None, name, depth)
    }

    /// A type's methods named `name`: an interface's own, else those whose receiver is the
    /// type, in its package; else a field a struct declares (what `s.db` holds). A type has no
    /// bases.
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
        let ty = r.def(file, def);
        if ty.kind == DefKind::Interface {
            return r.children_named(file, def, name);
        }
        let qualified = format!("{}.{name}", ty.name());
        let mut found = Vec::new();
        for &f in self.package_of(file) {
            for (i, d) in r.symbols(f).defs.iter().enumerate() {
                if d.kind == DefKind::Method && d.parent().is_none() && d.qualified() == qualified {
                    found.push(r.def_found(f, i as u32));
                }
            }
        }
        if !found.is_empty() {
            return found;
        }
        declared_fields(r, file, def, name, depth)
    }
}

//! Name resolution where the files of a group share one scope without importing each other's
//! names: Ruby's constants and Bash's functions are global once loaded, a Swift module is every
//! file of its target. A name a file does not bind is a top-level definition of another file of
//! its group; a type is open (Ruby reopens a class in another file, Swift extends it), so its
//! members are those of every definition of the same qualified name in the group, then its
//! bases'. An import names a group by the module it stands for (Swift's `import Cart` is the
//! target `Sources/Cart`, or the folder `Package.swift` gives it).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::meaning::{Binder, Found, MAX_DEPTH, Tables, Value};
use crate::names::NONE;
use crate::snapshot::{FileEntry, Lang};
use crate::symbols::DefKind;

/// The group a file belongs to, by its path: files of one group see each other's names.
pub(super) type GroupOf<'a> = &'a dyn Fn(&str) -> String;

/// The whole repository is one group.
pub(super) fn one_group(_path: &str) -> String {
    String::new()
}

/// One language's groups of files.
pub(super) struct SharedScope {
    lang: Lang,
    group_of: Vec<Option<String>>,
    by_group: HashMap<String, Vec<u32>>,
    /// The group a module name stands for where a manifest names it (a Swift target whose
    /// folder is not named after it); else the group whose folder is so named.
    named: HashMap<String, String>,
    /// Where the language's loads (Ruby's `require`, Bash's `source`, kept as glob imports)
    /// look for a file: each of the group's files by every tail of its path (`lib/shop/cart.rb`
    /// under `shop/cart.rb` and `cart.rb` too). Empty for a language whose files load none.
    by_tail: HashMap<String, Vec<u32>>,
    /// Each file's loads, directly or through others, sorted: made on first use.
    loaded: Vec<OnceLock<Vec<u32>>>,
}

/// How many files a lookup follows loads through (those a file loads, theirs, …).
const MOST_LOADED: usize = 64;

impl SharedScope {
    /// Module names and their groups, as a manifest declares them.
    pub(super) fn with_names(self, named: HashMap<String, String>) -> SharedScope {
        SharedScope { named, ..self }
    }

    pub(super) fn new(files: &[Arc<FileEntry>], lang: Lang, group: GroupOf<'_>) -> SharedScope {
        let mut group_of = Vec::with_capacity(files.len());
        let mut by_group: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != lang {
                group_of.push(None);
                continue;
            }
            let key = group(&file.path);
            by_group.entry(key.clone()).or_default().push(i as u32);
            group_of.push(Some(key));
        }
        SharedScope {
            lang,
            group_of,
            by_group,
            named: HashMap::new(),
            by_tail: HashMap::new(),
            loaded: Vec::new(),
        }
    }

    /// Files of the group load others by path (glob imports): a name defined in several files
    /// means, from a file, the definitions of the files it loads, directly or through others,
    /// when any has one.
    pub(super) fn with_loads(self, files: &[Arc<FileEntry>]) -> SharedScope {
        let mut by_tail: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if self.group_of[i].is_none() {
                continue;
            }
            let path = file.path.as_str();
            let tails = std::iter::once(0).chain(path.match_indices('/').map(|(at, _)| at + 1));
            for at in tails {
                by_tail.entry(path[at..].to_string()).or_default().push(i as u32);
            }
        }
        let loaded = (0..files.len()).map(|_| OnceLock::new()).collect();
        SharedScope { by_tail, loaded, ..self }
    }

    /// The file a load in `file` names (`./cart`, `shop/cart`, `lib/cart.sh`), with or without
    /// its extension: beside the loading file first (a relative path only there), else the
    /// shortest path of the group that ends so.
    fn loaded_file(&self, r: &dyn Binder, file: u32, module: &str) -> Option<u32> {
        let path = r.path(file);
        let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
        let relative = module.starts_with("./") || module.starts_with("../");
        let forms = std::iter::once(module.to_string())
            .chain(r.lang(file).spec().extensions.iter().map(|ext| format!("{module}.{ext}")));
        let mut best: Option<u32> = None;
        for form in forms {
            if let Some(beside) = super::manifests::beside(dir, &form)
                && let Some(f) = r.file_index(&beside).filter(|&f| self.same_group(file, f))
            {
                return Some(f);
            }
            if relative {
                continue;
            }
            let tail = form.trim_start_matches('/');
            for &f in self.by_tail.get(tail).map_or(&[][..], Vec::as_slice) {
                if self.same_group(file, f) && best.is_none_or(|b| r.path(f).len() < r.path(b).len()) {
                    best = Some(f);
                }
            }
        }
        best
    }

    /// The files `file` loads, directly or through the files they load (at most
    /// [`MOST_LOADED`]), sorted.
    fn loaded_by(&self, r: &dyn Binder, file: u32) -> &[u32] {
        match self.loaded.get(file as usize) {
            Some(cell) => cell.get_or_init(|| self.follow_loads(r, file)),
            None => &[],
        }
    }

    fn follow_loads(&self, r: &dyn Binder, file: u32) -> Vec<u32> {
        let mut seen = vec![file];
        let mut next = 0;
        while next < seen.len() && seen.len() <= MOST_LOADED {
            let from = seen[next];
            next += 1;
            let symbols = r.symbols(from);
            for import in symbols.imports.iter().filter(|i| i.glob) {
                if let Some(f) = self.loaded_file(r, from, symbols.text(import.module))
                    && !seen.contains(&f)
                {
                    seen.push(f);
                }
            }
        }
        seen.remove(0);
        seen.sort_unstable();
        seen
    }

    /// Whether a change may have changed what a file loads: a changed file's loads differ.
    pub(super) fn loads_kept(
        &self,
        lang: Lang,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> bool {
        let loads = |file: &FileEntry| -> Vec<String> {
            let symbols = &file.symbols;
            symbols.imports.iter().filter(|i| i.glob).map(|i| symbols.text(i.module).to_string()).collect()
        };
        self.by_tail.is_empty()
            || super::common::changed_alike(lang, (before, files), changed, |a, b| loads(a) == loads(b))
    }

    /// The files of a file's group.
    fn group(&self, file: u32) -> &[u32] {
        match self.group_of.get(file as usize).and_then(|g| g.as_deref()) {
            Some(key) => self.by_group.get(key).map_or(&[], Vec::as_slice),
            None => &[],
        }
    }

    fn same_group(&self, a: u32, b: u32) -> bool {
        let key = |f: u32| self.group_of.get(f as usize).and_then(|g| g.as_deref());
        key(a).is_some() && key(a) == key(b)
    }
}

impl Tables for SharedScope {
    /// Groups follow paths, which a change of contents keeps; what files load, only while no
    /// changed file's loads changed.
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let lang = self.lang;
        if self.loads_kept(lang, before, files, changed) { Some(self) } else { None }
    }

    /// The group a module name stands for: a folder whose last part is the name (Swift's
    /// `import Cart` and `Sources/Cart`).
    fn module_named(&self, name: &str) -> Vec<u32> {
        if let Some(files) = self.named.get(name).and_then(|key| self.by_group.get(key)) {
            return files.first().copied().into_iter().collect();
        }
        let mut keys: Vec<&String> =
            self.by_group.keys().filter(|k| k.rsplit('/').next() == Some(name) && !k.is_empty()).collect();
        keys.sort();
        keys.first().and_then(|k| self.by_group[*k].first().copied()).into_iter().collect()
    }

    fn module_file(&self, _r: &dyn Binder, _file: u32, module: &str) -> Option<u32> {
        self.module_named(module).first().copied()
    }

    /// A name the file does not bind: a top-level definition of another file of its group,
    /// those of the files it loads when several files define it and these do.
    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        let found = r.top_level_defs(self.group(file), Some(file), name, depth + 1);
        let first = found.first().map(|f| f.target.file());
        if self.by_tail.is_empty() || found.iter().all(|f| Some(f.target.file()) == first) {
            return found;
        }
        let loaded = self.loaded_by(r, file);
        let is_loaded = |f: &Found| loaded.binary_search(&f.target.file()).is_ok();
        if found.iter().any(is_loaded) { found.into_iter().filter(is_loaded).collect() } else { found }
    }

    /// A group's names: the top-level definitions of every file in it.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        if def != NONE {
            return self.type_member(r, file, def, name, depth, false);
        }
        r.top_level_defs(self.group(file), None, name, depth)
    }

    /// A type's own member, else one of a definition of the same qualified name elsewhere in
    /// the group (a class reopened, an extension), else its bases'.
    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        r.member_through_bases(file, def, depth, skip_own, &|file, def, _| {
            let own = r.children_named(file, def, name);
            if !own.is_empty() {
                return own;
            }
            let ty = r.def(file, def);
            let qualified = ty.qualified();
            let is_type = |k: DefKind| {
                matches!(
                    k,
                    DefKind::Class | DefKind::Interface | DefKind::Enum | DefKind::Module | DefKind::Type
                )
            };
            let mut found = Vec::new();
            for &(f, d) in r.defs_named(ty.name()).iter() {
                if (f, d) == (file, def) || !self.same_group(file, f) {
                    continue;
                }
                let other = r.def(f, d);
                if is_type(other.kind) && other.qualified() == qualified {
                    found.extend(r.children_named(f, d, name));
                }
            }
            found
        })
    }

    /// What a module definition stands for: itself, as a namespace of its children.
    fn module_of_def(&self, _r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        Some(Value::Module(file, def))
    }
}

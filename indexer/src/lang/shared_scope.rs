//! Name resolution where the files of a group share one scope without importing each other's
//! names: Ruby's constants and Bash's functions are global once loaded, a Swift module is every
//! file of its target. A name a file does not bind is a top-level definition of another file of
//! its group; a type is open (Ruby reopens a class in another file, Swift extends it), so its
//! members are those of every definition of the same qualified name in the group, then its
//! bases'. An import names a group by the module it stands for (Swift's `import Cart` is the
//! target `Sources/Cart`).

use std::collections::HashMap;
use std::sync::Arc;

use crate::meaning::{Binder, Found, MAX_DEPTH, Tables, Value};
use crate::names::NONE;
use crate::snapshot::{FileEntry, Lang};
use crate::symbols::DefKind;

/// The group a file belongs to, by its path: files of one group see each other's names.
pub(super) type GroupOf = fn(&str) -> &str;

/// The whole repository is one group.
pub(super) fn one_group(_path: &str) -> &str {
    ""
}

/// One language's groups of files.
pub(super) struct SharedScope {
    group_of: Vec<Option<String>>,
    by_group: HashMap<String, Vec<u32>>,
}

impl SharedScope {
    pub(super) fn new(files: &[Arc<FileEntry>], lang: Lang, group: GroupOf) -> SharedScope {
        let mut group_of = Vec::with_capacity(files.len());
        let mut by_group: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != lang {
                group_of.push(None);
                continue;
            }
            let key = group(&file.path).to_string();
            by_group.entry(key.clone()).or_default().push(i as u32);
            group_of.push(Some(key));
        }
        SharedScope { group_of, by_group }
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
    /// Groups follow paths, which a change of contents keeps.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        _files: &[Arc<FileEntry>],
        _changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        Some(self)
    }

    /// The group a module name stands for: a folder whose last part is the name (Swift's
    /// `import Cart` and `Sources/Cart`).
    fn module_named(&self, name: &str) -> Vec<u32> {
        let mut keys: Vec<&String> =
            self.by_group.keys().filter(|k| k.rsplit('/').next() == Some(name) && !k.is_empty()).collect();
        keys.sort();
        keys.first().and_then(|k| self.by_group[*k].first().copied()).into_iter().collect()
    }

    fn module_file(&self, _r: &dyn Binder, _file: u32, module: &str) -> Option<u32> {
        self.module_named(module).first().copied()
    }

    /// A name the file does not bind: a top-level definition of another file of its group.
    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        r.top_level_defs(self.group(file), Some(file), name, depth + 1)
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

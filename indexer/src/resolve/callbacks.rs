//! What the resolver offers the languages' tables back ([`Binder`]): the files, each file's
//! scope entries, and the lookups that lead back into name resolution. A language calls these
//! while it answers the resolver, so the helpers only languages use live here too.

use std::borrow::Cow;

use super::Resolver;
use crate::meaning::{Binder, Bound, Entry, Found, MAX_DEPTH, Target, Value, step};
use crate::names::Pos;
use crate::snapshot::Lang;
use crate::symbols::{DefRef, FileSymbols};

impl Binder for Resolver {
    fn n_files(&self) -> usize {
        Resolver::n_files(self)
    }

    fn path(&self, file: u32) -> &str {
        Resolver::path(self, file)
    }

    fn file_index(&self, path: &str) -> Option<u32> {
        Resolver::file_index(self, path)
    }

    fn symbols(&self, file: u32) -> &FileSymbols {
        Resolver::symbols(self, file)
    }

    fn lang(&self, file: u32) -> Lang {
        Resolver::lang(self, file)
    }

    fn def(&self, file: u32, def: u32) -> DefRef<'_> {
        Resolver::def(self, file, def)
    }

    fn name_id(&self, file: u32, name: &str) -> Option<u32> {
        Resolver::name_id(self, file, name)
    }

    fn entries_of(&self, file: u32, scope: u32, name: u32) -> &[Entry] {
        self.ctx(file).entries_of(scope, name)
    }

    fn own_scope(&self, file: u32, def: u32) -> u32 {
        self.ctx(file).own_scope.at(def as usize)
    }

    fn defs_named(&self, name: &str) -> Cow<'_, [(u32, u32)]> {
        self.defs_by_name.get(name)
    }

    fn lookup_lexical(&self, file: u32, pos: Pos, name: &str, depth: u32) -> Vec<Found> {
        Resolver::lookup_lexical(self, file, pos, name, depth)
    }

    fn entry_found(&self, file: u32, entry: Entry, depth: u32) -> Vec<Found> {
        Resolver::entry_found(self, file, entry, depth)
    }

    fn def_found(&self, file: u32, def: u32) -> Found {
        Resolver::def_found(self, file, def)
    }

    fn member(&self, value: Value, name: &str, depth: u32) -> Vec<Found> {
        Resolver::member(self, value, name, depth)
    }

    fn member_path(&self, mut value: Value, parts: &[&str]) -> Vec<Target> {
        for (i, part) in parts.iter().enumerate() {
            let found = self.member(value, part, 0);
            if i + 1 == parts.len() {
                return found.iter().map(|f| f.target).collect();
            }
            match found.iter().find_map(|f| f.value) {
                Some(next) => value = next,
                None => break,
            }
        }
        Vec::new()
    }

    fn member_through_bases(
        &self,
        file: u32,
        class: u32,
        depth: u32,
        skip_own: bool,
        own: &dyn Fn(u32, u32, u32) -> Vec<Found>,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        // Not a cycle to cut when met again: `own` may look for another name.
        let Some(_step) = step() else { return Vec::new() };
        if !skip_own {
            let found = own(file, class, depth);
            if !found.is_empty() {
                return found;
            }
        }
        for (bf, bd) in self.bases(file, class, depth) {
            let found = self.member_through_bases(bf, bd, depth + 1, false, own);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    fn children_named(&self, file: u32, def: u32, name: &str) -> Vec<Found> {
        let defs = &self.symbols(file).defs;
        self.ctx(file)
            .children_of(def)
            .filter(|&d| defs.at(d as usize).name() == name)
            .map(|d| self.def_found(file, d))
            .collect()
    }

    fn top_level_defs(&self, files: &[u32], skip: Option<u32>, name: &str, depth: u32) -> Vec<Found> {
        // A chase of its own, bounded with the resolver's.
        let Some(_step) = step() else { return Vec::new() };
        let mut found = Vec::new();
        for &f in files.iter().filter(|&&f| Some(f) != skip) {
            let Some(id) = self.name_id(f, name) else { continue };
            found.extend(
                self.ctx(f)
                    .entries_of(0, id)
                    .iter()
                    .filter(|e| matches!(e.bound(), Bound::Def(_)))
                    .flat_map(|e| self.entry_found(f, *e, depth)),
            );
        }
        found
    }

    fn top_level_then_globs(
        &self,
        file: u32,
        name: &str,
        depth: u32,
        resolve: &dyn Fn(u32, &str) -> Option<u32>,
    ) -> Vec<Found> {
        let mut visited = rustc_hash::FxHashSet::default();
        self.top_level_then_globs_in(file, name, depth, resolve, &mut visited)
    }
}

impl Resolver {
    /// [`Binder::top_level_then_globs`], each file looked into once: headers that include each
    /// other's includes would otherwise be walked once per path to them (C's include graphs
    /// made that exponential in the depth).
    fn top_level_then_globs_in(
        &self,
        file: u32,
        name: &str,
        depth: u32,
        resolve: &dyn Fn(u32, &str) -> Option<u32>,
        visited: &mut rustc_hash::FxHashSet<u32>,
    ) -> Vec<Found> {
        if depth > MAX_DEPTH || !visited.insert(file) {
            return Vec::new();
        }
        if let Some(id) = self.name_id(file, name) {
            let found: Vec<Found> = self
                .ctx(file)
                .entries_of(0, id)
                .iter()
                .flat_map(|e| self.entry_found(file, *e, depth))
                .collect();
            if !found.is_empty() {
                return found;
            }
        }
        let symbols = self.symbols(file);
        for import in symbols.imports.iter().filter(|i| i.glob && i.scope == 0) {
            if let Some(base) = resolve(file, symbols.text(import.module))
                && base != file
            {
                let found = self.top_level_then_globs_in(base, name, depth + 1, resolve, visited);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }
}

//! C and C++ name resolution: a file sees its own names, the headers it includes (and theirs,
//! as far as [`MAX_DEPTH`] reaches), then the one definition of a name that the linker would
//! find (non-`static`, in any file of the family). An include path is tried beside the
//! including file, then as the end of any file's path (the repository's `-I` folders are not
//! known); the candidate sharing the most leading folders with the includer wins. Members: a
//! class's or namespace's own, its out-of-line methods (`Cart::add`), then its bases'.

use std::collections::HashMap;
use std::sync::Arc;

use crate::meaning::{Binder, Found, Lookup, Tables, Value};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, RefKind, innermost_scope};

/// The C family's tables: its files by their last path component, for includes.
pub(crate) struct Includes {
    by_file_name: HashMap<String, Vec<u32>>,
}

impl Includes {
    pub(super) fn new(files: &[Arc<FileEntry>]) -> Includes {
        let mut by_file_name: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang.spec().family != "c" {
                continue;
            }
            let name = file.path.rsplit('/').next().unwrap_or(&file.path).to_string();
            by_file_name.entry(name).or_default().push(i as u32);
        }
        Includes { by_file_name }
    }

    /// A name in the namespaces and classes around `pos`, innermost first, wherever they are
    /// (re)opened.
    fn enclosing_member(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Vec<Found> {
        let symbols = r.symbols(file);
        let mut scope = innermost_scope(&symbols.scopes, pos);
        while scope != NONE {
            let s = symbols.scopes[scope as usize];
            if s.def != NONE {
                let def = symbols.defs.at(s.def as usize);
                // An out-of-line method's body sees its class's members.
                let around = match s.kind {
                    ScopeKind::Module | ScopeKind::Class => Some(def.qualified()),
                    ScopeKind::Function
                        if def.kind == DefKind::Method
                            && def
                                .parent()
                                .is_none_or(|p| symbols.defs[p as usize].kind != DefKind::Class) =>
                    {
                        def.qualified().rsplit_once("::").map(|(class, _)| class)
                    }
                    _ => None,
                };
                if let Some(around) = around {
                    let found = qualified_defs(r, &format!("{around}::{name}"), name);
                    if !found.is_empty() {
                        return found;
                    }
                }
            }
            scope = s.parent;
        }
        Vec::new()
    }
}

/// The definitions of the family named `qualified`; a declaration (a line ending in `;`) only
/// when nothing defines it.
fn qualified_defs(r: &dyn Binder, qualified: &str, name: &str) -> Vec<Found> {
    let all: Vec<(u32, u32)> = r
        .defs_named(name)
        .iter()
        .copied()
        .filter(|&(f, d)| r.lang(f).spec().family == "c" && r.def(f, d).qualified() == qualified)
        .collect();
    let defined: Vec<(u32, u32)> =
        all.iter().copied().filter(|&(f, d)| !r.def(f, d).header().trim_end().ends_with(';')).collect();
    let chosen = if defined.is_empty() { all } else { defined };
    chosen.into_iter().map(|(f, d)| r.def_found(f, d)).collect()
}

/// The class whose body (or out-of-line method) holds `pos`.
fn enclosing_class(r: &dyn Binder, file: u32, pos: Pos) -> Option<(u32, u32)> {
    let symbols = r.symbols(file);
    let mut scope = innermost_scope(&symbols.scopes, pos);
    while scope != NONE {
        let s = symbols.scopes[scope as usize];
        if s.def != NONE {
            let def = symbols.defs.at(s.def as usize);
            if s.kind == ScopeKind::Class {
                return Some((file, s.def));
            }
            // `void Cart::add(…) { this->… }`: the class named before the method.
            if def.kind == DefKind::Method && def.parent().is_none() {
                let class = def.qualified().rsplit_once("::")?.0;
                let name = class.rsplit("::").next().unwrap_or(class);
                return r
                    .defs_named(name)
                    .iter()
                    .copied()
                    .find(|&(f, d)| r.def(f, d).kind == DefKind::Class && r.def(f, d).qualified() == class);
            }
        }
        scope = s.parent;
    }
    None
}

impl Tables for Includes {
    /// Only paths matter, and the resolver has them.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let known = changed.iter().all(|&i| {
            let file = &files[i as usize];
            let name = file.path.rsplit('/').next().unwrap_or(&file.path);
            file.lang.spec().family != "c" || self.by_file_name.get(name).is_some_and(|f| f.contains(&i))
        });
        if known { Some(self) } else { None }
    }

    /// The file an include path names from `file` (`#include "x.h"`: the header, whose names
    /// the including file sees).
    fn module_file(&self, r: &dyn Binder, file: u32, include: &str) -> Option<u32> {
        let dir = r.path(file).rsplit_once('/').map_or("", |(d, _)| d);
        let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        for part in include.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                other => parts.push(other),
            }
        }
        if let Some(beside) = r.file_index(&parts.join("/")) {
            return Some(beside);
        }
        let name = include.rsplit('/').next().unwrap_or(include);
        let suffix = format!("/{include}");
        let shared =
            |f: u32| r.path(f).split('/').zip(r.path(file).split('/')).take_while(|(a, b)| a == b).count();
        self.by_file_name
            .get(name)?
            .iter()
            .copied()
            .filter(|&f| r.path(f) == include || r.path(f).ends_with(&suffix))
            .max_by_key(|&f| (shared(f), std::cmp::Reverse(f)))
    }

    /// The one non-`static` definition of the name in the family (what the linker finds);
    /// none when there are several (they stay candidates).
    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, _depth: u32) -> Vec<Found> {
        let global: Vec<(u32, u32)> = r
            .defs_named(name)
            .iter()
            .copied()
            .filter(|&(f, d)| {
                let def = r.def(f, d);
                r.lang(f).spec().family == "c"
                    && def.parent().is_none()
                    && (f == file || !def.signature().starts_with("static "))
            })
            .collect();
        match global.as_slice() {
            [(f, d)] => vec![r.def_found(*f, *d)],
            _ => Vec::new(),
        }
    }

    /// A namespace's members are its own definitions, as a class's are.
    fn module_of_def(&self, _r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        Some(Value::Class(file, def))
    }

    /// `this` in a method; otherwise a name in scope, else in the namespaces around.
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        if name == "this" {
            return enclosing_class(r, file, pos).map(|(f, d)| Value::Instance(f, d));
        }
        let lexical = r.lookup_lexical(file, pos, name, depth + 1);
        if !lexical.is_empty() {
            return lexical.iter().find_map(|f| f.value);
        }
        self.enclosing_member(r, file, pos, name).iter().find_map(|f| f.value)
    }

    /// A bare name nothing in scope binds: a member of the namespaces and classes around it.
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        _kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        let lexical = r.lookup_lexical(file, pos, name, 1);
        if !lexical.is_empty() {
            return Some(Ok(lexical));
        }
        let around = self.enclosing_member(r, file, pos, name);
        (!around.is_empty()).then_some(Ok(around))
    }

    /// A class's (or namespace's) member: every definition of that qualified name (in its body,
    /// out of line, in the namespace reopened in another file), else its bases'.
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
            qualified_defs(r, &format!("{}::{name}", r.def(file, def).qualified()), name)
        })
    }
}

//! Name resolution where a file declares the package (or namespace) it belongs to, as Java,
//! Kotlin, C# and PHP do: a package is the set of files that declare it (wherever they sit:
//! `src/main/java` and `src/test/java` share theirs); a qualified name is a package, then types,
//! then members, joined by the language's separator. A file sees its own package as a glob
//! import (its declaration decodes as one, marked `alias`), single-type imports before it and
//! on-demand imports after. Members: a package's top-level types, a type's members, fields and
//! nested types, then its bases'.

use std::collections::HashMap;
use std::sync::Arc;

use crate::lang::ModuleRoot;
use crate::lang::common::changed_alike;
use crate::meaning::{
    Binder, Bound, Found, Lookup, MAX_DEPTH, Tables, Target, Value, classes_around, import_found,
};
use crate::names::{NONE, Pos};
use crate::snapshot::FileEntry;
use crate::snapshot::Lang;
use crate::symbols::RefKind;

/// The tables of one such language: each file's package and each package's files.
pub(super) struct Packages {
    lang: Lang,
    /// The words for the instance and for its base inside a type's body (`this`, `super`).
    receivers: (&'static str, &'static str),
    /// Between the parts of a package's path as code writes it: `.`, PHP's `\`.
    package_separator: &'static str,
    package_of: Vec<Option<String>>,
    by_package: HashMap<String, Vec<u32>>,
    /// Where the manifest says a package's files sit (PHP's PSR-4 prefixes): of two files that
    /// define one type of a package, the one at the path these give is the type.
    roots: Vec<ModuleRoot>,
}

/// A file's package, as its `package` declaration names it (extraction keeps it as a glob
/// import with an alias); empty for none.
fn declared_package(file: &FileEntry) -> String {
    let symbols = &file.symbols;
    symbols
        .imports
        .iter()
        .find(|i| i.glob && i.alias)
        .map_or(String::new(), |i| symbols.text(i.module).to_string())
}

impl Packages {
    pub(super) fn new(
        files: &[Arc<FileEntry>],
        lang: Lang,
        receivers: (&'static str, &'static str),
        package_separator: &'static str,
    ) -> Packages {
        let mut package_of = Vec::with_capacity(files.len());
        let mut by_package: HashMap<String, Vec<u32>> = HashMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.lang != lang {
                package_of.push(None);
                continue;
            }
            let package = declared_package(file);
            by_package.entry(package.clone()).or_default().push(i as u32);
            package_of.push(Some(package));
        }
        Packages { lang, receivers, package_separator, package_of, by_package, roots: Vec::new() }
    }

    pub(super) fn with_roots(self, roots: Vec<ModuleRoot>) -> Packages {
        Packages { roots, ..self }
    }

    /// The paths the manifest gives a type `name` of `package` (`App\Shop` and `Cart` under
    /// `"App\\": "src/"`: `src/Shop/Cart.php`), one per prefix the package starts with.
    fn autoload_paths(&self, package: &str, name: &str) -> Vec<String> {
        let separator = self.package_separator;
        let ext = self.lang.spec().extensions.first().copied().unwrap_or("");
        self.roots
            .iter()
            .filter_map(|root| {
                let rest = if root.module.is_empty() {
                    package
                } else if package == root.module {
                    ""
                } else {
                    package.strip_prefix(&root.module)?.strip_prefix(separator)?
                };
                let mut path = root.folder.clone();
                for part in rest.split(separator).filter(|p| !p.is_empty()).chain([name]) {
                    if !path.is_empty() {
                        path.push('/');
                    }
                    path.push_str(part);
                }
                Some(format!("{path}.{ext}"))
            })
            .collect()
    }

    /// Of several definitions of one name in a package, those at a path the manifest gives
    /// it; all of them when none is.
    fn autoloaded(&self, r: &dyn Binder, file: u32, name: &str, found: Vec<Found>) -> Vec<Found> {
        if found.len() < 2 || self.roots.is_empty() {
            return found;
        }
        let package = self.package_of.get(file as usize).and_then(|p| p.as_deref()).unwrap_or("");
        let paths = self.autoload_paths(package, name);
        let at_path = |f: &Found| paths.iter().any(|p| p == r.path(f.target.file()));
        if found.iter().any(at_path) { found.into_iter().filter(at_path).collect() } else { found }
    }

    fn files_of(&self, file: u32) -> &[u32] {
        match self.package_of.get(file as usize).and_then(|p| p.as_deref()) {
            Some(package) => self.by_package.get(package).map_or(&[], Vec::as_slice),
            None => &[],
        }
    }

    /// What a package path names (`a.b.C`, `App\Shop\Cart`): the longest package it starts
    /// with, then types and members.
    fn resolve_path(&self, r: &dyn Binder, path: &str, depth: u32) -> Option<Value> {
        // A chase of its own, bounded with the resolver's.
        let _step = crate::meaning::step()?;
        let separator = self.package_separator;
        let parts: Vec<&str> = path.split(separator).collect();
        for k in (0..=parts.len()).rev() {
            let package = parts[..k].join(separator);
            let Some(files) = self.by_package.get(&package) else { continue };
            let Some(&first) = files.first() else { continue };
            let mut value = Value::Module(first, NONE);
            for part in &parts[k..] {
                value = self.member(r, value, part, depth + 1, false).iter().find_map(|f| f.value)?;
            }
            return Some(value);
        }
        None
    }
}

impl Tables for Packages {
    /// Packages are declared in files: kept while no changed file's package declaration
    /// changed.
    fn updated(
        self: Arc<Self>,
        before: &[Arc<FileEntry>],
        files: &[Arc<FileEntry>],
        changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        let same = changed_alike(self.lang, (before, files), changed, |a, b| {
            declared_package(a) == declared_package(b)
        });
        if same { Some(self) } else { None }
    }

    fn module_path(&self, file: u32) -> Option<String> {
        self.package_of.get(file as usize)?.clone().filter(|p| !p.is_empty())
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        self.by_package.get(name).and_then(|files| files.first().copied()).into_iter().collect()
    }

    /// `org.shop.Cart.total`: a package, then types and members.
    fn lookup_path(&self, r: &dyn Binder, query: &str) -> Vec<Target> {
        let separator = self.lang.spec().separator;
        let parts: Vec<&str> = query.split(separator).collect();
        for k in (1..parts.len()).rev() {
            let Some(files) = self.by_package.get(&parts[..k].join(separator)) else { continue };
            let Some(&first) = files.first() else { continue };
            return r.member_path(Value::Module(first, NONE), &parts[k..]);
        }
        Vec::new()
    }

    /// The names of `import a.b.C;` and `import static a.b.C.m;` are members of the path.
    fn import_base(
        &self,
        r: &dyn Binder,
        _file: u32,
        qualifier: &str,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Value>> {
        if kind != RefKind::Import {
            return None;
        }
        Some(
            self.resolve_path(r, qualifier, 0).ok_or_else(|| {
                format!("{name} is imported from {qualifier}, which is outside the repository")
            }),
        )
    }

    /// A bare method call inside a type that declares none of that name lexically: a member of
    /// the enclosing types' other parts (C#'s `partial class`) or bases (an inherited method).
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        if kind != RefKind::Call {
            return None;
        }
        let lexical = r.lookup_lexical(file, pos, name, 1);
        if !lexical.is_empty() {
            return Some(Ok(lexical));
        }
        classes_around(r, file, pos)
            .map(|class| self.type_member(r, file, class, name, 1, false))
            .find(|found| !found.is_empty())
            .map(Ok)
    }

    /// `import a.b.*;` (a package's types), `import static a.b.C.*;` (a type's members).
    fn glob_base(&self, r: &dyn Binder, _file: u32, _scope: u32, module: &str, depth: u32) -> Option<Value> {
        self.resolve_path(r, module, depth)
    }

    /// A type or member of the repository, or the import itself when its path is outside it.
    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let i = symbols.imports[import as usize];
        let Some(base) = self.resolve_path(r, symbols.text(i.module), depth + 1) else {
            return vec![import_found(file, import)];
        };
        let found = self.member(r, base, symbols.text(i.item), depth + 1, false);
        if found.is_empty() { vec![import_found(file, import)] } else { found }
    }

    /// The first name of a chain: a receiver, a name in scope, else a path of packages and
    /// types the code writes (PHP's `Pricing\applyDiscount()`, `\App\Shop\Cart::create()`,
    /// which the chain marks with the separator): from the file's own package, else from the
    /// root; one that starts with the separator from the root only.
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        if let Some(value) = self.receiver(r, file, pos, name) {
            return Some(value);
        }
        let lexical = r.lookup_lexical(file, pos, name, depth + 1).iter().find_map(|f| f.value);
        let separator = self.package_separator;
        if lexical.is_some() || separator == "." || !name.contains(separator) {
            return lexical;
        }
        let path = name.trim_end_matches(separator);
        if let Some(absolute) = path.strip_prefix(separator) {
            return self.resolve_path(r, absolute, depth);
        }
        let own = self.package_of.get(file as usize)?.as_deref().unwrap_or("");
        let relative = (!own.is_empty()).then(|| format!("{own}{separator}{path}"));
        relative.and_then(|p| self.resolve_path(r, &p, depth)).or_else(|| self.resolve_path(r, path, depth))
    }

    /// The instance (`this`) and its base (`super`, C#'s `base`) in a type.
    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        crate::meaning::class_receiver(r, file, pos, name, self.receivers)
    }

    /// The top-level types of the package.
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
        let found = r.top_level_defs(self.files_of(file), None, name, depth);
        self.autoloaded(r, file, name, found)
    }

    /// A type's own member (method, nested type, constant, field), else its bases' in order.
    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        r.member_through_bases(file, def, depth, skip_own, &|file, def, depth| {
            let own = r.children_named(file, def, name);
            if !own.is_empty() {
                return own;
            }
            let scope = r.own_scope(file, def);
            if scope != NONE
                && let Some(id) = r.name_id(file, name)
            {
                let fields: Vec<Found> = r
                    .entries_of(file, scope, id)
                    .iter()
                    .filter(|e| matches!(e.bound(), Bound::Binding(_)))
                    .flat_map(|e| r.entry_found(file, *e, depth + 1))
                    .collect();
                if !fields.is_empty() {
                    return fields;
                }
            }
            // A type declared in parts (C#'s `partial class`, Scala's companion `object Cart`
            // beside `class Cart`): the other parts, the same-named top-level types of the
            // package's files.
            let type_def = r.symbols(file).defs.at(def as usize);
            if type_def.parent().is_none() {
                for part in r.top_level_defs(self.files_of(file), None, type_def.name(), depth + 1) {
                    if let Target::Def { file: f, def: d } = part.target
                        && (f, d) != (file, def)
                    {
                        let own = r.children_named(f, d, name);
                        if !own.is_empty() {
                            return own;
                        }
                    }
                }
            }
            // An extension function (Kotlin's `fun Cart.discounted()`): a top-level definition of
            // the type's package that the type's name qualifies.
            let qualified = format!("{}{}{name}", type_def.qualified(), self.lang.spec().separator);
            let is_extension = |found: &Found| match found.target {
                Target::Def { file, def } => r.symbols(file).defs.at(def as usize).qualified() == qualified,
                _ => false,
            };
            r.top_level_defs(self.files_of(file), None, name, depth + 1)
                .into_iter()
                .filter(is_extension)
                .collect()
        })
    }
}

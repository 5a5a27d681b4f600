//! The seam between the languages and the resolver: what a name can mean ([`Target`], and the
//! [`Value`] it holds), a scope's entries, the [`Tables`] each language builds for name
//! resolution, and [`Binder`], what the resolver offers those tables back. Languages and the
//! resolver both import this; neither imports the other's insides.

use std::borrow::Cow;
use std::sync::Arc;

use crate::names::{BindKind, Import, NONE, Pos, ScopeKind};
use crate::snapshot::{FileEntry, Lang};
use crate::symbols::{DefRef, FileSymbols, RefKind, innermost_scope};

/// How deep one resolution may chase imports, aliases and base classes.
pub(crate) const MAX_DEPTH: u32 = 12;

/// How many of a resolution's steps may be under way at once on a thread, however the depth
/// was passed along: a language that starts a chase anew inside another (a dotted module name
/// looked up through the module that imports it) cannot recurse past this.
const MAX_NESTED_STEPS: usize = 96;

/// How many steps one resolution may take in all: a chase that fans out (every glob import of
/// every module) stops here.
const MAX_STEPS: u32 = 50_000;

/// A resolution under way on this thread: the steps nested now (those that name what they
/// follow, so a cycle is seen when it closes), and the steps taken since it began.
#[derive(Default)]
struct Chase {
    nested: Vec<Option<Following>>,
    steps: u32,
}

/// What a step follows, when following it again inside itself would close a cycle that adds
/// nothing (what it finds depends on nothing else): an import, a variable's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Following {
    Import(u32, u32),
    Binding(u32, u32),
    /// A module's member by name: the file, what in it (an inline module, or whether only
    /// public names count), and the name's 64-bit hash (a collision would only end one chase
    /// early).
    Member(u32, u32, u64),
}

impl Following {
    pub(crate) fn member(file: u32, within: u32, name: &str) -> Following {
        use std::hash::BuildHasher as _;
        Following::Member(file, within, rustc_hash::FxBuildHasher.hash_one(name))
    }
}

std::thread_local! {
    static CHASE: std::cell::RefCell<Chase> = std::cell::RefCell::new(Chase::default());
}

/// One step of a resolution under way; dropping it ends the step.
#[must_use]
pub(crate) struct Step(());

impl Drop for Step {
    fn drop(&mut self) {
        CHASE.with_borrow_mut(|chase| {
            chase.nested.pop();
        });
    }
}

/// Begins a step of name resolution, or `None` past [`MAX_NESTED_STEPS`] or [`MAX_STEPS`]:
/// then the step finds nothing. Every lookup that may lead back into another calls this first,
/// so no chain of imports, aliases or bases recurses without a bound.
pub(crate) fn step() -> Option<Step> {
    enter(None)
}

/// [`step`] for a step that follows `what`; `None` too when `what` is already being followed
/// further up: the cycle it would close adds nothing.
pub(crate) fn step_following(what: Following) -> Option<Step> {
    enter(Some(what))
}

fn enter(what: Option<Following>) -> Option<Step> {
    CHASE.with_borrow_mut(|chase| {
        // A resolution begins when no step is under way.
        if chase.nested.is_empty() {
            chase.steps = 0;
        }
        let cycle = what.is_some() && chase.nested.contains(&what);
        if cycle || chase.nested.len() >= MAX_NESTED_STEPS || chase.steps >= MAX_STEPS {
            return None;
        }
        chase.nested.push(what);
        chase.steps += 1;
        Some(Step(()))
    })
}

/// What a name can mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A definition from the tags query (function, class, method, module declaration, …).
    Def { file: u32, def: u32 },
    /// A whole file as a module (Python modules, Rust crate roots).
    Module { file: u32 },
    /// A variable: a parameter, an assignment, a loop variable, an attribute set through `self`.
    Binding { file: u32, binding: u32 },
    /// A name an import binds when what it imports is outside the repository (a C module).
    Import { file: u32, import: u32 },
}

impl Target {
    pub fn file(self) -> u32 {
        match self {
            Target::Def { file, .. }
            | Target::Module { file }
            | Target::Binding { file, .. }
            | Target::Import { file, .. } => file,
        }
    }
}

/// A value an expression evaluates to, as far as the index can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Value {
    /// A Python module file or a Rust module: the file and the inline `mod` definition
    /// (or [`NONE`] for the file itself).
    Module(u32, u32),
    /// A class or Rust type (struct, enum, trait, alias).
    Class(u32, u32),
    /// An instance of a class or type.
    Instance(u32, u32),
    /// Python `super()` inside a class: lookups start at its bases.
    Super(u32, u32),
    Function(u32, u32),
    /// Something from outside the repository (a C module, a crate not in it), named in this
    /// file: its members are outside too, so they are neither resolved nor candidates.
    External(u32),
}

/// A name's meaning with the value it holds, when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) target: Target,
    pub(crate) value: Option<Value>,
}

/// What name resolution asks of one language over one snapshot: its module tables, and how its
/// imports, paths, first names and members resolve. Each language builds its own
/// (`Language::tables`); the resolver holds one per language and asks the one of
/// the file (or the value) at hand. `r` is the resolver the tables belong to, seen as a
/// [`Binder`].
///
/// Every method has a default, so a language writes only where it differs. By default a module
/// is a file: an import names one ([`Tables::module_file`], none by default), a glob import
/// brings in its top-level names, a qualified import takes a name from it; a type's members are
/// its own definitions, then its bases'; a chain starts at a receiver word
/// ([`Tables::receiver`]) or a name in scope.
pub(crate) trait Tables: Send + Sync {
    /// The tables after the files `changed` (indices into `files`, the same files as
    /// `before`, which these tables were made of) changed: shared where they still hold.
    /// `None`, as by default: made anew from `files`.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        _files: &[Arc<FileEntry>],
        _changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        None
    }

    /// A file's module path (`shop.cart`, `shapes::circle`; empty for a Rust crate root);
    /// `None`, as by default, where a file has no name beyond its path.
    fn module_path(&self, _file: u32) -> Option<String> {
        None
    }

    /// The files a module name (or path) names.
    fn module_named(&self, _name: &str) -> Vec<u32> {
        Vec::new()
    }

    /// A qualified path from a module or crate root: `shop.cart.Cart.add`,
    /// `shapes::Circle::new`. None by default: a definition's own qualified name is matched
    /// anyway.
    fn lookup_path(&self, _r: &dyn Binder, _query: &str) -> Vec<Target> {
        Vec::new()
    }

    /// Where an import takes its name from, as a note names it.
    fn import_source(&self, symbols: &FileSymbols, import: &Import) -> String {
        symbols.text(import.module).to_string()
    }

    /// The file of the repository that a module, as an import or include writes it, names
    /// from `file` (`./cart`, `shop.cart`, `"cart.h"`). None by default.
    fn module_file(&self, _r: &dyn Binder, _file: u32, _module: &str) -> Option<u32> {
        None
    }

    /// The name an import looks up in its module: its item, by default.
    fn imported_name<'s>(&self, symbols: &'s FileSymbols, import: &Import) -> &'s str {
        symbols.text(import.item)
    }

    /// A bare reference the language resolves its own way (a Python module in an `import`,
    /// Rust's `Self`): what it means, or why nothing is found. `None`: a lexical lookup.
    fn bare_ref(
        &self,
        _r: &dyn Binder,
        _file: u32,
        _pos: Pos,
        _name: &str,
        _kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        None
    }

    /// The value a qualified reference's qualifier names when the language reads it its own
    /// way. By default, an import's: the module file it names (`from m import x`'s `m`), or
    /// why nothing is found. `None`: evaluate the qualifier.
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
            self.module_file(r, file, qualifier).map(|m| Value::Module(m, NONE)).ok_or_else(|| {
                format!("{name} is imported from {qualifier}, which is outside the repository")
            }),
        )
    }

    /// What a glob import's module is, seen from `scope`: by default, the module file it names.
    fn glob_base(&self, r: &dyn Binder, file: u32, _scope: u32, module: &str, _depth: u32) -> Option<Value> {
        self.module_file(r, file, module).map(|m| Value::Module(m, NONE))
    }

    /// What a bare name means when nothing in the file binds it: a Rust crate, a name of
    /// another file of the Go package.
    fn unbound(&self, _r: &dyn Binder, _file: u32, _name: &str, _depth: u32) -> Vec<Found> {
        Vec::new()
    }

    /// The module a module definition stands for.
    fn module_of_def(&self, _r: &dyn Binder, _file: u32, _def: u32) -> Option<Value> {
        None
    }

    /// Where an import leads. By default: the module file it names, or the name it looks up in
    /// that module; the import itself when either is outside the repository.
    fn follow_import(&self, r: &dyn Binder, file: u32, import: u32, depth: u32) -> Vec<Found> {
        let symbols = r.symbols(file);
        let i = &symbols.imports[import as usize];
        let Some(m) = self.module_file(r, file, symbols.text(i.module)) else {
            return vec![import_found(file, import)];
        };
        if i.item == NONE {
            return vec![module_found(m)];
        }
        let found = self.module_member(r, m, NONE, self.imported_name(symbols, i), depth + 1, false);
        if found.is_empty() { vec![import_found(file, import)] } else { found }
    }

    /// The value a receiver word (`this`, `self`, `super`) has at a position, when `name` is
    /// one and something around `pos` gives it a value. None by default.
    fn receiver(&self, _r: &dyn Binder, _file: u32, _pos: Pos, _name: &str) -> Option<Value> {
        None
    }

    /// The value of the first name of a chain: by default a receiver, else the name in scope.
    fn eval_first(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str, depth: u32) -> Option<Value> {
        if let Some(value) = self.receiver(r, file, pos, name) {
            return Some(value);
        }
        r.lookup_lexical(file, pos, name, depth + 1).iter().find_map(|f| f.value)
    }

    /// The type a method's receiver has at a position (Rust's `self`).
    fn self_type(&self, _r: &dyn Binder, _file: u32, _pos: Pos, _depth: u32) -> Option<(u32, u32)> {
        None
    }

    /// What calling a function whose return type the language names itself yields (Rust's
    /// `-> Self`): `Some` when the language decides, `None` to read `ret` as a type.
    fn call_result(
        &self,
        _r: &dyn Binder,
        _file: u32,
        _def: u32,
        _ret: &str,
        _depth: u32,
    ) -> Option<Option<Value>> {
        None
    }

    /// A name of module `file` (`def`: the inline module, [`NONE`] for the file itself);
    /// `public`: as a glob import sees the module. By default: the file's top-level names,
    /// then those of the module files its glob imports name.
    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        _def: u32,
        name: &str,
        depth: u32,
        _public: bool,
    ) -> Vec<Found> {
        r.top_level_then_globs(file, name, depth, &|from, module| self.module_file(r, from, module))
    }

    /// A member of type `def` of `file` (or of an instance of it); `skip_own`: only what its
    /// bases have (`super`). By default: the definitions in its body, else the fields it
    /// declares, else its bases'.
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
            declared_fields(r, file, def, name, depth)
        })
    }

    /// A member of a value of this language: a module's name, a class's or type's member.
    /// `public`: as a glob import sees a module.
    fn member(&self, r: &dyn Binder, value: Value, name: &str, depth: u32, public: bool) -> Vec<Found> {
        match value {
            Value::Module(file, def) => self.module_member(r, file, def, name, depth, public),
            Value::Class(f, d) | Value::Instance(f, d) => self.type_member(r, f, d, name, depth, false),
            Value::Super(f, d) => self.type_member(r, f, d, name, depth, true),
            Value::Function(..) | Value::External(_) => Vec::new(),
        }
    }
}

/// What a language's own lookup found, or why nothing is found (a module outside the
/// repository).
pub(crate) type Lookup<T> = Result<T, String>;

/// One name bound in a scope: 12 bytes (a workspace of 30,000 files has 3.6 million, each
/// file's kept while the snapshot lives). Where it is bound is read from what binds it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub(crate) scope: u32,
    pub(crate) name: u32,
    /// What binds it: its kind in the top two bits, its index in the file's list of that kind
    /// below.
    bound: u32,
}

/// The bits of [`Entry::bound`] that hold the index.
const BOUND_INDEX: u32 = (1 << 30) - 1;

impl Entry {
    pub(crate) fn new(scope: u32, name: u32, bound: Bound) -> Entry {
        let (kind, index) = match bound {
            Bound::Def(i) => (0, i),
            Bound::Binding(i) => (1, i),
            Bound::Import(i) => (2, i),
        };
        assert!(index <= BOUND_INDEX, "a file with over a billion definitions, bindings or imports");
        Entry { scope, name, bound: kind << 30 | index }
    }

    pub(crate) fn bound(&self) -> Bound {
        let index = self.bound & BOUND_INDEX;
        match self.bound >> 30 {
            0 => Bound::Def(index),
            1 => Bound::Binding(index),
            _ => Bound::Import(index),
        }
    }

    /// Where the name is bound, in the file of `symbols` (the entry's own): a definition's line
    /// (column 1), a binding's or an import's position.
    pub(crate) fn pos(&self, symbols: &FileSymbols) -> Pos {
        match self.bound() {
            Bound::Def(d) => Pos::new(symbols.defs[d as usize].line, 1),
            Bound::Binding(b) => {
                let b = &symbols.bindings[b as usize];
                Pos::new(b.line, b.column)
            }
            Bound::Import(i) => {
                let i = &symbols.imports[i as usize];
                Pos::new(i.line, i.column)
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Def(u32),
    Binding(u32),
    Import(u32),
}

/// What the resolver offers a language's [`Tables`] while they answer it: the snapshot's files,
/// each file's scope entries, and lookups that lead back into name resolution (a lexical
/// lookup, a value's member, an import followed). Implemented by `resolve::Resolver`.
pub(crate) trait Binder {
    /// How many files the snapshot has; files are numbered `0..n_files()` in path order.
    fn n_files(&self) -> usize;

    fn path(&self, file: u32) -> &str;

    fn file_index(&self, path: &str) -> Option<u32>;

    fn symbols(&self, file: u32) -> &FileSymbols;

    fn lang(&self, file: u32) -> Lang;

    fn def(&self, file: u32, def: u32) -> DefRef<'_>;

    /// The name's id in `file`, if the file has it at all.
    fn name_id(&self, file: u32, name: &str) -> Option<u32>;

    /// The entries of scope `scope` of `file` for name id `name`, by position.
    fn entries_of(&self, file: u32, scope: u32, name: u32) -> &[Entry];

    /// The scope that is definition `def`'s body ([`NONE`] when it has none).
    fn own_scope(&self, file: u32, def: u32) -> u32;

    /// Every definition named `name`, in any file, as (file, definition).
    fn defs_named(&self, name: &str) -> Cow<'_, [(u32, u32)]>;

    /// A bare name at a position: the innermost binding that is visible there.
    fn lookup_lexical(&self, file: u32, pos: Pos, name: &str, depth: u32) -> Vec<Found>;

    /// What one scope entry means, imports followed.
    fn entry_found(&self, file: u32, entry: Entry, depth: u32) -> Vec<Found>;

    /// A definition as found: its target and the value it holds.
    fn def_found(&self, file: u32, def: u32) -> Found;

    /// A member of a value: a module's name, a class's method or attribute (through its bases),
    /// a Rust type's associated item.
    fn member(&self, value: Value, name: &str, depth: u32) -> Vec<Found>;

    /// What a chain of member names reaches from a value (`cart.Cart.add` from a package);
    /// empty when a link of the chain has no value.
    fn member_path(&self, value: Value, parts: &[&str]) -> Vec<Target>;

    /// A class's member: what `own(file, class, depth)` finds in the class itself (unless
    /// `skip_own`, for `super`), else in the first of its bases, walked the same way, that has
    /// one (left to right, depth first).
    fn member_through_bases(
        &self,
        file: u32,
        class: u32,
        depth: u32,
        skip_own: bool,
        own: &dyn Fn(u32, u32, u32) -> Vec<Found>,
    ) -> Vec<Found>;

    /// The definitions directly inside definition `def` (a class's methods, a trait's items)
    /// named `name`.
    fn children_named(&self, file: u32, def: u32, name: &str) -> Vec<Found>;

    /// The top-level definitions named `name` in `files`, but `skip` (a package's, where each
    /// file's imports are its own), as found at `depth`.
    fn top_level_defs(&self, files: &[u32], skip: Option<u32>, name: &str, depth: u32) -> Vec<Found>;

    /// A module's top-level names (definitions, bindings, imports), then those of the modules its
    /// top-level glob imports name, in order, as `resolve` finds them (JavaScript's `export *`,
    /// C's `#include`).
    fn top_level_then_globs(
        &self,
        file: u32,
        name: &str,
        depth: u32,
        resolve: &dyn Fn(u32, &str) -> Option<u32>,
    ) -> Vec<Found>;
}

/// The fields named `name` that type `def` of `file` declares in its body with their types
/// (`@local.field`: Rust's and Go's struct fields, TypeScript's class properties): what
/// `x.name` holds.
pub(crate) fn declared_fields(r: &dyn Binder, file: u32, def: u32, name: &str, depth: u32) -> Vec<Found> {
    let scope = r.own_scope(file, def);
    let Some(id) = r.name_id(file, name).filter(|_| scope != NONE) else { return Vec::new() };
    let symbols = r.symbols(file);
    r.entries_of(file, scope, id)
        .iter()
        .filter(|e| matches!(e.bound(), Bound::Binding(b) if symbols.bindings[b as usize].kind == BindKind::Field))
        .flat_map(|e| r.entry_found(file, *e, depth))
        .collect()
}

/// Whether a binding only says where a name lives (Python's `global x`, `nonlocal x`).
pub(crate) fn is_marker(kind: BindKind) -> bool {
    matches!(kind, BindKind::Global | BindKind::Nonlocal)
}

pub(crate) fn module_found(file: u32) -> Found {
    Found { target: Target::Module { file }, value: Some(Value::Module(file, NONE)) }
}

/// An import of `file` as where its name is bound, when what it imports is outside the
/// repository.
pub(crate) fn import_found(file: u32, import: u32) -> Found {
    Found { target: Target::Import { file, import }, value: Some(Value::External(file)) }
}

/// For a language whose methods name their object by a word (`this`) and its bases' by another
/// (`super`): what `name` at `pos` stands for, the innermost class around it, if it is one of them.
pub(crate) fn class_receiver(
    r: &dyn Binder,
    file: u32,
    pos: Pos,
    name: &str,
    (this, base): (&str, &str),
) -> Option<Value> {
    if name != this && name != base {
        return None;
    }
    let class = classes_around(r, file, pos).next()?;
    Some(if name == this { Value::Instance(file, class) } else { Value::Super(file, class) })
}

/// The classes whose bodies hold `pos` in `file`, innermost first.
pub(crate) fn classes_around(r: &dyn Binder, file: u32, pos: Pos) -> impl Iterator<Item = u32> + '_ {
    let scopes = &r.symbols(file).scopes;
    let mut scope = innermost_scope(scopes, pos);
    std::iter::from_fn(move || {
        while scope != NONE {
            let s = scopes[scope as usize];
            scope = s.parent;
            if s.kind == ScopeKind::Class && s.def != NONE {
                return Some(s.def);
            }
        }
        None
    })
}

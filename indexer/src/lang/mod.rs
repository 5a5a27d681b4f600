//! The languages tack parses. Each is a module below this one (`python/`, `rust/`) with a type
//! implementing [`Language`]: its [`LangSpec`] (name, extensions, grammar, the
//! `queries/<name>/` files) and, as the seam grows, what the core asks of it. [`LANGUAGES`] is
//! the registry, in the order of [`Lang`].

use std::path::Path;
use std::sync::{Arc, OnceLock};

use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::{Node, Query};

use crate::names::{Pos, ScopeKind};
use crate::snapshot::{FileEntry, Lang};

use crate::meaning::{Entry, Tables};
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind};
pub(crate) use comments::Comments;
pub(crate) use common::{
    Nodes, doc_blocks_of_children, is_alias, line_comment_docs, pattern_identifiers, simple_chain,
};
pub(crate) use manifests::{Manifest, ModuleRoot, manifest_symbols, module_roots};
pub use text_files::heading_at;
pub(crate) use text_files::{is_changelog, is_prose};
pub(crate) use text_files::{is_generated, is_text};

/// Everything tack needs to know about one language.
pub(crate) struct LangSpec {
    pub lang: Lang,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    /// The programs a script's `#!` line names to run it (`bash`, `python3`): a file whose name
    /// has no extension is in the language when its first line names one.
    pub interpreters: &'static [&'static str],
    /// Files that configure the build rather than hold the code it builds (`settings.gradle.kts`,
    /// `Package.swift`): a name that starts with `.` ends such a file's name, any other is one.
    pub build_scripts: &'static [&'static str],
    /// The file that says where the language's modules live (`composer.json`), if it has one.
    pub manifest: Option<Manifest>,
    pub grammar: fn() -> tree_sitter::Language,
    /// The grammar's node kinds and fields the shared walks read.
    pub nodes: Nodes,
    /// How comments are written.
    pub comments: Comments,
    /// The tags query (`queries/<name>/tags.scm`, after `queries/ecma/tags.scm` for JavaScript
    /// and TypeScript): definitions and references.
    pub tags: &'static str,
    /// What name resolution needs (`queries/<name>/names.scm`): scopes, bindings, imports.
    pub names: &'static str,
    /// File names ending so hold tests (`_test.py`), beyond the common rules (`test_*`, a
    /// `tests/` folder).
    pub test_file_suffixes: &'static [&'static str],
    /// File names that hold tests or test fixtures (`conftest.py`, `tests.rs`).
    pub test_file_names: &'static [&'static str],
    /// File names that are a package's public face (`__init__.py`, `lib.rs`): what they
    /// import is what the package offers.
    pub surface_files: &'static [&'static str],
    /// Between the parts of a qualified name: `.` or `::`.
    pub separator: &'static str,
    /// Identifiers that are never worth a reference (a method's receiver: `self`, `cls`).
    pub noise: &'static [&'static str],
    /// Methods the standard library's everyday types have (a list's `append`, a `Vec`'s
    /// `len`): a call of one on a receiver of unknown type most likely calls that, so the
    /// repository's own same-named methods are weak candidates for it.
    pub std_methods: &'static [&'static str],
    /// Words that never name anything to look up (a receiver such as `self` is a name).
    pub keywords: &'static [&'static str],
    /// How the lines that belong to the definition below them start: decorators, attributes,
    /// doc comments.
    pub preamble: &'static [&'static str],
    pub rules: Rules,
    /// Languages of one family see each other's definitions as candidates (a TypeScript file
    /// calls a function a `.tsx` or `.js` file defines; a C file, one a header declares).
    pub family: &'static str,
    /// How a project in this language is checked: the tests and linters its files declare
    /// (`package.json`'s test script), found in a folder. One language of a family says it.
    pub checks: fn(&std::path::Path) -> Vec<ProjectCheck>,
    /// The runners, by name, that read the output of the checks `checks` finds: no check names
    /// another, and a tidy test holds each to a runner the verify tool has.
    pub runners: &'static [&'static str],
}

/// A check a project declares: what `verify` runs, and how its output is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectCheck {
    pub name: String,
    pub command: String,
    /// The runner that reads its output (`tap`, `pytest`, `diagnostics`, …), one of its
    /// language's `LangSpec::runners`.
    pub format: &'static str,
    /// Folders outside the root the toolchain writes its caches in (Go's build cache): commands
    /// may write there too. They are the toolchain's, so they stay with the language that finds
    /// the project rather than with the runner that reads the check: `go build`, `go vet` and a
    /// `run` write Go's build cache as `go test` does, and only the project says which
    /// toolchain it uses.
    pub caches: Vec<std::path::PathBuf>,
}

/// The projects [`project_checks`] finds checks for, said as absent: how the verify tool says
/// what it looked for when it finds none.
pub const NO_CHECKED_PROJECT: &str = "no pytest project (pyproject.toml, setup.py, pytest.ini, tests/*.py), \
     no Cargo.toml, no package.json with a test script, no go.mod, no pom.xml or build.gradle, no configured \
     CMake build folder, no .sln or .csproj, no phpunit.xml, no RSpec or Minitest suite, no Package.swift, no \
     test/*.bats, no busted specs, no mix.exs, no build.zig, \
     no build.sbt or build.sc and no stack.yaml or *.cabal file";

/// The text of the small file `name` in `dir` (empty when there is none or it is refused).
pub(crate) fn small_text(dir: &std::path::Path, name: &str) -> String {
    match crate::beneath::read_bounded(&dir.join(name), 1 << 20, Some(dir)) {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        _ => String::new(),
    }
}

/// Whether the file at `path` configures a build (a language's `build_scripts`): it is a text
/// file, and search ranks it as it does a test, below the code it builds.
pub(crate) fn is_build_script(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    specs()
        .flat_map(|spec| spec.build_scripts)
        .any(|script| if script.starts_with('.') { name.ends_with(script) } else { name == *script })
}

/// The checks every language recognises in the folder `dir`, in language order.
pub fn project_checks(dir: &std::path::Path) -> Vec<ProjectCheck> {
    let mut out: Vec<ProjectCheck> = Vec::new();
    for spec in specs() {
        for check in (spec.checks)(dir) {
            debug_assert!(
                spec.runners.contains(&check.format),
                "{}'s check {} names the runner {:?}, which its spec's `runners` leaves out",
                spec.name,
                check.name,
                check.format
            );
            if !out.contains(&check) {
                out.push(check);
            }
        }
    }
    out
}

/// Every runner a language's checks name, in language order, each once.
pub fn check_runners() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for name in specs().flat_map(|spec| spec.runners) {
        if !names.contains(name) {
            names.push(name);
        }
    }
    names
}

/// What kinds of definition a reference can mean, where languages differ.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// `a.b` (no call) can mean a method, a function, a constant or a class (a Python attribute
    /// can be a property or a module's member); otherwise `a.b` is a field, which is not indexed.
    pub attribute_names_members: bool,
    /// `m.f()` can call a module's function (Python's `module.function()`).
    pub method_call_names_function: bool,
    /// Definitions are assignments: a module-level constant's binding is its identity, and
    /// every `def f` of one scope is one variable.
    pub defs_are_assignments: bool,
    /// A name nothing binds, in a file with a glob import from outside the repository, gets
    /// the same-named definitions as candidates (it may come from the glob).
    pub external_globs_give_candidates: bool,
    /// A class's bases are looked up around the class statement, not in its body.
    pub bases_outside_class: bool,
    /// A class body is invisible from the scopes nested in it.
    pub class_body_closed: bool,
    /// The first scope that binds a name ends the lookup, even when the binding leads nowhere.
    pub first_binding_scope_wins: bool,
    /// An inline module's scope ends the lexical lookup (its imports and crate names are next).
    pub module_scope_is_closed: bool,
}

/// Whom the providers of a file serve ([`Language::provider_reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// The file's own functions (a test module's fixtures).
    File,
    /// The functions of every file in its folder and below (a `conftest.py`'s).
    Folder,
    /// Any function that names them (a plugin's).
    Anywhere,
}

/// What one file's documentation lookups remember: the parents whose children's doc comments
/// were read in one pass, and those comments' first lines by child node id.
#[derive(Default)]
pub(crate) struct DocCache<'t> {
    pub parents: FxHashSet<usize>,
    pub lines: FxHashMap<usize, &'t str>,
}

mod bash;
mod c;
mod comments;
mod common;
mod cpp;
mod csharp;
mod declared_packages;
mod elixir;
mod go;
mod haskell;
mod java;
mod javascript;
mod kotlin;
mod lua;
mod manifests;
mod php;
mod python;
mod ruby;
mod rust;
mod scala;
mod shared_scope;
mod swift;
mod text_files;
mod typescript;
mod zig;

/// How many languages there are: the length of [`LANGUAGES`].
pub(crate) const N_LANGS: usize = LANGUAGES.len();

/// One language's behaviour; the core reaches a language only through this.
pub(crate) trait Language: Sync {
    /// What the core reads about the language as data.
    fn spec(&self) -> &'static LangSpec;

    /// A captured definition's kind, given its parent, grandparent and great-grandparent:
    /// a function in a type's body is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind;

    /// Whether a test framework hands what definition `def` makes to the parameters of its name
    /// (a pytest fixture), given its parent, grandparent and great-grandparent. Never by default.
    fn provides_by_name(&self, _def: Node, _up: [Option<Node>; 3], _bytes: &[u8]) -> bool {
        false
    }

    /// Whether a test framework fills the parameters of `function`, in the file at `path`, by
    /// name with what the definitions that provide make
    /// ([`Def::provides`](crate::symbols::Def::provides)): a use of such a parameter means the
    /// provider. Never by default.
    fn fills_parameters(&self, _path: &str, _function: DefRef<'_>) -> bool {
        false
    }

    /// Whom the providers at the top of a file named `file_name` serve beyond the file itself.
    /// Nobody, by default.
    fn provider_reach(&self, _file_name: &str) -> Reach {
        Reach::File
    }

    /// A name that a definition's qualified name passes through but that is no definition
    /// itself (Rust's `impl Type` for the items inside it, a Go method's receiver type).
    fn container_name(&self, _def: Node, _up: [Option<Node>; 3], _bytes: &[u8]) -> Option<String> {
        None
    }

    /// Where the name starts in a captured name node that is a whole path the grammar makes
    /// one token of (Elixir's `Shop.Cart`), as a byte offset into its text: the name is its
    /// last part, and the path before it (separator cut) is a reference's qualifier. `None`,
    /// as by default: the node's text is the name.
    fn name_in_token(&self, _node: Node, _bytes: &[u8]) -> Option<usize> {
        None
    }

    /// The node a definition's own line starts with, when the definition's node begins with
    /// lines that belong above it (Java's annotations sit inside the declaration).
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        def
    }

    /// Whether definition node `def` only adds a clause to `previous`, the definition of the
    /// same name and kind right before it in the same parent (Elixir's `def f(x)` clauses of
    /// one arity): then it makes no definition, and `previous`'s spans it too. Never by default.
    fn continues(&self, _previous: Node, _def: Node, _bytes: &[u8]) -> bool {
        false
    }

    /// A definition's last line, 1-based.
    fn end_line(&self, def: Node) -> u32 {
        def.end_position().row as u32 + 1
    }

    /// Where a definition's body starts: its signature is the text before it.
    fn body_start(&self, def: Node) -> Option<usize> {
        def.child_by_field_name(self.spec().nodes.body).map(|b| b.start_byte())
    }

    /// A signature without what only ends it (Python's `:`).
    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature
    }

    /// The return type a function's signature names (`-> Cart`), as written.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        Some(signature.rsplit_once("->")?.1.trim().trim_end_matches(['{', ';', ':']).trim())
    }

    /// The first line of a definition's documentation, uncut; `parent` is the definition
    /// node's parent.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str>;

    /// A type or callee path as name resolution looks it up, decoration dropped; `None` when
    /// the bare name would be wrong.
    fn type_hint(&self, text: &str) -> Option<String>;

    /// Whether a method of this name fills in a protocol of the language rather than saying
    /// what its type does (Python's `__repr__`, Java's `toString`): the map shows it only
    /// after everything else.
    fn is_protocol_method(&self, _name: &str) -> bool {
        false
    }

    /// Whether a definition only names a type parameter (Python's `T = TypeVar("T")`): it is
    /// referenced wherever generic code is annotated, but says nothing of how the code is
    /// built, so the map shows it only after everything else.
    fn is_type_parameter(&self, _def: DefRef<'_>) -> bool {
        false
    }

    /// Whether a definition only points at a file the map names by its path anyway (Rust's
    /// `mod vm;`, whose body is `vm.rs`): it is no entry of its own.
    fn names_a_file(&self, _def: DefRef<'_>) -> bool {
        false
    }

    /// Whether the language keeps a file's definitions from the code outside some part of the
    /// repository, whatever their own visibility (Go's `internal/` packages): a newcomer reads
    /// them as private.
    fn is_internal_path(&self, _path: &str) -> bool {
        false
    }

    /// Whether a definition is private to its module or type by the language's rules (Python's
    /// `_name`, Rust without `pub`, Go's lower-case names): a newcomer reads the public
    /// surface first. `parent` is the definition enclosing it.
    fn is_private(&self, _def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        false
    }

    /// Whether the object of a `@local.receiver` capture is a method's receiver, so that what
    /// a method sets on it is an attribute of the class (Python's `self.x = …`).
    fn is_receiver(&self, _name: &str) -> bool {
        false
    }

    /// The name a `@local.self` parameter binds and the type path it holds (Rust's `&self`
    /// binds `self`, an instance of `Self`); `None` where the parameter's own text is its name.
    fn self_parameter(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// The method a call of a class runs, whose parameters the call's keyword arguments name
    /// (Python's `__init__`).
    fn constructor(&self) -> Option<&'static str> {
        None
    }

    /// Whether an identifier in a binding pattern binds a name.
    fn pattern_binds(&self, _identifier: &str) -> bool {
        true
    }

    /// What comes before a reference's name (an object, a path, an import's module); `None`
    /// for a bare name.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String>;

    /// The qualifier text of a captured object or path node outside imports.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        simple_chain(self.spec().lang, qualifier, bytes)
    }

    /// What kind of scope a captured `@scope` node of this kind is.
    fn scope_kind(&self, node_kind: &str) -> ScopeKind;

    /// The names an `@import` node binds.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>);

    /// The type and trait paths of an `@impl` block.
    fn impl_paths(&self, _node: Node, _bytes: &[u8]) -> Option<(String, Option<String>)> {
        None
    }

    /// The names an `@exports` node lists.
    fn exported_names(&self, _node: Node, _bytes: &[u8], _out: &mut Vec<String>) {}

    /// Whether a definition is bound by its name in its enclosing scope, rather than reached
    /// through its type or its binding; `own_scope[d]` is the scope that is definition `d`'s
    /// body (`NONE` when it has none).
    fn bound_by_name(&self, symbols: &FileSymbols, own_scope: &[u32], def: DefRef<'_>) -> bool;

    /// Which of one scope's entries for a name a use at `pos` sees; `same_scope`: the use is
    /// in that scope.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, same_scope: bool) -> Vec<Entry>;

    /// Name resolution's tables for this language over a snapshot's files (all of them, in
    /// the resolver's order; the language's own are those whose `lang` it is).
    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables>;

    /// The tables, given also the modules the tree's manifests declare (for a language with a
    /// [`LangSpec::manifest`]).
    fn tables_with(&self, files: &[Arc<FileEntry>], _roots: &[ModuleRoot]) -> Arc<dyn Tables> {
        self.tables(files)
    }
}

pub(crate) fn node_text<'a>(node: Node, bytes: &'a [u8]) -> &'a str {
    std::str::from_utf8(&bytes[node.start_byte()..node.end_byte()]).unwrap_or("")
}

pub(crate) fn squash(text: &str) -> String {
    text.split_whitespace().collect()
}

/// One decoded import before interning: (module, item, bound, alias, glob, bound name node).
pub(crate) struct RawImport<'t> {
    pub module: String,
    pub item: Option<String>,
    pub bound: Option<String>,
    pub alias: bool,
    pub glob: bool,
    /// Behind a `#[cfg(...)]` (Rust): whether the build host meets it. See
    /// [`crate::names::Import::cfg`].
    pub cfg: Option<bool>,
    pub at: Node<'t>,
}

impl<'t> RawImport<'t> {
    /// A glob import of every name of `module` (`from m import *`, `import a.*`, `export * from`,
    /// a Go dot import, a C `#include`), written at `at`.
    pub(crate) fn glob(module: String, at: Node<'t>) -> Self {
        RawImport { module, item: None, bound: None, alias: false, glob: true, cfg: None, at }
    }
}

/// The name a module file goes by: its stem, or its folder's name for a file that stands for
/// its folder (`shop/__init__.py` is `shop`, `geo/mod.rs` is `geo`, as are `src/lib.rs` and
/// `cmd/main.go` their folders').
pub(crate) fn module_name(path: &str) -> &str {
    let stem = path.rsplit('/').next().unwrap_or(path);
    let stem = stem.split('.').next().unwrap_or(stem);
    if matches!(stem, "__init__" | "mod" | "lib" | "main") {
        path.rsplit('/').nth(1).unwrap_or(stem)
    } else {
        stem
    }
}

/// Where a local must come before its use (the last one before it shadows the others) and
/// items and imports are visible everywhere in their scope: the entries a use at `pos` sees.
pub(crate) fn last_local_else_items(entries: &[Entry], symbols: &FileSymbols, pos: Pos) -> Vec<Entry> {
    local_else_items(entries, symbols, pos, false)
}

/// Where a type's body sees its members everywhere in it (Java, C#, Kotlin, PHP, Ruby, Swift): all
/// of a type scope's entries, else the locals' rule of [`last_local_else_items`].
pub(crate) fn members_else_last_local(entries: &[Entry], symbols: &FileSymbols, pos: Pos) -> Vec<Entry> {
    let in_type = entries.first().is_some_and(|e| {
        symbols.scopes.get(e.scope as usize).is_some_and(|s| s.kind == crate::names::ScopeKind::Class)
    });
    if in_type {
        return entries.to_vec();
    }
    last_local_else_items(entries, symbols, pos)
}

/// As [`last_local_else_items`], but the first local before `pos` is the variable: where a
/// declaration of a name the scope already declares assigns it instead (Go's `x, err := …`).
pub(crate) fn first_local_else_items(entries: &[Entry], symbols: &FileSymbols, pos: Pos) -> Vec<Entry> {
    local_else_items(entries, symbols, pos, true)
}

fn local_else_items(entries: &[Entry], symbols: &FileSymbols, pos: Pos, first: bool) -> Vec<Entry> {
    let is_local = |e: &Entry| match e.bound() {
        crate::meaning::Bound::Binding(b) => !matches!(
            symbols.bindings[b as usize].kind,
            crate::names::BindKind::Attribute | crate::names::BindKind::Field
        ),
        _ => false,
    };
    let mut before = entries.iter().filter(|e| is_local(e) && e.pos(symbols) <= pos);
    let chosen = if first { before.next() } else { before.next_back() };
    if let Some(local) = chosen {
        return vec![*local];
    }
    entries.iter().filter(|e| !is_local(e)).copied().collect()
}

/// The registry, indexed by `Lang as usize` (a test checks the order). Adding a language is a
/// line here and its `mod` above, its variant of [`Lang`], and its folders (`lang/<name>/`,
/// `queries/<name>/`).
pub(crate) static LANGUAGES: &[&dyn Language] = &[
    &python::Python,
    &rust::Rust,
    &go::Go,
    &javascript::JAVASCRIPT,
    &typescript::TYPESCRIPT,
    &typescript::TSX,
    &java::Java,
    &c::C,
    &cpp::CPP,
    &csharp::CSharp,
    &php::Php,
    &ruby::Ruby,
    &kotlin::Kotlin,
    &swift::Swift,
    &bash::Bash,
    &lua::Lua,
    &elixir::Elixir,
    &zig::Zig,
    &scala::Scala,
    &haskell::Haskell,
];

/// Every language's spec, in the order of [`Lang`].
pub(crate) fn specs() -> impl Iterator<Item = &'static LangSpec> {
    LANGUAGES.iter().map(|language| language.spec())
}

impl LangSpec {
    /// Every query file of the language, in order: what [`Lang::query`] compiles.
    pub(crate) fn query_files(&self) -> [(&'static str, &'static str); 2] {
        [("tags.scm", self.tags), ("names.scm", self.names)]
    }

    /// The query files joined into one query source.
    pub(crate) fn source(&self) -> String {
        self.query_files().iter().map(|(_, text)| *text).collect::<Vec<_>>().join("\n")
    }
}

// What a reference can mean follows the language's rules, so it is answered here.
impl RefKind {
    /// Whether a use of this kind can mean a definition of `def` kind in `lang`: a method call
    /// never means a module, a type use never means a function. Name collisions between
    /// unrelated kinds (`.map()` and `mod map`) would otherwise link unrelated files.
    pub fn can_mean(self, lang: Lang, def: DefKind) -> bool {
        use DefKind as D;
        let is_type = matches!(def, D::Class | D::Enum | D::Interface | D::Type);
        match self {
            RefKind::Import => true,
            RefKind::Call => matches!(def, D::Function | D::Method | D::Class | D::Macro),
            // Where a module's function is called like a method (`module.function()`).
            RefKind::MethodCall => {
                def == D::Method || (lang.spec().rules.method_call_names_function && def == D::Function)
            }
            RefKind::Type => is_type,
            RefKind::Inheritance => matches!(def, D::Class | D::Interface | D::Module),
            // Where an attribute can be a method, a property or a module's function, constant
            // or class; elsewhere it names a field, which tack does not index.
            RefKind::Attribute => {
                lang.spec().rules.attribute_names_members
                    && matches!(def, D::Method | D::Function | D::Constant | D::Class)
            }
            // A bare name is a variable, a function, a type, a constant: never a method, and a
            // module only through a path or an import.
            RefKind::Name => !matches!(def, D::Method | D::Module),
        }
    }
}

impl Lang {
    /// The language of a file, by extension.
    /// A build script (`settings.gradle.kts`, `Package.swift`) is in none: it is searched as
    /// text, beside the build files of other tools (`pom.xml`, `Cargo.toml`), and its names are
    /// not the code's.
    pub fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?;
        let lang = specs().find(|spec| spec.extensions.contains(&ext)).map(|spec| spec.lang)?;
        let name = path.file_name()?.to_str()?;
        (!is_build_script(name)).then_some(lang)
    }

    /// What the index makes of a file: its grammar's language, by extension, else
    /// [`Lang::Text`] when its name allows text (its first bytes decide: [`is_text`]); `None`
    /// for what is never searched (images, archives, lock files).
    pub fn of_file(path: &Path) -> Option<Lang> {
        Lang::from_path(path).or_else(|| text_files::may_be_text(path).then_some(Lang::Text))
    }

    /// The language of a script by its `#!` line (`#!/bin/sh`, `#!/usr/bin/env python3`): the
    /// one whose interpreters name the program, a version after the name allowed (`python3.11`).
    pub fn from_shebang(head: &[u8]) -> Option<Lang> {
        let line = head.strip_prefix(b"#!")?;
        let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
        let line = std::str::from_utf8(line).ok()?;
        let mut words = line.split_whitespace();
        let mut program = words.next()?.rsplit('/').next()?;
        if program == "env" {
            program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        }
        let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        specs()
            .find(|spec| spec.interpreters.contains(&program) || spec.interpreters.contains(&name))
            .map(|spec| spec.lang)
    }

    /// Whether a grammar reads the language's files: every language but [`Lang::Text`].
    pub fn has_grammar(self) -> bool {
        self != Lang::Text
    }

    pub(crate) fn language(self) -> &'static dyn Language {
        LANGUAGES[self as usize]
    }

    pub(crate) fn spec(self) -> &'static LangSpec {
        self.language().spec()
    }

    pub fn name(self) -> &'static str {
        if self == Lang::Text {
            return "text";
        }
        self.spec().name
    }

    /// Whether a word is one of the language's keywords, which never name anything.
    pub fn is_keyword(self, word: &str) -> bool {
        self.spec().keywords.contains(&word)
    }

    /// Whether a line is a comment, or a part of one, by how the language writes them (`#` in
    /// Python, where `#!` starts a shebang; `//`, `/*`, ` * ` and `*/` in the C family). A text
    /// file's lines are none: its language is not known.
    pub fn is_comment_line(self, line: &str) -> bool {
        self.has_grammar() && self.spec().comments.starts(line)
    }

    /// Whether a line (its indentation removed) belongs to the definition below it: a
    /// decorator, an attribute, a doc comment.
    pub fn is_preamble(self, line: &str) -> bool {
        self.spec().preamble.iter().any(|start| line.starts_with(start))
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        (self.spec().grammar)()
    }

    /// The extraction patterns: the tags and names queries compiled as one by tack's matcher,
    /// so one walk over the tree yields both. Compiled once per process, when the language is
    /// first met.
    pub fn patterns(self) -> &'static crate::matcher::Patterns {
        static PATTERNS: [OnceLock<crate::matcher::Patterns>; N_LANGS] = [const { OnceLock::new() }; N_LANGS];
        PATTERNS[self as usize].get_or_init(|| {
            let spec = self.spec();
            crate::matcher::Patterns::new(&(spec.grammar)(), &spec.source())
                .unwrap_or_else(|err| panic!("queries/{}/{{tags,names}}.scm: {err}", spec.name))
        })
    }

    /// The same queries compiled by tree-sitter, which checks them fully and is the reference
    /// the matcher is tested against.
    pub fn query(self) -> &'static Query {
        static QUERIES: [OnceLock<Query>; N_LANGS] = [const { OnceLock::new() }; N_LANGS];
        QUERIES[self as usize].get_or_init(|| {
            let spec = self.spec();
            Query::new(&(spec.grammar)(), &spec.source()).unwrap_or_else(|err| {
                panic!("queries/{}/{{tags,names}}.scm do not compile: {err}", spec.name)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        for (i, spec) in specs().enumerate() {
            assert_eq!(spec.lang as usize, i, "LANGUAGES is in the order of Lang");
            for (file, text) in spec.query_files() {
                let query = Query::new(&(spec.grammar)(), text);
                assert!(query.is_ok(), "queries/{}/{file}: {:?}", spec.name, query.err());
            }
            let joined = Query::new(&(spec.grammar)(), &spec.source());
            assert!(joined.is_ok(), "queries/{} joined: {:?}", spec.name, joined.err());
            let patterns = crate::matcher::Patterns::new(&(spec.grammar)(), &spec.source());
            assert!(patterns.is_ok(), "queries/{} in tack's matcher: {:?}", spec.name, patterns.err());
        }
    }

    /// `Lang` and the registry hold the same languages: variant `i` is `LANGUAGES[i]`'s, and
    /// past the registry's end there is only `Lang::Text`, which no grammar reads.
    #[test]
    fn every_lang_is_registered() {
        use serde::Deserialize;
        let variant = |i: usize| {
            Lang::deserialize(serde::de::value::U32Deserializer::<serde::de::value::Error>::new(i as u32))
        };
        for (i, spec) in specs().enumerate() {
            assert_eq!(variant(i).ok(), Some(spec.lang), "LANGUAGES[{i}] is {}", spec.name);
        }
        assert_eq!(variant(N_LANGS).ok(), Some(Lang::Text), "the first Lang past the registry");
        assert!(!Lang::Text.has_grammar());
        assert!(variant(N_LANGS + 1).is_err(), "a Lang variant past the registry's {N_LANGS} languages");
    }

    #[test]
    fn type_hints_keep_the_path_and_drop_decoration() {
        assert_eq!(Lang::Rust.language().type_hint("&'a mut Foo<T>").as_deref(), Some("Foo"));
        assert_eq!(
            Lang::Rust.language().type_hint("crate::geo::Point").as_deref(),
            Some("crate::geo::Point")
        );
        assert_eq!(Lang::Rust.language().type_hint("&dyn Shape").as_deref(), Some("Shape"));
        assert_eq!(Lang::Rust.language().type_hint("(u8, u8)"), None);
        assert_eq!(Lang::Python.language().type_hint("Cart").as_deref(), Some("Cart"));
        assert_eq!(Lang::Python.language().type_hint("'shop.Cart'").as_deref(), Some("shop.Cart"));
        assert_eq!(Lang::Python.language().type_hint("Cart | None").as_deref(), Some("Cart"));
        assert_eq!(Lang::Python.language().type_hint("list[Cart]"), None);
    }

    /// No input stops the indexer: every fixture of every language, cut short at many points and
    /// with a span torn out, is extracted and every name in it resolved without a panic (a
    /// language's hooks slice signatures and doc comments that a broken file leaves half-made).
    #[test]
    fn broken_files_of_every_language_are_read_without_a_panic() {
        fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    sources(&path, out);
                } else if Lang::from_path(&path).is_some() {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"), &mut files);
        let mut langs = FxHashSet::default();
        for path in &files {
            let lang = Lang::from_path(path).expect("a parsed language");
            langs.insert(lang);
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let cuts: Vec<usize> =
                (1..text.len()).step_by(text.len() / 24 + 1).filter(|&i| text.is_char_boundary(i)).collect();
            let mut broken: Vec<String> = cuts.iter().map(|&i| text[..i].to_string()).collect();
            for pair in cuts.windows(2) {
                broken.push(format!("{}{}", &text[..pair[0]], &text[pair[1]..]));
            }
            for (i, source) in broken.iter().enumerate() {
                let name = format!("broken{i}.{}", path.extension().and_then(|e| e.to_str()).unwrap_or(""));
                let entry = crate::test_support::entry(&name, source);
                let refs: Vec<Pos> =
                    entry.symbols.refs.iter().map(|r| Pos::new(r.line, r.column())).collect();
                let snapshot = crate::snapshot::Snapshot::from_entries([entry]);
                let resolver = snapshot.resolver();
                let file = resolver.file_index(&name).expect("the file");
                for pos in refs {
                    let _ = resolver.at(file, pos);
                }
            }
        }
        assert!(langs.len() >= N_LANGS - 1, "fixtures of {} languages only", langs.len());
    }

    #[test]
    fn scripts_without_an_extension_are_told_by_their_interpreter() {
        assert_eq!(Lang::from_shebang(b"#!/usr/bin/env bash\nset -e\n"), Some(Lang::Bash));
        assert_eq!(Lang::from_shebang(b"#!/bin/sh"), Some(Lang::Bash));
        assert_eq!(Lang::from_shebang(b"#!/usr/bin/env -S python3.11 -u\n"), Some(Lang::Python));
        assert_eq!(Lang::from_shebang(b"#! /usr/bin/ruby -w\n"), Some(Lang::Ruby));
        assert_eq!(Lang::from_shebang(b"#!/usr/bin/env LC_ALL=C node\n"), Some(Lang::JavaScript));
        assert_eq!(Lang::from_shebang(b"#!/usr/bin/perl\n"), None);
        assert_eq!(Lang::from_shebang(b"#!/usr/bin/env zsh\n"), None);
        assert_eq!(Lang::from_shebang(b"# bash\n"), None);
        assert_eq!(Lang::from_shebang(b""), None);
    }

    #[test]
    fn languages_come_from_extensions() {
        assert_eq!(Lang::from_path(Path::new("a/b.py")), Some(Lang::Python));
        assert_eq!(Lang::from_path(Path::new("src/lib.rs")), Some(Lang::Rust));
        assert_eq!(Lang::from_path(Path::new("src/view.tsx")), Some(Lang::Tsx));
        assert_eq!(Lang::from_path(Path::new("src/view.ts")), Some(Lang::TypeScript));
        assert_eq!(Lang::from_path(Path::new("src/main/java/shop/Cart.java")), Some(Lang::Java));
        assert_eq!(Lang::from_path(Path::new("src/cart.c")), Some(Lang::C));
        assert_eq!(Lang::from_path(Path::new("include/cart.h")), Some(Lang::Cpp));
        assert_eq!(Lang::from_path(Path::new("src/cart.cc")), Some(Lang::Cpp));
        assert_eq!(Lang::from_path(Path::new("README.md")), None);
        assert_eq!(Lang::from_path(Path::new("scripts/release.main.kts")), Some(Lang::Kotlin));
        assert_eq!(Lang::from_path(Path::new("app/build.gradle.kts")), None, "a build script is text");
        assert_eq!(Lang::from_path(Path::new("Package.swift")), None);
        assert_eq!(Lang::from_path(Path::new("Sources/Shop/Package.swift.swift")), Some(Lang::Swift));
        assert_eq!(Lang::from_path(Path::new("Makefile")), None);
    }
}

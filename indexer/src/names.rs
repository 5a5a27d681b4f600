//! What name resolution needs from one file besides its definitions and references: scopes,
//! the names each scope binds (with an evident type when there is one), imports, impl blocks
//! and what a module exports; extraction reads them from `queries/<lang>/names.scm`.

use serde::{Deserialize, Serialize};

/// "No value" for the compact `u32` indexes below.
pub(crate) const NONE: u32 = u32::MAX;

/// What kind of region a scope is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum ScopeKind {
    /// The whole file (always scope 0).
    File,
    Function,
    Class,
    /// A Python lambda or a Rust closure.
    Lambda,
    Comprehension,
    /// A Rust block.
    Block,
    /// A Rust inline `mod name { … }`.
    Module,
}

/// A 1-based line and column (bytes), ordered as they appear in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    pub fn new(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }

    pub(crate) fn of(point: tree_sitter::Point) -> Pos {
        Pos { line: point.row as u32 + 1, column: point.column as u32 + 1 }
    }
}

/// A region where names are bound. Scopes are in source order; scope 0 is the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C, packed)]
pub(crate) struct Scope {
    pub kind: ScopeKind,
    /// Where the region starts and ends (the end is exclusive).
    pub start: Pos,
    pub end: Pos,
    /// The enclosing scope; [`NONE`] for the file.
    pub parent: u32,
    /// The definition this scope is the body of (a function, class or module), else [`NONE`].
    pub def: u32,
}

/// How a name got bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum BindKind {
    Param,
    /// Rust `self`, `&self`, `&mut self`.
    SelfParam,
    Assign,
    Let,
    Loop,
    With,
    Except,
    /// A Rust `match` arm or `if let` pattern.
    Pattern,
    /// Python `global x`: the name lives in the module.
    Global,
    /// Python `nonlocal x`: the name lives in an enclosing function.
    Nonlocal,
    /// Python `self.x = …` in a method: an attribute of the class (the binding's scope is the
    /// class body).
    Attribute,
    /// A field a type's body declares with its type (Rust's `shape: Circle` in a struct): what
    /// `self.shape` holds. The captured node is the field's name.
    Field,
}

impl BindKind {
    pub(crate) fn from_capture(capture: &str) -> Option<BindKind> {
        Some(match capture {
            "local.param" => BindKind::Param,
            "local.self" => BindKind::SelfParam,
            "local.assign" | "local.alias" => BindKind::Assign,
            "local.let" => BindKind::Let,
            "local.loop" => BindKind::Loop,
            "local.with" => BindKind::With,
            "local.except" => BindKind::Except,
            "local.pattern" => BindKind::Pattern,
            "local.global" => BindKind::Global,
            "local.nonlocal" => BindKind::Nonlocal,
            "local.attribute" => BindKind::Attribute,
            "local.field" => BindKind::Field,
            _ => return None,
        })
    }
}

/// One name bound in a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C, packed)]
pub(crate) struct Binding {
    /// Index into the file's `names`.
    pub name: u32,
    pub scope: u32,
    /// 1-based line and column (bytes) of the bound identifier.
    pub line: u32,
    pub column: u32,
    pub kind: BindKind,
    /// An evident type, as an index into `names`: a type path (`Cart`, `geo::Point`, `Self`)
    /// whose instance the name holds, a callee path ending in `()` whose result it holds
    /// (`Cart()`, `Circle::new()`), or `=` and a path it is another name for (`=Cart`);
    /// [`NONE`] when nothing is evident.
    pub hint: u32,
}

/// One name an import binds (or one glob import).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[repr(C, packed)]
pub(crate) struct Import {
    /// Index into `names`: Python, the module as written (`a.b`, `..pkg`, `.`); Rust, the path
    /// before the imported item (`crate::geo`, empty for `use foo;`).
    pub module: u32,
    /// The imported item (`from m import item`, Rust's last segment); [`NONE`] for a Python
    /// `import a.b` and for a glob.
    pub item: u32,
    /// The name bound in the scope; [`NONE`] for a glob.
    pub bound: u32,
    /// Bound under another name (`as`). A Python `import a.b` without one binds `a`.
    pub alias: bool,
    pub glob: bool,
    /// Behind a condition of the build (Rust's `#[cfg(unix)] pub use self::unix::*;`): whether
    /// the host tack runs on meets it (`Some(true)`), or not (`Some(false)`, a platform branch
    /// that is still a candidate); `None` for an import of every build.
    pub cfg: Option<bool>,
    pub scope: u32,
    /// 1-based position of the bound name.
    pub line: u32,
    pub column: u32,
}

/// A Rust impl block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Impl {
    /// Index into `names`: the implementing type's path, generics dropped (`Circle`).
    pub self_ty: u32,
    /// Index into `names`: the trait's path, or [`NONE`] for an inherent impl.
    pub trait_path: u32,
    pub start: Pos,
    pub end: Pos,
}

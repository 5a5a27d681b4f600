//! What one file defines and references, as data: definitions (with qualified names, spans,
//! signatures and doc lines), references (with their kind, enclosing definition and qualifier),
//! and the scopes, bindings and imports of [`crate::names`]. `extract` fills it in.

use serde::{Deserialize, Serialize};

use crate::names::{Binding, Impl, Import, Pos, Scope};

/// What a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DefKind {
    Class,
    Enum,
    Interface,
    Type,
    Function,
    Method,
    Constant,
    Module,
    Macro,
}

impl DefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DefKind::Class => "class",
            DefKind::Enum => "enum",
            DefKind::Interface => "interface",
            DefKind::Type => "type",
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Constant => "constant",
            DefKind::Module => "module",
            DefKind::Macro => "macro",
        }
    }

    pub(crate) fn from_capture(capture: &str) -> Option<DefKind> {
        Some(match capture {
            "definition.class" => DefKind::Class,
            "definition.enum" => DefKind::Enum,
            "definition.interface" => DefKind::Interface,
            "definition.type" => DefKind::Type,
            "definition.function" => DefKind::Function,
            "definition.method" => DefKind::Method,
            "definition.constant" => DefKind::Constant,
            "definition.module" => DefKind::Module,
            "definition.macro" => DefKind::Macro,
            _ => return None,
        })
    }
}

/// How a name is used. Ordered from least to most specific: when several query patterns match
/// one identifier, the most specific kind wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RefKind {
    Name,
    Attribute,
    Type,
    Import,
    Inheritance,
    /// `receiver.name(...)`.
    MethodCall,
    /// `name(...)` or `path::name(...)`.
    Call,
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Name => "name",
            RefKind::Attribute => "attribute",
            RefKind::Type => "type use",
            RefKind::Import => "import",
            RefKind::Inheritance => "inheritance",
            RefKind::MethodCall => "method call",
            RefKind::Call => "call",
        }
    }

    pub(crate) fn from_capture(capture: &str) -> Option<RefKind> {
        Some(match capture {
            "reference.name" => RefKind::Name,
            "reference.attribute" => RefKind::Attribute,
            "reference.type" => RefKind::Type,
            "reference.import" => RefKind::Import,
            "reference.inheritance" | "reference.implementation" => RefKind::Inheritance,
            "reference.method" => RefKind::MethodCall,
            "reference.call" => RefKind::Call,
            _ => return None,
        })
    }
}

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    pub name: String,
    /// Within the file: `Class.method` (Python), `module::Type::method` (Rust).
    pub qualified: String,
    pub kind: DefKind,
    /// 1-based first and last line of the whole definition.
    pub line: u32,
    pub end_line: u32,
    /// Byte span of the definition, from its own line on (annotations that its node holds stand
    /// above it, as decorators do).
    pub start_byte: u32,
    pub end_byte: u32,
    /// The definition's first source line, as written (indentation kept, trailing space cut).
    pub header: String,
    /// The signature with whitespace collapsed: `def add(self, item)`, `pub fn new(r: f64) -> Self`.
    pub signature: String,
    /// The first line of the docstring or doc comment.
    pub doc: Option<String>,
    /// The innermost enclosing definition, as an index into the file's `defs`.
    pub parent: Option<u32>,
}

/// One reference to a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref {
    /// Index into the file's `names`.
    pub name: u32,
    /// 1-based line and column (bytes).
    pub line: u32,
    pub column: u32,
    pub kind: RefKind,
    /// The innermost definition containing the reference, as an index into `defs`.
    pub enclosing: Option<u32>,
    /// What comes before the name, as an index into `names`: the object of `a.b.name`
    /// (`a.b`, or `?` when it is not a plain chain), the path of `geo::name`, the module of an
    /// imported name (`..pkg`); `u32::MAX` (no name) for a bare name.
    pub qualifier: u32,
}

/// Everything one file defines and references.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSymbols {
    /// In source order.
    pub defs: Vec<Def>,
    /// In source order.
    pub refs: Vec<Ref>,
    /// The distinct names and paths the fields below point at; `Ref::name` indexes this.
    pub names: Vec<String>,
    /// Places where the parser had to recover (0 for a clean file).
    pub syntax_issues: u32,
    /// Scopes in source order; scope 0 is the whole file.
    pub(crate) scopes: Vec<Scope>,
    /// Names bound in scopes (parameters, assignments, loop variables, patterns), in source
    /// order.
    pub(crate) bindings: Vec<Binding>,
    pub(crate) imports: Vec<Import>,
    /// Rust impl blocks.
    pub(crate) impls: Vec<Impl>,
    /// Python `__all__`, when the module sets it.
    pub(crate) exports: Option<Vec<String>>,
}

impl FileSymbols {
    pub fn ref_name(&self, r: &Ref) -> &str {
        &self.names[r.name as usize]
    }

    /// The string at a `names` index; empty for `u32::MAX` (no name).
    pub fn text(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }
}

/// The innermost scope containing `pos`, given scopes sorted by start (nested spans): the
/// last scope starting at or before it, or the nearest of that scope's parents that contains it.
pub(crate) fn innermost_scope(scopes: &[Scope], pos: Pos) -> u32 {
    let i = scopes.partition_point(|s| s.start <= pos);
    let mut at = i.saturating_sub(1) as u32;
    while at != 0 && scopes[at as usize].end <= pos {
        at = scopes[at as usize].parent;
    }
    at
}

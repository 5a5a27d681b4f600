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
    /// Every kind, in declaration order (`kind as usize` indexes it).
    const ALL: [RefKind; 7] = [
        RefKind::Name,
        RefKind::Attribute,
        RefKind::Type,
        RefKind::Import,
        RefKind::Inheritance,
        RefKind::MethodCall,
        RefKind::Call,
    ];

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

/// One reference to a name: 20 bytes, since a large workspace holds tens of millions (18.7
/// million at 30,000 files, 28 bytes each before the kind and column shared a word and "no
/// enclosing definition" became a sentinel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref {
    /// Index into the file's `names`.
    pub name: u32,
    /// 1-based line (bytes).
    pub line: u32,
    /// The 1-based column (bytes) above, the kind in the low [`KIND_BITS`] bits.
    column_kind: u32,
    /// The innermost definition containing the reference, as an index into `defs`; `u32::MAX`
    /// for none.
    enclosing: u32,
    /// What comes before the name, as an index into `names`: the object of `a.b.name`
    /// (`a.b`, or `?` when it is not a plain chain), the path of `geo::name`, the module of an
    /// imported name (`..pkg`); `u32::MAX` (no name) for a bare name.
    pub qualifier: u32,
}

/// Bits of [`Ref`]'s packed word that hold the kind; the column has the other 29 (files past
/// [`crate::MAX_PARSE_BYTES`], 2^21, are not parsed, so no column is larger).
const KIND_BITS: u32 = 3;

impl Ref {
    pub fn new(
        name: u32,
        line: u32,
        column: u32,
        kind: RefKind,
        enclosing: Option<u32>,
        qualifier: u32,
    ) -> Ref {
        let column = column.min(u32::MAX >> KIND_BITS);
        Ref {
            name,
            line,
            column_kind: (column << KIND_BITS) | kind as u32,
            enclosing: enclosing.unwrap_or(u32::MAX),
            qualifier,
        }
    }

    /// 1-based column (bytes).
    pub fn column(&self) -> u32 {
        self.column_kind >> KIND_BITS
    }

    pub fn kind(&self) -> RefKind {
        RefKind::ALL[(self.column_kind & ((1 << KIND_BITS) - 1)) as usize]
    }

    /// The innermost definition containing the reference, as an index into `defs`.
    pub fn enclosing(&self) -> Option<u32> {
        (self.enclosing != u32::MAX).then_some(self.enclosing)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_gives_back_each_kind_column_and_enclosing_definition_it_was_made_with() {
        for kind in RefKind::ALL {
            for column in [1, 80, (2 << 20) + 1] {
                for enclosing in [None, Some(0), Some(7)] {
                    let r = Ref::new(3, 10, column, kind, enclosing, u32::MAX);
                    assert_eq!((r.kind(), r.column(), r.enclosing()), (kind, column, enclosing));
                }
            }
        }
        assert_eq!(std::mem::size_of::<Ref>(), 20);
    }
}

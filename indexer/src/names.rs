//! What name resolution needs from one file besides its definitions and references: scopes,
//! the names each scope binds (with an evident type when there is one), imports, impl blocks
//! and `__all__`. Read from the captures of `queries/<lang>/names.scm`, decoded here.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::lang::Lang;

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
}

impl BindKind {
    fn from_capture(capture: &str) -> Option<BindKind> {
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
            _ => return None,
        })
    }
}

/// One name bound in a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

pub(crate) fn node_text<'a>(node: Node, bytes: &'a [u8]) -> &'a str {
    std::str::from_utf8(&bytes[node.start_byte()..node.end_byte()]).unwrap_or("")
}

/// What a capture of the joined query means to the extractor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Role {
    Name,
    Def(crate::symbols::DefKind),
    Ref(crate::symbols::RefKind),
    Scope,
    Bind(BindKind),
    Hint,
    HintCall,
    HintAlias,
    Receiver,
    Import,
    Impl,
    Exports,
    Qualifier,
    Qualified,
    /// A keyword argument's name: its qualifier is the callee, marked with a trailing `(`.
    QualifiedArgument,
    Other,
}

impl Role {
    pub(crate) fn from_capture(capture: &str) -> Role {
        use crate::symbols::{DefKind, RefKind};
        match capture {
            "name" => Role::Name,
            "scope" => Role::Scope,
            "local.hint" => Role::Hint,
            "local.hint.call" => Role::HintCall,
            "local.hint.alias" => Role::HintAlias,
            "local.receiver" => Role::Receiver,
            "import" => Role::Import,
            "impl" => Role::Impl,
            "exports" => Role::Exports,
            "qualifier" => Role::Qualifier,
            "qualified" => Role::Qualified,
            "qualified.argument" => Role::QualifiedArgument,
            other => {
                if let Some(kind) = DefKind::from_capture(other) {
                    Role::Def(kind)
                } else if let Some(kind) = RefKind::from_capture(other) {
                    Role::Ref(kind)
                } else if let Some(kind) = BindKind::from_capture(other) {
                    Role::Bind(kind)
                } else {
                    Role::Other
                }
            }
        }
    }
}

/// The identifiers a binding pattern binds: `a, (b, c)`, `Point { x, y: ref z }`, `Some(v)`.
/// Attribute and index targets bind nothing, nor does an identifier the language says is no
/// binding (in Rust, a capitalised one is a constant or a unit variant).
pub(crate) fn pattern_identifiers<'t>(lang: Lang, node: Node<'t>, bytes: &[u8], out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "identifier" => {
            if lang.language().pattern_binds(node_text(node, bytes)) {
                out.push(node);
            }
        }
        // Rust's `Point { x, .. }`, JavaScript's `const { x } = …`.
        "shorthand_field_identifier" | "shorthand_property_identifier_pattern" => out.push(node),
        // JavaScript's `{ key: name }` binds the name; `name = default` and `{ name = default }`
        // bind what is left of the `=`.
        "pair_pattern" | "assignment_pattern" | "object_assignment_pattern" => {
            let bound =
                node.child_by_field_name(if node.kind() == "pair_pattern" { "value" } else { "left" });
            if let Some(bound) = bound {
                pattern_identifiers(lang, bound, bytes, out);
            }
        }
        "attribute" | "subscript" | "scoped_identifier" | "field_expression" | "string" => {}
        _ => {
            let mut cursor = node.walk();
            if cursor.goto_first_child() {
                loop {
                    let child = cursor.node();
                    let skip = matches!(
                        cursor.field_name(),
                        Some("type" | "condition" | "value" | "function" | "arguments" | "body")
                    );
                    if child.is_named() && !skip {
                        pattern_identifiers(lang, child, bytes, out);
                    }
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                }
            }
        }
    }
}

/// A type or callee path as the language reads it, see [`crate::lang::Language::type_hint`].
pub(crate) fn type_hint(lang: Lang, text: &str) -> Option<String> {
    lang.language().type_hint(text)
}

/// The text of an expression made only of names, attribute/field accesses and calls of such
/// (`self.items`, `a.b`, `Cart()`, `Circle::new()`); `?` for anything else.
pub(crate) fn simple_chain(lang: Lang, node: Node, bytes: &[u8]) -> String {
    fn walk(lang: Lang, node: Node, bytes: &[u8], out: &mut String) -> bool {
        match node.kind() {
            "identifier" | "self" | "crate" | "super" | "type_identifier" | "package_identifier" | "this" => {
                out.push_str(node_text(node, bytes));
                true
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                match lang.language().type_hint(node_text(node, bytes)) {
                    Some(path) => {
                        out.push_str(&path);
                        true
                    }
                    None => false,
                }
            }
            "attribute" | "field_expression" | "selector_expression" | "member_expression" => {
                // Python's `attribute`, Rust's `field_expression`, Go's `selector_expression`
                // and JavaScript's `member_expression` name their parts apart.
                let (object, field) = match node.kind() {
                    "attribute" => ("object", "attribute"),
                    "field_expression" => ("value", "field"),
                    "member_expression" => ("object", "property"),
                    _ => ("operand", "field"),
                };
                let (Some(object), Some(field)) =
                    (node.child_by_field_name(object), node.child_by_field_name(field))
                else {
                    return false;
                };
                if !walk(lang, object, bytes, out) {
                    return false;
                }
                out.push('.');
                out.push_str(node_text(field, bytes));
                true
            }
            "call" | "call_expression" | "new_expression" => {
                let callee = if node.kind() == "new_expression" { "constructor" } else { "function" };
                let Some(function) = node.child_by_field_name(callee) else { return false };
                if !walk(lang, function, bytes, out) {
                    return false;
                }
                out.push_str("()");
                true
            }
            _ => false,
        }
    }
    let mut out = String::new();
    if walk(lang, node, bytes, &mut out) { out } else { "?".to_string() }
}

/// An identifier that only renames (`as y`): the import binds it, it refers to nothing itself.
pub(crate) fn is_alias(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        matches!(p.kind(), "aliased_import" | "use_as_clause") && p.child_by_field_name("alias") == Some(node)
    })
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
    pub at: Node<'t>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_hints_keep_the_path_and_drop_decoration() {
        assert_eq!(type_hint(Lang::Rust, "&'a mut Foo<T>").as_deref(), Some("Foo"));
        assert_eq!(type_hint(Lang::Rust, "crate::geo::Point").as_deref(), Some("crate::geo::Point"));
        assert_eq!(type_hint(Lang::Rust, "&dyn Shape").as_deref(), Some("Shape"));
        assert_eq!(type_hint(Lang::Rust, "(u8, u8)"), None);
        assert_eq!(type_hint(Lang::Python, "Cart").as_deref(), Some("Cart"));
        assert_eq!(type_hint(Lang::Python, "'shop.Cart'").as_deref(), Some("shop.Cart"));
        assert_eq!(type_hint(Lang::Python, "Cart | None").as_deref(), Some("Cart"));
        assert_eq!(type_hint(Lang::Python, "list[Cart]"), None);
    }
}

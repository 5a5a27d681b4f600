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

impl ScopeKind {
    pub(crate) fn from_node(kind: &str) -> ScopeKind {
        match kind {
            "function_definition" | "function_item" => ScopeKind::Function,
            "class_definition" => ScopeKind::Class,
            "lambda" | "closure_expression" => ScopeKind::Lambda,
            "block" | "match_arm" | "if_expression" | "while_expression" | "for_expression" => {
                ScopeKind::Block
            }
            "mod_item" => ScopeKind::Module,
            _ => ScopeKind::Comprehension,
        }
    }
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
/// Attribute and index targets bind nothing; in Rust a capitalised identifier in a pattern is
/// a constant or a unit variant, not a binding.
pub(crate) fn pattern_identifiers<'t>(lang: Lang, node: Node<'t>, bytes: &[u8], out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "identifier" => {
            let upper = node_text(node, bytes).starts_with(|c: char| c.is_ascii_uppercase());
            if !(lang == Lang::Rust && upper) {
                out.push(node);
            }
        }
        "shorthand_field_identifier" => out.push(node),
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

/// A type or callee path with references, lifetimes, generics and whitespace dropped:
/// `&'a mut Foo<T>` → `Foo`, `crate::geo::Point` stays, `Optional[Foo]` and `Foo | None`
/// (Python) give nothing, since the name alone would be wrong.
pub(crate) fn type_hint(lang: Lang, text: &str) -> Option<String> {
    let mut text = text.trim();
    match lang {
        Lang::Python => {
            text = text.trim_matches(|c| c == '"' || c == '\'');
            text = text.strip_suffix("| None").map(str::trim_end).unwrap_or(text);
            let ok = !text.is_empty()
                && text.split('.').all(|part| {
                    !part.is_empty()
                        && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                        && !part.starts_with(|c: char| c.is_ascii_digit())
                });
            ok.then(|| text.to_string())
        }
        Lang::Rust => {
            loop {
                let before = text;
                text = text.trim_start_matches('&').trim_start();
                if text.starts_with('\'') {
                    text = text.split_once(' ').map_or("", |(_, rest)| rest).trim_start();
                }
                for prefix in ["mut ", "dyn ", "impl "] {
                    text = text.strip_prefix(prefix).unwrap_or(text).trim_start();
                }
                if text == before {
                    break;
                }
            }
            let base = text.split('<').next().unwrap_or("").trim_end_matches("::");
            let ok = !base.is_empty()
                && base
                    .split("::")
                    .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'));
            ok.then(|| base.split_whitespace().collect())
        }
    }
}

/// The text of an expression made only of names, attribute/field accesses and calls of such
/// (`self.items`, `a.b`, `Cart()`, `Circle::new()`); `?` for anything else.
pub(crate) fn simple_chain(lang: Lang, node: Node, bytes: &[u8]) -> String {
    fn walk(lang: Lang, node: Node, bytes: &[u8], out: &mut String) -> bool {
        match node.kind() {
            "identifier" | "self" | "crate" | "super" | "type_identifier" => {
                out.push_str(node_text(node, bytes));
                true
            }
            "scoped_identifier" | "scoped_type_identifier" if lang == Lang::Rust => {
                match type_hint(lang, node_text(node, bytes)) {
                    Some(path) => {
                        out.push_str(&path);
                        true
                    }
                    None => false,
                }
            }
            "attribute" | "field_expression" => {
                let (object, field) = match lang {
                    Lang::Python => ("object", "attribute"),
                    Lang::Rust => ("value", "field"),
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
            "call" | "call_expression" => {
                let Some(function) = node.child_by_field_name("function") else { return false };
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

/// What comes before a reference's name: the object of `a.b.name` (`a.b`), the path of
/// `geo::name` (`geo`, with the prefix of an enclosing `use a::{…}` group), the module path
/// before a segment in an import (`..pkg` for `from ..pkg import name`). `None` for a bare name.
pub(crate) fn qualifier(lang: Lang, node: Node, bytes: &[u8]) -> Option<String> {
    let parent = node.parent()?;
    match lang {
        Lang::Python => match parent.kind() {
            "attribute" if parent.child_by_field_name("attribute") == Some(node) => {
                let object = parent.child_by_field_name("object")?;
                Some(simple_chain(lang, object, bytes))
            }
            "dotted_name" => python_import_qualifier(node, parent, bytes),
            _ => None,
        },
        Lang::Rust => {
            let own = match parent.kind() {
                "scoped_identifier" | "scoped_type_identifier"
                    if parent.child_by_field_name("name") == Some(node) =>
                {
                    let path = parent.child_by_field_name("path")?;
                    Some(type_hint(lang, node_text(path, bytes)).unwrap_or_else(|| "?".to_string()))
                }
                "field_expression" if parent.child_by_field_name("field") == Some(node) => {
                    let value = parent.child_by_field_name("value")?;
                    Some(simple_chain(lang, value, bytes))
                }
                _ => None,
            };
            // Inside `use a::{b, c::d}` the group's path comes first.
            let mut prefix: Vec<String> = Vec::new();
            let mut child = node;
            let mut current = Some(parent);
            while let Some(ancestor) = current {
                match ancestor.kind() {
                    "scoped_use_list" if ancestor.child_by_field_name("list") == Some(child) => {
                        if let Some(path) = ancestor.child_by_field_name("path") {
                            prefix.push(squash(node_text(path, bytes)));
                        }
                    }
                    "use_declaration" => break,
                    "use_list" | "scoped_use_list" | "scoped_identifier" | "use_as_clause" => {}
                    _ if prefix.is_empty() => break,
                    _ => {}
                }
                child = ancestor;
                current = ancestor.parent();
            }
            if prefix.is_empty() {
                return own;
            }
            prefix.reverse();
            if let Some(own) = own {
                prefix.push(own);
            }
            Some(prefix.join("::"))
        }
    }
}

/// The qualifier text of a captured object or path node (outside imports).
pub(crate) fn qualifier_text(lang: Lang, qualifier: Node, bytes: &[u8]) -> String {
    match (lang, qualifier.kind()) {
        (Lang::Rust, kind) if kind != "field_expression" && kind != "call_expression" && kind != "self" => {
            type_hint(lang, node_text(qualifier, bytes)).unwrap_or_else(|| "?".to_string())
        }
        _ => simple_chain(lang, qualifier, bytes),
    }
}

/// Python import paths: the segments before `node` in its dotted name, after the relative
/// dots or, for the imported names of `from m import x`, after the module.
fn python_import_qualifier(node: Node, dotted: Node, bytes: &[u8]) -> Option<String> {
    let mut before: Vec<&str> = Vec::new();
    let mut cursor = dotted.walk();
    for child in dotted.named_children(&mut cursor) {
        if child == node {
            break;
        }
        before.push(node_text(child, bytes));
    }
    let holder = dotted.parent()?;
    let statement = if holder.kind() == "aliased_import" { holder.parent()? } else { holder };
    let head = if holder.kind() == "relative_import" {
        let mut cursor = holder.walk();
        let prefix = holder.named_children(&mut cursor).find(|c| c.kind() == "import_prefix");
        Some(prefix.map(|p| node_text(p, bytes).to_string()).unwrap_or_default())
    } else if statement.kind() == "import_from_statement"
        && statement.child_by_field_name("module_name") != Some(dotted)
    {
        statement.child_by_field_name("module_name").map(|m| squash(node_text(m, bytes)))
    } else {
        None
    };
    let joined = before.join(".");
    match head {
        Some(head) if joined.is_empty() => Some(head),
        Some(head) if head.ends_with('.') => Some(format!("{head}{joined}")),
        Some(head) => Some(format!("{head}.{joined}")),
        None if joined.is_empty() => None,
        None => Some(joined),
    }
}

/// An identifier that only renames (`as y`): the import binds it, it refers to nothing itself.
pub(crate) fn is_alias(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        matches!(p.kind(), "aliased_import" | "use_as_clause") && p.child_by_field_name("alias") == Some(node)
    })
}

fn squash(text: &str) -> String {
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

/// The names an import statement or `use` declaration binds.
pub(crate) fn decode_import<'t>(lang: Lang, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
    match (lang, node.kind()) {
        (Lang::Python, "import_statement") => {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                if name.kind() == "aliased_import" {
                    let (Some(module), Some(alias)) =
                        (name.child_by_field_name("name"), name.child_by_field_name("alias"))
                    else {
                        continue;
                    };
                    out.push(RawImport {
                        module: squash(node_text(module, bytes)),
                        item: None,
                        bound: Some(node_text(alias, bytes).to_string()),
                        alias: true,
                        glob: false,
                        at: alias,
                    });
                } else {
                    let module = squash(node_text(name, bytes));
                    let first = module.split('.').next().unwrap_or("").to_string();
                    out.push(RawImport {
                        module,
                        item: None,
                        bound: Some(first),
                        alias: false,
                        glob: false,
                        at: name,
                    });
                }
            }
        }
        (Lang::Python, "import_from_statement") => {
            let Some(module) = node.child_by_field_name("module_name") else { return };
            let module = squash(node_text(module, bytes));
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if child.kind() == "wildcard_import" {
                    out.push(RawImport {
                        module: module.clone(),
                        item: None,
                        bound: None,
                        alias: false,
                        glob: true,
                        at: child,
                    });
                }
            }
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                let (item, alias) = if name.kind() == "aliased_import" {
                    (name.child_by_field_name("name"), name.child_by_field_name("alias"))
                } else {
                    (Some(name), None)
                };
                let Some(item) = item else { continue };
                let item_text = squash(node_text(item, bytes));
                let (bound, at) = match alias {
                    Some(alias) => (node_text(alias, bytes).to_string(), alias),
                    None => (item_text.clone(), item),
                };
                out.push(RawImport {
                    module: module.clone(),
                    item: Some(item_text),
                    bound: Some(bound),
                    alias: alias.is_some(),
                    glob: false,
                    at,
                });
            }
        }
        (Lang::Rust, "use_declaration") => {
            if let Some(argument) = node.child_by_field_name("argument") {
                use_tree(argument, "", bytes, out);
            }
        }
        (Lang::Rust, "extern_crate_declaration") => {
            let Some(name) = node.child_by_field_name("name") else { return };
            let alias = node.child_by_field_name("alias");
            let at = alias.unwrap_or(name);
            out.push(RawImport {
                module: String::new(),
                item: Some(node_text(name, bytes).to_string()),
                bound: Some(node_text(at, bytes).to_string()),
                alias: alias.is_some(),
                glob: false,
                at,
            });
        }
        _ => {}
    }
}

fn join_path(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{rest}"),
    }
}

fn split_last(path: &str) -> (String, String) {
    match path.rsplit_once("::") {
        Some((module, item)) => (module.to_string(), item.to_string()),
        None => (String::new(), path.to_string()),
    }
}

fn use_tree<'t>(node: Node<'t>, prefix: &str, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
    match node.kind() {
        "use_as_clause" => {
            let (Some(path), Some(alias)) =
                (node.child_by_field_name("path"), node.child_by_field_name("alias"))
            else {
                return;
            };
            let (module, item) = split_last(&join_path(prefix, &squash(node_text(path, bytes))));
            out.push(RawImport {
                module,
                item: Some(item),
                bound: Some(node_text(alias, bytes).to_string()),
                alias: true,
                glob: false,
                at: alias,
            });
        }
        "use_wildcard" => {
            let mut cursor = node.walk();
            let path = node.named_children(&mut cursor).next().map(|p| squash(node_text(p, bytes)));
            out.push(RawImport {
                module: join_path(prefix, &path.unwrap_or_default()),
                item: None,
                bound: None,
                alias: false,
                glob: true,
                at: node,
            });
        }
        "scoped_use_list" => {
            let path =
                node.child_by_field_name("path").map(|p| squash(node_text(p, bytes))).unwrap_or_default();
            let inner = join_path(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                use_tree(list, &inner, bytes, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                use_tree(child, prefix, bytes, out);
            }
        }
        "self" if !prefix.is_empty() => {
            let (module, item) = split_last(prefix);
            out.push(RawImport {
                module,
                item: Some(item.clone()),
                bound: Some(item),
                alias: false,
                glob: false,
                at: node,
            });
        }
        "identifier" | "scoped_identifier" | "crate" | "super" | "self" => {
            let (module, item) = split_last(&join_path(prefix, &squash(node_text(node, bytes))));
            let at = node.child_by_field_name("name").unwrap_or(node);
            out.push(RawImport {
                module,
                item: Some(item.clone()),
                bound: Some(item),
                alias: false,
                glob: false,
                at,
            });
        }
        _ => {}
    }
}

/// The strings of a Python `__all__` list or tuple.
pub(crate) fn exported_names(node: Node, bytes: &[u8], out: &mut Vec<String>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "string" {
            let text = node_text(child, bytes).trim_matches(|c| c == '"' || c == '\'');
            if !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_') {
                out.push(text.to_string());
            }
        }
    }
}

/// A Rust impl block's type and trait paths, generics dropped.
pub(crate) fn impl_paths(node: Node, bytes: &[u8]) -> Option<(String, Option<String>)> {
    let ty = type_hint(Lang::Rust, node_text(node.child_by_field_name("type")?, bytes))?;
    let trait_path =
        node.child_by_field_name("trait").and_then(|t| type_hint(Lang::Rust, node_text(t, bytes)));
    Some((ty, trait_path))
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

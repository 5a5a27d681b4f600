//! Grammar walks several languages share: the identifiers a binding pattern binds, the text of
//! a qualifier made only of names, and whether an identifier only renames an import; and what
//! their tables' updates ask of a change.

use std::sync::Arc;

use tree_sitter::Node;

use super::node_text;
use crate::snapshot::{FileEntry, Lang};

/// Whether every changed file of `lang` is `alike` before and after the change (`before` and
/// `files` are the same files, as `Tables::updated` gets them).
pub(crate) fn changed_alike(
    lang: Lang,
    (before, files): (&[Arc<FileEntry>], &[Arc<FileEntry>]),
    changed: &[u32],
    alike: impl Fn(&FileEntry, &FileEntry) -> bool,
) -> bool {
    changed
        .iter()
        .map(|&i| i as usize)
        .all(|i| files[i].lang != lang || (before[i].lang == lang && alike(&before[i], &files[i])))
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

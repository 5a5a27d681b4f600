//! Grammar walks several languages share, over the node kinds each language names in its
//! [`Nodes`]: the identifiers a binding pattern binds, the text of a qualifier made only of
//! names, whether an identifier only renames an import, and the doc comments above
//! definitions; and what their tables' updates ask of a change. No grammar's node kinds are
//! spelled here.

use std::sync::Arc;

use tree_sitter::Node;

use super::node_text;
use crate::snapshot::{FileEntry, Lang};

/// The node kinds and field names of a language's grammar that the shared walks read. Each
/// names only what its grammar has (a test checks them against it); a list a language leaves
/// empty makes the walk find nothing of that shape.
#[derive(Clone, Copy)]
pub(crate) struct Nodes {
    /// The field of a definition that holds its body: its signature is the text before it.
    pub body: &'static str,
    /// Identifiers a binding pattern binds, where the language says the name binds
    /// (`Language::pattern_binds`).
    pub pattern_identifiers: &'static [&'static str],
    /// Shorthands a pattern binds whatever their name (Rust's `Point { x, .. }`, JavaScript's
    /// `const { x } = …`).
    pub pattern_shorthands: &'static [&'static str],
    /// Patterns that bind only what one of their fields holds, as (kind, field): JavaScript's
    /// `{ key: name }` binds its value, `name = default` what is left of the `=`.
    pub pattern_parts: &'static [(&'static str, &'static str)],
    /// Targets that bind nothing inside them: an attribute or an index assigned to, a path, a
    /// string.
    pub pattern_non_bindings: &'static [&'static str],
    /// Fields a pattern's walk does not enter: a parameter's type, a default value, a guard.
    pub pattern_skipped_fields: &'static [&'static str],
    /// Names a qualifier chain is made of (`self`, `items`).
    pub chain_names: &'static [&'static str],
    /// Paths a chain reads as a type hint (Rust's `geo::Circle`).
    pub chain_paths: &'static [&'static str],
    /// Member accesses, as (kind, object field, member field): `self.items`.
    pub chain_members: &'static [(&'static str, &'static str, &'static str)],
    /// Calls, as (kind, callee field): `Cart()`, `new Cart()`.
    pub chain_calls: &'static [(&'static str, &'static str)],
    /// Nodes of an import whose field holds a new name for what it imports, as (kind, field):
    /// `as y`.
    pub import_aliases: &'static [(&'static str, &'static str)],
    /// Comments.
    pub comments: &'static [&'static str],
}

impl Nodes {
    /// No node kind at all: the start of a language's own list (`..Nodes::NONE`).
    pub(crate) const NONE: Nodes = Nodes {
        body: "",
        pattern_identifiers: &[],
        pattern_shorthands: &[],
        pattern_parts: &[],
        pattern_non_bindings: &[],
        pattern_skipped_fields: &[],
        chain_names: &[],
        chain_paths: &[],
        chain_members: &[],
        chain_calls: &[],
        import_aliases: &[],
        comments: &[],
    };
}

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
    let nodes = &lang.spec().nodes;
    let kind = node.kind();
    if nodes.pattern_identifiers.contains(&kind) {
        if lang.language().pattern_binds(node_text(node, bytes)) {
            out.push(node);
        }
    } else if nodes.pattern_shorthands.contains(&kind) {
        out.push(node);
    } else if let Some((_, field)) = nodes.pattern_parts.iter().find(|(part, _)| *part == kind) {
        if let Some(bound) = node.child_by_field_name(field) {
            pattern_identifiers(lang, bound, bytes, out);
        }
    } else if !nodes.pattern_non_bindings.contains(&kind) {
        let mut cursor = node.walk();
        if cursor.goto_first_child() {
            loop {
                let child = cursor.node();
                let skip = cursor.field_name().is_some_and(|f| nodes.pattern_skipped_fields.contains(&f));
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

/// The text of an expression made only of names, attribute/field accesses and calls of such
/// (`self.items`, `a.b`, `Cart()`, `Circle::new()`); `?` for anything else.
pub(crate) fn simple_chain(lang: Lang, node: Node, bytes: &[u8]) -> String {
    fn walk(lang: Lang, node: Node, bytes: &[u8], out: &mut String) -> bool {
        let nodes = &lang.spec().nodes;
        let kind = node.kind();
        if nodes.chain_names.contains(&kind) {
            out.push_str(node_text(node, bytes));
            true
        } else if nodes.chain_paths.contains(&kind) {
            match lang.language().type_hint(node_text(node, bytes)) {
                Some(path) => {
                    out.push_str(&path);
                    true
                }
                None => false,
            }
        } else if let Some((_, object, member)) = nodes.chain_members.iter().find(|(m, _, _)| *m == kind) {
            let (Some(object), Some(member)) =
                (node.child_by_field_name(object), node.child_by_field_name(member))
            else {
                return false;
            };
            if !walk(lang, object, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(member, bytes));
            true
        } else if let Some((_, callee)) = nodes.chain_calls.iter().find(|(call, _)| *call == kind) {
            let Some(function) = node.child_by_field_name(callee) else { return false };
            if !walk(lang, function, bytes, out) {
                return false;
            }
            out.push_str("()");
            true
        } else {
            false
        }
    }
    let mut out = String::new();
    if walk(lang, node, bytes, &mut out) { out } else { "?".to_string() }
}

/// An identifier that only renames (`as y`): the import binds it, it refers to nothing itself.
pub(crate) fn is_alias(lang: Lang, node: Node) -> bool {
    node.parent().is_some_and(|parent| {
        let kind = parent.kind();
        lang.spec()
            .nodes
            .import_aliases
            .iter()
            .any(|(alias, field)| *alias == kind && parent.child_by_field_name(field) == Some(node))
    })
}

/// The first line of each child's doc comment in the JSDoc and Javadoc way (`/** … */` on the
/// lines right above it), by child node id, in one pass over the children.
pub(crate) fn doc_blocks_of_children<'a>(
    lang: Lang,
    parent: Node,
    bytes: &'a [u8],
    out: &mut rustc_hash::FxHashMap<usize, &'a str>,
) {
    let comments = lang.spec().nodes.comments;
    let mut pending: Option<(&'a str, usize)> = None;
    let mut cursor = parent.walk();
    for child in parent.children(&mut cursor) {
        if comments.contains(&child.kind()) {
            let text = node_text(child, bytes);
            pending = text.strip_prefix("/**").and_then(|body| {
                let first = body
                    .trim_end_matches("*/")
                    .lines()
                    .map(|l| l.trim().trim_start_matches('*').trim())
                    .find(|l| !l.is_empty())?;
                Some((first, child.end_position().row))
            });
            continue;
        }
        if let Some((line, row)) = pending.take()
            && row + 1 >= child.start_position().row
        {
            out.insert(child.id(), line);
        }
    }
}

/// The first line of each child's comment block, a run of `marker` line comments right above
/// it (one per line, none empty of text), by child node id, in one pass over the children.
/// What only looks like a comment (a shebang, `#!`) is never a doc.
pub(crate) fn line_comment_docs<'a>(
    lang: Lang,
    parent: Node,
    bytes: &'a [u8],
    marker: &str,
    out: &mut rustc_hash::FxHashMap<usize, &'a str>,
) {
    // The first line of the run and the row the run ends on.
    let mut run: Option<(&'a str, usize)> = None;
    let mut cursor = parent.walk();
    for child in parent.children(&mut cursor) {
        if lang.spec().nodes.comments.contains(&child.kind()) {
            let text = node_text(child, bytes);
            let start = child.start_position().row;
            let code = lang.spec().comments.not.iter().any(|start| text.starts_with(start));
            let Some(body) = text.strip_prefix(marker).filter(|_| !code) else {
                run = None;
                continue;
            };
            let body = body.trim();
            run = match run {
                Some((first, end)) if end + 1 == start => Some((first, start)),
                _ => Some((body, start)),
            };
            // A run whose first line is empty takes its first line with text.
            if let Some((first, end)) = run
                && first.is_empty()
            {
                run = Some((body, end));
            }
            continue;
        }
        if let Some((first, end)) = run.take()
            && end + 1 == child.start_position().row
            && !first.is_empty()
        {
            out.insert(child.id(), first);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every kind and field a language's [`Nodes`] names is one of its grammar's: a misspelt
    /// or foreign name would silently match nothing.
    #[test]
    fn each_language_names_only_its_grammars_nodes() {
        for spec in crate::lang::specs() {
            let nodes = &spec.nodes;
            let mut kinds: Vec<&str> = Vec::new();
            let mut fields: Vec<&str> = nodes.pattern_skipped_fields.to_vec();
            fields.push(nodes.body);
            // The pattern walk's kinds, then the chain walk's, then the imports'.
            kinds.extend(nodes.pattern_identifiers);
            kinds.extend(nodes.pattern_shorthands);
            kinds.extend(nodes.pattern_non_bindings);
            kinds.extend(nodes.pattern_parts.iter().map(|(kind, _)| *kind));
            fields.extend(nodes.pattern_parts.iter().map(|(_, field)| *field));
            kinds.extend(nodes.chain_names);
            kinds.extend(nodes.chain_paths);
            kinds.extend(nodes.chain_calls.iter().map(|(kind, _)| *kind));
            fields.extend(nodes.chain_calls.iter().map(|(_, field)| *field));
            for (kind, object, member) in nodes.chain_members {
                kinds.push(kind);
                fields.extend([*object, *member]);
            }
            let n_chain = kinds.len();
            kinds.extend(nodes.import_aliases.iter().map(|(kind, _)| *kind));
            kinds.extend(nodes.comments);
            fields.extend(nodes.import_aliases.iter().map(|(_, field)| *field));
            // The walks try the lists in turn: a kind in two of them would mean the first.
            let pattern_kinds = nodes.pattern_identifiers.len()
                + nodes.pattern_shorthands.len()
                + nodes.pattern_parts.len()
                + nodes.pattern_non_bindings.len();
            let (in_patterns, in_chains) = kinds[..n_chain].split_at(pattern_kinds);
            for list in [in_patterns, in_chains] {
                let mut distinct = list.to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), list.len(), "{}: a kind in two lists of {list:?}", spec.name);
            }
            let grammar = (spec.grammar)();
            for kind in kinds {
                assert_ne!(grammar.id_for_node_kind(kind, true), 0, "{}: no node kind {kind:?}", spec.name);
            }
            for field in fields {
                assert!(grammar.field_id_for_name(field).is_some(), "{}: no field {field:?}", spec.name);
            }
        }
    }
}

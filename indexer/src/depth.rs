//! The bound on nesting: a file nested deeper than any real source is indexed as text only,
//! never parsed whole, so no parse costs more than its size and no walk of a tree recurses
//! without a bound.
//!
//! tree-sitter's memory grows with nesting as well as size (indexing a 2 MB file of a million
//! nested parentheses peaked at 758 MB, BENCHMARKS.md), and the extractor's helpers walk a tree
//! recursively. Two
//! checks keep both bounded: brackets are counted before the parse, and the tree's depth is
//! measured, without recursion, after it (a chain of `+` or `.` nests without brackets).

use tree_sitter::{Parser, Tree};

use crate::snapshot::Lang;
use crate::symbols::TooDeep;

/// The deepest bracket nesting parsed. The deepest in CPython's standard library, its
/// site-packages and the cargo registry's sources is 206 (brackets in strings counted too).
pub const MAX_NESTING: u32 = 1_000;

/// The deepest syntax tree walked: twice the bracket bound, since an expression in brackets
/// takes about two levels of the tree. It bounds how deep the extractor's recursive helpers go.
pub const MAX_TREE_DEPTH: u32 = 2_000;

/// Where `source` first nests brackets deeper than [`MAX_NESTING`], if it does.
pub(crate) fn bracket_nesting(source: &str) -> Option<TooDeep> {
    let (mut depth, mut line) = (0u32, 1u32);
    for &b in source.as_bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(TooDeep { depth, line });
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => line += 1,
            _ => {}
        }
    }
    None
}

/// Where `tree` first nests deeper than [`MAX_TREE_DEPTH`], walked with a cursor (no
/// recursion).
pub(crate) fn tree_nesting(tree: &Tree) -> Option<TooDeep> {
    let mut cursor = tree.walk();
    let mut depth = 0u32;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > MAX_TREE_DEPTH {
                let line = cursor.node().start_position().row as u32 + 1;
                return Some(TooDeep { depth, line });
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
            depth -= 1;
        }
    }
}

/// Parses `source` unless it nests past a bound; `Err` says where.
pub(crate) fn parse_bounded(parser: &mut Parser, lang: Lang, source: &str) -> Result<Option<Tree>, TooDeep> {
    if let Some(too_deep) = bracket_nesting(source) {
        return Err(too_deep);
    }
    parser.set_language(&lang.grammar()).expect("grammar version matches tree-sitter");
    let Some(tree) = parser.parse(source, None) else { return Ok(None) };
    match tree_nesting(&tree) {
        Some(too_deep) => Err(too_deep),
        None => Ok(Some(tree)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_past_the_bound_are_found_at_their_line() {
        let ok = format!("x = {}{}\n", "(".repeat(MAX_NESTING as usize), ")".repeat(MAX_NESTING as usize));
        assert_eq!(bracket_nesting(&ok), None);
        let deep = format!("a = 1\nx = {}\n", "[".repeat(MAX_NESTING as usize + 5));
        assert_eq!(bracket_nesting(&deep), Some(TooDeep { depth: MAX_NESTING + 1, line: 2 }));
    }

    #[test]
    fn a_chain_without_brackets_is_bounded_by_the_trees_depth() {
        // `1+1+…` nests one binary expression per `+`, with no bracket at all.
        let source = format!("x = 1{}\n", "+1".repeat(MAX_TREE_DEPTH as usize + 10));
        assert_eq!(bracket_nesting(&source), None);
        let mut parser = Parser::new();
        let too_deep = parse_bounded(&mut parser, Lang::Python, &source).unwrap_err();
        assert_eq!(too_deep.depth, MAX_TREE_DEPTH + 1);
        assert_eq!(too_deep.line, 1);
        let shallow = "def f(a):\n    return (a + 1) * [a, {a: 2}]\n";
        assert!(parse_bounded(&mut parser, Lang::Python, shallow).unwrap().is_some());
    }
}

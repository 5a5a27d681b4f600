//! Syntax checking with tree-sitter: where a source text fails to parse, for the edit guard and
//! for reporting files that only partly parse.

use tree_sitter::{Node, Parser};

use crate::snapshot::Lang;

/// One place where the parser had to recover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxIssue {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in bytes.
    pub column: u32,
    /// 1-based last line the issue spans (an unplaceable region can span many lines).
    pub end_line: u32,
    /// `error` for text the grammar could not place, `missing X` for a token the parser had to
    /// invent (such as a closing bracket).
    pub kind: String,
}

/// Every syntax issue in `source`, in order; empty when it parses cleanly. A source nested past
/// [`crate::depth`]'s bounds is not parsed: its one issue names the line where it passed them.
pub fn syntax_issues(lang: Lang, source: &str) -> Vec<SyntaxIssue> {
    let mut parser = Parser::new();
    let tree = match crate::depth::parse_bounded(&mut parser, lang, source) {
        Ok(Some(tree)) => tree,
        Ok(None) => return vec![SyntaxIssue { line: 1, column: 1, end_line: 1, kind: "error".into() }],
        Err(too_deep) => {
            let kind = format!("nesting past {} levels", too_deep.depth - 1);
            return vec![SyntaxIssue { line: too_deep.line, column: 1, end_line: too_deep.line, kind }];
        }
    };
    let mut issues = Vec::new();
    visit_errors(tree.root_node(), |node| {
        let at = node.start_position();
        let (line, column) = (at.row as u32 + 1, at.column as u32 + 1);
        let end_line = node.end_position().row as u32 + 1;
        if node.is_missing() {
            issues.push(SyntaxIssue {
                line,
                column,
                end_line: line,
                kind: format!("missing {}", node.kind()),
            });
            return false;
        }
        if node.is_error() {
            issues.push(SyntaxIssue { line, column, end_line, kind: "error".into() });
        }
        true
    });
    issues
}

/// Calls `visit` on every node of `node`'s subtree that holds an error, in document order,
/// descending into a node's children only when `visit` returns true. A cursor walk, not a
/// recursion, so no tree is too deep for it.
pub(crate) fn visit_errors<'t>(node: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = node.walk();
    let mut depth = 0usize;
    loop {
        let here = cursor.node();
        if here.has_error() && visit(here) && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_sources_have_no_issues() {
        assert!(syntax_issues(Lang::Python, "def f(x):\n    return x\n").is_empty());
        assert!(syntax_issues(Lang::Rust, "fn f(x: u8) -> u8 { x }\n").is_empty());
    }

    #[test]
    fn unclosed_brackets_are_found_with_their_lines() {
        let py = syntax_issues(Lang::Python, "def ok():\n    pass\n\nx = (1, 2\n");
        assert!(!py.is_empty());
        assert!(py.iter().all(|i| i.line >= 4), "{py:?}");
        let rs = syntax_issues(Lang::Rust, "fn f() {\n    let y = 1;\n");
        assert!(!rs.is_empty());
        assert!(rs.iter().any(|i| i.end_line >= 2), "the issue reaches the unclosed body: {rs:?}");
        let rs = syntax_issues(Lang::Rust, "fn f(a: u8 {\n}\n");
        assert!(rs.iter().any(|i| i.kind == "missing )" || i.kind == "error"), "{rs:?}");
    }
}

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

/// Every syntax issue in `source`, in order; empty when it parses cleanly.
pub fn syntax_issues(lang: Lang, source: &str) -> Vec<SyntaxIssue> {
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).expect("grammar version matches tree-sitter");
    let Some(tree) = parser.parse(source, None) else {
        return vec![SyntaxIssue { line: 1, column: 1, end_line: 1, kind: "error".into() }];
    };
    let mut issues = Vec::new();
    collect(tree.root_node(), &mut issues);
    issues
}

fn collect(node: Node, issues: &mut Vec<SyntaxIssue>) {
    if !node.has_error() {
        return;
    }
    let at = node.start_position();
    let (line, column) = (at.row as u32 + 1, at.column as u32 + 1);
    let end_line = node.end_position().row as u32 + 1;
    if node.is_missing() {
        issues.push(SyntaxIssue { line, column, end_line: line, kind: format!("missing {}", node.kind()) });
        return;
    }
    if node.is_error() {
        issues.push(SyntaxIssue { line, column, end_line, kind: "error".into() });
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, issues);
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

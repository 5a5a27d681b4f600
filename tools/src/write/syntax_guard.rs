//! The syntax guard every writing tool shares: parse the candidate with tree-sitter and refuse
//! it when it has syntax errors the original did not have, showing where.
//!
//! "Did not have" is decided by mapping lines through a line diff of the two texts: an issue on
//! an unchanged line is old when the original had an issue on the same line, and the issues in
//! a changed region are old up to the number the original had in that region. So an edit that
//! shifts lines in a file already broken elsewhere is accepted, and one that adds a break is not.

use std::ops::Range;
use std::path::Path;

use similar::{Algorithm, DiffOp, capture_diff_slices};
use tack_indexer::{Lang, SyntaxIssue, syntax_issues};

/// Above this many line pairs in the changed middle, the whole middle counts as one region
/// (a deterministic bound on the diff's cost).
const MAX_DIFF_CELLS: usize = 4_000_000;
/// Lines of context shown around each new error.
const CONTEXT: usize = 3;
/// Lines with new errors listed at most.
const MAX_SHOWN: usize = 3;

/// The syntax issues of `after` that `before` did not have; empty when the file's language is
/// not one tack parses, or when nothing new broke. `before` is `None` for a new file.
pub fn new_issues(rel: &str, before: Option<&str>, after: &str) -> Vec<SyntaxIssue> {
    let Some(lang) = Lang::from_path(Path::new(rel)) else { return Vec::new() };
    let after_issues = syntax_issues(lang, after);
    if after_issues.is_empty() {
        return after_issues;
    }
    let Some(before) = before else { return after_issues };
    let before_issues = syntax_issues(lang, before);
    if before_issues.is_empty() {
        return after_issues;
    }
    let map = LineMap::new(before, after);
    let mut budget = vec![0usize; map.n_keys];
    for issue in &before_issues {
        budget[map.old_key(issue.line)] += 1;
    }
    let mut explained = Vec::new();
    let mut unexplained = Vec::new();
    for issue in after_issues.iter() {
        let key = map.new_key(issue.line);
        if budget[key] > 0 {
            budget[key] -= 1;
            explained.push(issue);
        } else {
            unexplained.push(issue.clone());
        }
    }
    // Error recovery inside a region that was already broken may place its nested issues
    // differently; when nothing grew and every unexplained issue sits inside an old error's
    // span, the edit added no error.
    let nested = |u: &SyntaxIssue| {
        explained
            .iter()
            .any(|e| e.kind == "error" && e.line <= u.line && u.line <= e.end_line && e.end_line > e.line)
    };
    if after_issues.len() <= before_issues.len() && unexplained.iter().all(nested) {
        return Vec::new();
    }
    unexplained
}

/// The answer when the guard refuses: what broke, where, the result around it, and that the
/// file was left as it was. `next_step` says how to retry with this tool.
pub fn refusal(rel: &str, after: &str, issues: &[SyntaxIssue], next_step: &str) -> String {
    let mut text = format!(
        "refused: this would add {} to {rel}; nothing was applied, the file is unchanged.\n",
        count(issues)
    );
    text.push_str(&describe(rel, after, issues));
    text.push_str(next_step);
    if !next_step.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// "a syntax error", or "syntax errors on 3 lines".
pub fn count(issues: &[SyntaxIssue]) -> String {
    let mut lines: Vec<u32> = issues.iter().map(|i| i.line).collect();
    lines.sort();
    lines.dedup();
    match lines.len() {
        0 | 1 if issues.len() <= 1 => "a syntax error".to_string(),
        0 | 1 => "syntax errors".to_string(),
        n => format!("syntax errors on {n} lines"),
    }
}

/// The list of new errors (the first per line) and the candidate's lines around them,
/// numbered like `read_file`.
pub fn describe(rel: &str, after: &str, issues: &[SyntaxIssue]) -> String {
    let mut error_lines: Vec<u32> = Vec::new();
    let mut shown: Vec<&SyntaxIssue> = Vec::new();
    for issue in issues {
        if error_lines.contains(&issue.line) {
            continue;
        }
        error_lines.push(issue.line);
        if shown.len() < MAX_SHOWN {
            shown.push(issue);
        }
    }
    let mut text = String::new();
    for issue in &shown {
        let what = match issue.kind.strip_prefix("missing ") {
            Some(token) => format!("a {token:?} is missing"),
            None if issue.end_line > issue.line => {
                format!("the text from here to line {} does not parse", issue.end_line)
            }
            None => "this text does not parse".to_string(),
        };
        text.push_str(&format!("- {rel} line {}, column {}: {what}\n", issue.line, issue.column));
    }
    if error_lines.len() > shown.len() {
        let more = error_lines.len() - shown.len();
        text.push_str(&format!("- … errors on {more} more line{}\n", if more == 1 { "" } else { "s" }));
    }
    let lines: Vec<&str> = after.split('\n').collect();
    let n_lines = if after.ends_with('\n') { lines.len() - 1 } else { lines.len() }.max(1);
    let mut windows: Vec<(usize, usize)> = Vec::new();
    let mut starts: Vec<usize> = shown.iter().map(|i| (i.line as usize).clamp(1, n_lines)).collect();
    starts.sort();
    for line in starts {
        let window = (line.saturating_sub(CONTEXT).max(1), (line + CONTEXT).min(n_lines));
        match windows.last_mut() {
            Some(last) if window.0 <= last.1 + 1 => last.1 = last.1.max(window.1),
            _ => windows.push(window),
        }
    }
    text.push_str("as it would read:\n");
    text.push_str(&numbered(&lines, &windows));
    text
}

/// Numbered lines for 1-based inclusive windows, `⋮` between them, numbers right-aligned to
/// the widest shown (the `read_file` format).
pub fn numbered(lines: &[&str], windows: &[(usize, usize)]) -> String {
    let width = windows.iter().map(|w| w.1.to_string().len()).max().unwrap_or(1);
    let mut text = String::new();
    for (i, &(start, end)) in windows.iter().enumerate() {
        if i > 0 {
            text.push_str("⋮\n");
        }
        for n in start..=end {
            let line = lines.get(n - 1).copied().unwrap_or("");
            let line = line.strip_suffix('\r').unwrap_or(line);
            text.push_str(&format!("{n:>width$}\t{}\n", crate::observe::shape::shorten_line(line)));
        }
    }
    text
}

/// Lines of the old and new text mapped onto shared keys: one key per unchanged old line, one
/// per changed region.
struct LineMap {
    old_keys: Vec<usize>,
    new_keys: Vec<usize>,
    n_keys: usize,
}

impl LineMap {
    fn new(before: &str, after: &str) -> LineMap {
        let old: Vec<&str> = before.split('\n').collect();
        let new: Vec<&str> = after.split('\n').collect();
        let mut old_keys = Vec::with_capacity(old.len());
        let mut new_keys = Vec::with_capacity(new.len());
        let mut n_keys = 0;
        for op in diff_lines(&old, &new) {
            match op {
                LineOp::Equal { len, .. } => {
                    for _ in 0..len {
                        old_keys.push(n_keys);
                        new_keys.push(n_keys);
                        n_keys += 1;
                    }
                }
                LineOp::Change { old, new } => {
                    old_keys.extend(std::iter::repeat_n(n_keys, old.len()));
                    new_keys.extend(std::iter::repeat_n(n_keys, new.len()));
                    n_keys += 1;
                }
            }
        }
        LineMap { old_keys, new_keys, n_keys: n_keys.max(1) }
    }

    fn old_key(&self, line: u32) -> usize {
        key_at(&self.old_keys, line)
    }

    fn new_key(&self, line: u32) -> usize {
        key_at(&self.new_keys, line)
    }
}

/// One step of a line diff: lines kept, or a changed region (consecutive changes merged).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineOp {
    Equal { old: usize, new: usize, len: usize },
    Change { old: Range<usize>, new: Range<usize> },
}

/// A line diff that is cheap on the usual edit: the common prefix and suffix are split off
/// first, and a middle too large to diff counts as one changed region (so the cost is bounded
/// and the answer does not depend on a clock).
pub fn diff_lines(old: &[&str], new: &[&str]) -> Vec<LineOp> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old.iter().rev().zip(new.iter().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    let (old_mid, new_mid) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    let mut out = Vec::new();
    if prefix > 0 {
        out.push(LineOp::Equal { old: 0, new: 0, len: prefix });
    }
    let ops = if old_mid.len().saturating_mul(new_mid.len()) <= MAX_DIFF_CELLS {
        capture_diff_slices(Algorithm::Myers, old_mid, new_mid)
    } else {
        vec![DiffOp::Replace { old_index: 0, old_len: old_mid.len(), new_index: 0, new_len: new_mid.len() }]
    };
    for op in ops {
        let (o, n) = (op.old_range(), op.new_range());
        let (o, n) = (o.start + prefix..o.end + prefix, n.start + prefix..n.end + prefix);
        match (op, out.last_mut()) {
            (DiffOp::Equal { len, .. }, _) => out.push(LineOp::Equal { old: o.start, new: n.start, len }),
            (_, Some(LineOp::Change { old, new })) => {
                old.end = o.end;
                new.end = n.end;
            }
            _ => out.push(LineOp::Change { old: o, new: n }),
        }
    }
    if suffix > 0 {
        out.push(LineOp::Equal { old: old.len() - suffix, new: new.len() - suffix, len: suffix });
    }
    out
}

fn key_at(keys: &[usize], line: u32) -> usize {
    let row = (line as usize).saturating_sub(1);
    keys.get(row).or(keys.last()).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BROKEN_ELSEWHERE: &str =
        "import os\n\nx = (1, 2\n\ndef f():\n    return 1\n\ndef g():\n    return 2\n";

    #[test]
    fn diff_lines_merges_changes_and_keeps_equal_runs() {
        let ops = diff_lines(&["a", "b", "c", "d"], &["a", "x", "y", "d", "e"]);
        assert_eq!(
            ops,
            vec![
                LineOp::Equal { old: 0, new: 0, len: 1 },
                LineOp::Change { old: 1..3, new: 1..3 },
                LineOp::Equal { old: 3, new: 3, len: 1 },
                LineOp::Change { old: 4..4, new: 4..5 },
            ]
        );
    }

    #[test]
    fn an_unclosed_bracket_is_new() {
        let before = "def f():\n    return g(1)\n";
        let after = "def f():\n    return g(1\n";
        let issues = new_issues("a.py", Some(before), after);
        assert!(!issues.is_empty());
        let rs = new_issues("a.rs", Some("fn f() {}\n"), "fn f() {\n");
        assert!(!rs.is_empty());
    }

    #[test]
    fn edits_to_a_file_broken_elsewhere_pass_when_they_add_nothing() {
        let shifted = BROKEN_ELSEWHERE.replace("def f():\n", "\n\ndef f():\n    \"\"\"Doc.\"\"\"\n");
        assert!(new_issues("a.py", Some(BROKEN_ELSEWHERE), &shifted).is_empty());
        let changed = BROKEN_ELSEWHERE.replace("return 2", "return 3");
        assert!(new_issues("a.py", Some(BROKEN_ELSEWHERE), &changed).is_empty());
        let worse = BROKEN_ELSEWHERE.replace("def g():", "def g(:");
        assert!(!new_issues("a.py", Some(BROKEN_ELSEWHERE), &worse).is_empty());
        let rust = "fn a() {\n    let x = (1;\n}\n\nfn b() {\n    1\n}\n";
        let rust_after = "// moved\n\nfn a() {\n    let x = (1;\n}\n\nfn b() {\n    2\n}\n";
        assert!(new_issues("m.rs", Some(rust), rust_after).is_empty());
    }

    #[test]
    fn fixing_is_fine_and_other_files_pass_through() {
        assert!(new_issues("a.py", Some("x = (1\n"), "x = (1)\n").is_empty());
        assert!(new_issues("notes.md", Some("ok"), "(((").is_empty());
        assert!(!new_issues("new.py", None, "def (").is_empty());
    }

    #[test]
    fn the_refusal_names_lines_and_shows_context() {
        let after = "a = 1\nb = 2\nc = (3\nd = 4\n";
        let issues = new_issues("x.py", Some("a = 1\nb = 2\nc = 3\nd = 4\n"), after);
        let text = refusal("x.py", after, &issues, "fix it");
        assert!(
            text.starts_with("refused: this would add a syntax error to x.py; nothing was applied"),
            "{text}"
        );
        assert!(text.contains("3\tc = (3\n"), "{text}");
        assert!(text.ends_with("fix it\n"));
    }
}

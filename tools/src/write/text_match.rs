//! Finding the text an edit names: exact matches first, then, only when there is none,
//! matches that ignore trailing whitespace, then leading and trailing whitespace, then Unicode
//! look-alike punctuation. When nothing matches, the closest region of the file by shared
//! words, so the agent can copy the real text.

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// How strictly a match was made; each level is tried only when the one before found nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tolerance {
    Exact,
    TrailingWhitespace,
    Whitespace,
    Unicode,
}

impl Tolerance {
    /// The words the answer uses to say how a match was made.
    pub fn describe(self) -> &'static str {
        match self {
            Tolerance::Exact => "exactly",
            Tolerance::TrailingWhitespace => "ignoring trailing whitespace",
            Tolerance::Whitespace => "ignoring leading and trailing whitespace",
            Tolerance::Unicode => {
                "treating look-alike punctuation (curly quotes, dashes, special spaces) as ASCII"
            }
        }
    }

    /// The machine-readable name, for structured results.
    pub fn name(self) -> &'static str {
        match self {
            Tolerance::Exact => "exact",
            Tolerance::TrailingWhitespace => "trailing_whitespace",
            Tolerance::Whitespace => "whitespace",
            Tolerance::Unicode => "unicode_punctuation",
        }
    }

    const FUZZY: [Tolerance; 3] = [Tolerance::TrailingWhitespace, Tolerance::Whitespace, Tolerance::Unicode];

    /// Whether two lines are equal at this level.
    pub fn lines_equal(self, a: &str, b: &str) -> bool {
        match self {
            Tolerance::Exact => a == b,
            Tolerance::TrailingWhitespace => a.trim_end() == b.trim_end(),
            Tolerance::Whitespace => a.trim() == b.trim(),
            Tolerance::Unicode => {
                a.trim().chars().map(ascii_lookalike).eq(b.trim().chars().map(ascii_lookalike))
            }
        }
    }
}

/// The ASCII character a look-alike stands for: dashes and minus to `-`, curly single quotes to
/// `'`, curly double quotes to `"`, special spaces to a space.
pub fn ascii_lookalike(c: char) -> char {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}'..='\u{201B}' => '\'',
        '\u{201C}'..='\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        c => c,
    }
}

/// What [`plan_edit`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditPlan {
    /// The new text, how the match was made, where each replacement starts in the original
    /// (1-based lines) and the byte ranges the replacements occupy in the new text.
    Applied {
        text: String,
        tolerance: Tolerance,
        reindented: bool,
        at_lines: Vec<usize>,
        spans: Vec<Range<usize>>,
    },
    /// `old` matched more than once without `replace_all`: the 1-based line of each match.
    Ambiguous { tolerance: Tolerance, lines: Vec<usize> },
    /// `old` matched nowhere, at any level.
    NotFound { closest: Option<Closest> },
    /// The result would be `size` bytes, over the bound and larger than the file was;
    /// `count` occurrences matched. Found before the result is built.
    TooLarge { size: u64, count: usize },
}

/// Plans replacing `old` with `new` in `content`: exactly once, or every occurrence with
/// `replace_all`. `old` must not be empty (the caller refuses that first).
#[cfg(test)]
pub fn plan_edit(content: &str, old: &str, new: &str, replace_all: bool) -> EditPlan {
    plan_edit_within(content, old, new, replace_all, u64::MAX)
}

/// [`plan_edit`], refusing (as [`EditPlan::TooLarge`]) a result over `max_bytes` that is
/// larger than `content`. The size is computed from the matches before any text is built, and
/// every replacement shares one copy of `new`, so a short `old` matched thousands of times
/// with a long `new` costs the matches' offsets, not the result.
pub fn plan_edit_within(content: &str, old: &str, new: &str, replace_all: bool, max_bytes: u64) -> EditPlan {
    let lines = LineIndex::new(content);
    // Speak the file's line endings: a CRLF file edited with LF text, or an LF file edited with
    // CRLF text (when the file does not hold that text as sent).
    let crlf = lines.crlf && !old.contains('\r');
    let to_lf = !lines.crlf && old.contains("\r\n") && !content.contains(old);
    let (old_eol, new_eol);
    let (old, new) = if crlf {
        old_eol = old.replace('\n', "\r\n");
        new_eol = new.replace('\n', "\r\n");
        (old_eol.as_str(), new_eol.as_str())
    } else if to_lf {
        old_eol = old.replace("\r\n", "\n");
        new_eol = new.replace("\r\n", "\n");
        (old_eol.as_str(), new_eol.as_str())
    } else {
        (old, new)
    };

    let exact: Vec<Range<usize>> = content.match_indices(old).map(|(i, m)| i..i + m.len()).collect();
    if !exact.is_empty() {
        let new: Rc<str> = Rc::from(new);
        let replacements = exact.into_iter().map(|r| (r, new.clone())).collect();
        return finish(content, &lines, replacements, Tolerance::Exact, false, replace_all, max_bytes);
    }
    // A file with mixed line endings may hold the text with plain `\n` after all.
    if crlf {
        let (old, new) = (old.replace("\r\n", "\n"), new.replace("\r\n", "\n"));
        let exact: Vec<Range<usize>> = content.match_indices(&old).map(|(i, m)| i..i + m.len()).collect();
        if !exact.is_empty() {
            let new: Rc<str> = Rc::from(new);
            let replacements = exact.into_iter().map(|r| (r, new.clone())).collect();
            return finish(content, &lines, replacements, Tolerance::Exact, false, replace_all, max_bytes);
        }
    }

    let old_body = old.strip_suffix('\n').map(|o| o.strip_suffix('\r').unwrap_or(o));
    let ends_with_newline = old_body.is_some();
    let old_lines: Vec<&str> =
        old_body.unwrap_or(old).split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let first_text = old_lines.iter().position(|l| !l.trim().is_empty());

    if let Some(first_text) = first_text {
        for tolerance in Tolerance::FUZZY {
            if tolerance == Tolerance::Unicode
                && let Some(plan) = unicode_substring(content, &lines, old, new, replace_all, max_bytes)
            {
                return plan;
            }
            let starts = lines.find_windows(content, &old_lines, tolerance);
            if starts.is_empty() {
                continue;
            }
            let mut reindented = false;
            // One copy of `new` per indentation it is given, whatever the number of matches.
            let shared: Rc<str> = Rc::from(new);
            let mut by_indent: HashMap<&str, Rc<str>> = HashMap::new();
            let replacements = starts
                .into_iter()
                .map(|start| {
                    let last = start + old_lines.len() - 1;
                    let begin = lines.spans[start].start;
                    let end =
                        if ends_with_newline { lines.spans[last].end } else { lines.spans[last].text_end };
                    let mut text = shared.clone();
                    if tolerance >= Tolerance::Whitespace {
                        let want = indent_of(lines.text(content, start + first_text));
                        let had = indent_of(old_lines[first_text]);
                        if want != had {
                            text = by_indent
                                .entry(want)
                                .or_insert_with(|| Rc::from(reindent(new, had, want)))
                                .clone();
                            reindented = true;
                        }
                    }
                    (begin..end, text)
                })
                .collect();
            return finish(content, &lines, replacements, tolerance, reindented, replace_all, max_bytes);
        }
    }
    let content_lines: Vec<&str> = (0..lines.spans.len()).map(|i| lines.text(content, i)).collect();
    EditPlan::NotFound { closest: closest_region(&content_lines, &old_lines) }
}

/// Applies the replacements (sorted, non-overlapping) or reports the ambiguity or a result
/// over `max_bytes`.
fn finish(
    content: &str,
    lines: &LineIndex,
    replacements: Vec<(Range<usize>, Rc<str>)>,
    tolerance: Tolerance,
    reindented: bool,
    replace_all: bool,
    max_bytes: u64,
) -> EditPlan {
    if replacements.len() > 1 && !replace_all {
        let at_lines: Vec<usize> = replacements.iter().map(|(r, _)| lines.line_of(r.start)).collect();
        return EditPlan::Ambiguous { tolerance, lines: at_lines };
    }
    let removed: u64 = replacements.iter().map(|(r, _)| r.len() as u64).sum();
    let added: u64 = replacements.iter().map(|(_, text)| text.len() as u64).sum();
    let size = content.len() as u64 - removed + added;
    if size > max_bytes && size > content.len() as u64 {
        return EditPlan::TooLarge { size, count: replacements.len() };
    }
    let at_lines: Vec<usize> = replacements.iter().map(|(r, _)| lines.line_of(r.start)).collect();
    let mut text = String::with_capacity(size as usize);
    let mut spans = Vec::with_capacity(replacements.len());
    let mut cursor = 0;
    for (range, replacement) in &replacements {
        text.push_str(&content[cursor..range.start]);
        spans.push(text.len()..text.len() + replacement.len());
        text.push_str(replacement);
        cursor = range.end;
    }
    text.push_str(&content[cursor..]);
    EditPlan::Applied { text, tolerance, reindented, at_lines, spans }
}

/// The look-alike level as a substring search: both texts mapped character by character to
/// ASCII stand-ins, so a fragment inside a line matches too.
fn unicode_substring(
    content: &str,
    lines: &LineIndex,
    old: &str,
    new: &str,
    replace_all: bool,
    max_bytes: u64,
) -> Option<EditPlan> {
    let has_lookalike = |s: &str| s.chars().any(|c| ascii_lookalike(c) != c);
    if !has_lookalike(content) && !has_lookalike(old) {
        return None;
    }
    let mut normalized = String::with_capacity(content.len());
    // Original byte offset of each normalized byte offset (at character boundaries).
    let mut origin = Vec::with_capacity(content.len() + 1);
    for (offset, c) in content.char_indices() {
        let mapped = ascii_lookalike(c);
        for _ in 0..mapped.len_utf8() {
            origin.push(offset);
        }
        normalized.push(mapped);
    }
    origin.push(content.len());
    let needle: String = old.chars().map(ascii_lookalike).collect();
    let new: Rc<str> = Rc::from(new);
    let found: Vec<(Range<usize>, Rc<str>)> = normalized
        .match_indices(&needle)
        .map(|(i, m)| (origin[i]..origin[i + m.len()], new.clone()))
        .collect();
    if found.is_empty() {
        return None;
    }
    Some(finish(content, lines, found, Tolerance::Unicode, false, replace_all, max_bytes))
}

/// The leading whitespace of a line.
pub fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Moves `text` from indentation `had` to `want`: lines that start with `had` get `want`
/// instead; blank lines and lines indented less than `had` are left alone.
pub fn reindent(text: &str, had: &str, want: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive('\n') {
        if piece.trim().is_empty() {
            out.push_str(piece);
        } else if let Some(rest) = piece.strip_prefix(had) {
            out.push_str(want);
            out.push_str(rest);
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// Where each line of a text starts and ends.
pub struct LineIndex {
    pub spans: Vec<LineSpan>,
    /// Most line breaks are `\r\n`.
    pub crlf: bool,
}

/// One line: `start..text_end` is its text (without `\r\n`), `end` is past its line break.
#[derive(Debug, Clone, Copy)]
pub struct LineSpan {
    pub start: usize,
    pub text_end: usize,
    pub end: usize,
}

impl LineIndex {
    pub fn new(content: &str) -> LineIndex {
        let mut spans = Vec::new();
        let mut start = 0;
        let mut n_crlf = 0;
        for (i, b) in content.bytes().enumerate() {
            if b == b'\n' {
                let crlf = i > start && content.as_bytes()[i - 1] == b'\r';
                n_crlf += usize::from(crlf);
                spans.push(LineSpan { start, text_end: if crlf { i - 1 } else { i }, end: i + 1 });
                start = i + 1;
            }
        }
        if start < content.len() {
            spans.push(LineSpan { start, text_end: content.len(), end: content.len() });
        }
        let crlf = n_crlf > 0 && n_crlf * 2 >= spans.len();
        LineIndex { spans, crlf }
    }

    pub fn text<'a>(&self, content: &'a str, line: usize) -> &'a str {
        let span = self.spans[line];
        &content[span.start..span.text_end]
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.spans.partition_point(|s| s.end <= offset) + 1
    }

    /// Non-overlapping line windows, top first, whose lines equal `pattern` at `tolerance`.
    fn find_windows(&self, content: &str, pattern: &[&str], tolerance: Tolerance) -> Vec<usize> {
        let mut found = Vec::new();
        let m = pattern.len();
        if m == 0 || m > self.spans.len() {
            return found;
        }
        let mut i = 0;
        while i + m <= self.spans.len() {
            if (0..m).all(|k| tolerance.lines_equal(self.text(content, i + k), pattern[k])) {
                found.push(i);
                i += m;
            } else {
                i += 1;
            }
        }
        found
    }
}

/// Finds `pattern` in `lines` at or after `start`, trying each tolerance over the whole range
/// before the next. With `eof`, a match ending at the last line is tried first. An empty
/// pattern matches at `start`.
pub fn seek_lines(lines: &[&str], pattern: &[&str], start: usize, eof: bool) -> Option<(usize, Tolerance)> {
    if pattern.is_empty() {
        return Some((start.min(lines.len()), Tolerance::Exact));
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    let matches_at =
        |i: usize, t: Tolerance| (0..pattern.len()).all(|k| t.lines_equal(lines[i + k], pattern[k]));
    let levels = [Tolerance::Exact, Tolerance::TrailingWhitespace, Tolerance::Whitespace, Tolerance::Unicode];
    if eof && last_start >= start {
        for t in levels {
            if matches_at(last_start, t) {
                return Some((last_start, t));
            }
        }
    }
    for t in levels {
        for i in start..=last_start {
            if matches_at(i, t) {
                return Some((i, t));
            }
        }
    }
    None
}

/// The region of a file most like a text that matched nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    /// 1-based first and last line.
    pub start_line: usize,
    pub end_line: usize,
    /// Share of words in common (0-100), rounded down.
    pub percent: u32,
}

/// The window of `pattern.len()` lines sharing the most words with `pattern` (first such
/// window on ties); `None` when no window shares a word.
pub fn closest_region(lines: &[&str], pattern: &[&str]) -> Option<Closest> {
    if lines.is_empty() {
        return None;
    }
    let m = pattern.len().clamp(1, lines.len());
    let mut want: HashMap<&str, i64> = HashMap::new();
    let mut want_total = 0i64;
    for line in pattern {
        for word in words(line) {
            *want.entry(word).or_default() += 1;
            want_total += 1;
        }
    }
    if want_total == 0 {
        return None;
    }
    let line_words: Vec<Vec<&str>> = lines.iter().map(|l| words(l).collect()).collect();
    let mut have: HashMap<&str, i64> = HashMap::new();
    let (mut shared, mut window_total) = (0i64, 0i64);
    let mut best: Option<(i64, i64, usize)> = None;
    for end in 0..lines.len() {
        for &word in &line_words[end] {
            window_total += 1;
            if let Some(&limit) = want.get(word) {
                let count = have.entry(word).or_default();
                if *count < limit {
                    shared += 1;
                }
                *count += 1;
            }
        }
        if end >= m {
            for &word in &line_words[end - m] {
                window_total -= 1;
                if let Some(&limit) = want.get(word) {
                    let count = have.entry(word).or_default();
                    *count -= 1;
                    if *count < limit {
                        shared -= 1;
                    }
                }
            }
        }
        if end + 1 >= m && shared > 0 && best.is_none_or(|(s, _, _)| shared > s) {
            best = Some((shared, window_total, end + 1 - m));
        }
    }
    let (shared, window_total, start) = best?;
    let percent = (200 * shared / (want_total + window_total).max(1)) as u32;
    Some(Closest { start_line: start + 1, end_line: start + m, percent: percent.min(100) })
}

/// The words of a line: runs of letters, digits and `_`, and each other visible character.
fn words(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        let first = rest.chars().next()?;
        let len = if first.is_alphanumeric() || first == '_' {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len())
        } else {
            first.len_utf8()
        };
        let (word, tail) = rest.split_at(len);
        rest = tail;
        Some(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(plan: EditPlan) -> (String, Tolerance, bool) {
        match plan {
            EditPlan::Applied { text, tolerance, reindented, .. } => (text, tolerance, reindented),
            other => panic!("not applied: {other:?}"),
        }
    }

    #[test]
    fn exact_unique_and_replace_all() {
        let content = "a = 1\nb = 2\na = 1\n";
        assert_eq!(
            plan_edit(content, "b = 2", "b = 3", false),
            EditPlan::Applied {
                text: "a = 1\nb = 3\na = 1\n".into(),
                tolerance: Tolerance::Exact,
                reindented: false,
                at_lines: vec![2],
                spans: std::iter::once(6..11).collect(),
            }
        );
        assert_eq!(
            plan_edit(content, "a = 1", "a = 0", false),
            EditPlan::Ambiguous { tolerance: Tolerance::Exact, lines: vec![1, 3] }
        );
        assert_eq!(applied(plan_edit(content, "a = 1", "a = 0", true)).0, "a = 0\nb = 2\na = 0\n");
    }

    #[test]
    fn tolerances_apply_in_order_and_reindent() {
        let content = "def f():\n    x = 1   \n    return x\n";
        let (text, t, _) =
            applied(plan_edit(content, "    x = 1\n    return x\n", "    x = 2\n    return x\n", false));
        assert_eq!(
            (text.as_str(), t),
            ("def f():\n    x = 2\n    return x\n", Tolerance::TrailingWhitespace)
        );
        let (text, t, re) =
            applied(plan_edit(content, "x = 1\nreturn x", "x = 2\nif x:\n    return x", false));
        assert_eq!(t, Tolerance::Whitespace);
        assert!(re);
        assert_eq!(text, "def f():\n    x = 2\n    if x:\n        return x\n");
        let (text, t, _) = applied(plan_edit("s = \u{201c}hi\u{201d}\n", "s = \"hi\"", "s = 'hi'", false));
        assert_eq!((text.as_str(), t), ("s = 'hi'\n", Tolerance::Unicode));
    }

    #[test]
    fn crlf_files_are_edited_with_lf_text_and_lf_files_with_crlf_text() {
        let (text, t, _) = applied(plan_edit("a\r\nb\r\nc\r\n", "a\nb\n", "x\ny\n", false));
        assert_eq!((text.as_str(), t), ("x\r\ny\r\nc\r\n", Tolerance::Exact));
        let (text, t, _) = applied(plan_edit("a\nb\nc\n", "a\r\nb\r\n", "x\r\ny\r\n", false));
        assert_eq!((text.as_str(), t), ("x\ny\nc\n", Tolerance::Exact));
    }

    #[test]
    fn closest_region_finds_the_likely_lines() {
        let lines = ["import os", "", "def total(items):", "    return sum(items)", ""];
        let got = closest_region(&lines, &["def total(item):", "    return sum(item)"]).unwrap();
        assert_eq!((got.start_line, got.end_line), (3, 4));
        assert!(got.percent > 50 && got.percent < 100, "{got:?}");
        assert_eq!(closest_region(&lines, &["zzz"]), None);
    }

    #[test]
    fn seek_lines_prefers_exact_and_honours_eof() {
        let lines = ["a", "b ", "a", "b"];
        assert_eq!(seek_lines(&lines, &["a", "b"], 0, false), Some((2, Tolerance::Exact)));
        assert_eq!(seek_lines(&lines, &["a", "b"], 0, true), Some((2, Tolerance::Exact)));
        assert_eq!(seek_lines(&lines, &["b"], 0, false), Some((3, Tolerance::Exact)));
        assert_eq!(seek_lines(&lines, &["b"], 0, true), Some((3, Tolerance::Exact)));
        assert_eq!(seek_lines(&lines, &["a", "b", "a", "b", "c"], 0, false), None);
        assert_eq!(seek_lines(&lines, &[], 2, false), Some((2, Tolerance::Exact)));
    }
}

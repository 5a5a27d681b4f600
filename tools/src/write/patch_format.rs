//! The Codex patch format: parsing (`*** Begin Patch` … `*** End Patch`, with Add, Delete and
//! Update hunks, `*** Move to`, `@@` anchors and `*** End of File`) with the leniency models
//! need, and applying one file's chunks to its text with the matcher's tolerance levels.
//! Pure: no file system here.

use crate::write::syntax_guard::numbered;
use crate::write::text_match::{LineIndex, Tolerance, closest_region, seek_lines};

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// A new file and its lines (joined with `\n`, ending with one).
    Add {
        path: String,
        contents: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

impl FileOp {
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => path,
        }
    }
}

/// One `@@` section of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// `@@ text` lines, each found in order before the chunk's lines.
    pub anchors: Vec<String>,
    pub lines: Vec<ChunkLine>,
    /// `*** End of File`: the chunk's lines end the file.
    pub eof: bool,
    /// 1-based line of the patch where the chunk starts, for errors.
    pub patch_line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkLine {
    Context(String),
    Remove(String),
    Add(String),
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

/// Why a patch was not applied: its text breaks the format, or a chunk's lines are not in the
/// file. The message says where and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PatchError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NoMatch(String),
}

/// Parses a patch. Lenient where the meaning is plain: markers may carry surrounding
/// whitespace, the patch may be wrapped in a heredoc (`<<'EOF'` … `EOF`) or a Markdown fence,
/// blank lines between hunks and chunks are skipped, the first chunk may omit `@@`, an
/// `@@ -1,3 +1,4 @@` header counts as a bare `@@`, and a blank line inside a chunk is an empty
/// context line. Errors name the patch line.
pub fn parse_patch(patch: &str) -> Result<Vec<FileOp>, PatchError> {
    parse(patch).map_err(PatchError::Invalid)
}

fn parse(patch: &str) -> Result<Vec<FileOp>, String> {
    let all: Vec<&str> = patch.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let (body, offset) = envelope(&all)?;
    let mut cursor = Cursor { body, offset, i: 0 };
    let mut ops = Vec::new();
    while cursor.i < body.len() {
        let line = body[cursor.i].trim();
        if line.is_empty() {
            cursor.i += 1;
            continue;
        }
        let header_line = cursor.line_no(cursor.i);
        if let Some(path) = marker_arg(line, ADD) {
            let path = nonempty_path(path, header_line)?;
            cursor.i += 1;
            ops.push(cursor.added_file(path)?);
        } else if let Some(path) = marker_arg(line, DELETE) {
            let path = nonempty_path(path, header_line)?;
            cursor.i += 1;
            ops.push(FileOp::Delete { path });
        } else if let Some(path) = marker_arg(line, UPDATE) {
            let path = nonempty_path(path, header_line)?;
            cursor.i += 1;
            ops.push(cursor.updated_file(path, header_line)?);
        } else {
            return Err(format!(
                "line {header_line}: {line:?} is not a valid hunk header. Valid hunk headers: '*** Add File: \
                 {{path}}', '*** Delete File: {{path}}', '*** Update File: {{path}}'"
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch has no file operations between its first and last line".into());
    }
    Ok(ops)
}

/// The lines between `*** Begin Patch` and `*** End Patch`, after blank lines around the patch
/// and a wrapper (a heredoc, possibly after `apply_patch`, or a Markdown fence) are dropped,
/// and how many lines came before the first of them.
fn envelope<'a>(all: &'a [&'a str]) -> Result<(&'a [&'a str], usize), String> {
    let mut lines: &[&str] = all;
    let mut offset = 0; // patch lines dropped from the front, for line numbers
    while let [first, rest @ ..] = lines
        && first.trim().is_empty()
    {
        lines = rest;
        offset += 1;
    }
    while let [rest @ .., last] = lines
        && last.trim().is_empty()
    {
        lines = rest;
    }
    if let [first, inner @ .., last] = lines {
        let opener = first.trim().trim_start_matches("apply_patch").trim();
        let heredoc = opener.starts_with("<<") && last.trim().ends_with("EOF") && lines.len() >= 4;
        let fence = first.trim().starts_with("```") && last.trim() == "```";
        if heredoc || fence {
            lines = inner;
            offset += 1;
        }
    }
    match lines.first() {
        Some(first) if first.trim() == BEGIN => {}
        _ => return Err(format!("the first line of the patch must be '{BEGIN}'")),
    }
    match lines.last() {
        Some(last) if last.trim() == END && lines.len() >= 2 => {}
        _ => {
            return Err(format!("the last line of the patch must be '{END}' (was the patch cut short?)"));
        }
    }
    Ok((&lines[1..lines.len() - 1], offset))
}

/// A position in the patch body, read one file operation at a time.
struct Cursor<'a> {
    body: &'a [&'a str],
    offset: usize,
    i: usize,
}

impl Cursor<'_> {
    /// The patch's own line number of body line `i`.
    fn line_no(&self, i: usize) -> usize {
        i + self.offset + 2
    }

    /// The `+` lines of an `*** Add File` up to the next marker.
    fn added_file(&mut self, path: String) -> Result<FileOp, String> {
        let body = self.body;
        let mut contents = String::new();
        while self.i < body.len() && !is_marker(body[self.i]) {
            let i = self.i;
            if let Some(text) = body[i].strip_prefix('+') {
                contents.push_str(text);
                contents.push('\n');
            } else if body[i].trim().is_empty() {
                // A bare blank line between added lines is an empty added line; one after
                // the last added line is just spacing.
                let more = body[i..].iter().take_while(|l| !is_marker(l)).any(|l| l.starts_with('+'));
                if more {
                    contents.push('\n');
                }
            } else {
                return Err(format!(
                    "line {}: {:?} in '*** Add File: {path}' does not start with '+'; every line of a new \
                     file starts with '+'",
                    self.line_no(i),
                    body[i]
                ));
            }
            self.i += 1;
        }
        Ok(FileOp::Add { path, contents })
    }

    /// An `*** Update File`: its optional `*** Move to` and its `@@` sections.
    fn updated_file(&mut self, path: String, header_line: usize) -> Result<FileOp, String> {
        let body = self.body;
        let mut move_to = None;
        if self.i < body.len()
            && let Some(dest) = marker_arg(body[self.i].trim(), MOVE)
        {
            move_to = Some(nonempty_path(dest, self.line_no(self.i))?);
            self.i += 1;
        }
        let mut chunks: Vec<Chunk> = Vec::new();
        loop {
            while self.i < body.len() && body[self.i].trim().is_empty() {
                self.i += 1;
            }
            if self.i >= body.len() || is_file_marker(body[self.i]) {
                break;
            }
            let chunk = self.chunk(&path, !chunks.is_empty())?;
            chunks.push(chunk);
        }
        if chunks.is_empty() && move_to.is_none() {
            return Err(format!(
                "line {header_line}: the update of {path} is empty; give at least one section of lines"
            ));
        }
        Ok(FileOp::Update { path, move_to, chunks })
    }

    /// One section of an update: its `@@` anchors, then its ` `, `-` and `+` lines, up to the
    /// next section, file marker or `*** End of File`.
    fn chunk(&mut self, path: &str, after_another: bool) -> Result<Chunk, String> {
        let body = self.body;
        let start = self.i;
        let mut anchors = Vec::new();
        while self.i < body.len() && body[self.i].trim_start().starts_with("@@") {
            if let Some(anchor) = anchor_text(body[self.i]) {
                anchors.push(anchor);
            }
            self.i += 1;
        }
        if anchors.is_empty() && start == self.i && after_another {
            return Err(format!(
                "line {}: {:?} is not a valid line in the update of {path}; start each further \
                 section with '@@'",
                self.line_no(self.i),
                body[self.i]
            ));
        }
        let mut lines = Vec::new();
        let mut eof = false;
        while self.i < body.len() {
            let raw = body[self.i];
            if raw.trim() == EOF_MARK {
                eof = true;
                self.i += 1;
                break;
            }
            if is_file_marker(raw) || raw.trim_start().starts_with("@@") {
                break;
            }
            match raw.chars().next() {
                None => lines.push(ChunkLine::Context(String::new())),
                Some(' ') => lines.push(ChunkLine::Context(raw[1..].to_string())),
                Some('-') => lines.push(ChunkLine::Remove(raw[1..].to_string())),
                Some('+') => lines.push(ChunkLine::Add(raw[1..].to_string())),
                Some(_) if raw.trim().is_empty() => lines.push(ChunkLine::Context(String::new())),
                Some(_) => {
                    return Err(format!(
                        "line {}: {raw:?} in the update of {path} does not start with ' ' (context), \
                         '-' (remove) or '+' (add)",
                        self.line_no(self.i)
                    ));
                }
            }
            self.i += 1;
        }
        if lines.is_empty() {
            return Err(format!(
                "line {}: a section of the update of {path} has no lines; give the lines to change \
                 with ' ', '-' and '+' prefixes",
                self.line_no(start)
            ));
        }
        Ok(Chunk { anchors, lines, eof, patch_line: self.line_no(start) })
    }
}

/// The argument of a marker line such as `*** Add File: path` (markers compared after trim).
fn marker_arg<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let line = line.trim();
    line.strip_prefix(marker).or_else(|| line.strip_prefix(marker.trim_end()))
}

fn is_file_marker(line: &str) -> bool {
    let line = line.trim();
    [ADD, DELETE, UPDATE].iter().any(|m| line.starts_with(m.trim_end())) || line == END
}

fn is_marker(line: &str) -> bool {
    is_file_marker(line) || line.trim() == EOF_MARK || line.trim().starts_with(MOVE.trim_end())
}

fn nonempty_path(path: &str, line: usize) -> Result<String, String> {
    let path = path.trim();
    if path.is_empty() {
        return Err(format!("line {line}: the file operation names no path"));
    }
    Ok(path.to_string())
}

/// The anchor of an `@@` line: the text after it, or none for a bare `@@` or a unified-diff
/// range header (`@@ -12,5 +12,6 @@`, whose trailing text, if any, is the anchor).
fn anchor_text(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("@@")?;
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let is_range = |s: &str| {
        let mut parts = s.split_whitespace();
        let valid = |p: Option<&str>, sign: char| {
            p.and_then(|p| p.strip_prefix(sign))
                .is_some_and(|p| !p.is_empty() && p.split(',').all(|n| n.parse::<u64>().is_ok()))
        };
        valid(parts.next(), '-') && valid(parts.next(), '+')
    };
    if let Some((range, tail)) = rest.trim().split_once("@@")
        && is_range(range)
    {
        let tail = tail.trim();
        return (!tail.is_empty()).then(|| tail.to_string());
    }
    if rest.trim().is_empty() { None } else { Some(rest.to_string()) }
}

/// Applies an update's chunks to `content`; returns the new text and the loosest tolerance a
/// match needed. Errors say which section failed and show the closest lines of the file.
pub fn apply_chunks(path: &str, content: &str, chunks: &[Chunk]) -> Result<(String, Tolerance), PatchError> {
    apply(path, content, chunks).map_err(PatchError::NoMatch)
}

fn apply(path: &str, content: &str, chunks: &[Chunk]) -> Result<(String, Tolerance), String> {
    let index = LineIndex::new(content);
    let lines: Vec<&str> = (0..index.spans.len()).map(|i| index.text(content, i)).collect();
    let mut cursor = 0;
    let mut loosest = Tolerance::Exact;
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for chunk in chunks {
        for anchor in &chunk.anchors {
            match seek_lines(&lines, &[anchor.as_str()], cursor, false) {
                Some((at, tolerance)) => {
                    cursor = at + 1;
                    loosest = loosest.max(tolerance);
                }
                None => {
                    return Err(format!(
                        "cannot find the @@ context line {anchor:?} (patch line {}) in {path}{}\n{}",
                        chunk.patch_line,
                        after_line(cursor),
                        closest(&lines, &[anchor.as_str()], cursor)
                    ));
                }
            }
        }
        let mut chunk_lines: &[ChunkLine] = &chunk.lines;
        let old_of = |cl: &[ChunkLine]| -> Vec<String> {
            cl.iter()
                .filter_map(|l| match l {
                    ChunkLine::Context(t) | ChunkLine::Remove(t) => Some(t.clone()),
                    ChunkLine::Add(_) => None,
                })
                .collect()
        };
        let mut old = old_of(chunk_lines);
        let (start, tolerance) = if old.is_empty() {
            // Only added lines: after the anchor when there is one, else at the end.
            let at = if chunk.anchors.is_empty() { lines.len() } else { cursor };
            (at, Tolerance::Exact)
        } else {
            let mut found = seek_lines(&lines, &refs(&old), cursor, chunk.eof);
            // A trailing empty context line often stands for the file's final newline.
            if found.is_none()
                && let [rest @ .., ChunkLine::Context(last)] = chunk_lines
                && last.is_empty()
            {
                chunk_lines = rest;
                old = old_of(chunk_lines);
                found = seek_lines(&lines, &refs(&old), cursor, chunk.eof);
            }
            match found {
                Some(found) => found,
                None => {
                    return Err(format!(
                        "cannot find the lines of the section at patch line {} in {path}{}:\n{}{}",
                        chunk.patch_line,
                        after_line(cursor),
                        old.iter().map(|l| format!("{l}\n")).collect::<String>(),
                        closest(&lines, &refs(&old), cursor)
                    ));
                }
            }
        };
        loosest = loosest.max(tolerance);
        // Context lines keep the file's own text, so a tolerant match never rewrites them.
        let mut new_lines = Vec::new();
        let mut k = start;
        for line in chunk_lines {
            match line {
                ChunkLine::Context(_) => {
                    new_lines.push(lines[k].to_string());
                    k += 1;
                }
                ChunkLine::Remove(_) => k += 1,
                ChunkLine::Add(text) => new_lines.push(text.clone()),
            }
        }
        replacements.push((start, old.len(), new_lines));
        cursor = start + old.len();
    }

    let eol = if index.crlf { "\r\n" } else { "\n" };
    let ends_with_newline = content.is_empty() || content.ends_with('\n');
    let mut out_lines: Vec<String> = Vec::with_capacity(lines.len());
    let mut next = 0;
    for (start, len, new_lines) in replacements {
        out_lines.extend(lines[next..start].iter().map(|l| l.to_string()));
        out_lines.extend(new_lines);
        next = start + len;
    }
    out_lines.extend(lines[next..].iter().map(|l| l.to_string()));
    let mut text = out_lines.join(eol);
    if !out_lines.is_empty() && ends_with_newline {
        text.push_str(eol);
    }
    Ok((text, loosest))
}

fn refs(lines: &[String]) -> Vec<&str> {
    lines.iter().map(String::as_str).collect()
}

fn after_line(cursor: usize) -> String {
    if cursor == 0 { String::new() } else { format!(" after line {cursor}") }
}

/// The closest lines of the file to what was not found, numbered; failing that, the lines
/// where the search started.
fn closest(lines: &[&str], pattern: &[&str], cursor: usize) -> String {
    match closest_region(lines, pattern) {
        Some(c) => format!(
            "The closest lines in the file ({}% of the words):\n{}",
            c.percent,
            numbered(lines, &[(c.start_line, c.end_line)])
        ),
        None if cursor < lines.len() => format!(
            "The file there reads:\n{}",
            numbered(lines, &[(cursor + 1, (cursor + pattern.len() + 1).min(lines.len()))])
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(chunks_text: &str) -> Vec<Chunk> {
        let patch = format!("*** Begin Patch\n*** Update File: a.py\n{chunks_text}*** End Patch\n");
        match parse_patch(&patch).unwrap().remove(0) {
            FileOp::Update { chunks, .. } => chunks,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parses_every_kind_of_hunk() {
        let patch = "*** Begin Patch\n*** Add File: hello.txt\n+Hello world\n*** Update File: src/app.py\n\
                     *** Move to: src/main.py\n@@ def greet():\n-print(\"Hi\")\n+print(\"Hello, world!\")\n\
                     *** Delete File: obsolete.txt\n*** End Patch\n";
        let ops = parse_patch(patch).unwrap();
        assert_eq!(
            ops,
            vec![
                FileOp::Add { path: "hello.txt".into(), contents: "Hello world\n".into() },
                FileOp::Update {
                    path: "src/app.py".into(),
                    move_to: Some("src/main.py".into()),
                    chunks: vec![Chunk {
                        anchors: vec!["def greet():".into()],
                        lines: vec![
                            ChunkLine::Remove("print(\"Hi\")".into()),
                            ChunkLine::Add("print(\"Hello, world!\")".into())
                        ],
                        eof: false,
                        patch_line: 6,
                    }],
                },
                FileOp::Delete { path: "obsolete.txt".into() },
            ]
        );
    }

    #[test]
    fn leniency_heredoc_fence_whitespace_and_range_headers() {
        let inner = "*** Begin Patch\n  *** Delete File: a.txt  \n*** End Patch";
        for wrapped in [
            format!("<<'EOF'\n{inner}\nEOF\n"),
            format!("apply_patch <<\"EOF\"\n{inner}\nEOF"),
            format!("```\n{inner}\n```\n"),
            format!("\n\n{inner}\n\n"),
        ] {
            assert_eq!(
                parse_patch(&wrapped).unwrap(),
                vec![FileOp::Delete { path: "a.txt".into() }],
                "{wrapped}"
            );
        }
        let chunks = update("@@ -1,2 +1,2 @@\n-a\n+b\n@@ -9 +9 @@ def f():\n x\n");
        assert_eq!(chunks[0].anchors, Vec::<String>::new());
        assert_eq!(chunks[1].anchors, vec!["def f():".to_string()]);
    }

    #[test]
    fn errors_name_the_line() {
        assert!(parse_patch("hello").unwrap_err().to_string().contains("first line"));
        assert!(
            parse_patch("*** Begin Patch\n*** Delete File: a\n")
                .unwrap_err()
                .to_string()
                .contains("last line")
        );
        let err = parse_patch("*** Begin Patch\n*** Frobnicate: a\n*** End Patch").unwrap_err().to_string();
        assert!(err.starts_with("line 2: \"*** Frobnicate: a\" is not a valid hunk header"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** Update File: a\n*** End Patch").unwrap_err().to_string();
        assert!(err.contains("the update of a is empty"), "{err}");
        let err = parse_patch("*** Begin Patch\n*** Update File: a\n@@\n x\nbad\n*** End Patch")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("line 5: \"bad\""), "{err}");
    }

    #[test]
    fn applies_with_anchors_eof_and_tolerance() {
        let content =
            "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n";
        let chunks = update("@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2\n");
        let (text, t) = apply_chunks("a.py", content, &chunks).unwrap();
        assert_eq!(
            text,
            "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n"
        );
        assert_eq!(t, Tolerance::Exact);
        let chunks = update("@@\n-        return 1   \n+        return 3\n*** End of File\n");
        let (text, t) = apply_chunks("a.py", content, &chunks).unwrap();
        assert!(text.ends_with("return 1\n\nclass B:\n    def f(self):\n        return 3\n"), "{text}");
        assert_eq!(t, Tolerance::TrailingWhitespace);
        let err =
            apply_chunks("a.py", content, &update("@@\n-        return 42\n+x\n")).unwrap_err().to_string();
        assert!(err.contains("cannot find the lines of the section at patch line 3 in a.py"), "{err}");
        assert!(err.contains("closest lines"), "{err}");
    }

    #[test]
    fn context_keeps_the_files_own_text_and_crlf() {
        let content = "a  \r\nb\r\nc\r\n";
        let (text, _) = apply_chunks("x.txt", content, &update("@@\n a\n-b\n+B\n")).unwrap();
        assert_eq!(text, "a  \r\nB\r\nc\r\n");
    }
}

//! What several readers share: compiled patterns, ANSI colour stripped, messages clipped, and a
//! JSON report found among a runner's own lines.

use std::sync::OnceLock;

use regex::Regex;

/// The first JSON value in `output` that starts a line with `open` and parses, with what
/// follows it ignored (a runner's own lines around the report).
pub(super) fn json_report(output: &str, open: &str) -> Option<serde_json::Value> {
    let mut at = 0;
    while let Some(found) = output[at..].find(open) {
        let start = at + found;
        at = start + 1;
        if start > 0 && !output[..start].ends_with('\n') {
            continue;
        }
        let mut values =
            serde_json::Deserializer::from_str(&output[start..]).into_iter::<serde_json::Value>();
        if let Some(Ok(value)) = values.next() {
            return Some(value);
        }
    }
    None
}

/// `text` without ANSI colour and cursor sequences.
pub(super) fn strip_ansi(text: &str) -> String {
    static ANSI: OnceLock<Regex> = OnceLock::new();
    re(&ANSI, r"\x1b\[[0-9;?]*[A-Za-z]").replace_all(text, "").into_owned()
}

/// `pattern`, compiled once into `cell`.
pub(super) fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid built-in regex"))
}

/// Keeps at most `max` characters, cut at a character boundary.
pub(super) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The first frame of a .NET stack trace that names its source: `at A.B.C() in /src/CTests.cs:line
/// 17` as .NET writes it, `in /src/CTests.cs:17` as Mono does; the file and the line.
pub(super) fn dotnet_frame(stack: &str) -> Option<(String, u64)> {
    static FRAME: OnceLock<Regex> = OnceLock::new();
    let frame = re(&FRAME, r"\bin (.+?\.(?:cs|fs|vb)):(?:line )?(\d+)\s*$");
    stack
        .lines()
        .find_map(|l| frame.captures(l.trim_end()))
        .map(|c| (c[1].to_string(), c[2].parse().unwrap_or(0)))
}

/// The XML documents in `output` whose root element is `root` (`<TestRun`, `<test-results`),
/// each from its opening tag to its closing one, in order; text around them is left out.
pub(super) fn xml_documents<'a>(output: &'a str, root: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{root}"), format!("</{root}>"));
    let mut found = Vec::new();
    let mut rest = output;
    while let Some(start) = rest.find(&open) {
        // `<TestRun` is not `<TestRunner`.
        let after = rest[start + open.len()..].chars().next();
        if !after.is_some_and(|c| c.is_whitespace() || c == '>' || c == '/') {
            rest = &rest[start + open.len()..];
            continue;
        }
        let Some(end) = rest[start..].find(&close).map(|at| start + at + close.len()) else { break };
        found.push(&rest[start..end]);
        rest = &rest[end..];
    }
    found
}

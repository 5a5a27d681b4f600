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

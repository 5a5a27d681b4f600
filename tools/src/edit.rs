//! `edit_file`: replace one exact, unique snippet (or every occurrence with `replace_all`),
//! with whitespace and look-alike tolerances tried only when the exact text is absent, the
//! syntax guard, and an answer that shows the edited lines.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::lenient;
use crate::matcher::{self, EditPlan, Tolerance};
use crate::observation::Observation;
use crate::session::Session;
use crate::syntax_guard::numbered;
use crate::toolbox::Toolbox;
use crate::writer::{self, Change};

/// Match lines listed at most in an ambiguity error.
const MAX_LISTED: usize = 50;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileParams {
    /// File to edit, relative to the repository root.
    #[serde(alias = "file_path")]
    pub path: String,
    /// The text to replace, copied exactly from the file, with enough surrounding lines to occur
    /// only once.
    #[serde(alias = "old_string", alias = "old_str")]
    pub old: String,
    /// The text to put in its place.
    #[serde(alias = "new_string", alias = "new_str")]
    pub new: String,
    /// Replace every occurrence of old instead of requiring exactly one (default false).
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    #[schemars(with = "bool")]
    pub replace_all: Option<bool>,
    /// The version read_file returned: the edit is refused if the file changed since.
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EditFileOutput {
    /// The path, relative to the root.
    pub path: String,
    /// The file's new version.
    pub version: String,
    /// How many occurrences were replaced.
    pub replacements: u64,
    /// The 1-based line where each replaced occurrence started (the first 100).
    pub lines: Vec<u64>,
    /// How old was found: exact, trailing_whitespace, whitespace or unicode_punctuation.
    pub matched: String,
}

pub fn edit_file(toolbox: &Toolbox, session: &Session, params: EditFileParams) -> Observation {
    match run(toolbox, session, params) {
        Ok(obs) | Err(obs) => obs,
    }
}

fn run(toolbox: &Toolbox, session: &Session, params: EditFileParams) -> Result<Observation, Observation> {
    let resolved = writer::resolve_for_write(toolbox, &params.path, "edit")?;
    let rel = resolved.rel.clone();
    if params.old.is_empty() {
        return Err(Observation::error(format!(
            "old is empty; copy the lines to change from {rel} into old (to add lines, include a neighbouring \
             line in old and new; to create a file, use write_file)"
        )));
    }
    if params.old == params.new {
        return Err(Observation::error("old and new are the same, so there is nothing to change"));
    }
    let locked = writer::lock(toolbox, vec![resolved], "edit")?;
    let Some(content) = locked.text(&rel, "edit")? else {
        return Err(Observation::error(format!(
            "cannot edit {rel}: no such file. To create it: call_tool(name=\"write_file\", arguments={{\"path\": \
             \"{rel}\", \"content\": \"...\"}})"
        )));
    };
    locked.check_version(&rel, params.version.as_deref(), "edit")?;

    let replace_all = params.replace_all.unwrap_or(false);
    let (after, tolerance, reindented, at_lines, spans) =
        match matcher::plan_edit(content, &params.old, &params.new, replace_all) {
            EditPlan::Applied { text, tolerance, reindented, at_lines, spans } => {
                (text, tolerance, reindented, at_lines, spans)
            }
            EditPlan::Ambiguous { tolerance, lines } => return Err(ambiguous(&rel, tolerance, &lines)),
            EditPlan::NotFound { closest } => return Err(not_found(&rel, content, closest)),
        };
    let retry = format!(
        "{}Fix new (balance brackets, quotes and indentation) and call edit_file again; old still matches.",
        bracket_hint(&params.old, &params.new)
    );
    let change = Change { rel: rel.clone(), after: Some(after.clone().into_bytes()), mode: None };
    let written = locked.commit(session, vec![change], true, true, &retry)?;
    let version = written[0].version.clone().unwrap_or_default();

    let count = at_lines.len();
    let mut header = format!(
        "edited {rel}: {} at {} {}",
        if count == 1 { "1 replacement".to_string() } else { format!("{count} replacements") },
        if count == 1 { "line" } else { "lines" },
        join_lines(&at_lines, MAX_LISTED)
    );
    if tolerance != Tolerance::Exact {
        header.push_str(&format!(" (old matched only {}", tolerance.describe()));
        if reindented {
            header.push_str("; new was re-indented to the file's indentation");
        }
        header.push(')');
    }
    header.push_str(&format!("; version {version}\n"));
    let text = header + &writer::echo_spans(&after, &spans);
    let out = EditFileOutput {
        path: rel,
        version,
        replacements: count as u64,
        lines: at_lines.iter().take(100).map(|&l| l as u64).collect(),
        matched: tolerance.name().into(),
    };
    Ok(Observation::ok(text, json!(out)))
}

fn ambiguous(rel: &str, tolerance: Tolerance, lines: &[usize]) -> Observation {
    let how =
        if tolerance == Tolerance::Exact { String::new() } else { format!(" ({})", tolerance.describe()) };
    Observation::error(format!(
        "old matches {} times in {rel}{how}, at lines {}; add surrounding lines to old so it matches once, or \
         pass replace_all=true to replace all {}. Nothing was changed.",
        lines.len(),
        join_lines(lines, MAX_LISTED),
        lines.len()
    ))
}

fn not_found(rel: &str, content: &str, closest: Option<matcher::Closest>) -> Observation {
    let mut text = format!(
        "old does not occur in {rel}, not even ignoring whitespace or look-alike punctuation; nothing was changed.\n"
    );
    match closest {
        Some(c) => {
            let lines: Vec<&str> = content.split('\n').collect();
            text.push_str(&format!(
                "The closest region is {} ({}% of its words are in old):\n",
                if c.start_line == c.end_line {
                    format!("line {}", c.start_line)
                } else {
                    format!("lines {}-{}", c.start_line, c.end_line)
                },
                c.percent
            ));
            text.push_str(&numbered(&lines, &[(c.start_line, c.end_line)]));
            text.push_str(
                "Copy old exactly from the file (read_file shows more lines) and call edit_file again.\n",
            );
        }
        None => text.push_str(
            "No part of the file shares its words: check the path, or find the text with search first.\n",
        ),
    }
    Observation::error(text)
}

/// A line naming brackets that `new` opens or closes more than `old` did, or nothing.
fn bracket_hint(old: &str, new: &str) -> String {
    let mut notes = Vec::new();
    for (open, close) in [('(', ')'), ('[', ']'), ('{', '}')] {
        let balance = |s: &str| s.matches(open).count() as i64 - s.matches(close).count() as i64;
        let delta = balance(new) - balance(old);
        if delta > 0 {
            notes.push(format!("{delta} more '{open}' than '{close}'"));
        } else if delta < 0 {
            notes.push(format!("{} more '{close}' than '{open}'", -delta));
        }
    }
    if notes.is_empty() {
        return String::new();
    }
    format!("Compared with old, new has {}.\n", notes.join(" and "))
}

/// `12, 40, 77`, or the first `max` and how many more.
fn join_lines(lines: &[usize], max: usize) -> String {
    let mut text = lines.iter().take(max).map(|l| l.to_string()).collect::<Vec<_>>().join(", ");
    if lines.len() > max {
        text.push_str(&format!(" and {} more", lines.len() - max));
    }
    text
}

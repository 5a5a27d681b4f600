//! `edit_file`: replace one exact, unique snippet (or every occurrence with `replace_all`),
//! with whitespace and look-alike tolerances tried only when the exact text is absent, the
//! syntax guard, and an answer that shows the edited lines.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::session::Session;
use crate::tool::{Call, EDITS, Group, Reply, Spec, Tool};
use crate::workspace::Workspace;
use crate::write::syntax_guard::numbered;
use crate::write::text_match::{self, EditPlan, Tolerance};
use crate::write::writer::{self, Change};

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
    /// Replace every occurrence (default false: old must occur once).
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

pub(crate) struct EditFile;

impl Tool for EditFile {
    type Params = EditFileParams;
    type Output = EditFileOutput;
    const SPEC: Spec = Spec::editor(
        "edit_file",
        "Edit a file",
        Group::Core,
        "Edit a file: replace old (exact text that occurs once; replace_all=true for every \
             occurrence) with new. Refuses edits that add syntax errors; with version= (from \
             read_file), refuses if the file changed since. Answers with the edited lines.",
        EDITS,
    );

    fn run(call: &Call<'_>, params: EditFileParams) -> Reply {
        edit_file(call.ws, call.session, params).into()
    }

    fn guide(_ws: &Workspace) -> Option<String> {
        Some(
            "edit_file replaces one exact, unique snippet (old -> new; pass read_file's version to refuse \
             stale edits) and refuses any edit that would add a syntax error; apply_patch, write_file, replace_symbol and undo (through find_tools) cover multi-file patches, \
             whole files and definitions. "
                .into(),
        )
    }
}

fn edit_file(ws: &Workspace, session: &Session, params: EditFileParams) -> Observation {
    match run(ws, session, params) {
        Ok(obs) | Err(obs) => obs,
    }
}

fn run(ws: &Workspace, session: &Session, params: EditFileParams) -> Result<Observation, Observation> {
    let resolved = writer::resolve_for_write(ws, &params.path, "edit")?;
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
    let locked = writer::lock(ws, vec![resolved], "edit")?;
    let Some(content) = locked.text(&rel, "edit")? else {
        return Err(Observation::error(format!(
            "cannot edit {rel}: no such file. To create it: call_tool(name=\"write_file\", arguments={{\"path\": \
             \"{rel}\", \"content\": \"...\"}})"
        )));
    };
    locked.check_version(&rel, params.version.as_deref(), "edit")?;

    let replace_all = params.replace_all.unwrap_or(false);
    let max = ws.config().edit.max_file_bytes;
    let (after, tolerance, reindented, at_lines, spans) =
        match text_match::plan_edit_within(content, &params.old, &params.new, replace_all, max) {
            EditPlan::Applied { text, tolerance, reindented, at_lines, spans } => {
                (text, tolerance, reindented, at_lines, spans)
            }
            EditPlan::Ambiguous { tolerance, lines } => return Err(ambiguous(&rel, tolerance, &lines)),
            EditPlan::NotFound { closest } => return Err(not_found(&rel, content, closest)),
            EditPlan::TooLarge { size, count } => return Err(too_large(&rel, size, count, &params.new, max)),
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

fn too_large(rel: &str, size: u64, count: usize, new: &str, max: u64) -> Observation {
    let what = if count == 1 {
        format!("replacing old with new ({} bytes)", new.len())
    } else {
        format!("replacing the {count} occurrences of old with new ({} bytes each)", new.len())
    };
    Observation::error(format!(
        "refused: {what} would make {rel} {}, over the {} tack writes to one file; nothing was changed. \
         Replace fewer occurrences (add surrounding lines to old so it matches once, without replace_all) \
         or shorten new. {}",
        writer::size_text(size),
        writer::size_text(max),
        writer::TOO_LARGE_NEXT
    ))
}

fn not_found(rel: &str, content: &str, closest: Option<text_match::Closest>) -> Observation {
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

//! The `patch` group: `apply_patch` (Codex patch format, all files or none), `write_file`
//! (create, or overwrite the version the agent read) and `undo` (this session's last write to
//! a path, unless someone changed the file since). All of them write through [`crate::write::writer`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::observe::observation::Observation;
use crate::session::Session;
use crate::tool::{Call, EDITS, Group, REWRITES, Reply, Spec, Tool};
use crate::workspace::Workspace;
use crate::workspace::path_guard::ResolvedPath;
use crate::write::files::{Current, version_of};
use crate::write::patch_format::{self, FileOp};
use crate::write::text_match::Tolerance;
use crate::write::writer::{self, Change, Written};

/// Errors listed at most when a patch does not apply.
const MAX_ERRORS: usize = 5;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchParams {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    #[serde(alias = "input")]
    pub patch: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileParams {
    /// File to write, relative to the repository root.
    #[serde(alias = "file_path")]
    pub path: String,
    /// The file's whole new content.
    #[serde(alias = "file_text", alias = "contents")]
    pub content: String,
    /// Required to overwrite an existing file: the version read_file returned.
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoParams {
    /// The file whose last write by this session to undo, relative to the repository root.
    #[serde(alias = "file_path")]
    pub path: String,
}

/// What a patch-group tool changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedFiles {
    pub files: Vec<ChangedFile>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedFile {
    /// The path, relative to the root.
    pub path: String,
    /// `added`, `modified`, `deleted`, or `unchanged`.
    pub action: String,
    /// The new version; absent for a deleted file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// For a moved file: where it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
}

fn either(result: Result<Observation, Observation>) -> Observation {
    match result {
        Ok(obs) | Err(obs) => obs,
    }
}

pub(crate) struct ApplyPatch;

impl Tool for ApplyPatch {
    type Params = ApplyPatchParams;
    type Output = ChangedFiles;
    const SPEC: Spec = Spec::editor(
        "apply_patch",
        "Apply a multi-file patch",
        Group::Patch,
        "Apply a patch to several files at once, all or none, in the Codex format: *** Begin \
             Patch, then *** Add File: p (+ lines), *** Delete File: p, or *** Update File: p (*** Move to: q, \
             @@ context, ' '/-/+ lines), then *** End Patch. Refuses syntax errors. Answers A/M/D lines.",
        EDITS,
    );

    fn run(call: &Call<'_>, params: ApplyPatchParams) -> Reply {
        apply_patch(call.ws, call.session, params).into()
    }
}

fn apply_patch(ws: &Workspace, session: &Session, params: ApplyPatchParams) -> Observation {
    either(run_apply_patch(ws, session, params))
}

/// One operation's file, and its move's destination.
type Paths = (String, Option<String>);

/// One file the patch changes, as the answer reports it.
struct Reported {
    kind: char,
    rel: String,
    moved_from: Option<String>,
    tolerance: Tolerance,
}

/// Parse, resolve and lock every path, plan every file's change, commit them together,
/// answer: any failure before the commit changes nothing.
fn run_apply_patch(
    ws: &Workspace,
    session: &Session,
    params: ApplyPatchParams,
) -> Result<Observation, Observation> {
    let ops = parse(&params.patch)?;
    let (resolved, rels) = resolve_paths(ws, &ops)?;
    let locked = writer::lock(ws, resolved, "patch")?;
    let (changes, report) = plan(&locked, &ops, &rels)?;
    let befores: Vec<Option<String>> = changes
        .iter()
        .map(|c| match &locked.target(&c.rel).current {
            Current::File { bytes, .. } => Some(String::from_utf8_lossy(bytes).into_owned()),
            Current::Absent => None,
        })
        .collect();
    let written = locked.commit(
        session,
        changes,
        true,
        true,
        "Fix the patch and send it again; no file was changed.",
    )?;
    Ok(answer(&report, &written, &befores))
}

/// The patch's file operations, or the format's summary with what is wrong.
fn parse(patch: &str) -> Result<Vec<FileOp>, Observation> {
    patch_format::parse_patch(patch).map_err(|err| {
        Observation::error(format!(
            "invalid patch: {err}. Nothing was applied. The format: '*** Begin Patch', then per file \
             '*** Add File: path' (lines starting with +), '*** Delete File: path', or '*** Update File: path' \
             (optional '*** Move to: path', then '@@ context' sections of ' ', '-', '+' lines), then \
             '*** End Patch'."
        ))
    })
}

/// Every path resolved inside the root (one outside refuses the whole patch), and per
/// operation its file and its move's destination; a file named twice is refused.
fn resolve_paths(ws: &Workspace, ops: &[FileOp]) -> Result<(Vec<ResolvedPath>, Vec<Paths>), Observation> {
    let mut resolved = Vec::new();
    let mut rels: Vec<Paths> = Vec::new();
    for op in ops {
        let source = writer::resolve_for_write(ws, op.path(), "patch")
            .map_err(|obs| Observation::error(format!("{}; nothing was applied", obs.text)))?;
        let dest = match op {
            FileOp::Update { move_to: Some(dest), .. } => {
                let dest = writer::resolve_for_write(ws, dest, "move to")
                    .map_err(|obs| Observation::error(format!("{}; nothing was applied", obs.text)))?;
                Some(dest)
            }
            _ => None,
        };
        rels.push((source.rel.clone(), dest.as_ref().map(|d| d.rel.clone()).filter(|d| *d != source.rel)));
        resolved.push(source);
        resolved.extend(dest);
    }
    let mut seen = std::collections::BTreeSet::new();
    for rel in rels.iter().flat_map(|(s, d)| std::iter::once(s).chain(d)) {
        if !seen.insert(rel.clone()) {
            return Err(Observation::error(format!(
                "{rel} appears in more than one file operation of the patch; put all its changes under one \
             '*** Update File: {rel}'. Nothing was applied."
            )));
        }
    }
    Ok((resolved, rels))
}

/// Each operation's change against the locked files, or every operation that fails, listed.
fn plan(
    locked: &writer::Locked<'_>,
    ops: &[FileOp],
    rels: &[Paths],
) -> Result<(Vec<Change>, Vec<Reported>), Observation> {
    let mut changes = Vec::new();
    let mut report = Vec::new();
    let mut errors = Vec::new();
    let mut reported = |kind, rel: &String, moved_from: Option<String>, tolerance| {
        report.push(Reported { kind, rel: rel.clone(), moved_from, tolerance });
    };
    for (op, (rel, dest)) in ops.iter().zip(rels) {
        match op {
            FileOp::Add { contents, .. } => match &locked.target(rel).current {
                Current::Absent => {
                    changes.push(Change {
                        rel: rel.clone(),
                        after: Some(contents.clone().into_bytes()),
                        mode: None,
                    });
                    reported('A', rel, None, Tolerance::Exact);
                }
                Current::File { .. } => errors.push(format!(
                    "'*** Add File: {rel}': the file already exists; change it with '*** Update File: {rel}'"
                )),
            },
            FileOp::Delete { .. } => match &locked.target(rel).current {
                Current::File { .. } => {
                    changes.push(Change { rel: rel.clone(), after: None, mode: None });
                    reported('D', rel, None, Tolerance::Exact);
                }
                Current::Absent => errors.push(format!("'*** Delete File: {rel}': no such file")),
            },
            FileOp::Update { chunks, .. } => {
                let content = match locked.text(rel, "patch") {
                    Ok(Some(text)) => text,
                    Ok(None) => {
                        errors.push(format!(
                            "'*** Update File: {rel}': no such file; create it with '*** Add File: {rel}'"
                        ));
                        continue;
                    }
                    Err(obs) => {
                        errors.push(obs.text);
                        continue;
                    }
                };
                if let Some(dest) = dest
                    && locked.target(dest).current != Current::Absent
                {
                    errors.push(format!("'*** Move to: {dest}': the file already exists; pick a new path"));
                    continue;
                }
                match patch_format::apply_chunks(rel, content, chunks) {
                    Ok((after, tolerance)) => match dest {
                        Some(dest) => {
                            let mode = match &locked.target(rel).current {
                                Current::File { mode, .. } => Some(*mode),
                                Current::Absent => None,
                            };
                            changes.push(Change { rel: rel.clone(), after: None, mode: None });
                            changes.push(Change { rel: dest.clone(), after: Some(after.into_bytes()), mode });
                            reported('M', dest, Some(rel.clone()), tolerance);
                        }
                        None => {
                            changes.push(Change {
                                rel: rel.clone(),
                                after: Some(after.into_bytes()),
                                mode: None,
                            });
                            reported('M', rel, None, tolerance);
                        }
                    },
                    Err(err) => errors.push(err.to_string()),
                }
            }
        }
    }
    if errors.is_empty() {
        return Ok((changes, report));
    }
    let mut text = format!(
        "the patch does not apply ({} of its {} file operations failed); nothing was applied, no file was changed.\n",
        errors.len(),
        ops.len()
    );
    for err in errors.iter().take(MAX_ERRORS) {
        text.push_str(&format!("- {}\n", err.trim_end()));
    }
    if errors.len() > MAX_ERRORS {
        text.push_str(&format!("- … {} more\n", errors.len() - MAX_ERRORS));
    }
    text.push_str("Fix those parts (read_file shows the current lines) and send the whole patch again.\n");
    Err(Observation::error(text))
}

/// The A/M/D lines, then each written file's version and changed lines.
fn answer(report: &[Reported], written: &[Written], befores: &[Option<String>]) -> Observation {
    let mut text = String::from("Success. Updated the following files:\n");
    for r in report {
        match &r.moved_from {
            Some(from) => text.push_str(&format!("{} {} (moved from {from})\n", r.kind, r.rel)),
            None => text.push_str(&format!("{} {}\n", r.kind, r.rel)),
        }
    }
    let mut files = Vec::new();
    for r in report {
        let w = written.iter().position(|w| w.rel == r.rel).expect("every reported file was written");
        let version = written[w].version.clone();
        if let (Some(version), Some(after)) = (&version, &written[w].after) {
            let after = String::from_utf8_lossy(after);
            // A moved file is compared with its old self.
            let source = match &r.moved_from {
                Some(src) => written.iter().position(|x| &x.rel == src).unwrap_or(w),
                None => w,
            };
            let before = befores[source].as_deref();
            text.push_str(&format!("\n{}, version {version}", r.rel));
            if r.tolerance != Tolerance::Exact {
                text.push_str(&format!(" (matched {})", r.tolerance.describe()));
            }
            text.push_str(":\n");
            text.push_str(&writer::echo_diff(before, &after));
        }
        let action = match r.kind {
            'A' => "added",
            'D' => "deleted",
            _ => "modified",
        };
        files.push(ChangedFile {
            path: r.rel.clone(),
            action: action.into(),
            version,
            moved_from: r.moved_from.clone(),
        });
    }
    Observation::ok(text, json!(ChangedFiles { files }))
}

pub(crate) struct WriteFile;

impl Tool for WriteFile {
    type Params = WriteFileParams;
    type Output = ChangedFiles;
    const SPEC: Spec = Spec::editor(
        "write_file",
        "Write a whole file",
        Group::Patch,
        "Write a whole file: create a new one, or overwrite an existing one only when version= \
             is the version read_file returned (so no one else's change is lost). Refuses content that adds \
             syntax errors (Python, Rust). Answers with the new version.",
        REWRITES,
    );

    fn run(call: &Call<'_>, params: WriteFileParams) -> Reply {
        write_file(call.ws, call.session, params).into()
    }
}

fn write_file(ws: &Workspace, session: &Session, params: WriteFileParams) -> Observation {
    either(run_write_file(ws, session, params))
}

fn run_write_file(
    ws: &Workspace,
    session: &Session,
    params: WriteFileParams,
) -> Result<Observation, Observation> {
    let resolved = writer::resolve_for_write(ws, &params.path, "write")?;
    let rel = resolved.rel.clone();
    let locked = writer::lock(ws, vec![resolved], "write")?;
    let version = params.version.as_deref().map(str::trim).filter(|v| !v.is_empty());
    let before = match (&locked.target(&rel).current, version) {
        (Current::File { .. }, None) => {
            return Err(Observation::error(format!(
                "refused: {rel} exists, and write_file overwrites only the version you read; nothing was \
             changed. Pass version= from read_file(path=\"{rel}\"), or change part of it with edit_file"
            )));
        }
        (Current::File { bytes, .. }, Some(_)) => {
            locked.check_version(&rel, version, "write")?;
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        (Current::Absent, Some(_)) => {
            locked.check_version(&rel, version, "write")?;
            None
        }
        (Current::Absent, None) => None,
    };
    let retry = "Fix the content and call write_file again.";
    let change = Change { rel: rel.clone(), after: Some(params.content.clone().into_bytes()), mode: None };
    let written = locked.commit(session, vec![change], true, true, retry)?;
    let version = written[0].version.clone().unwrap_or_default();
    let n_lines = params.content.lines().count();
    let (verb, action) = match &before {
        None => ("created", "added"),
        Some(b) if *b == params.content => ("left unchanged (same content)", "unchanged"),
        Some(_) => ("overwrote", "modified"),
    };
    let mut text = format!("{verb} {rel} ({n_lines} lines); version {version}\n");
    if action != "unchanged" {
        text.push_str(&writer::echo_diff(before.as_deref(), &params.content));
    }
    let files =
        vec![ChangedFile { path: rel, action: action.into(), version: Some(version), moved_from: None }];
    Ok(Observation::ok(text, json!(ChangedFiles { files })))
}

pub(crate) struct Undo;

impl Tool for Undo {
    type Params = UndoParams;
    type Output = ChangedFiles;
    const SPEC: Spec = Spec::editor(
        "undo",
        "Undo the last write to a file",
        Group::Patch,
        "Undo this session's last write to a file (by edit_file, write_file, apply_patch or \
             replace_symbol), refusing when someone else changed the file since. Call again to go further \
             back.",
        EDITS,
    );

    fn run(call: &Call<'_>, params: UndoParams) -> Reply {
        undo(call.ws, call.session, params).into()
    }
}

fn undo(ws: &Workspace, session: &Session, params: UndoParams) -> Observation {
    either(run_undo(ws, session, params))
}

fn run_undo(ws: &Workspace, session: &Session, params: UndoParams) -> Result<Observation, Observation> {
    let resolved = writer::resolve_for_write(ws, &params.path, "undo")?;
    let rel = resolved.rel.clone();
    let locked = writer::lock(ws, vec![resolved], "undo")?;
    let (before, mode, after_version) = {
        let log = session.undo.lock().expect("undo lock");
        let Some(entry) = log.last(&rel) else {
            return Err(Observation::error(format!(
                "nothing to undo: this session has not written {rel} (or wrote it too long ago to remember)"
            )));
        };
        (entry.before.clone(), entry.mode, entry.after_version.clone())
    };
    let now = match &locked.target(&rel).current {
        Current::File { bytes, .. } => Some(version_of(bytes)),
        Current::Absent => None,
    };
    if now != after_version {
        let state = match &now {
            Some(v) => format!("it is now version {v}"),
            None => "it has been deleted".to_string(),
        };
        let mut text = format!(
            "refused: {rel} changed since this session's last write to it ({state}), so someone else wrote it \
             and undo would lose their change; nothing was changed.\n"
        );
        if let (Some(mine), Some(now), Current::File { bytes, .. }) =
            (after_version.as_deref(), now.as_deref(), &locked.target(&rel).current)
            && let Some(theirs) = ws.versions().get(mine)
        {
            text.push_str("what changed since your write:\n");
            text.push_str(&writer::short_diff(&theirs, bytes, mine, now));
        }
        text.push_str("Read it with read_file and edit it instead.\n");
        return Err(Observation::error(text));
    }
    let current_text = match &locked.target(&rel).current {
        Current::File { bytes, .. } => Some(String::from_utf8_lossy(bytes).into_owned()),
        Current::Absent => None,
    };
    let change = Change { rel: rel.clone(), after: before.as_ref().map(|b| b.to_vec()), mode };
    let written: Vec<Written> = locked.commit(session, vec![change], false, false, "")?;
    session.undo.lock().expect("undo lock").pop(&rel);
    let version = written[0].version.clone();
    let text = match (&before, &version) {
        (Some(bytes), Some(version)) => {
            let restored = String::from_utf8_lossy(bytes);
            format!(
                "undid this session's last write to {rel}: restored the content before it; version {version}\n{}",
                writer::echo_diff(current_text.as_deref(), &restored)
            )
        }
        _ => format!("undid this session's last write to {rel}: that write created it, so it was deleted\n"),
    };
    let action =
        if before.is_some() { if current_text.is_some() { "modified" } else { "added" } } else { "deleted" };
    let files = vec![ChangedFile { path: rel, action: action.into(), version, moved_from: None }];
    Ok(Observation::ok(text, json!(ChangedFiles { files })))
}

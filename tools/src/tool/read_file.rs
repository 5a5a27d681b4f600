//! `read_file`: a window of numbered lines, with a header that says what lies above and
//! below, and the file's `version` for conflict-checked edits. A directory gets a listing.

use std::io::{BufRead, BufReader, Read};

use rustix::fs::{Mode, OFlags};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tack_indexer::shown_path;

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::observe::shape::shorten_line;
use crate::tool::{Call, Group, Reply, Spec, Tool};
use crate::workspace::Workspace;
use crate::workspace::path_guard::ResolvedPath;
use crate::write::files::{self, VersionCache};

/// The most lines one call may ask for.
pub const MAX_LINES: u64 = 2_000;
/// Entries shown for a directory.
const MAX_ENTRIES: usize = 500;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileParams {
    /// File or directory, relative to the repository root.
    pub path: String,
    /// First line to show, 1-based (default 1).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub start: Option<u64>,
    /// How many lines to show (default 100, at most 2000).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub lines: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadFileOutput {
    /// The path, relative to the root.
    pub path: String,
    /// `file` or `directory`.
    pub kind: String,
    /// First line shown (files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// Last line shown (files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<u64>,
    /// Lines in the file, or entries in the directory.
    pub total: u64,
    /// Content hash of the file; pass it to a writing tool to refuse lost updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

pub(crate) struct ReadFile;

impl Tool for ReadFile {
    type Params = ReadFileParams;
    type Output = ReadFileOutput;
    const SPEC: Spec = Spec::reader(
        "read_file",
        "Read a file",
        Group::Core,
        "Read a file as numbered lines, 100 at a time (start= first line, 1-based; lines= how \
             many), or list a directory. The header says how many lines lie above and below, and the \
             file's version for conflict-checked edits.",
    );

    fn run(call: &Call<'_>, params: ReadFileParams) -> Reply {
        read_file(call.ws, params, call.limits.read_lines).into()
    }

    fn guide(_ws: &Workspace) -> Option<String> {
        Some("read_file shows 100 numbered lines at a time and says what lies above and below. ".into())
    }
}

fn read_file(ws: &Workspace, params: ReadFileParams, default_lines: u64) -> Observation {
    let resolved = match ws.root().resolve(&params.path) {
        Ok(resolved) => resolved,
        Err(err) => return Observation::error(format!("cannot read {err}")),
    };
    // Opened beneath the root's descriptor and used from then on: a folder swapped for a
    // link after the guard looked cannot lead the read outside. O_NONBLOCK: a FIFO's open
    // does not wait, and its type is refused below.
    let opened = ws.root().dir().open_at(&resolved.rel, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty());
    let file = match opened {
        Ok(fd) => std::fs::File::from(fd),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Observation::error(format!(
                "cannot read {}: no such file or directory; list the parent with read_file(path=\"{}\") or find it with search",
                resolved.rel,
                parent_of(&resolved.rel)
            ));
        }
        Err(err) => return Observation::error(format!("cannot read {}: {err}", resolved.rel)),
    };
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(err) => return Observation::error(format!("cannot read {}: {err}", resolved.rel)),
    };
    if meta.is_dir() {
        return list_directory(ws, &resolved);
    }
    if !meta.is_file() {
        return Observation::error(format!(
            "cannot read {}: {}",
            resolved.rel,
            files::special_kind(&meta.file_type())
        ));
    }
    let start = params.start.unwrap_or(1).max(1);
    let count = params.lines.unwrap_or(default_lines).clamp(1, MAX_LINES);
    match read_window(file, meta.len(), &resolved, start, count, ws.versions()) {
        Ok(obs) => obs,
        Err(err) => Observation::error(format!("cannot read {}: {err}", resolved.rel)),
    }
}

fn parent_of(rel: &str) -> &str {
    match rel.rfind('/') {
        Some(i) => &rel[..i],
        None => ".",
    }
}

fn read_window(
    file: std::fs::File,
    size: u64,
    resolved: &ResolvedPath,
    start: u64,
    count: u64,
    versions: &VersionCache,
) -> std::io::Result<Observation> {
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader.fill_buf()?;
    if head[..head.len().min(8_000)].contains(&0) {
        return Ok(Observation::error(format!(
            "cannot read {}: it is a binary file ({} bytes); tack shows text files only",
            resolved.rel, size
        )));
    }
    // Stream the file once: hash every byte, count every line, keep only the window.
    let mut hasher = blake3::Hasher::new();
    // A small file's content is kept by version, so a later conflict can show what changed.
    let mut kept: Option<Vec<u8>> = Some(Vec::new());
    let mut window = String::new();
    let mut line_no: u64 = 0;
    let mut buf = Vec::new();
    let end_wanted = start + count - 1;
    let mut width = 0;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf);
        keep(&mut kept, &buf);
        line_no += 1;
        if line_no >= start && line_no <= end_wanted {
            if width == 0 {
                width = end_wanted.to_string().len();
            }
            let text = String::from_utf8_lossy(&buf);
            let text = text.trim_end_matches('\n').trim_end_matches('\r');
            let text = shorten_line(text);
            window.push_str(&format!("{line_no:>width$}\t{text}\n"));
        }
    }
    // Read anything left (a reader error mid-file is reported, not hidden).
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest)?;
    hasher.update(&rest);
    keep(&mut kept, &rest);
    let total = line_no;
    let version = files::version_of_hash(&hasher.finalize());
    if let Some(content) = kept {
        versions.remember(&content);
    }

    if total == 0 {
        let out = ReadFileOutput {
            path: resolved.rel.clone(),
            kind: "file".into(),
            start: None,
            end: None,
            total: 0,
            version: Some(version),
        };
        let text = format!(
            "[{}: empty file; version {}]",
            shown_path(&resolved.rel),
            out.version.as_deref().unwrap_or("")
        );
        return Ok(Observation::ok(text, json!(out)));
    }
    if start > total {
        return Ok(Observation::error(format!(
            "cannot read {} from line {start}: the file has {total} lines; use start between 1 and {total}",
            resolved.rel
        )));
    }
    let end = end_wanted.min(total);
    // Re-align the numbers when the window ended early (fewer digits than planned).
    if end < end_wanted && end.to_string().len() < width {
        let w = end.to_string().len();
        window = window
            .lines()
            .map(|l| {
                let (n, rest) = l.split_once('\t').unwrap_or((l, ""));
                format!("{:>w$}\t{rest}\n", n.trim())
            })
            .collect();
    }
    let above = start - 1;
    let below = total - end;
    let header = if above == 0 && below == 0 {
        format!("[{}: lines {start}-{end} of {total}; version {version}]", shown_path(&resolved.rel))
    } else {
        format!(
            "[{}: lines {start}-{end} of {total}; {above} above, {below} below; version {version}]",
            resolved.rel
        )
    };
    let out = ReadFileOutput {
        path: resolved.rel.clone(),
        kind: "file".into(),
        start: Some(start),
        end: Some(end),
        total,
        version: Some(version),
    };
    Ok(Observation::ok(format!("{header}\n{window}"), json!(out)))
}

/// Adds `bytes` to the kept content, or gives up keeping once it is too big to cache.
fn keep(kept: &mut Option<Vec<u8>>, bytes: &[u8]) {
    if let Some(content) = kept {
        if content.len() + bytes.len() > files::CACHE_MAX_FILE {
            *kept = None;
        } else {
            content.extend_from_slice(bytes);
        }
    }
}

fn list_directory(ws: &Workspace, resolved: &ResolvedPath) -> Observation {
    let mut entries: Vec<String> = Vec::new();
    let walker = ws.walk_builder(&resolved.abs).max_depth(Some(1)).build();
    for entry in walker.flatten() {
        if entry.depth() == 0 {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        entries.push(if is_dir { format!("{name}/") } else { name });
    }
    entries.sort();
    let total = entries.len();
    let mut text = format!("[{}: directory, {total} entries]\n", shown_path(&resolved.rel));
    for name in entries.iter().take(MAX_ENTRIES) {
        text.push_str(&shown_path(name));
        text.push('\n');
    }
    if total > MAX_ENTRIES {
        text.push_str(&format!(
            "… {} more entries; read a subdirectory, or search with path= to narrow\n",
            total - MAX_ENTRIES
        ));
    }
    let out = ReadFileOutput {
        path: resolved.rel.clone(),
        kind: "directory".into(),
        start: None,
        end: None,
        total: total as u64,
        version: None,
    };
    Observation::ok(text, json!(out))
}

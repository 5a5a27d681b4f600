//! `read_output`: pages through the full text of a result that was cut, by line window or by
//! lines matching a regex.

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::observe::output_store::{Lookup, MAX_BYTES, MAX_HANDLES};
use crate::observe::shape::shorten_line;
use crate::session::Session;
use crate::tool::{Call, Group, Overflow, Reply, Spec, Tool};

/// Lines shown when the call names no count.
pub const DEFAULT_LINES: u64 = 200;
/// The most lines one call may ask for.
pub const MAX_LINES: u64 = 2_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadOutputParams {
    /// The handle from a cut result's marker, such as `h3`.
    pub handle: String,
    /// First line to show, 1-based (default 1); with `grep`, where to start looking.
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub start: Option<u64>,
    /// How many lines to show (default 200, at most 2000).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub lines: Option<u64>,
    /// Keep only lines matching this regular expression.
    #[serde(default)]
    pub grep: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadOutputOutput {
    pub handle: String,
    /// Lines in the full text.
    pub total_lines: u64,
    /// Line numbers shown.
    pub shown: u64,
    /// With `grep`: matching lines from `start` on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matching: Option<u64>,
    /// The line to pass as `start` to continue, when more remain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start: Option<u64>,
}

pub(crate) struct ReadOutput;

impl Tool for ReadOutput {
    type Params = ReadOutputParams;
    type Output = ReadOutputOutput;
    const SPEC: Spec = Spec {
        overflow: Overflow::Cut,
        ..Spec::reader(
            "read_output",
            "Page through cut output",
            Group::Output,
            "Page through the full text of a result that was cut: handle from the cut marker (such \
             as h3), start= first line, lines= how many (default 200), grep= a regex to keep only matching \
             lines.",
        )
    };

    fn run(call: &Call<'_>, params: ReadOutputParams) -> Reply {
        read_output(call.session, params).into()
    }
}

fn read_output(session: &Session, params: ReadOutputParams) -> Observation {
    let handle = params.handle.trim().to_string();
    let text = match session.outputs.lock().expect("outputs lock").get(&handle) {
        Ok(text) => text,
        Err(Lookup::Unknown) => {
            return Observation::error(format!(
                "no output is kept under handle {handle:?} in this session; pass the handle named in a cut result's marker (such as h3)"
            ));
        }
        Err(Lookup::Expired) => {
            return Observation::error(format!(
                "handle {handle} has expired: a session keeps its {MAX_HANDLES} newest cut results ({} MB in all); run the call that produced it again",
                MAX_BYTES / (1024 * 1024)
            ));
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len() as u64;
    let start = params.start.unwrap_or(1).max(1);
    let count = params.lines.unwrap_or(DEFAULT_LINES).clamp(1, MAX_LINES);
    if start > total.max(1) {
        return Observation::error(format!(
            "{handle} has {total} lines; start={start} is past the end, use start between 1 and {total}"
        ));
    }
    let mut body = String::new();
    let shown: u64;
    let mut next_start = None;
    let mut matching = None;
    match params.grep.as_deref().map(str::trim).filter(|g| !g.is_empty()) {
        None => {
            let end = (start + count - 1).min(total);
            let width = end.to_string().len();
            for (i, line) in lines[(start - 1) as usize..end as usize].iter().enumerate() {
                body.push_str(&format!("{:>width$}\t{}\n", start + i as u64, shorten_line(line)));
            }
            shown = end + 1 - start;
            if end < total {
                next_start = Some(end + 1);
            }
            let header = format!(
                "[{handle}: lines {start}-{end} of {total}; {} above, {} below]\n",
                start - 1,
                total - end
            );
            body.insert_str(0, &header);
        }
        Some(pattern) => {
            let re = match Regex::new(pattern) {
                Ok(re) => re,
                Err(err) => {
                    return Observation::error(format!("grep={pattern:?} is not a valid regex: {err}"));
                }
            };
            let mut n_matching = 0u64;
            let mut picked: Vec<(u64, &str)> = Vec::new();
            for (i, line) in lines.iter().enumerate().skip((start - 1) as usize) {
                if !re.is_match(line) {
                    continue;
                }
                n_matching += 1;
                let line_no = i as u64 + 1;
                if (picked.len() as u64) < count {
                    picked.push((line_no, line));
                } else if next_start.is_none() {
                    next_start = Some(line_no);
                }
            }
            let width = picked.last().map_or(1, |(n, _)| n.to_string().len());
            for (line_no, line) in &picked {
                body.push_str(&format!("{line_no:>width$}\t{}\n", shorten_line(line)));
            }
            shown = picked.len() as u64;
            matching = Some(n_matching);
            let mut header =
                format!("[{handle}: {n_matching} of {total} lines match /{pattern}/ from line {start}");
            if n_matching > shown {
                header.push_str(&format!("; showing the first {shown}"));
            }
            header.push_str("]\n");
            body.insert_str(0, &header);
        }
    }
    if let Some(next) = next_start {
        body.push_str(&format!("… more from line {next}: read_output(handle=\"{handle}\", start={next})\n"));
    }
    let out = ReadOutputOutput { handle, total_lines: total, shown, matching, next_start };
    Observation::ok(body, json!(out))
}

//! `run`: a shell command in the root, contained (`contain`) and killed on timeout or
//! cancellation, stdout and stderr merged in the order they were written.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::RunConfig;
use crate::lenient;
use crate::observation::Observation;
use crate::toolbox::{CallContext, Toolbox};

/// The longest timeout a call may ask for, in seconds.
pub const MAX_TIMEOUT_S: u64 = 600;
/// Output kept in memory per command: the first and the last this many bytes.
const KEEP_HEAD: usize = 16 * 1024 * 1024;
const KEEP_TAIL: usize = 16 * 1024 * 1024;
/// After the shell exits, how long to wait for the output pipe to drain.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// The command line, run with `sh -c` in the repository root.
    pub command: String,
    /// Seconds before the command's process group is killed (default 120, at most 600).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub timeout_s: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RunOutput {
    /// The exit code; absent when the command was killed or died of a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True when the timeout killed the command.
    pub timed_out: bool,
    /// True when the client cancelled the call and the command was killed.
    pub cancelled: bool,
    /// Lines of output the command wrote (stdout and stderr together).
    pub output_lines: u64,
}

/// How the command ended.
pub(crate) enum End {
    /// The shell exited: its code, or the signal that ended it.
    Exited(Option<i32>, Option<i32>),
    TimedOut(u64),
    Cancelled,
}

/// A finished command: how it ended and everything it wrote (stdout and stderr merged).
pub(crate) struct Execution {
    pub end: End,
    pub output: String,
}

impl Execution {
    /// The exit code, when the shell exited with one.
    pub fn exit_code(&self) -> Option<i32> {
        match self.end {
            End::Exited(code, _) => code,
            _ => None,
        }
    }

    /// The first line of `run`'s answer: `exit=N`, or how the command was stopped.
    pub fn status_line(&self) -> String {
        match self.end {
            End::Exited(Some(code), _) => format!("exit={code}"),
            End::Exited(None, signal) => format!("exit=killed by signal {}", signal.unwrap_or(0)),
            End::TimedOut(s) => format!("timeout after {s}s (the command's process group was killed)"),
            End::Cancelled => "cancelled (the command's process group was killed)".to_string(),
        }
    }
}

pub fn run(toolbox: &Toolbox, params: RunParams, ctx: &CallContext) -> Observation {
    let command = params.command.trim();
    if command.is_empty() {
        return Observation::error("cannot run an empty command; pass command=\"...\"");
    }
    if let Some(rule) = toolbox.denied(command) {
        return Observation::error(format!(
            "refused: the command matches the deny rule /{rule}/ ([run] deny in tack.toml); nothing was run. \
             If it must run, a person can run it outside tack"
        ));
    }
    let timeout_s = params.timeout_s.unwrap_or(toolbox.config().run.timeout_s).clamp(1, MAX_TIMEOUT_S);
    let execution = match execute(toolbox.root().path(), command, timeout_s, &toolbox.config().run, ctx) {
        Ok(execution) => execution,
        Err(err) => return Observation::error(err),
    };
    let exit_code = execution.exit_code();
    let timed_out = matches!(execution.end, End::TimedOut(_));
    let cancelled = matches!(execution.end, End::Cancelled);
    let mut text = execution.status_line();
    let body = execution.output;
    let output_lines = body.lines().count() as u64;
    text.push('\n');
    if body.is_empty() {
        text.push_str("(no output)\n");
    } else {
        text.push_str(&body);
        if !body.ends_with('\n') {
            text.push('\n');
        }
    }
    let out = RunOutput { exit_code, timed_out, cancelled, output_lines };
    Observation::ok(text, json!(out))
}

/// Runs `command` with `sh -c` in `dir`, in its own process group, which is SIGKILLed on
/// timeout, on cancellation, and after the shell exits (so nothing it started lingers).
/// Reports progress every 5 s. Fails only when the command cannot be started.
pub(crate) fn execute(
    dir: &std::path::Path,
    command: &str,
    timeout_s: u64,
    policy: &RunConfig,
    ctx: &CallContext,
) -> Result<Execution, String> {
    let (reader, writer) =
        std::io::pipe().map_err(|err| format!("cannot run: no pipe for the output ({err})"))?;
    let writer_err =
        writer.try_clone().map_err(|err| format!("cannot run: no pipe for the output ({err})"))?;
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_err)
        .env("PAGER", "cat")
        .env("GIT_PAGER", "cat")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .process_group(0);
    for name in scrubbed(std::env::vars_os().map(|(name, _)| name), &policy.pass_env) {
        cmd.env_remove(name);
    }
    let scratch = crate::contain::scratch_dir();
    for name in ["TMPDIR", "TMP", "TEMP"] {
        cmd.env(name, scratch);
    }
    let mut writable = vec![dir.to_path_buf(), scratch.to_path_buf()];
    writable.extend(policy.writable.iter().cloned());
    // The folder the user told cargo to build in, wherever it is.
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        writable.push(dir.join(target));
    }
    crate::contain::contain(&mut cmd, policy.network, &writable)
        .map_err(|err| format!("cannot run: {err}"))?;
    let mut child = cmd.spawn().map_err(|err| format!("cannot start /bin/sh: {err}"))?;
    // Drop our copies of the write end, so the pipe closes when the group is gone.
    drop(cmd);
    let pgid = child.id() as i32;

    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut reader = reader;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });

    let started = Instant::now();
    let deadline = started + Duration::from_secs(timeout_s);
    let mut capture = Capture::default();
    let mut last_progress = started;
    let end = loop {
        match rx.recv_timeout(Duration::from_millis(25)) {
            Ok(chunk) => capture.push(&chunk),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {}
        }
        if let Ok(Some(status)) = child.try_wait() {
            use std::os::unix::process::ExitStatusExt;
            break End::Exited(status.code(), status.signal());
        }
        if ctx.cancel.is_cancelled() {
            kill_group(pgid);
            let _ = child.wait();
            break End::Cancelled;
        }
        if Instant::now() >= deadline {
            kill_group(pgid);
            let _ = child.wait();
            break End::TimedOut(timeout_s);
        }
        if last_progress.elapsed() >= Duration::from_secs(5) {
            last_progress = Instant::now();
            let secs = started.elapsed().as_secs();
            ctx.progress(secs as f64, Some(timeout_s as f64), &format!("running for {secs} s"));
        }
    };
    // Whatever the shell left running in its group dies with it, so the pipe can close.
    kill_group(pgid);
    let drain_until = Instant::now() + DRAIN_GRACE;
    while let Some(left) = drain_until.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(chunk) => capture.push(&chunk),
            Err(_) => break,
        }
    }
    Ok(Execution { end, output: capture.into_text() })
}

/// Parts of a variable name that mark a credential (matched case-insensitively), as in Codex's
/// shell environment policy and a little wider.
const CREDENTIAL_MARKS: &[&str] =
    &["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "PRIVATE"];

/// The names among `names` that look like credentials and are not passed on by name.
pub(crate) fn scrubbed(
    names: impl Iterator<Item = std::ffi::OsString>,
    pass_env: &[String],
) -> Vec<std::ffi::OsString> {
    names
        .filter(|name| {
            is_credential_name(&name.to_string_lossy())
                && !pass_env.iter().any(|pass| pass.as_str() == name.to_string_lossy())
        })
        .collect()
}

/// Whether an environment variable's name looks like it holds a credential.
pub(crate) fn is_credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_MARKS.iter().any(|mark| upper.contains(mark))
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; it has no memory effects.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// The command's output: all of it up to a bound, then the first and last parts.
#[derive(Default)]
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    dropped: usize,
}

impl Capture {
    fn push(&mut self, chunk: &[u8]) {
        let room = KEEP_HEAD.saturating_sub(self.head.len());
        let (to_head, rest) = chunk.split_at(room.min(chunk.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        if self.tail.len() > KEEP_TAIL {
            let excess = self.tail.len() - KEEP_TAIL;
            self.tail.drain(..excess);
            self.dropped += excess;
        }
    }

    fn into_text(self) -> String {
        let mut bytes = self.head;
        if self.dropped > 0 {
            bytes.extend_from_slice(
                format!(
                    "\n[… {} bytes of output were not kept: tack keeps the first and last 16 MB …]\n",
                    self.dropped
                )
                .as_bytes(),
            );
        }
        bytes.extend(self.tail);
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_like_names_are_scrubbed_unless_passed_by_name() {
        // (name, scrubbed when nothing is passed)
        let names = [
            ("PATH", false),
            ("HOME", false),
            ("OPENAI_API_KEY", true),
            ("GITHUB_TOKEN", true),
            ("AWS_SECRET_ACCESS_KEY", true),
            ("PGPASSWORD", true),
            ("GOOGLE_APPLICATION_CREDENTIALS", true),
            ("SSH_AUTH_SOCK", true),
            ("npm_config__authToken", true),
            ("CARGO_TARGET_DIR", false),
            ("LANG", false),
        ];
        let scrub = |pass: &[String]| -> Vec<String> {
            scrubbed(names.iter().map(|(n, _)| std::ffi::OsString::from(n)), pass)
                .into_iter()
                .map(|n| n.to_string_lossy().into_owned())
                .collect()
        };
        let expected: Vec<&str> = names.iter().filter(|(_, s)| *s).map(|(n, _)| *n).collect();
        assert_eq!(scrub(&[]), expected);
        let passed = scrub(&["GITHUB_TOKEN".to_string()]);
        assert_eq!(passed.len(), expected.len() - 1);
        assert!(!passed.contains(&"GITHUB_TOKEN".to_string()));
    }
}

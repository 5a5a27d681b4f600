//! Running a shell command in the root: contained (`contain`), in its own process group that is
//! killed on timeout, cancellation and exit, stdout and stderr merged in the order written.
//! Shared by `run` and `verify`.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::call_context::CallContext;
use crate::observe::redact::{is_credential_name, is_credential_value};
use crate::process::contain::Reach;
use crate::process::view;
use crate::workspace::Workspace;
use crate::workspace::config::RunConfig;
use crate::workspace::protected::{self, Protection};

/// Output kept in memory per command: the first and the last this many bytes.
const KEEP_HEAD: usize = 16 * 1024 * 1024;
const KEEP_TAIL: usize = 16 * 1024 * 1024;
/// After the shell exits, how long to wait for the output pipe to drain.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Why a command did not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum StartError {
    #[error("cannot run: no pipe for the output ({0})")]
    Pipe(std::io::Error),
    #[error("cannot run: {0}")]
    Contain(crate::process::contain::ContainError),
    #[error("cannot start /bin/sh: {0}")]
    Spawn(std::io::Error),
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
    /// What tack undid after the command (protected paths it made), a line each.
    pub removed: Vec<String>,
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

/// Runs `command` with `sh -c` in `dir`, in its own process group, which is SIGKILLed on
/// timeout, on cancellation, and after the shell exits (so nothing it started lingers).
/// Reports progress every 5 s. Fails only when the command cannot be started.
pub(crate) fn execute(
    ws: &Workspace,
    command: &str,
    timeout_s: u64,
    ctx: &CallContext,
) -> Result<Execution, StartError> {
    let dir = ws.root().path();
    let policy: &RunConfig = &ws.config().run;
    let (reader, writer) = std::io::pipe().map_err(StartError::Pipe)?;
    let writer_err = writer.try_clone().map_err(StartError::Pipe)?;
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
    for name in scrubbed(std::env::vars_os(), &policy.pass_env) {
        cmd.env_remove(name);
    }
    let scratch = crate::process::contain::scratch_dir();
    for name in ["TMPDIR", "TMP", "TEMP"] {
        cmd.env(name, scratch);
    }
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    // The JVM ignores TMPDIR and writes /tmp, and takes its home from the password database, not
    // $HOME, around which a command's view is built: Gradle's and Maven's launchers pass these
    // options to it (with no note on stderr, unlike JAVA_TOOL_OPTIONS).
    let jvm_home = home
        .as_deref()
        .and_then(std::path::Path::to_str)
        .filter(|h| !h.contains(char::is_whitespace))
        .map(|h| format!(" -Duser.home={h}"))
        .unwrap_or_default();
    for name in ["GRADLE_OPTS", "MAVEN_OPTS"] {
        let inherited = std::env::var(name).unwrap_or_default();
        cmd.env(name, format!("{inherited} -Djava.io.tmpdir={}{jvm_home}", scratch.display()).trim_start());
    }
    let mut granted = policy.writable.clone();
    // The folder the user told cargo to build in, wherever it is.
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        granted.push(dir.join(target));
    }
    let mut writable = vec![dir.to_path_buf(), scratch.to_path_buf()];
    writable.extend(granted.iter().cloned());
    // Written directly only where the kernel gives no mount namespace; otherwise a command
    // writes tack's layer over each (`cache_layers`).
    writable.extend(ws.toolchain_caches().iter().cloned());
    let protection =
        if ws.config().allow_protected_writes { Protection::default() } else { protected::protection(dir) };
    // tack's own state (the HTTP token among it) is no command's business either.
    let own_state: Vec<_> = ws.state_dir().map(std::path::Path::to_path_buf).into_iter().collect();
    let extra: Vec<_> = policy.unreadable.iter().chain(&own_state).cloned().collect();
    let hidden = protected::unreadable(home.as_deref(), &extra, &policy.readable);
    let linked = ws.linked_outside();
    let read_only: Vec<_> = protection.read_only.iter().chain(linked.iter()).cloned().collect();
    let caches = cache_layers(ws);
    let path = std::env::var_os("PATH");
    let sight = view::Sight {
        root: dir,
        scratch,
        home: home.as_deref(),
        path: path.as_deref(),
        writable: &granted,
        readable: &policy.readable,
        caches: &caches,
        network: policy.network,
    };
    let view = view::view(&sight);
    let reach = Reach {
        view: &view,
        cwd: dir,
        writable: &writable,
        pinned: &protection.pinned,
        read_only: &read_only,
        hidden: &hidden,
    };
    crate::process::contain::contain(&mut cmd, policy.network, &reach).map_err(StartError::Contain)?;
    let mut child = cmd.spawn().map_err(StartError::Spawn)?;
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
    let removed = protected::remove_new(dir, &protection);
    ws.refresh_linked();
    Ok(Execution { end, output: capture.into_text(), removed })
}

/// The build caches the root's projects write (Go's, Gradle's, Maven's, cargo's, the package
/// managers'), each with tack's layer over it for this root; a cache whose layer cannot be made
/// is not shown. Only these: an overlay costs a command's start about a millisecond.
fn cache_layers(ws: &Workspace) -> Vec<view::Cache> {
    let base = ws.state_dir().unwrap_or(crate::process::contain::scratch_dir()).join("layers");
    let copied = !crate::process::contain::overlays_work();
    ws.toolchain_caches()
        .iter()
        .filter_map(|path| {
            let made = view::cache_layer(&base, ws.root().path(), path).and_then(|layer| {
                if copied && path.is_dir() {
                    let started = Instant::now();
                    let files = view::copy_cache(path, &layer)?;
                    if files > 0 {
                        tracing::info!(
                            "copied {} ({files} files, {:.1} s) for this root's commands: overlays are refused here",
                            path.display(),
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
                Ok(layer)
            });
            match made {
                Ok(layer) => Some(view::Cache { path: path.clone(), layer, copied }),
                Err(err) => {
                    tracing::warn!("commands do not see {}: cannot make tack's layer over it: {err}", path.display());
                    None
                }
            }
        })
        .collect()
}

/// The names among `vars` whose name or value looks like a credential and that are not passed
/// on by name.
pub(crate) fn scrubbed(
    vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    pass_env: &[String],
) -> Vec<std::ffi::OsString> {
    vars.filter(|(name, value)| {
        (is_credential_name(&name.to_string_lossy()) || is_credential_value(&value.to_string_lossy()))
            && !pass_env.iter().any(|pass| pass.as_str() == name.to_string_lossy())
    })
    .map(|(name, _)| name)
    .collect()
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
            ("PWD", false),
            ("OLDPWD", false),
            ("MYSQL_PWD", true),
            ("SENTRY_DSN", true),
            ("CI_JOB_JWT", true),
            ("GH_PAT", true),
            ("PATHEXT", false),
            ("SSH_PASS", true),
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
            scrubbed(names.iter().map(|(n, _)| (std::ffi::OsString::from(n), "v".into())), pass)
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

    #[test]
    fn a_url_carrying_a_password_is_scrubbed_whatever_its_name() {
        let vars = [
            ("DATABASE_URL", "postgres://app:hunter2@db:5432/app", true),
            ("REDIS", "redis://:hunter2@cache:6379", true),
            ("MIRROR", "https://user@example.com/simple", false),
            ("HOMEPAGE", "https://example.com/a:b@c", false),
            ("PROXY", "http://proxy:3128", false),
            ("NOTE", "a:b@c", false),
        ];
        let found = scrubbed(
            vars.iter().map(|(n, v, _)| (std::ffi::OsString::from(n), std::ffi::OsString::from(v))),
            &[],
        );
        let expected: Vec<std::ffi::OsString> = vars.iter().filter(|v| v.2).map(|v| v.0.into()).collect();
        assert_eq!(found, expected);
    }
}

//! Every command tack starts runs as process 1 of a PID namespace of its own, so the kernel ends
//! everything it started when it ends: when its shell exits, when tack kills it on a timeout or
//! a cancel, and when tack itself dies (each level has `PR_SET_PDEATHSIG`). `setsid`, double
//! forks and daemons cannot outlive their call. Where the kernel refuses a namespace (no
//! privilege, user namespaces disabled), commands run in a process group only, as tack says
//! once in its log.
//!
//! The namespace is entered between fork and exec: the forked child unshares, forks the
//! namespace's process 1 (which goes on to exec the shell), closes every descriptor, and waits
//! for it, leaving with its exit status. Only async-signal-safe calls happen there.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::OnceLock;

/// How commands are contained on this machine, probed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Containment {
    /// A new PID namespace (tack has the privilege for it).
    PidNamespace,
    /// A new user namespace mapping tack's own ids, and a PID namespace inside it.
    UserAndPidNamespace,
    /// Neither is allowed: a process group only, which `setsid` escapes.
    ProcessGroup,
}

impl Containment {
    /// One line for the log and the `run` description.
    pub fn describe(self) -> &'static str {
        match self {
            Containment::PidNamespace | Containment::UserAndPidNamespace => {
                "each command runs in its own PID namespace: nothing it starts outlives it"
            }
            Containment::ProcessGroup => {
                "the kernel refused a PID namespace, so commands run in a process group only; a process that calls setsid can outlive its command"
            }
        }
    }
}

/// The containment this machine allows, found by starting `true` each way once.
pub fn containment() -> Containment {
    static FOUND: OnceLock<Containment> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let found = [Containment::PidNamespace, Containment::UserAndPidNamespace]
            .into_iter()
            .find(|&mode| {
                let mut probe = Command::new("/bin/sh");
                probe.args(["-c", "exit 0"]);
                apply(&mut probe, mode);
                probe.status().is_ok_and(|s| s.success())
            })
            .unwrap_or(Containment::ProcessGroup);
        if found == Containment::ProcessGroup {
            tracing::warn!("{}", found.describe());
        } else {
            tracing::debug!(?found, "{}", found.describe());
        }
        found
    })
}

/// Makes `cmd` run contained the way this machine allows.
pub(crate) fn contain(cmd: &mut Command) {
    apply(cmd, containment());
}

fn apply(cmd: &mut Command, mode: Containment) {
    // Formatted here, before the fork: the child may not allocate.
    // SAFETY: getuid and getgid cannot fail and touch no memory.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let uid_map = format!("{uid} {uid} 1\n").into_bytes();
    let gid_map = format!("{gid} {gid} 1\n").into_bytes();
    // SAFETY: the hook runs between fork and exec and makes only async-signal-safe calls
    // (prctl, unshare, open, write, close, fork, waitpid, signal, kill, _exit) on memory
    // prepared before the fork.
    unsafe {
        cmd.pre_exec(move || enter(mode, &uid_map, &gid_map));
    }
}

/// Runs in the forked child. Returns in the process that goes on to exec the command.
///
/// # Safety
/// Only between fork and exec.
unsafe fn enter(mode: Containment, uid_map: &[u8], gid_map: &[u8]) -> io::Result<()> {
    // SAFETY (whole body): async-signal-safe calls on memory this process owns; see `apply`.
    unsafe {
        // Die with the tack thread that started this command.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        match mode {
            Containment::ProcessGroup => return Ok(()),
            Containment::PidNamespace => {
                if libc::unshare(libc::CLONE_NEWPID) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Containment::UserAndPidNamespace => {
                if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWPID) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // Keep tack's own user and group inside, so files and tools see no stranger.
                write_proc(c"/proc/self/setgroups", b"deny")?;
                write_proc(c"/proc/self/uid_map", uid_map)?;
                write_proc(c"/proc/self/gid_map", gid_map)?;
            }
        }
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // Process 1 of the namespace: dies when the process waiting for it dies, and
            // takes the whole namespace with it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
            return Ok(());
        }
        // The waiting process holds nothing open (not the pipe std uses to report a failed
        // exec, nor the output pipe), then leaves as the command did.
        libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
        let mut status = 0;
        loop {
            let waited = libc::waitpid(pid, &mut status, 0);
            if waited == pid {
                break;
            }
            if waited < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        libc::_exit(128)
    }
}

/// Writes `bytes` to a `/proc` file, async-signal-safely.
///
/// # Safety
/// Only between fork and exec.
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open, write and close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `sh -c script` prints when contained by `mode`.
    fn output(mode: Containment, script: &str) -> String {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script]);
        apply(&mut cmd, mode);
        let out = cmd.output().expect("the contained shell runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    #[test]
    fn each_mode_runs_the_command_with_its_exit_code_and_the_users_own_ids() {
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let ids = format!("{uid} {gid}\n");
        for mode in [Containment::PidNamespace, Containment::UserAndPidNamespace] {
            // Where this machine refuses the mode, `containment()` does not pick it.
            let mut probe = Command::new("/bin/true");
            apply(&mut probe, mode);
            if !probe.status().is_ok_and(|s| s.success()) {
                continue;
            }
            assert_eq!(output(mode, "echo $$"), "1\n", "{mode:?}: the shell is process 1");
            assert_eq!(output(mode, "echo $(id -u) $(id -g)"), ids, "{mode:?}");
            let mut cmd = Command::new("/bin/sh");
            cmd.args(["-c", "exit 7"]);
            apply(&mut cmd, mode);
            assert_eq!(cmd.status().unwrap().code(), Some(7), "{mode:?}: the exit code passes through");
        }
        assert_ne!(output(Containment::ProcessGroup, "echo $$"), "1\n");
    }
}

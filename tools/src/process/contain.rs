//! Every command tack starts runs as process 1 of a PID namespace of its own, so the kernel ends
//! everything it started when it ends: when its shell exits, when tack kills it on a timeout or
//! a cancel, and when tack itself dies (each level has `PR_SET_PDEATHSIG`). `setsid`, double
//! forks and daemons cannot outlive their call. Unless network is allowed, it also gets a
//! network namespace of its own with only a loopback interface: nothing outside is reachable,
//! and servers it starts on localhost still work. Where the kernel refuses a namespace (no
//! privilege, user namespaces disabled), commands run in a process group only, as tack says
//! once in its log.
//!
//! Where the kernel has Landlock, a command may also write only beneath the folders it is given
//! (the repository root, its scratch folder, what the user added) and a few devices such as
//! `/dev/null`; everywhere else the kernel refuses with `EACCES`, whatever the command line says.
//! Reads are not restricted.
//!
//! The namespace is entered between fork and exec: the forked child unshares, forks the
//! namespace's process 1 (which goes on to exec the shell), closes every descriptor, and waits
//! for it, leaving with its exit status. Only async-signal-safe calls happen there. Last before
//! exec, `seccomp::seal` gives the command a session, keyring and descriptors of its own and
//! its system call filter.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::process::{mounts, seccomp, view};
use landlock::{
    ABI, AccessFs, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, path_beneath_rules,
};

/// How commands are contained on this machine, probed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Containment {
    /// New namespaces: PID, network when `network` (no way out but loopback), a user
    /// namespace mapping tack's own ids when `user` (even as root: its capabilities then reach
    /// nothing outside), and with `mounts` mount, UTS and IPC namespaces: a private `/dev`,
    /// `/dev/shm` and `/proc`, git's hooks and config read-only, the user's credentials hidden.
    Namespaces { user: bool, network: bool, mounts: bool },
    /// No namespace is allowed: a process group only, which `setsid` escapes.
    ProcessGroup,
}

impl Containment {
    /// One line for the log and the instructions.
    pub fn describe(self) -> &'static str {
        match self {
            Containment::Namespaces { network: true, mounts: true, .. } => {
                "each command runs in its own PID, network, mount, UTS and IPC namespaces without capabilities: nothing it starts outlives it, it reaches no network but its own loopback, and it sees only the system's folders read-only, the repository, its scratch folder as /tmp, an empty home with its toolchains read-only, tack's own layer over build caches, its own /dev, /dev/shm and /proc, and git's hooks and config read-only"
            }
            Containment::Namespaces { network: true, mounts: false, .. } => {
                "each command runs in its own PID and network namespaces (the kernel refused a mount namespace, so commands see the host's /dev and /proc, the user's credential stores, and may change git's hooks and config)"
            }
            Containment::Namespaces { network: false, .. } => {
                "each command runs in its own PID namespace (the kernel refused a network namespace, so commands reach the network)"
            }
            Containment::ProcessGroup => {
                "the kernel refused a PID namespace, so commands run in a process group only: a process that calls setsid can outlive its command, and commands reach the network"
            }
        }
    }

    /// Whether commands are cut off from the network (unless a call's policy allows it).
    pub fn isolates_network(self) -> bool {
        matches!(self, Containment::Namespaces { network: true, .. })
    }
}

/// The containment this machine allows, found by starting `sh -c 'exit 0'` each way once.
pub fn containment() -> Containment {
    static FOUND: OnceLock<Containment> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let found = MODES.into_iter().find(|&mode| works(mode)).unwrap_or(Containment::ProcessGroup);
        if found.isolates_network() {
            tracing::debug!(?found, "{}", found.describe());
        } else {
            tracing::warn!("{}", found.describe());
        }
        found
    })
}

/// The ways of containing a command, best first: a user namespace even as root, so that what
/// a command's capabilities reach is its own namespaces only.
const MODES: [Containment; 8] = {
    let mut modes = [Containment::ProcessGroup; 8];
    let mut i = 0;
    while i < 8 {
        modes[i] = Containment::Namespaces { mounts: i < 4, network: i % 4 < 2, user: i % 2 == 0 };
        i += 1;
    }
    modes
};

/// Whether a command contained by `mode` runs here, with a read-only bind and a hidden store.
fn works(mode: Containment) -> bool {
    let mut probe = Command::new("/bin/sh");
    probe.args(["-c", "exit 0"]);
    apply(&mut probe, mode, None, None, probe_plan());
    probe.status().is_ok_and(|s| s.success())
}

/// Whether a command's view can lay an overlay over a build cache here (unprivileged overlayfs,
/// Linux 5.11 and later), found once by a command writing through one; `TACK_OVERLAYS=0` says
/// no, to use (and test) the copies made where they are refused.
pub(crate) fn overlays_work() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        if std::env::var_os("TACK_OVERLAYS").is_some_and(|v| v == "0") {
            return false;
        }
        if !matches!(containment(), Containment::Namespaces { mounts: true, .. }) {
            return false;
        }
        let probe = scratch_dir().join("overlay-probe");
        let (lower, layer) = (probe.join("lower"), probe.join("layer"));
        let made = [lower.clone(), layer.join("upper"), layer.join("work")]
            .iter()
            .all(|dir| std::fs::create_dir_all(dir).is_ok());
        let cache = view::Cache { path: lower.clone(), layer: layer.clone(), copied: false };
        let scratch = scratch_dir();
        let sight = view::Sight { caches: std::slice::from_ref(&cache), ..view::Sight::new(scratch, scratch) };
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", &format!("echo x > '{}/written'", lower.display())]);
        let none: &[&Path] = &[];
        let plan = mounts::Plan::new(&view::view(&sight), scratch, none, none, none);
        apply(&mut cmd, containment(), None, None, plan);
        let works = made
            && cmd.status().is_ok_and(|s| s.success())
            && layer.join("upper/written").exists()
            && !lower.join("written").exists();
        let _ = std::fs::remove_dir_all(&probe);
        if !works {
            tracing::warn!(
                "the kernel refuses overlays in commands' namespaces: each root gets a copy of the build caches it uses"
            );
        }
        works
    })
}

/// The mounts of a probe: the system's folders and the scratch folder, pinned and read-only.
pub(super) fn probe_plan() -> mounts::Plan {
    let scratch = scratch_dir();
    let sight = view::Sight::new(scratch, scratch);
    mounts::Plan::new(&view::view(&sight), scratch, &[scratch], &[scratch], &[] as &[&Path])
}

/// What the kernel here does not enforce for commands, for the end of `run`'s description the
/// model reads: empty where every boundary holds.
pub fn caveats(containment: Containment, confines_writes: bool, filters_syscalls: bool) -> String {
    let mut gaps = Vec::new();
    if containment == Containment::ProcessGroup {
        gaps.push("a process that calls setsid can outlive its command");
    }
    if !containment.isolates_network() {
        gaps.push("commands reach the network");
    }
    if !matches!(containment, Containment::Namespaces { mounts: true, .. }) {
        gaps.push("commands see the host's whole filesystem (the user's credential stores and sockets included), write the user's build caches directly and can change git's hooks and config");
    }
    if !confines_writes {
        gaps.push("commands can write outside the repository");
    }
    if !filters_syscalls {
        gaps.push("with no system call filter, commands can make user namespaces, use the user's keyring, io_uring and bpf, and type into tack's terminal");
    }
    if gaps.is_empty() { String::new() } else { format!(" On this machine {}.", gaps.join(", ")) }
}

/// Why a command cannot be contained as promised.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ContainError {
    #[error("cannot confine the command's writes: {0}")]
    Writes(RulesetError),
    #[error(transparent)]
    Syscalls(&'static seccomp::FilterError),
}

/// What a command may touch beyond the machine-wide rules: what it sees at all, where it may
/// write, what it sees read-only (or pinned, so it cannot be swapped) and what it cannot read.
#[derive(Debug)]
pub(crate) struct Reach<'a> {
    /// Its filesystem, where mount namespaces work: nothing else exists for it.
    pub view: &'a [view::Mount],
    /// The folder it starts in.
    pub cwd: &'a Path,
    /// Folders it may write beneath (Landlock).
    pub writable: &'a [PathBuf],
    /// Folders bound over themselves, so they cannot be renamed or removed.
    pub pinned: &'a [PathBuf],
    /// Files and folders it sees read-only.
    pub read_only: &'a [PathBuf],
    /// Files and folders it sees empty.
    pub hidden: &'a [PathBuf],
}

/// Makes `cmd` run contained the way this machine allows; with `network`, in the host's
/// network namespace. Where Landlock works, it may write only beneath `reach.writable`; where
/// mount namespaces work, it sees `reach.read_only` read-only and `reach.hidden` empty.
/// Fails, so the command does not start, when this machine confines writes and this command's
/// rules cannot be made: it never runs with less than the log and the instructions promise.
pub(crate) fn contain(cmd: &mut Command, network: bool, reach: &Reach<'_>) -> Result<(), ContainError> {
    let mode = match containment() {
        Containment::Namespaces { user, mounts, .. } if network => {
            Containment::Namespaces { user, network: false, mounts }
        }
        mode => mode,
    };
    let ruleset = if confines_writes() {
        Some(write_ruleset(reach.writable).map_err(ContainError::Writes)?)
    } else {
        None
    };
    let filter = seccomp::filter().map_err(ContainError::Syscalls)?;
    apply(
        cmd,
        mode,
        ruleset,
        filter,
        mounts::Plan::new(reach.view, reach.cwd, reach.pinned, reach.read_only, reach.hidden),
    );
    Ok(())
}

/// The Landlock rights tack handles: writing a file, making, removing, renaming across folders
/// and truncating anything (Landlock ABI 4; an older kernel enforces what it knows). Device
/// ioctls stay allowed, since terminals need them.
const WRITE_ABI: ABI = ABI::V4;

/// The rights a command has where it may write: all of [`WRITE_ABI`]'s but making devices,
/// which no command may do anywhere (a device node is a way to every disk).
fn write_rights(abi: ABI) -> landlock::BitFlags<AccessFs> {
    AccessFs::from_write(abi) & !(AccessFs::MakeChar | AccessFs::MakeBlock)
}

/// The Landlock ABI this kernel has, capped at [`WRITE_ABI`]: the rights a rule added in the
/// child may name.
fn kernel_abi() -> ABI {
    static FOUND: OnceLock<ABI> = OnceLock::new();
    *FOUND.get_or_init(|| {
        // SAFETY: landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION reads no memory.
        let version =
            unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, 1u32) };
        match version {
            ..=0 => ABI::Unsupported,
            1 => ABI::V1,
            2 => ABI::V2,
            3 => ABI::V3,
            _ => WRITE_ABI,
        }
    })
}

/// Devices every command may write to, besides its folders.
const DEVICES: &[&str] =
    &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/shm"];

/// A Landlock ruleset that lets a process write only beneath `writable` and to [`DEVICES`].
/// Paths that do not exist are left out.
fn write_ruleset(writable: &[PathBuf]) -> Result<RulesetCreated, RulesetError> {
    let access = AccessFs::from_write(WRITE_ABI);
    Ruleset::default()
        .handle_access(access)?
        .create()?
        .add_rules(path_beneath_rules(writable, write_rights(WRITE_ABI)))?
        .add_rules(path_beneath_rules(DEVICES, write_rights(WRITE_ABI)))
}

/// Whether commands are confined by Landlock on this machine: the kernel accepts a ruleset and
/// a shell started under it runs. Probed once; where it is not, tack says so in its log.
pub fn confines_writes() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let works = write_ruleset(&[scratch_dir().to_path_buf()]).is_ok_and(|ruleset| {
            // Without Landlock in the kernel the crate makes no ruleset descriptor.
            let Ok(copy) = ruleset.try_clone() else { return false };
            if Option::<std::os::fd::OwnedFd>::from(copy).is_none() {
                return false;
            }
            let mut probe = Command::new("/bin/sh");
            probe.args(["-c", "exit 0"]);
            apply(&mut probe, Containment::ProcessGroup, Some(ruleset), None, mounts::Plan::default());
            probe.status().is_ok_and(|s| s.success())
        });
        if works {
            tracing::debug!(
                "commands may write only inside the repository and their scratch folder (Landlock)"
            );
        } else {
            tracing::warn!("the kernel has no Landlock, so commands may write anywhere the user may");
        }
        works
    })
}

/// The folder commands get as `TMPDIR`, one per server process, made once with mode 0700 in
/// the system's temporary folder. Those of servers that are gone are removed first.
pub fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::temp_dir();
        let prefix = "tack-scratch-";
        for entry in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else { continue };
            let pid = rest.split('-').next().unwrap_or("");
            if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        // A new folder of our own, never one that was there before (another user's, or a link
        // someone placed under a predictable name): it becomes writable for every command.
        let mut builder = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        let pid = std::process::id();
        for attempt in 0..100u32 {
            let dir = match attempt {
                0 => base.join(format!("{prefix}{pid}")),
                n => base.join(format!("{prefix}{pid}-{n}")),
            };
            match builder.create(&dir) {
                Ok(()) => return dir,
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(err) => {
                    tracing::warn!("cannot make the scratch folder {}: {err}", dir.display());
                    break;
                }
            }
        }
        // A path that does not exist: commands get no scratch folder, and no rule is made for it.
        tracing::warn!("commands have no scratch folder of tack's own in {}", base.display());
        base.join(format!("{prefix}{pid}-none"))
    })
}

pub(super) fn apply(
    cmd: &mut Command,
    mode: Containment,
    ruleset: Option<RulesetCreated>,
    filter: Option<&'static seccomp::Filter>,
    plan: mounts::Plan,
) {
    // Formatted here, before the fork: the child may not allocate.
    // SAFETY: getuid and getgid cannot fail and touch no memory.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let uid_map = format!("{uid} {uid} 1\n").into_bytes();
    let gid_map = format!("{gid} {gid} 1\n").into_bytes();
    // The kernel makes a ruleset's descriptor close-on-exec; the child confines itself with it.
    let ruleset: Option<std::os::fd::OwnedFd> = ruleset.and_then(Option::from);
    let rights = write_rights(kernel_abi()).bits();
    // SAFETY: the hook runs between fork and exec and makes only async-signal-safe calls
    // (prctl, unshare, open, write, close, mount, mkdir, symlink, statfs, fork, waitpid,
    // signal, kill, _exit, setsid, fcntl and the Landlock, capset, keyctl, close_range and
    // seccomp system calls) on memory prepared before the fork (the filter was compiled once,
    // before any fork).
    unsafe {
        cmd.pre_exec(move || {
            let fd = ruleset.as_ref().map(std::os::fd::AsRawFd::as_raw_fd);
            enter(mode, &uid_map, &gid_map, fd, rights, filter, &plan)
        });
    }
}

/// Confines this process and all it starts: its own rule for the private `/dev/shm` and
/// `/dev/pts` when it has them, then `no_new_privs` (setuid programs raise nothing), the
/// Landlock ruleset, and no capability at all (bounding, ambient, permitted, effective and
/// inheritable sets emptied), so even root can make no device and change no hostname.
///
/// # Safety
/// Only between fork and exec.
unsafe fn confine(ruleset: Option<i32>, rights: u64, plan: Option<&mounts::Plan>) -> io::Result<()> {
    // SAFETY (whole body): prctl and raw system calls on stack memory that outlives them.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(fd) = ruleset {
            if let Some(plan) = plan {
                for folder in [c"/dev/shm", c"/dev/pts"] {
                    allow_beneath(fd, folder, rights)?;
                }
                for folder in mounts::writable(plan) {
                    allow_beneath(fd, folder, rights)?;
                }
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        // Capabilities beyond the last one this kernel knows answer EINVAL; that is the end.
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0);
        }
        libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong, 0, 0, 0);
        // _LINUX_CAPABILITY_VERSION_3: two 32-bit halves of effective, permitted, inheritable.
        let header: [u32; 2] = [0x2008_0522, 0];
        let data = [0u32; 6];
        if libc::syscall(libc::SYS_capset, header.as_ptr(), data.as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Adds a Landlock rule letting the process write beneath `folder`.
///
/// # Safety
/// Only between fork and exec.
unsafe fn allow_beneath(ruleset: i32, folder: &std::ffi::CStr, rights: u64) -> io::Result<()> {
    /// `struct landlock_path_beneath_attr`, packed as the kernel declares it.
    #[repr(C, packed)]
    struct PathBeneath {
        allowed_access: u64,
        parent_fd: i32,
    }
    // SAFETY: open, a Landlock system call on a stack struct, and close.
    unsafe {
        let fd = libc::open(folder.as_ptr(), libc::O_PATH | libc::O_CLOEXEC | libc::O_DIRECTORY);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let rule = PathBeneath { allowed_access: rights, parent_fd: fd };
        // LANDLOCK_RULE_PATH_BENEATH is 1.
        let added =
            libc::syscall(libc::SYS_landlock_add_rule, ruleset, 1u32, &rule as *const PathBeneath, 0u32);
        let error = io::Error::last_os_error();
        libc::close(fd);
        if added == 0 { Ok(()) } else { Err(error) }
    }
}

/// Runs in the forked child. Returns in the process that goes on to exec the command.
///
/// # Safety
/// Only between fork and exec.
unsafe fn enter(
    mode: Containment,
    uid_map: &[u8],
    gid_map: &[u8],
    ruleset: Option<i32>,
    rights: u64,
    filter: Option<&seccomp::Filter>,
    plan: &mounts::Plan,
) -> io::Result<()> {
    // SAFETY (whole body): async-signal-safe calls on memory this process owns; see `apply`.
    unsafe {
        // Die with the tack thread that started this command.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
        let Containment::Namespaces { user, network, mounts } = mode else {
            // tack kills the command by its process group here, so it keeps the session.
            confine(ruleset, rights, None)?;
            return seccomp::seal(false, filter);
        };
        let mut flags = libc::CLONE_NEWPID;
        if user {
            flags |= libc::CLONE_NEWUSER;
        }
        if network {
            flags |= libc::CLONE_NEWNET;
        }
        if mounts {
            flags |= libc::CLONE_NEWNS | libc::CLONE_NEWUTS | libc::CLONE_NEWIPC;
        }
        if libc::unshare(flags) != 0 {
            return Err(io::Error::last_os_error());
        }
        if user {
            // Keep tack's own user and group inside, so files and tools see no stranger.
            write_proc(c"/proc/self/setgroups", b"deny")?;
            write_proc(c"/proc/self/uid_map", uid_map)?;
            write_proc(c"/proc/self/gid_map", gid_map)?;
        }
        if network {
            loopback_up()?;
        }
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // Process 1 of the namespace: dies when the process waiting for it dies, and
            // takes the whole namespace with it. It builds the command's filesystem (its /proc
            // shows its own namespace) and is confined before the command starts (Landlock
            // forbids mounting after).
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
            if mounts {
                mounts::make(plan)?;
            }
            confine(ruleset, rights, mounts.then_some(plan))?;
            return seccomp::seal(true, filter);
        }
        // The waiting process holds nothing open (not the pipe std uses to report a failed
        // exec, nor the output pipe), then leaves as the command did.
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            // Kernels before 5.9 lack close_range: close what a process usually has open.
            for fd in 0..4096 {
                libc::close(fd);
            }
        }
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

/// Brings up `lo` in a new network namespace (it starts down), async-signal-safely.
///
/// # Safety
/// Only between fork and exec.
unsafe fn loopback_up() -> io::Result<()> {
    // SAFETY: socket, ioctl and close on a stack `ifreq` that outlives the calls.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        request.ifr_name[..2].copy_from_slice(&[b'l' as libc::c_char, b'o' as libc::c_char]);
        let mut ok = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request) == 0;
        if ok {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            ok = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request) == 0;
        }
        let error = io::Error::last_os_error();
        libc::close(fd);
        if ok { Ok(()) } else { Err(error) }
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

    #[test]
    fn the_run_description_names_each_boundary_this_kernel_lacks_and_nothing_when_all_hold() {
        let full = Containment::Namespaces { user: false, network: true, mounts: true };
        assert_eq!(caveats(full, true, true), "");
        assert_eq!(
            caveats(Containment::ProcessGroup, false, false),
            " On this machine a process that calls setsid can outlive its command, commands reach the network, \
             commands see the host's whole filesystem (the user's credential stores and sockets included), write \
             the user's build caches directly and can change git's hooks and config, commands can write outside the repository, with no system call filter, commands \
             can make user namespaces, use the user's keyring, io_uring and bpf, and type into tack's terminal."
        );
        assert_eq!(
            caveats(Containment::Namespaces { user: true, network: false, mounts: true }, true, true),
            " On this machine commands reach the network."
        );
    }

    /// What `sh -c script` prints when contained by `mode`.
    fn output(mode: Containment, script: &str) -> String {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script]);
        apply(&mut cmd, mode, None, None, probe_plan());
        let out = cmd.output().expect("the contained shell runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    #[test]
    fn each_mode_runs_the_command_with_its_exit_code_and_the_users_own_ids() {
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let ids = format!("{uid} {gid}\n");
        for mode in MODES {
            // Where this machine refuses the mode, `containment()` does not pick it.
            if !works(mode) {
                continue;
            }
            assert_eq!(output(mode, "echo $$"), "1\n", "{mode:?}: the shell is process 1");
            assert_eq!(output(mode, "echo $(id -u) $(id -g)"), ids, "{mode:?}");
            let mut cmd = Command::new("/bin/sh");
            cmd.args(["-c", "exit 7"]);
            apply(&mut cmd, mode, None, None, probe_plan());
            assert_eq!(cmd.status().unwrap().code(), Some(7), "{mode:?}: the exit code passes through");
        }
        assert_ne!(output(Containment::ProcessGroup, "echo $$"), "1\n");
    }
}

//! The last steps a command's process takes before exec, after `contain` has confined it: a
//! session of its own (no controlling terminal to type into), a fresh session keyring (none of
//! the user's keys), no descriptor but 0-2 across exec, and a seccomp filter.
//!
//! The filter takes Docker's default profile as its anchor, with the opposite default: Docker
//! allows a list and refuses the rest, while a build needs nearly every call, so this one allows
//! everything and refuses, with `EPERM`, the calls that reach past a command's namespaces (the
//! kernel's keyrings, new user namespaces, typing into a terminal), open the kernel's less
//! travelled code to unprivileged use (`io_uring`, `bpf`, `perf_event_open`, `userfaultfd`), or
//! need a privilege no command has (modules, `kexec`, mounts, clocks, swap). `clone3` answers
//! `ENOSYS`, as in Docker's profile: its flags sit in memory the filter cannot read, and glibc
//! then falls back to `clone`, whose flags it can.
//!
//! The program is compiled before the fork by `seccompiler`; the child only hands it to the
//! kernel, allocating nothing itself.

use std::io;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};

/// The compiled filter: two programs the kernel stacks, since a `seccompiler` filter has one
/// answer for what it matches, and the refused calls and `clone3` answer differently.
#[derive(Debug)]
pub(crate) struct Filter {
    /// Calls refused with `EPERM`.
    refused: BpfProgram,
    /// Calls that answer `ENOSYS`, as if this kernel lacked them.
    absent: BpfProgram,
}

/// Why the filter could not be made (a mistake in the rules, never the kernel).
#[derive(Debug, thiserror::Error)]
#[error("cannot compile the system call filter: {0}")]
pub(crate) struct FilterError(String);

/// The filter for this machine's commands, compiled once: `None` where the kernel or the
/// architecture has no seccomp filter, as tack says once in its log.
pub(crate) fn filter() -> Result<Option<&'static Filter>, &'static FilterError> {
    static FOUND: OnceLock<Result<Option<Filter>, FilterError>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let Some(arch) = target_arch() else {
                tracing::warn!("tack has no system call filter for this architecture, so {UNFILTERED}");
                return Ok(None);
            };
            if let Err(why) = kernel_filters() {
                tracing::warn!("the kernel has no seccomp filters ({why}), so {UNFILTERED}");
                return Ok(None);
            }
            let filter = compile(arch).map_err(|e| FilterError(e.to_string()))?;
            tracing::debug!("commands run under a seccomp filter (keyrings, user namespaces, TIOCSTI, io_uring, bpf refused)");
            Ok(Some(filter))
        })
        .as_ref()
        .map(Option::as_ref)
}

/// What commands may do where there is no filter, for the log.
const UNFILTERED: &str = "commands may make user namespaces, use the user's keyring, io_uring and bpf, and type into tack's terminal";

/// Whether commands run under the system call filter here.
pub fn filters_syscalls() -> bool {
    matches!(filter(), Ok(Some(_)))
}

/// The architecture the filter is written for, where tack has one.
fn target_arch() -> Option<seccompiler::TargetArch> {
    if cfg!(target_arch = "x86_64") {
        Some(seccompiler::TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(seccompiler::TargetArch::aarch64)
    } else {
        None
    }
}

/// Whether the kernel takes seccomp filters: installing a filter from a null pointer fails with
/// `EFAULT` only once the kernel has looked for one; without filters it says `EINVAL` or
/// `ENOSYS`, and a sandbox tack itself runs in may refuse the call (`EPERM`). Nothing is
/// installed either way.
fn kernel_filters() -> Result<(), io::Error> {
    // SAFETY: the kernel reads nothing from a null program; it answers EFAULT.
    let answer = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0u32,
            std::ptr::null::<libc::sock_fprog>(),
        )
    };
    let error = io::Error::last_os_error();
    match (answer, error.raw_os_error()) {
        (-1, Some(libc::EFAULT)) => Ok(()),
        _ => Err(error),
    }
}

/// `CLONE_NEWUSER`: a new user namespace, where a command would hold every capability again.
const NEW_USER_NAMESPACE: u64 = libc::CLONE_NEWUSER as u64;

fn compile(arch: seccompiler::TargetArch) -> Result<Filter, seccompiler::BackendError> {
    let always = || Vec::new();
    // A flag word holds CLONE_NEWUSER; the kernel reads the low 32 bits of clone's and unshare's
    // flags, and so does this rule.
    let making_user_namespace = || -> Result<Vec<SeccompRule>, seccompiler::BackendError> {
        Ok(vec![SeccompRule::new(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(NEW_USER_NAMESPACE),
            NEW_USER_NAMESPACE,
        )?])?])
    };
    // The kernel takes an ioctl's request as a 32-bit number, so the rule compares the low 32
    // bits only: a request with high bits set (sign-extended) is still TIOCSTI to the kernel.
    let request = |value: u64| -> Result<SeccompRule, seccompiler::BackendError> {
        SeccompRule::new(vec![SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)?])
    };

    // I/O port access, on x86 only.
    #[cfg(target_arch = "x86_64")]
    let port_access = [(libc::SYS_iopl, always()), (libc::SYS_ioperm, always())];
    #[cfg(not(target_arch = "x86_64"))]
    let port_access: [(i64, Vec<SeccompRule>); 0] = [];
    let refused: std::collections::BTreeMap<i64, Vec<SeccompRule>> = [
        // The kernel's keyrings are shared beyond a command's namespaces (the session keyring
        // it inherits, the user's keyring): a command reads and plants no key.
        (libc::SYS_keyctl, always()),
        (libc::SYS_add_key, always()),
        (libc::SYS_request_key, always()),
        // A new user namespace gives back every capability inside it (raw and nf_tables
        // sockets, mounts), the usual road to a kernel bug; joining another namespace too.
        (libc::SYS_unshare, making_user_namespace()?),
        (libc::SYS_clone, making_user_namespace()?),
        (libc::SYS_setns, always()),
        // TIOCSTI types into a terminal's input, where the user's shell reads it; TIOCLINUX
        // can paste a console's selection the same way.
        (libc::SYS_ioctl, vec![request(libc::TIOCSTI)?, request(libc::TIOCLINUX)?]),
        // Kernel interfaces no build needs and that keep being where kernel bugs are found.
        (libc::SYS_perf_event_open, always()),
        (libc::SYS_userfaultfd, always()),
        (libc::SYS_io_uring_setup, always()),
        (libc::SYS_io_uring_enter, always()),
        (libc::SYS_io_uring_register, always()),
        (libc::SYS_bpf, always()),
        // Loading kernel code.
        (libc::SYS_kexec_load, always()),
        (libc::SYS_kexec_file_load, always()),
        (libc::SYS_init_module, always()),
        (libc::SYS_finit_module, always()),
        (libc::SYS_delete_module, always()),
        // What Docker refuses without CAP_SYS_ADMIN (or the time and swap capabilities) and a
        // build never does. A command has no capability, so the kernel would refuse most of
        // these too; refusing them here keeps their code out of reach altogether.
        (libc::SYS_mount, always()),
        (libc::SYS_umount2, always()),
        (libc::SYS_pivot_root, always()),
        (libc::SYS_fsopen, always()),
        (libc::SYS_fsconfig, always()),
        (libc::SYS_fsmount, always()),
        (libc::SYS_fspick, always()),
        (libc::SYS_move_mount, always()),
        (libc::SYS_open_tree, always()),
        (libc::SYS_mount_setattr, always()),
        (libc::SYS_swapon, always()),
        (libc::SYS_swapoff, always()),
        (libc::SYS_reboot, always()),
        (libc::SYS_open_by_handle_at, always()),
        (libc::SYS_name_to_handle_at, always()),
        (libc::SYS_acct, always()),
        (libc::SYS_settimeofday, always()),
        (libc::SYS_clock_settime, always()),
        (libc::SYS_clock_adjtime, always()),
        (libc::SYS_adjtimex, always()),
        (libc::SYS_lookup_dcookie, always()),
        (libc::SYS_quotactl, always()),
        (libc::SYS_quotactl_fd, always()),
        (libc::SYS_nfsservctl, always()),
        (libc::SYS_vhangup, always()),
    ]
    .into_iter()
    .chain(port_access)
    .collect();
    let refused =
        SeccompFilter::new(refused, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch)?;

    let absent = [(libc::SYS_clone3, always())].into_iter().collect();
    let absent =
        SeccompFilter::new(absent, SeccompAction::Allow, SeccompAction::Errno(libc::ENOSYS as u32), arch)?;
    let mut absent: BpfProgram = absent.try_into()?;
    if cfg!(target_arch = "x86_64") {
        absent.splice(0..0, x32_calls_absent());
    }
    Ok(Filter { refused: refused.try_into()?, absent })
}

/// On x86_64 a process may also call through the x32 ABI: the same calls, numbered with bit 30
/// set, under the same architecture word. The rules above match the plain numbers only, so these
/// leading instructions answer `ENOSYS` to every x32 number (no x86_64 program uses them; most
/// kernels turn x32 off). They jump only among themselves, so the program after them is whole.
fn x32_calls_absent() -> [seccompiler::sock_filter; 3] {
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    let op = |code: u32| code as u16;
    [
        // Load the call's number (offset 0 of `struct seccomp_data`).
        seccompiler::sock_filter { code: op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS), jt: 0, jf: 0, k: 0 },
        // At or past the x32 bit: the next instruction; below it: skip it.
        seccompiler::sock_filter {
            code: op(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K),
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        seccompiler::sock_filter {
            code: op(libc::BPF_RET | libc::BPF_K),
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        },
    ]
}

// `seccompiler`'s instruction is the kernel's `struct sock_filter`; the kernel reads it as such.
const _: () = assert!(
    std::mem::size_of::<seccompiler::sock_filter>() == std::mem::size_of::<libc::sock_filter>()
        && std::mem::align_of::<seccompiler::sock_filter>() == std::mem::align_of::<libc::sock_filter>()
);

/// `KEYCTL_JOIN_SESSION_KEYRING`: with no name, a new anonymous session keyring.
const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;

/// The last steps before exec: with `new_session`, a session of its own (so no controlling
/// terminal: `/dev/tty` cannot be opened); a fresh session keyring; every descriptor past 2
/// closed at exec; and, last, `filter`.
///
/// # Safety
/// Only between fork and exec: it makes only async-signal-safe calls and allocates nothing.
pub(crate) unsafe fn seal(new_session: bool, filter: Option<&Filter>) -> io::Result<()> {
    // SAFETY (whole body): system calls on stack memory and on the filter, which the forked
    // process holds a copy of and which outlives the calls.
    unsafe {
        if new_session && libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        // Replaces the inherited session keyring (the user's login keys) with an empty one. A
        // kernel without keys, or a sandbox around tack refusing keyctl, leaves the command no
        // keyring to reach either way.
        if libc::syscall(libc::SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, std::ptr::null::<libc::c_char>()) < 0
        {
            let error = io::Error::last_os_error();
            if !matches!(error.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) {
                return Err(error);
            }
        }
        close_inherited_at_exec();
        if let Some(filter) = filter {
            install(&filter.absent)?;
            install(&filter.refused)?;
        }
        Ok(())
    }
}

/// Marks every descriptor past stderr close-on-exec, so that only 0-2 reach the command: not
/// one tack inherited without the flag. Marked rather than closed: std still writes a failed
/// exec's error to its pipe, and the hook still owns Landlock's ruleset descriptor.
///
/// # Safety
/// Only between fork and exec.
unsafe fn close_inherited_at_exec() {
    // SAFETY: close_range and fcntl on descriptor numbers; no memory is passed.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, libc::CLOSE_RANGE_CLOEXEC) == 0 {
            return;
        }
        // Before Linux 5.11 (no CLOSE_RANGE_CLOEXEC): the flag one descriptor at a time, up to
        // the usual limit of open files.
        for fd in 3..1024 {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// Hands `program` to the kernel for this process and all it starts. `no_new_privs` is set
/// already (`contain::confine`), which the kernel requires of a process without privilege.
///
/// # Safety
/// Only between fork and exec.
unsafe fn install(program: &[seccompiler::sock_filter]) -> io::Result<()> {
    let program = libc::sock_fprog {
        len: program.len() as libc::c_ushort,
        // Same layout (asserted above); the kernel only reads it.
        filter: program.as_ptr().cast::<libc::sock_filter>().cast_mut(),
    };
    // SAFETY: the seccomp call reads `program` and its instructions, both alive.
    let installed = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0u32,
            &program as *const libc::sock_fprog,
        )
    };
    if installed == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_architecture_within_the_kernels_bounds() {
        let Some(arch) = target_arch() else {
            eprintln!("skipped: tack has no filter for {}", std::env::consts::ARCH);
            return;
        };
        let filter = compile(arch).expect("the rules compile");
        // The kernel refuses a program of more than 4,096 instructions.
        for program in [&filter.refused, &filter.absent] {
            assert!(!program.is_empty() && program.len() < 4096, "{} instructions", program.len());
        }
        // Every program ends by allowing what it does not name.
        let allow = seccompiler::sock_filter {
            code: (libc::BPF_RET | libc::BPF_K) as u16,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ALLOW,
        };
        assert_eq!(filter.refused.last(), Some(&allow));
        assert_eq!(filter.absent.last(), Some(&allow));
    }

    #[test]
    fn a_command_is_filtered_and_gets_descriptors_0_to_2_only_in_a_namespace_and_in_a_process_group() {
        use crate::process::contain::{self, Containment};
        use std::os::unix::process::CommandExt;
        let Ok(Some(filter)) = filter() else {
            eprintln!("skipped: this kernel or architecture has no seccomp filter");
            return;
        };
        if !std::path::Path::new("/usr/bin/unshare").exists() {
            eprintln!("skipped: no /usr/bin/unshare to try a user namespace with");
            return;
        }
        let leaked = std::fs::File::open("/dev/null").unwrap();
        let leaked = std::os::fd::AsRawFd::as_raw_fd(&leaked);
        for mode in [contain::containment(), Containment::ProcessGroup] {
            let mut cmd = std::process::Command::new("/bin/sh");
            cmd.args(["-c", "ls /proc/self/fd; /usr/bin/unshare --user true"]);
            // A descriptor without close-on-exec, as one tack inherited would be. Registered
            // before `apply`'s hook, so it runs first.
            // SAFETY: dup2 is async-signal-safe.
            unsafe {
                cmd.pre_exec(move || match libc::dup2(leaked, 9) {
                    9 => Ok(()),
                    _ => Err(io::Error::last_os_error()),
                });
            }
            contain::apply(&mut cmd, mode, None, Some(filter), contain::probe_plan());
            let out = cmd.output().expect("the contained shell runs");
            let (stdout, stderr) =
                (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert_eq!(stdout, "0\n1\n2\n3\n", "{mode:?}: ls's streams and its folder only");
            assert!(stderr.contains("Operation not permitted"), "{mode:?}: {stderr}");
        }
    }
}

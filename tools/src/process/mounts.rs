//! The filesystem a contained command sees, made in its own mount namespace between fork and
//! exec, as bubblewrap makes it: a private `/dev` with only the usual character devices, a
//! `pts` and a `/dev/shm` of its own, a fresh `/proc` for its PID namespace, and read-only or
//! empty mounts over what it may not change or read (git's hooks and config, the user's
//! credentials). Everything here is prepared before the fork ([`Plan`]) and done with
//! async-signal-safe system calls after it.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The character devices a command finds in its `/dev`, bound from the host's.
const DEVICES: &[&CStr] =
    &[c"/dev/null", c"/dev/zero", c"/dev/full", c"/dev/random", c"/dev/urandom", c"/dev/tty"];

/// What to mount over one path.
#[derive(Debug)]
enum Step {
    /// Bound over itself, so it cannot be renamed or removed (a mount point is busy).
    Pin(CString),
    /// Bound over itself read-only.
    ReadOnly(CString),
    /// An empty read-only folder over it.
    EmptyFolder(CString),
    /// An empty read-only file over it.
    EmptyFile(CString),
}

/// The mounts of one command, made before the fork, in the order they are done.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    steps: Vec<Step>,
}

impl Plan {
    /// Folders pinned, then paths made read-only, then stores hidden (files and folders).
    pub(crate) fn new(
        pinned: &[impl AsRef<Path>],
        read_only: &[impl AsRef<Path>],
        hidden: &[impl AsRef<Path>],
    ) -> Self {
        let path = |p: &Path| CString::new(p.as_os_str().as_bytes()).ok();
        let mut steps: Vec<Step> = pinned.iter().filter_map(|p| path(p.as_ref())).map(Step::Pin).collect();
        steps.extend(read_only.iter().filter_map(|p| path(p.as_ref())).map(Step::ReadOnly));
        for p in hidden {
            let p = p.as_ref();
            let Some(c) = path(p) else { continue };
            // A store kept elsewhere and linked in (dotfile managers do this) is hidden where
            // it lives, since the mount would land on the link's target anyway.
            match std::fs::metadata(p) {
                Ok(meta) if meta.is_dir() => steps.push(Step::EmptyFolder(c)),
                Ok(_) => steps.push(Step::EmptyFile(c)),
                Err(_) => {}
            }
        }
        Plan { steps }
    }
}

/// Makes the command's mounts: its mount namespace stops propagating to the host's, then the
/// private `/dev`, then each step of `plan`. A path gone since the plan was made is skipped.
///
/// # Safety
/// Only between fork and exec, in a new mount namespace.
pub(crate) unsafe fn make(plan: &Plan) -> io::Result<()> {
    // SAFETY (whole body): mount, open, close, mkdir and symlink on NUL-terminated strings
    // that live in `plan` or in static memory.
    unsafe {
        check(libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        ))?;
        private_dev()?;
        for step in &plan.steps {
            let done = match step {
                Step::Pin(path) => bind(path, path),
                Step::ReadOnly(path) => bind(path, path).and_then(|()| read_only(path)),
                Step::EmptyFolder(path) => new_fs(
                    c"tmpfs",
                    path,
                    libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    Some(c"size=4k,mode=0755"),
                ),
                Step::EmptyFile(path) => bind(c"/dev/null", path).and_then(|()| read_only(path)),
            };
            match done {
                Err(err) if err.raw_os_error() == Some(libc::ENOENT) => {}
                other => other?,
            }
        }
        Ok(())
    }
}

/// Mounts a fresh `/proc` for the PID namespace this process is in.
///
/// # Safety
/// Only between fork and exec, as process 1 of a new PID namespace in a new mount namespace.
pub(crate) unsafe fn fresh_proc() -> io::Result<()> {
    // SAFETY: mount on static NUL-terminated strings.
    unsafe { new_fs(c"proc", c"/proc", libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC, None) }
}

/// A tmpfs over `/dev` holding the host's usual character devices, `pts` and `shm` of its own,
/// and the usual links.
unsafe fn private_dev() -> io::Result<()> {
    // SAFETY: see `make`. The descriptors opened here are closed before returning.
    unsafe {
        // The host's devices, held open while `/dev` is covered, then bound from the descriptor.
        let mut held = [-1; DEVICES.len()];
        for (fd, device) in held.iter_mut().zip(DEVICES) {
            *fd = libc::open(device.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        }
        let made = (|| {
            new_fs(c"tmpfs", c"/dev", libc::MS_NOSUID | libc::MS_NOEXEC, Some(c"mode=0755,size=64k"))?;
            for (&fd, device) in held.iter().zip(DEVICES) {
                if fd < 0 {
                    continue;
                }
                let node =
                    libc::open(device.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o666);
                if node < 0 {
                    return Err(io::Error::last_os_error());
                }
                libc::close(node);
                let mut source = [0u8; 32];
                bind(fd_path(fd, &mut source), device)?;
            }
            for folder in [c"/dev/pts", c"/dev/shm"] {
                check(libc::mkdir(folder.as_ptr(), 0o755))?;
            }
            new_fs(
                c"devpts",
                c"/dev/pts",
                libc::MS_NOSUID | libc::MS_NOEXEC,
                Some(c"newinstance,ptmxmode=0666,mode=0620"),
            )?;
            new_fs(c"tmpfs", c"/dev/shm", libc::MS_NOSUID | libc::MS_NODEV, Some(c"mode=1777"))?;
            for (target, link) in [
                (c"pts/ptmx", c"/dev/ptmx"),
                (c"/proc/self/fd", c"/dev/fd"),
                (c"/proc/self/fd/0", c"/dev/stdin"),
                (c"/proc/self/fd/1", c"/dev/stdout"),
                (c"/proc/self/fd/2", c"/dev/stderr"),
            ] {
                check(libc::symlink(target.as_ptr(), link.as_ptr()))?;
            }
            Ok(())
        })();
        for fd in held {
            if fd >= 0 {
                libc::close(fd);
            }
        }
        made
    }
}

/// `/proc/self/fd/N` in `buffer`, without allocating.
fn fd_path(fd: i32, buffer: &mut [u8; 32]) -> &CStr {
    let prefix = b"/proc/self/fd/";
    buffer[..prefix.len()].copy_from_slice(prefix);
    let mut digits = [0u8; 10];
    let mut n = fd.unsigned_abs();
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        buffer[prefix.len() + i] = digits[len - 1 - i];
    }
    buffer[prefix.len() + len] = 0;
    CStr::from_bytes_until_nul(&buffer[..]).unwrap_or(c"/dev/null")
}

/// Mounts a new filesystem of type `kind` (named after its type) at `target`.
unsafe fn new_fs(kind: &CStr, target: &CStr, flags: libc::c_ulong, options: Option<&CStr>) -> io::Result<()> {
    let options = options.map_or(std::ptr::null(), |o| o.as_ptr().cast());
    // SAFETY: mount on NUL-terminated strings (or a null options pointer).
    unsafe { check(libc::mount(kind.as_ptr(), target.as_ptr(), kind.as_ptr(), flags, options)) }
}

/// Binds `source` over `target`, with what is mounted beneath it.
unsafe fn bind(source: &CStr, target: &CStr) -> io::Result<()> {
    // SAFETY: mount on NUL-terminated strings.
    unsafe {
        check(libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ))
    }
}

/// Makes the bind mount at `target` read-only, keeping the flags the kernel locks (a remount in
/// a user namespace may not clear `nosuid`, `nodev`, `noexec` or the atime flags).
unsafe fn read_only(target: &CStr) -> io::Result<()> {
    // SAFETY: statvfs into a zeroed struct on the stack (glibc takes the flags from the statfs
    // system call, which kernels since 2.6.36 fill in); mount on a NUL-terminated string.
    unsafe {
        let mut fs: libc::statvfs = std::mem::zeroed();
        check(libc::statvfs(target.as_ptr(), &mut fs))?;
        let kept = fs.f_flag as libc::c_ulong;
        let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
        for (st, ms) in [
            (libc::ST_NOSUID, libc::MS_NOSUID),
            (libc::ST_NODEV, libc::MS_NODEV),
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NOATIME, libc::MS_NOATIME),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
            (libc::ST_RELATIME, libc::MS_RELATIME),
        ] {
            if kept & st != 0 {
                flags |= ms;
            }
        }
        check(libc::mount(std::ptr::null(), target.as_ptr(), std::ptr::null(), flags, std::ptr::null()))
    }
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_descriptors_path_is_written_without_allocating() {
        let mut buffer = [0u8; 32];
        assert_eq!(fd_path(0, &mut buffer), c"/proc/self/fd/0");
        assert_eq!(fd_path(1234567, &mut buffer), c"/proc/self/fd/1234567");
    }
}

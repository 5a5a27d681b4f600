//! The filesystem a contained command sees, made in its own mount namespace between fork and
//! exec, as bubblewrap makes it: a new root on a tmpfs holding only what `view` lists (the
//! system's folders read-only, the root, the scratch folder, an empty home with the toolchains,
//! overlays over build caches), a private `/dev` with only the usual character devices, a `pts`
//! and a `/dev/shm` of its own, and a fresh `/proc` for its PID namespace; then, on top,
//! read-only or empty mounts over what it may not change or read (git's hooks and config, the
//! user's credentials in a bound folder). Everything here is prepared before the fork ([`Plan`])
//! and done with async-signal-safe system calls after it, by the namespace's process 1.
//!
//! The host's tree stays reachable while the new root is built: a tmpfs is mounted on `/tmp`
//! and made the root (`pivot_root`), the old root landing in `/oldroot` and the new one built
//! in `/newroot`; the second `pivot_root` makes `/newroot` the root and the old one is detached.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::process::view::Mount;

/// The character devices a command finds in its `/dev`: the host's (seen through the old root)
/// and where they go in the new one.
const DEVICES: &[(&CStr, &CStr)] = &[
    (c"/oldroot/dev/null", c"/newroot/dev/null"),
    (c"/oldroot/dev/zero", c"/newroot/dev/zero"),
    (c"/oldroot/dev/full", c"/newroot/dev/full"),
    (c"/oldroot/dev/random", c"/newroot/dev/random"),
    (c"/oldroot/dev/urandom", c"/newroot/dev/urandom"),
    (c"/oldroot/dev/tty", c"/newroot/dev/tty"),
];

/// Where the new root is built: an existing folder a tmpfs is mounted on, then made the root.
const BASE: &CStr = c"/tmp";
/// The host's root, the new root being built, and where each sits once `BASE` is the root.
const OLD: &str = "/oldroot";
const NEW: &str = "/newroot";

/// One step of building the new root: paths in it start with [`NEW`], the host's with [`OLD`].
#[derive(Debug)]
enum Op {
    /// A folder made if missing.
    Dir(CString),
    /// An empty file made if missing, to bind a file over.
    File(CString),
    Bind {
        source: CString,
        target: CString,
        read_only: bool,
    },
    Link {
        points_to: CString,
        at: CString,
    },
    /// A writable tmpfs of the command's own.
    Tmpfs(CString),
    /// An overlay (its options with `userxattr`, and without, for kernels before 5.11 that
    /// mount it as root), else the lower folder bound read-only.
    Overlay {
        at: CString,
        options: [CString; 2],
        lower: CString,
    },
    /// An empty read-only folder or file over what is there.
    Hide {
        at: CString,
        folder: bool,
    },
}

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
    /// Building the new root.
    ops: Vec<Op>,
    /// The folder the command starts in, entered again in the new root.
    cwd: Option<CString>,
    /// Then, in the new root, over what it shows.
    steps: Vec<Step>,
    /// Folders of the new root the command may write beneath besides its own (Landlock):
    /// its home, the caches' overlays and its writable binds.
    writable: Vec<CString>,
}

impl Plan {
    /// The new root `view` shows, entered in `cwd`; then folders pinned, paths made read-only,
    /// and stores hidden (files and folders).
    pub(crate) fn new(
        view: &[Mount],
        cwd: &Path,
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
        let mut plan = Plan { ops: Vec::new(), cwd: path(cwd), steps, writable: Vec::new() };
        let mut made = std::collections::HashSet::new();
        for mount in view {
            plan.add(mount, &mut made);
        }
        plan
    }

    /// The ops that make `mount`, its missing parents first.
    fn add(&mut self, mount: &Mount, made: &mut std::collections::HashSet<PathBuf>) {
        let (Some(target), Some(target_path)) = (inside(NEW, mount.target()), mount.target().parent()) else {
            return;
        };
        let mut parents: Vec<&Path> = target_path.ancestors().take_while(|p| p.parent().is_some()).collect();
        parents.reverse();
        for parent in parents {
            if made.insert(parent.to_path_buf())
                && let Some(dir) = inside(NEW, parent)
            {
                self.ops.push(Op::Dir(dir));
            }
        }
        let as_folder = |ops: &mut Vec<Op>, folder: bool| {
            ops.push(if folder { Op::Dir(target.clone()) } else { Op::File(target.clone()) });
        };
        let writable = || CString::new(mount.target().as_os_str().as_bytes()).ok();
        match mount {
            Mount::Bind { source, read_only, .. } => {
                let Some(source_c) = inside(OLD, source) else { return };
                as_folder(&mut self.ops, source.is_dir());
                self.ops.push(Op::Bind { source: source_c, target, read_only: *read_only });
                // A writable bind of a folder Landlock was not told of (tack's copy of a cache)
                // is allowed where it is mounted.
                if !read_only && source.is_dir() {
                    self.writable.extend(writable());
                }
            }
            Mount::Link { points_to, .. } => {
                let Ok(points_to) = CString::new(points_to.as_os_str().as_bytes()) else { return };
                self.ops.push(Op::Link { points_to, at: target });
            }
            Mount::Scratch { .. } => {
                as_folder(&mut self.ops, true);
                self.ops.push(Op::Tmpfs(target));
                self.writable.extend(writable());
            }
            Mount::Overlay { lower, upper, work, .. } => {
                let Some(lower_c) = inside(OLD, lower) else { return };
                as_folder(&mut self.ops, true);
                let old = |p: &Path| format!("{OLD}{}", p.display());
                // overlayfs splits its options at commas and lower folders at colons.
                let plain = [lower, upper, work]
                    .iter()
                    .all(|p| p.to_str().is_some_and(|s| !s.contains([',', ':', '\\'])));
                let options = |extra: &str| {
                    CString::new(format!(
                        "lowerdir={},upperdir={},workdir={}{extra}",
                        old(lower),
                        old(upper),
                        old(work)
                    ))
                    .ok()
                };
                match (plain, options(",userxattr"), options("")) {
                    (true, Some(with), Some(without)) => {
                        self.ops.push(Op::Overlay { at: target, options: [with, without], lower: lower_c });
                        self.writable.extend(writable());
                    }
                    _ => self.ops.push(Op::Bind { source: lower_c, target, read_only: true }),
                }
            }
            Mount::Hide { folder, .. } => self.ops.push(Op::Hide { at: target, folder: *folder }),
        }
    }
}

/// `path` (absolute) below `prefix`, as a C string.
fn inside(prefix: &str, path: &Path) -> Option<CString> {
    if !path.is_absolute() {
        return None;
    }
    let mut bytes = prefix.as_bytes().to_vec();
    bytes.extend_from_slice(path.as_os_str().as_bytes());
    CString::new(bytes).ok()
}

/// Makes the command's filesystem: its mount namespace stops propagating to the host's, the
/// new root is built and entered, with a private `/dev` and a fresh `/proc`, then each step of
/// `plan` is done over it. A path gone since the plan was made is skipped.
///
/// # Safety
/// Only between fork and exec, in a new mount namespace, as process 1 of a new PID namespace.
pub(crate) unsafe fn make(plan: &Plan) -> io::Result<()> {
    // SAFETY (whole body): mount, open, close, mkdir, chdir, pivot_root and symlink on
    // NUL-terminated strings that live in `plan` or in static memory.
    unsafe {
        check(libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        ))?;
        new_fs(c"tmpfs", BASE, libc::MS_NOSUID | libc::MS_NODEV, Some(c"mode=0755,size=64k"))?;
        check(libc::chdir(BASE.as_ptr()))?;
        for folder in [c"newroot", c"oldroot"] {
            check(libc::mkdir(folder.as_ptr(), 0o755))?;
        }
        pivot_root(c".", c"oldroot")?;
        check(libc::chdir(c"/".as_ptr()))?;
        new_fs(c"tmpfs", c"/newroot", libc::MS_NOSUID | libc::MS_NODEV, Some(c"mode=0755"))?;
        for op in &plan.ops {
            build(op)?;
        }
        private_dev()?;
        check(libc::mkdir(c"/newroot/proc".as_ptr(), 0o555))?;
        // The host's /proc is still in sight, which the kernel asks before a new one is mounted.
        new_fs(c"proc", c"/newroot/proc", libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC, None)?;
        check(libc::chdir(c"/newroot".as_ptr()))?;
        pivot_root(c".", c".")?;
        // The old root now sits over the new one: detached, it takes the host's tree with it.
        check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
        check(libc::chdir(plan.cwd.as_deref().unwrap_or(c"/").as_ptr()))?;
        for step in &plan.steps {
            let done = match step {
                Step::Pin(path) => bind(path, path),
                Step::ReadOnly(path) => bind(path, path).and_then(|()| read_only(path)),
                Step::EmptyFolder(path) => empty_folder(path),
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

/// Folders of the new root (their paths once it is the root) that the command may write
/// beneath besides those it was given.
pub(crate) fn writable(plan: &Plan) -> &[CString] {
    &plan.writable
}

/// One op of building the new root.
unsafe fn build(op: &Op) -> io::Result<()> {
    // SAFETY: system calls on NUL-terminated strings owned by `op`.
    unsafe {
        match op {
            Op::Dir(path) => existing_ok(libc::mkdir(path.as_ptr(), 0o755)),
            Op::File(path) => {
                let fd = libc::open(path.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o644);
                if fd < 0 {
                    return existing_ok(-1);
                }
                libc::close(fd);
                Ok(())
            }
            Op::Bind { source, target, read_only: ro } => {
                bind(source, target)?;
                if *ro { read_only(target) } else { Ok(()) }
            }
            Op::Link { points_to, at } => check(libc::symlink(points_to.as_ptr(), at.as_ptr())),
            Op::Tmpfs(at) => new_fs(c"tmpfs", at, libc::MS_NOSUID | libc::MS_NODEV, Some(c"mode=0755")),
            Op::Overlay { at, options, lower } => {
                for options in options {
                    if new_fs(c"overlay", at, libc::MS_NOSUID | libc::MS_NODEV, Some(options)).is_ok() {
                        return Ok(());
                    }
                }
                // Where overlays are refused, the user's cache is seen, never written.
                bind(lower, at).and_then(|()| read_only(at))
            }
            Op::Hide { at, folder: true } => empty_folder(at),
            Op::Hide { at, folder: false } => bind(c"/oldroot/dev/null", at).and_then(|()| read_only(at)),
        }
    }
}

/// An empty read-only folder over `path`.
unsafe fn empty_folder(path: &CStr) -> io::Result<()> {
    // SAFETY: mount on NUL-terminated strings.
    unsafe {
        new_fs(
            c"tmpfs",
            path,
            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            Some(c"size=4k,mode=0755"),
        )
    }
}

/// `pivot_root(2)`, which libc does not wrap.
unsafe fn pivot_root(new_root: &CStr, put_old: &CStr) -> io::Result<()> {
    // SAFETY: a raw system call on NUL-terminated strings.
    let done = unsafe { libc::syscall(libc::SYS_pivot_root, new_root.as_ptr(), put_old.as_ptr()) };
    if done == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// `result` as an error unless it succeeded or what it made was already there.
fn existing_ok(result: libc::c_int) -> io::Result<()> {
    match check(result) {
        Err(err) if err.raw_os_error() == Some(libc::EEXIST) => Ok(()),
        other => other,
    }
}

/// A tmpfs over the new root's `/dev` holding the host's usual character devices, `pts` and
/// `shm` of its own, and the usual links.
unsafe fn private_dev() -> io::Result<()> {
    // SAFETY: see `make`. The descriptors opened here are closed before returning.
    unsafe {
        // The host's devices, held open and bound from the descriptor.
        let mut held = [-1; DEVICES.len()];
        for (fd, (device, _)) in held.iter_mut().zip(DEVICES) {
            *fd = libc::open(device.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        }
        let made = (|| {
            check(libc::mkdir(c"/newroot/dev".as_ptr(), 0o755))?;
            new_fs(
                c"tmpfs",
                c"/newroot/dev",
                libc::MS_NOSUID | libc::MS_NOEXEC,
                Some(c"mode=0755,size=64k"),
            )?;
            for (&fd, (_, device)) in held.iter().zip(DEVICES) {
                if fd < 0 {
                    continue;
                }
                let node =
                    libc::open(device.as_ptr(), libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC, 0o666);
                if node < 0 {
                    return Err(io::Error::last_os_error());
                }
                libc::close(node);
                let mut source = [0u8; 40];
                bind(fd_path(fd, &mut source), device)?;
            }
            for folder in [c"/newroot/dev/pts", c"/newroot/dev/shm"] {
                check(libc::mkdir(folder.as_ptr(), 0o755))?;
            }
            new_fs(
                c"devpts",
                c"/newroot/dev/pts",
                libc::MS_NOSUID | libc::MS_NOEXEC,
                Some(c"newinstance,ptmxmode=0666,mode=0620"),
            )?;
            new_fs(c"tmpfs", c"/newroot/dev/shm", libc::MS_NOSUID | libc::MS_NODEV, Some(c"mode=1777"))?;
            for (target, link) in [
                (c"pts/ptmx", c"/newroot/dev/ptmx"),
                (c"/proc/self/fd", c"/newroot/dev/fd"),
                (c"/proc/self/fd/0", c"/newroot/dev/stdin"),
                (c"/proc/self/fd/1", c"/newroot/dev/stdout"),
                (c"/proc/self/fd/2", c"/newroot/dev/stderr"),
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

/// The host's `/proc/self/fd/N` (seen through the old root) in `buffer`, without allocating.
fn fd_path(fd: i32, buffer: &mut [u8; 40]) -> &CStr {
    let prefix = b"/oldroot/proc/self/fd/";
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
        let mut buffer = [0u8; 40];
        assert_eq!(fd_path(0, &mut buffer), c"/oldroot/proc/self/fd/0");
        assert_eq!(fd_path(1234567890, &mut buffer), c"/oldroot/proc/self/fd/1234567890");
    }
}

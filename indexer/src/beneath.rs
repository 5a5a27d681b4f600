//! Opening files beneath a root directory by its descriptor, never by a path that can change
//! between a check and the open. A path is resolved by the kernel from the root's descriptor
//! with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, or, where the kernel lacks `openat2`,
//! one component at a time with `openat(O_NOFOLLOW)`. Either way a folder swapped for a link
//! mid-call makes the open fail; it never leads outside the root.
//!
//! Paths here are relative, `/`-separated and free of links: the path guard and the walker
//! produce them that way, so a link met here is one that appeared after they looked.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// An open root directory that files are opened beneath.
#[derive(Debug)]
pub struct RootDir {
    fd: OwnedFd,
}

/// Cleared the first time the kernel answers that it has no `openat2`.
static HAS_OPENAT2: AtomicBool = AtomicBool::new(true);

impl RootDir {
    /// Opens the directory at `path` (a path tack trusts: the root it was started on).
    pub fn open(path: &Path) -> io::Result<Self> {
        let fd = rustix::fs::open(path, OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
        Ok(Self { fd })
    }

    /// The root's descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Opens `rel` beneath the root with `flags` (and `mode` when it creates). `.` or an empty
    /// path is the root itself.
    pub fn open_at(&self, rel: &str, flags: OFlags, mode: Mode) -> io::Result<OwnedFd> {
        let rel = if rel.is_empty() { "." } else { rel };
        if rel != "." && rel.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{rel} is not a plain relative path"),
            ));
        }
        let flags = flags | OFlags::CLOEXEC | OFlags::NOCTTY;
        let opened = if HAS_OPENAT2.load(Ordering::Relaxed) {
            let how = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            // EAGAIN: the kernel saw a rename race it could not rule out; it says to retry.
            let mut tries = 0;
            loop {
                match rustix::fs::openat2(&self.fd, rel, flags, mode, how) {
                    Err(Errno::AGAIN) if tries < 8 => tries += 1,
                    Err(Errno::NOSYS) => {
                        HAS_OPENAT2.store(false, Ordering::Relaxed);
                        break self.walk(rel, flags, mode);
                    }
                    // Some seccomp filters answer EPERM for a syscall they do not know; the
                    // walk gives the real answer.
                    Err(Errno::PERM) => break self.walk(rel, flags, mode),
                    other => break other,
                }
            }
        } else {
            self.walk(rel, flags, mode)
        };
        opened.map_err(|errno| explain(rel, errno))
    }

    /// `open_at` for kernels without `openat2`: each folder opened with `O_NOFOLLOW` from the
    /// one before, so no component can be a link.
    fn walk(&self, rel: &str, flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
        if rel == "." {
            return rustix::fs::openat(&self.fd, ".", flags, mode);
        }
        let (dirs, name) = match rel.rsplit_once('/') {
            Some((dirs, name)) => (Some(dirs), name),
            None => (None, rel),
        };
        let mut dir: Option<OwnedFd> = None;
        for part in dirs.into_iter().flat_map(|d| d.split('/')) {
            let base = dir.as_ref().map_or(self.fd.as_fd(), |d| d.as_fd());
            let next = rustix::fs::openat(
                base,
                part,
                OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC,
                Mode::empty(),
            );
            // A link opened with O_DIRECTORY | O_NOFOLLOW answers ENOTDIR: say which it is.
            let next = match next {
                Err(Errno::NOTDIR) if is_link(base, part) => Err(Errno::LOOP),
                other => other,
            }?;
            dir = Some(next);
        }
        let base = dir.as_ref().map_or(self.fd.as_fd(), |d| d.as_fd());
        rustix::fs::openat(base, name, flags | OFlags::NOFOLLOW, mode)
    }

    /// Opens `rel` for reading if it is a regular file. The open does not wait (a FIFO would
    /// block otherwise) and the type is checked on the opened descriptor.
    pub fn open_file(&self, rel: &str) -> io::Result<File> {
        let file = File::from(self.open_at(rel, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty())?);
        let kind = file.metadata()?.file_type();
        if kind.is_file() {
            return Ok(file);
        }
        Err(io::Error::other(special_kind(&kind)))
    }

    /// Reads the regular file `rel`.
    pub fn read(&self, rel: &str) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut self.open_file(rel)?, &mut bytes)?;
        Ok(bytes)
    }

    /// The first `max` bytes of the regular file `rel` (all of it when shorter).
    pub fn read_prefix(&self, rel: &str, max: u64) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::Read::take(self.open_file(rel)?, max), &mut bytes)?;
        Ok(bytes)
    }

    /// Opens the folder `rel` (`.` for the root).
    pub fn open_dir(&self, rel: &str) -> io::Result<OwnedFd> {
        self.open_at(rel, OFlags::DIRECTORY | OFlags::RDONLY, Mode::empty())
    }
}

/// Whether `name` in the folder `dir` is a symbolic link.
fn is_link(dir: BorrowedFd<'_>, name: &str) -> bool {
    rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink)
}

/// What a path that is not a regular file is, for a refusal.
pub fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "it is a directory"
    } else if kind.is_fifo() {
        "it is a FIFO (named pipe); tack reads regular files only"
    } else if kind.is_socket() {
        "it is a socket; tack reads regular files only"
    } else if kind.is_block_device() || kind.is_char_device() {
        "it is a device; tack reads regular files only"
    } else {
        "it is not a regular file"
    }
}

/// Reads a small file that decides how tack behaves (an ignore file, `tack.toml`, the user's
/// config) without ever blocking or reading without end: `Ok(None)` when there is no such file;
/// an error whose message says why when it is not a regular file, is a link leading out of
/// `within` (when given), or holds more than `max_bytes`. The open does not wait (a FIFO would
/// block otherwise) and the type and size are checked on the opened descriptor, so a link
/// swapped in after the check cannot lead to `/dev/zero`.
pub fn read_bounded(path: &Path, max_bytes: u64, within: Option<&Path>) -> io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let refused = |reason: String| io::Error::new(io::ErrorKind::InvalidData, reason);
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    let target = if meta.file_type().is_symlink() {
        // A link is followed while it stays beneath `within`; where it leads is resolved
        // without opening anything, so a link to a FIFO cannot block here.
        let target = match std::fs::canonicalize(path) {
            Ok(target) => target,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(err),
        };
        if let Some(within) = within
            && !target.starts_with(within)
        {
            return Err(refused(format!(
                "it is a symbolic link leading outside the root (to {})",
                target.display()
            )));
        }
        target
    } else {
        path.to_path_buf()
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags::NONBLOCK | libc_flags::NOFOLLOW | libc_flags::NOCTTY)
        .open(&target);
    let file = match file {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        // A link that appeared since the check above.
        Err(err) if err.raw_os_error() == Some(Errno::LOOP.raw_os_error()) => {
            return Err(refused("it became a symbolic link while tack opened it".to_string()));
        }
        Err(err) if err.raw_os_error() == Some(Errno::NXIO.raw_os_error()) => {
            return Err(refused("it is a socket; tack reads regular files only".to_string()));
        }
        Err(err) => return Err(err),
    };
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(refused(special_kind(&meta.file_type()).to_string()));
    }
    let too_big = |size: u64| {
        refused(format!("it holds {size} bytes, over the {max_bytes} bytes tack reads of such a file"))
    };
    if meta.len() > max_bytes {
        return Err(too_big(meta.len()));
    }
    // The file may grow after the check: read one byte past the bound to know.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// The open flags [`read_bounded`] passes to `open(2)`.
mod libc_flags {
    use rustix::fs::OFlags;
    pub(super) const NONBLOCK: i32 = OFlags::NONBLOCK.bits() as i32;
    pub(super) const NOFOLLOW: i32 = OFlags::NOFOLLOW.bits() as i32;
    pub(super) const NOCTTY: i32 = OFlags::NOCTTY.bits() as i32;
}

/// The error for a failed open: a link met on the way is named as such.
fn explain(rel: &str, errno: Errno) -> io::Error {
    match errno {
        Errno::LOOP | Errno::XDEV => io::Error::other(format!(
            "{rel} now goes through a symbolic link (a folder or the file was replaced while tack opened it), so tack did not follow it"
        )),
        // Opening a socket fails this way (so does a device with no driver behind it).
        Errno::NXIO => io::Error::other("it is a socket; tack reads regular files only"),
        errno => errno.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_anywhere_on_the_path_is_refused_each_way_and_plain_paths_open() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        std::fs::write(root.path().join("sub/f.txt"), "inside").unwrap();
        std::fs::write(outside.path().join("f.txt"), "outside").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
        std::os::unix::fs::symlink("sub/f.txt", root.path().join("inner")).unwrap();
        let dir = RootDir::open(root.path()).unwrap();
        for openat2 in [true, false] {
            HAS_OPENAT2.store(openat2, Ordering::Relaxed);
            assert_eq!(dir.read("sub/f.txt").unwrap(), b"inside");
            for rel in ["out/f.txt", "inner"] {
                let err = dir.read(rel).unwrap_err().to_string();
                assert!(err.contains("symbolic link"), "openat2 {openat2}, {rel}: {err}");
            }
            for rel in ["../x", "sub/../sub/f.txt", "/etc/passwd", "sub//f.txt"] {
                assert_eq!(dir.read(rel).unwrap_err().kind(), io::ErrorKind::InvalidInput, "{rel}");
            }
            assert!(dir.read("sub").unwrap_err().to_string().contains("directory"));
            assert!(dir.open_dir(".").is_ok() && dir.open_dir("sub").is_ok());
        }
        HAS_OPENAT2.store(true, Ordering::Relaxed);
    }
}

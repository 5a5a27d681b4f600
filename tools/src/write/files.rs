//! The file system under the writing tools: content versions, per-file locks that hold across
//! processes, atomic writes that keep permissions, and a small cache of recent contents by
//! version so a conflict can show what changed.

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
use tack_indexer::RootDir;

/// The version of a file's content: the first 16 hex digits of its BLAKE3 hash. `read_file`
/// reports it and every writing tool compares against it.
pub fn version_of(bytes: &[u8]) -> String {
    version_of_hash(&blake3::hash(bytes))
}

/// [`version_of`] for a hash computed while streaming a file.
pub fn version_of_hash(hash: &blake3::Hash) -> String {
    hash.to_hex()[..16].to_string()
}

/// What a path holds right now, for a writer that holds its lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Current {
    Absent,
    File { bytes: Vec<u8>, mode: u32, uid: u32, gid: u32 },
}

pub use tack_indexer::special_kind;

/// Reads what `rel` holds beneath the root. A directory or another non-file is an error
/// naming it; so is a link that appeared on the path.
pub fn read_current(root: &RootDir, rel: &str) -> io::Result<Current> {
    let mut file = match root.open_file(rel) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Current::Absent),
        other => other?,
    };
    let meta = file.metadata()?;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(Current::File { bytes, mode: meta.mode() & 0o7777, uid: meta.uid(), gid: meta.gid() })
}

/// Writes `bytes` to the file `name` of the folder `dir` so that a reader (or a crash) sees
/// the old content or the new one, never a mix: a temporary file made in that folder, fsync,
/// rename over the target, fsync the folder, all through the folder's descriptor. An existing
/// file's permission bits (and, when allowed, owner) are kept.
///
/// The temporary name is fixed per target (`.NAME.tack-tmp`), so a writer killed mid-write
/// leaves at most one such file, which the next write to the same path replaces. Callers hold
/// the path's [`FileLock`], so two writers never share the name.
pub fn write_atomic_in(
    dir: BorrowedFd<'_>,
    name: &str,
    bytes: &[u8],
    keep: Option<(u32, u32, u32)>,
) -> io::Result<()> {
    let tmp = temp_name(name);
    match rustix::fs::unlinkat(dir, tmp.as_str(), AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => {}
        Err(err) => return Err(err.into()),
    }
    let result = (|| {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut file =
            File::from(rustix::fs::openat(dir, tmp.as_str(), flags, Mode::from_bits_truncate(0o666))?);
        if let Some((mode, uid, gid)) = keep {
            // Owner first: chown clears set-id bits, which the chmod after it restores.
            let meta = file.metadata()?;
            if meta.uid() != uid || meta.gid() != gid {
                // SAFETY: fchown on a descriptor this function owns; failure is ignored on
                // purpose (an unprivileged writer cannot give a file away).
                unsafe { libc::fchown(file.as_raw_fd(), uid, gid) };
            }
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        rustix::fs::renameat(dir, tmp.as_str(), dir, name)?;
        rustix::fs::fsync(dir).map_err(io::Error::from)
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, tmp.as_str(), AtFlags::empty());
    }
    result
}

/// [`write_atomic_in`] for a path outside the root (tack's own state files).
pub fn write_atomic(abs: &Path, bytes: &[u8], keep: Option<(u32, u32, u32)>) -> io::Result<()> {
    let dir = abs.parent().ok_or_else(|| io::Error::other("the path has no parent folder"))?;
    let name = abs.file_name().and_then(|n| n.to_str()).ok_or_else(|| io::Error::other("no file name"))?;
    let dir = rustix::fs::open(dir, OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    write_atomic_in(dir.as_fd(), name, bytes, keep)
}

/// Removes the file `name` of the folder `dir` and makes the removal durable.
pub fn remove_durably_in(dir: BorrowedFd<'_>, name: &str) -> io::Result<()> {
    rustix::fs::unlinkat(dir, name, AtFlags::empty())?;
    rustix::fs::fsync(dir).map_err(io::Error::from)
}

/// The temporary sibling a write of `name` goes through.
fn temp_name(name: &str) -> String {
    // Keep the name under the usual 255-byte limit: a long name gets a hashed stand-in.
    if name.len() <= 200 {
        format!(".{name}.tack-tmp")
    } else {
        format!(".{}.tack-tmp", version_of(name.as_bytes()))
    }
}

/// Whether `name` is a temporary file of [`write_atomic`] (for walkers and watchers to skip).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tack-tmp")
}

/// An exclusive advisory lock on one path of one root, held until dropped.
///
/// The lock is `flock` on a lock file outside the repository (never the target itself: an
/// atomic rename gives the target a new inode, so a lock on it would not exclude the next
/// writer). flock locks belong to the open file, so they exclude threads of one process as
/// well as separate `tack serve` processes, and the kernel drops them when a holder dies.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Blocks until the lock on `rel` under `root` is ours.
    pub fn acquire(root: &Path, rel: &str) -> io::Result<FileLock> {
        let dir = lock_dir(root)?;
        let path = dir.join(format!("{}.lock", version_of(rel.as_bytes())));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW)
            .open(&path)?;
        loop {
            // SAFETY: flock on a descriptor owned by `file`, which outlives the call.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if rc == 0 {
                return Ok(FileLock { _file: file });
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
    }
}

/// The folder of lock files for one root: `/tmp/tack-locks-UID/ROOTKEY`, a per-user folder only
/// its owner can enter and one folder per canonical root. The base is `/tmp` itself, not
/// `$TMPDIR` or `$XDG_RUNTIME_DIR`: two servers started by different clients may see different
/// environments, and they must still meet on the same lock files.
fn lock_dir(root: &Path) -> io::Result<PathBuf> {
    let tmp = Path::new("/tmp");
    let base = if tmp.is_dir() { tmp.to_path_buf() } else { std::env::temp_dir() };
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let user_dir = base.join(format!("tack-locks-{uid}"));
    match fs::DirBuilder::new().mode(0o700).create(&user_dir) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    // A shared temp folder is writable by everyone: refuse a planted symlink or someone
    // else's folder rather than lock through it.
    let meta = fs::symlink_metadata(&user_dir)?;
    if !meta.is_dir() || meta.uid() != uid {
        return Err(io::Error::other(format!(
            "{} is not a folder owned by this user; remove it",
            user_dir.display()
        )));
    }
    let root_key = version_of(root.as_os_str().as_encoded_bytes());
    let dir = user_dir.join(root_key);
    match fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    Ok(dir)
}

/// Recent file contents by version, shared by every session, so a refused write can show what
/// changed since the version the agent named. Bounded in entries and bytes; big files are not
/// kept (a conflict on them names the versions without a diff).
#[derive(Debug, Default)]
pub struct VersionCache {
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    by_version: HashMap<String, Arc<Vec<u8>>>,
    order: VecDeque<String>,
    bytes: usize,
}

/// Files larger than this are not kept.
pub const CACHE_MAX_FILE: usize = 1 << 20;
/// The cache's whole budget.
const CACHE_MAX_BYTES: usize = 32 << 20;

impl VersionCache {
    /// Keeps `bytes` under its version (computed here).
    pub fn remember(&self, bytes: &[u8]) {
        if bytes.len() > CACHE_MAX_FILE {
            return;
        }
        let version = version_of(bytes);
        let mut inner = self.inner.lock().expect("version cache lock");
        if inner.by_version.contains_key(&version) {
            return;
        }
        inner.bytes += bytes.len();
        inner.by_version.insert(version.clone(), Arc::new(bytes.to_vec()));
        inner.order.push_back(version);
        while inner.bytes > CACHE_MAX_BYTES || inner.order.len() > 512 {
            let Some(old) = inner.order.pop_front() else { break };
            if let Some(gone) = inner.by_version.remove(&old) {
                inner.bytes -= gone.len();
            }
        }
    }

    /// The content of `version`, when it is still kept.
    pub fn get(&self, version: &str) -> Option<Arc<Vec<u8>>> {
        self.inner.lock().expect("version cache lock").by_version.get(version.trim()).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_short_stable_hashes() {
        assert_eq!(version_of(b"x = 1\n"), version_of(b"x = 1\n"));
        assert_ne!(version_of(b"x = 1\n"), version_of(b"x = 2\n"));
        assert_eq!(version_of(b"").len(), 16);
    }

    #[test]
    fn atomic_write_replaces_content_and_keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let Current::File { mode, uid, gid, .. } = read_current(&root, "run.sh").unwrap() else { panic!() };
        write_atomic(&path, b"new", Some((mode, uid, gid))).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o751);
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["run.sh"], "no temporary file is left behind");
    }

    #[test]
    fn a_leftover_temporary_file_does_not_block_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        fs::write(dir.path().join(".a.txt.tack-tmp"), "half").unwrap();
        write_atomic(&path, b"whole", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"whole");
        assert!(!dir.path().join(".a.txt.tack-tmp").exists());
        assert!(is_temp_name(".a.txt.tack-tmp"));
    }

    #[test]
    fn locks_exclude_each_other_within_a_process() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let held = FileLock::acquire(&root, "a.py").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let r = root.clone();
        let waiter = std::thread::spawn(move || {
            let _lock = FileLock::acquire(&r, "a.py").unwrap();
            tx.send(()).unwrap();
        });
        assert!(rx.recv_timeout(std::time::Duration::from_millis(200)).is_err(), "the lock is exclusive");
        let _other = FileLock::acquire(&root, "b.py").unwrap();
        drop(held);
        rx.recv_timeout(std::time::Duration::from_secs(10)).expect("released lock is taken");
        waiter.join().unwrap();
    }

    #[test]
    fn the_cache_returns_what_it_kept() {
        let cache = VersionCache::default();
        cache.remember(b"hello\n");
        assert_eq!(cache.get(&version_of(b"hello\n")).unwrap().as_slice(), b"hello\n");
        assert!(cache.get("0000000000000000").is_none());
    }
}

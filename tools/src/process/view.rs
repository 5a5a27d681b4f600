//! What a contained command sees of the filesystem, as an allow-list: only what is listed here
//! exists for it, so a credential, a socket or a cache nobody thought to list is simply absent.
//! Planned before the fork, in plain Rust; `mounts` makes it in the command's mount namespace.
//!
//! The command sees the system's folders read-only (`/etc` without what is not world-readable),
//! the root read-write, its scratch folder (also as `/tmp`), an empty home of its own with the
//! toolchains it runs bound read-only, and the build caches it writes as overlays: the user's
//! cache below, read-only, and a layer of tack's own above, one per root. What a command writes
//! to a cache stays in that layer, so a poisoned module never reaches the user's own builds.

use std::path::{Path, PathBuf};

/// The system's folders, seen read-only (merged-`/usr` links are copied as links).
const SYSTEM: &[&str] =
    &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc", "/var/lib", "/sys"];

/// Entries of `/etc` looked at for what is not world-readable; past it the rest of `/etc` is
/// hidden whole, which no real system reaches (Debian's has about 1,500).
const MAX_ETC_ENTRIES: usize = 20_000;

/// Toolchain folders in a home, by the variable that moves them and their usual name.
const HOME_TOOLCHAINS: &[(&str, &str)] = &[
    ("RUSTUP_HOME", ".rustup"),
    ("CARGO_HOME", ".cargo"),
    ("PYENV_ROOT", ".pyenv"),
    ("NVM_DIR", ".nvm"),
    ("SDKMAN_DIR", ".sdkman"),
    ("GOROOT", "sdk"),
];

/// Git's own configuration in a home: a commit inside `run` needs the user's name.
const GIT_CONFIG: &[&str] = &[".gitconfig", ".config/git"];

/// Folders below a home that hold more than toolchains: a `PATH` entry there is bound alone.
const SHARED_HOME_FOLDERS: &[&str] = &[".local", ".config"];

/// What to mount at one path of the command's filesystem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mount {
    /// The host's `source` at `target`.
    Bind { source: PathBuf, target: PathBuf, read_only: bool },
    /// A symbolic link at `at` holding `points_to`.
    Link { at: PathBuf, points_to: PathBuf },
    /// An empty writable folder of the command's own, gone with it.
    Scratch { at: PathBuf },
    /// `lower` read-only under tack's `upper`, writes going to `upper`.
    Overlay { at: PathBuf, lower: PathBuf, upper: PathBuf, work: PathBuf },
    /// An empty read-only file or folder over what is there.
    Hide { at: PathBuf, folder: bool },
}

impl Mount {
    pub(crate) fn target(&self) -> &Path {
        match self {
            Mount::Bind { target, .. } => target,
            Mount::Link { at, .. }
            | Mount::Scratch { at }
            | Mount::Overlay { at, .. }
            | Mount::Hide { at, .. } => at,
        }
    }
}

/// A build cache a command writes, and tack's layer for it in this root.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    pub path: PathBuf,
    /// Holds `upper/` and `work/`, made by [`cache_layer`].
    pub layer: PathBuf,
    /// `upper/` is a copy of the cache, bound in its place: where overlays are refused.
    pub copied: bool,
}

/// What one command is given beyond the system's folders.
#[derive(Debug)]
pub(crate) struct Sight<'a> {
    pub root: &'a Path,
    pub scratch: &'a Path,
    pub home: Option<&'a Path>,
    /// The `PATH` the command gets.
    pub path: Option<&'a std::ffi::OsStr>,
    /// Folders the user made writable (`[run] writable`, `--writable`, `CARGO_TARGET_DIR`).
    pub writable: &'a [PathBuf],
    /// Folders the user made readable (`[run] readable`, `--readable`).
    pub readable: &'a [PathBuf],
    pub caches: &'a [Cache],
    /// The command may reach the network: it needs the resolver's file where it lives.
    pub network: bool,
}

impl<'a> Sight<'a> {
    /// The root and the scratch folder only.
    pub(crate) fn new(root: &'a Path, scratch: &'a Path) -> Self {
        Sight {
            root,
            scratch,
            home: None,
            path: None,
            writable: &[],
            readable: &[],
            caches: &[],
            network: false,
        }
    }
}

/// The command's filesystem, parents before what is mounted inside them.
pub(crate) fn view(sight: &Sight<'_>) -> Vec<Mount> {
    let mut mounts = Vec::new();
    for folder in SYSTEM {
        let path = Path::new(folder);
        match path.symlink_metadata() {
            Ok(meta) if meta.file_type().is_symlink() => {
                if let Ok(points_to) = std::fs::read_link(path) {
                    mounts.push(Mount::Link { at: path.into(), points_to });
                }
            }
            Ok(meta) if meta.is_dir() => {
                mounts.push(Mount::Bind { source: path.into(), target: path.into(), read_only: true })
            }
            _ => {}
        }
    }
    mounts.extend(etc_hidden().iter().cloned());
    if sight.network {
        mounts.extend(resolver_file());
    }
    if let Some(home) = sight.home.filter(|h| h.is_absolute() && h.parent().is_some()) {
        mounts.push(Mount::Scratch { at: home.into() });
        for folder in toolchains(home, sight.path, sight.root) {
            mounts.push(Mount::Bind { source: folder.clone(), target: folder, read_only: true });
        }
    }
    for (path, read_only) in sight
        .readable
        .iter()
        .map(|p| (p, true))
        .chain(sight.writable.iter().map(|p| (p, false)))
        .chain([(&sight.root.to_path_buf(), false), (&sight.scratch.to_path_buf(), false)])
    {
        if path.exists() {
            mounts.push(Mount::Bind { source: path.clone(), target: path.clone(), read_only });
        }
    }
    // Not over a root that is (or holds) `/tmp`.
    if sight.scratch != Path::new("/tmp")
        && sight.scratch.is_dir()
        && !Path::new("/tmp").starts_with(sight.root)
    {
        mounts.push(Mount::Bind { source: sight.scratch.into(), target: "/tmp".into(), read_only: false });
    }
    for cache in sight.caches {
        let (upper, work) = (cache.layer.join("upper"), cache.layer.join("work"));
        if cache.path.is_dir() && !cache.copied {
            mounts.push(Mount::Overlay { at: cache.path.clone(), lower: cache.path.clone(), upper, work });
        } else {
            mounts.push(Mount::Bind { source: upper, target: cache.path.clone(), read_only: false });
        }
    }
    // Parents first; among equals, the order above (the system before the home, the root after
    // the scratch folder it may sit in).
    mounts.sort_by_key(|m| m.target().components().count());
    mounts
}

/// The toolchains a command in `home` runs: those its `PATH` reaches below the home (the whole
/// folder below it, since a shim calls the rest of its tool), those named by their variables or
/// found at their usual place, git's configuration, and `PATH` folders elsewhere outside the
/// system's folders.
fn toolchains(home: &Path, path: Option<&std::ffi::OsStr>, root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    for entry in path.map(std::env::split_paths).into_iter().flatten() {
        // The root's own (a `.venv/bin`, `node_modules/.bin`) is there already, writable.
        if !entry.is_absolute() || !entry.is_dir() || entry.starts_with(root) {
            continue;
        }
        // A `bin` folder's programs use their prefix's `lib` and `share` (a virtual
        // environment's packages, a Node prefix's modules).
        let prefix = entry.parent().filter(|_| entry.file_name().is_some_and(|n| n == "bin"));
        let folder = if let Ok(below) = entry.strip_prefix(home) {
            let Some(first) = below.components().next() else { continue };
            if SHARED_HOME_FOLDERS.iter().any(|s| Path::new(s) == Path::new(first.as_os_str())) {
                found.extend(prefix.map(|p| p.join("lib")).filter(|lib| lib.is_dir()));
                entry.clone()
            } else {
                home.join(first)
            }
        } else if !SYSTEM.iter().any(|s| entry.starts_with(s)) {
            prefix.map_or(entry.clone(), Path::to_path_buf)
        } else {
            continue;
        };
        // Never a folder holding the root, which would be bound read-only beneath it.
        found.push(if root.starts_with(&folder) { entry.clone() } else { folder });
    }
    for (variable, usual) in HOME_TOOLCHAINS {
        let named = std::env::var_os(variable).filter(|v| !v.is_empty()).map(PathBuf::from);
        let folder = named.unwrap_or_else(|| home.join(usual));
        if folder.is_absolute() && folder.is_dir() && !SYSTEM.iter().any(|s| folder.starts_with(s)) {
            found.push(folder);
        }
    }
    found.extend(GIT_CONFIG.iter().map(|p| home.join(p)).filter(|p| p.exists()));
    found.retain(|folder| !root.starts_with(folder) && !folder.starts_with(root));
    found.sort();
    // A folder inside another found one is bound with it.
    found.dedup_by(|inner, outer| inner.starts_with(outer));
    found
}

/// What in `/etc` is not world-readable, as last found. The walk (about 1,500 entries, a few
/// milliseconds) runs again in the background after each use, so a command's start does not
/// wait for it; a file made unreadable since is hidden from the command after the next walk.
fn etc_hidden() -> std::sync::Arc<Vec<Mount>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    static FOUND: Mutex<Option<Arc<Vec<Mount>>>> = Mutex::new(None);
    static WALKING: AtomicBool = AtomicBool::new(false);
    let walk = || Arc::new(unreadable_in(Path::new("/etc")));
    let cached = FOUND.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let Some(found) = cached else {
        let found = walk();
        *FOUND.lock().unwrap_or_else(|e| e.into_inner()) = Some(found.clone());
        return found;
    };
    if !WALKING.swap(true, Ordering::AcqRel) {
        let spawned = std::thread::Builder::new().name("tack-etc-walk".into()).spawn(move || {
            let fresh = walk();
            *FOUND.lock().unwrap_or_else(|e| e.into_inner()) = Some(fresh);
            WALKING.store(false, Ordering::Release);
        });
        if spawned.is_err() {
            WALKING.store(false, Ordering::Release);
        }
    }
    found
}

/// What in `dir` is not world-readable, to be hidden: files others may not read, folders
/// others may not list or enter (not looked into).
fn unreadable_in(dir: &Path) -> Vec<Mount> {
    use std::os::unix::fs::PermissionsExt;
    let mut hidden = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_ETC_ENTRIES {
                return vec![Mount::Hide { at: dir.into(), folder: true }];
            }
            let Ok(meta) = entry.path().symlink_metadata() else { continue };
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                if mode & 0o005 != 0o005 {
                    hidden.push(Mount::Hide { at: entry.path(), folder: true });
                } else {
                    pending.push(entry.path());
                }
            } else if meta.is_file() && mode & 0o004 == 0 {
                hidden.push(Mount::Hide { at: entry.path(), folder: false });
            }
        }
    }
    hidden
}

/// The resolver's configuration when `/etc/resolv.conf` links outside the system's folders
/// (systemd-resolved keeps it in `/run`): that one file, read-only.
fn resolver_file() -> Option<Mount> {
    let link = Path::new("/etc/resolv.conf");
    if !link.symlink_metadata().ok()?.file_type().is_symlink() {
        return None;
    }
    let file = std::fs::canonicalize(link).ok()?;
    if SYSTEM.iter().any(|s| file.starts_with(s)) || !file.is_file() {
        return None;
    }
    Some(Mount::Bind { source: file.clone(), target: file, read_only: true })
}

/// tack's layer over one cache for one root, made if missing: `<base>/<root's hash>/<cache's
/// hash>`, holding `upper/` (what commands wrote) and `work/` (overlayfs's own).
pub(crate) fn cache_layer(base: &Path, root: &Path, cache: &Path) -> std::io::Result<PathBuf> {
    let hash = |p: &Path| blake3::hash(p.as_os_str().as_encoded_bytes()).to_hex()[..16].to_string();
    let layer = base.join(hash(root)).join(hash(cache));
    for part in ["upper", "work"] {
        std::fs::create_dir_all(layer.join(part))?;
    }
    Ok(layer)
}

/// Makes `layer/upper` a copy of `cache` once (where overlays are refused): copied beside it,
/// then renamed into place, so a copy cut short is made again. Files, folders and links are
/// copied with their modes; other kinds are left out. Returns how many files it copied (0 when
/// the copy was there).
pub(crate) fn copy_cache(cache: &Path, layer: &Path) -> std::io::Result<u64> {
    let (upper, partial) = (layer.join("upper"), layer.join("upper.partial"));
    if layer.join("copied").exists() {
        return Ok(0);
    }
    if partial.exists() {
        std::fs::remove_dir_all(&partial)?;
    }
    let mut files = 0u64;
    let mut pending = vec![(cache.to_path_buf(), partial.clone())];
    while let Some((from, to)) = pending.pop() {
        let meta = from.symlink_metadata()?;
        std::fs::create_dir(&to)?;
        for entry in std::fs::read_dir(&from)? {
            let entry = entry?;
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            let kind = entry.file_type()?;
            if kind.is_dir() {
                pending.push((source, target));
            } else if kind.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
            } else if kind.is_file() {
                std::fs::copy(&source, &target)?;
                files += 1;
            }
        }
        std::fs::set_permissions(&to, meta.permissions())?;
    }
    if upper.exists() {
        std::fs::remove_dir_all(&upper)?;
    }
    std::fs::rename(&partial, &upper)?;
    std::fs::write(layer.join("copied"), b"")?;
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_sees_the_system_read_only_its_folders_writable_and_caches_as_overlays() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        for folder in [
            ".cargo/bin",
            ".pyenv/shims",
            ".local/bin",
            ".local/lib",
            ".local/share/keyrings",
            ".ssh",
            "go/pkg/mod",
        ] {
            std::fs::create_dir_all(home.path().join(folder)).unwrap();
        }
        std::fs::write(home.path().join(".gitconfig"), "[user]\n").unwrap();
        let path = std::env::join_paths([
            home.path().join(".cargo/bin"),
            home.path().join(".pyenv/shims"),
            home.path().join(".local/bin"),
            PathBuf::from("/usr/bin"),
        ])
        .unwrap();
        let caches = [
            Cache { path: home.path().join("go/pkg/mod"), layer: scratch.path().join("l1"), copied: false },
            Cache {
                path: home.path().join(".m2/repository"),
                layer: scratch.path().join("l2"),
                copied: false,
            },
        ];
        let mounts = view(&Sight {
            home: Some(home.path()),
            path: Some(&path),
            caches: &caches,
            ..Sight::new(root.path(), scratch.path())
        });
        let bound = |target: &Path| {
            mounts.iter().find_map(|m| match m {
                Mount::Bind { target: t, read_only, .. } if t == target => Some(*read_only),
                _ => None,
            })
        };
        assert_eq!(bound(Path::new("/usr")), Some(true));
        assert_eq!(bound(Path::new("/etc")), Some(true));
        assert_eq!(bound(root.path()), Some(false));
        assert_eq!(bound(scratch.path()), Some(false));
        assert_eq!(bound(Path::new("/tmp")), Some(false), "the scratch folder is also /tmp");
        let venv = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(venv.path().join("bin")).unwrap();
        let with_venv = view(&Sight {
            home: Some(home.path()),
            path: Some(&std::env::join_paths([venv.path().join("bin")]).unwrap()),
            ..Sight::new(root.path(), scratch.path())
        });
        let prefix = venv.path().to_path_buf();
        assert!(
            with_venv.contains(&Mount::Bind { source: prefix.clone(), target: prefix, read_only: true }),
            "a bin folder outside the home is bound with its prefix"
        );
        for toolchain in [".cargo", ".pyenv", ".local/bin", ".local/lib", ".gitconfig"] {
            assert_eq!(bound(&home.path().join(toolchain)), Some(true), "{toolchain}: {mounts:#?}");
        }
        for absent in [".ssh", ".local", ".local/share/keyrings"] {
            assert_eq!(bound(&home.path().join(absent)), None, "{absent} is not shown");
        }
        assert!(mounts.contains(&Mount::Scratch { at: home.path().into() }));
        assert!(
            mounts.contains(&Mount::Overlay {
                at: home.path().join("go/pkg/mod"),
                lower: home.path().join("go/pkg/mod"),
                upper: scratch.path().join("l1/upper"),
                work: scratch.path().join("l1/work"),
            }),
            "{mounts:#?}"
        );
        assert_eq!(
            bound(&home.path().join(".m2/repository")),
            Some(false),
            "a missing cache is tack's layer"
        );
        let depth = |p: &Path| mounts.iter().position(|m| m.target() == p).unwrap();
        assert!(depth(home.path()) < depth(&home.path().join(".cargo")));
        assert!(depth(Path::new("/tmp")) < depth(root.path()), "the root may sit in /tmp");
    }

    #[test]
    fn what_others_may_not_read_in_etc_is_hidden_and_the_rest_is_not() {
        use std::os::unix::fs::PermissionsExt;
        let etc = tempfile::tempdir().unwrap();
        let write = |name: &str, mode: u32| {
            let path = etc.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        write("passwd", 0o644);
        write("shadow", 0o640);
        write("ssl/private/key.pem", 0o600);
        write("ssl/certs/ca.pem", 0o644);
        std::fs::set_permissions(etc.path().join("ssl/private"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
        let mut hidden = unreadable_in(etc.path());
        hidden.sort_by(|a, b| a.target().cmp(b.target()));
        assert_eq!(
            hidden,
            vec![
                Mount::Hide { at: etc.path().join("shadow"), folder: false },
                Mount::Hide { at: etc.path().join("ssl/private"), folder: true },
            ]
        );
    }

    #[test]
    fn a_cache_is_copied_once_with_its_links_and_modes_and_a_cut_copy_is_made_again() {
        use std::os::unix::fs::PermissionsExt;
        let cache = tempfile::tempdir().unwrap();
        let layer = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(cache.path().join("a/b")).unwrap();
        std::fs::write(cache.path().join("a/b/f.txt"), "cached").unwrap();
        std::fs::write(cache.path().join("run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(cache.path().join("run.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::os::unix::fs::symlink("a/b/f.txt", cache.path().join("link")).unwrap();
        std::fs::create_dir_all(layer.path().join("upper.partial/left-over")).unwrap();
        assert_eq!(copy_cache(cache.path(), layer.path()).unwrap(), 2);
        let upper = layer.path().join("upper");
        assert_eq!(std::fs::read_to_string(upper.join("a/b/f.txt")).unwrap(), "cached");
        assert_eq!(std::fs::read_link(upper.join("link")).unwrap(), Path::new("a/b/f.txt"));
        assert_eq!(std::fs::metadata(upper.join("run.sh")).unwrap().permissions().mode() & 0o777, 0o755);
        assert!(!layer.path().join("upper.partial").exists());
        std::fs::write(upper.join("a/b/f.txt"), "changed by a command").unwrap();
        assert_eq!(copy_cache(cache.path(), layer.path()).unwrap(), 0, "copied once");
        assert_eq!(std::fs::read_to_string(upper.join("a/b/f.txt")).unwrap(), "changed by a command");
    }

    #[test]
    fn a_toolchain_in_the_root_or_holding_it_is_left_to_the_roots_own_bind() {
        let home = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let root = home.path().join("work/project");
        for folder in ["work/project/.venv/bin", "work/bin", ".cargo/bin"] {
            std::fs::create_dir_all(home.path().join(folder)).unwrap();
        }
        let path = std::env::join_paths([
            root.join(".venv/bin"),
            home.path().join("work/bin"),
            home.path().join(".cargo/bin"),
        ])
        .unwrap();
        // (This machine's own RUSTUP_HOME and the like are found too, outside the test's home.)
        let found: Vec<PathBuf> = toolchains(home.path(), Some(&path), &root)
            .into_iter()
            .filter(|f| f.starts_with(home.path()))
            .collect();
        assert_eq!(found, vec![home.path().join(".cargo"), home.path().join("work/bin")]);
        let mounts =
            view(&Sight { home: Some(home.path()), path: Some(&path), ..Sight::new(&root, scratch.path()) });
        let root_bind = mounts.iter().position(|m| m.target() == root).unwrap();
        assert!(
            !mounts.iter().any(
                |m| matches!(m, Mount::Bind { target, read_only: true, .. } if target.starts_with(&root))
            ),
            "nothing in the root is read-only: {mounts:#?}"
        );
        assert!(mounts[root_bind..].iter().all(|m| m.target() != home.path().join("work")));
        let slash_tmp = view(&Sight::new(Path::new("/tmp"), scratch.path()));
        assert!(
            !slash_tmp.iter().any(|m| matches!(m, Mount::Bind { target, source, .. } if target == Path::new("/tmp") && source != Path::new("/tmp"))),
            "a root at /tmp is not covered by the scratch folder"
        );
    }
}

//! The one list of what an agent may not change in a repository, because a person's own tools
//! run it later without asking: git's hooks and configuration, cargo's configuration,
//! pre-commit's and VS Code's. The writing tools refuse these paths and commands see them
//! read-only (`process::contain`); `allow_protected_writes` in the user's config lifts both.
//!
//! Left out on purpose, because a person runs them knowingly or is asked first: `.envrc`
//! (direnv asks for `direnv allow` after every change), `.idea/` (its run configurations start
//! when a person starts them), and `Makefile`, `package.json` scripts, `build.rs`,
//! `conftest.py` and the like, which are the code an agent is there to change.

use std::path::{Path, PathBuf};

/// Paths relative to the root, and folders whose whole content is protected (ending in `/`).
/// A `.git` folder's own parts are added by [`git_parts`].
const PROTECTED: &[&str] =
    &["tack.toml", ".git", ".cargo/config", ".cargo/config.toml", ".pre-commit-config.yaml", ".vscode/"];

/// What git runs or reads to decide what runs, inside one git folder.
const GIT_PARTS: &[&str] = &["hooks", "config", "config.worktree", "info"];

/// Whether the writing tools must refuse `rel` (a path relative to the root, `/`-separated).
pub(crate) fn is_protected(rel: &str) -> bool {
    let rel = rel.trim_start_matches("./");
    rel.starts_with(".git/")
        || PROTECTED.iter().any(|path| match path.strip_suffix('/') {
            Some(folder) => rel == folder || rel.starts_with(path),
            None => rel == *path,
        })
}

/// Whether the writing tools must refuse `rel` in `root`: a protected path, or beneath the
/// hooks folder the repository's git config names.
pub(crate) fn refuses(root: &Path, rel: &str) -> bool {
    is_protected(rel)
        || hooks_path(&root.join(".git/config"), root)
            .is_some_and(|hooks| normalize(&root.join(rel)).starts_with(hooks))
}

/// What a person reads when a writing tool refuses a protected path.
pub(crate) const REFUSAL: &str = "tack.toml, .git/, git's hooks folder, .cargo/config.toml, .pre-commit-config.yaml \
     and .vscode/ are not changed through tack's tools (they decide what tack, git, cargo and editors run later); a person can edit them, \
     or allow it with allow_protected_writes in their own tack config";

/// The protected paths of a repository for one command: those that exist are bound read-only
/// over themselves, folders that must not be swapped are bound over themselves writable, and
/// those that do not exist yet are checked after the command, which may not leave them behind.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Protection {
    /// Folders bound over themselves, so they cannot be renamed or replaced (`.git`).
    pub pinned: Vec<PathBuf>,
    /// Existing files and folders bound read-only.
    pub read_only: Vec<PathBuf>,
    /// Protected paths that do not exist: a command that makes one has it removed.
    pub absent: Vec<PathBuf>,
}

/// The protection of `root` as it is now.
pub(crate) fn protection(root: &Path) -> Protection {
    let mut out = Protection::default();
    let consider = |path: PathBuf, out: &mut Protection| {
        if path.symlink_metadata().is_ok() {
            out.read_only.push(path);
        } else {
            out.absent.push(path);
        }
    };
    for path in PROTECTED {
        if *path == ".git" {
            continue;
        }
        consider(root.join(path.trim_end_matches('/')), &mut out);
    }
    let git = root.join(".git");
    match git.symlink_metadata() {
        // A worktree's or submodule's `.git` file names its git folder: it must not be redirected.
        Ok(meta) if !meta.is_dir() => out.read_only.push(git),
        Ok(_) => {
            out.pinned.push(git.clone());
            for folder in git_folders(&git) {
                for part in GIT_PARTS {
                    consider(folder.join(part), &mut out);
                }
            }
            if let Some(hooks) = hooks_path(&git.join("config"), root)
                && hooks.starts_with(root)
                && !hooks.starts_with(&git)
            {
                consider(hooks, &mut out);
            }
        }
        Err(_) => out.absent.push(git),
    }
    out
}

/// The git folder and those of its submodules and worktrees (`modules/**`, `worktrees/*`).
fn git_folders(git: &Path) -> Vec<PathBuf> {
    let mut folders = vec![git.to_path_buf()];
    let mut pending = vec![git.join("modules")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            // A submodule's git folder holds HEAD; its own submodules sit in its `modules`.
            if path.join("HEAD").is_file() {
                pending.push(path.join("modules"));
                folders.push(path);
            } else if folders.len() < 10_000 {
                // A submodule named `a/b` lives at `modules/a/b`.
                pending.push(path);
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir(git.join("worktrees")) {
        folders.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    folders
}

/// Removes each of `absent` that exists now, and returns them relative to `root`: a command
/// may not leave a protected path behind. Runs after the command's last process is gone, so
/// nothing races it; a link is removed, never followed.
pub(crate) fn remove_new(root: &Path, absent: &[PathBuf]) -> Vec<String> {
    let mut removed = Vec::new();
    for path in absent {
        let Ok(meta) = path.symlink_metadata() else { continue };
        let gone = if meta.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) };
        let rel = path.strip_prefix(root).unwrap_or(path).display().to_string();
        match gone {
            Ok(()) => removed.push(rel),
            Err(err) => tracing::warn!("cannot remove {rel}, which a command made: {err}"),
        }
    }
    removed
}

/// `core.hooksPath` from a git config file, made absolute against the working tree: git runs
/// the hooks it finds there instead of `.git/hooks`.
fn hooks_path(config: &Path, root: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut text = String::new();
    // Bounded, and only a regular file: a repository's own file must not hang or exhaust tack.
    let file = std::fs::File::open(config).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    file.take(1 << 20).read_to_string(&mut text).ok()?;
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line.trim_start_matches('[').trim_end_matches(']').trim().eq_ignore_ascii_case("core");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        if in_core && key.trim().eq_ignore_ascii_case("hookspath") {
            let value = value.trim().trim_matches('"');
            found = Some(match value.strip_prefix("~/") {
                Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
                None => root.join(value),
            });
        }
    }
    found.map(|path| normalize(&path))
}

/// `path` with `.` and `..` folded, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// At most this many paths are bound read-only for each command against hard links; past it
/// the rest are named in the log. Each bind costs a command's start about 18 µs (4,096 of them
/// took `run true` from 12 ms to 87 ms in a debug build, BENCHMARKS.md), which is why folders
/// are bound whole where they can be.
pub(crate) const MAX_LINKED: usize = 4096;

/// What [`linked_outside`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Linked {
    /// What to bind read-only (at most [`MAX_LINKED`]): folders all of whose files are linked
    /// outside, and the linked files in folders that also hold others.
    pub binds: Vec<PathBuf>,
    /// How many paths there were to bind before the cut.
    pub wanted: usize,
    /// How many files are linked outside.
    pub files: usize,
}

/// Files under `root` (outside `.git`, ignored folders such as `.venv` and `node_modules`
/// included) that share their data with a file outside it: a hard link whose other names are
/// not all beneath the root. uv and pnpm link their shared caches this way, so a command that
/// appends to one would change the cache. Links are not followed.
///
/// A folder (below the root) every regular file beneath which is such a link is bound whole:
/// a package pnpm or uv installed is one bind, not one per file. New files cannot be made
/// there during a command then, which is how a package from a shared cache is meant to be
/// used; files under `__pycache__` do not count against it, since Python only skips writing
/// bytecode to a read-only folder.
pub(crate) fn linked_outside(root: &Path) -> Linked {
    use std::collections::{HashMap, HashSet};
    use std::os::unix::fs::MetadataExt;
    let mut seen: HashMap<(u64, u64), (u64, Vec<PathBuf>)> = HashMap::new();
    let mut unlinked: Vec<PathBuf> = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .filter_entry(|entry| entry.depth() != 1 || entry.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.nlink() > 1 {
            let (links, paths) = seen.entry((meta.dev(), meta.ino())).or_insert((meta.nlink(), Vec::new()));
            *links = meta.nlink();
            paths.push(entry.into_path());
        } else {
            unlinked.push(entry.into_path());
        }
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for (links, paths) in seen.into_values() {
        if (paths.len() as u64) < links {
            files.extend(paths);
        } else {
            unlinked.extend(paths);
        }
    }
    // Folders holding a file that is not linked outside (beyond bytecode caches), and so every
    // folder above them: those cannot be bound whole.
    let mut mixed: HashSet<&Path> = HashSet::new();
    for path in &unlinked {
        if path.strip_prefix(root).is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == "__pycache__")) {
            continue;
        }
        for dir in path.ancestors().skip(1) {
            if dir == root || !dir.starts_with(root) || !mixed.insert(dir) {
                break;
            }
        }
    }
    let mut binds: Vec<PathBuf> = files
        .iter()
        .map(|file| {
            let whole = file
                .ancestors()
                .skip(1)
                .take_while(|dir| *dir != root && dir.starts_with(root) && !mixed.contains(dir))
                .last();
            whole.unwrap_or(file).to_path_buf()
        })
        .collect();
    binds.sort();
    binds.dedup();
    let (files, wanted) = (files.len(), binds.len());
    binds.truncate(MAX_LINKED);
    Linked { binds, wanted, files }
}

/// Where users keep credentials, relative to their home folder: commands see each as empty.
const CREDENTIAL_STORES: &[&str] = &[
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".docker/config.json",
    ".kube",
    ".gnupg",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".git-credentials",
    ".config/git/credentials",
    // Inside folders a command sees (a toolchain's, a build cache's overlay); the rest of the
    // home is absent for commands where mount namespaces work.
    ".gradle/gradle.properties",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
];

/// Files outside any home that hold credentials.
const SYSTEM_CREDENTIALS: &[&str] = &["/etc/shadow", "/etc/gshadow"];

/// The credential stores commands may not read, that exist: the usual ones in `home`, the
/// system's, and what the user added (`unreadable`), less what the user allowed (`readable`,
/// which also opens everything beneath it).
pub(crate) fn unreadable(home: Option<&Path>, extra: &[PathBuf], readable: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = home
        .into_iter()
        .flat_map(|home| CREDENTIAL_STORES.iter().map(move |store| home.join(store)))
        .chain(SYSTEM_CREDENTIALS.iter().map(PathBuf::from))
        .chain(extra.iter().cloned())
        .filter(|path| !readable.iter().any(|open| path.starts_with(open)))
        .filter(|path| path.symlink_metadata().is_ok())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writing_tools_refuse_exactly_the_protected_paths() {
        let refused = [
            "tack.toml",
            ".git",
            ".git/config",
            ".git/hooks/pre-commit",
            "./.git/info/exclude",
            ".cargo/config.toml",
            ".cargo/config",
            ".pre-commit-config.yaml",
            ".vscode",
            ".vscode/settings.json",
        ];
        let allowed = [
            "src/tack.toml",
            ".gitignore",
            ".github/workflows/ci.yml",
            ".cargo/other.toml",
            "sub/.cargo/config.toml",
            ".vscodex",
            ".envrc",
            "Makefile",
        ];
        for rel in refused {
            assert!(is_protected(rel), "{rel} is protected");
        }
        for rel in allowed {
            assert!(!is_protected(rel), "{rel} is not protected");
        }
    }

    #[test]
    fn a_repository_protects_what_exists_read_only_and_watches_what_does_not() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        for dir in [".git/hooks", ".git/modules/lib/hooks", ".git/worktrees/w", ".husky"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join(".git/modules/lib/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n\tbare = false\n\thooksPath = .husky\n").unwrap();
        std::fs::write(root.join(".pre-commit-config.yaml"), "repos: []\n").unwrap();
        let found = protection(root);
        let rel = |paths: &[PathBuf]| -> Vec<String> {
            let mut out: Vec<String> =
                paths.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect();
            out.sort();
            out
        };
        assert_eq!(rel(&found.pinned), [".git"]);
        assert_eq!(
            rel(&found.read_only),
            [".git/config", ".git/hooks", ".git/modules/lib/hooks", ".husky", ".pre-commit-config.yaml"]
        );
        assert_eq!(
            rel(&found.absent),
            [
                ".cargo/config",
                ".cargo/config.toml",
                ".git/config.worktree",
                ".git/info",
                ".git/modules/lib/config",
                ".git/modules/lib/config.worktree",
                ".git/modules/lib/info",
                ".git/worktrees/w/config",
                ".git/worktrees/w/config.worktree",
                ".git/worktrees/w/hooks",
                ".git/worktrees/w/info",
                ".vscode",
                "tack.toml",
            ]
        );
    }

    #[test]
    fn only_files_linked_to_something_outside_the_root_are_found() {
        let outside = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir_all(root.join(".venv/lib")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(outside.path().join("cache.py"), "x = 1\n").unwrap();
        std::fs::hard_link(outside.path().join("cache.py"), root.join(".venv/lib/cache.py")).unwrap();
        // Both names inside the root: changing one changes nothing outside.
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        std::fs::hard_link(root.join("a.txt"), root.join("b.txt")).unwrap();
        std::fs::write(outside.path().join("obj"), "o\n").unwrap();
        std::fs::hard_link(outside.path().join("obj"), root.join(".git/objects/obj")).unwrap();
        std::fs::write(root.join("plain.txt"), "p\n").unwrap();
        // A file of the root's own beside the linked one: the link is bound alone.
        std::fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr\n").unwrap();
        let found = linked_outside(root);
        assert_eq!(found, Linked { binds: vec![root.join(".venv/lib")], wanted: 1, files: 1 });
        std::fs::write(root.join(".venv/lib/own.py"), "y = 2\n").unwrap();
        let found = linked_outside(root);
        assert_eq!(found, Linked { binds: vec![root.join(".venv/lib/cache.py")], wanted: 1, files: 1 });
    }

    #[test]
    fn a_folder_of_linked_files_is_bound_whole_and_bytecode_caches_do_not_count() {
        let outside = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        let link = |name: &str| {
            let twin = outside.path().join(name.replace('/', "_"));
            std::fs::write(&twin, name).unwrap();
            std::fs::create_dir_all(root.join(name).parent().unwrap()).unwrap();
            std::fs::hard_link(&twin, root.join(name)).unwrap();
        };
        // As pnpm lays out a package: every file of it linked from the store.
        link("node_modules/.pnpm/a@1/node_modules/a/index.js");
        link("node_modules/.pnpm/a@1/node_modules/a/lib/util.js");
        link("node_modules/.pnpm/b@2/node_modules/b/index.js");
        std::fs::write(root.join("node_modules/.pnpm/lock.yaml"), "lock\n").unwrap();
        // As uv lays out one, after Python ran it once.
        link(".venv/lib/site-packages/pkg/__init__.py");
        std::fs::create_dir_all(root.join(".venv/lib/site-packages/pkg/__pycache__")).unwrap();
        std::fs::write(root.join(".venv/lib/site-packages/pkg/__pycache__/x.pyc"), "pyc").unwrap();
        std::fs::write(root.join(".venv/lib/site-packages/INSTALLER"), "uv\n").unwrap();
        std::fs::write(root.join("main.py"), "import pkg\n").unwrap();
        let found = linked_outside(root);
        assert_eq!(
            found,
            Linked {
                binds: vec![
                    root.join(".venv/lib/site-packages/pkg"),
                    root.join("node_modules/.pnpm/a@1"),
                    root.join("node_modules/.pnpm/b@2"),
                ],
                wanted: 3,
                files: 4,
            }
        );
    }

    #[test]
    fn credential_stores_are_those_that_exist_less_what_the_user_opened() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::create_dir_all(home.path().join(".aws")).unwrap();
        std::fs::write(home.path().join(".netrc"), "machine x password y\n").unwrap();
        let mine = home.path().join("vault");
        std::fs::write(&mine, "secret").unwrap();
        let found = unreadable(Some(home.path()), std::slice::from_ref(&mine), &[home.path().join(".aws")]);
        let in_home: Vec<_> = found.iter().filter(|p| p.starts_with(home.path())).collect();
        assert_eq!(in_home, [&home.path().join(".netrc"), &home.path().join(".ssh"), &mine]);
    }
}

//! The path guard: every path an agent names is resolved here, and nothing outside the root
//! is ever touched.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tack_indexer::RootDir;

/// The repository root every tool is confined to.
#[derive(Debug, Clone)]
pub struct Root {
    /// The root as canonicalized at start-up (symlinks resolved).
    canonical: PathBuf,
    /// The root as the user gave it, so an absolute path with that prefix is accepted too.
    given: PathBuf,
    /// The root's open descriptor: files are opened beneath it, never by their full path.
    dir: Arc<RootDir>,
}

/// A path that passed the guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// Absolute, inside the canonical root. For an existing path, symlinks are resolved.
    pub abs: PathBuf,
    /// Relative to the root, with `/` separators; `.` for the root itself.
    pub rel: String,
}

/// Why a path was refused. The message names the path and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    pub path: String,
    pub reason: String,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

impl std::error::Error for PathError {}

impl Root {
    /// Opens a root directory; fails when it does not exist or is not a directory.
    pub fn new(dir: &Path) -> std::io::Result<Self> {
        let canonical = dir.canonicalize()?;
        if !canonical.is_dir() {
            return Err(std::io::Error::other(format!("{} is not a directory", dir.display())));
        }
        let given = if dir.is_absolute() { dir.to_path_buf() } else { canonical.clone() };
        let dir = Arc::new(RootDir::open(&canonical)?);
        Ok(Self { canonical, given, dir })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.canonical
    }

    /// The root's descriptor, to open a resolved path's `rel` beneath it: a folder swapped for
    /// a link after [`Root::resolve`] looked makes that open fail instead of leading out.
    pub fn dir(&self) -> &RootDir {
        &self.dir
    }

    /// Resolves a path an agent sent: relative to the root, `./` tolerated, an absolute path
    /// accepted only when it lies inside the root. `..` that leaves the root, symlinks that
    /// lead out, NUL bytes and names that are not UTF-8 are refused.
    pub fn resolve(&self, input: &str) -> Result<ResolvedPath, PathError> {
        let refuse = |reason: String| PathError { path: input.to_string(), reason };
        if input.contains('\0') {
            return Err(refuse("the path contains a NUL byte; send the path without it".into()));
        }
        let trimmed = input.trim();
        let as_path = Path::new(trimmed);
        let relative: &Path = if as_path.is_absolute() {
            match as_path.strip_prefix(&self.canonical).or_else(|_| as_path.strip_prefix(&self.given)) {
                Ok(rest) => rest,
                Err(_) => {
                    return Err(refuse(format!(
                        "the absolute path is outside the repository root {}; use a path relative to the root",
                        self.canonical.display()
                    )));
                }
            }
        } else {
            as_path
        };

        // Resolve `.` and `..` by hand first, so an escape is caught before the disk is asked.
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for component in relative.components() {
            match component {
                Component::CurDir => {}
                Component::Normal(name) => parts.push(name),
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(refuse(
                            "the path leaves the repository root through `..`; use a path inside the root"
                                .into(),
                        ));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(refuse("the path is not relative to the root".into()));
                }
            }
        }
        let mut abs = self.canonical.clone();
        for part in &parts {
            abs.push(part);
        }

        // Symlinks: canonicalize the longest existing prefix and check it stays inside.
        let mut existing = abs.as_path();
        let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
        loop {
            if existing.symlink_metadata().is_ok() {
                break;
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    missing.push(name);
                    existing = parent;
                }
                _ => break,
            }
        }
        let mut resolved = match existing.canonicalize() {
            Ok(path) => path,
            Err(_) => {
                return Err(refuse(
                    "the path goes through a symlink whose target does not exist; name the target instead"
                        .into(),
                ));
            }
        };
        if !resolved.starts_with(&self.canonical) {
            return Err(refuse(format!(
                "the path leads outside the repository root through a symlink (to {}); tack only touches files inside the root",
                resolved.display()
            )));
        }
        for name in missing.iter().rev() {
            resolved.push(name);
        }
        let rel_path = resolved.strip_prefix(&self.canonical).unwrap_or(Path::new(""));
        let Some(rel) = rel_path.to_str() else {
            return Err(refuse("the resolved name is not valid UTF-8; tack only handles UTF-8 paths".into()));
        };
        let rel = if rel.is_empty() { ".".to_string() } else { rel.replace('\\', "/") };
        Ok(ResolvedPath { abs: resolved, rel })
    }

    /// The root-relative display form of an absolute path under the root, if it is UTF-8.
    pub fn relative(&self, abs: &Path) -> Option<String> {
        let rel = abs.strip_prefix(&self.canonical).ok()?.to_str()?;
        Some(if rel.is_empty() { ".".to_string() } else { rel.replace('\\', "/") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Root) {
        let repo = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(repo.path().join("src")).unwrap();
        fs::write(repo.path().join("src/a.py"), "x = 1\n").unwrap();
        fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), repo.path().join("leak")).unwrap();
        std::os::unix::fs::symlink(outside.path(), repo.path().join("outdir")).unwrap();
        std::os::unix::fs::symlink("src/a.py", repo.path().join("inside_link")).unwrap();
        let root = Root::new(repo.path()).unwrap();
        (repo, outside, root)
    }

    fn reason(root: &Root, p: &str) -> String {
        root.resolve(p).unwrap_err().reason
    }

    #[test]
    fn plain_and_lenient_forms_resolve_to_one_path() {
        let (repo, _o, root) = setup();
        for p in ["src/a.py", "./src/a.py", "src/./a.py", "src/../src/a.py", " src/a.py"] {
            assert_eq!(root.resolve(p).unwrap().rel, "src/a.py", "{p}");
        }
        let abs = format!("{}/src/a.py", repo.path().display());
        assert_eq!(root.resolve(&abs).unwrap().rel, "src/a.py");
        assert_eq!(root.resolve(".").unwrap().rel, ".");
        assert_eq!(root.resolve("src/new.py").unwrap().rel, "src/new.py");
        assert_eq!(root.resolve("inside_link").unwrap().rel, "src/a.py");
    }

    #[test]
    fn escapes_are_refused_with_a_reason() {
        let (_r, outside, root) = setup();
        assert!(reason(&root, "../x").contains("leaves the repository root"));
        assert!(reason(&root, "src/../../x").contains("leaves the repository root"));
        assert!(reason(&root, "/etc/passwd").contains("outside the repository root"));
        assert!(reason(&root, "leak").contains("symlink"));
        assert!(reason(&root, "outdir/secret").contains("symlink"));
        assert!(reason(&root, "outdir/new_file").contains("symlink"));
        assert!(reason(&root, "a\0b").contains("NUL"));
        let outside_abs = format!("{}/secret", outside.path().display());
        assert!(reason(&root, &outside_abs).contains("outside the repository root"));
    }
}

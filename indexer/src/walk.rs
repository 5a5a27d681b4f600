//! Which files belong to the repository: `.gitignore` (and `.ignore`) rules, hidden files
//! skipped, `.git` never entered, plus the extra globs from `tack.toml`.
//!
//! The `ignore` crate walks, but tack reads the ignore files itself: the crate opens each one
//! by path and reads it whole, so a `.gitignore` linked to `/dev/zero` exhausted memory and a
//! FIFO one hung the walk. Here each is read only as a regular file beneath the root, up to
//! [`MAX_IGNORE_FILE_BYTES`]; a refused one is reported once and treated as absent. The rules
//! are the crate's as tack configured it: a deeper file overrides a shallower one, any `.ignore`
//! match wins over a `.gitignore` one, which wins over `.git/info/exclude`; `.gitignore` applies
//! inside a git repository or not; no global excludes file; nothing above the root is read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::{DirEntry, Match, WalkBuilder};

use crate::Error;

/// The most tack reads of one ignore file (or a `.git` file naming a worktree's git folder).
/// The largest `.gitignore` files in the wild are tens of kilobytes.
pub(crate) const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;

/// Where a refused ignore file is reported: the message names the file and why.
type Sink = Arc<dyn Fn(&str) + Send + Sync>;

/// The repository's file filter, built once and shared by every walk.
#[derive(Clone)]
pub struct Filter {
    overrides: Option<Override>,
    rules: Arc<Rules>,
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filter").field("root", &self.rules.root).finish_non_exhaustive()
    }
}

/// What every walk of one filter shares: the root, and which refusals were already reported.
struct Rules {
    root: PathBuf,
    /// The root with its links resolved, for telling whether a link leads outside it.
    real_root: PathBuf,
    reported: Mutex<HashSet<PathBuf>>,
    sink: Option<Sink>,
}

impl Filter {
    /// A filter for `root` with extra gitignore-style globs; fails on a glob that does not parse.
    pub fn new(root: &Path, extra_ignores: &[String]) -> Result<Self, Error> {
        let rules = Arc::new(Rules {
            root: root.to_path_buf(),
            real_root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
            reported: Mutex::new(HashSet::new()),
            sink: None,
        });
        let globs: Vec<&str> = extra_ignores.iter().map(|g| g.trim()).filter(|g| !g.is_empty()).collect();
        if globs.is_empty() {
            return Ok(Self { overrides: None, rules });
        }
        let mut ob = OverrideBuilder::new(root);
        for glob in &globs {
            // In an override set, a glob starting with `!` excludes what it matches.
            ob.add(&format!("!{}", glob.trim_start_matches('!'))).map_err(|err| glob_error(glob, err))?;
        }
        let overrides = ob.build().map_err(|err| glob_error(&globs.join(", "), err))?;
        Ok(Self { overrides: Some(overrides), rules })
    }

    /// The same filter, reporting each refused ignore file once to `sink` (the server logs it).
    pub fn with_refusals_to(self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        let rules = Arc::new(Rules {
            root: self.rules.root.clone(),
            real_root: self.rules.real_root.clone(),
            reported: Mutex::new(HashSet::new()),
            sink: Some(Arc::new(sink)),
        });
        Self { overrides: self.overrides, rules }
    }

    /// A walker over `dir` (inside the root) with the repository's rules, in name order.
    pub fn builder(&self, dir: &Path) -> WalkBuilder {
        let mut builder = WalkBuilder::new(dir);
        // The crate reads no ignore file and hides nothing itself: a `.gitignore` may
        // un-ignore a hidden file, so both are decided in one place, `Walk::admits`.
        builder
            .hidden(false)
            .parents(false)
            .ignore(false)
            .git_ignore(false)
            .git_global(false)
            .git_exclude(false)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b));
        if let Some(overrides) = &self.overrides {
            builder.overrides(overrides.clone());
        }
        // Each walk reads the ignore files afresh (they may have changed since the last).
        let walk = Walk { rules: self.rules.clone(), levels: Mutex::new(HashMap::new()) };
        builder.filter_entry(move |entry| walk.admits(entry));
        builder
    }
}

/// One walk's ignore rules, read folder by folder as the walk reaches them.
struct Walk {
    rules: Arc<Rules>,
    levels: Mutex<HashMap<PathBuf, Arc<Level>>>,
}

/// The rules one folder adds, and its parent folder's.
struct Level {
    ignore: Gitignore,
    git_ignore: Gitignore,
    git_exclude: Gitignore,
    parent: Option<Arc<Level>>,
}

impl Walk {
    /// Whether the walk yields (and enters) `entry`.
    fn admits(&self, entry: &DirEntry) -> bool {
        if entry.depth() == 0 {
            return true;
        }
        let path = entry.path();
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let (mut ignore, mut git_ignore, mut git_exclude) = (Match::None, Match::None, Match::None);
        let mut level = path.parent().and_then(|dir| self.level(dir));
        while let Some(current) = level {
            if ignore.is_none() {
                ignore = current.ignore.matched(path, is_dir).map(|_| ());
            }
            if git_ignore.is_none() {
                git_ignore = current.git_ignore.matched(path, is_dir).map(|_| ());
            }
            if git_exclude.is_none() {
                git_exclude = current.git_exclude.matched(path, is_dir).map(|_| ());
            }
            level = current.parent.clone();
        }
        match ignore.or(git_ignore).or(git_exclude) {
            Match::Ignore(_) => false,
            Match::Whitelist(_) => true,
            Match::None => !entry.file_name().as_encoded_bytes().starts_with(b"."),
        }
    }

    /// The rules in force in `dir`: its own and every folder's above it up to the root.
    fn level(&self, dir: &Path) -> Option<Arc<Level>> {
        let root = &self.rules.root;
        if !dir.starts_with(root) {
            return None;
        }
        if let Some(level) = self.levels.lock().expect("ignore levels").get(dir) {
            return Some(level.clone());
        }
        // Built without the lock held: the parent's level takes it again, and reading files
        // under a lock would make the other walker threads wait.
        let parent = if dir == root.as_path() { None } else { dir.parent().and_then(|up| self.level(up)) };
        let level = Arc::new(Level {
            ignore: self.gitignore(dir, &dir.join(".ignore"), true),
            git_ignore: self.gitignore(dir, &dir.join(".gitignore"), true),
            git_exclude: self.git_exclude(dir),
            parent,
        });
        Some(self.levels.lock().expect("ignore levels").entry(dir.to_path_buf()).or_insert(level).clone())
    }

    /// The rules of the ignore file at `path`, for paths under `dir`; none when it is absent,
    /// unreadable or refused. `beneath`: a link must stay inside the root.
    fn gitignore(&self, dir: &Path, path: &Path, beneath: bool) -> Gitignore {
        let mut builder = GitignoreBuilder::new(dir);
        if let Some(bytes) = self.read(path, beneath) {
            // As the crate reads them: a line that is not UTF-8 or does not parse is skipped,
            // a leading byte-order mark is dropped.
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let Ok(line) = std::str::from_utf8(line) else { continue };
                let line = if i == 0 { line.trim_start_matches('\u{feff}') } else { line };
                let _ = builder.add_line(Some(path.to_path_buf()), line);
            }
        }
        builder.build().unwrap_or_else(|_| Gitignore::empty())
    }

    /// `.git/info/exclude` where `dir` holds a git folder; for a worktree (a `.git` file) the
    /// one in its common git folder, which may be outside the root.
    fn git_exclude(&self, dir: &Path) -> Gitignore {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else { return Gitignore::empty() };
        if meta.is_dir() {
            return self.gitignore(dir, &dot_git.join("info/exclude"), false);
        }
        let first_line = |path: &Path, beneath: bool| -> Option<String> {
            let bytes = self.read(path, beneath)?;
            let text = String::from_utf8(bytes).ok()?;
            Some(text.lines().next()?.to_string())
        };
        let Some(git_dir) =
            first_line(&dot_git, true).and_then(|l| l.strip_prefix("gitdir: ").map(str::to_string))
        else {
            return Gitignore::empty();
        };
        let git_dir = dir.join(git_dir);
        // A submodule's git folder has no `commondir`, and the crate read no exclude file there.
        let Some(common) = first_line(&git_dir.join("commondir"), false) else { return Gitignore::empty() };
        let common = if common.starts_with('.') { git_dir.join(common) } else { PathBuf::from(common) };
        self.gitignore(dir, &common.join("info/exclude"), false)
    }

    /// The bytes of `path`, or `None` (reporting a refusal once).
    fn read(&self, path: &Path, beneath: bool) -> Option<Vec<u8>> {
        let within = beneath.then_some(self.rules.real_root.as_path());
        match crate::beneath::read_bounded(path, MAX_IGNORE_FILE_BYTES, within) {
            Ok(bytes) => bytes,
            // Refused: a FIFO, a device, a link leading out, too big.
            Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                self.rules.report(path, &err.to_string());
                None
            }
            // Unreadable for another reason (permissions): as the crate did, no rules.
            Err(_) => None,
        }
    }
}

impl Rules {
    fn report(&self, path: &Path, reason: &str) {
        let first = self.reported.lock().expect("reported refusals").insert(path.to_path_buf());
        if first && let Some(sink) = &self.sink {
            sink(&format!("{}: not read, so its ignore rules do not apply: {reason}", path.display()));
        }
    }
}

/// The error for `glob`: the glob parser's reason alone, as the message names the glob.
fn glob_error(glob: &str, err: ignore::Error) -> Error {
    let reason = match err {
        ignore::Error::Glob { err, .. } => err,
        other => other.to_string(),
    };
    Error::IgnoreGlob { glob: glob.to_string(), reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn files(root: &Path, extra: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Filter::new(root, extra)
            .unwrap()
            .builder(root)
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn gitignore_hidden_and_extra_globs_are_respected() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(root.join("build")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".gitignore"), "build/\n*.log\n").unwrap();
        fs::write(root.join("src/a.py"), "").unwrap();
        fs::write(root.join("src/gen.py"), "").unwrap();
        fs::write(root.join("build/out.py"), "").unwrap();
        fs::write(root.join("x.log"), "").unwrap();
        fs::write(root.join(".git/config"), "").unwrap();
        fs::write(root.join(".env"), "").unwrap();
        assert_eq!(files(root, &[]), vec!["src/a.py", "src/gen.py"]);
        assert_eq!(files(root, &["src/gen.py".to_string()]), vec!["src/a.py"]);
    }

    /// A repository exercising every precedence rule: a nested `.gitignore` that re-includes
    /// with `!`, an `.ignore` that overrides a `.gitignore` both ways, a deeper file overriding
    /// a shallower one, a directory-only pattern, a hidden file re-included, `.git/info/exclude`.
    fn precedence_repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = [
            (".gitignore", "*.log\nbuild/\ngen_*.py\n!.keep.py\nsecret.py\n"),
            (".ignore", "!secret.py\nscratch.py\n"),
            (".git/info/exclude", "local.py\n"),
            ("a.py", ""),
            ("x.log", ""),
            (".keep.py", ""),
            (".hidden.py", ""),
            ("secret.py", ""),
            ("scratch.py", ""),
            ("local.py", ""),
            ("gen_a.py", ""),
            ("build/out.py", ""),
            ("src/build", "a file named like the ignored folder"),
            ("src/.gitignore", "!gen_*.py\n!important.log\nlocal_src.py\n"),
            ("src/gen_b.py", ""),
            ("src/important.log", ""),
            ("src/other.log", ""),
            ("src/local_src.py", ""),
            ("src/deep/.ignore", "!local_src.py\nlocal.py\n"),
            ("src/deep/local_src.py", ""),
            ("src/deep/local.py", ""),
            ("src/deep/gen_c.py", ""),
        ];
        for (path, text) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    const PRECEDENCE_EXPECTED: &[&str] = &[
        ".keep.py",
        "a.py",
        "secret.py",
        "src/build",
        "src/deep/gen_c.py",
        "src/deep/local_src.py",
        "src/gen_b.py",
        "src/important.log",
    ];

    #[test]
    fn nested_gitignore_negations_and_ignore_files_keep_the_crates_precedence() {
        let dir = precedence_repository();
        let root = dir.path();
        assert_eq!(files(root, &[]), PRECEDENCE_EXPECTED);
        // The same repository walked by the crate reading the files itself, as tack did before.
        let mut crate_walk: Vec<String> = WalkBuilder::new(root)
            .parents(false)
            .require_git(false)
            .git_global(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        crate_walk.sort();
        assert_eq!(crate_walk, PRECEDENCE_EXPECTED);
        // A walk that starts in a folder still applies the rules of the folders above it.
        let sub: Vec<String> = Filter::new(root, &[])
            .unwrap()
            .builder(&root.join("src/deep"))
            .build()
            .flatten()
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(sub, ["src/deep/gen_c.py", "src/deep/local_src.py"]);
    }

    #[test]
    fn a_fifo_device_huge_or_outside_ignore_file_is_refused_once_and_treated_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        for sub in ["fifo", "huge", "out", "linked"] {
            fs::create_dir_all(root.join(sub)).unwrap();
            fs::write(root.join(sub).join("a.py"), "").unwrap();
            fs::write(root.join(sub).join("b.py"), "").unwrap();
        }
        fs::write(root.join(".gitignore"), "*.tmp\n").unwrap();
        fs::write(root.join("x.tmp"), "").unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, root.join("fifo/.gitignore"), rustix::fs::Mode::from(0o644))
            .unwrap();
        // Over the bound: every line names b.py, so reading it would drop b.py.
        let huge = "b.py\n".repeat((MAX_IGNORE_FILE_BYTES as usize / 5) + 1);
        fs::write(root.join("huge/.gitignore"), huge).unwrap();
        fs::write(outside.path().join("rules"), "b.py\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("rules"), root.join("out/.gitignore")).unwrap();
        // A link that stays inside the root is followed, as before.
        fs::write(root.join("linked/rules"), "b.py\n").unwrap();
        std::os::unix::fs::symlink("rules", root.join("linked/.gitignore")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join(".ignore")).unwrap();

        let reports = Arc::new(Mutex::new(Vec::new()));
        let sink = reports.clone();
        let filter = Filter::new(root, &[])
            .unwrap()
            .with_refusals_to(move |msg| sink.lock().unwrap().push(msg.to_string()));
        // On a thread, so a walk that blocks on the FIFO fails the test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let walk_root = root.to_path_buf();
        std::thread::spawn(move || {
            for _ in 0..2 {
                let mut seen: Vec<String> = filter
                    .builder(&walk_root)
                    .build()
                    .flatten()
                    .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                    .map(|e| e.path().strip_prefix(&walk_root).unwrap().to_string_lossy().into_owned())
                    .collect();
                seen.sort();
                tx.send(seen).unwrap();
            }
        });
        for _ in 0..2 {
            let seen = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the walk blocked");
            assert_eq!(
                seen,
                [
                    "fifo/a.py",
                    "fifo/b.py",
                    "huge/a.py",
                    "huge/b.py",
                    "linked/a.py",
                    "linked/rules",
                    "out/a.py",
                    "out/b.py"
                ]
            );
        }
        // One report per refused file across both walks, naming it and why.
        let mut reports = reports.lock().unwrap().clone();
        reports.sort();
        let root_text = root.display().to_string();
        let reports: Vec<String> = reports.iter().map(|r| r.replace(&root_text, "ROOT")).collect();
        let outside_text = outside.path().canonicalize().unwrap().display().to_string();
        let reports: Vec<String> = reports.iter().map(|r| r.replace(&outside_text, "OUTSIDE")).collect();
        assert_eq!(
            reports,
            [
                "ROOT/.ignore: not read, so its ignore rules do not apply: it is a symbolic link leading outside the root (to /dev/zero)",
                "ROOT/fifo/.gitignore: not read, so its ignore rules do not apply: it is a FIFO (named pipe); tack reads regular files only",
                "ROOT/huge/.gitignore: not read, so its ignore rules do not apply: it holds 1048580 bytes, over the 1048576 bytes tack reads of such a file",
                "ROOT/out/.gitignore: not read, so its ignore rules do not apply: it is a symbolic link leading outside the root (to OUTSIDE/rules)",
            ]
        );
    }

    #[test]
    fn a_bad_glob_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let err = Filter::new(dir.path(), &["src/[".to_string()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the ignore glob \"src/[\" does not parse: unclosed character class; missing ']'"
        );
    }
}

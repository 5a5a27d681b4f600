//! The one list of what an agent may not change in a repository, because a person's own tools
//! read it and run what it names later, when the person does something that does not ask to
//! run the project's code: `git status` or `commit`, entering the folder, opening an editor or
//! an agent, a toolchain's `--version`. Four kinds ([`Kind`]), each protected at any depth:
//! git's metadata, hook managers' configuration, toolchain selectors and wrappers, and agents'
//! and editors' configuration. The writing tools refuse them ([`refuses`]); for a command, those
//! that exist are bound read-only and `.git` folders pinned ([`protection`]), and those it made
//! are removed after its last process is gone ([`remove_new`]). `allow_protected_writes` in the
//! user's config lifts both.
//!
//! Left out on purpose, because a person runs them knowingly or is asked first: `.envrc`
//! (direnv asks for `direnv allow` after every change), `.idea/` (its run configurations start
//! when a person starts them), and `Makefile`, `package.json` scripts, `build.rs`,
//! `conftest.py` and the like, which are the code an agent is there to change.

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::workspace::git_files::{self, Stamp, normalize};

/// What reads a protected path, which is what a refusal or a removal says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `.git` folders and files, their hooks and config, `.gitmodules`, submodule entries.
    Git,
    /// Hook managers' configuration and the folder `core.hooksPath` names.
    HookManager,
    /// Toolchain selectors and wrappers, which a toolchain's every command reads.
    Toolchain,
    /// Agents' and editors' own configuration, tack's among them.
    AgentOrEditor,
}

impl Kind {
    /// What it is and what runs it, in a few words.
    fn what(self) -> &'static str {
        match self {
            Kind::Git => "git's own metadata, from which git takes the hooks and commands it runs",
            Kind::HookManager => "a git hook manager's configuration, whose hooks run at the next commit",
            Kind::Toolchain => {
                "a toolchain selector or wrapper setting, which the toolchain's next command (even --version) runs"
            }
            Kind::AgentOrEditor => {
                "an agent's or editor's configuration, which runs when it opens this folder"
            }
        }
    }
}

/// What a person reads when a writing tool refuses a path of `kind`.
pub(crate) fn refusal(kind: Kind) -> String {
    format!(
        "it is {}; a person can edit it, or allow it with allow_protected_writes in their own tack config",
        kind.what()
    )
}

/// File and folder names protected wherever they are; a folder's whole content with it.
const NAMES: &[(&str, Kind)] = &[
    // git acts on a nested repository when it is a submodule; editors (VS Code scans for
    // repositories) and a person entering the folder act on any.
    (".git", Kind::Git),
    (".gitmodules", Kind::Git),
    (".husky", Kind::HookManager),
    (".pre-commit-config.yaml", Kind::HookManager),
    (".overcommit.yml", Kind::HookManager),
    // rustup runs the toolchain a `path =` names; pyenv and asdf resolve versions to folders.
    ("rust-toolchain", Kind::Toolchain),
    ("rust-toolchain.toml", Kind::Toolchain),
    (".npmrc", Kind::Toolchain),
    (".yarnrc", Kind::Toolchain),
    (".yarnrc.yml", Kind::Toolchain),
    (".tool-versions", Kind::Toolchain),
    (".python-version", Kind::Toolchain),
    (".claude", Kind::AgentOrEditor),
    (".mcp.json", Kind::AgentOrEditor),
    (".codex", Kind::AgentOrEditor),
    (".cursor", Kind::AgentOrEditor),
    // All of it, not only `settings.json` and `tasks.json`: VS Code also starts the servers
    // `mcp.json` names, and its releases add files; an agent rarely needs to write there.
    (".vscode", Kind::AgentOrEditor),
    ("tack.toml", Kind::AgentOrEditor),
];

/// Paths protected wherever they are, by their last components.
const PATHS: &[(&str, Kind)] = &[
    (".cargo/config", Kind::Toolchain),
    (".cargo/config.toml", Kind::Toolchain),
    ("gradle/wrapper/gradle-wrapper.properties", Kind::Toolchain),
    (".mvn/wrapper/maven-wrapper.properties", Kind::Toolchain),
    (".mvn/extensions.xml", Kind::Toolchain),
    // Maven's launcher passes it to the JVM at every command, `mvn --version` included: a
    // `-javaagent:` there runs a jar. (`.mvn/maven.config` is left out: it changes what a build
    // does, and a build runs the project's code anyway.)
    (".mvn/jvm.config", Kind::Toolchain),
    (".bundle/config", Kind::Toolchain),
];

/// What git runs or reads to decide what runs, inside one git folder: `commondir` and
/// `objects/info/alternates` point it at another folder's config and objects.
const GIT_PARTS: &[&str] =
    &["hooks", "config", "config.worktree", "info", "commondir", "gitdir", "objects/info/alternates"];

/// Lefthook's configuration, in each name and format it reads.
fn lefthook(name: &[u8]) -> bool {
    let name = name.strip_prefix(b".").unwrap_or(name);
    let Some(rest) = name.strip_prefix(b"lefthook") else { return false };
    let rest = rest.strip_prefix(b"-local").unwrap_or(rest);
    matches!(rest, b".yml" | b".yaml" | b".toml" | b".json" | b".jsonc")
}

/// The kind of what is named `name` in the folder `parent` (relative to the root), itself, not
/// of a folder above it. This runs for every entry of the tree: names are compared as bytes,
/// and `parent` looked at only for a name [`PATHS`] ends with.
fn member_named(name: &[u8], parent: &Path) -> Option<Kind> {
    if lefthook(name) {
        return Some(Kind::HookManager);
    }
    if let Some((_, kind)) = NAMES.iter().find(|(n, _)| n.as_bytes() == name) {
        return Some(*kind);
    }
    PATHS
        .iter()
        .find(|(path, _)| {
            path.rsplit_once('/')
                .is_some_and(|(dirs, last)| last.as_bytes() == name && parent.ends_with(dirs))
        })
        .map(|(_, kind)| *kind)
}

/// The kind of `rel` itself, not of a folder above it.
fn member(rel: &Path) -> Option<Kind> {
    use std::os::unix::ffi::OsStrExt;
    member_named(rel.file_name()?.as_bytes(), rel.parent().unwrap_or(Path::new("")))
}

/// The kind of protected path `rel` (relative to the root, `/`-separated) is or lies in.
pub(crate) fn protected_kind(rel: &str) -> Option<Kind> {
    Path::new(rel).ancestors().find_map(member)
}

/// Whether the writing tools must refuse `rel` in `root`, and why: a protected path, or beneath
/// a hooks folder or a config file included by the config of a repository above it.
pub(crate) fn refuses(root: &Path, rel: &str) -> Option<Kind> {
    if let Some(kind) = protected_kind(rel) {
        return Some(kind);
    }
    let abs = normalize(&root.join(rel));
    let outer = outer_hooks();
    let mut dir = abs.parent();
    while let Some(worktree) = dir.filter(|d| d.starts_with(root)) {
        if let Some(git_dir) = git_files::git_dir_of(&worktree.join(".git")) {
            let named = named_by_config(&git_dir, Some(worktree), &outer);
            if let Some((_, kind)) =
                named.iter().find(|(path, _)| abs.starts_with(path) && !worktree.starts_with(path))
            {
                return Some(*kind);
            }
        }
        dir = worktree.parent();
    }
    None
}

/// Folders a package manager or build makes and remakes. The walk looks at their own entries
/// (so a `.git` directly in `target/`, which VS Code's repository scan would open, is found)
/// but not below: they hold most of a tree's files, nobody runs git, an editor or an agent from
/// inside them, git never reads them unless a submodule entry points there (which
/// [`remove_new`] checks wherever it points), and what a build there reads is the project's
/// code, which the person asked to run.
const OUTPUT_FOLDERS: &[&str] = &["node_modules", "target", ".venv", "venv", ".tox", ".nox", ".gradle"];

/// At most this many entries of the tree are looked at in one walk, nearest the root first;
/// past it `run` says what was not looked at. A look took 1.7 to 2 µs an entry in a release
/// build here, about what reading the folders costs, and 3.4 to 4.3 µs in a debug one
/// (BENCHMARKS.md), so this bounds one look near 0.4 s (0.9 s in a debug build); a command
/// pays for two.
const MAX_WALK: usize = 200_000;

/// Protected paths under `root`, nearest first, without following links, and whether the walk
/// stopped at `max` entries. A protected folder is found, not walked.
fn walk(root: &Path, max: usize) -> (Vec<(PathBuf, Kind)>, bool) {
    use std::os::unix::ffi::OsStrExt;
    let mut found = Vec::new();
    let mut pending: VecDeque<(PathBuf, bool)> = VecDeque::from([(root.to_path_buf(), false)]);
    let mut seen = 0usize;
    while let Some((dir, shallow)) = pending.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let rel = dir.strip_prefix(root).unwrap_or(&dir);
        for entry in entries.flatten() {
            seen += 1;
            if seen > max {
                return (found, true);
            }
            let name = entry.file_name();
            if let Some(kind) = member_named(name.as_bytes(), rel) {
                found.push((dir.join(name), kind));
            } else if !shallow && entry.file_type().is_ok_and(|t| t.is_dir()) {
                let output = OUTPUT_FOLDERS.iter().any(|folder| folder.as_bytes() == name.as_bytes());
                pending.push_back((dir.join(name), output));
            }
        }
    }
    (found, false)
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
        folders
            .extend(entries.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()));
    }
    folders
}

/// The work tree of the git folder `folder` inside the `.git` folder `git`: the folder holding
/// `.git`, or for a submodule's the one its `core.worktree` names.
fn worktree_of(folder: &Path, git: &Path) -> Option<PathBuf> {
    if folder == git {
        return git.parent().map(Path::to_path_buf);
    }
    let values = git_files::config_values(&folder.join("config"));
    git_files::last(&values, "core", "worktree").and_then(|named| git_files::expand(named, folder))
}

/// `core.hooksPath` as the user's and the system's config set it.
fn outer_hooks() -> Vec<String> {
    git_files::outer_configs()
        .iter()
        .flat_map(|file| git_files::config_with_includes(file))
        .flat_map(|(_, values)| values)
        .filter(|v| v.section == "core" && v.key == "hookspath")
        .map(|v| v.value)
        .collect()
}

/// What the config of `git_dir` (work tree `worktree`) makes git read: the folder each
/// `core.hooksPath` names, here or in `outer` (the user's), and the files its config includes.
fn named_by_config(git_dir: &Path, worktree: Option<&Path>, outer: &[String]) -> Vec<(PathBuf, Kind)> {
    // A worktree's git folder reads the config of the folder its `commondir` names.
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|named| normalize(&git_dir.join(named.trim())))
        .unwrap_or_else(|| git_dir.to_path_buf());
    let own = [common.join("config"), git_dir.join("config.worktree")];
    let mut named = Vec::new();
    let mut hooks: Vec<String> = outer.to_vec();
    for file in &own {
        for (path, values) in git_files::config_with_includes(file) {
            if !own.contains(&path) {
                named.push((path, Kind::Git));
            }
            hooks.extend(
                values.into_iter().filter(|v| v.section == "core" && v.key == "hookspath").map(|v| v.value),
            );
        }
    }
    let base = worktree.unwrap_or(git_dir);
    named.extend(
        hooks.iter().filter_map(|value| git_files::expand(value, base)).map(|p| (p, Kind::HookManager)),
    );
    named
}

/// The submodule entries of one index, to tell which a command added.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IndexState {
    git_dir: PathBuf,
    /// What the entries' paths are relative to.
    worktree: PathBuf,
    stamp: Option<Stamp>,
    gitlinks: BTreeSet<Vec<u8>>,
}

/// What the tree held before a command, to tell what the command made.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Before {
    /// The identity of each protected path that existed.
    existing: HashSet<(u64, u64)>,
    /// Where git's config points (hooks folders, included files), inside the root.
    named: Vec<(PathBuf, Kind)>,
    indexes: Vec<IndexState>,
    /// Whether the walk stopped at its bound.
    cut: bool,
    /// When the walk started, in nanoseconds since the epoch, as change times are kept.
    started: i128,
    /// The walk's bound (a test's may be lower).
    max: usize,
}

/// The protected paths of a repository for one command: those that exist are bound read-only
/// over themselves, `.git` folders are bound over themselves writable (so they cannot be moved
/// or swapped), and what was there is kept, so that [`remove_new`] can tell what the command
/// made.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Protection {
    /// Folders bound over themselves, so they cannot be renamed or replaced (`.git`).
    pub pinned: Vec<PathBuf>,
    /// Existing files and folders bound read-only.
    pub read_only: Vec<PathBuf>,
    /// `None` when nothing is protected (the user allowed protected writes).
    before: Option<Before>,
}

/// What one survey of the tree found: protected paths (walked for, inside git folders, and
/// named by git's config), the `.git` entries among them, and whether the walk was cut.
struct Survey {
    paths: Vec<(PathBuf, Kind)>,
    dot_gits: Vec<PathBuf>,
    named: Vec<(PathBuf, Kind)>,
    cut: bool,
}

/// Looks for every protected path under `root`: the walk's, the parts of each git folder
/// below a `.git` folder, and what their config names inside the root.
fn survey(root: &Path, max: usize) -> Survey {
    let started = std::time::Instant::now();
    let (mut paths, cut) = walk(root, max);
    let dot_gits: Vec<PathBuf> = paths
        .iter()
        .filter(|(p, _)| p.file_name().is_some_and(|n| n == ".git"))
        .map(|(p, _)| p.clone())
        .collect();
    let outer = outer_hooks();
    let mut named = Vec::new();
    for git in dot_gits.iter().filter(|p| p.symlink_metadata().is_ok_and(|m| m.is_dir())) {
        for folder in git_folders(git) {
            paths.extend(GIT_PARTS.iter().map(|part| (folder.join(part), Kind::Git)));
            named.extend(named_by_config(&folder, worktree_of(&folder, git).as_deref(), &outer));
        }
    }
    // Only what lies inside the root, and never a folder holding the root, a work tree or a
    // git folder (a hooks path of `.` names the work tree itself).
    named.retain(|(path, _)| {
        path.starts_with(root)
            && path != root
            && !dot_gits.iter().any(|git| git.starts_with(path))
            && !paths.iter().any(|(p, _)| path.starts_with(p))
    });
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named.dedup_by(|a, b| a.0 == b.0);
    tracing::debug!(seconds = started.elapsed().as_secs_f64(), cut, "protected paths looked for");
    Survey { paths, dot_gits, named, cut }
}

/// The submodule entries of the index of each `.git` entry in `dot_gits`.
fn index_states(dot_gits: &[PathBuf]) -> Vec<IndexState> {
    dot_gits
        .iter()
        .filter_map(|dot_git| {
            let git_dir = git_files::git_dir_of(dot_git)?;
            Some(IndexState {
                worktree: dot_git.parent()?.to_path_buf(),
                stamp: git_files::stamp(&git_dir.join("index")),
                gitlinks: git_files::gitlinks(&git_dir).unwrap_or_default(),
                git_dir,
            })
        })
        .collect()
}

/// The protection of `root` as it is now.
pub(crate) fn protection(root: &Path) -> Protection {
    bounded_protection(root, MAX_WALK)
}

/// [`protection`] with a walk of at most `max` entries.
fn bounded_protection(root: &Path, max: usize) -> Protection {
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as i128);
    let survey = survey(root, max);
    let mut out = Protection::default();
    let mut existing = HashSet::new();
    for (path, _) in survey.paths.iter().chain(&survey.named) {
        let Ok(meta) = path.symlink_metadata() else { continue };
        existing.insert((meta.dev(), meta.ino()));
        if survey.dot_gits.contains(path) && meta.is_dir() {
            out.pinned.push(path.clone());
        } else {
            out.read_only.push(path.clone());
        }
    }
    if survey.cut {
        tracing::warn!(
            "{} holds more than {max} entries; commands see read-only only the protected paths among the first",
            root.display()
        );
    }
    let indexes = index_states(&survey.dot_gits);
    out.before = Some(Before { existing, named: survey.named, indexes, cut: survey.cut, started, max });
    out
}

/// At most this many removals are named in `run`'s result, one a line; the log has the rest.
const MAX_NAMED: usize = 20;

/// Undoes what the command left that a person's tools would run later: removes each protected
/// path that no protected path was before (by device and inode, so one made where a moved
/// folder was is found), and drops submodule entries it added to git's index. Returns a line
/// for each, for `run`'s result. Runs after the command's last process is gone, so nothing
/// races it; a link is removed, never followed, and nothing is removed through a link.
pub(crate) fn remove_new(root: &Path, protection: &Protection) -> Vec<String> {
    let Some(before) = &protection.before else { return Vec::new() };
    let is_new = |path: &Path| {
        path.symlink_metadata().is_ok_and(|meta| {
            !before.existing.contains(&(meta.dev(), meta.ino()))
                // Past a cut walk, a person's own file may be found only now: only what was
                // made, moved or linked since the walk began (which sets its change time, and a
                // command cannot set it back) is the command's.
                && (!before.cut || changed_since(&meta, before.started))
        })
    };
    let mut undone: Vec<String> = Vec::new();
    let after = survey(root, before.max);
    // Walked for first: a new `.git` goes whole, and its parts with it.
    for (path, kind) in after.paths.iter().chain(&before.named) {
        if is_new(path) {
            undone.push(remove(root, path, *kind));
        }
    }
    for state in &before.indexes {
        if git_files::stamp(&state.git_dir.join("index")) == state.stamp {
            continue;
        }
        let Some(now) = git_files::gitlinks(&state.git_dir) else { continue };
        for added in now.difference(&state.gitlinks) {
            let Some(rel) = plain_relative(added) else { continue };
            let dot_git = state.worktree.join(&rel).join(".git");
            if is_new(&dot_git) {
                undone.push(remove(root, &dot_git, Kind::Git));
            }
            let shown = state.worktree.join(&rel);
            let shown = shown.strip_prefix(root).unwrap_or(&shown).display().to_string();
            undone.push(match drop_gitlink(state, &rel) {
                Ok(()) => format!(
                    "tack removed the submodule entry {shown} from git's index, which the command added: git would act \
                     on a repository there at the next git status"
                ),
                Err(err) => {
                    tracing::warn!("cannot drop the submodule entry {shown} a command added: {err}");
                    format!("tack could not drop the submodule entry {shown} the command added to git's index ({err})")
                }
            });
        }
    }
    if undone.len() > MAX_NAMED {
        for line in &undone[MAX_NAMED..] {
            tracing::info!("{line}");
        }
        let more = undone.len() - MAX_NAMED;
        undone.truncate(MAX_NAMED);
        undone.push(format!("tack undid {more} more such things the command left (its log names them)"));
    }
    if before.cut || after.cut {
        undone.push(format!(
            "tack looked for what git, toolchains and editors run later only among the first {} entries of this \
             folder; deeper ones are neither kept read-only nor removed",
            before.max
        ));
    }
    undone
}

/// Change times lag the clock by up to a kernel tick (a few milliseconds): a path changed this
/// long before a walk began still counts as changed since.
const CLOCK_SLACK_NS: i128 = 100_000_000;

/// Whether `meta`'s change time is at or after `started` (nanoseconds since the epoch), less
/// [`CLOCK_SLACK_NS`].
fn changed_since(meta: &std::fs::Metadata, started: i128) -> bool {
    i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()) >= started - CLOCK_SLACK_NS
}

/// Removes `path`, which the command made, and says so.
fn remove(root: &Path, path: &Path, kind: Kind) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path).display().to_string();
    match remove_beneath(root, path) {
        Ok(()) => format!(
            "tack removed {rel}, which the command made: it is {} (a person can allow it with \
             allow_protected_writes in their own tack config)",
            kind.what()
        ),
        Err(err) => {
            tracing::warn!("cannot remove {rel}, which a command made: {err}");
            format!("tack could not remove {rel}, which the command made ({err}): it is {}", kind.what())
        }
    }
}

/// `bytes` as a relative path of plain names (no `..`, `.`, empty or absolute part).
fn plain_relative(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let path = Path::new(std::ffi::OsStr::from_bytes(bytes));
    let plain =
        !bytes.is_empty() && path.components().all(|part| matches!(part, std::path::Component::Normal(_)));
    plain.then(|| path.to_path_buf())
}

/// Removes `path` (a folder with its content, or a file or link itself) after checking that no
/// folder between `root` and it is a link, so a removal cannot land outside the root.
fn remove_beneath(root: &Path, path: &Path) -> std::io::Result<()> {
    let outside = || std::io::Error::other("it is not beneath the root through folders only");
    let rel = path.strip_prefix(root).map_err(|_| outside())?;
    let mut dir = root.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        dir.push(part);
        if !dir.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
            return Err(outside());
        }
    }
    let meta = path.symlink_metadata()?;
    if meta.is_dir() { std::fs::remove_dir_all(path) } else { std::fs::remove_file(path) }
}

/// Drops the submodule entry `rel` from an index with git itself. By now the repository's
/// config, and the files it includes, are the user's own (read-only during the command, any
/// new one just removed), so this reads only what the user's own `git status` would; and it
/// turns off the two things `update-index` could run, `core.fsmonitor` and the
/// `post-index-change` hook. Writing the index by hand would mean keeping its checksum and
/// extensions right, which git does.
fn drop_gitlink(state: &IndexState, rel: &Path) -> Result<(), String> {
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(&state.git_dir)
        .arg("--work-tree")
        .arg(&state.worktree)
        .args(["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"])
        .args(["update-index", "--force-remove", "--"])
        .arg(rel)
        .current_dir(&state.worktree)
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("git does not start: {err}"))?;
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).trim().to_string()) }
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

    /// Every member of the list, as a path at the root: `(path, kind)`.
    const MEMBERS: &[(&str, Kind)] = &[
        (".git", Kind::Git),
        (".git/config", Kind::Git),
        (".git/hooks/pre-commit", Kind::Git),
        (".git/info/exclude", Kind::Git),
        (".git/commondir", Kind::Git),
        (".git/objects/info/alternates", Kind::Git),
        (".gitmodules", Kind::Git),
        (".husky/pre-commit", Kind::HookManager),
        ("lefthook.yml", Kind::HookManager),
        (".lefthook.yml", Kind::HookManager),
        ("lefthook-local.yml", Kind::HookManager),
        (".lefthook.toml", Kind::HookManager),
        (".pre-commit-config.yaml", Kind::HookManager),
        (".overcommit.yml", Kind::HookManager),
        ("rust-toolchain", Kind::Toolchain),
        ("rust-toolchain.toml", Kind::Toolchain),
        (".cargo/config", Kind::Toolchain),
        (".cargo/config.toml", Kind::Toolchain),
        ("gradle/wrapper/gradle-wrapper.properties", Kind::Toolchain),
        (".mvn/wrapper/maven-wrapper.properties", Kind::Toolchain),
        (".mvn/extensions.xml", Kind::Toolchain),
        (".mvn/jvm.config", Kind::Toolchain),
        (".npmrc", Kind::Toolchain),
        (".yarnrc", Kind::Toolchain),
        (".yarnrc.yml", Kind::Toolchain),
        (".bundle/config", Kind::Toolchain),
        (".tool-versions", Kind::Toolchain),
        (".python-version", Kind::Toolchain),
        (".claude/settings.json", Kind::AgentOrEditor),
        (".mcp.json", Kind::AgentOrEditor),
        (".codex/config.toml", Kind::AgentOrEditor),
        (".cursor/mcp.json", Kind::AgentOrEditor),
        (".vscode/settings.json", Kind::AgentOrEditor),
        (".vscode/tasks.json", Kind::AgentOrEditor),
        ("tack.toml", Kind::AgentOrEditor),
    ];

    #[test]
    fn the_writing_tools_refuse_every_member_at_any_depth_and_nothing_like_it() {
        for (path, kind) in MEMBERS {
            for rel in [path.to_string(), format!("./{path}"), format!("sub/{path}"), format!("a/b/{path}")] {
                assert_eq!(protected_kind(&rel), Some(*kind), "{rel} is protected");
            }
        }
        let allowed = [
            ".gitignore",
            ".gitattributes",
            ".github/workflows/ci.yml",
            ".cargo/other.toml",
            "config.toml",
            "wrapper/gradle-wrapper.properties",
            ".mvn/wrapper/maven-wrapper.jar",
            "lefthook.yml.bak",
            "lefthooks.yml",
            ".vscodex",
            "my.git/config",
            ".envrc",
            ".idea/workspace.xml",
            "Makefile",
            "package.json",
            "build.rs",
        ];
        for rel in allowed {
            assert_eq!(protected_kind(rel), None, "{rel} is not protected");
        }
    }

    #[test]
    fn the_refusal_names_the_kind_and_who_can_change_it() {
        assert_eq!(
            refusal(Kind::Toolchain),
            "it is a toolchain selector or wrapper setting, which the toolchain's next command (even --version) runs; \
             a person can edit it, or allow it with allow_protected_writes in their own tack config"
        );
    }

    /// `paths` relative to `root`, sorted.
    fn rel(root: &Path, paths: &[PathBuf]) -> Vec<String> {
        let mut out: Vec<String> =
            paths.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect();
        out.sort();
        out
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_repository_pins_every_git_folder_and_keeps_what_exists_read_only() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        for dir in [".git/hooks", ".git/modules/lib/hooks", ".git/worktrees/w", ".husky", "sub/.git/hooks"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        write(root, ".git/modules/lib/HEAD", "ref: refs/heads/main\n");
        write(
            root,
            ".git/config",
            "[core]\n\thooksPath = scripts/hooks\n[include]\n\tpath = ../shared.gitconfig\n",
        );
        write(root, "scripts/hooks/pre-commit", "#!/bin/sh\n");
        write(root, "shared.gitconfig", "[alias]\n\tst = status\n");
        write(root, "lib/.git", "gitdir: ../.git/modules/lib\n");
        write(root, "sub/.git/config", "[core]\n\tbare = false\n");
        write(root, "sub/deep/.cargo/config.toml", "[build]\n");
        write(root, "sub/.claude/settings.json", "{}\n");
        write(root, ".pre-commit-config.yaml", "repos: []\n");
        // Below an output folder only its own entries are looked at.
        write(root, "target/.git", "gitdir: /elsewhere\n");
        write(root, "node_modules/pkg/.npmrc", "x\n");
        let found = protection(root);
        assert_eq!(rel(root, &found.pinned), [".git", "sub/.git"]);
        assert_eq!(
            rel(root, &found.read_only),
            [
                ".git/config",
                ".git/hooks",
                ".git/modules/lib/hooks",
                ".husky",
                ".pre-commit-config.yaml",
                "lib/.git",
                "scripts/hooks",
                "shared.gitconfig",
                "sub/.claude",
                "sub/.git/config",
                "sub/.git/hooks",
                "sub/deep/.cargo/config.toml",
                "target/.git",
            ]
        );
        // The writing tools refuse what git's config names, as well as the list.
        assert_eq!(refuses(root, "scripts/hooks/post-commit"), Some(Kind::HookManager));
        assert_eq!(refuses(root, "shared.gitconfig"), Some(Kind::Git));
        assert_eq!(refuses(root, "scripts/other.sh"), None);
    }

    #[test]
    fn a_nested_repositorys_hooks_folder_is_refused_and_a_hooks_path_of_its_work_tree_is_not() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        write(root, "sub/.git/config", "[core]\n\thooksPath = tools/hooks\n");
        write(root, "other/.git/config", "[core]\n\thooksPath = .\n");
        assert_eq!(refuses(root, "sub/tools/hooks/pre-commit"), Some(Kind::HookManager));
        assert_eq!(refuses(root, "tools/hooks/pre-commit"), None);
        assert_eq!(refuses(root, "other/main.py"), None);
        let found = protection(root);
        assert!(found.read_only.iter().all(|p| !p.ends_with("other")), "{:?}", found.read_only);
    }

    /// Each member, made at the root and nested by a "command" between `protection` and
    /// `remove_new`, is removed; the result names the first few and counts the rest.
    #[test]
    fn every_member_a_command_made_is_removed_at_any_depth() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        write(root, "kept/.npmrc", "the user's\n");
        let before = protection(root);
        let mut made = Vec::new();
        for (path, _) in MEMBERS.iter().filter(|(p, _)| !p.starts_with(".git/")) {
            for at in ["", "sub/", "a/b/"] {
                write(root, &format!("{at}{path}"), "planted\n");
                made.push(format!("{at}{path}"));
            }
        }
        let lines = remove_new(root, &before);
        for path in &made {
            assert!(!root.join(path).exists(), "{path} was removed");
        }
        assert_eq!(lines.len(), MAX_NAMED + 1, "{lines:#?}");
        assert!(lines[0].starts_with("tack removed "), "{lines:#?}");
        assert!(lines[MAX_NAMED].starts_with("tack undid "), "{lines:#?}");
        assert_eq!(std::fs::read_to_string(root.join("kept/.npmrc")).unwrap(), "the user's\n");
    }

    /// Git's parts made in an existing git folder, a nested repository, a `.git` directly in
    /// an output folder, and a protected file made where a moved folder was: each removed and
    /// named; what was there stays, moved or not.
    #[test]
    fn what_a_command_made_among_git_folders_or_in_a_moved_folders_place_is_removed_and_named() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        write(root, ".git/HEAD", "ref: refs/heads/main\n");
        write(root, "moved/.cargo/config.toml", "the user's\n");
        let before = protection(root);
        for part in ["commondir", "info/exclude", "objects/info/alternates", "modules/x/config"] {
            write(root, &format!(".git/{part}"), "planted\n");
        }
        write(root, ".git/modules/x/HEAD", "ref: refs/heads/main\n");
        write(root, "nested/.git/config", "[core]\n\tfsmonitor = ./evil\n");
        write(root, "target/.git", "gitdir: ../evil\n");
        std::fs::rename(root.join("moved"), root.join("moved-away")).unwrap();
        write(root, "moved/.cargo/config.toml", "planted\n");
        write(root, "src/lib.rs", "pub fn f() {}\n");

        let lines = remove_new(root, &before);
        let mut removed: Vec<&str> =
            lines.iter().filter_map(|line| line.strip_prefix("tack removed ")?.split(',').next()).collect();
        removed.sort();
        assert_eq!(
            removed,
            [
                ".git/commondir",
                ".git/info",
                ".git/modules/x/config",
                ".git/objects/info/alternates",
                "moved/.cargo/config.toml",
                "nested/.git",
                "target/.git",
            ],
            "{lines:#?}"
        );
        for gone in &removed {
            assert!(!root.join(gone).exists(), "{gone} was removed");
        }
        for stays in
            ["moved-away/.cargo/config.toml", ".git/HEAD", ".git/hooks", "src/lib.rs", ".git/modules/x/HEAD"]
        {
            assert!(root.join(stays).exists(), "{stays} stays");
        }
        assert_eq!(
            std::fs::read_to_string(root.join("moved-away/.cargo/config.toml")).unwrap(),
            "the user's\n"
        );
    }

    #[test]
    fn nothing_is_removed_through_a_link_or_outside_the_root() {
        let outside = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        write(root, ".git/HEAD", "ref: refs/heads/main\n");
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        write(outside.path(), "info/alternates", "the outside file\n");
        write(outside.path(), "sub/.husky/pre-commit", "the outside file\n");
        let before = protection(root);
        // The command swaps git's objects folder, and a folder, for links to outside.
        std::fs::remove_dir(root.join(".git/objects")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join(".git/objects")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("sub"), root.join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("sub/.husky"), root.join(".husky")).unwrap();
        let lines = remove_new(root, &before);
        assert!(outside.path().join("info/alternates").exists(), "{lines:#?}");
        assert!(outside.path().join("sub/.husky/pre-commit").exists(), "{lines:#?}");
        assert!(root.join(".husky").symlink_metadata().is_err(), "the link itself is removed: {lines:#?}");
        assert!(
            lines.iter().any(|l| l.starts_with("tack could not remove .git/objects/info/alternates")),
            "{lines:#?}"
        );
    }

    #[test]
    fn a_walk_past_its_bound_is_cut_nearest_first() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        write(root, ".npmrc", "x\n");
        write(root, "a/b/c/d/.npmrc", "x\n");
        for i in 0..50 {
            write(root, &format!("a/f{i}"), "x\n");
        }
        let (found, cut) = walk(root, 20);
        assert!(cut);
        assert_eq!(found, [(root.join(".npmrc"), Kind::Toolchain)]);
        let (found, cut) = walk(root, MAX_WALK);
        assert!(!cut);
        assert_eq!(found.len(), 2);
    }

    /// Past a cut walk, what the command made is removed, and a person's own file the first
    /// walk did not reach is left alone when the second one does.
    #[test]
    fn past_a_cut_walk_only_what_changed_since_it_began_is_removed() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        for i in 0..30 {
            write(root, &format!("a/f{i}"), "x\n");
        }
        write(root, "z/.npmrc", "the person's\n");
        // Older than the walk by more than the clock's slack.
        std::thread::sleep(std::time::Duration::from_nanos(2 * CLOCK_SLACK_NS as u64));
        let before = bounded_protection(root, 20);
        assert!(before.before.as_ref().unwrap().cut);
        // The command removes files, so the second walk reaches further, and makes one.
        std::fs::remove_dir_all(root.join("a")).unwrap();
        write(root, "z/.claude/settings.json", "planted\n");
        let lines = remove_new(root, &before);
        assert!(root.join("z/.npmrc").exists(), "{lines:#?}");
        assert!(!root.join("z/.claude").exists(), "{lines:#?}");
        assert!(lines.last().unwrap().contains("only among the first 20 entries"), "{lines:#?}");
    }

    #[test]
    fn with_protected_writes_allowed_nothing_is_removed() {
        let repo = tempfile::tempdir().unwrap();
        write(repo.path(), ".npmrc", "x\n");
        assert!(remove_new(repo.path(), &Protection::default()).is_empty());
        assert!(repo.path().join(".npmrc").exists());
    }

    /// What git itself writes: a nested repository added as a submodule (even below
    /// `node_modules`, which the walk does not enter) loses its `.git` and its entry.
    #[test]
    fn a_submodule_entry_a_command_added_is_dropped_with_its_repository() {
        if std::process::Command::new("git").arg("--version").output().is_err() {
            eprintln!("skipped: no git");
            return;
        }
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        let git = |dir: &Path, args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "user.name=a", "-c", "user.email=a@b", "-c", "core.hooksPath=/dev/null"])
                .args(args)
                .current_dir(dir)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        write(root, "a.txt", "a\n");
        git(root, &["init", "-q"]);
        git(root, &["add", "a.txt"]);
        git(root, &["commit", "-qm", "first"]);
        let before = protection(root);
        for sub in ["sub", "node_modules/pkg/sub"] {
            write(root, &format!("{sub}/f.txt"), "f\n");
            git(&root.join(sub), &["init", "-q"]);
            git(&root.join(sub), &["add", "f.txt"]);
            git(&root.join(sub), &["commit", "-qm", "inner"]);
            git(root, &["add", "-f", sub]);
        }
        assert_eq!(git_files::gitlinks(&root.join(".git")).unwrap().len(), 2);
        let lines = remove_new(root, &before);
        assert_eq!(git_files::gitlinks(&root.join(".git")), Some(BTreeSet::new()), "{lines:#?}");
        assert!(!root.join("sub/.git").exists() && !root.join("node_modules/pkg/sub/.git").exists());
        for sub in ["sub", "node_modules/pkg/sub"] {
            assert!(
                lines
                    .iter()
                    .any(|l| l
                        .starts_with(&format!("tack removed the submodule entry {sub} from git's index"))),
                "{lines:#?}"
            );
        }
        assert!(root.join("sub/f.txt").exists(), "the files stay");
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

#[cfg(test)]
mod walk_cost {
    /// The cost of one survey of the tree `TACK_WALK_BENCH` names (BENCHMARKS.md).
    #[test]
    #[ignore = "a measurement: TACK_WALK_BENCH=/some/tree cargo test -p tack-tools --lib walk_cost -- --ignored --nocapture"]
    fn one_survey_of_a_large_tree() {
        let Some(tree) = std::env::var_os("TACK_WALK_BENCH") else { return };
        let tree = std::path::PathBuf::from(tree);
        let mut times = Vec::new();
        for _ in 0..7 {
            let started = std::time::Instant::now();
            let survey = super::survey(&tree, super::MAX_WALK);
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            assert!(!survey.cut);
        }
        times.sort_by(f64::total_cmp);
        eprintln!("{}: survey p50 {:.1} ms, min {:.1} ms", tree.display(), times[3], times[0]);
    }
}

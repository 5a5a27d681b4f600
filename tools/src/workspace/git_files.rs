//! Git's own files read without running git: the few values of a config file that say where
//! git looks for hooks and more config (`core.hooksPath`, `include.path`, `core.worktree`,
//! `extensions.objectFormat`), a `.git` file's `gitdir:` line, and the submodule entries of an
//! index. tack reads these around each command to tell what the command left behind; running
//! git for them would run the repository's configuration (its `core.fsmonitor`, say), which is
//! what is being checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A config file past this size is not read (git's own are a few KB).
const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// An index past this size is not read: about 2.5 million entries, beyond the largest
/// monorepos' checkouts.
const MAX_INDEX_BYTES: u64 = 256 << 20;
/// Config files included from one another are followed this deep (git stops at 10).
const MAX_INCLUDE_DEPTH: usize = 10;

/// One `section.key = value` of a config file; `section` is lower-cased and holds the
/// subsection after a dot as written (`includeif.gitdir:~/w/.path`), `key` is lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigValue {
    pub section: String,
    pub key: String,
    pub value: String,
}

/// The values of the config file at `path`: none when it is missing, not a regular file or
/// too large. Quoting, escapes, comments and continued lines are read as git reads them; a
/// line git would refuse is skipped.
pub(crate) fn config_values(path: &Path) -> Vec<ConfigValue> {
    let Ok(Some(bytes)) = tack_indexer::read_bounded(path, MAX_CONFIG_BYTES, None) else { return Vec::new() };
    parse_config(&String::from_utf8_lossy(&bytes))
}

fn parse_config(text: &str) -> Vec<ConfigValue> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut chars = text.chars().peekable();
    while chars.peek().is_some() {
        // One logical line: leading blanks, an optional `[section]`, an optional `key = value`.
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next_if_eq(&'[').is_some() {
            let mut header = String::new();
            for c in chars.by_ref() {
                if c == ']' {
                    break;
                }
                header.push(c);
            }
            section = match header.split_once(|c: char| c.is_whitespace()) {
                Some((name, sub)) => {
                    let sub = sub.trim().trim_matches('"').replace("\\\"", "\"").replace("\\\\", "\\");
                    format!("{}.{sub}", name.to_ascii_lowercase())
                }
                None => header.trim().to_ascii_lowercase(),
            };
            while chars.next_if(|c| *c == ' ' || *c == '\t').is_some() {}
        }
        if chars.next_if(|c| *c == '#' || *c == ';').is_some() {
            while chars.next_if(|c| *c != '\n').is_some() {}
            continue;
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| c.is_ascii_alphanumeric() || *c == '-') {
            key.push(c.to_ascii_lowercase());
        }
        while chars.next_if(|c| *c == ' ' || *c == '\t').is_some() {}
        let value = if chars.next_if_eq(&'=').is_some() {
            read_value(&mut chars)
        } else {
            // A key alone is `true`; anything else on the line is skipped.
            while chars.next_if(|c| *c != '\n').is_some() {}
            "true".to_string()
        };
        if !key.is_empty() && !section.is_empty() {
            out.push(ConfigValue { section: section.clone(), key, value });
        }
    }
    out
}

/// A value up to its line's end: quotes kept together, `\` escapes and line continuations
/// read, `#` or `;` outside quotes starting a comment, blanks at the ends dropped.
fn read_value(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut value = String::new();
    // Blanks not yet known to be inside the value (trailing ones are dropped).
    let mut pending = String::new();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '\n' => break,
            '"' => {
                value.push_str(&std::mem::take(&mut pending));
                quoted = !quoted;
            }
            '\\' => {
                value.push_str(&std::mem::take(&mut pending));
                match chars.next() {
                    Some('\n') | None => {}
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some('b') => value.push('\u{8}'),
                    Some(other) => value.push(other),
                }
            }
            '#' | ';' if !quoted => while chars.next_if(|c| *c != '\n').is_some() {},
            ' ' | '\t' | '\r' if !quoted => {
                if !value.is_empty() {
                    pending.push(c);
                }
            }
            other => {
                value.push_str(&std::mem::take(&mut pending));
                value.push(other);
            }
        }
    }
    value
}

/// The last value of `section.key` in `values`, as git takes it.
pub(crate) fn last<'a>(values: &'a [ConfigValue], section: &str, key: &str) -> Option<&'a str> {
    values.iter().rev().find(|v| v.section == section && v.key == key).map(|v| v.value.as_str())
}

/// `path` with a leading `~/` expanded; relative paths are joined to `base`. `None` for a
/// `~user/` path, which tack does not resolve.
pub(crate) fn expand(value: &str, base: &Path) -> Option<PathBuf> {
    if let Some(rest) = value.strip_prefix("~/") {
        return Some(PathBuf::from(std::env::var_os("HOME")?).join(rest));
    }
    if value.starts_with('~') || value.is_empty() {
        return None;
    }
    Some(normalize(&base.join(value)))
}

/// `path` with `.` and `..` folded, without touching the disk.
pub(crate) fn normalize(path: &Path) -> PathBuf {
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

/// The config file at `path` and the files it includes (`include.path`, and
/// `includeIf.*.path` whatever the condition), each with its values, in the order git reads them.
pub(crate) fn config_with_includes(path: &Path) -> Vec<(PathBuf, Vec<ConfigValue>)> {
    let mut out: Vec<(PathBuf, Vec<ConfigValue>)> = Vec::new();
    let mut pending = vec![(path.to_path_buf(), 0)];
    while let Some((file, depth)) = pending.pop() {
        if out.iter().any(|(seen, _)| *seen == file) {
            continue;
        }
        let values = config_values(&file);
        if depth < MAX_INCLUDE_DEPTH {
            let dir = file.parent().unwrap_or(Path::new("/"));
            for value in &values {
                let included = value.key == "path"
                    && (value.section == "include" || value.section.starts_with("includeif."));
                if let Some(target) = included.then(|| expand(&value.value, dir)).flatten() {
                    pending.push((target, depth + 1));
                }
            }
        }
        out.push((file, values));
    }
    out
}

/// The user's and the system's config files, as git finds them (`GIT_CONFIG_GLOBAL`,
/// `XDG_CONFIG_HOME`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_NOSYSTEM`).
pub(crate) fn outer_configs() -> Vec<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut files = Vec::new();
    if var("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig")));
    }
    match var("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push(global),
        None => {
            let home = var("HOME");
            if let Some(xdg) = var("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config"))) {
                files.push(xdg.join("git/config"));
            }
            files.extend(home.map(|h| h.join(".gitconfig")));
        }
    }
    files
}

/// The git folder a `.git` entry stands for: itself when it is a folder, else the folder its
/// `gitdir:` line names (a worktree's or a submodule's), if it exists.
pub(crate) fn git_dir_of(dot_git: &Path) -> Option<PathBuf> {
    let meta = dot_git.symlink_metadata().ok()?;
    if meta.is_dir() {
        return Some(dot_git.to_path_buf());
    }
    let bytes = tack_indexer::read_bounded(dot_git, 64 * 1024, None).ok()??;
    let text = String::from_utf8_lossy(&bytes);
    let named = text.lines().find_map(|line| line.strip_prefix("gitdir:"))?.trim();
    let dir = normalize(&dot_git.parent()?.join(named));
    dir.is_dir().then_some(dir)
}

/// How many bytes an object id takes in `git_dir`'s index: 32 for a SHA-256 repository, else 20.
pub(crate) fn hash_len(git_dir: &Path) -> usize {
    // A worktree's git folder shares its config with the common folder it names.
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .ok()
        .map(|named| normalize(&git_dir.join(named.trim())))
        .unwrap_or_else(|| git_dir.to_path_buf());
    let values = config_values(&common.join("config"));
    match last(&values, "extensions", "objectformat") {
        Some(format) if format.eq_ignore_ascii_case("sha256") => 32,
        _ => 20,
    }
}

/// What identifies one state of a file: device, inode, size, and change time.
pub(crate) type Stamp = (u64, u64, u64, i64, i64);

/// `path`'s [`Stamp`], if it exists.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = path.symlink_metadata().ok()?;
    Some((meta.dev(), meta.ino(), meta.size(), meta.ctime(), meta.ctime_nsec()))
}

/// The paths of the submodule entries (mode 160000) in `git_dir`'s index, with those of the
/// shared index a split index names. `None` when there is no index or it cannot be read.
pub(crate) fn gitlinks(git_dir: &Path) -> Option<BTreeSet<Vec<u8>>> {
    let hash = hash_len(git_dir);
    let bytes = tack_indexer::read_bounded(&git_dir.join("index"), MAX_INDEX_BYTES, None).ok()??;
    let mut found = BTreeSet::new();
    let shared = parse_index(&bytes, hash, &mut found)?;
    if let Some(shared) = shared {
        let name = format!("sharedindex.{shared}");
        let bytes = tack_indexer::read_bounded(&git_dir.join(name), MAX_INDEX_BYTES, None).ok()??;
        parse_index(&bytes, hash, &mut found)?;
    }
    Some(found)
}

/// Adds the gitlinks of one index file (versions 2 to 4, as `Documentation/gitformat-index`
/// lays them out) to `found`, and returns the name of the shared index its `link` extension
/// names. `None` when the file is not an index this reads.
fn parse_index(bytes: &[u8], hash: usize, found: &mut BTreeSet<Vec<u8>>) -> Option<Option<String>> {
    const GITLINK: u32 = 0o160000;
    const TYPE_MASK: u32 = 0o170000;
    let be32 =
        |at: usize| -> Option<u32> { Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?)) };
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(8)?;
    let mut at = 12;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        // ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), the id, flags.
        let start = at;
        let mode = be32(at + 24)?;
        at += 40 + hash;
        let flags = u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?);
        at += 2;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        let name = if version == 4 {
            // The name is the previous one less `strip` bytes, then what follows up to a NUL.
            let (strip, used) = varint(bytes.get(at..)?)?;
            at += used;
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            let mut name = previous[..keep].to_vec();
            name.extend_from_slice(&bytes[at..end]);
            at = end + 1;
            name
        } else {
            let end = at + bytes.get(at..)?.iter().position(|b| *b == 0)?;
            let name = bytes[at..end].to_vec();
            // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
            at = start + (end - start + 8) / 8 * 8;
            name
        };
        if mode & TYPE_MASK == GITLINK {
            found.insert(name.clone());
        }
        previous = name;
    }
    // Extensions follow, each a signature and a size, up to the trailing checksum.
    let end = bytes.len().checked_sub(hash)?;
    while at + 8 <= end {
        let size = usize::try_from(be32(at + 4)?).ok()?;
        if bytes.get(at..at + 4)? == b"link" {
            let id = bytes.get(at + 8..at + 8 + hash)?;
            if id.iter().any(|b| *b != 0) {
                return Some(Some(id.iter().map(|b| format!("{b:02x}")).collect()));
            }
        }
        at += 8 + size;
    }
    Some(None)
}

/// Git's offset varint (`varint.c`): seven bits a byte, high bit set on all but the last,
/// each continuation adding one. Returns the value and the bytes it took.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut iter = bytes.iter();
    let mut c = *iter.next()?;
    let mut value = u64::from(c & 127);
    let mut used = 1;
    while c & 128 != 0 {
        value = value.checked_add(1)?.checked_mul(128)?;
        c = *iter.next()?;
        value += u64::from(c & 127);
        used += 1;
    }
    Some((value, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_values_are_read_as_git_reads_them() {
        let text = "[core]\n\thooksPath = \"my hooks\" ; a comment\n\tbare\n[Include]\n\tpath = ../shared.inc\n\
                    [includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.inc\n[core] worktree = ../../lib # trailing\n\
                    [alias]\n\tlong = !echo a \\\n  b\n";
        let values = parse_config(text);
        assert_eq!(last(&values, "core", "hookspath"), Some("my hooks"));
        assert_eq!(last(&values, "core", "bare"), Some("true"));
        assert_eq!(last(&values, "include", "path"), Some("../shared.inc"));
        assert_eq!(last(&values, "includeif.gitdir:~/work/", "path"), Some("~/work.inc"));
        assert_eq!(last(&values, "core", "worktree"), Some("../../lib"));
        assert_eq!(last(&values, "alias", "long"), Some("!echo a   b"));
    }

    #[test]
    fn includes_are_followed_and_a_cycle_ends() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config"), "[include]\n\tpath = a.inc\n").unwrap();
        std::fs::write(dir.path().join("a.inc"), "[include]\n\tpath = config\n[core]\n\thooksPath = h\n")
            .unwrap();
        let files: Vec<PathBuf> =
            config_with_includes(&dir.path().join("config")).into_iter().map(|(path, _)| path).collect();
        assert_eq!(files, [dir.path().join("config"), dir.path().join("a.inc")]);
    }

    /// The gitlinks git itself records are the ones read, in each index version and in a split
    /// index.
    #[test]
    fn the_submodule_entries_git_writes_are_found_in_every_index_version() {
        if std::process::Command::new("git").arg("--version").output().is_err() {
            eprintln!("skipped: no git");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .args(["-c", "user.name=a", "-c", "user.email=a@b", "-c", "core.hooksPath=/dev/null"])
                .args(args)
                .current_dir(root)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        };
        git(&["init", "-q"]);
        std::fs::create_dir_all(root.join("deep/er")).unwrap();
        for file in ["a.txt", "deep/b.txt", "deep/er/c.txt", "deep/er/d.txt"] {
            std::fs::write(root.join(file), file).unwrap();
        }
        let id = "0123456789abcdef0123456789abcdef01234567";
        git(&["add", "."]);
        git(&["update-index", "--add", "--cacheinfo", &format!("160000,{id},deep/er/sub")]);
        git(&["update-index", "--add", "--cacheinfo", &format!("160000,{id},z-sub")]);
        let want: BTreeSet<Vec<u8>> = [b"deep/er/sub".to_vec(), b"z-sub".to_vec()].into();
        for version in ["2", "3", "4"] {
            git(&["update-index", "--index-version", version]);
            assert_eq!(gitlinks(&root.join(".git")), Some(want.clone()), "index version {version}");
        }
        // An extended flag makes a version 3 entry two bytes longer.
        git(&["update-index", "--index-version", "3"]);
        git(&["update-index", "--skip-worktree", "deep/b.txt"]);
        assert_eq!(gitlinks(&root.join(".git")), Some(want.clone()), "with extended flags");
        git(&["update-index", "--split-index"]);
        git(&["update-index", "--add", "--cacheinfo", &format!("160000,{id},late")]);
        let mut with_late = want.clone();
        with_late.insert(b"late".to_vec());
        assert_eq!(gitlinks(&root.join(".git")), Some(with_late), "a split index");
        assert_eq!(gitlinks(&root.join("nothing")), None);
    }

    #[test]
    fn a_sha256_repositorys_index_is_read_with_its_longer_ids() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let made = std::process::Command::new("git")
            .args(["init", "-q", "--object-format=sha256"])
            .current_dir(root)
            .status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: this git makes no SHA-256 repository");
            return;
        }
        let id = "ab".repeat(32);
        let out = std::process::Command::new("git")
            .args(["update-index", "--add", "--cacheinfo", &format!("160000,{id},sub")])
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(hash_len(&root.join(".git")), 32);
        assert_eq!(gitlinks(&root.join(".git")), Some([b"sub".to_vec()].into()));
    }
}

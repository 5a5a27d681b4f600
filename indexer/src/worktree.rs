//! Worktrees share the work. A root with no saved index that is another worktree or clone of a
//! repository tack has indexed (the same git common folder, or the same `origin` URL) starts
//! from that root's saved index: a file whose path and content hash match is reused, not parsed,
//! and the search index starts as a copy of the other's.

use std::path::{Path, PathBuf};

/// Another root's saved index that this root may start from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Donor {
    pub root: PathBuf,
    /// Its store: the folder holding `index.bin` and `search/`.
    pub store: PathBuf,
}

/// What names a repository: its git common folder (shared by all its worktrees), and the URL
/// of its `origin` remote (shared by its clones).
#[derive(Debug, PartialEq, Eq)]
struct Identity {
    common: PathBuf,
    origin: Option<String>,
}

impl Identity {
    fn of(root: &Path) -> Option<Self> {
        let mut dir = Some(root);
        while let Some(d) = dir {
            let dot_git = d.join(".git");
            if dot_git.is_dir() {
                return Self::from_common(&dot_git);
            }
            if let Ok(text) = std::fs::read_to_string(&dot_git) {
                // A worktree: `gitdir: <its folder in the main repository's .git/worktrees>`.
                let gitdir = d.join(text.strip_prefix("gitdir:")?.trim());
                let common = match std::fs::read_to_string(gitdir.join("commondir")) {
                    Ok(rel) => gitdir.join(rel.trim()),
                    Err(_) => gitdir,
                };
                return Self::from_common(&common);
            }
            dir = d.parent();
        }
        None
    }

    fn from_common(common: &Path) -> Option<Self> {
        let common = common.canonicalize().ok()?;
        let origin = std::fs::read_to_string(common.join("config")).ok().and_then(|c| origin_url(&c));
        Some(Self { common, origin })
    }

    fn same_repository(&self, other: &Self) -> bool {
        self.common == other.common || (self.origin.is_some() && self.origin == other.origin)
    }
}

/// The `url` of `[remote "origin"]` in a git config.
fn origin_url(config: &str) -> Option<String> {
    let mut in_origin = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_origin = line.replace(' ', "") == "[remote\"origin\"]";
        } else if in_origin
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "url"
        {
            return Some(value.trim().to_string());
        }
    }
    None
}

/// The newest saved index beside `store` (in the same cache folder) whose root is in the same
/// repository as `root`; `None` when `root` is in no git repository or none matches.
pub(crate) fn find(store: &Path, root: &Path) -> Option<Donor> {
    let ours = Identity::of(root)?;
    let mut best: Option<(std::time::SystemTime, Donor)> = None;
    for entry in std::fs::read_dir(store.parent()?).ok()?.flatten() {
        let other = entry.path();
        if other == store {
            continue;
        }
        let saved = other.join("index.bin");
        let Some(donor_root) = crate::store::saved_root(&saved) else { continue };
        if donor_root == root || !donor_root.is_dir() {
            continue;
        }
        let Some(modified) = std::fs::metadata(&saved).and_then(|m| m.modified()).ok() else { continue };
        if best.as_ref().is_some_and(|(newest, _)| *newest >= modified) {
            continue;
        }
        if Identity::of(&donor_root).is_some_and(|theirs| theirs.same_repository(&ours)) {
            best = Some((modified, Donor { root: donor_root, store: other }));
        }
    }
    best.map(|(_, donor)| donor)
}

/// Starts the search index in `to` as a copy of the one in `from`, when `to` holds none: hard
/// links where the file system allows (tantivy never rewrites a file it wrote), copies
/// elsewhere. Lock files stay behind. A copy that turns out unusable is rebuilt on open.
pub fn seed_search(from: &Path, to: &Path) -> std::io::Result<usize> {
    if to.join("meta.json").exists() || !from.join("meta.json").exists() {
        return Ok(0);
    }
    std::fs::create_dir_all(to)?;
    let mut n = 0;
    for entry in std::fs::read_dir(from)?.flatten() {
        let name = entry.file_name();
        let is_lock = name.to_str().is_none_or(|n| n.ends_with(".lock"));
        if is_lock || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let target = to.join(&name);
        if std::fs::hard_link(entry.path(), &target).is_err() {
            std::fs::copy(entry.path(), &target)?;
        }
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_url_is_read_from_its_section_only() {
        let config = "[core]\n\turl = no\n[remote \"upstream\"]\n\turl = https://a/up.git\n\
                      [remote \"origin\"]\n\tfetch = +refs/heads/*\n\turl = git@host:me/repo.git\n";
        assert_eq!(origin_url(config).as_deref(), Some("git@host:me/repo.git"));
        assert_eq!(origin_url("[remote \"upstream\"]\n url = x\n"), None);
    }
}

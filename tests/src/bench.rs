//! What the context-economy examples share: instances' trees extracted from mirrors, and the
//! steps each system takes (the `grep` baseline's command, the first file `search` ranks).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::{tack_binary, test_cache_home};

/// A mirror is `<root>/<owner>+<name>.git` or `<root>/<owner>+<name>/repo` (a git directory
/// with the instance's commits).
pub fn mirror(root: &Path, repo: &str) -> PathBuf {
    let name = repo.replace('/', "+");
    let bare = root.join(format!("{name}.git"));
    if bare.exists() { bare } else { root.join(name).join("repo") }
}

/// The tree at `commit`, extracted into a fresh folder.
pub fn checkout(git_dir: &Path, commit: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("checkout dir");
    extract_tree(git_dir, commit, dir.path());
    dir
}

/// The tree at `commit`, extracted into `dest` (made if missing).
pub fn extract_tree(git_dir: &Path, commit: &str, dest: &Path) {
    std::fs::create_dir_all(dest).expect("checkout dir");
    let mut archive = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", commit])
        .stdout(Stdio::piped())
        .spawn()
        .expect("git archive");
    let status = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(dest)
        .stdin(archive.stdout.take().expect("archive stdout"))
        .status()
        .expect("tar");
    let archived = archive.wait().expect("git archive exits");
    assert!(status.success() && archived.success(), "cannot extract {commit}");
}

/// The report's identifiers: words with an underscore, an inner capital or `::`/`.` parts, or
/// written in backticks; without any, its three longest words of five letters or more.
pub fn identifiers(report: &str) -> Vec<String> {
    fn add(found: &mut Vec<String>, word: &str) {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        if word.len() >= 3 && !found.iter().any(|w| w == word) {
            found.push(word.to_string());
        }
    }
    let mut found: Vec<String> = Vec::new();
    for (i, piece) in report.split('`').enumerate() {
        if i % 2 == 1 && !piece.contains(char::is_whitespace) {
            for part in piece.split(|c: char| !c.is_alphanumeric() && c != '_') {
                add(&mut found, part);
            }
        }
    }
    for word in report.split(|c: char| !c.is_alphanumeric() && c != '_' && c != ':' && c != '.') {
        let qualified = word.contains("::") || (word.contains('.') && !word.ends_with('.'));
        for part in word.split([':', '.']) {
            let camel =
                part.chars().zip(part.chars().skip(1)).any(|(a, b)| a.is_lowercase() && b.is_uppercase());
            if part.contains('_') || camel || (qualified && part.len() >= 3) {
                add(&mut found, part);
            }
        }
    }
    if found.is_empty() {
        const COMMON: &[&str] =
            &["should", "which", "there", "would", "could", "their", "about", "these", "because"];
        let mut words: Vec<&str> = report
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| w.len() >= 5 && !COMMON.contains(&w.to_lowercase().as_str()))
            .collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        for word in words {
            add(&mut found, word);
            if found.len() == 3 {
                break;
            }
        }
    }
    found.truncate(8);
    found
}

/// The `grep` command of the baseline and the file with the most matching lines.
pub fn grep_step(root: &Path, report: &str) -> (String, Option<String>) {
    let pattern = identifiers(report).join("|");
    let command = format!("grep -rnI -E '{pattern}' --exclude-dir=.git .");
    let out = Command::new("sh").arg("-c").arg(&command).current_dir(root).output().expect("grep");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(path) = line.split(':').next() {
            *counts.entry(path.trim_start_matches("./").to_string()).or_default() += 1;
        }
    }
    let best =
        counts.into_iter().max_by_key(|(path, n)| (*n, std::cmp::Reverse(path.clone()))).map(|(p, _)| p);
    (command, best)
}

/// The first file `search` ranks and the line of its best hit, as `tack search` finds them.
pub fn first_hit(root: &Path, report: &str) -> Option<(String, u64)> {
    let out = Command::new(tack_binary())
        .args(["search", "--json", "--root"])
        .arg(root)
        .arg(report)
        .env("XDG_CACHE_HOME", test_cache_home())
        .env("TACK_LOG", "error")
        .output()
        .expect("tack search");
    let data: Value = serde_json::from_slice(&out.stdout).ok()?;
    let first = &data["results"][0];
    Some((first["path"].as_str()?.to_string(), first["hits"][0]["line"].as_u64().unwrap_or(1)))
}

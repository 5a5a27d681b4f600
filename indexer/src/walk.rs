//! Which files belong to the repository: `.gitignore` (and `.ignore`) rules, hidden files
//! skipped, `.git` never entered, plus the extra globs from `tack.toml`.

use std::path::Path;

use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};

use crate::Error;

/// The repository's file filter, built once and shared by every walk.
#[derive(Debug, Clone)]
pub struct Filter {
    overrides: Option<Override>,
}

impl Filter {
    /// A filter for `root` with extra gitignore-style globs; fails on a glob that does not parse.
    pub fn new(root: &Path, extra_ignores: &[String]) -> Result<Self, Error> {
        let globs: Vec<&str> = extra_ignores.iter().map(|g| g.trim()).filter(|g| !g.is_empty()).collect();
        if globs.is_empty() {
            return Ok(Self { overrides: None });
        }
        let mut ob = OverrideBuilder::new(root);
        for glob in &globs {
            // In an override set, a glob starting with `!` excludes what it matches.
            ob.add(&format!("!{}", glob.trim_start_matches('!'))).map_err(|err| glob_error(glob, err))?;
        }
        let overrides = ob.build().map_err(|err| glob_error(&globs.join(", "), err))?;
        Ok(Self { overrides: Some(overrides) })
    }

    /// A walker over `dir` (inside the root) with the repository's rules, in name order.
    pub fn builder(&self, dir: &Path) -> WalkBuilder {
        let mut builder = WalkBuilder::new(dir);
        builder
            .hidden(true)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .ignore(true)
            .parents(true)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b));
        if let Some(overrides) = &self.overrides {
            builder.overrides(overrides.clone());
        }
        builder
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

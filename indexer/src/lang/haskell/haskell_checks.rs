//! Which checks a Haskell project declares: `stack test` for a Stack project, else `cabal test`
//! for a Cabal package, each read as plain output (the exit code and what it prints).

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// Whether `dir` holds a `*.cabal` file.
fn has_cabal_file(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".cabal")))
        })
        .unwrap_or(false)
}

/// A `stack.yaml`: `stack test`, with Stack's root (`STACK_ROOT`, else `~/.stack`) writable;
/// else a `*.cabal` file: `cabal test`, with Cabal's home (`CABAL_DIR`, else `~/.cabal`, and
/// `~/.cache/cabal`) writable. A Stack project has a Cabal file too: Stack builds it, so only
/// `stack test` runs its tests.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = env("HOME");
    if dir.join("stack.yaml").is_file() {
        let root = env("STACK_ROOT").or_else(|| home.as_ref().map(|h| h.join(".stack")));
        return vec![ProjectCheck {
            name: "stack test".into(),
            command: "stack test".into(),
            format: "plain",
            caches: root.into_iter().collect(),
        }];
    }
    if has_cabal_file(dir) {
        let cabal = env("CABAL_DIR").or_else(|| home.as_ref().map(|h| h.join(".cabal")));
        let cache = home.as_ref().map(|h| h.join(".cache").join("cabal"));
        return vec![ProjectCheck {
            name: "cabal test".into(),
            command: "cabal test".into(),
            format: "plain",
            caches: cabal.into_iter().chain(cache).collect(),
        }];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cabal_package_declares_cabal_test_and_a_stack_project_stack_test() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("test")).unwrap();
        std::fs::write(dir.path().join("test/CartSpec.hs"), "main = pure ()\n").unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("shop.cabal"), "cabal-version: 2.4\nname: shop\n").unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].command.as_str(), found[0].format), ("cabal test", "plain"));
        std::fs::write(dir.path().join("stack.yaml"), "resolver: lts-22.0\n").unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].command.as_str(), found[0].format), ("stack test", "plain"));
    }
}

//! Which checks a Haskell project declares: `stack test` for a Stack project, else `cabal test`
//! for a Cabal package, each read as Hspec's report, or tasty's when its tests use tasty.

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// The texts of `dir`'s package descriptions: its `*.cabal` files and Hpack's `package.yaml`.
fn package_descriptions(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".cabal") || n == "package.yaml"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect()
}

/// How the tests' output reads: tasty's when the package depends on tasty and not on Hspec
/// (the two narrow differently, and a command does not tell them apart), else Hspec's, whose
/// reader also takes a suite that prints its own words.
fn format(descriptions: &[String]) -> &'static str {
    let depends = |name: &str| {
        descriptions.iter().any(|d| d.split(|c: char| !(c.is_alphanumeric() || c == '-')).any(|w| w == name))
    };
    if depends("tasty") && !depends("hspec") { "tasty" } else { "hspec" }
}

/// A `stack.yaml`: `stack test`, with Stack's root (`STACK_ROOT`, else `~/.stack`) writable;
/// else a `*.cabal` file: `cabal test`, with Cabal's home (`CABAL_DIR`, else `~/.cabal`, and
/// `~/.cache/cabal`) writable, showing each suite's output as it runs (Cabal shows only a
/// failed suite's by default, and the counts are in it). A Stack project has a Cabal file too:
/// Stack builds it, so only `stack test` runs its tests.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = env("HOME");
    let descriptions = package_descriptions(dir);
    if dir.join("stack.yaml").is_file() {
        let root = env("STACK_ROOT").or_else(|| home.as_ref().map(|h| h.join(".stack")));
        return vec![ProjectCheck {
            name: "stack test".into(),
            command: "stack test".into(),
            format: format(&descriptions),
            caches: root.into_iter().collect(),
        }];
    }
    if !descriptions.is_empty() {
        let cabal = env("CABAL_DIR").or_else(|| home.as_ref().map(|h| h.join(".cabal")));
        let cache = home.as_ref().map(|h| h.join(".cache").join("cabal"));
        return vec![ProjectCheck {
            name: "cabal test".into(),
            command: "cabal test --test-show-details=direct".into(),
            format: format(&descriptions),
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
        let suite =
            "cabal-version: 2.4\nname: shop\ntest-suite t\n  build-depends: base, tasty, tasty-hunit\n";
        std::fs::write(dir.path().join("shop.cabal"), suite).unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].command.as_str(), found[0].format),
            ("cabal test --test-show-details=direct", "tasty")
        );
        std::fs::write(dir.path().join("stack.yaml"), "resolver: lts-22.0\n").unwrap();
        std::fs::write(dir.path().join("shop.cabal"), suite.replace("tasty, tasty-hunit", "hspec")).unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].command.as_str(), found[0].format), ("stack test", "hspec"));
    }
}

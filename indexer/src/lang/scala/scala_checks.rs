//! Which checks a Scala project declares: an sbt build's `sbt test` and a Mill build's
//! `mill __.test`, each read from the JUnit XML reports its test runs write.

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// A `build.sbt`: `sbt test`, then the JUnit reports sbt writes to `target/test-reports` (of the
/// project and its subprojects; an earlier run's removed first). A `build.sc`: `mill __.test`,
/// then the `test-report.xml` files Mill writes under `out/`. sbt's, Coursier's, Ivy's and
/// Mill's homes are writable, as they keep the downloaded toolchain and libraries.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let home = std::env::var_os("HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
    let under_home = |names: &[&str]| -> Vec<PathBuf> {
        home.iter().flat_map(|h| names.iter().map(move |n| h.join(n))).collect()
    };
    let mut out = Vec::new();
    if dir.join("build.sbt").is_file() {
        out.push(ProjectCheck {
            name: "sbt test".into(),
            command: "rm -rf target/test-reports */target/test-reports; sbt -batch test; status=$?; \
                      cat target/test-reports/*.xml */target/test-reports/*.xml 2>/dev/null; exit $status"
                .into(),
            format: "junit",
            caches: under_home(&[".sbt", ".ivy2", ".cache/coursier"]),
        });
    }
    if dir.join("build.sc").is_file() {
        out.push(ProjectCheck {
            name: "mill test".into(),
            command: "mill __.test; status=$?; find out -name test-report.xml -exec cat {} + 2>/dev/null; \
                      exit $status"
                .into(),
            format: "junit",
            caches: under_home(&[".mill", ".cache/coursier", ".cache/mill"]),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbt_and_mill_builds_declare_their_tests() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/test/scala")).unwrap();
        std::fs::write(dir.path().join("src/test/scala/CartSuite.scala"), "").unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("build.sbt"), "scalaVersion := \"3.3.1\"\n").unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].name.as_str(), found[0].format), ("sbt test", "junit"));
        assert!(
            found[0].command.contains("sbt -batch test") && found[0].command.contains("target/test-reports")
        );

        let mill = tempfile::tempdir().unwrap();
        std::fs::write(mill.path().join("build.sc"), "import mill._\n").unwrap();
        let found = checks(mill.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].name.as_str(), found[0].format), ("mill test", "junit"));
        assert!(found[0].command.starts_with("mill __.test"));
    }
}

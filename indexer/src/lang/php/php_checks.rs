//! Which checks a PHP project declares: PHPUnit, its JUnit report printed after its own lines.

use std::path::Path;

use super::super::ProjectCheck;

/// A `phpunit.xml(.dist)`, or a `composer.json` that requires PHPUnit: the project's own
/// PHPUnit (`vendor/bin/phpunit`, else the one on the PATH) writing its JUnit report to a
/// scratch file, printed after its own lines and removed; no result cache left in the project.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let configured =
        ["phpunit.xml", "phpunit.xml.dist", "phpunit.dist.xml"].iter().any(|f| dir.join(f).is_file());
    if !configured && !super::super::small_text(dir, "composer.json").contains("phpunit/phpunit") {
        return Vec::new();
    }
    let phpunit = if dir.join("vendor/bin/phpunit").is_file() { "vendor/bin/phpunit" } else { "phpunit" };
    vec![ProjectCheck {
        name: "phpunit".into(),
        command: format!(
            "report=$(mktemp); {phpunit} --do-not-cache-result --log-junit \"$report\"; status=$?; \
             cat \"$report\"; rm -f \"$report\"; exit $status"
        ),
        format: "junit",
        caches: Vec::new(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phpunits_configuration_or_composer_requirement_declares_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("composer.json"), r#"{"require": {"php": ">=8.1"}}"#).unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("composer.json"), r#"{"require-dev": {"phpunit/phpunit": "^9.6"}}"#)
            .unwrap();
        assert!(checks(dir.path())[0].command.contains("; phpunit --do-not-cache-result --log-junit"));
        std::fs::create_dir_all(dir.path().join("vendor/bin")).unwrap();
        std::fs::write(dir.path().join("vendor/bin/phpunit"), "").unwrap();
        let found = checks(dir.path());
        assert_eq!(found[0].format, "junit");
        assert!(
            found[0].command.contains("; vendor/bin/phpunit --do-not-cache-result"),
            "{}",
            found[0].command
        );
        let configured = tempfile::tempdir().unwrap();
        std::fs::write(configured.path().join("phpunit.xml.dist"), "<phpunit/>").unwrap();
        assert_eq!(checks(configured.path()).len(), 1);
    }
}

//! Which checks a Swift package declares: `swift test`.

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// A `Package.swift`: `swift test`, read from XCTest's and swift-testing's lines, with
/// SwiftPM's caches in the home writable (its build folder, `.build`, is the package's own).
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    if !dir.join("Package.swift").is_file() {
        return Vec::new();
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let caches =
        home.map(|h| vec![h.join(".cache/org.swift.swiftpm"), h.join(".swiftpm")]).unwrap_or_default();
    vec![ProjectCheck {
        name: "swift test".into(),
        command: "swift test".into(),
        format: "swift-test",
        caches,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_manifest_declares_swift_test() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("Package.swift"), "// swift-tools-version:5.9\n").unwrap();
        let found = checks(dir.path());
        assert_eq!((found[0].command.as_str(), found[0].format), ("swift test", "swift-test"));
    }
}

//! Which checks a Zig package declares: its build's `test` step.

use std::path::Path;

use super::super::ProjectCheck;

/// `zig build test` for a `build.zig`, with the summary that counts the tests, and Zig's
/// global cache (the build runner, the standard library's objects) kept in the project's
/// `.zig-cache` rather than in a home a command may not write.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    if !dir.join("build.zig").is_file() {
        return Vec::new();
    }
    vec![ProjectCheck {
        name: "zig build test".into(),
        command: "ZIG_GLOBAL_CACHE_DIR=.zig-cache/global zig build test --summary all".into(),
        format: "zig-test",
        caches: Vec::new(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_zig_declares_its_test_step() {
        let dir = tempfile::tempdir().unwrap();
        assert!(checks(dir.path()).is_empty());
        std::fs::write(
            dir.path().join("build.zig"),
            "pub fn build(b: *@import(\"std\").Build) void { _ = b; }\n",
        )
        .unwrap();
        assert_eq!(checks(dir.path())[0].format, "zig-test");
    }
}

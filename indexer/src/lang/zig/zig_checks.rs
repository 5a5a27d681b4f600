//! Which checks a Zig project declares: `build.zig`'s `test` step, run by `zig build test`.
//! No runner reads Zig's test output, so it is read as plain text (its exit status).

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// A `build.zig` that declares a `test` step (`b.step("test", …)`): `zig build test`.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let build = super::super::small_text(dir, "build.zig");
    let declares_test = build.contains("step(\"test\"");
    if !declares_test {
        return Vec::new();
    }
    vec![ProjectCheck {
        name: "zig build test".into(),
        command: "zig build test".into(),
        format: "plain",
        caches: global_cache().into_iter().collect(),
    }]
}

/// Where Zig keeps what every project shares (the compiled standard library):
/// `ZIG_GLOBAL_CACHE_DIR`, else `$XDG_CACHE_HOME/zig`, else `~/.cache/zig`. The project's own
/// cache (`.zig-cache/`) is inside it.
fn global_cache() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("ZIG_GLOBAL_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|c| c.join("zig")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/zig")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_with_a_test_step_declares_zig_build_test() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(
            dir.path().join("build.zig"),
            "pub fn build(b: *std.Build) void {\n    _ = b.addExecutable(.{ .name = \"shop\" });\n}\n",
        )
        .unwrap();
        assert_eq!(checks(dir.path()), [], "no test step");
        std::fs::write(
            dir.path().join("build.zig"),
            "pub fn build(b: *std.Build) void {\n    b.step(\"test\", \"Run the tests\").dependOn(&run.step);\n}\n",
        )
        .unwrap();
        let found = checks(dir.path());
        assert_eq!((found[0].command.as_str(), found[0].format), ("zig build test", "plain"));
    }

    #[test]
    fn the_fixtures_build_declares_its_tests() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/zig_shop");
        assert_eq!(checks(&dir).len(), 1);
    }
}

//! Which checks a Lua project declares: its busted specs, as TAP.

use std::path::Path;

use super::super::ProjectCheck;

/// A `.busted` file, or `spec/*_spec.lua`: `busted -o TAP`, whose output the TAP runner reads.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let has_specs = || {
        std::fs::read_dir(dir.join("spec"))
            .map(|entries| {
                entries.flatten().any(|e| e.file_name().to_str().is_some_and(|n| n.ends_with("_spec.lua")))
            })
            .unwrap_or(false)
    };
    if !dir.join(".busted").is_file() && !has_specs() {
        return Vec::new();
    }
    vec![ProjectCheck {
        name: "busted".into(),
        command: "busted -o TAP".into(),
        format: "tap",
        caches: Vec::new(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busted_file_or_specs_declare_busted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("spec")).unwrap();
        std::fs::write(dir.path().join("spec/helper.lua"), "").unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("spec/cart_spec.lua"), "").unwrap();
        let found = checks(dir.path());
        assert_eq!((found[0].command.as_str(), found[0].format), ("busted -o TAP", "tap"));
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join(".busted"), "return {}\n").unwrap();
        assert_eq!(checks(other.path()).len(), 1);
    }
}

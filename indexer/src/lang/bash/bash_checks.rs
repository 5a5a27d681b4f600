//! Which checks a shell project declares: its Bats tests, as TAP.

use std::path::Path;

use super::super::ProjectCheck;

/// `test/*.bats` or `tests/*.bats`: `bats --tap` on that folder.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let has_bats = |folder: &str| {
        std::fs::read_dir(dir.join(folder))
            .map(|entries| entries.flatten().any(|e| e.path().extension().is_some_and(|x| x == "bats")))
            .unwrap_or(false)
    };
    ["test", "tests"]
        .into_iter()
        .filter(|folder| has_bats(folder))
        .take(1)
        .map(|folder| ProjectCheck {
            name: "bats".into(),
            command: format!("bats --tap {folder}"),
            format: "tap",
            caches: Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bats_files_in_a_test_folder_declare_bats() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/helper.bash"), "").unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("tests/calc.bats"), "").unwrap();
        let found = checks(dir.path());
        assert_eq!((found[0].command.as_str(), found[0].format), ("bats --tap tests", "tap"));
    }
}

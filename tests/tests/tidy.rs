//! Repository hygiene that review would otherwise catch late: every Rust file says what it is
//! for, and ARCHITECTURE.md stays short enough to be read.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "fixtures") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let mut files = Vec::new();
    for crate_dir in ["indexer", "tools", "server", "tests"] {
        rust_files(&workspace().join(crate_dir), &mut files);
    }
    assert!(files.len() > 10, "found only {} files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| f.strip_prefix(workspace()).unwrap().display().to_string())
        .collect();
    assert!(missing.is_empty(), "these files do not start with a //! line: {missing:?}");
}

#[test]
fn architecture_stays_under_100_lines() {
    let text = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    assert!(text.lines().count() < 100, "ARCHITECTURE.md has {} lines", text.lines().count());
}

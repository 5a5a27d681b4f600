//! Repository hygiene that review would otherwise catch late: every Rust file says what it is
//! for, ARCHITECTURE.md stays short enough to be read, file names say one thing each, and the
//! tools crate stays layered (no import cycles, tool names only in the catalogue's entries).

use std::collections::{BTreeMap, BTreeSet};
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

/// Source files (not tests): none shares its name with another, so a name says which file.
#[test]
fn no_two_source_files_share_a_name() {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for crate_dir in ["indexer", "tools", "server"] {
        let mut files = Vec::new();
        rust_files(&workspace().join(crate_dir).join("src"), &mut files);
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            if !["mod.rs", "lib.rs", "main.rs", "tests.rs"].contains(&name.as_str()) {
                by_name
                    .entry(name)
                    .or_default()
                    .push(file.strip_prefix(workspace()).unwrap().display().to_string());
            }
        }
    }
    let shared: Vec<&Vec<String>> = by_name.values().filter(|paths| paths.len() > 1).collect();
    assert!(shared.is_empty(), "source files that share a name: {shared:?}");
}

/// The modules of a crate's `src` and the modules each imports through `crate::` paths, test
/// modules (after `#[cfg(test)]`, and `tests.rs` files) left out. `depth` cuts module paths:
/// `Some(1)` makes every folder one module (`lang::python::modules` is `lang`), `None` keeps
/// each file (or a folder's `mod.rs`) apart.
fn crate_imports(crate_src: &str, depth: Option<usize>) -> BTreeMap<String, BTreeSet<String>> {
    let src = workspace().join(crate_src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| !f.ends_with("tests.rs"));
    let module_of = |file: &Path| {
        let rel = file.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        parts.truncate(depth.unwrap_or(usize::MAX));
        parts.join("::")
    };
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    // The longest module a path names: `crate::write::writer::lock` is `write::writer`.
    let resolve = |path: &str| {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len()).rev().map(|n| parts[..n].join("::")).find(|m| modules.contains(m))
    };
    let path_re = regex::Regex::new(r"crate::((?:[a-z_]+::)*)(?:\{([^}]*)\}|([a-z_]+))").unwrap();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file);
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut imports = BTreeSet::new();
        for cap in path_re.captures_iter(code) {
            let base = &cap[1];
            let names: Vec<String> = match (cap.get(2), cap.get(3)) {
                (Some(group), _) => group.as_str().split(',').map(|n| n.trim().to_string()).collect(),
                (_, Some(name)) => vec![name.as_str().to_string()],
                _ => Vec::new(),
            };
            for name in names {
                let first = name.split([':', ' ']).next().unwrap_or("");
                let full = format!("{base}{first}");
                if let Some(target) = resolve(&full).or_else(|| resolve(base.trim_end_matches(':')))
                    && target != module
                    && !module.starts_with(&format!("{target}::"))
                {
                    imports.insert(target);
                }
            }
        }
        graph.entry(module).or_default().extend(imports);
    }
    graph
}

/// A cycle in an import graph, as the modules it passes through (the first one again last).
fn import_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search for a back edge, reporting the cycle it closes.
    fn visit<'a>(
        module: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<&'a str>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            return Some(path[at..].iter().map(|m| m.to_string()).chain([module.to_string()]).collect());
        }
        if !done.insert(module) {
            return None;
        }
        path.push(module);
        for next in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|module| visit(module, graph, &mut done, &mut Vec::new()))
}

#[test]
fn tools_modules_import_each_other_without_a_cycle_and_only_the_root_imports_the_toolbox() {
    let graph = crate_imports("tools/src", None);
    assert!(graph.len() > 30, "found only {} modules", graph.len());
    let importers: Vec<&String> =
        graph.iter().filter(|(m, i)| !m.is_empty() && i.contains("toolbox")).map(|(m, _)| m).collect();
    assert!(importers.is_empty(), "only the crate root may import the toolbox, not {importers:?}");
    let cycle = import_cycle(&graph);
    assert!(cycle.is_none(), "tools/src imports in a cycle: {}", cycle.unwrap().join(" -> "));
}

/// The indexer is built in floors, each importing only those below: the ground floor's data
/// (`files`, `symbols`, `names`, `meaning`), then `lang/`, extraction, `resolve/`, the graph and
/// what reads it, and `index` on top. Its top-level modules (a file, or a whole folder: `lang`
/// and `resolve` are one module each) import each other through `crate::` paths without a
/// cycle; test code is left out, and the crate root (`lib.rs`), which only re-exports, too.
#[test]
fn indexer_modules_import_each_other_without_a_cycle() {
    let mut graph = crate_imports("indexer/src", Some(1));
    graph.remove("");
    assert!(graph.len() > 15, "found only {} modules", graph.len());
    let cycle = import_cycle(&graph);
    assert!(cycle.is_none(), "indexer/src imports in a cycle: {}", cycle.unwrap().join(" -> "));
}

/// A tool's name appears as a string literal once in the tools crate, in its own spec; code
/// that compares against it is a second list of tools to keep in step.
#[test]
fn tool_names_are_spelled_only_in_their_specs() {
    let dir = tempfile::tempdir().unwrap();
    let toolbox =
        tack_tools::Toolbox::new(dir.path(), tack_tools::Config::default(), tack_tools::Profile::Full, false)
            .unwrap();
    let names: Vec<&str> = toolbox.specs().map(|t| t.name).collect();
    assert!(names.len() > 15, "{names:?}");
    let mut files = Vec::new();
    rust_files(&workspace().join("tools/src"), &mut files);
    rust_files(&workspace().join("server/src"), &mut files);
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let rel = file.strip_prefix(workspace()).unwrap().display().to_string();
        if code.contains("unreachable!") {
            problems.push(format!("{rel} has unreachable!"));
        }
        for name in &names {
            let literal = format!("\"{name}\"");
            for (at, _) in code.match_indices(&literal) {
                let after = code[at + literal.len()..].trim_start();
                let before = code[..at].trim_end();
                let compared = after.starts_with("=>")
                    || after.starts_with('|')
                    || before.ends_with("==")
                    || before.ends_with("!=")
                    || before.ends_with('|');
                if compared {
                    problems.push(format!("{rel} compares against the tool name {literal}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// What differs between languages lives in `indexer/src/lang/<name>/`: no other non-test code
/// branches on a language.
#[test]
fn only_language_modules_branch_on_a_language() {
    let mut files = Vec::new();
    for crate_dir in ["indexer/src", "tools/src", "server/src"] {
        rust_files(&workspace().join(crate_dir), &mut files);
    }
    let mut branching = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(workspace()).unwrap().display().to_string();
        if rel.starts_with("indexer/src/lang/") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in code.lines().enumerate() {
            if line.contains("Lang::Python") || line.contains("Lang::Rust") {
                branching.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(branching.is_empty(), "language branches outside indexer/src/lang/: {branching:#?}");
}

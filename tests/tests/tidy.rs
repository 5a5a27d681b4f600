//! Repository hygiene that review would otherwise catch late: every Rust file says what it is
//! for, ARCHITECTURE.md stays short enough to be read, file names say one thing each, the tools
//! crate stays layered (no import cycles, tool names only in the catalogue's entries), and the
//! indexer stays in floors (no import cycles, language knowledge only in `lang/`).

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

/// Non-test code of `crate_src` outside `indexer/src/lang/`, by path from the workspace.
fn code_outside_lang(crate_src: &str) -> Vec<(String, String)> {
    code_of(crate_src).into_iter().filter(|(rel, _)| !rel.starts_with("indexer/src/lang/")).collect()
}

/// Non-test code of `crate_src` outside each language's folder (`indexer/src/lang/<name>/`):
/// what `code_outside_lang` gives, and the files shared by the languages (`lang/mod.rs`).
fn code_outside_language_folders(crate_src: &str) -> Vec<(String, String)> {
    code_of(crate_src)
        .into_iter()
        .filter(|(rel, _)| rel.strip_prefix("indexer/src/lang/").is_none_or(|rest| !rest.contains('/')))
        .collect()
}

/// The non-test code of every Rust file of `crate_src`, by path from the workspace.
fn code_of(crate_src: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&workspace().join(crate_src), &mut files);
    files
        .iter()
        // Test modules: `tests.rs`, and a file of tests beside it (`cycle_tests.rs`).
        .filter(|f| !f.to_string_lossy().ends_with("tests.rs"))
        .map(|f| {
            let rel = f.strip_prefix(workspace()).unwrap().display().to_string();
            let text = std::fs::read_to_string(f).unwrap();
            (rel, text.split("#[cfg(test)]").next().unwrap_or("").to_string())
        })
        .collect()
}

/// The string literals of a file's code (comments left out), each with the 1-based line it
/// starts on: plain, byte and raw strings, a literal over several lines whole (a `\` at a
/// line's end joins it to the next as the compiler does), char literals and lifetimes passed
/// over.
fn string_literals(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let continuation = regex::Regex::new(r"\\\n\s*").unwrap();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    // Moves past `chars[from..to]`, counting the lines passed.
    let pass = |from: usize, to: usize, line: &mut usize| {
        *line += chars[from..to.min(chars.len())].iter().filter(|c| **c == '\n').count();
        to
    };
    while i < chars.len() {
        let rest = &chars[i..];
        let after_word = i > 0 && is_word(chars[i - 1]);
        if rest.starts_with(&['/', '/']) {
            let end = rest.iter().position(|c| *c == '\n').map_or(chars.len(), |n| i + n);
            i = pass(i, end, &mut line);
        } else if rest.starts_with(&['/', '*']) {
            let end = (i + 2..chars.len())
                .find(|&j| chars[j - 1] == '*' && chars[j] == '/')
                .map_or(chars.len(), |j| j + 1);
            i = pass(i, end, &mut line);
        } else if !after_word
            && (rest.starts_with(&['r', '"'])
                || rest.starts_with(&['r', '#'])
                || rest.starts_with(&['b', 'r']))
        {
            let start = if rest[0] == 'b' { i + 2 } else { i + 1 };
            let hashes = chars[start..].iter().take_while(|c| **c == '#').count();
            if chars.get(start + hashes) != Some(&'"') {
                i += 1;
                continue;
            }
            let open = start + hashes + 1;
            let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let end = (open..chars.len()).find(|&j| chars[j..].starts_with(&closing)).unwrap_or(chars.len());
            out.push((line, chars[open..end].iter().collect()));
            i = pass(i, end + closing.len(), &mut line);
        } else if rest[0] == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let text: String = chars[i + 1..j.min(chars.len())].iter().collect();
            out.push((line, continuation.replace_all(&text, "").into_owned()));
            i = pass(i, j + 1, &mut line);
        } else if rest[0] == '\'' {
            // A char literal (`'"'`, `'\''`), else a lifetime's or a label's quote.
            let end = match rest.get(1) {
                Some('\\') => (i + 3..chars.len()).find(|&j| chars[j] == '\'').map_or(chars.len(), |j| j + 1),
                Some(_) if rest.get(2) == Some(&'\'') => i + 3,
                _ => i + 1,
            };
            i = pass(i, end, &mut line);
        } else {
            i = pass(i, i + 1, &mut line);
        }
    }
    out
}

/// What differs between languages lives in `indexer/src/lang/<name>/`: no other non-test code
/// branches on a language (names a variant such as `Lang::Python`).
#[test]
fn only_language_modules_branch_on_a_language() {
    let variant = regex::Regex::new(r"\bLang::[A-Z]\w*").unwrap();
    let mut branching = Vec::new();
    for crate_src in ["indexer/src", "tools/src", "server/src"] {
        for (rel, code) in code_outside_lang(crate_src) {
            for (i, line) in code.lines().enumerate() {
                if variant.is_match(line) {
                    branching.push(format!("{rel}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(branching.is_empty(), "language branches outside indexer/src/lang/: {branching:#?}");
}

/// One language of the registry, as its folder `lang/<module>/` declares it: the `Lang`
/// variants of its specs and their family.
#[derive(Default)]
struct Registered {
    variants: Vec<String>,
    family: String,
    /// What names it in code: its module as a path or a `mod`, or one of its variants.
    named: Option<regex::Regex>,
}

/// Adding a language is a folder and a line: no code outside its folders
/// (`indexer/src/lang/<name>/`, and those of its family, which share code) names it (its
/// module, its `Lang` variants or its queries), but the registry's lines in `lang/mod.rs` and
/// the `Lang` enum in `snapshot.rs`. Counted per language and file.
#[test]
fn a_language_is_named_only_in_its_folders_and_the_registry() {
    let lang_dir = workspace().join("indexer/src/lang");
    let registry = std::fs::read_to_string(lang_dir.join("mod.rs")).unwrap();
    let entry = regex::Regex::new(r"^&(\w+)::\w+,$").unwrap();
    let mut languages: BTreeMap<String, Registered> = BTreeMap::new();
    for line in registry.lines() {
        if let Some(cap) = entry.captures(line.trim()) {
            languages.entry(cap[1].to_string()).or_default();
        }
    }
    assert!(languages.len() >= 8, "the registry's modules: {:?}", languages.keys());
    let variant = regex::Regex::new(r"\blang: Lang::(\w+)").unwrap();
    let family = regex::Regex::new(r#"\bfamily: "(\w+)""#).unwrap();
    for (module, language) in &mut languages {
        let mut files = Vec::new();
        rust_files(&lang_dir.join(module.as_str()), &mut files);
        for file in files {
            let text = std::fs::read_to_string(file).unwrap();
            language.variants.extend(variant.captures_iter(&text).map(|cap| cap[1].to_string()));
            if let Some(cap) = family.captures(&text) {
                language.family = cap[1].to_string();
            }
        }
        assert!(!language.variants.is_empty() && !language.family.is_empty(), "lang/{module}/ has no spec");
        let variants = language.variants.join("|");
        let named = format!(r"\b{module}::|\bmod {module};|\bLang::({variants})\b");
        language.named = Some(regex::Regex::new(&named).unwrap());
    }
    let literal = regex::Regex::new(r#""((?:[^"\\]|\\.)*)""#).unwrap();
    let mut outside: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut in_registry: BTreeMap<&str, usize> = BTreeMap::new();
    for crate_src in ["indexer/src", "tools/src", "server/src"] {
        for (rel, code) in code_of(crate_src) {
            let in_folder_of = |module: &str| rel.starts_with(&format!("indexer/src/lang/{module}/"));
            let mut in_lang_enum = false;
            for (i, line) in code.lines().enumerate() {
                let line = line.trim();
                in_lang_enum = (in_lang_enum && line != "}") || line == "pub enum Lang {";
                if line.starts_with("//") {
                    continue;
                }
                // Code without its strings and its comment; a query's path is in a string.
                let bare = literal.replace_all(line, "\"\"");
                let bare = bare.split("//").next().unwrap_or("");
                for (module, language) in &languages {
                    let kin =
                        languages.iter().any(|(other, o)| o.family == language.family && in_folder_of(other));
                    let names = language.named.as_ref().is_some_and(|named| named.is_match(bare))
                        || line.contains(&format!("queries/{module}/"));
                    let variant_of_enum = in_lang_enum
                        && rel == "indexer/src/snapshot.rs"
                        && language.variants.iter().any(|v| line == format!("{v},"));
                    let registry_line = rel == "indexer/src/lang/mod.rs"
                        && (line == format!("mod {module};") || entry.is_match(line));
                    if (names && registry_line) || variant_of_enum {
                        *in_registry.entry(module).or_default() += 1;
                    } else if names && !kin {
                        outside.entry(module).or_default().insert(format!("{rel}:{}: {line}", i + 1));
                    }
                }
            }
        }
    }
    for module in languages.keys() {
        // Its `mod` line, its registry entries and its variants.
        assert!(in_registry.get(module.as_str()).is_some_and(|n| *n >= 3), "{module}: {in_registry:?}");
    }
    assert!(outside.is_empty(), "languages named outside their folders and the registry: {outside:#?}");
}

/// The indexer's core knows no language's files: no string literal outside `lang/` names a
/// module file (`__init__.py`, `mod.rs`, `index.ts`) or its stem; `LangSpec` and
/// `lang::module_name` say which files are special.
#[test]
fn the_indexer_names_module_files_only_in_language_modules() {
    let fragments = [
        "__init__",
        "__main__",
        "mod.rs",
        "lib.rs",
        "main.rs",
        "tests.rs",
        "conftest.py",
        "index.js",
        "index.ts",
        "index.mjs",
        "index.mts",
        "index.jsx",
        "package.json",
        "go.mod",
        "Cargo.toml",
        "pom.xml",
    ];
    let stems = ["mod", "lib", "main", "index"];
    let mut named = Vec::new();
    for (rel, code) in code_outside_lang("indexer/src") {
        for (line, text) in string_literals(&code) {
            if fragments.iter().any(|f| text.contains(f)) || stems.contains(&text.as_str()) {
                named.push(format!("{rel}:{line}: {text:?}"));
            }
        }
    }
    assert!(named.is_empty(), "module file names outside indexer/src/lang/: {named:#?}");
}

/// Grammars are known only in each language's folder, `indexer/src/lang/<name>/`: indexer code
/// outside them that reads a tree (that names `tree_sitter`), the walks the languages share
/// included, spells no node kind or field name of any grammar tack parses with, taken from the
/// grammars themselves. Capture names of the query files (`name`,
/// `scope`, `import`) are the contract between the queries and the core, the same in every
/// language, and may be spelled; code that reads no tree uses such words as tack's own (the
/// kind `function` it prints).
#[test]
fn the_indexer_spells_grammar_names_only_in_language_modules() {
    let extensions = ["py", "rs", "go", "js", "ts", "tsx", "java", "c", "cpp"];
    let langs: BTreeSet<tack_indexer::Lang> = extensions
        .iter()
        .filter_map(|ext| tack_indexer::Lang::from_path(Path::new(&format!("x.{ext}"))))
        .collect();
    assert_eq!(langs.len(), extensions.len(), "one language per extension: {langs:?}");
    let mut grammar_names: BTreeSet<String> = BTreeSet::new();
    for lang in &langs {
        let grammar = lang.grammar();
        for id in 0..grammar.node_kind_count() as u16 {
            if grammar.node_kind_is_named(id) && grammar.node_kind_is_visible(id) {
                grammar_names.extend(grammar.node_kind_for_id(id).map(str::to_string));
            }
        }
        for id in 1..=grammar.field_count() as u16 {
            grammar_names.extend(grammar.field_name_for_id(id).map(str::to_string));
        }
    }
    assert!(grammar_names.contains("identifier") && grammar_names.contains("body"), "{grammar_names:?}");
    let mut queries = Vec::new();
    let capture = regex::Regex::new(r"@([A-Za-z_][\w.]*)").unwrap();
    let mut captures: BTreeSet<String> = BTreeSet::new();
    scm_files(&workspace().join("indexer/queries"), &mut queries);
    for file in &queries {
        let text = std::fs::read_to_string(file).unwrap();
        captures.extend(capture.captures_iter(&text).map(|cap| cap[1].to_string()));
    }
    assert!(captures.contains("name") && captures.contains("definition.function"), "{captures:?}");
    let mut spelled = Vec::new();
    let mut readers = 0;
    for (rel, code) in code_outside_language_folders("indexer/src") {
        if !code.contains("tree_sitter") {
            continue;
        }
        readers += 1;
        for (line, text) in string_literals(&code) {
            if grammar_names.contains(&text) && !captures.contains(&text) {
                spelled.push(format!("{rel}:{line}: {text:?}"));
            }
        }
    }
    assert!(readers >= 3, "found only {readers} files outside lang/ that read trees");
    assert!(spelled.is_empty(), "grammar names outside the language folders: {spelled:#?}");
}

fn scm_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            scm_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "scm") {
            out.push(path);
        }
    }
}

/// The README opens with the test command, which is the script that installs what the tests
/// need and runs them, and CI runs exactly that script: a fresh machine needs no step the README
/// does not name.
#[test]
fn the_readmes_test_command_is_the_installing_script_ci_runs() {
    let root = workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a first sh block");
    let commands: Vec<&str> = block.lines().map(|l| l.split('#').next().unwrap().trim()).collect();
    assert_eq!(commands.get(1), Some(&"scripts/test"), "the README's second command:\n{block}");
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let ci_tests: Vec<&str> = ci
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter(|l| l.contains("cargo test") || l.contains("scripts/test"))
        .collect();
    assert_eq!(ci_tests, ["scripts/test"], "CI runs the tests only through the README's command");
    let script = std::fs::read_to_string(root.join("scripts/test")).unwrap();
    assert!(script.trim_end().ends_with("exec cargo test --workspace \"$@\""), "{script}");
    for package in ["python3-venv", "nodejs npm", "golang-go", "cmake", "g++", "maven", "gradle"] {
        assert!(script.contains(&format!("need {package}")), "scripts/test installs {package} when missing");
    }
}

/// Every runner a language's checks may name is one `verify` has: a name it lacks would leave
/// the check's output to be guessed from its command. Each language declares the runners its
/// checks name (`LangSpec::runners`, which `project_checks` holds its checks to), and every
/// check the fixtures' projects get names one of those.
#[test]
fn every_runner_a_language_names_exists() {
    let runners = tack_tools::runner_names();
    let named = tack_indexer::check_runners();
    assert!(named.len() >= 6, "{named:?}");
    let missing: Vec<&str> = named.iter().copied().filter(|name| !runners.contains(name)).collect();
    assert!(
        missing.is_empty(),
        "languages name runners verify does not have: {missing:?}; it has {runners:?}"
    );
    let mut found = Vec::new();
    for entry in std::fs::read_dir(workspace().join("fixtures")).unwrap().flatten() {
        if entry.path().is_dir() {
            for check in tack_indexer::project_checks(&entry.path()) {
                found.push((entry.file_name().to_string_lossy().into_owned(), check.format));
            }
        }
    }
    assert!(found.len() >= 8, "the fixtures get only these checks: {found:?}");
    let unnamed: Vec<&(String, &str)> = found.iter().filter(|(_, format)| !named.contains(format)).collect();
    assert!(unnamed.is_empty(), "checks that name a runner no language declares: {unnamed:?}");
}

/// What differs between test runners lives in `tools/src/harness/runners/`, a file each, and
/// what differs between languages in the indexer's `lang/`: a tool's code (`tools/src/tool/`,
/// tests left out) has no string literal that is a runner's name or a file extension (a
/// language sniffed by its files), or that names a program a runner runs or the file that marks
/// a language's project (`mvn `, `ctest`, `go.mod`).
#[test]
fn tools_name_no_runner_and_no_language() {
    let runners = tack_tools::runner_names();
    let extension = regex::Regex::new(r"^\.[A-Za-z0-9]+$").unwrap();
    let program = regex::Regex::new(
        // Words that are English too are taken only as they begin a command.
        r"\b(pytest|pyflakes|flake8|ruff|mypy|cargo|nextest|clippy|go (test|vet|build)|node --test|npm|npx|pnpm|yarn|jest|vitest|mocha|eslint|tsc|mvn|gradlew?|ctest|cmake)\b",
    )
    .unwrap();
    let markers = [
        "Cargo.toml",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "package.json",
        "tsconfig.json",
        "pyproject.toml",
        "setup.py",
        "pytest.ini",
        "CMakeLists.txt",
    ];
    let mut files = Vec::new();
    rust_files(&workspace().join("tools/src/tool"), &mut files);
    assert!(files.len() > 10, "found only {} tool files", files.len());
    let mut named = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let rel = file.strip_prefix(workspace()).unwrap().display().to_string();
        for (line, text) in string_literals(code) {
            if runners.contains(&text.as_str())
                || extension.is_match(&text)
                || program.is_match(&text)
                || markers.iter().any(|m| text.contains(m))
            {
                named.push(format!("{rel}:{line}: {text:?}"));
            }
        }
    }
    assert!(named.is_empty(), "tool code that names a runner or a language: {named:#?}");
}

/// A runner's name is spelled only in its own file under `tools/src/harness/runners/`: code
/// elsewhere in the tools or the server that compares a format with a name, or picks one by
/// it, is a second list of runners to keep in step.
#[test]
fn only_runner_files_spell_a_runner_name() {
    let runners = tack_tools::runner_names();
    assert!(runners.len() >= 8, "{runners:?}");
    let mut files = Vec::new();
    rust_files(&workspace().join("tools/src"), &mut files);
    rust_files(&workspace().join("server/src"), &mut files);
    let mut spelled = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(workspace()).unwrap().display().to_string();
        if rel.starts_with("tools/src/harness/runners/") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (line, text) in string_literals(code) {
            if runners.contains(&text.as_str()) {
                spelled.push(format!("{rel}:{line}: {text:?}"));
            }
        }
    }
    assert!(spelled.is_empty(), "runner names outside their runner files: {spelled:#?}");
}

//! Python: `.py` and `.pyi` files, tree-sitter-python, `queries/python/`.

use std::sync::Arc;

use tree_sitter::Node;

use super::{
    Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Reach, Rules, node_text, simple_chain,
    squash,
};
use crate::meaning::{Bound, Entry, Tables};
use crate::names::{BindKind, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

mod modules;

pub(crate) struct Python;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Python,
    name: "python",
    extensions: &["py", "pyi"],
    interpreters: &["python", "python3", "python2"],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_python::LANGUAGE.into(),
    comments: Comments { line: &["#"], block: None, block_inner: None, not: &["#!"] },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_non_bindings: &["attribute", "subscript", "string"],
        pattern_skipped_fields: &["type", "condition", "value", "function", "arguments", "body"],
        chain_names: &["identifier"],
        chain_members: &[("attribute", "object", "attribute")],
        chain_calls: &[("call", "function")],
        import_aliases: &[("aliased_import", "alias")],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/python/tags.scm"),
    names: include_str!("../../../queries/python/names.scm"),
    test_file_suffixes: &["_test.py"],
    test_file_names: &["conftest.py"],
    surface_files: &["__init__.py"],
    separator: ".",
    noise: &["self", "cls"],
    std_methods: &[
        "add",
        "append",
        "clear",
        "close",
        "copy",
        "count",
        "decode",
        "discard",
        "encode",
        "endswith",
        "extend",
        "find",
        "flush",
        "format",
        "get",
        "group",
        "index",
        "insert",
        "items",
        "join",
        "keys",
        "lower",
        "lstrip",
        "match",
        "open",
        "pop",
        "popitem",
        "read",
        "readline",
        "readlines",
        "remove",
        "replace",
        "reverse",
        "rsplit",
        "rstrip",
        "search",
        "seek",
        "setdefault",
        "sort",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "sub",
        "tell",
        "update",
        "upper",
        "values",
        "write",
    ],
    keywords: &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
        "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
        "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    ],
    preamble: &["@"],
    rules: Rules {
        attribute_names_members: true,
        method_call_names_function: true,
        defs_are_assignments: true,
        external_globs_give_candidates: true,
        bases_outside_class: true,
        class_body_closed: true,
        first_binding_scope_wins: true,
        module_scope_is_closed: false,
    },
    family: "python",
    checks: python_checks,
    runners: &["pytest", "diagnostics"],
};

impl Language for Python {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.name().starts_with('_') && !def.name().ends_with("__")
    }

    fn is_receiver(&self, name: &str) -> bool {
        matches!(name, "self" | "cls")
    }

    fn constructor(&self) -> Option<&'static str> {
        Some("__init__")
    }

    fn is_type_parameter(&self, def: DefRef<'_>) -> bool {
        let Some((_, value)) = def.signature().split_once('=') else { return false };
        let callee = value.trim().split('(').next().unwrap_or("");
        let last = callee.rsplit('.').next().unwrap_or(callee).trim();
        value.contains('(') && matches!(last, "TypeVar" | "ParamSpec" | "TypeVarTuple")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        name.len() > 4 && name.starts_with("__") && name.ends_with("__")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_definition" => ScopeKind::Function,
            "class_definition" => ScopeKind::Class,
            "lambda" => ScopeKind::Lambda,
            _ => ScopeKind::Comprehension,
        }
    }

    /// A function directly in a class body (through a decorator, if any) is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        if kind != DefKind::Function {
            return kind;
        }
        // function → (decorated_definition →) block → class_definition
        let decorated = up[0].is_some_and(|p| p.kind() == "decorated_definition");
        let container = if decorated { up[2] } else { up[1] };
        if container.is_some_and(|c| c.kind() == "class_definition") { DefKind::Method } else { kind }
    }

    /// A function under `@fixture`, `@pytest.fixture` or `@pytest.fixture(scope=...)`; not one
    /// that takes another name (`@pytest.fixture(name="db")`): tests ask for it by that name,
    /// not by the function's.
    fn provides_by_name(&self, def: Node, up: [Option<Node>; 3], bytes: &[u8]) -> bool {
        let Some(decorated) = up[0].filter(|p| p.kind() == "decorated_definition") else {
            return false;
        };
        if def.kind() != "function_definition" {
            return false;
        }
        let mut cursor = decorated.walk();
        decorated.children(&mut cursor).filter(|c| c.kind() == "decorator").any(|decorator| {
            let text = decorator.utf8_text(bytes).unwrap_or("").trim_start_matches('@');
            let (callee, arguments) = text.split_once('(').unwrap_or((text, ""));
            let renamed = arguments.split(',').any(|a| {
                a.trim_start().strip_prefix("name").is_some_and(|r| r.trim_start().starts_with('='))
            });
            callee.trim().rsplit('.').next() == Some("fixture") && !renamed
        })
    }

    /// pytest fills a fixture's parameters with the fixtures of their names, and a test
    /// function's (`test*`, in a module or a class) in a module it collects: one named as its
    /// default `python_files` says (`test_*.py`, `*_test.py`), or any module of a test folder
    /// (`tests/`, `testing/`: projects widen `python_files` there, pytest's own to
    /// `testing/python/*.py`). A `test_connection(url)` helper in `src/` is no test.
    fn fills_parameters(&self, path: &str, function: DefRef<'_>) -> bool {
        if function.provides() {
            return true;
        }
        let (folders, file_name) = path.rsplit_once('/').unwrap_or(("", path));
        function.name().starts_with("test")
            && (is_test_module(file_name)
                || folders.split('/').any(|f| matches!(f, "test" | "tests" | "testing")))
    }

    /// A `conftest.py` serves its folder and below; a test module itself; any other module is
    /// taken for a plugin's, which pytest loads for every test once it is registered
    /// (`pytest_plugins`, `-p`, an entry point; tack does not check which are).
    fn provider_reach(&self, file_name: &str) -> Reach {
        if file_name == CONFTEST {
            Reach::Folder
        } else if is_test_module(file_name) {
            Reach::File
        } else {
            Reach::Anywhere
        }
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches(':').trim_end()
    }

    /// The first non-empty line of the docstring: a string that is the body's first statement.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        _parent: Option<Node<'t>>,
        bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let body = def.child_by_field_name("body")?;
        let first = body.named_child(0)?;
        if first.kind() != "expression_statement" {
            return None;
        }
        let string = first.named_child(0).filter(|s| s.kind() == "string")?;
        let raw = node_text(string, bytes)
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .trim_matches(|c| c == '"' || c == '\'');
        raw.lines().map(str::trim).find(|l| !l.is_empty())
    }

    /// A name, dotted or quoted, with `| None` dropped; `Optional[Foo]` gives nothing, since
    /// the name alone would be wrong.
    fn type_hint(&self, text: &str) -> Option<String> {
        let mut text = text.trim();
        text = text.trim_matches(|c| c == '"' || c == '\'');
        text = text.strip_suffix("| None").map(str::trim_end).unwrap_or(text);
        let ok = !text.is_empty()
            && text.split('.').all(|part| {
                !part.is_empty()
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && !part.starts_with(|c: char| c.is_ascii_digit())
            });
        ok.then(|| text.to_string())
    }

    /// The object of `a.b.name` (`a.b`), or the module path before a segment in an import
    /// (`..pkg` for `from ..pkg import name`).
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent()?;
        match parent.kind() {
            "attribute" if parent.child_by_field_name("attribute") == Some(node) => {
                let object = parent.child_by_field_name("object")?;
                Some(simple_chain(Lang::Python, object, bytes))
            }
            "dotted_name" => import_qualifier(node, parent, bytes),
            _ => None,
        }
    }

    /// `import a.b [as c]` and `from m import x [as y]`, `from m import *`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        match node.kind() {
            "import_statement" => {
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    if name.kind() == "aliased_import" {
                        let (Some(module), Some(alias)) =
                            (name.child_by_field_name("name"), name.child_by_field_name("alias"))
                        else {
                            continue;
                        };
                        out.push(RawImport {
                            module: squash(node_text(module, bytes)),
                            item: None,
                            bound: Some(node_text(alias, bytes).to_string()),
                            alias: true,
                            glob: false,
                            cfg: None,
                            at: alias,
                        });
                    } else {
                        let module = squash(node_text(name, bytes));
                        let first = module.split('.').next().unwrap_or("").to_string();
                        out.push(RawImport {
                            module,
                            item: None,
                            bound: Some(first),
                            alias: false,
                            glob: false,
                            cfg: None,
                            at: name,
                        });
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = node.child_by_field_name("module_name") else { return };
                let module = squash(node_text(module, bytes));
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "wildcard_import" {
                        out.push(RawImport::glob(module.clone(), child));
                    }
                }
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    let (item, alias) = if name.kind() == "aliased_import" {
                        (name.child_by_field_name("name"), name.child_by_field_name("alias"))
                    } else {
                        (Some(name), None)
                    };
                    let Some(item) = item else { continue };
                    let item_text = squash(node_text(item, bytes));
                    let (bound, at) = match alias {
                        Some(alias) => (node_text(alias, bytes).to_string(), alias),
                        None => (item_text.clone(), item),
                    };
                    out.push(RawImport {
                        module: module.clone(),
                        item: Some(item_text),
                        bound: Some(bound),
                        alias: alias.is_some(),
                        glob: false,
                        cfg: None,
                        at,
                    });
                }
            }
            _ => {}
        }
    }

    /// A constant is reached through its binding; every other definition by its name.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != DefKind::Constant
    }

    /// In the use's own scope, the last binding before it (all of them when none is before, as
    /// in a loop); from an enclosing scope, its last binding.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, same_scope: bool) -> Vec<Entry> {
        // From a nested function the enclosing scope has run to its end: its last binding.
        if !same_scope {
            return entries.last().map(|e| vec![*e]).unwrap_or_default();
        }
        // The right side of `s = f(s)` runs before the assignment: a binding counts only
        // from the next line (or at the use itself, when the use is the binding).
        let before = |e: &Entry| {
            let assigns = matches!(e.bound(), Bound::Binding(b)
                if matches!(symbols.bindings[b as usize].kind, BindKind::Assign | BindKind::Loop));
            let at = e.pos(symbols);
            at == pos || if assigns { at.line < pos.line } else { at <= pos }
        };
        match entries.iter().rposition(before) {
            Some(i) => vec![entries[i]],
            None => entries.to_vec(),
        }
    }

    /// The strings of an `__all__` list or tuple.
    fn exported_names(&self, node: Node, bytes: &[u8], out: &mut Vec<String>) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "string" {
                let text = node_text(child, bytes).trim_matches(|c| c == '"' || c == '\'');
                if !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    out.push(text.to_string());
                }
            }
        }
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(modules::Modules::new(files))
    }
}

/// Python import paths: the segments before `node` in its dotted name, after the relative
/// dots or, for the imported names of `from m import x`, after the module.
fn import_qualifier(node: Node, dotted: Node, bytes: &[u8]) -> Option<String> {
    let mut before: Vec<&str> = Vec::new();
    let mut cursor = dotted.walk();
    for child in dotted.named_children(&mut cursor) {
        if child == node {
            break;
        }
        before.push(node_text(child, bytes));
    }
    let holder = dotted.parent()?;
    let statement = if holder.kind() == "aliased_import" { holder.parent()? } else { holder };
    let head = if holder.kind() == "relative_import" {
        let mut cursor = holder.walk();
        let prefix = holder.named_children(&mut cursor).find(|c| c.kind() == "import_prefix");
        Some(prefix.map(|p| node_text(p, bytes).to_string()).unwrap_or_default())
    } else if statement.kind() == "import_from_statement"
        && statement.child_by_field_name("module_name") != Some(dotted)
    {
        statement.child_by_field_name("module_name").map(|m| squash(node_text(m, bytes)))
    } else {
        None
    };
    let joined = before.join(".");
    match head {
        Some(head) if joined.is_empty() => Some(head),
        Some(head) if head.ends_with('.') => Some(format!("{head}{joined}")),
        Some(head) => Some(format!("{head}.{joined}")),
        None if joined.is_empty() => None,
        None => Some(joined),
    }
}

/// A Python project (its configuration files, or `tests/*.py`): pytest, from a virtualenv in
/// the folder when there is one, listing failures by node id and leaving no cache folder; and
/// ruff or flake8 when configured.
fn python_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    // pip's cache: `PIP_CACHE_DIR`, else `pip` in `XDG_CACHE_HOME` or `~/.cache`.
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
    let pip_cache: Vec<std::path::PathBuf> = env("PIP_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|c| c.join("pip")))
        .or_else(|| env("HOME").map(|h| h.join(".cache/pip")))
        .into_iter()
        .collect();
    let exists = |name: &str| dir.join(name).exists();
    let check = |name: &str, command: String, format: &'static str| super::ProjectCheck {
        name: name.into(),
        command,
        format,
        caches: pip_cache.clone(),
    };
    let has_tests = std::fs::read_dir(dir.join("tests"))
        .map(|entries| entries.flatten().any(|e| e.path().extension().is_some_and(|x| x == "py")))
        .unwrap_or(false);
    let mut out = Vec::new();
    if ["pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", "conftest.py"]
        .iter()
        .any(|f| exists(f))
        || has_tests
    {
        let pytest = [".venv/bin/pytest", "venv/bin/pytest"]
            .iter()
            .find(|p| exists(p))
            .map(|p| format!("./{p}"))
            .unwrap_or_else(|| "pytest".into());
        out.push(check("pytest", format!("{pytest} -q -rfE --tb=short -p no:cacheprovider"), "pytest"));
    }
    let has = |name: &str, needle: &str| super::small_text(dir, name).contains(needle);
    if exists("ruff.toml") || exists(".ruff.toml") || has("pyproject.toml", "[tool.ruff") {
        out.push(check("ruff", "ruff check --output-format concise".into(), "diagnostics"));
    } else if exists(".flake8") || has("setup.cfg", "[flake8]") || has("tox.ini", "[flake8]") {
        out.push(check("flake8", "flake8".into(), "diagnostics"));
    }
    out
}

/// The file whose fixtures pytest hands to the tests of its folder and below.
const CONFTEST: &str = "conftest.py";

/// Whether pytest collects tests from a module of this name (its default `python_files`).
fn is_test_module(file_name: &str) -> bool {
    file_name.ends_with(".py") && (file_name.starts_with("test_") || file_name.ends_with("_test.py"))
}

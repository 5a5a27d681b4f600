//! Go: functions, methods (qualified by their receiver's type), struct, interface and other
//! types, package-level constants and variables. A package is a directory: its files share one
//! scope, and imports name packages by path.

use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

mod packages;

pub(crate) struct Go;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Go,
    name: "go",
    extensions: &["go"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_go::LANGUAGE.into(),
    comments: Comments::SLASHES,
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_skipped_fields: &["type", "condition", "value", "function", "arguments", "body"],
        chain_names: &["identifier", "type_identifier", "package_identifier"],
        chain_members: &[("selector_expression", "operand", "field")],
        chain_calls: &[("call_expression", "function")],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/go/tags.scm"),
    names: include_str!("../../../queries/go/names.scm"),
    test_file_suffixes: &["_test.go"],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    // The blank identifier.
    noise: &["_"],
    std_methods: &[
        "Add",
        "Close",
        "Done",
        "Error",
        "Len",
        "Less",
        "Lock",
        "Read",
        "RLock",
        "RUnlock",
        "String",
        "Swap",
        "Unlock",
        "Wait",
        "Write",
        "WriteString",
    ],
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ],
    preamble: &["//"],
    rules: Rules {
        attribute_names_members: false,
        // `pkg.Function()` reads like a method call.
        method_call_names_function: true,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: false,
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "go",
    checks: go_checks,
    runners: &["go-test", "diagnostics"],
};

impl Language for Go {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.name().starts_with(|c: char| c.is_lowercase() || c == '_')
    }

    fn is_internal_path(&self, path: &str) -> bool {
        path.split('/').any(|part| part == "internal")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "String" | "Error" | "GoString" | "Format" | "Len" | "Less" | "Swap" | "Unwrap")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_declaration" | "method_declaration" => ScopeKind::Function,
            "func_literal" => ScopeKind::Lambda,
            "type_spec" => ScopeKind::Class,
            _ => ScopeKind::Block,
        }
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    /// A method's receiver type: `func (c *Cart) Add` is `Cart.Add`.
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        if def.kind() != "method_declaration" {
            return None;
        }
        receiver_type(def, bytes)
    }

    /// A type's body is its struct or interface; a declaration's signature ends before `=`.
    fn body_start(&self, def: Node) -> Option<usize> {
        if let Some(body) = def.child_by_field_name("body") {
            return Some(body.start_byte());
        }
        match def.kind() {
            "type_spec" => {
                let ty = def.child_by_field_name("type")?;
                let mut cursor = ty.walk();
                let body = ty
                    .children(&mut cursor)
                    .find(|c| matches!(c.kind(), "field_declaration_list" | "{"))
                    .map(|c| c.start_byte());
                body.or(Some(def.end_byte()))
            }
            "const_spec" | "var_spec" => def.child_by_field_name("value").map(|v| v.start_byte()),
            _ => None,
        }
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches('=').trim_end()
    }

    /// The first line of the `//` comments right above the declaration (for a spec alone in its
    /// declaration, above the declaration), read for all of the parent's children in one pass.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let parent = parent?;
        let (holder, key) = match parent.kind() {
            "type_declaration" | "const_declaration" | "var_declaration" => (parent.parent()?, parent.id()),
            _ => (parent, def.id()),
        };
        if cache.parents.insert(holder.id()) {
            child_docs(holder, bytes, &mut cache.lines);
        }
        cache.lines.get(&key).copied()
    }

    /// A pointer dropped and generics cut: `*Cart` → `Cart`, `pkg.List[T]` → `pkg.List`.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim().trim_start_matches('*').trim_start();
        let base = text.split('[').next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| base.to_string())
    }

    /// `_` binds nothing.
    fn pattern_binds(&self, identifier: &str) -> bool {
        identifier != "_"
    }

    /// Go imports name paths, not identifiers: no reference inside one has a qualifier.
    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    /// Each `import "path"`, `import name "path"`, `import . "path"` (a glob); `import _` binds
    /// nothing.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "import_spec" => import_spec(child, bytes, out),
                "import_spec_list" => {
                    let mut inner = child.walk();
                    for spec in child.named_children(&mut inner).filter(|c| c.kind() == "import_spec") {
                        import_spec(spec, bytes, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// Methods are reached through their receiver's type, an interface's through the interface.
    fn bound_by_name(&self, symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != DefKind::Method
            && def.parent().is_none_or(|p| symbols.defs[p as usize].kind != DefKind::Interface)
    }

    /// A local is visible after its declaration, and a second `:=` of it in the same scope
    /// assigns it (`x, err := …` reuses `err`): the first declaration before the use is the
    /// variable. Package-level names are visible everywhere.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::first_local_else_items(entries, symbols, pos)
    }

    /// The result after the parameters: `func (c *Cart) Total() (float64, error)` → `float64`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let rest = signature.strip_prefix("func")?.trim_start();
        let rest = if rest.starts_with('(') { skip_group(rest)?.trim_start() } else { rest };
        let params = rest.find('(')?;
        let rest = skip_group(&rest[params..])?.trim();
        let first = match rest.strip_prefix('(') {
            Some(inner) => inner.split([',', ')']).next()?.trim(),
            None => rest,
        };
        // A named result (`n int`) has its type last.
        let ty = first.rsplit(' ').next()?.trim();
        (!ty.is_empty()).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(packages::Packages::new(files))
    }
}

/// The receiver's type name of a method declaration, pointer and type arguments dropped.
fn receiver_type(method: Node, bytes: &[u8]) -> Option<String> {
    let receiver = method.child_by_field_name("receiver")?;
    let mut cursor = receiver.walk();
    let param = receiver.named_children(&mut cursor).find(|c| c.kind() == "parameter_declaration")?;
    let ty = node_text(param.child_by_field_name("type")?, bytes);
    let ty = ty.trim_start_matches('*').trim_start();
    Some(ty.split('[').next().unwrap_or(ty).trim().to_string())
}

/// The text after the balanced group that `text` starts with (`(…)`).
fn skip_group(text: &str) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[i + 1..]);
                }
            }
            _ => {}
        }
    }
    None
}

fn import_spec<'t>(spec: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
    let Some(path) = spec.child_by_field_name("path") else { return };
    let module = node_text(path, bytes).trim_matches(['"', '`']).to_string();
    let name = spec.child_by_field_name("name");
    match name.map(|n| node_text(n, bytes)) {
        Some("_") => {}
        Some(".") => out.push(RawImport::glob(module, path)),
        Some(alias) => {
            let at = name.unwrap_or(path);
            out.push(RawImport {
                module,
                item: None,
                bound: Some(alias.to_string()),
                alias: true,
                glob: false,
                cfg: None,
                at,
            })
        }
        None => {
            let bound = packages::default_name(&module).to_string();
            out.push(RawImport {
                module,
                item: None,
                bound: Some(bound),
                alias: false,
                glob: false,
                cfg: None,
                at: path,
            });
        }
    }
}

/// The doc comment of each child of `parent` that has one, by child node id: the first line of
/// the `//` run that ends on the line above it.
fn child_docs<'a>(parent: Node, bytes: &'a [u8], out: &mut rustc_hash::FxHashMap<usize, &'a str>) {
    // The run of `//` lines so far: its first non-empty line and the row it ends on.
    let mut run: Option<(Option<&'a str>, usize)> = None;
    let mut cursor = parent.walk();
    for child in parent.children(&mut cursor) {
        if child.kind() == "comment" {
            let Some(line) = node_text(child, bytes).strip_prefix("//") else {
                run = None;
                continue;
            };
            let start = child.start_position().row;
            if run.is_none_or(|(_, last)| last + 1 != start) {
                run = Some((None, start));
            }
            if let Some((first, last)) = run.as_mut() {
                if first.is_none() && !line.trim().is_empty() {
                    *first = Some(line.trim());
                }
                *last = child.end_position().row;
            }
            continue;
        }
        if let Some((Some(line), last)) = run.take()
            && last + 1 == child.start_position().row
        {
            out.insert(child.id(), line);
        }
    }
}

/// A `go.mod`: `go test -json ./...` (read event by event) and `go vet ./...`, with Go's build
/// and module caches (from `GOCACHE`, `GOMODCACHE`, `GOPATH`, else their defaults) writable.
fn go_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    if !dir.join("go.mod").is_file() {
        return Vec::new();
    }
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
    let home = env("HOME");
    let build = env("GOCACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|c| c.join("go-build")))
        .or_else(|| home.as_ref().map(|h| h.join(".cache/go-build")));
    let modules = env("GOMODCACHE")
        .or_else(|| env("GOPATH").map(|p| p.join("pkg/mod")))
        .or_else(|| home.as_ref().map(|h| h.join("go/pkg/mod")));
    let caches: Vec<std::path::PathBuf> = build.into_iter().chain(modules).collect();
    vec![
        super::ProjectCheck {
            name: "go test".into(),
            command: "go test -json ./...".into(),
            format: "go-test",
            caches: caches.clone(),
        },
        super::ProjectCheck {
            name: "go vet".into(),
            command: "go vet ./...".into(),
            format: "diagnostics",
            caches,
        },
    ]
}

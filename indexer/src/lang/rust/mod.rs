//! Rust: `.rs` files, tree-sitter-rust, `queries/rust/`.

use std::sync::Arc;

use tree_sitter::Node;

use super::{
    Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text, simple_chain, squash,
};
use crate::meaning::{Entry, Tables};
use crate::names::{NONE, Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

mod module_tree;

pub(crate) struct Rust;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Rust,
    name: "rust",
    extensions: &["rs"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_rust::LANGUAGE.into(),
    comments: Comments::SLASHES,
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier"],
        pattern_shorthands: &["shorthand_field_identifier"],
        pattern_non_bindings: &["attribute", "scoped_identifier", "field_expression"],
        pattern_skipped_fields: &["type", "condition", "value", "function", "arguments", "body"],
        chain_names: &["identifier", "self", "crate", "super", "type_identifier"],
        chain_paths: &["scoped_identifier", "scoped_type_identifier"],
        chain_members: &[("field_expression", "value", "field")],
        chain_calls: &[("call_expression", "function")],
        import_aliases: &[("use_as_clause", "alias")],
        comments: &["block_comment", "line_comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/rust/tags.scm"),
    names: include_str!("../../../queries/rust/names.scm"),
    test_file_suffixes: &["_tests.rs", "_test.rs"],
    test_file_names: &["tests.rs"],
    surface_files: &["lib.rs"],
    separator: "::",
    noise: &[],
    std_methods: &[
        "and_then",
        "as_bytes",
        "as_mut",
        "as_ref",
        "as_slice",
        "as_str",
        "borrow",
        "borrow_mut",
        "chars",
        "clear",
        "clone",
        "cloned",
        "cmp",
        "collect",
        "contains",
        "contains_key",
        "copied",
        "default",
        "deref",
        "drain",
        "ends_with",
        "entry",
        "eq",
        "expect",
        "extend",
        "filter",
        "filter_map",
        "find",
        "flat_map",
        "flatten",
        "flush",
        "fmt",
        "fold",
        "from",
        "get",
        "get_mut",
        "hash",
        "insert",
        "into",
        "into_iter",
        "is_empty",
        "is_none",
        "is_some",
        "iter",
        "iter_mut",
        "join",
        "keys",
        "last",
        "len",
        "lines",
        "map",
        "map_err",
        "next",
        "ok",
        "ok_or",
        "or_else",
        "partial_cmp",
        "pop",
        "push",
        "push_str",
        "read",
        "remove",
        "retain",
        "rev",
        "sort",
        "split",
        "starts_with",
        "take",
        "to_owned",
        "to_string",
        "trim",
        "unwrap",
        "unwrap_or",
        "unwrap_or_default",
        "unwrap_or_else",
        "values",
        "write",
        "write_all",
    ],
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
    ],
    preamble: &["#[", "///", "//!"],
    rules: Rules {
        attribute_names_members: false,
        method_call_names_function: false,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: false,
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: true,
    },
    family: "rust",
    checks: cargo_checks,
    runners: &["cargo-test", "diagnostics"],
};

impl Language for Rust {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn is_private(&self, def: DefRef<'_>, parent: Option<DefRef<'_>>) -> bool {
        // Items of a trait are as public as the trait.
        let in_trait = parent.is_some_and(|p| p.kind == DefKind::Interface);
        // `pub(crate)`, `pub(super)` and `pub(in path)` keep an item inside its crate.
        let public = def.signature().starts_with("pub ") || def.signature().contains(" pub ");
        !in_trait && !public
    }

    fn names_a_file(&self, def: DefRef<'_>) -> bool {
        def.kind == DefKind::Module && def.signature().ends_with(';')
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_item" => ScopeKind::Function,
            "closure_expression" => ScopeKind::Lambda,
            "mod_item" => ScopeKind::Module,
            "struct_item" => ScopeKind::Class,
            _ => ScopeKind::Block,
        }
    }

    /// A function in the body of an impl or a trait is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        if kind != DefKind::Function {
            return kind;
        }
        let container = up[1].filter(|_| up[0].is_some_and(|p| p.kind() == "declaration_list"));
        match container.map(|c| c.kind()) {
            Some("impl_item" | "trait_item") => DefKind::Method,
            _ => kind,
        }
    }

    /// For an item inside `impl Type`, the type's name (generics dropped); impl blocks are not
    /// definitions themselves, so their name comes from here.
    fn container_name(&self, _def: Node, up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        if up[0].is_none_or(|p| p.kind() != "declaration_list") {
            return None;
        }
        let impl_item = up[1]?;
        if impl_item.kind() != "impl_item" {
            return None;
        }
        let ty = impl_item.child_by_field_name("type")?;
        let text = node_text(ty, bytes);
        let base = text.split('<').next().unwrap_or(text).trim();
        Some(base.rsplit("::").next().unwrap_or(base).to_string())
    }

    /// Structs and enums keep their fields and variants under other names than `body`.
    fn body_start(&self, def: Node) -> Option<usize> {
        def.child_by_field_name("body").map(|b| b.start_byte()).or_else(|| {
            let mut cursor = def.walk();
            def.children(&mut cursor)
                .find(|c| {
                    matches!(c.kind(), "field_declaration_list" | "enum_variant_list" | "declaration_list")
                })
                .map(|c| c.start_byte())
        })
    }

    /// The first non-empty line of the `///` run right before the definition (attributes may
    /// sit in it), read for all of the parent's children in one pass.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let parent = parent?;
        if cache.parents.insert(parent.id()) {
            child_docs(parent, bytes, &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    /// References, lifetimes, `mut`, `dyn`, `impl` and generics dropped: `&'a mut Foo<T>` →
    /// `Foo`; `crate::geo::Point` stays; `Arc<Foo>`, `Rc<Foo>` and `Box<Foo>` are `Foo`.
    fn type_hint(&self, text: &str) -> Option<String> {
        let mut text = text.trim();
        loop {
            let before = text;
            text = text.trim_start_matches('&').trim_start();
            if text.starts_with('\'') {
                text = text.split_once(' ').map_or("", |(_, rest)| rest).trim_start();
            }
            for prefix in ["mut ", "dyn ", "impl "] {
                text = text.strip_prefix(prefix).unwrap_or(text).trim_start();
            }
            if text == before {
                break;
            }
        }
        // What a `Box`, `Rc` or `Arc` holds answers its methods through `Deref`.
        if let Some((outer, inner)) = text.split_once('<')
            && matches!(outer.trim().rsplit("::").next(), Some("Box" | "Rc" | "Arc"))
            && let Some(inner) = inner.trim_end().strip_suffix('>')
        {
            return self.type_hint(inner);
        }
        let base = text.split('<').next().unwrap_or("").trim_end_matches("::");
        let ok = !base.is_empty()
            && base
                .split("::")
                .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'));
        ok.then(|| base.split_whitespace().collect())
    }

    /// A capitalised identifier in a pattern is a constant or a unit variant, not a binding.
    fn pattern_binds(&self, identifier: &str) -> bool {
        !identifier.starts_with(|c: char| c.is_ascii_uppercase())
    }

    /// `&self`, `&mut self` and `self: Box<Self>` bind `self`, an instance of `Self`.
    fn self_parameter(&self) -> Option<(&'static str, &'static str)> {
        Some(("self", "Self"))
    }

    /// The path of `geo::name` (`geo`, after the prefix of an enclosing `use a::{…}` group),
    /// or the value of `a.b.name`.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent()?;
        let own = match parent.kind() {
            "scoped_identifier" | "scoped_type_identifier"
                if parent.child_by_field_name("name") == Some(node) =>
            {
                let path = parent.child_by_field_name("path")?;
                Some(self.type_hint(node_text(path, bytes)).unwrap_or_else(|| "?".to_string()))
            }
            "field_expression" if parent.child_by_field_name("field") == Some(node) => {
                let value = parent.child_by_field_name("value")?;
                Some(simple_chain(Lang::Rust, value, bytes))
            }
            _ => None,
        };
        // Inside `use a::{b, c::d}` the group's path comes first.
        let mut prefix: Vec<String> = Vec::new();
        let mut child = node;
        let mut current = Some(parent);
        while let Some(ancestor) = current {
            match ancestor.kind() {
                "scoped_use_list" if ancestor.child_by_field_name("list") == Some(child) => {
                    if let Some(path) = ancestor.child_by_field_name("path") {
                        prefix.push(squash(node_text(path, bytes)));
                    }
                }
                "use_declaration" => break,
                "use_list" | "scoped_use_list" | "scoped_identifier" | "use_as_clause" => {}
                _ if prefix.is_empty() => break,
                _ => {}
            }
            child = ancestor;
            current = ancestor.parent();
        }
        if prefix.is_empty() {
            return own;
        }
        prefix.reverse();
        if let Some(own) = own {
            prefix.push(own);
        }
        Some(prefix.join("::"))
    }

    /// A path qualifier is a type path; a field access, a call or `self` is a chain.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        match qualifier.kind() {
            "field_expression" | "call_expression" | "self" => simple_chain(Lang::Rust, qualifier, bytes),
            _ => self.type_hint(node_text(qualifier, bytes)).unwrap_or_else(|| "?".to_string()),
        }
    }

    /// `use` trees (groups, renames, globs, `self`) and `extern crate`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        match node.kind() {
            "use_declaration" => {
                let from = out.len();
                if let Some(argument) = node.child_by_field_name("argument") {
                    use_tree(argument, "", bytes, out);
                }
                let cfg = host_meets_cfg(node, bytes);
                for import in &mut out[from..] {
                    import.cfg = cfg;
                }
            }
            "extern_crate_declaration" => {
                let Some(name) = node.child_by_field_name("name") else { return };
                let alias = node.child_by_field_name("alias");
                let at = alias.unwrap_or(name);
                out.push(RawImport {
                    module: String::new(),
                    item: Some(node_text(name, bytes).to_string()),
                    bound: Some(node_text(at, bytes).to_string()),
                    alias: alias.is_some(),
                    glob: false,
                    cfg: None,
                    at,
                });
            }
            _ => {}
        }
    }

    /// Methods, trait items and the items of an impl are reached through their type.
    fn bound_by_name(&self, symbols: &FileSymbols, own_scope: &[u32], def: DefRef<'_>) -> bool {
        let in_impl = || symbols.impls.iter().any(|i| i.start.line <= def.line && def.end_line <= i.end.line);
        def.kind != DefKind::Method
            && def.parent().is_none_or(|p| symbols.defs[p as usize].kind != DefKind::Interface)
            && !(def.parent().is_none_or(|p| own_scope[p as usize] == NONE) && in_impl())
    }

    /// A local must come before the use (the last one wins, shadowing the others); items and
    /// imports are visible everywhere in their scope.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::last_local_else_items(entries, symbols, pos)
    }

    /// An impl block's type and trait paths, generics dropped.
    fn impl_paths(&self, node: Node, bytes: &[u8]) -> Option<(String, Option<String>)> {
        let ty = self.type_hint(node_text(node.child_by_field_name("type")?, bytes))?;
        let trait_path = node.child_by_field_name("trait").and_then(|t| self.type_hint(node_text(t, bytes)));
        Some((ty, trait_path))
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(module_tree::Modules::new(files))
    }
}

/// The doc comment of each child of `parent` that has one, by child node id. One pass over the
/// children, where asking each definition for its previous siblings would search the tree from
/// the root once per comment line.
fn child_docs<'a>(parent: Node, bytes: &'a [u8], out: &mut rustc_hash::FxHashMap<usize, &'a str>) {
    let mut first: Option<&'a str> = None;
    let mut cursor = parent.walk();
    for child in parent.children(&mut cursor) {
        match child.kind() {
            "line_comment" if node_text(child, bytes).starts_with("///") => {
                let line = node_text(child, bytes).trim_start_matches('/').trim();
                if first.is_none() && !line.is_empty() {
                    first = Some(line);
                }
            }
            "attribute_item" => {}
            _ => {
                if let Some(line) = first.take() {
                    out.insert(child.id(), line);
                }
            }
        }
    }
}

/// Whether the host tack runs on meets the `#[cfg(...)]` attributes right before `item`, all of
/// them: `None` when it has none. A condition the host cannot decide (`feature = "x"`, `test`)
/// counts as met: only a platform (`unix`, `windows`, `target_os`, `target_family`,
/// `target_arch`, under `not`, `all`, `any`) tells the host's branch from the others.
fn host_meets_cfg(item: Node, bytes: &[u8]) -> Option<bool> {
    let mut met = None;
    let mut at = item.prev_sibling();
    while let Some(node) = at {
        match node.kind() {
            "attribute_item" => {
                let text = node_text(node, bytes);
                let inner = text.trim_start_matches("#[").trim_end_matches(']').trim();
                if let Some(predicate) = inner.strip_prefix("cfg").map(str::trim_start)
                    && let Some(predicate) = predicate.strip_prefix('(').and_then(|p| p.strip_suffix(')'))
                {
                    met = Some(met.unwrap_or(true) && cfg_holds(predicate.trim()));
                }
            }
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        at = node.prev_sibling();
    }
    met
}

/// A `cfg` predicate on the host: see [`host_meets_cfg`].
fn cfg_holds(predicate: &str) -> bool {
    let (head, args) = match predicate.find('(') {
        Some(open) if predicate.ends_with(')') => {
            (predicate[..open].trim(), Some(&predicate[open + 1..predicate.len() - 1]))
        }
        _ => (predicate, None),
    };
    let parts = |args: &str| -> Vec<String> {
        let (mut out, mut depth, mut current) = (Vec::new(), 0i32, String::new());
        for c in args.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        if !current.trim().is_empty() {
            out.push(current);
        }
        out.into_iter().map(|p| p.trim().to_string()).collect()
    };
    match (head, args) {
        ("not", Some(args)) => !cfg_holds(args.trim()),
        ("all", Some(args)) => parts(args).iter().all(|p| cfg_holds(p)),
        ("any", Some(args)) => parts(args).iter().any(|p| cfg_holds(p)),
        ("unix", None) => std::env::consts::FAMILY == "unix",
        ("windows", None) => std::env::consts::FAMILY == "windows",
        _ => match predicate.split_once('=') {
            Some((key, value)) => {
                let value = value.trim().trim_matches('"');
                match key.trim() {
                    "target_os" => value == std::env::consts::OS,
                    "target_family" => value == std::env::consts::FAMILY,
                    "target_arch" => value == std::env::consts::ARCH,
                    _ => true,
                }
            }
            None => true,
        },
    }
}

fn join_path(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{rest}"),
    }
}

fn split_last(path: &str) -> (String, String) {
    match path.rsplit_once("::") {
        Some((module, item)) => (module.to_string(), item.to_string()),
        None => (String::new(), path.to_string()),
    }
}

fn use_tree<'t>(node: Node<'t>, prefix: &str, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
    match node.kind() {
        "use_as_clause" => {
            let (Some(path), Some(alias)) =
                (node.child_by_field_name("path"), node.child_by_field_name("alias"))
            else {
                return;
            };
            let (module, item) = split_last(&join_path(prefix, &squash(node_text(path, bytes))));
            out.push(RawImport {
                module,
                item: Some(item),
                bound: Some(node_text(alias, bytes).to_string()),
                alias: true,
                glob: false,
                cfg: None,
                at: alias,
            });
        }
        "use_wildcard" => {
            let mut cursor = node.walk();
            let path = node.named_children(&mut cursor).next().map(|p| squash(node_text(p, bytes)));
            out.push(RawImport {
                module: join_path(prefix, &path.unwrap_or_default()),
                item: None,
                bound: None,
                alias: false,
                glob: true,
                cfg: None,
                at: node,
            });
        }
        "scoped_use_list" => {
            let path =
                node.child_by_field_name("path").map(|p| squash(node_text(p, bytes))).unwrap_or_default();
            let inner = join_path(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                use_tree(list, &inner, bytes, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                use_tree(child, prefix, bytes, out);
            }
        }
        "self" if !prefix.is_empty() => {
            let (module, item) = split_last(prefix);
            out.push(RawImport {
                module,
                item: Some(item.clone()),
                bound: Some(item),
                alias: false,
                glob: false,
                cfg: None,
                at: node,
            });
        }
        "identifier" | "scoped_identifier" | "crate" | "super" | "self" => {
            let (module, item) = split_last(&join_path(prefix, &squash(node_text(node, bytes))));
            let at = node.child_by_field_name("name").unwrap_or(node);
            out.push(RawImport {
                module,
                item: Some(item.clone()),
                bound: Some(item),
                alias: false,
                glob: false,
                cfg: None,
                at,
            });
        }
        _ => {}
    }
}

/// A `Cargo.toml`: `cargo test`, and clippy with warnings as errors when `clippy.toml` is there,
/// with cargo's registry as a cache.
fn cargo_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    if !dir.join("Cargo.toml").is_file() {
        return Vec::new();
    }
    // Cargo's downloaded crates and git checkouts, in `CARGO_HOME` (else `~/.cargo`).
    let home = std::env::var_os("CARGO_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cargo")));
    let caches: Vec<std::path::PathBuf> =
        home.map(|h| vec![h.join("registry"), h.join("git")]).unwrap_or_default();
    let check = |name: &str, command: &str, format: &'static str| super::ProjectCheck {
        name: name.into(),
        command: command.into(),
        format,
        caches: caches.clone(),
    };
    let mut out = vec![check("cargo test", "cargo test --color never", "cargo-test")];
    if dir.join("clippy.toml").exists() || dir.join(".clippy.toml").exists() {
        out.push(check("clippy", "cargo clippy --all-targets --color never -- -D warnings", "diagnostics"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cfg_holds;

    #[test]
    fn a_cfg_predicate_is_decided_for_the_host_by_its_platform_alone() {
        let unix = std::env::consts::FAMILY == "unix";
        assert_eq!(cfg_holds("unix"), unix);
        assert_eq!(cfg_holds("windows"), !unix);
        assert_eq!(cfg_holds("not(windows)"), unix);
        assert!(cfg_holds(&format!("target_os = \"{}\"", std::env::consts::OS)));
        assert!(!cfg_holds("target_os = \"plan9\""));
        assert!(cfg_holds("any(target_os = \"plan9\", feature = \"std\")"), "a feature may be on");
        assert!(!cfg_holds("all(feature = \"std\", target_arch = \"no-such-arch\")"));
        assert!(cfg_holds("test"));
    }
}

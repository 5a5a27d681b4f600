//! Swift: `.swift` files, tree-sitter-swift, `queries/swift/`. Classes, structs and actors
//! (classes), enums, protocols (interfaces), type aliases, functions and methods, computed
//! properties (as methods), `static let` and file-level `let` constants and enum cases. An
//! extension is a definition of the extended type's name, so what it adds is qualified and
//! found as the type's members; it binds no name of its own. A module is a target, the files
//! of the folder `Package.swift` gives it (else of one `Sources/<Target>/` or `Tests/<Target>/`
//! folder), which see each other's names; `import Shop` brings in target `Shop`'s.

mod package_manifest;
mod swift_checks;

use std::sync::Arc;

use tree_sitter::Node;

use super::shared_scope::SharedScope;
use super::{
    Comments, DocCache, Lang, LangSpec, Language, Manifest, ModuleRoot, Nodes, RawImport, Rules, node_text,
};
use crate::meaning::{Binder, Entry, Found, Lookup, Tables, Value};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols, RefKind};

pub(crate) struct Swift;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Swift,
    name: "swift",
    extensions: &["swift"],
    interpreters: &[],
    build_scripts: &["Package.swift"],
    manifest: Some(Manifest { file_name: "Package.swift", read: package_manifest::declared_targets }),
    grammar: || tree_sitter_swift::LANGUAGE.into(),
    comments: Comments::SLASHES,
    // Swift reads its qualifiers itself (`qualifier_text`).
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["simple_identifier"],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/swift/tags.scm"),
    names: include_str!("../../../queries/swift/names.scm"),
    test_file_suffixes: &["Tests.swift", "Test.swift"],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    // `_` is an unnamed parameter or label, `init` an initializer (no definition).
    noise: &["_", "init"],
    std_methods: &[
        "append",
        "contains",
        "count",
        "filter",
        "first",
        "forEach",
        "insert",
        "isEmpty",
        "joined",
        "last",
        "map",
        "reduce",
        "remove",
        "removeAll",
        "sorted",
        "split",
    ],
    keywords: &[
        "actor",
        "as",
        "associatedtype",
        "break",
        "case",
        "catch",
        "class",
        "continue",
        "default",
        "defer",
        "deinit",
        "do",
        "else",
        "enum",
        "extension",
        "fallthrough",
        "false",
        "fileprivate",
        "for",
        "func",
        "guard",
        "if",
        "import",
        "in",
        "init",
        "inout",
        "internal",
        "is",
        "let",
        "nil",
        "open",
        "operator",
        "private",
        "protocol",
        "public",
        "repeat",
        "rethrows",
        "return",
        "static",
        "struct",
        "subscript",
        "switch",
        "throw",
        "throws",
        "true",
        "try",
        "typealias",
        "var",
        "where",
        "while",
    ],
    preamble: &["@", "///", "/**", "*", "//"],
    rules: Rules {
        // `Cart.taxPercent` reads a constant, `cart.isEmpty` a computed property.
        attribute_names_members: true,
        method_call_names_function: false,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: true,
        // A type's members are visible in its methods and nested types.
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "swift",
    checks: swift_checks::checks,
    runners: &["swift-test"],
};

/// The bodies whose functions are methods.
const TYPE_BODIES: &[&str] = &["class_body", "enum_class_body", "protocol_body"];

impl Language for Swift {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    /// A function or computed property in a type's body is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        let in_type = up[0].is_some_and(|p| TYPE_BODIES.contains(&p.kind()));
        if kind == DefKind::Function && in_type { DefKind::Method } else { kind }
    }

    /// A declaration's attributes (`@discardableResult`, in its modifiers) stand on the lines
    /// above it: its own line starts with the first modifier keyword, or what follows them.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        let mut cursor = def.walk();
        let mut first = None;
        for child in def.children(&mut cursor) {
            match child.kind() {
                "attribute" | "comment" | "multiline_comment" => continue,
                "modifiers" => {
                    let mut inner = child.walk();
                    if let Some(m) = child.children(&mut inner).find(|c| c.kind() != "attribute") {
                        return m;
                    }
                }
                _ => {
                    first = Some(child);
                    break;
                }
            }
        }
        first.unwrap_or(def)
    }

    /// A property's signature ends before its value or its getter.
    fn body_start(&self, def: Node) -> Option<usize> {
        if let Some(body) = def.child_by_field_name("body") {
            return Some(body.start_byte());
        }
        match def.kind() {
            "property_declaration" => def
                .child_by_field_name("computed_value")
                .or_else(|| def.child_by_field_name("value"))
                .map(|v| v.start_byte()),
            _ => None,
        }
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches(['=', ';']).trim_end()
    }

    /// The first line of the `///` comments right above the declaration.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            super::line_comment_docs(Lang::Swift, holder, bytes, "///", &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    /// A type as name resolution looks it up: optionals unwrapped, generic arguments dropped
    /// (`Cart?`, `Box<Item>` → `Box`, `any Priced`); an array, a dictionary, a tuple or a
    /// function type is no one type.
    fn type_hint(&self, text: &str) -> Option<String> {
        let mut text = text.trim();
        for prefix in ["any ", "some ", "inout "] {
            text = text.strip_prefix(prefix).unwrap_or(text).trim_start();
        }
        let text = text.trim_end_matches(['?', '!']);
        let base = text.split('<').next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| base.to_string())
    }

    /// A name in an import is qualified by the module path before it.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent().filter(|p| p.kind() == "identifier")?;
        let mut cursor = parent.walk();
        let before: Vec<&str> = parent
            .named_children(&mut cursor)
            .take_while(|c| *c != node)
            .map(|c| node_text(c, bytes))
            .collect();
        (!before.is_empty()).then(|| before.join("."))
    }

    /// `a.b()`, `a.b`, `Cart()`, `self`, `super`: a chain the resolver follows; anything else
    /// is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class_declaration" | "protocol_declaration" => ScopeKind::Class,
            "function_declaration" | "init_declaration" | "deinit_declaration" | "computed_property" => {
                ScopeKind::Function
            }
            "lambda_literal" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    /// `import Shop` is a glob import of the module (a target of the package, found by its
    /// folder's name); `import struct Shop.Cart` (a kind before the path) binds `Cart` from
    /// `Shop`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
        let Some(path) = children.iter().copied().find(|c| c.kind() == "identifier") else { return };
        let mut inner = path.walk();
        let parts: Vec<Node<'t>> = path.named_children(&mut inner).collect();
        let texts: Vec<&str> = parts.iter().map(|p| node_text(*p, bytes)).collect();
        let kinded = children.iter().any(|c| {
            !c.is_named()
                && matches!(
                    c.kind(),
                    "struct" | "class" | "enum" | "protocol" | "typealias" | "func" | "let" | "var"
                )
        });
        match (kinded, parts.last()) {
            (true, Some(&last)) if parts.len() > 1 => {
                let item = texts[texts.len() - 1].to_string();
                out.push(RawImport {
                    module: texts[..texts.len() - 1].join("."),
                    item: Some(item.clone()),
                    bound: Some(item),
                    alias: false,
                    glob: false,
                    cfg: None,
                    at: last,
                });
            }
            _ => out.push(RawImport::glob(texts.join("."), path)),
        }
    }

    /// Every definition is bound by its name but an extension's, which names a type defined
    /// elsewhere.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        !is_extension(def)
    }

    /// A type's members and stored properties are visible everywhere in its body; a local
    /// after its declaration.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        self.tables_with(files, &[])
    }

    /// A file is in the target whose folder `Package.swift` gives and holds it (the deepest),
    /// else in the one its path names.
    fn tables_with(&self, files: &[Arc<FileEntry>], roots: &[ModuleRoot]) -> Arc<dyn Tables> {
        let declared = |path: &str| {
            roots
                .iter()
                .filter(|root| root.holds(path))
                .max_by_key(|root| root.folder.len())
                .map(|r| r.folder.clone())
        };
        let group = |path: &str| declared(path).unwrap_or_else(|| target_of(path).to_string());
        let named = roots.iter().map(|root| (root.module.clone(), root.folder.clone())).collect();
        Arc::new(Targets(SharedScope::new(files, Lang::Swift, &group).with_names(named)))
    }
}

/// Whether a definition is an extension of a type (`public extension Cart: Priced`).
fn is_extension(def: DefRef<'_>) -> bool {
    def.kind == DefKind::Class
        && def
            .signature()
            .split_whitespace()
            .find(|w| matches!(*w, "class" | "struct" | "actor" | "extension"))
            .is_some_and(|w| w == "extension")
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        "simple_identifier" | "type_identifier" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "self_expression" => {
            out.push_str("self");
            true
        }
        "super_expression" => {
            out.push_str("super");
            true
        }
        "user_type" => match Swift.type_hint(node_text(node, bytes)) {
            Some(path) => {
                out.push_str(&path);
                true
            }
            None => false,
        },
        "navigation_expression" => {
            let (Some(target), Some(suffix)) =
                (node.child_by_field_name("target"), node.child_by_field_name("suffix"))
            else {
                return false;
            };
            let Some(member) =
                suffix.child_by_field_name("suffix").filter(|m| m.kind() == "simple_identifier")
            else {
                return false;
            };
            if !chain(target, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(member, bytes));
            true
        }
        "call_expression" => {
            let mut cursor = node.walk();
            let Some(callee) = node.named_children(&mut cursor).next().filter(|c| c.kind() != "call_suffix")
            else {
                return false;
            };
            if !chain(callee, bytes, out) {
                return false;
            }
            out.push_str("()");
            true
        }
        "tuple_expression" => {
            let mut cursor = node.walk();
            let mut inner = node.named_children(&mut cursor);
            match (inner.next(), inner.next()) {
                (Some(only), None) => chain(only, bytes, out),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The target a file belongs to: the folder below `Sources/` or `Tests/` that holds it, as
/// Swift Package Manager lays a package out (`Sources/Cart/Line.swift` is in `Sources/Cart`);
/// the whole repository is one module elsewhere.
fn target_of(path: &str) -> &str {
    for top in ["Sources/", "Tests/"] {
        let Some(at) = path.find(top).filter(|&i| i == 0 || path[..i].ends_with('/')) else { continue };
        let rest = &path[at + top.len()..];
        if let Some(slash) = rest.find('/') {
            return &path[..at + top.len() + slash];
        }
    }
    ""
}

/// Swift's tables: a target's shared scope, where `self` in a type's body is an instance of the
/// type around it and `super` its base.
struct Targets(SharedScope);

impl Tables for Targets {
    /// Targets follow paths, which a change of contents keeps.
    fn updated(
        self: Arc<Self>,
        _before: &[Arc<FileEntry>],
        _files: &[Arc<FileEntry>],
        _changed: &[u32],
    ) -> Option<Arc<dyn Tables>> {
        Some(self)
    }

    fn module_named(&self, name: &str) -> Vec<u32> {
        self.0.module_named(name)
    }

    fn module_file(&self, r: &dyn Binder, file: u32, module: &str) -> Option<u32> {
        self.0.module_file(r, file, module)
    }

    fn unbound(&self, r: &dyn Binder, file: u32, name: &str, depth: u32) -> Vec<Found> {
        self.0.unbound(r, file, name, depth)
    }

    fn module_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        public: bool,
    ) -> Vec<Found> {
        self.0.module_member(r, file, def, name, depth, public)
    }

    fn type_member(
        &self,
        r: &dyn Binder,
        file: u32,
        def: u32,
        name: &str,
        depth: u32,
        skip_own: bool,
    ) -> Vec<Found> {
        self.0.type_member(r, file, def, name, depth, skip_own)
    }

    fn module_of_def(&self, r: &dyn Binder, file: u32, def: u32) -> Option<Value> {
        self.0.module_of_def(r, file, def)
    }

    /// A bare name no scope binds, in a type's body, is a member of the type through `self`:
    /// one an extension or a base class defines (`total()` in `extension Cart`).
    fn bare_ref(
        &self,
        r: &dyn Binder,
        file: u32,
        pos: Pos,
        name: &str,
        kind: RefKind,
    ) -> Option<Lookup<Vec<Found>>> {
        if !matches!(kind, RefKind::Call | RefKind::Name) {
            return None;
        }
        let found = r.lookup_lexical(file, pos, name, 0);
        if !found.is_empty() {
            return Some(Ok(found));
        }
        let class = crate::meaning::classes_around(r, file, pos).next()?;
        Some(Ok(self.type_member(r, file, class, name, 1, false)))
    }

    fn receiver(&self, r: &dyn Binder, file: u32, pos: Pos, name: &str) -> Option<Value> {
        crate::meaning::class_receiver(r, file, pos, name, ("self", "super"))
    }
}

#[cfg(test)]
mod tests;

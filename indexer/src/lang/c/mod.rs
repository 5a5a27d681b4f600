//! C (and, through the same [`CFamily`] type, C++): functions with bodies, structs, unions,
//! enums and their constants, typedefs, macros and initialized file-scope variables. An
//! `#include` is a glob import of the header it names; a name nothing in scope or in the
//! included headers binds is the one non-`static` definition of that name in the repository,
//! as the linker would find it.

use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(super) mod includes;

/// A language of the C family; its spec says which.
pub(crate) struct CFamily {
    pub(super) spec: &'static LangSpec,
}

pub(crate) static C: CFamily = CFamily { spec: &SPEC };

/// C's keywords, which C++ shares.
pub(super) const KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
    "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "NULL",
];

pub(super) const RULES: Rules = Rules {
    attribute_names_members: false,
    method_call_names_function: false,
    defs_are_assignments: false,
    external_globs_give_candidates: false,
    bases_outside_class: true,
    class_body_closed: false,
    first_binding_scope_wins: false,
    module_scope_is_closed: false,
};

/// The node kinds of C's grammar the shared walks read, which C++'s grammar has too. C reads
/// its qualifiers itself (`qualifier_text`).
pub(super) const NODES: Nodes = Nodes {
    body: "body",
    pattern_identifiers: &["identifier"],
    pattern_non_bindings: &["attribute", "field_expression"],
    pattern_skipped_fields: &["type", "condition", "value", "function", "arguments", "body"],
    comments: &["comment"],
    ..Nodes::NONE
};

static SPEC: LangSpec = LangSpec {
    lang: Lang::C,
    name: "c",
    extensions: &["c"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_c::LANGUAGE.into(),
    comments: Comments::SLASHES,
    nodes: NODES,
    tags: include_str!("../../../queries/c/tags.scm"),
    names: include_str!("../../../queries/c/names.scm"),
    test_file_suffixes: &["_test.c"],
    test_file_names: &[],
    surface_files: &[],
    separator: "::",
    noise: &[],
    std_methods: &[],
    keywords: KEYWORDS,
    preamble: &["/*", "*", "//", "#define", "__attribute__"],
    rules: RULES,
    family: "c",
    checks: make_checks,
    runners: &["plain"],
};

/// Words that stand before a type in a declaration.
const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "static",
    "extern",
    "inline",
    "struct",
    "union",
    "enum",
    "class",
    "typename",
    "unsigned",
    "signed",
    "register",
    "mutable",
    "constexpr",
    "virtual",
    "explicit",
];

/// Types that are no class.
const PRIMITIVES: &[&str] = &[
    "void", "char", "short", "int", "long", "float", "double", "bool", "_Bool", "size_t", "auto", "wchar_t",
];

impl Language for CFamily {
    fn spec(&self) -> &'static LangSpec {
        self.spec
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().starts_with("static ")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        name.starts_with("operator") || name.starts_with('~')
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "function_definition" => ScopeKind::Function,
            "lambda_expression" => ScopeKind::Lambda,
            "class_specifier" | "struct_specifier" => ScopeKind::Class,
            "namespace_definition" => ScopeKind::Module,
            _ => ScopeKind::Block,
        }
    }

    /// A function inside a class body is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        let in_class = up[0].is_some_and(|p| p.kind() == "field_declaration_list")
            || (up[0].is_some_and(|p| p.kind() == "template_declaration")
                && up[1].is_some_and(|p| p.kind() == "field_declaration_list"));
        if kind == DefKind::Function && in_class { DefKind::Method } else { kind }
    }

    /// An out-of-line method's class: `void Cart::add(…)` is `Cart::add`.
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        if def.kind() != "function_definition" {
            return None;
        }
        let mut declarator = def.child_by_field_name("declarator")?;
        while declarator.kind() != "function_declarator" {
            declarator = match declarator.child_by_field_name("declarator") {
                Some(inner) => inner,
                None => {
                    let mut cursor = declarator.walk();
                    declarator.named_children(&mut cursor).find(|c| c.kind() == "function_declarator")?
                }
            };
        }
        let name = declarator.child_by_field_name("declarator")?;
        if name.kind() != "qualified_identifier" {
            return None;
        }
        let scope = name.child_by_field_name("scope")?;
        let text = node_text(scope, bytes);
        Some(text.split('<').next().unwrap_or(text).trim().to_string())
    }

    /// A `#define` ends with its line's newline: its last line is that line, not the next.
    fn end_line(&self, def: Node) -> u32 {
        let end = def.end_position();
        if end.column == 0 && end.row > def.start_position().row {
            end.row as u32
        } else {
            end.row as u32 + 1
        }
    }

    /// A macro's signature is its name and parameters; a type's body is its braces.
    fn body_start(&self, def: Node) -> Option<usize> {
        if let Some(body) = def.child_by_field_name("body") {
            return Some(body.start_byte());
        }
        match def.kind() {
            "preproc_def" | "preproc_function_def" => {
                def.child_by_field_name("value").map(|v| v.start_byte())
            }
            "declaration" => {
                let mut cursor = def.walk();
                let init = def
                    .children_by_field_name("declarator", &mut cursor)
                    .find(|d| d.kind() == "init_declarator");
                init.and_then(|d| d.child_by_field_name("value")).map(|v| v.start_byte())
            }
            "enumerator" => def.child_by_field_name("value").map(|v| v.start_byte()),
            _ => None,
        }
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches([';', '=']).trim_end()
    }

    /// The first line of the comment right above the definition (`/** … */`, `/* … */` or a run
    /// of `//` lines).
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let (mut key, mut holder) = (def, parent?);
        while matches!(holder.kind(), "template_declaration" | "type_definition" | "declaration") {
            key = holder;
            holder = holder.parent()?;
        }
        if cache.parents.insert(holder.id()) {
            comments_of_children(holder, bytes, &mut cache.lines);
        }
        cache.lines.get(&key.id()).copied()
    }

    /// Qualifiers, pointers, references and template arguments dropped: `const struct cart *`
    /// → `cart`, `std::vector<Item>&` → `std::vector`; a primitive is no class.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.split('<').next().unwrap_or("");
        let words: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == '*' || c == '&')
            .filter(|w| !w.is_empty() && !QUALIFIERS.contains(w))
            .collect();
        let [base] = words.as_slice() else { return None };
        let ok = !PRIMITIVES.contains(base)
            && base.split("::").all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        // A path is followed as a chain: `shop::Cart` → `shop.Cart`.
        ok.then(|| base.replace("::", "."))
    }

    /// A name in an `#include` has no qualifier (the path is a string).
    fn qualifier(&self, _node: Node, _bytes: &[u8]) -> Option<String> {
        None
    }

    /// `p->f`, `a.b`, `ns::x`, `this`: a chain the resolver follows (`::` read as `.`).
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    /// `#include "x.h"` and `#include <x.h>`: a glob import of the header.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let Some(path) = node.child_by_field_name("path") else { return };
        let text = node_text(path, bytes);
        let module = match path.kind() {
            "string_literal" => text.trim_matches('"'),
            "system_lib_string" => text.trim_start_matches('<').trim_end_matches('>'),
            _ => return,
        };
        out.push(RawImport::glob(module.to_string(), path));
    }

    /// A method is bound in its class's body (bare calls inside it); one defined out of line
    /// (`void Cart::add(…)`) is reached through its class only.
    fn bound_by_name(&self, symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != DefKind::Method
            || def.parent().is_some_and(|p| symbols.defs[p as usize].kind == DefKind::Class)
    }

    /// A local after its declaration; file-scope names and a class's members everywhere. A
    /// file-scope variable that is also a definition (`static int count = 0;`) is the definition.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        let in_class = entries.first().is_some_and(|e| {
            symbols.scopes.get(e.scope as usize).is_some_and(|s| s.kind == ScopeKind::Class)
        });
        if in_class {
            return entries.to_vec();
        }
        let chosen = super::last_local_else_items(entries, symbols, pos);
        if let [one] = chosen.as_slice()
            && matches!(one.bound(), crate::meaning::Bound::Binding(_))
            && let Some(def) = entries.iter().find(|e| {
                matches!(e.bound(), crate::meaning::Bound::Def(_))
                    && e.pos(symbols).line == one.pos(symbols).line
            })
        {
            return vec![*def];
        }
        chosen
    }

    /// The type before the function's name: `struct cart *cart_new(void)` → `struct cart`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let head = signature[..signature.find('(')?].trim_end();
        let name_start = head.rfind(|c: char| c.is_whitespace() || c == '*' || c == '&')? + 1;
        let ty = head[..name_start].trim_end().trim_end_matches(['*', '&']).trim();
        (!ty.is_empty()).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(includes::Includes::new(files))
    }
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        "identifier" | "type_identifier" | "namespace_identifier" | "this" | "field_identifier" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "field_expression" => {
            let (Some(object), Some(field)) =
                (node.child_by_field_name("argument"), node.child_by_field_name("field"))
            else {
                return false;
            };
            if !chain(object, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(field, bytes));
            true
        }
        "qualified_identifier" => {
            let (Some(scope), Some(name)) =
                (node.child_by_field_name("scope"), node.child_by_field_name("name"))
            else {
                return false;
            };
            if !chain(scope, bytes, out) {
                return false;
            }
            out.push('.');
            chain(name, bytes, out)
        }
        "template_type" => node.child_by_field_name("name").is_some_and(|name| chain(name, bytes, out)),
        "call_expression" => {
            let Some(function) = node.child_by_field_name("function") else { return false };
            if !chain(function, bytes, out) {
                return false;
            }
            out.push_str("()");
            true
        }
        "parenthesized_expression" | "pointer_expression" => {
            let mut cursor = node.walk();
            let inner = node.named_children(&mut cursor).last();
            inner.is_some_and(|inner| chain(inner, bytes, out))
        }
        _ => false,
    }
}

/// The first line of the comment that ends on the line above each child, by child node id.
fn comments_of_children<'a>(parent: Node, bytes: &'a [u8], out: &mut rustc_hash::FxHashMap<usize, &'a str>) {
    // The pending comment's first line and the row it ends on.
    let mut pending: Option<(Option<&'a str>, usize)> = None;
    let mut cursor = parent.walk();
    for child in parent.children(&mut cursor) {
        if child.kind() == "comment" {
            let text = node_text(child, bytes);
            let start = child.start_position().row;
            let first = text
                .trim_start_matches('/')
                .trim_start_matches('*')
                .trim_end_matches("*/")
                .lines()
                .map(|l| l.trim().trim_start_matches('*').trim())
                .find(|l| !l.is_empty());
            pending = match pending {
                // A run of `//` lines keeps its first line.
                Some((kept, row)) if text.starts_with("//") && row + 1 == start => {
                    Some((kept, child.end_position().row))
                }
                _ => Some((first, child.end_position().row)),
            };
            continue;
        }
        if let Some((Some(line), row)) = pending.take()
            && row + 1 >= child.start_position().row
        {
            out.insert(child.id(), line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_hints_drop_qualifiers_pointers_and_primitives() {
        assert_eq!(C.type_hint("const struct cart *").as_deref(), Some("cart"));
        assert_eq!(C.type_hint("Cart&").as_deref(), Some("Cart"));
        assert_eq!(C.type_hint("std::vector<Item>").as_deref(), Some("std.vector"));
        assert_eq!(C.type_hint("unsigned int"), None);
        assert_eq!(C.type_hint("size_t"), None);
    }

    #[test]
    fn return_types_come_from_before_the_name() {
        assert_eq!(C.return_type("struct cart *cart_new(const char *owner)"), Some("struct cart"));
        assert_eq!(C.return_type("static double cart_total(const struct cart *c)"), Some("static double"));
        assert_eq!(C.return_type("Cart& Cart::add(const Item& item)"), Some("Cart"));
    }
}

/// A Makefile with a `check` or `test` target, in a folder of C or C++ sources (elsewhere a
/// Makefile's test target usually wraps a runner another language already runs): that target,
/// read as plain output. A CMake project is checked through ctest instead.
fn make_checks(dir: &std::path::Path) -> Vec<super::ProjectCheck> {
    if dir.join("CMakeLists.txt").exists() {
        return Vec::new();
    }
    let Some(makefile) = ["GNUmakefile", "makefile", "Makefile"].into_iter().find(|m| dir.join(m).is_file())
    else {
        return Vec::new();
    };
    let sources = |folder: &std::path::Path| {
        std::fs::read_dir(folder).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                e.path()
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| matches!(x, "c" | "h" | "cc" | "cpp" | "cxx" | "hpp"))
            })
        })
    };
    if !sources(dir) && !sources(&dir.join("src")) {
        return Vec::new();
    }
    let text = super::small_text(dir, makefile);
    let target = ["check", "test"].into_iter().find(|t| {
        text.lines().any(|l| {
            l.strip_prefix(t).is_some_and(|rest| {
                rest.trim_start().starts_with(':') && !rest.trim_start().starts_with(":=")
            })
        })
    });
    target
        .map(|t| super::ProjectCheck {
            name: format!("make {t}"),
            command: format!("make {t}"),
            format: "plain",
            caches: Vec::new(),
        })
        .into_iter()
        .collect()
}

#[cfg(test)]
#[test]
fn a_makefile_check_target_beside_c_sources_is_a_check() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Makefile"), "CC := cc\nall: calc\ncheck: calc\n\t./calc_test\n").unwrap();
    assert!(make_checks(dir.path()).is_empty(), "no C sources: a Makefile alone says nothing");
    std::fs::write(dir.path().join("calc.c"), "int add(int a, int b) { return a + b; }\n").unwrap();
    let found = make_checks(dir.path());
    assert_eq!(found.iter().map(|c| c.command.as_str()).collect::<Vec<_>>(), ["make check"]);
    // An assignment named like a target is none.
    std::fs::write(dir.path().join("Makefile"), "test := yes\nall:\n").unwrap();
    assert!(make_checks(dir.path()).is_empty());
}

//! PHP: classes, interfaces, traits (as classes), enums (their cases as constants), methods,
//! functions and constants. A file's namespace (`namespace App\Shop;` or braced) is its
//! package; `use` imports a class, function or constant by its path (aliased, grouped);
//! `extends`, `implements` and a trait's `use` are bases. Variables keep their `$`; `$this`,
//! `self::` and `static::` are the instance of the class around, `parent::` its base.

mod php_checks;

use std::sync::Arc;

use tree_sitter::Node;

use super::{
    Comments, DocCache, Lang, LangSpec, Language, Manifest, ModuleRoot, Nodes, RawImport, Rules,
    doc_blocks_of_children, node_text,
};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(crate) struct Php;

/// Types that are no class.
const PRIMITIVES: &[&str] = &[
    "int", "float", "string", "bool", "array", "void", "mixed", "callable", "iterable", "object", "null",
    "never", "false", "true", "resource",
];

static SPEC: LangSpec = LangSpec {
    lang: Lang::Php,
    name: "php",
    extensions: &["php"],
    interpreters: &["php"],
    build_scripts: &[],
    manifest: Some(Manifest { file_name: "composer.json", read: psr4_roots }),
    grammar: || tree_sitter_php::LANGUAGE_PHP.into(),
    comments: Comments {
        line: &["//", "#"],
        block: Some(("/*", "*/")),
        block_inner: Some("*"),
        not: &["#["],
    },
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["variable_name"],
        pattern_non_bindings: &[
            "member_access_expression",
            "subscript_expression",
            "scoped_property_access_expression",
        ],
        pattern_skipped_fields: &["type", "default_value"],
        import_aliases: &[("namespace_use_clause", "alias")],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/php/tags.scm"),
    names: include_str!("../../../queries/php/names.scm"),
    test_file_suffixes: &["Test.php"],
    test_file_names: &[],
    surface_files: &[],
    separator: "::",
    noise: &["$this", "self", "static", "parent"],
    std_methods: &[],
    keywords: &[
        "abstract",
        "and",
        "array",
        "as",
        "break",
        "callable",
        "case",
        "catch",
        "class",
        "clone",
        "const",
        "continue",
        "declare",
        "default",
        "do",
        "echo",
        "else",
        "elseif",
        "empty",
        "enum",
        "extends",
        "final",
        "finally",
        "fn",
        "for",
        "foreach",
        "function",
        "global",
        "if",
        "implements",
        "include",
        "instanceof",
        "interface",
        "isset",
        "list",
        "match",
        "namespace",
        "new",
        "null",
        "or",
        "print",
        "private",
        "protected",
        "public",
        "readonly",
        "require",
        "return",
        "static",
        "switch",
        "throw",
        "trait",
        "try",
        "unset",
        "use",
        "var",
        "while",
        "yield",
    ],
    preamble: &["#[", "/**", "*", "//"],
    rules: Rules {
        attribute_names_members: false,
        method_call_names_function: false,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: true,
        // A method sees no name of its class bare: members are reached through `$this`,
        // `self::`, `static::`.
        class_body_closed: true,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "php",
    checks: php_checks::checks,
    runners: &["junit"],
};

impl Language for Php {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().split_whitespace().take_while(|w| *w != "function").any(|w| w == "private")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        name.starts_with("__") && name != "__construct"
    }

    fn constructor(&self) -> Option<&'static str> {
        Some("__construct")
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class_declaration" | "trait_declaration" | "interface_declaration" | "enum_declaration" => {
                ScopeKind::Class
            }
            "method_declaration" | "function_definition" => ScopeKind::Function,
            _ => ScopeKind::Lambda,
        }
    }

    /// A declaration's attributes (`#[Override]`) stand on the lines above it.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        let mut cursor = def.walk();
        let mut children = def.children(&mut cursor).skip_while(|c| c.kind() == "attribute_list");
        children.next().unwrap_or(def)
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches(';').trim_end()
    }

    /// The type after the parameters' `)`: `function add(Item $item): self` → `self`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let after = &signature[signature.rfind(')')? + 1..];
        let ty = after.trim_start().strip_prefix(':')?.trim();
        (!ty.is_empty()).then_some(ty)
    }

    /// The first line of the `/** … */` comment right above the declaration.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            doc_blocks_of_children(Lang::Php, holder, bytes, &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    /// A class name, nullable or not (`?Item` → `Item`), or a variable (what `$b = $a` makes
    /// `$b` another name for); a scalar, `self`, `static`, a union or a namespaced path gives
    /// nothing.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim().trim_start_matches('?');
        if matches!(text, "self" | "static" | "parent") {
            return None;
        }
        let variable = text.strip_prefix('$').unwrap_or(text);
        let ok = !variable.is_empty()
            && !PRIMITIVES.contains(&text.to_ascii_lowercase().as_str())
            && !variable.starts_with(|c: char| c.is_ascii_digit())
            && variable.chars().all(|c| c.is_alphanumeric() || c == '_');
        ok.then(|| text.to_string())
    }

    /// A name in a `use` is qualified by the namespace path before it (a group's prefix
    /// included), written without a leading `\`.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent()?;
        let (own, clause) = match parent.kind() {
            "qualified_name" => {
                let prefix = parent.child_by_field_name("prefix").map(|p| node_text(p, bytes));
                (prefix, parent.parent()?)
            }
            "namespace_use_clause" => (None, parent),
            _ => return None,
        };
        let group = clause.parent().filter(|g| g.kind() == "namespace_use_group").and_then(|g| g.parent());
        let group_prefix = group.and_then(|declaration| {
            let mut cursor = declaration.walk();
            let prefix = declaration.named_children(&mut cursor).find(|c| c.kind() == "namespace_name");
            prefix.map(|p| node_text(p, bytes))
        });
        let path = [group_prefix, own]
            .iter()
            .flatten()
            .map(|p| clean_path(p))
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\\");
        (!path.is_empty()).then_some(path)
    }

    /// `$cart->m()`, `Cart::create()`, `new Cart()`, `$this`, `self::`, `parent::`: a chain the
    /// resolver follows; anything else (a namespaced path, an array element) is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    /// `namespace a\b;` is a glob import of its own namespace (marked `alias`); `use a\b\C;`
    /// binds `C` (`as D` binds `D`), `use a\{B, C};` both, `use function a\f;` binds `f`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        if node.kind() == "namespace_definition" {
            let Some(name) = node.child_by_field_name("name") else { return };
            out.push(RawImport {
                module: clean_path(node_text(name, bytes)),
                item: None,
                bound: None,
                alias: true,
                glob: true,
                cfg: None,
                at: name,
            });
            return;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        let prefix =
            children.iter().find(|c| c.kind() == "namespace_name").map(|p| clean_path(node_text(*p, bytes)));
        let mut clauses: Vec<Node<'t>> = Vec::new();
        for child in &children {
            match child.kind() {
                "namespace_use_clause" => clauses.push(*child),
                "namespace_use_group" => {
                    let mut inner = child.walk();
                    clauses.extend(
                        child.named_children(&mut inner).filter(|c| c.kind() == "namespace_use_clause"),
                    );
                }
                _ => {}
            }
        }
        for clause in clauses {
            let alias = clause.child_by_field_name("alias");
            let mut inner = clause.walk();
            let Some(path) = clause
                .named_children(&mut inner)
                .find(|c| matches!(c.kind(), "qualified_name" | "name") && Some(*c) != alias)
            else {
                continue;
            };
            let text = clean_path(node_text(path, bytes));
            let full = match &prefix {
                Some(prefix) if !prefix.is_empty() => format!("{prefix}\\{text}"),
                _ => text,
            };
            let (module, item) = match full.rsplit_once('\\') {
                Some((module, item)) => (module.to_string(), item.to_string()),
                None => (String::new(), full),
            };
            let last = if path.kind() == "qualified_name" {
                let mut names = path.walk();
                path.named_children(&mut names).filter(|c| c.kind() == "name").last().unwrap_or(path)
            } else {
                path
            };
            let bound = alias.map_or_else(|| item.clone(), |a| node_text(a, bytes).to_string());
            out.push(RawImport {
                module,
                item: Some(item),
                bound: Some(bound),
                alias: alias.is_some(),
                glob: false,
                cfg: None,
                at: alias.unwrap_or(last),
            });
        }
    }

    /// Every definition is named in its scope (a class's members in its body, which methods do
    /// not see: `class_body_closed`).
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A type's members are visible everywhere in its body; a variable from its assignment on.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        self.tables_with(files, &[])
    }

    /// Namespaces as files declare them; where two files define one class of a namespace, the
    /// one at its PSR-4 path (what Composer's autoloader loads) is the class.
    fn tables_with(&self, files: &[Arc<FileEntry>], roots: &[ModuleRoot]) -> Arc<dyn Tables> {
        let packages = super::declared_packages::Packages::new(files, Lang::Php, ("$this", "parent"), "\\");
        Arc::new(packages.with_roots(roots.to_vec()))
    }
}

/// `composer.json`'s PSR-4 prefixes and their folders (`"App\\": "src/"`, or a list of
/// folders), of `autoload` and `autoload-dev`: the namespace without its last `\`, then each
/// folder.
fn psr4_roots(text: &str) -> Vec<(String, String)> {
    let Ok(manifest) = serde_json::from_str::<serde_json::Value>(text) else { return Vec::new() };
    let mut roots = Vec::new();
    for section in ["autoload", "autoload-dev"] {
        let Some(map) = manifest[section]["psr-4"].as_object() else { continue };
        for (prefix, folders) in map {
            let prefix = prefix.trim_matches('\\').to_string();
            let folders = match folders {
                serde_json::Value::String(folder) => vec![folder.as_str()],
                serde_json::Value::Array(list) => list.iter().filter_map(|f| f.as_str()).collect(),
                _ => Vec::new(),
            };
            roots.extend(folders.into_iter().map(|folder| (prefix.clone(), folder.to_string())));
        }
    }
    roots
}

/// A namespace path as written, whitespace and the leading `\` removed.
fn clean_path(text: &str) -> String {
    super::squash(text).trim_start_matches('\\').to_string()
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    let push_member = |object: Node, name: Option<Node>, call: bool, out: &mut String| {
        let Some(name) = name else { return false };
        if !chain(object, bytes, out) {
            return false;
        }
        out.push('.');
        out.push_str(node_text(name, bytes));
        if call {
            out.push_str("()");
        }
        true
    };
    match node.kind() {
        "variable_name" | "name" => {
            out.push_str(node_text(node, bytes));
            true
        }
        // A namespace path before a name (`Pricing\applyDiscount()`), marked with the separator
        // it ends with, and a class by its path (`Shop\Cart::create()`): the tables read them
        // from the file's namespace, or from the root when written with a leading `\`.
        "namespace_name" => {
            let absolute = node.parent().is_some_and(|p| node_text(p, bytes).starts_with('\\'));
            if absolute {
                out.push('\\');
            }
            out.push_str(&super::squash(node_text(node, bytes)));
            out.push('\\');
            true
        }
        "qualified_name" => {
            out.push_str(&super::squash(node_text(node, bytes)));
            true
        }
        // `self::` and `static::` name the class around, as `$this` does; `parent::` its base.
        "relative_scope" => {
            let word = node_text(node, bytes);
            out.push_str(if word == "parent" { "parent" } else { "$this" });
            true
        }
        "member_access_expression" | "nullsafe_member_access_expression" => {
            match node.child_by_field_name("object") {
                Some(object) => push_member(object, node.child_by_field_name("name"), false, out),
                None => false,
            }
        }
        "member_call_expression" | "nullsafe_member_call_expression" => {
            match node.child_by_field_name("object") {
                Some(object) => push_member(object, node.child_by_field_name("name"), true, out),
                None => false,
            }
        }
        "scoped_call_expression" => match node.child_by_field_name("scope") {
            Some(scope) => push_member(scope, node.child_by_field_name("name"), true, out),
            None => false,
        },
        "function_call_expression" => match node.child_by_field_name("function") {
            Some(function) if function.kind() == "name" => {
                out.push_str(node_text(function, bytes));
                out.push_str("()");
                true
            }
            _ => false,
        },
        "object_creation_expression" => {
            let mut cursor = node.walk();
            let class = node.named_children(&mut cursor).find(|c| c.kind() == "name");
            match class {
                Some(class) => {
                    out.push_str(node_text(class, bytes));
                    out.push_str("()");
                    true
                }
                None => false,
            }
        }
        "parenthesized_expression" => {
            let mut cursor = node.walk();
            let inner = node.named_children(&mut cursor).next();
            inner.is_some_and(|inner| chain(inner, bytes, out))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;

    const CART: &str = r#"<?php

namespace App\Shop;

use function App\Pricing\applyDiscount;
use App\Shop\{Sub\Line, Item as I};
use Psr\Log\LoggerInterface as Log;

/** A customer's basket.
 *
 * More text. */
#[Entity]
class Cart extends Base implements \Countable, Priced
{
    use Taxable;

    public const TAX_RATE = 0.2, MAX = 9;

    /** A cart for the owner. */
    public static function create(string $owner): static
    {
        return new static($owner);
    }

    abstract protected function total(): ?float;
}

interface Priced { public function subtotal(): float; }
trait Taxable {}
enum Suit: string { case Hearts = 'H'; }
function helper(Cart $cart) { $c = new Cart(); $d = $c; return $d->total() + self::X; }
"#;

    fn defs(src: &str) -> Vec<String> {
        crate::test_support::def_lines(Lang::Php, src)
    }

    #[test]
    fn definitions_are_qualified_kinded_and_documented() {
        assert_eq!(
            defs(CART),
            vec![
                "class Cart 13-26 | class Cart extends Base implements \\Countable, Priced | A customer's basket.",
                "constant Cart::TAX_RATE 17-17 | TAX_RATE = 0.2 | -",
                "constant Cart::MAX 17-17 | MAX = 9 | -",
                "method Cart::create 20-23 | public static function create(string $owner): static | A cart for the owner.",
                "method Cart::total 25-25 | abstract protected function total(): ?float | -",
                "interface Priced 28-28 | interface Priced | -",
                "method Priced::subtotal 28-28 | public function subtotal(): float | -",
                "class Taxable 29-29 | trait Taxable | -",
                "enum Suit 30-30 | enum Suit: string | -",
                "constant Suit::Hearts 30-30 | case Hearts = 'H' | -",
                "function helper 31-31 | function helper(Cart $cart) | -",
            ]
        );
    }

    #[test]
    fn namespace_and_uses_decode_as_imports() {
        let fs = extract(Lang::Php, CART);
        let imports: Vec<String> = fs
            .imports
            .iter()
            .map(|i| {
                format!(
                    "{} {} {} alias={} glob={}",
                    fs.text(i.module),
                    if i.item == crate::names::NONE { "-" } else { fs.text(i.item) },
                    if i.bound == crate::names::NONE { "-" } else { fs.text(i.bound) },
                    i.alias,
                    i.glob
                )
            })
            .collect();
        assert_eq!(
            imports,
            vec![
                "App\\Shop - - alias=true glob=true",
                "App\\Pricing applyDiscount applyDiscount alias=false glob=false",
                "App\\Shop\\Sub Line Line alias=false glob=false",
                "App\\Shop Item I alias=true glob=false",
                "Psr\\Log LoggerInterface Log alias=true glob=false",
            ]
        );
        let braced = extract(Lang::Php, "<?php\nnamespace App\\Pricing {\n    function f() {}\n}\n");
        assert_eq!(braced.text(braced.imports[0].module), "App\\Pricing");
        assert!(braced.imports[0].glob && braced.imports[0].alias);
    }

    #[test]
    fn references_bases_calls_and_qualifiers() {
        let fs = extract(Lang::Php, CART);
        let refs: Vec<String> = fs
            .refs
            .iter()
            .map(|r| {
                let q = if r.qualifier == crate::names::NONE { "" } else { fs.text(r.qualifier) };
                format!("{}:{} {} {} {q}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
            })
            .collect();
        for expected in [
            "5:26 applyDiscount import App\\Pricing",
            "6:19 Line import App\\Shop\\Sub",
            "6:25 Item import App\\Shop",
            "13:20 Base inheritance ",
            "13:48 Priced inheritance ",
            "15:9 Taxable inheritance ",
            "31:17 Cart type use ",
            "31:40 Cart call ",
            "31:68 total method call $d",
            "31:84 X name $this",
        ] {
            assert!(refs.contains(&expected.to_string()), "missing {expected:?} in {refs:#?}");
        }
        assert!(!refs.iter().any(|r| r.contains(" $this ")), "$this is noise");
        let fs = extract(Lang::Php, CART);
        let hints: Vec<String> = fs
            .bindings
            .iter()
            .map(|b| {
                let hint = if b.hint == crate::names::NONE { "-" } else { fs.text(b.hint) };
                format!("{} {hint}", fs.text(b.name))
            })
            .collect();
        assert_eq!(hints, vec!["$owner -", "$cart Cart", "$c Cart()", "$d =$c"]);
    }

    #[test]
    fn return_types_and_hints() {
        assert_eq!(Php.return_type("public function add(Item $item): self"), Some("self"));
        assert_eq!(Php.return_type("function f()"), None);
        assert_eq!(Php.type_hint("?Item").as_deref(), Some("Item"));
        assert_eq!(Php.type_hint("static"), None);
        assert_eq!(Php.type_hint("float"), None);
        assert_eq!(Php.type_hint("A|B"), None);
        assert_eq!(Php.type_hint("\\App\\Cart"), None);
    }

    /// A namespace path written in code names a function or a class: from the file's namespace
    /// (`Pricing\\applyDiscount()` in `namespace App`), or from the root with a leading `\\`; a
    /// path to nowhere resolves nothing.
    #[test]
    fn namespace_paths_in_code_resolve_from_the_files_namespace_or_the_root() {
        let files = [
            (
                "src/Shop/Cart.php",
                "<?php\nnamespace App\\Shop;\nclass Cart {\n    public static function create() { return new Cart(); }\n}\n",
            ),
            (
                "src/Pricing/functions.php",
                "<?php\nnamespace App\\Pricing;\nfunction applyDiscount($a) { return $a; }\n",
            ),
            (
                "src/Checkout.php",
                "<?php\nnamespace App;\nfunction quote() {\n    $a = Pricing\\applyDiscount(1);\n    $b = \\App\\Pricing\\applyDiscount(2);\n    $c = Shop\\Cart::create();\n    $d = \\App\\Shop\\Cart::create();\n    $e = \\Pricing\\applyDiscount(3);\n}\n",
            ),
        ];
        let snapshot = crate::snapshot::Snapshot::from_entries(
            files.iter().map(|(p, t)| crate::test_support::entry(p, t)),
        );
        let resolver = snapshot.resolver();
        let checkout = resolver.file_index("src/Checkout.php").expect("a file");
        // Each call's name on lines 4 to 8, found by its column.
        let answers: Vec<String> = (4..=8)
            .map(|line| {
                let text = files[2].1.lines().nth(line - 1).unwrap_or("");
                let name = if text.contains("create") { "create" } else { "applyDiscount" };
                let column = text.find(name).expect("the call") as u32 + 1;
                let at = resolver.at(checkout, crate::names::Pos::new(line as u32, column)).expect("a name");
                let found: Vec<String> =
                    at.resolution.resolved.iter().map(|t| resolver.describe(*t)).collect();
                format!("{line}: {}", found.join(", "))
            })
            .collect();
        expect_test::expect![[r#"
            4: function applyDiscount (src/Pricing/functions.php:3)
            5: function applyDiscount (src/Pricing/functions.php:3)
            6: method Cart::create (src/Shop/Cart.php:4)
            7: method Cart::create (src/Shop/Cart.php:4)
            8: "#]]
        .assert_eq(&answers.join("\n"));
    }

    #[test]
    fn deep_nesting_finishes() {
        let mut src = String::from("<?php\nfunction f() {\n");
        for _ in 0..300 {
            src.push_str("if (true) {\n");
        }
        for _ in 0..300 {
            src.push_str("}\n");
        }
        src.push_str("}\n");
        let fs = extract(Lang::Php, &src);
        assert!(fs.defs.len() == 1 || fs.too_deep.is_some());
    }

    /// `composer.json` maps `App\\` to `src/`: of two classes `App\Shop\Cart`, the one at
    /// `src/Shop/Cart.php` is what code of the namespace means, and what `use` imports.
    #[test]
    fn psr4_paths_choose_between_two_definitions_of_one_class() {
        let cart = "<?php\nnamespace App\\Shop;\nclass Cart {}\n";
        let checkout = "<?php\nnamespace App\\Shop;\nfunction checkout() {\n    return new Cart();\n}\n";
        let user = "<?php\nuse App\\Shop\\Cart;\nfunction f() {\n    return new Cart();\n}\n";
        let composer =
            r#"{"autoload": {"psr-4": {"App\\": "src/"}}, "autoload-dev": {"App\\Tests\\": ["tests/"]}}"#;
        let mut files = vec![
            ("src/Shop/Cart.php", cart),
            ("tests/fixtures/Cart.php", cart),
            ("src/Shop/Checkout.php", checkout),
            ("bin/user.php", user),
        ];
        let both = "Cart: class Cart (src/Shop/Cart.php:3) class Cart (tests/fixtures/Cart.php:3)";
        assert_eq!(crate::test_support::resolve_at(&files, "src/Shop/Checkout.php", 4, 16), both);
        files.push(("composer.json", composer));
        let one = "Cart: class Cart (src/Shop/Cart.php:3)";
        assert_eq!(crate::test_support::resolve_at(&files, "src/Shop/Checkout.php", 4, 16), one);
        assert_eq!(crate::test_support::resolve_at(&files, "bin/user.php", 4, 16), one);
    }

    #[test]
    fn psr4_roots_are_read_from_autoload_and_autoload_dev_and_bad_json_gives_none() {
        let text = r#"{"autoload": {"psr-4": {"App\\": "src/", "": "lib"}}, "autoload-dev": {"psr-4": {"App\\Tests\\": ["tests/", "t2"]}}}"#;
        let roots = psr4_roots(text);
        let pairs: Vec<(&str, &str)> = roots.iter().map(|(m, f)| (m.as_str(), f.as_str())).collect();
        assert_eq!(pairs, [("", "lib"), ("App", "src/"), ("App\\Tests", "tests/"), ("App\\Tests", "t2")]);
        assert!(psr4_roots("{not json").is_empty());
        assert!(psr4_roots(r#"{"autoload": {"psr-4": {"A\\": 3}}}"#).is_empty());
    }

    /// A server running while `composer.json` changes: the resolver made from the one before
    /// reads the new PSR-4 folders, though no PHP file changed.
    #[test]
    fn a_changed_composer_json_is_read_again_by_the_updated_resolver() {
        use crate::resolve::Resolver;
        use crate::snapshot::Snapshot;
        use crate::test_support::entry;
        let cart = "<?php\nnamespace App\\Shop;\nclass Cart {}\n";
        let checkout = "<?php\nnamespace App\\Shop;\nfunction checkout() {\n    return new Cart();\n}\n";
        let files: std::collections::BTreeMap<String, Arc<FileEntry>> =
            [("src/Shop/Cart.php", cart), ("lib/Shop/Cart.php", cart), ("src/Shop/Checkout.php", checkout)]
                .into_iter()
                .map(|(p, t)| (p.to_string(), Arc::new(entry(p, t))))
                .collect();
        let composer = |folder: &str| {
            let text = format!(r#"{{"autoload": {{"psr-4": {{"App\\\\": "{folder}"}}}}}}"#);
            [("composer.json".to_string(), Arc::new(entry("composer.json", &text)))].into_iter().collect()
        };
        let resolved = |resolver: &Resolver| {
            let file = resolver.file_index("src/Shop/Checkout.php").unwrap();
            let at = resolver.at(file, crate::names::Pos::new(4, 16)).unwrap();
            at.resolution.resolved.iter().map(|t| resolver.describe(*t)).collect::<Vec<_>>()
        };
        let before = Snapshot::new(files.clone(), composer("lib/"), 1);
        let first = Resolver::new(&before);
        assert_eq!(resolved(&first), ["class Cart (lib/Shop/Cart.php:3)"]);
        let after = Snapshot::new(files, composer("src/"), 2);
        let updated = Resolver::update(&first, &before, &after).expect("an update, not a full build");
        assert_eq!(resolved(&updated), ["class Cart (src/Shop/Cart.php:3)"]);
    }
}

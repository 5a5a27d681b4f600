//! C#: classes, structs, records, interfaces, enums and delegates (nested ones qualified by the
//! types around them: `Cart.Line`), methods, constructors and local functions; properties,
//! `const` fields, enum members and a record's positional parameters are constants (they are
//! read and assigned as values, never called). A namespace (`namespace A.B { }` or the
//! file-scoped `namespace A.B;`) is the file's package; `using A.B;` imports a namespace's
//! types, `using X = A.B.C;` one type under a new name, `using static A.B.C;` a type's members.
//! A partial class is one definition per file that declares it.

mod csharp_checks;

use std::sync::Arc;

use tree_sitter::Node;

use super::{Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, node_text, squash};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(crate) struct CSharp;

/// Words that may stand before a member's type in its signature.
const MODIFIERS: &[&str] = &[
    "public",
    "protected",
    "private",
    "internal",
    "static",
    "virtual",
    "override",
    "abstract",
    "sealed",
    "async",
    "extern",
    "unsafe",
    "new",
    "partial",
    "readonly",
    "const",
    "volatile",
    "required",
    "file",
];

/// Types that are no class of the repository: the language's own keywords for types.
const PREDEFINED: &[&str] = &[
    "bool", "byte", "sbyte", "char", "decimal", "double", "float", "int", "uint", "nint", "nuint", "long",
    "ulong", "short", "ushort", "object", "string", "void", "var", "dynamic",
];

static SPEC: LangSpec = LangSpec {
    lang: Lang::CSharp,
    name: "csharp",
    extensions: &["cs"],
    interpreters: &[],
    build_scripts: &[],
    manifest: None,
    grammar: || tree_sitter_c_sharp::LANGUAGE.into(),
    comments: Comments::SLASHES,
    // C# reads its qualifiers itself (`qualifier_text`): `this` and `base` are no named nodes.
    nodes: Nodes {
        body: "body",
        pattern_identifiers: &["identifier", "implicit_parameter"],
        pattern_skipped_fields: &["type", "value"],
        import_aliases: &[("using_directive", "name")],
        comments: &["comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/csharp/tags.scm"),
    names: include_str!("../../../queries/csharp/names.scm"),
    test_file_suffixes: &["Tests.cs", "Test.cs"],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    noise: &["_"],
    std_methods: &[
        "Add",
        "AddRange",
        "Any",
        "Append",
        "Clear",
        "CompareTo",
        "Contains",
        "ContainsKey",
        "Count",
        "Dispose",
        "Equals",
        "First",
        "FirstOrDefault",
        "ForEach",
        "Format",
        "GetHashCode",
        "GetType",
        "IndexOf",
        "Insert",
        "Join",
        "Remove",
        "Select",
        "Split",
        "Substring",
        "ToArray",
        "ToList",
        "ToString",
        "TryGetValue",
        "Where",
        "WriteLine",
    ],
    keywords: &[
        "abstract",
        "as",
        "async",
        "await",
        "base",
        "bool",
        "break",
        "byte",
        "case",
        "catch",
        "char",
        "checked",
        "class",
        "const",
        "continue",
        "decimal",
        "default",
        "delegate",
        "do",
        "double",
        "else",
        "enum",
        "event",
        "explicit",
        "extern",
        "false",
        "finally",
        "fixed",
        "float",
        "for",
        "foreach",
        "goto",
        "if",
        "implicit",
        "in",
        "int",
        "interface",
        "internal",
        "is",
        "lock",
        "long",
        "namespace",
        "new",
        "null",
        "object",
        "operator",
        "out",
        "override",
        "params",
        "private",
        "protected",
        "public",
        "readonly",
        "record",
        "ref",
        "return",
        "sealed",
        "short",
        "sizeof",
        "static",
        "string",
        "struct",
        "switch",
        "throw",
        "true",
        "try",
        "typeof",
        "uint",
        "ulong",
        "unchecked",
        "unsafe",
        "ushort",
        "using",
        "var",
        "virtual",
        "void",
        "volatile",
        "while",
        "yield",
    ],
    preamble: &["[", "///", "//", "/*", "*"],
    rules: Rules {
        // `cart.Owner` reads a property, `Code.Welcome10` an enum member, `Cart.Line` a nested
        // type: a member access can mean any member.
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
    family: "csharp",
    checks: csharp_checks::checks,
    runners: &["trx"],
};

impl Language for CSharp {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    fn refine_kind(&self, _up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        kind
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().split_whitespace().take_while(|w| !w.contains('(')).any(|w| w == "private")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "ToString" | "Equals" | "GetHashCode" | "CompareTo" | "Dispose" | "Deconstruct")
    }

    /// A declaration's attributes (`[Fact]`), and the `#if` around them, stand on the lines above
    /// it: its own line starts with what follows them.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        let mut cursor = def.walk();
        let mut children = def.children(&mut cursor);
        let first = children.find(|c| {
            !matches!(c.kind(), "attribute_list" | "comment" | "preproc_if_in_attribute_list" | "preproc_if")
        });
        first.unwrap_or(def)
    }

    /// A property's signature ends before its accessors or its `=>`, a field's and an enum
    /// member's before their value.
    fn body_start(&self, def: Node) -> Option<usize> {
        for field in ["body", "accessors", "value"] {
            if let Some(body) = def.child_by_field_name(field) {
                return Some(body.start_byte());
            }
        }
        if def.kind() == "field_declaration" {
            let mut cursor = def.walk();
            let declaration = def.children(&mut cursor).find(|c| c.kind() == "variable_declaration")?;
            let mut cursor = declaration.walk();
            let declarator = declaration.children(&mut cursor).find(|c| c.kind() == "variable_declarator")?;
            let name = declarator.child_by_field_name("name")?;
            let mut cursor = declarator.walk();
            let value = declarator.named_children(&mut cursor).find(|c| c.id() != name.id());
            return value.map(|v| v.start_byte());
        }
        None
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end().trim_end_matches([';', '=']).trim_end().trim_end_matches("=>").trim_end()
    }

    /// The first line of the `///` comment right above the declaration: its `<summary>`'s
    /// text, the tags around it dropped.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        _parent: Option<Node<'t>>,
        bytes: &'t [u8],
        _cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let mut lines: Vec<&'t str> = Vec::new();
        let mut row = def.start_position().row;
        let mut node = def.prev_sibling();
        while let Some(comment) = node.filter(|n| n.kind() == "comment") {
            let text = node_text(comment, bytes);
            let Some(line) = text.strip_prefix("///") else { break };
            if comment.end_position().row + 1 < row {
                break;
            }
            lines.push(line);
            row = comment.start_position().row;
            node = comment.prev_sibling();
        }
        lines.reverse();
        doc_line(&lines)
    }

    /// Type arguments, arrays, nullability and `global::` dropped: `List<Item>` → `List`,
    /// `Cart?` → `Cart`, `Shop.Cart[]` → `Shop.Cart`; a predefined type or `var` is no class.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim();
        let text = text.strip_prefix("global::").unwrap_or(text);
        let base = text.split(['<', '[', '?']).next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && !PREDEFINED.contains(&base)
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| base.to_string())
    }

    /// A name in a `using` or a namespace declaration is qualified by the path before it.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent()?;
        if parent.kind() != "qualified_name" || parent.child_by_field_name("name") != Some(node) {
            return None;
        }
        Some(squash(node_text(parent.child_by_field_name("qualifier")?, bytes)))
    }

    /// A member access is captured whole (`base.Total`): its qualifier is what stands before
    /// the dot. Otherwise the node is the qualifier: `a.b()`, `new C()`, `Outer.Inner`, `this`;
    /// anything else (a cast, an index) is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let node = match qualifier.kind() {
            "member_access_expression" => qualifier.child_by_field_name("expression"),
            _ => Some(qualifier),
        };
        let mut out = String::new();
        if node.is_some_and(|node| chain(node, bytes, &mut out)) { out } else { "?".to_string() }
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class_declaration"
            | "struct_declaration"
            | "record_declaration"
            | "interface_declaration"
            | "enum_declaration" => ScopeKind::Class,
            "method_declaration"
            | "constructor_declaration"
            | "local_function_statement"
            | "accessor_declaration" => ScopeKind::Function,
            "lambda_expression" | "anonymous_method_expression" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    /// A namespace's name is a glob import of its own namespace (marked `alias`), then plain
    /// globs of the namespaces around it (`namespace Shop.Tests` sees `Shop`'s types); `using
    /// A.B;` and `using static A.B.C;` are globs, `using X = A.B.C;` binds `X` to `A.B.C`.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        if node.kind() != "using_directive" {
            // A namespace declaration's name, prefixed by the block namespaces around it.
            let mut path = squash(node_text(node, bytes));
            let mut up = node.parent().and_then(|n| n.parent());
            while let Some(outer) = up {
                if outer.kind() == "namespace_declaration"
                    && let Some(name) = outer.child_by_field_name("name")
                {
                    path = format!("{}.{path}", squash(node_text(name, bytes)));
                }
                up = outer.parent();
            }
            out.push(RawImport {
                module: path.clone(),
                item: None,
                bound: None,
                alias: true,
                glob: true,
                cfg: None,
                at: node,
            });
            while let Some((outer, _)) = path.rsplit_once('.') {
                path = outer.to_string();
                out.push(RawImport::glob(path.clone(), node));
            }
            return;
        }
        let alias = node.child_by_field_name("name");
        let mut cursor = node.walk();
        let Some(target) = node.named_children(&mut cursor).find(|c| {
            Some(*c) != alias && matches!(c.kind(), "identifier" | "qualified_name" | "generic_name")
        }) else {
            return;
        };
        let full = squash(node_text(target, bytes));
        let Some(alias) = alias else {
            out.push(RawImport::glob(full, target));
            return;
        };
        let (module, item) = match full.rsplit_once('.') {
            Some((module, item)) => (module.to_string(), item.to_string()),
            None => (String::new(), full),
        };
        let item = item.split('<').next().unwrap_or(&item).to_string();
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

    /// Every member is bound by name in its type's body (methods are called bare inside it),
    /// but a constructor: its name is its type's.
    fn bound_by_name(&self, symbols: &FileSymbols, _own_scope: &[u32], def: DefRef<'_>) -> bool {
        def.kind != DefKind::Method
            || def.parent().is_none_or(|p| symbols.defs.at(p as usize).name() != def.name())
    }

    /// A type's members and fields are visible everywhere in its body; a local after its
    /// declaration.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    /// The type before the method's name: `public static List<Item> Of(…)` → `List<Item>`; a
    /// constructor has none.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let head = signature[..signature.find('(')?].trim_end();
        // A generic method's type parameters (`Map<T>(…)`) belong to its name.
        let head = match head.strip_suffix('>') {
            Some(_) => head[..type_start(head)?].trim_end(),
            None => head,
        };
        let name_start = head.rfind(|c: char| c.is_whitespace() || c == '>' || c == ']')? + 1;
        let before = head[..name_start].trim_end();
        let ty = before[type_start(before)?..].trim();
        (!ty.is_empty() && !MODIFIERS.contains(&ty)).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(super::declared_packages::Packages::new(files, Lang::CSharp, ("this", "base"), "."))
    }
}

/// The first line of a `///` comment's text (its lines without the slashes): inside its
/// `<summary>` when it has one, the tags at either end of the line dropped. Tags inside the line
/// (`<see cref="Item"/>`) stay, as the text is the source's.
fn doc_line<'t>(lines: &[&'t str]) -> Option<&'t str> {
    let start = lines.iter().position(|l| l.contains("<summary>")).unwrap_or(0);
    lines[start..].iter().find_map(|line| {
        let mut text = line.trim();
        text = text.strip_prefix("<summary>").unwrap_or(text).trim_start();
        text = text.split("</summary>").next().unwrap_or(text).trim_end();
        // A line that is one tag alone (`<para>`) says nothing.
        let lone_tag = text.starts_with('<') && text.ends_with('>') && !text[1..].contains('<');
        (!text.is_empty() && !lone_tag).then_some(text)
    })
}

/// Where the type that `text` ends with starts: its type arguments, array brackets and
/// qualifying path included.
fn type_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = bytes.len();
    let mut depth = 0usize;
    while i > 0 {
        match bytes[i - 1] {
            b'>' | b']' => depth += 1,
            b'<' | b'[' => depth = depth.checked_sub(1)?,
            c if depth == 0 && (c.is_ascii_whitespace() || c == b')') => break,
            _ => {}
        }
        i -= 1;
    }
    Some(i)
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        "identifier" | "this" | "base" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "qualified_name" | "generic_name" => match CSharp.type_hint(node_text(node, bytes)) {
            Some(path) => {
                out.push_str(&path);
                true
            }
            None => false,
        },
        "member_access_expression" => {
            let (Some(object), Some(name)) =
                (node.child_by_field_name("expression"), node.child_by_field_name("name"))
            else {
                return false;
            };
            if !chain(object, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(name, bytes).split('<').next().unwrap_or(""));
            true
        }
        "invocation_expression" => {
            let Some(function) = node.child_by_field_name("function") else { return false };
            if !chain(function, bytes, out) {
                return false;
            }
            out.push_str("()");
            true
        }
        "object_creation_expression" => {
            let Some(ty) = node.child_by_field_name("type") else { return false };
            match CSharp.type_hint(node_text(ty, bytes)) {
                Some(path) => {
                    out.push_str(&path);
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
    use crate::snapshot::Snapshot;

    const CART: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/Cart.cs");
    const RECEIPT: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/Cart.Receipt.cs");
    const ITEM: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/Item.cs");
    const PRICED: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/IPriced.cs");
    const VIP: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/VipCart.cs");
    const CHECKOUT: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/Checkout.cs");
    const DISCOUNTS: &str = include_str!("../../../../fixtures/cs_shop/src/Shop/Pricing/Discounts.cs");
    const TESTS: &str = include_str!("../../../../fixtures/cs_shop/tests/Shop.Tests/CartTests.cs");

    const SHOP: &[(&str, &str)] = &[
        ("src/Shop/Cart.cs", CART),
        ("src/Shop/Cart.Receipt.cs", RECEIPT),
        ("src/Shop/Item.cs", ITEM),
        ("src/Shop/IPriced.cs", PRICED),
        ("src/Shop/VipCart.cs", VIP),
        ("src/Shop/Checkout.cs", CHECKOUT),
        ("src/Shop/Pricing/Discounts.cs", DISCOUNTS),
        ("tests/Shop.Tests/CartTests.cs", TESTS),
    ];

    /// Each definition: kind, qualified name, lines, signature and doc's first line.
    fn defs(src: &str) -> String {
        crate::test_support::def_listing(Lang::CSharp, src)
    }

    fn imports(src: &str) -> String {
        crate::test_support::import_listing(Lang::CSharp, src)
    }

    use crate::test_support::{entry, resolve_at as resolve};

    #[test]
    fn definitions_kinds_nested_types_signatures_and_docs() {
        expect_test::expect![[r#"
            class Cart 7-35 | public partial class Cart  // A customer's basket.
            constant Cart.TaxRate 9-9 | public const decimal TaxRate
            method Cart.Cart 14-14 | public Cart(string owner)
            constant Cart.Owner 17-17 | public string Owner  // Who the cart belongs to.
            method Cart.Add 20-24 | public Cart Add(Item item)  // Puts an item in the cart.
            method Cart.Total 26-34 | public virtual decimal Total()
            class Cart 3-20 | public partial class Cart
            method Cart.WithTax 5-8 | private decimal WithTax(decimal amount)
            class Cart.Line 11-17 | public class Line  // One line of a receipt.
            method Cart.Line.Render 13-16 | public string Render(Item item)
            method Cart.Create 19-19 | public static Cart Create(string owner)
            class Item 6-18 | public class Item : IPriced  // One product at its unit price.
            constant Item.Name 8-8 | public string Name
            constant Item.Price 9-9 | public decimal Price
            method Item.Item 11-15 | public Item(string name, decimal price)
            method Item.Subtotal 17-17 | public decimal Subtotal()
            class Quantity 21-26 | public readonly struct Quantity  // A quantity of some <see cref="Item"/>.
            method Quantity.Quantity 25-25 | public Quantity(int count)
            class Quote 8-8 | public record Quote(string Owner, decimal Amount)  // What a checkout answers.
            constant Quote.Owner 8-8 | string Owner
            constant Quote.Amount 8-8 | decimal Amount
            class Checkout 10-22 | public static class Checkout
            method Checkout.Run 12-21 | public static Quote Run(string owner)
        "#]]
        .assert_eq(&(defs(CART) + &defs(RECEIPT) + &defs(ITEM) + &defs(CHECKOUT)));
    }

    /// An attribute under `#if` (serilog's `ILogger`) stands above its method: the method's line
    /// is its signature's, not the directive's.
    #[test]
    fn a_definitions_line_is_below_the_if_around_its_attributes() {
        let src = "interface ILogger\n{\n#if FEATURE\n    [Custom]\n#endif\n    int Write(int level)\n#if FEATURE\n        => 1\n#endif\n    ;\n}\n";
        let fs = crate::extract::extract(Lang::CSharp, src);
        let write = fs.defs.iter().find(|d| d.name() == "Write").expect("Write is a definition");
        assert_eq!((write.line, write.signature()), (6, "int Write(int level)"));
    }

    #[test]
    fn namespaces_and_usings_decode_as_imports() {
        expect_test::expect![[r#"
            1: module=System item=- bound=- alias=false glob=true
            2: module=Shop.Pricing item=- bound=- alias=false glob=true
            3: module=Shop.Pricing item=Discounts bound=D alias=true glob=false
            5: module=Shop item=- bound=- alias=true glob=true
            1: module=Shop item=- bound=- alias=false glob=true
            2: module=Xunit item=- bound=- alias=false glob=true
            4: module=Shop.Tests item=- bound=- alias=true glob=true
            4: module=Shop item=- bound=- alias=false glob=true
            1: module=Shop item=- bound=- alias=true glob=true
            1: module=A item=- bound=- alias=true glob=true
            1: module=A.B.C item=- bound=- alias=true glob=true
            1: module=A.B item=- bound=- alias=false glob=true
            1: module=A item=- bound=- alias=false glob=true
            1: module=A.Util item=- bound=- alias=false glob=true
            1: module=System.Collections.Generic item=List bound=L alias=true glob=false
        "#]].assert_eq(
            &(imports(CHECKOUT)
                + &imports(TESTS)
                + &imports(ITEM)
                + &imports("namespace A { namespace B.C { using static A.Util; using L = System.Collections.Generic.List<int>; } }")),
        );
    }

    #[test]
    fn return_types_and_type_hints() {
        assert_eq!(CSharp.return_type("public static List<Item> Of(string owner)"), Some("List<Item>"));
        assert_eq!(CSharp.return_type("public virtual decimal Total()"), Some("decimal"));
        assert_eq!(CSharp.return_type("public static Cart Create(string owner)"), Some("Cart"));
        assert_eq!(CSharp.return_type("public T[] Map<T>(Func<Item, T> f)"), Some("T[]"));
        assert_eq!(CSharp.return_type("public Cart(string owner)"), None);
        assert_eq!(CSharp.return_type("public VipCart(string owner) : base(owner)"), None);
        assert_eq!(CSharp.type_hint("List<Item>").as_deref(), Some("List"));
        assert_eq!(CSharp.type_hint("Cart?").as_deref(), Some("Cart"));
        assert_eq!(CSharp.type_hint("global::Shop.Cart[]").as_deref(), Some("Shop.Cart"));
        assert_eq!(CSharp.type_hint("Cart.Create").as_deref(), Some("Cart.Create"));
        assert_eq!(CSharp.type_hint("var"), None);
        assert_eq!(CSharp.type_hint("decimal"), None);
        assert_eq!(CSharp.type_hint("new Cart(owner).Add"), None);
    }

    #[test]
    fn names_resolve_across_namespaces_partial_classes_and_aliases() {
        let at = |path, line, column| resolve(SHOP, path, line, column);
        expect_test::expect![[r#"
            ApplyDiscount: method Discounts.ApplyDiscount (src/Shop/Pricing/Discounts.cs:16)
            Create: method Cart.Create (src/Shop/Cart.Receipt.cs:19)
            Total: method Cart.Total (src/Shop/Cart.cs:26)
            Render: method Cart.Line.Render (src/Shop/Cart.Receipt.cs:13)
            Welcome10: constant Code.Welcome10 (src/Shop/Pricing/Discounts.cs:7)
            Line: class Cart.Line (src/Shop/Cart.Receipt.cs:11)
            Total: candidates: 2
            Total: method Cart.Total (src/Shop/Cart.cs:26)
            Total: method VipCart.Total (src/Shop/VipCart.cs:9)
            Discounts: class Discounts (src/Shop/Pricing/Discounts.cs:11)
            WithTax: method Cart.WithTax (src/Shop/Cart.Receipt.cs:5)
            Owner: constant Cart.Owner (src/Shop/Cart.cs:17)
            Total: method Cart.Total (src/Shop/Cart.cs:26)
            Cart: class Cart (src/Shop/Cart.Receipt.cs:3) class Cart (src/Shop/Cart.cs:7)"#]]
        .assert_eq(
            &[
                // `D.ApplyDiscount`: `using D = Shop.Pricing.Discounts;`.
                at("src/Shop/Checkout.cs", 18, 45),
                // `Cart.Create`: declared in the other part of the partial class.
                at("src/Shop/Checkout.cs", 17, 28),
                at("src/Shop/Checkout.cs", 20, 50),
                at("src/Shop/Checkout.cs", 16, 15),
                at("src/Shop/Checkout.cs", 19, 33),
                at("src/Shop/Checkout.cs", 15, 15),
                at("src/Shop/Checkout.cs", 18, 32),
                // `base.Total()` and the bare `Total()` in VipCart.
                at("src/Shop/VipCart.cs", 11, 22),
                at("src/Shop/VipCart.cs", 16, 16),
                // `Discounts.ApplyDiscount` through `using Shop.Pricing;`, `WithTax` in the other part.
                at("src/Shop/Cart.cs", 33, 30),
                at("src/Shop/Cart.cs", 33, 16),
                // A property assigned bare in the constructor.
                at("src/Shop/Cart.cs", 14, 33),
                // The test, in namespace Shop.Tests: `Cart` from `Shop`.
                at("tests/Shop.Tests/CartTests.cs", 13, 35),
                at("tests/Shop.Tests/CartTests.cs", 11, 9),
            ]
            .join("\n"),
        );
    }

    /// Deeply nested types, a chain of aliases across namespaces (an alias is its file's own, so
    /// the chain stops at the first: candidates) and two namespaces importing
    /// each other (with types deriving from each other) all finish.
    #[test]
    fn deep_nesting_alias_chains_and_import_cycles_finish() {
        let mut deep = String::from("namespace Deep;\n");
        for i in 0..300 {
            deep.push_str(&format!("class C{i} {{ void M{i}() {{ M{i}(); }}\n"));
        }
        deep.push_str(&"}\n".repeat(300));
        let fs = crate::extract::extract(Lang::CSharp, &deep);
        assert!(fs.defs.len() >= 300 || fs.too_deep.is_some(), "{} defs", fs.defs.len());

        let mut files: Vec<(String, String)> =
            vec![("a/A0.cs".into(), "namespace N0;\npublic class A { public void F() {} }\n".into())];
        for i in 1..50 {
            files.push((
                format!("a/A{i}.cs"),
                format!(
                    "using A = N{}.A;\nnamespace N{i};\npublic class B{i} {{ void G(A a) {{ a.F(); }} }}\n",
                    i - 1
                ),
            ));
        }
        files.push((
            "c/X.cs".into(),
            "using Q;\nnamespace P;\npublic class X : Y { public void F() { new Y().G(); } }\n".into(),
        ));
        files.push((
            "c/Y.cs".into(),
            "using P;\nnamespace Q;\npublic class Y : X { public void G() { new X().F(); base.F(); } }\n"
                .into(),
        ));
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let column = |path: &str, text: &str| {
            let line = files.iter().find(|f| f.0 == path).expect("a file").1.lines().nth(2).expect("line 3");
            line.find(text).expect("the text") as u32 + 1
        };
        assert_eq!(resolve(&files, "a/A1.cs", 3, column("a/A1.cs", "F()")), "F: method A.F (a/A0.cs:2)");
        assert_eq!(resolve(&files, "a/A49.cs", 3, column("a/A49.cs", "F()")), "F: candidates: 2");
        assert_eq!(resolve(&files, "c/X.cs", 3, column("c/X.cs", "G()")), "G: method Y.G (c/Y.cs:3)");
        assert_eq!(resolve(&files, "c/Y.cs", 3, column("c/Y.cs", "F(); }")), "F: method X.F (c/X.cs:3)");
        let snapshot = Snapshot::from_entries(files.iter().map(|(p, t)| entry(p, t)));
        let resolver = snapshot.resolver();
        for file in 0..resolver.n_files() as u32 {
            for r in resolver.entry(file).symbols.refs.iter() {
                resolver.resolve_ref(file, &r);
            }
        }
    }
}

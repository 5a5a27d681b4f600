//! Kotlin: classes, data classes, objects, interfaces and enum classes (nested ones qualified by
//! the types around them: `Cart.Line`), functions (methods inside a type), enum entries,
//! top-level properties and `const val`s. A companion object's members are its class's
//! (`Cart.create()`); an extension function (`fun Cart.discounted()`) is qualified by its
//! receiver's type, `Cart.discounted`. Packages come from `package` headers; `import a.b.C`,
//! `import a.b.*` and `import a.b.C as D` name a package's declarations.

use std::sync::Arc;

use tree_sitter::Node;

use super::{
    Comments, DocCache, Lang, LangSpec, Language, Nodes, RawImport, Rules, doc_blocks_of_children, node_text,
    squash,
};
use crate::meaning::{Entry, Tables};
use crate::names::{Pos, ScopeKind};
use crate::snapshot::FileEntry;
use crate::symbols::{DefKind, DefRef, FileSymbols};

pub(crate) struct Kotlin;

static SPEC: LangSpec = LangSpec {
    lang: Lang::Kotlin,
    name: "kotlin",
    extensions: &["kt", "kts"],
    interpreters: &[],
    build_scripts: &[".gradle.kts"],
    manifest: None,
    grammar: || tree_sitter_kotlin_ng::LANGUAGE.into(),
    comments: Comments::SLASHES,
    // kotlin-ng gives a declaration's body no field (`body_start` finds it by kind): `name` is
    // only the real field the check asks for. Kotlin reads its qualifiers itself.
    nodes: Nodes {
        body: "name",
        pattern_identifiers: &["identifier"],
        pattern_skipped_fields: &["type"],
        comments: &["block_comment", "line_comment"],
        ..Nodes::NONE
    },
    tags: include_str!("../../../queries/kotlin/tags.scm"),
    names: include_str!("../../../queries/kotlin/names.scm"),
    test_file_suffixes: &["Test.kt", "Tests.kt"],
    test_file_names: &[],
    surface_files: &[],
    separator: ".",
    noise: &["_"],
    std_methods: &[
        "add",
        "addAll",
        "all",
        "any",
        "apply",
        "also",
        "contains",
        "count",
        "equals",
        "filter",
        "first",
        "firstOrNull",
        "forEach",
        "get",
        "getOrNull",
        "hashCode",
        "isEmpty",
        "isNotEmpty",
        "joinToString",
        "let",
        "map",
        "mapNotNull",
        "put",
        "remove",
        "run",
        "size",
        "sortedBy",
        "sum",
        "sumOf",
        "toList",
        "toMap",
        "toString",
        "use",
    ],
    keywords: &[
        "as",
        "break",
        "class",
        "continue",
        "do",
        "else",
        "false",
        "for",
        "fun",
        "if",
        "in",
        "interface",
        "is",
        "null",
        "object",
        "package",
        "return",
        "super",
        "this",
        "throw",
        "true",
        "try",
        "typealias",
        "typeof",
        "val",
        "var",
        "when",
        "while",
    ],
    preamble: &["@", "/**", "*", "//"],
    rules: Rules {
        // `cart.owner` reads a property, `Category.FOOD` an enum entry, `Cart.TAX_RATE` a
        // companion's constant: a member access can mean any member.
        attribute_names_members: true,
        // `cart.discounted()` calls an extension function, which is a top-level function.
        method_call_names_function: true,
        defs_are_assignments: false,
        external_globs_give_candidates: false,
        bases_outside_class: true,
        // A type's members are visible in its methods and nested types.
        class_body_closed: false,
        first_binding_scope_wins: false,
        module_scope_is_closed: false,
    },
    family: "java",
    checks: |_| Vec::new(),
    runners: &[],
};

/// The types whose body makes a function a method (a companion object's are its class's).
const TYPES: &[&str] = &["class_declaration", "object_declaration", "companion_object"];

impl Language for Kotlin {
    fn spec(&self) -> &'static LangSpec {
        &SPEC
    }

    /// A function in a type's body is a method.
    fn refine_kind(&self, up: [Option<Node>; 3], kind: DefKind) -> DefKind {
        let in_body = up[0].is_some_and(|p| matches!(p.kind(), "class_body" | "enum_class_body"));
        let in_type = up[1].is_some_and(|p| TYPES.contains(&p.kind()));
        if kind == DefKind::Function && in_body && in_type { DefKind::Method } else { kind }
    }

    /// An extension function's receiver type: `fun Cart.discounted()` is `Cart.discounted`.
    fn container_name(&self, def: Node, _up: [Option<Node>; 3], bytes: &[u8]) -> Option<String> {
        receiver_type(def).and_then(|t| self.type_hint(node_text(t, bytes)))
    }

    fn is_private(&self, def: DefRef<'_>, _parent: Option<DefRef<'_>>) -> bool {
        def.signature().split_whitespace().take_while(|w| !w.contains('(')).any(|w| w == "private")
    }

    fn is_protocol_method(&self, name: &str) -> bool {
        matches!(name, "toString" | "equals" | "hashCode" | "compareTo")
    }

    /// A declaration's annotations (in its `modifiers`) stand on the lines above it.
    fn own_start<'t>(&self, def: Node<'t>) -> Node<'t> {
        let mut cursor = def.walk();
        let Some(modifiers) = def.children(&mut cursor).find(|c| c.kind() == "modifiers") else { return def };
        let is_note = |n: &Node| matches!(n.kind(), "annotation" | "line_comment" | "block_comment");
        let mut inner = modifiers.walk();
        if let Some(first) = modifiers.children(&mut inner).find(|c| !is_note(c)) {
            return first;
        }
        modifiers.next_sibling().unwrap_or(def)
    }

    /// A function's body (`{ … }` or `= …`), a type's, a property's initializer or delegate.
    fn body_start(&self, def: Node) -> Option<usize> {
        let mut cursor = def.walk();
        let body = def.children(&mut cursor).find(|c| {
            matches!(c.kind(), "function_body" | "class_body" | "enum_class_body" | "=" | "property_delegate")
        });
        body.map(|b| b.start_byte())
    }

    fn trim_signature<'s>(&self, signature: &'s str) -> &'s str {
        signature.trim_end_matches(['{', '=', ',']).trim_end()
    }

    /// The first line of the KDoc comment right above the declaration.
    fn doc<'t>(
        &self,
        def: Node<'t>,
        parent: Option<Node<'t>>,
        bytes: &'t [u8],
        cache: &mut DocCache<'t>,
    ) -> Option<&'t str> {
        let holder = parent?;
        if cache.parents.insert(holder.id()) {
            doc_blocks_of_children(Lang::Kotlin, holder, bytes, &mut cache.lines);
        }
        cache.lines.get(&def.id()).copied()
    }

    /// Type arguments, nullability and variance dropped: `List<Item>` → `List`, `Cart?` →
    /// `Cart`; a function type is no class.
    fn type_hint(&self, text: &str) -> Option<String> {
        let text = text.trim();
        let text = text.strip_prefix("out ").or_else(|| text.strip_prefix("in ")).unwrap_or(text).trim();
        if text.contains("->") {
            return None;
        }
        let base = text.split(['<', '?']).next().unwrap_or("").trim();
        let ok = !base.is_empty()
            && base.split('.').all(|part| {
                !part.is_empty()
                    && !part.starts_with(|c: char| c.is_ascii_digit())
                    && part.chars().all(|c| c.is_alphanumeric() || c == '_')
            });
        ok.then(|| base.to_string())
    }

    /// A name in an import or a package header is qualified by the names before it.
    fn qualifier(&self, node: Node, bytes: &[u8]) -> Option<String> {
        let parent = node.parent()?;
        if parent.kind() != "qualified_identifier" {
            return None;
        }
        let before = &bytes[parent.start_byte()..node.start_byte()];
        let text = squash(std::str::from_utf8(before).ok()?);
        let text = text.trim_end_matches('.');
        (!text.is_empty()).then(|| text.to_string())
    }

    /// `a.b()`, `a.b`, `Cart(x)`, `Outer.Inner`, `this`, `super`: a chain the resolver follows;
    /// anything else (a cast, an index) is `?`.
    fn qualifier_text(&self, qualifier: Node, bytes: &[u8]) -> String {
        let mut out = String::new();
        if chain(qualifier, bytes, &mut out) { out } else { "?".to_string() }
    }

    fn scope_kind(&self, node_kind: &str) -> ScopeKind {
        match node_kind {
            "class_declaration" | "object_declaration" => ScopeKind::Class,
            "function_declaration" | "secondary_constructor" | "getter" | "setter" | "anonymous_function" => {
                ScopeKind::Function
            }
            "lambda_literal" => ScopeKind::Lambda,
            _ => ScopeKind::Block,
        }
    }

    /// `package a.b` is a glob import of its own package (marked `alias`), `import a.b.C` binds
    /// `C`, `import a.b.C as D` binds `D`, `import a.b.*` is a glob.
    fn decode_import<'t>(&self, node: Node<'t>, bytes: &[u8], out: &mut Vec<RawImport<'t>>) {
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        let Some(path) = children.iter().copied().find(|c| c.kind() == "qualified_identifier") else {
            return;
        };
        let full = squash(node_text(path, bytes));
        if node.kind() == "package_header" {
            out.push(RawImport {
                module: full,
                item: None,
                bound: None,
                alias: true,
                glob: true,
                cfg: None,
                at: path,
            });
            return;
        }
        if node_text(node, bytes).trim_end().ends_with('*') {
            out.push(RawImport::glob(full, path));
            return;
        }
        let (module, item) = match full.rsplit_once('.') {
            Some((module, item)) => (module.to_string(), item.to_string()),
            None => (String::new(), full),
        };
        let alias = children.iter().copied().find(|c| c.kind() == "identifier");
        let at = match alias {
            Some(alias) => alias,
            None => path.named_child(path.named_child_count().saturating_sub(1) as u32).unwrap_or(path),
        };
        out.push(RawImport {
            module,
            bound: Some(alias.map_or(item.clone(), |a| node_text(a, bytes).to_string())),
            item: Some(item),
            alias: alias.is_some(),
            glob: false,
            cfg: None,
            at,
        });
    }

    /// Every declaration is bound by its name where it is declared: an extension function too,
    /// called bare in its receiver's members and other extensions.
    fn bound_by_name(&self, _symbols: &FileSymbols, _own_scope: &[u32], _def: DefRef<'_>) -> bool {
        true
    }

    /// A type's members and properties are visible everywhere in its body; a local after its
    /// declaration.
    fn visible(&self, entries: &[Entry], symbols: &FileSymbols, pos: Pos, _same_scope: bool) -> Vec<Entry> {
        super::members_else_last_local(entries, symbols, pos)
    }

    /// The type after the parameters: `fun create(owner: String): Cart` → `Cart`.
    fn return_type<'s>(&self, signature: &'s str) -> Option<&'s str> {
        let open = signature.find('(')?;
        let mut depth = 0usize;
        let mut close = None;
        for (i, c) in signature[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let rest = signature[close? + 1..].trim_start().strip_prefix(':')?;
        let ty = rest.split(" where ").next().unwrap_or(rest).trim();
        (!ty.is_empty()).then_some(ty)
    }

    fn tables(&self, files: &[Arc<FileEntry>]) -> Arc<dyn Tables> {
        Arc::new(super::declared_packages::Packages::new(files, Lang::Kotlin, ("this", "super"), "."))
    }
}

/// An extension function's receiver type: the type before its name.
fn receiver_type(def: Node) -> Option<Node> {
    if def.kind() != "function_declaration" {
        return None;
    }
    let name = def.child_by_field_name("name")?;
    let mut cursor = def.walk();
    def.named_children(&mut cursor)
        .take_while(|c| c.id() != name.id())
        .find(|c| matches!(c.kind(), "user_type" | "nullable_type"))
}

/// The chain text of a qualifier, as [`Language::qualifier_text`] describes it.
fn chain(node: Node, bytes: &[u8], out: &mut String) -> bool {
    match node.kind() {
        // In a type, `Outer.Inner`: the names up to this one.
        "identifier" if node.parent().is_some_and(|p| p.kind() == "user_type") => {
            let parent = node.parent().expect("a parent");
            out.push_str(&squash(
                std::str::from_utf8(&bytes[parent.start_byte()..node.end_byte()]).unwrap_or("?"),
            ));
            true
        }
        "identifier" => {
            out.push_str(node_text(node, bytes));
            true
        }
        "this_expression" => {
            out.push_str("this");
            true
        }
        "super_expression" => {
            out.push_str("super");
            true
        }
        "navigation_expression" => {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            let [object, .., member] = children.as_slice() else { return false };
            if member.kind() != "identifier" || !chain(*object, bytes, out) {
                return false;
            }
            out.push('.');
            out.push_str(node_text(*member, bytes));
            true
        }
        "call_expression" => {
            let Some(callee) = node.named_child(0) else { return false };
            if !chain(callee, bytes, out) {
                return false;
            }
            out.push_str("()");
            true
        }
        "parenthesized_expression" => node.named_child(0).is_some_and(|inner| chain(inner, bytes, out)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;

    const ITEM: &str = include_str!("../../../../fixtures/kt_shop/src/main/kotlin/shop/Item.kt");
    const CART: &str = include_str!("../../../../fixtures/kt_shop/src/main/kotlin/shop/Cart.kt");
    const PRICING: &str =
        include_str!("../../../../fixtures/kt_shop/src/main/kotlin/shop/pricing/Pricing.kt");
    const VIP: &str = include_str!("../../../../fixtures/kt_shop/src/main/kotlin/shop/VipCart.kt");
    const CHECKOUT: &str = include_str!("../../../../fixtures/kt_shop/src/main/kotlin/shop/Checkout.kt");
    const TEST: &str = include_str!("../../../../fixtures/kt_shop/src/test/kotlin/shop/CartTest.kt");

    const SHOP: &[(&str, &str)] = &[
        ("src/main/kotlin/shop/Item.kt", ITEM),
        ("src/main/kotlin/shop/Cart.kt", CART),
        ("src/main/kotlin/shop/pricing/Pricing.kt", PRICING),
        ("src/main/kotlin/shop/VipCart.kt", VIP),
        ("src/main/kotlin/shop/Checkout.kt", CHECKOUT),
        ("src/test/kotlin/shop/CartTest.kt", TEST),
    ];

    /// Each definition: kind, qualified name, lines, signature and doc's first line.
    fn defs(src: &str) -> String {
        crate::test_support::def_listing(Lang::Kotlin, src)
    }

    fn imports(src: &str) -> String {
        crate::test_support::import_listing(Lang::Kotlin, src)
    }

    use crate::test_support::{entry, resolve_at as resolve};

    #[test]
    fn definitions_kinds_nested_types_signatures_and_docs() {
        expect_test::expect![[r#"
            interface Priced 4-6 | interface Priced  // Anything with a price.
            method Priced.subtotal 5-5 | fun subtotal(): Double
            class Item 11-13 | data class Item(val name: String, val price: Double) : Priced  // One product at its unit price.
            method Item.subtotal 12-12 | override fun subtotal(): Double
            enum Category 15-18 | enum class Category
            constant Category.FOOD 16-16 | FOOD
            constant Category.DRINK 17-17 | DRINK
            class Cart 6-37 | open class Cart(val owner: String)  // A customer's basket.
            method Cart.add 11-14 | fun add(item: Item): Cart  // Puts an item in the cart.
            method Cart.total 16-22 | open fun total(): Double
            method Cart.withTax 24-24 | private fun withTax(amount: Double): Double
            class Cart.Line 27-29 | class Line  // One line of a receipt.
            method Cart.Line.render 28-28 | fun render(item: Item): String
            constant Cart.TAX_RATE 32-32 | const val TAX_RATE
            method Cart.create 35-35 | fun create(owner: String): Cart  // An empty cart for [owner].
            constant WELCOME 4-4 | const val WELCOME  // The discount codes the shop knows.
            function applyDiscount 7-8 | fun applyDiscount(amount: Double, code: String?): Double  // Takes a discount code off an amount; unknown codes change nothing.
            class Discounts 11-13 | object Discounts  // Discounts by name.
            method Discounts.percent 12-12 | fun percent(amount: Double, rate: Double): Double
            class VipCart 3-11 | class VipCart(owner: String) : Cart(owner)
            method VipCart.total 4-6 | override fun total(): Double
            method VipCart.saved 8-10 | fun saved(): Double
            function Cart.discounted 14-14 | fun Cart.discounted(): Double  // The cart's total with the VIP rate, for any cart.
        "#]].assert_eq(&(defs(ITEM) + &defs(CART) + &defs(PRICING) + &defs(VIP)));
    }

    #[test]
    fn packages_and_imports_decode() {
        expect_test::expect![[r#"
            1: module=shop item=- bound=- alias=true glob=true
            3: module=shop.pricing item=applyDiscount bound=applyDiscount alias=false glob=false
            1: module=shop item=- bound=- alias=true glob=true
            3: module=shop.pricing item=- bound=- alias=false glob=true
            4: module=shop.pricing item=Discounts bound=D alias=true glob=false
            1: module=shop item=- bound=- alias=true glob=true
            3: module=kotlin.test item=Test bound=Test alias=false glob=false
            4: module=kotlin.test item=assertEquals bound=assertEquals alias=false glob=false
        "#]]
        .assert_eq(&(imports(CART) + &imports(CHECKOUT) + &imports(TEST)));
    }

    #[test]
    fn return_types_type_hints_and_receivers() {
        assert_eq!(Kotlin.return_type("fun create(owner: String): Cart"), Some("Cart"));
        assert_eq!(Kotlin.return_type("fun <T> pick(f: (Int) -> T): List<T>"), Some("List<T>"));
        assert_eq!(Kotlin.return_type("fun Cart.discounted(): Double"), Some("Double"));
        assert_eq!(Kotlin.return_type("fun add(item: Item)"), None);
        assert_eq!(Kotlin.return_type("val owner: String"), None);
        assert_eq!(Kotlin.type_hint("List<Item>").as_deref(), Some("List"));
        assert_eq!(Kotlin.type_hint("Cart?").as_deref(), Some("Cart"));
        assert_eq!(Kotlin.type_hint("shop.Cart").as_deref(), Some("shop.Cart"));
        assert_eq!(Kotlin.type_hint("(Int) -> Unit"), None);
        assert_eq!(Kotlin.type_hint("Cart.create(owner).add"), None);
    }

    #[test]
    fn names_resolve_across_packages_companions_and_aliases() {
        let at = |path, line, column| resolve(SHOP, path, line, column);
        let checkout = "src/main/kotlin/shop/Checkout.kt";
        let cart = "src/main/kotlin/shop/Cart.kt";
        let vip = "src/main/kotlin/shop/VipCart.kt";
        expect_test::expect![[r#"
            create: method Cart.create (src/main/kotlin/shop/Cart.kt:35)
            Line: class Cart.Line (src/main/kotlin/shop/Cart.kt:27)
            render: method Cart.Line.render (src/main/kotlin/shop/Cart.kt:28)
            FOOD: constant Category.FOOD (src/main/kotlin/shop/Item.kt:16)
            total: candidates: 2
            applyDiscount: function applyDiscount (src/main/kotlin/shop/pricing/Pricing.kt:7)
            saved: method VipCart.saved (src/main/kotlin/shop/VipCart.kt:8)
            discounted: function Cart.discounted (src/main/kotlin/shop/VipCart.kt:14)
            percent: method Discounts.percent (src/main/kotlin/shop/pricing/Pricing.kt:12)
            total: method Cart.total (src/main/kotlin/shop/Cart.kt:16)
            total: method Cart.total (src/main/kotlin/shop/Cart.kt:16)
            total: method VipCart.total (src/main/kotlin/shop/VipCart.kt:4)
            withTax: method Cart.withTax (src/main/kotlin/shop/Cart.kt:24)
            applyDiscount: function applyDiscount (src/main/kotlin/shop/pricing/Pricing.kt:7)
            TAX_RATE: constant Cart.TAX_RATE (src/main/kotlin/shop/Cart.kt:32) attribute TAX_RATE (src/main/kotlin/shop/Cart.kt:32)
            total: method Cart.total (src/main/kotlin/shop/Cart.kt:16)"#]].assert_eq(
            &[
                // `Cart.create(owner)`: a companion object's function.
                at(checkout, 8, 25),
                // `Cart.Line()`, `line.render(…)`, `Category.FOOD`.
                at(checkout, 9, 36),
                at(checkout, 10, 14),
                at(checkout, 13, 26),
                // `cart.total()` (the receiver comes from a chain), `applyDiscount` through
                // `import shop.pricing.*`, `vip.saved()`.
                at(checkout, 14, 21),
                at(checkout, 14, 31),
                at(checkout, 14, 62),
                // `other.discounted()` (an extension), `D.percent` (`import … Discounts as D`),
                // `other.total()`.
                at(checkout, 15, 19),
                at(checkout, 15, 36),
                at(checkout, 15, 50),
                // `super.total()` and the bare `total()` in VipCart.
                at(vip, 5, 22),
                at(vip, 9, 16),
                // In Cart: its own `withTax`, `applyDiscount` by a single import, the
                // companion's `TAX_RATE`.
                at(cart, 21, 16),
                at(cart, 21, 24),
                at(cart, 24, 65),
                // The test: `cart.total()` on `val cart = Cart("ann")`.
                at("src/test/kotlin/shop/CartTest.kt", 11, 32),
            ]
            .join("\n"),
        );
    }

    /// Deeply nested classes, a chain of type aliases through aliased imports across packages
    /// (followed one step; 49 steps pass the resolver's depth bound: candidates) and two
    /// packages importing each other (with classes deriving from each other) all finish.
    #[test]
    fn deep_nesting_alias_chains_and_import_cycles_finish() {
        let mut deep = String::from("package deep\n");
        for i in 0..300 {
            deep.push_str(&format!("class C{i} {{\nfun m{i}() {{ m{i}() }}\n"));
        }
        deep.push_str(&"}\n".repeat(300));
        let fs = crate::extract::extract(Lang::Kotlin, &deep);
        assert!(fs.defs.len() >= 300 || fs.too_deep.is_some(), "{} defs", fs.defs.len());

        let mut files: Vec<(String, String)> =
            vec![("a/A0.kt".into(), "package n0\nclass A {\n    fun f() {}\n}\n".into())];
        for i in 1..50 {
            files.push((
                format!("a/A{i}.kt"),
                format!(
                    "package n{i}\nimport n{}.A as B\ntypealias A = B\nclass C{i} {{\n    fun g(a: A) {{ a.f() }}\n}}\n",
                    i - 1
                ),
            ));
        }
        files.push((
            "c/X.kt".into(),
            "package p\nimport q.*\nopen class X : Y() {\n    fun f() { Y().g() }\n}\n".into(),
        ));
        files.push((
            "c/Y.kt".into(),
            "package q\nimport p.*\nopen class Y : X() {\n    fun g() { X().f(); super.f() }\n}\n".into(),
        ));
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
        let column = |path: &str, line: usize, text: &str| {
            let line =
                files.iter().find(|f| f.0 == path).expect("a file").1.lines().nth(line - 1).expect("a line");
            line.find(text).expect("the text") as u32 + 1
        };
        assert_eq!(resolve(&files, "a/A1.kt", 5, column("a/A1.kt", 5, "f()")), "f: method A.f (a/A0.kt:3)");
        assert_eq!(resolve(&files, "a/A49.kt", 5, column("a/A49.kt", 5, "f()")), "f: candidates: 2");
        assert_eq!(resolve(&files, "c/X.kt", 4, column("c/X.kt", 4, "g()")), "g: method Y.g (c/Y.kt:4)");
        assert_eq!(resolve(&files, "c/Y.kt", 4, column("c/Y.kt", 4, "f();")), "f: method X.f (c/X.kt:4)");
        let snapshot = Snapshot::from_entries(files.iter().map(|(p, t)| entry(p, t)));
        let resolver = snapshot.resolver();
        for file in 0..resolver.n_files() as u32 {
            for r in resolver.entry(file).symbols.refs.iter() {
                resolver.resolve_ref(file, &r);
            }
        }
    }
}

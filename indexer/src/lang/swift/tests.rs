//! Swift's extraction and name resolution on sources written here: definitions, imports,
//! hints, resolution across targets, and inputs deep enough to test the bounds.

use super::*;
use crate::extract::extract;
use crate::lang::bash::tests::resolve;

fn defs(src: &str) -> Vec<String> {
    let fs = extract(Lang::Swift, src);
    fs.defs
        .iter()
        .map(|d| {
            let doc = d.doc().unwrap_or("-");
            format!(
                "{} {} {}-{} | {} | {doc}",
                d.kind.as_str(),
                d.qualified(),
                d.line,
                d.end_line,
                d.signature()
            )
        })
        .collect()
}

const SRC: &str = r#"import Foundation

/// A basket.
/// More about it.
open class Cart: Priced {
    /// In percent.
    public static let taxPercent = 20
    var items: [Item] = []

    public init() {}

    /// Puts an item in.
    @discardableResult
    public func add(_ item: Item) -> Cart {
        items.append(item)
        return self
    }

    struct Line {
        func render() -> String { "" }
    }
}

extension Cart {
    /// Whether it is empty.
    public var isEmpty: Bool { items.isEmpty }
    func discounted(by code: Code?) throws -> Int { 0 }
}

protocol Priced {
    func price() -> Int
}

enum Code: String {
    case save10 = "SAVE10"
}

actor Ledger {}

typealias Money = Int

let limit = 3
var counter = 0

func applyDiscount(_ amount: Int) -> Int { amount }
"#;

#[test]
fn types_members_extensions_and_constants_are_qualified_and_kinded() {
    assert_eq!(
        defs(SRC),
        [
            "class Cart 5-22 | open class Cart: Priced | A basket.",
            "constant Cart.taxPercent 7-7 | public static let taxPercent | In percent.",
            "method Cart.add 14-17 | public func add(_ item: Item) -> Cart | Puts an item in.",
            "class Cart.Line 19-21 | struct Line | -",
            "method Cart.Line.render 20-20 | func render() -> String | -",
            "class Cart 24-28 | extension Cart | -",
            "method Cart.isEmpty 26-26 | public var isEmpty: Bool | Whether it is empty.",
            "method Cart.discounted 27-27 | func discounted(by code: Code?) throws -> Int | -",
            "interface Priced 30-32 | protocol Priced | -",
            "method Priced.price 31-31 | func price() -> Int | -",
            "enum Code 34-36 | enum Code: String | -",
            "constant Code.save10 35-35 | case save10 = \"SAVE10\" | -",
            "class Ledger 38-38 | actor Ledger | -",
            "type Money 40-40 | typealias Money = Int | -",
            "constant limit 42-42 | let limit | -",
            "function applyDiscount 45-45 | func applyDiscount(_ amount: Int) -> Int | -",
        ]
    );
}

#[test]
fn return_types_and_type_hints() {
    assert_eq!(Swift.return_type("public func add(_ item: Item) -> Cart"), Some("Cart"));
    assert_eq!(Swift.return_type("func f() throws -> [Item]"), Some("[Item]"));
    assert_eq!(Swift.return_type("func f()"), None);
    assert_eq!(Swift.type_hint("Cart?").as_deref(), Some("Cart"));
    assert_eq!(Swift.type_hint("Shop.Cart").as_deref(), Some("Shop.Cart"));
    assert_eq!(Swift.type_hint("Box<Item>").as_deref(), Some("Box"));
    assert_eq!(Swift.type_hint("any Priced").as_deref(), Some("Priced"));
    assert_eq!(Swift.type_hint("[Item]"), None);
    assert_eq!(Swift.type_hint("(Int, Int)"), None);
}

#[test]
fn imports_are_globs_of_a_module_or_one_declaration() {
    let src = "import XCTest\n@testable import Shop\nimport struct Shop.Cart\nimport Foundation.NSData\n";
    let fs = extract(Lang::Swift, src);
    let imports: Vec<String> = fs
        .imports
        .iter()
        .map(|i| {
            format!(
                "{} item={:?} bound={:?} glob={}",
                fs.text(i.module),
                fs.text(i.item),
                fs.text(i.bound),
                { i.glob }
            )
        })
        .collect();
    assert_eq!(
        imports,
        [
            "XCTest item=\"\" bound=\"\" glob=true",
            "Shop item=\"\" bound=\"\" glob=true",
            "Shop item=\"Cart\" bound=\"Cart\" glob=false",
            "Foundation.NSData item=\"\" bound=\"\" glob=true",
        ]
    );
}

#[test]
fn bindings_carry_their_declared_or_constructed_type() {
    let src = "func f(c: Cart?, xs: [Int]) {\n    let a = Cart()\n    var b: VipCart = make()\n    let d = c\n    for x in xs {}\n    if let y = c {}\n    guard let z = c else { return }\n}\n";
    let fs = extract(Lang::Swift, src);
    let bindings: Vec<String> = fs
        .bindings
        .iter()
        .map(|b| {
            let hint =
                if b.hint == crate::names::NONE { "-".to_string() } else { fs.text(b.hint).to_string() };
            format!("{} {:?} in {} : {hint}", fs.text(b.name), { b.kind }, { b.scope })
        })
        .collect();
    assert_eq!(
        bindings,
        [
            "c Param in 1 : Cart",
            "xs Param in 1 : -",
            "a Let in 1 : Cart()",
            "b Let in 1 : VipCart",
            "d Let in 1 : =c",
            "x Loop in 2 : -",
            "y Let in 3 : -",
            "z Let in 1 : -",
        ]
    );
}

/// A package: the library target's files see each other's names and extensions; the test
/// target imports the library.
#[test]
fn targets_share_names_extensions_add_members_and_self_and_super_have_types() {
    let cart = "open class Cart {\n    open func total() -> Int { 1 }\n    func twice() -> Int { self.total() + total() }\n}\n";
    let ext = "extension Cart {\n    func discounted() -> Int { total() - 1 }\n}\n";
    let vip = "class VipCart: Cart {\n    override func total() -> Int { super.total() }\n}\nfunc make() -> Cart { VipCart() }\n";
    let test = "@testable import Shop\nfunc check() {\n    let cart = Cart()\n    _ = cart.discounted()\n    let vip: VipCart = VipCart()\n    _ = vip.total()\n    _ = make()\n}\n";
    let resolved = resolve(&[
        ("Sources/Shop/Cart.swift", cart),
        ("Sources/Shop/Cart+Discount.swift", ext),
        ("Sources/Shop/VipCart.swift", vip),
        ("Tests/ShopTests/CartTests.swift", test),
    ]);
    let calls: Vec<&String> = resolved.iter().filter(|l| l.contains(" call ")).collect();
    assert_eq!(
        calls,
        [
            "Sources/Shop/Cart+Discount.swift:2 total call -> Sources/Shop/Cart.swift:2 Cart.total",
            "Sources/Shop/Cart.swift:3 total method call -> Sources/Shop/Cart.swift:2 Cart.total",
            "Sources/Shop/Cart.swift:3 total call -> Sources/Shop/Cart.swift:2 Cart.total",
            "Sources/Shop/VipCart.swift:2 total method call -> Sources/Shop/Cart.swift:2 Cart.total",
            "Sources/Shop/VipCart.swift:4 VipCart call -> Sources/Shop/VipCart.swift:1 VipCart",
            "Tests/ShopTests/CartTests.swift:3 Cart call -> Sources/Shop/Cart.swift:1 Cart",
            "Tests/ShopTests/CartTests.swift:4 discounted method call -> Sources/Shop/Cart+Discount.swift:2 Cart.discounted",
            "Tests/ShopTests/CartTests.swift:5 VipCart call -> Sources/Shop/VipCart.swift:1 VipCart",
            "Tests/ShopTests/CartTests.swift:6 total method call -> Sources/Shop/VipCart.swift:2 VipCart.total",
            "Tests/ShopTests/CartTests.swift:7 make call -> Sources/Shop/VipCart.swift:4 make",
        ]
    );
}

/// Deep nesting, an alias chain and two targets importing each other finish (a chain of 200
/// aliases is past the resolver's bound: the call's method is a candidate).
#[test]
fn deep_nesting_an_alias_chain_and_an_import_cycle_finish() {
    let mut src = String::new();
    for i in 0..300 {
        src.push_str(&format!("struct S{i} {{\n"));
    }
    src.push_str("func f() {}\n");
    for _ in 0..300 {
        src.push_str("}\n");
    }
    let fs = extract(Lang::Swift, &src);
    assert!(fs.too_deep.is_some() || fs.defs.len() > 300);
    let mut chain = String::from("class A0 { func f() {} }\nfunc g() {\n    let a0 = A0()\n");
    for i in 1..200 {
        chain.push_str(&format!("    let a{i} = a{}\n", i - 1));
    }
    chain.push_str("    a199.f()\n}\n");
    let resolved = resolve(&[
        ("Sources/A/A.swift", &format!("import B\n{chain}")),
        ("Sources/B/B.swift", "import A\nfunc h() { g() }\n"),
    ]);
    let wanted = [
        "Sources/A/A.swift:204 f method call -> ?Sources/A/A.swift:2 A0.f",
        "Sources/B/B.swift:2 g call -> Sources/A/A.swift:3 g",
    ];
    for line in wanted {
        assert!(resolved.iter().any(|l| l == line), "{line}: {:?}", &resolved[resolved.len() - 3..]);
    }
}

/// `Package.swift` puts target `Shop` in `Code/Shop` and its tests in `Tests/Unit`: the files of
/// that folder are one module (not the rest of the repository, which defines another `Cart`),
/// and `import Shop` names it.
#[test]
fn the_folders_package_swift_gives_targets_make_their_modules() {
    let manifest = "let package = Package(name: \"Shop\", targets: [\n    .target(name: \"Shop\", path: \"Code/Shop\"),\n    .testTarget(name: \"ShopTests\", dependencies: [\"Shop\"], path: \"Tests/Unit\"),\n])\n";
    let files = [
        ("Code/Shop/Cart.swift", "public class Cart {}\n"),
        ("Code/Shop/Line.swift", "func line() -> Cart { Cart() }\n"),
        ("Scripts/Cart.swift", "class Cart {}\n"),
        ("Tests/Unit/CartTests.swift", "@testable import Shop\nfunc check() { _ = Cart() }\n"),
        ("Package.swift", manifest),
    ];
    let calls = |files: &[(&str, &str)]| -> Vec<String> {
        resolve(files).into_iter().filter(|l| l.contains("Cart call")).collect()
    };
    assert_eq!(
        calls(&files),
        [
            "Code/Shop/Line.swift:1 Cart call -> Code/Shop/Cart.swift:1 Cart",
            "Tests/Unit/CartTests.swift:2 Cart call -> Code/Shop/Cart.swift:1 Cart",
        ]
    );
    // Without the manifest, `Code/Shop` is no target: the repository is one module.
    assert_ne!(calls(&files[..4]), calls(&files));
}

//! The navigate tools through `Toolbox::call` on the fixtures: the text an agent reads for
//! each tool, by symbol and by position, and the refusals with their next step.

use std::path::{Path, PathBuf};

use expect_test::{Expect, expect};
use serde_json::{Value, json};
use tack_tools::{CallContext, Config, Observation, Profile, Session, Toolbox};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name)
}

fn call(root: &Path, tool: &str, args: Value) -> Observation {
    let tb = Toolbox::new(root, Config::default(), Profile::Full, true).unwrap();
    tb.call(&Session::new(), tool, args, &CallContext::default()).observation
}

fn check(root: &str, tool: &str, args: Value, expect: Expect) {
    let obs = call(&fixture(root), tool, args);
    let text = if obs.is_error { format!("error: {}", obs.text) } else { obs.text };
    expect.assert_eq(&text);
}

#[test]
fn definition_by_position_follows_the_import() {
    // checkout.py:9 `amount = cart.total()`: `cart: Cart` makes the receiver evident.
    check(
        "py_shop",
        "definition",
        json!({"path": "shop/checkout.py", "line": 9, "column": 19}),
        expect![[r#"
        definition of `total` at shop/checkout.py:9:19: 1 resolved, 0 candidates
        shop/cart.py:23: def total(self) -> float:  (definition, Cart.total)
    "#]],
    );
}

#[test]
fn definition_by_symbol() {
    check(
        "py_shop",
        "definition",
        json!({"symbol": "Cart.add"}),
        expect![[r#"
        definition of `Cart.add`: 1 resolved, 0 candidates
        shop/cart.py:15: def add(self, item: Item) -> None:  (definition, Cart.add)
    "#]],
    );
    check(
        "rs_shapes",
        "definition",
        json!({"symbol": "shapes::Circle::new"}),
        expect![[r#"
        definition of `shapes::Circle::new`: 1 resolved, 0 candidates
        src/shapes/circle.rs:10: pub fn new(center: Point, radius: f64) -> Self {  (definition, Circle::new)
    "#]],
    );
}

#[test]
fn references_resolved_first_with_relations() {
    check(
        "py_shop",
        "references",
        json!({"symbol": "Cart"}),
        expect![[r#"
        references to class Cart (shop/cart.py:7): 10 resolved, 0 candidates
        shop/cart.py:7: class Cart:  (definition, Cart)
        shop/__init__.py:3: from .cart import Cart  (import, <module>)
        shop/checkout.py:1: from .cart import Cart  (import, <module>)
        shop/checkout.py:6: def checkout(cart: Cart, code: str | None = None) -> float:  (type use, checkout)
        shop/checkout.py:14: def quote(cart: Cart) -> float:  (type use, quote)
        shop/receipts.py:1: from .cart import Cart  (import, <module>)
        shop/receipts.py:4: def send_receipt(cart: Cart, amount: float) -> str:  (type use, send_receipt)
        tests/test_cart.py:1: from shop import Cart, Item  (import, <module>)
        tests/test_cart.py:6: cart = Cart("ada")  (call, test_total_includes_tax)
        tests/test_cart.py:12: cart = Cart("bob")  (call, test_checkout_with_code)
    "#]],
    );
    check(
        "rs_shapes",
        "references",
        json!({"symbol": "geo::distance"}),
        expect![[r#"
        references to function distance (src/geo.rs:21): 5 resolved, 0 candidates
        src/geo.rs:21: pub fn distance(a: Point, b: Point) -> f64 {  (definition, distance)
        src/shapes/circle.rs:2: use crate::geo::{distance, Point};  (import, <module>)
        src/shapes/circle.rs:15: distance(self.center, p) <= self.radius  (call, Circle::contains)
        src/shapes/square.rs:2: use crate::geo::{distance, Point};  (import, <module>)
        src/shapes/square.rs:12: distance(self.corner, far)  (call, Square::diagonal)
    "#]],
    );
}

#[test]
fn references_of_a_trait_method_by_position() {
    // mod.rs:11 `fn area(&self) -> f64;` in trait Shape.
    check(
        "rs_shapes",
        "references",
        json!({"path": "src/shapes/mod.rs", "line": "11", "column": "8"}),
        expect![[r#"
        references to method Shape::area (src/shapes/mod.rs:11): 1 resolved, 1 candidate
        src/shapes/mod.rs:11: fn area(&self) -> f64;  (definition, Shape::area)
        candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
        src/lib.rs:11: shapes.iter().map(|s| s.area()).sum()  (call, total_area)
    "#]],
    );
}

#[test]
fn callers_and_callees() {
    check(
        "py_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
        callers of function apply_discount (shop/pricing.py:8): 2 resolved, 0 candidates
        shop/cart.py:25: return with_tax(apply_discount(raw, self.code))  (call, Cart.total)
        shop/checkout.py:15: return apply_discount(cart.total(), "WELCOME10")  (call, quote)
    "#]],
    );
    check(
        "py_shop",
        "callers",
        json!({"symbol": "Cart.total", "direction": "callees"}),
        expect![[r#"
        callees of method Cart.total (shop/cart.py:23): 2 resolved, 1 candidate
        shop/pricing.py:8: def apply_discount(amount: float, code: str | None) -> float:  (call, apply_discount)
        shop/pricing.py:15: def with_tax(amount: float) -> float:  (call, with_tax)
        candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
        shop/item.py:12: def subtotal(self) -> float:  (call, Item.subtotal)
    "#]],
    );
}

#[test]
fn outline_is_a_tree_with_spans_and_signatures() {
    check(
        "py_shop",
        "outline",
        json!({"path": "./shop/cart.py"}),
        expect![[r#"
        shop/cart.py: 5 definitions, 25 lines
        7-25 class: class Cart
          10-13 method: def __init__(self, customer: str)
          15-16 method: def add(self, item: Item) -> None
          18-21 method: def remove(self, name: str) -> bool
          23-25 method: def total(self) -> float
    "#]],
    );
    check(
        "rs_shapes",
        "outline",
        json!({"path": "src/geo.rs"}),
        expect![[r#"
        src/geo.rs: 4 definitions, 23 lines
        5-8 class: pub struct Point
        11-13 method: pub fn new(x: f64, y: f64) -> Self
        15-17 method: pub fn origin() -> Self
        21-23 function: pub fn distance(a: Point, b: Point) -> f64
    "#]],
    );
}

#[test]
fn symbols_ranks_exact_prefix_humps_and_fuzzy() {
    check(
        "py_shop",
        "symbols",
        json!({"query": "total"}),
        expect![[r#"
        3 definitions match "total" (1 exact, 2 substring)
        shop/cart.py:23 method Cart.total: def total(self) -> float
        tests/test_cart.py:5 function test_total_includes_tax: def test_total_includes_tax()
        shop/item.py:12 method Item.subtotal: def subtotal(self) -> float
    "#]],
    );
    check(
        "rs_shapes",
        "symbols",
        json!({"query": "Sq"}),
        expect![[r#"
        2 definitions match "Sq" (2 prefix)
        src/shapes/square.rs:4 class Square: pub struct Square
        src/shapes/mod.rs:4 module square: mod square;
    "#]],
    );
}

#[test]
fn failures_say_what_to_do_next() {
    check(
        "py_shop",
        "definition",
        json!({}),
        expect![[
            r#"error: say what to look up: symbol= (a name such as "Cart.add" or "shapes::Circle::new"), or path= with line= and column= (1-based) of a name"#
        ]],
    );
    check(
        "py_shop",
        "definition",
        json!({"symbol": "Nope"}),
        expect![[
            r#"error: no definition named "Nope" in the repository; symbols(query="Nope") searches by prefix, camel humps and letters in order"#
        ]],
    );
    check(
        "py_shop",
        "references",
        json!({"symbol": "add"}),
        expect![[r#"
        references to method Cart.add (shop/cart.py:15): 3 resolved, 0 candidates
        shop/cart.py:15: def add(self, item: Item) -> None:  (definition, Cart.add)
        tests/test_cart.py:7: cart.add(Item("pen", 2.0, 3))  (call, test_total_includes_tax)
        tests/test_cart.py:13: cart.add(Item("book", 10.0))  (call, test_checkout_with_code)
    "#]],
    );
    check(
        "py_shop",
        "definition",
        json!({"path": "shop/cart.py", "line": 900, "column": 1}),
        expect!["error: shop/cart.py has 25 lines; line 900 is outside it (lines are 1-based)"],
    );
    check(
        "py_shop",
        "definition",
        json!({"path": "shop/cart.py", "line": 2, "column": 3}),
        expect!["error: shop/cart.py:2 is an empty line; give the line and 1-based column of a name"],
    );
    check(
        "rs_shapes",
        "references",
        json!({"symbol": "area"}),
        expect![[
            r#"error: `area` names 3 definitions: method Circle::area (src/shapes/circle.rs:20); method Shape::area (src/shapes/mod.rs:11); method Square::area (src/shapes/square.rs:17). Pass a qualified name (symbol="Circle::area") or path=, line= and column= of one"#
        ]],
    );
    check(
        "py_shop",
        "definition",
        json!({"path": "shop/cart.py", "line": 10, "column": 8}),
        expect![
            "error: no name at shop/cart.py:10:8; the line reads: `def __init__(self, customer: str):`; give the 1-based column of a name on it"
        ],
    );
    check(
        "py_shop",
        "outline",
        json!({"path": "shop/missing.py"}),
        expect![[r#"error: shop/missing.py does not exist; read_file(path=".") lists the root"#]],
    );
    check(
        "py_shop",
        "symbols",
        json!({"query": "  "}),
        expect![[
            r#"error: query is empty; pass part of a name, such as "Cart", "apply_disc" or "CA" (camel humps)"#
        ]],
    );
}

#[test]
fn structured_results_follow_the_contract() {
    let obs = call(&fixture("py_shop"), "references", json!({"symbol": "apply_discount"}));
    let data = obs.structured.unwrap();
    assert_eq!(data["total_resolved"], json!(data["resolved"].as_array().unwrap().len()));
    let first = &data["resolved"][0];
    for key in ["path", "line", "text", "symbol", "relation"] {
        assert!(first.get(key).is_some(), "{key} missing in {first}");
    }
    let obs = call(&fixture("py_shop"), "symbols", json!({"query": "Cart"}));
    let first = &obs.structured.unwrap()["symbols"][0];
    for key in ["name", "qualified_name", "kind", "path", "line", "end_line", "signature"] {
        assert!(first.get(key).is_some(), "{key} missing in {first}");
    }
}

#[test]
fn a_long_answer_is_capped_with_totals_and_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let mut users = String::from("from lib import helper\n\n");
    for i in 0..80 {
        users.push_str(&format!("def use_{i}():\n    return helper({i})\n"));
    }
    std::fs::write(dir.path().join("lib.py"), "def helper(x):\n    return x\n").unwrap();
    std::fs::write(dir.path().join("users.py"), users).unwrap();
    let obs = call(dir.path(), "references", json!({"symbol": "helper", "limit": 3}));
    expect![[r#"
        references to function helper (lib.py:1): 82 resolved, 0 candidates
        lib.py:1: def helper(x):  (definition, helper)
        users.py:1: from lib import helper  (import, <module>)
        users.py:4: return helper(0)  (call, use_0)
        … 79 more resolved in 1 file, most in users.py (79); pass within= a folder or file to narrow, or limit= (at most 500)
    "#]].assert_eq(&obs.text);
    let data = obs.structured.unwrap();
    assert_eq!(data["total_resolved"], json!(82));
    assert_eq!(data["resolved"].as_array().unwrap().len(), 3);
}

#[test]
fn broken_files_and_odd_positions_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.py"), "def ok(:\n    return missing(\nclass\n").unwrap();
    std::fs::write(dir.path().join("bad.rs"), "fn f( { let x = ; x.y(); }\nimpl for {}\nuse ::{*;\n")
        .unwrap();
    for path in ["bad.py", "bad.rs"] {
        for line in 0..5 {
            for column in [0, 1, 3, 7, 500] {
                for tool in ["definition", "references", "callers"] {
                    let _ = call(dir.path(), tool, json!({"path": path, "line": line, "column": column}));
                }
            }
        }
        let _ = call(dir.path(), "outline", json!({"path": path}));
    }
    let _ = call(dir.path(), "symbols", json!({"query": "x"}));
}

fn stdlib_file(name: &str) -> PathBuf {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join(name)
}

#[test]
fn outline_of_a_3000_line_file_fits_the_cap_and_shows_every_top_level_definition() {
    for name in ["inspect.py", "_pydecimal.py"] {
        let dir = tempfile::tempdir().unwrap();
        let source = std::fs::read_to_string(stdlib_file(name)).unwrap();
        assert!(source.lines().count() >= 3000, "{name} has {} lines", source.lines().count());
        std::fs::write(dir.path().join(name), &source).unwrap();
        let obs = call(dir.path(), "outline", json!({"path": name}));
        assert!(!obs.is_error, "{}", obs.text);
        assert!(!obs.text.contains("read_output(handle="), "the outline was cut:\n{}", obs.text);
        assert!(tack_tools::count_tokens(&obs.text) <= Config::default().output.max_tokens);
        let symbols = obs.structured.unwrap()["symbols"].as_array().unwrap().clone();
        let top_level: Vec<&Value> = symbols.iter().filter(|s| s["qualified_name"] == s["name"]).collect();
        assert!(top_level.len() > 50, "{name}: {} top-level definitions", top_level.len());
        for def in top_level {
            let shown = format!("{} {}", def["name"].as_str().unwrap(), def["line"]);
            let signature = def["signature"].as_str().unwrap();
            assert!(obs.text.contains(&shown) || obs.text.contains(signature), "{name}: {shown} missing");
        }
    }
}

#[test]
fn a_bare_name_with_several_definitions_says_how_to_pick_one() {
    check(
        "rs_shapes",
        "definition",
        json!({"symbol": "area"}),
        expect![[r#"
        definitions named `area` (3 of them; a qualified name such as "Circle::area" picks one): 3 resolved, 0 candidates
        src/shapes/circle.rs:20: fn area(&self) -> f64 {  (definition, Circle::area)
        src/shapes/mod.rs:11: fn area(&self) -> f64;  (definition, Shape::area)
        src/shapes/square.rs:17: fn area(&self) -> f64 {  (definition, Square::area)
    "#]],
    );
}

#[test]
fn a_file_too_large_to_index_answers_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = String::from("import os\nx = os.path\n");
    while big.len() < 2 * 1024 * 1024 + 10 {
        big.push_str("def f():\n    return x.y\n");
    }
    std::fs::write(dir.path().join("big.py"), &big).unwrap();
    std::fs::write(dir.path().join("bad.py"), "nonlocal q\nq\n").unwrap();
    for (path, line, column) in [("big.py", 2, 1), ("big.py", 4, 12), ("bad.py", 2, 1), ("bad.py", 1, 10)] {
        for tool in ["definition", "references", "callers"] {
            let _ = call(dir.path(), tool, json!({"path": path, "line": line, "column": column}));
        }
    }
    let obs = call(dir.path(), "outline", json!({"path": "big.py"}));
    assert!(obs.text.contains("tack does not parse it"), "{}", obs.text);
}

#[test]
fn go_outline_definition_and_references_across_packages() {
    check(
        "go_shop",
        "outline",
        json!({"path": "cart/cart.go"}),
        expect![[r#"
        cart/cart.go: 5 definitions, 35 lines
        9-9 constant: TaxRate
        12-16 class: Cart struct
        19-21 function: func New(owner string) *Cart
        24-26 method: func (c *Cart) Add(item Item)
        29-35 method: func (c *Cart) Total() float64
    "#]],
    );
    check(
        "go_shop",
        "definition",
        json!({"path": "main.go", "line": "12", "column": "16"}),
        expect![[r#"
            definition of `Total` at main.go:12:16: 1 resolved, 0 candidates
            cart/cart.go:29: func (c *Cart) Total() float64 {  (definition, Cart.Total)
        "#]],
    );
    check(
        "go_shop",
        "references",
        json!({"symbol": "cart.Cart.Total"}),
        expect![[r#"
        references to method Cart.Total (cart/cart.go:29): 4 resolved, 0 candidates
        cart/cart.go:29: func (c *Cart) Total() float64 {  (definition, Cart.Total)
        cart/cart_test.go:8: if c.Total() != 7.2 {  (call, TestTotal)
        cart/cart_test.go:9: t.Fatal(c.Total())  (call, TestTotal)
        main.go:12: fmt.Println(c.Total())  (call, main)
    "#]],
    );
    check(
        "go_shop",
        "callers",
        json!({"symbol": "ApplyDiscount"}),
        expect![[r#"
        callers of function ApplyDiscount (pricing/pricing.go:22): 1 resolved, 0 candidates
        cart/cart.go:34: return pricing.ApplyDiscount(raw, c.Code) * (1 + TaxRate)  (call, Cart.Total)
    "#]],
    );
}

#[test]
fn typescript_and_javascript_outline_definition_and_references() {
    check(
        "ts_shop",
        "outline",
        json!({"path": "src/cart.ts"}),
        expect![[r#"
        src/cart.ts: 5 definitions, 22 lines
        4-4 constant: TAX_RATE
        7-22 class: class Cart
          11-11 method: constructor(public owner: string)
          14-16 method: add(item: Item): void
          18-21 method: total(): number
    "#]],
    );
    // checkout.ts:9 `return c.total();`, `c = new Cart(owner)`, Cart imported through index.ts.
    check(
        "ts_shop",
        "definition",
        json!({"path": "src/checkout.ts", "line": "9", "column": "12"}),
        expect![[r#"
            definition of `total` at src/checkout.ts:9:12: 1 resolved, 0 candidates
            src/cart.ts:18: total(): number {  (definition, Cart.total)
        "#]],
    );
    check(
        "ts_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
            references to method Cart.total (src/cart.ts:18): 5 resolved, 0 candidates
            src/cart.ts:18: total(): number {  (definition, Cart.total)
            src/checkout.ts:4: return cart.total();  (call, checkout)
            src/checkout.ts:9: return c.total();  (call, quote)
            src/receipt.tsx:14: <li>total: {cart.total()}</li>  (call, Receipt)
            test/cart.test.ts:6: if (cart.total() !== 2.4) {  (call, <module>)
        "#]],
    );
    // A TSX component used as an element: `<Line item={i} />`.
    check(
        "ts_shop",
        "outline",
        json!({"path": "src/receipt.tsx"}),
        expect![[r#"
            src/receipt.tsx: 2 definitions, 17 lines
            5-7 function: function Line({ item }: { item: Item })
            9-17 function: function Receipt(props: { cart: Cart })
        "#]],
    );
    check(
        "ts_shop",
        "definition",
        json!({"path": "src/receipt.tsx", "line": "13", "column": "32"}),
        expect![[r#"
            definition of `Line` at src/receipt.tsx:13:32: 1 resolved, 0 candidates
            src/receipt.tsx:5: export function Line({ item }: { item: Item }) {  (definition, Line)
        "#]],
    );
    check(
        "js_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
        callers of function applyDiscount (lib/pricing.js:2): 2 resolved, 0 candidates
        index.js:7: return pricing.applyDiscount(cart.total(), 'WELCOME10');  (call, run)
        lib/cart.js:16: return applyDiscount(raw, this.code);  (call, Cart.total)
    "#]],
    );
}

#[test]
fn java_outline_definition_and_references_across_packages() {
    check(
        "java_shop",
        "outline",
        json!({"path": "src/main/java/shop/VipCart.java"}),
        expect![[r#"
            src/main/java/shop/VipCart.java: 4 definitions, 16 lines
            3-16 class: public class VipCart extends Cart
              4-6 method: public VipCart(String owner)
              9-11 method: public double total()
              13-15 method: public double saved()
        "#]],
    );
    // VipCart.java:14 `return total() - super.total();`: the bare call is VipCart's own.
    check(
        "java_shop",
        "definition",
        json!({"path": "src/main/java/shop/VipCart.java", "line": "14", "column": "16"}),
        expect![[r#"
            definition of `total` at src/main/java/shop/VipCart.java:14:16: 1 resolved, 0 candidates
            src/main/java/shop/VipCart.java:9: public double total() {  (definition, VipCart.total)
        "#]],
    );
    check(
        "java_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
        references to method Cart.total (src/main/java/shop/Cart.java:23): 5 resolved, 1 candidate
        src/main/java/shop/Cart.java:23: public double total() {  (definition, Cart.total)
        src/main/java/shop/VipCart.java:10: return super.total() * 0.95;  (call, VipCart.total)
        src/main/java/shop/VipCart.java:14: return total() - super.total();  (call, VipCart.saved)
        src/test/java/shop/CartTest.java:7: if (cart.total() != 2.4) {  (call, CartTest.totalAddsTax)
        src/test/java/shop/CartTest.java:8: throw new AssertionError(cart.total());  (call, CartTest.totalAddsTax)
        candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
        src/main/java/shop/Checkout.java:10: return cart.total() + applyDiscount(1.0, null);  (call, Checkout.quote)
    "#]],
    );
    check(
        "java_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
        callers of method Pricing.applyDiscount (src/main/java/shop/pricing/Pricing.java:8): 2 resolved, 0 candidates
        src/main/java/shop/Cart.java:28: return withTax(Pricing.applyDiscount(raw, code));  (call, Cart.total)
        src/main/java/shop/Checkout.java:10: return cart.total() + applyDiscount(1.0, null);  (call, Checkout.quote)
    "#]],
    );
}

#[test]
fn c_and_cpp_outline_definition_and_references_across_files() {
    check(
        "c_shop",
        "outline",
        json!({"path": "include/shop/cart.h"}),
        expect![[r#"
        include/shop/cart.h: 3 definitions, 21 lines
        5-5 macro: #define TAX_RATE
        8-13 class: struct cart
        15-15 type: cart_t
    "#]],
    );
    check(
        "c_shop",
        "references",
        json!({"symbol": "cart_total"}),
        expect![[r#"
        references to function cart_total (src/cart.c:21): 4 resolved, 0 candidates
        src/cart.c:21: double cart_total(const struct cart *c) {  (definition, cart_total)
        include/shop/cart.h:19: double cart_total(const struct cart *c);  (reference, <module>)
        src/main.c:8: printf("%.2f\n", cart_total(c));  (call, main)
        tests/test_cart.c:8: assert(cart_total(c) > 2.39);  (call, main)
    "#]],
    );
    check(
        "c_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
        callers of function apply_discount (src/pricing.c:6): 1 resolved, 0 candidates
        src/cart.c:26: return with_tax(apply_discount(raw, c->code));  (call, cart_total)
    "#]],
    );
    check(
        "cpp_shop",
        "outline",
        json!({"path": "include/shop/cart.hpp"}),
        expect![[r#"
        include/shop/cart.hpp: 9 definitions, 31 lines
        6-31 module: namespace shop
          9-17 class: class Item
            11-11 method: Item(std::string name, double price)
            12-12 method: double subtotal() const
          20-29 class: class Cart
            22-22 method: explicit Cart(std::string owner)
            23-23 method: Cart& add(const Item& item)
            24-24 method: virtual double total() const
            25-25 method: virtual ~Cart() = default
    "#]],
    );
    // main.cpp:8 `cart.add(…)`, `shop::Cart cart("ann")`: the out-of-line definition.
    check(
        "cpp_shop",
        "definition",
        json!({"path": "src/main.cpp", "line": "8", "column": "10"}),
        expect![[r#"
            definition of `add` at src/main.cpp:8:10: 1 resolved, 0 candidates
            src/cart.cpp:14: Cart& Cart::add(const Item& item) {  (definition, shop::Cart::add)
        "#]],
    );
    check(
        "cpp_shop",
        "callers",
        json!({"symbol": "pricing::apply_discount"}),
        expect![[r#"
        callers of function pricing::apply_discount (src/pricing.cpp:7): 1 resolved, 0 candidates
        src/cart.cpp:24: return pricing::apply_discount(raw, nullptr);  (call, shop::Cart::total)
    "#]],
    );
}

#[test]
fn csharp_outline_definition_and_references_across_namespaces() {
    check(
        "cs_shop",
        "outline",
        json!({"path": "src/Shop/Cart.cs"}),
        expect![[r#"
        src/Shop/Cart.cs: 6 definitions, 35 lines
        7-35 class: public partial class Cart
          9-9 constant: public const decimal TaxRate
          14-14 method: public Cart(string owner)
          17-17 constant: public string Owner
          20-24 method: public Cart Add(Item item)
          26-34 method: public virtual decimal Total()
    "#]],
    );
    // VipCart.cs:16 `return Total() - base.Total();`: the bare call is VipCart's own.
    check(
        "cs_shop",
        "definition",
        json!({"path": "src/Shop/VipCart.cs", "line": "16", "column": "16"}),
        expect![[r#"
            definition of `Total` at src/Shop/VipCart.cs:16:16: 1 resolved, 0 candidates
            src/Shop/VipCart.cs:9: public override decimal Total()  (definition, VipCart.Total)
        "#]],
    );
    // Checkout.cs:16 `line.Render(…)`: `Cart.Line line` makes the receiver evident.
    check(
        "cs_shop",
        "definition",
        json!({"path": "src/Shop/Checkout.cs", "line": "16", "column": "14"}),
        expect![[r#"
            definition of `Render` at src/Shop/Checkout.cs:16:14: 1 resolved, 0 candidates
            src/Shop/Cart.Receipt.cs:13: public string Render(Item item)  (definition, Cart.Line.Render)
        "#]],
    );
    check(
        "cs_shop",
        "references",
        json!({"symbol": "Cart.Total"}),
        expect![[r#"
            references to method Cart.Total (src/Shop/Cart.cs:26): 5 resolved, 1 candidate
            src/Shop/Cart.cs:26: public virtual decimal Total()  (definition, Cart.Total)
            src/Shop/Checkout.cs:20: return new Quote(owner, amount + other.Total());  (call, Checkout.Run)
            src/Shop/VipCart.cs:11: return base.Total() * 0.95m;  (call, VipCart.Total)
            src/Shop/VipCart.cs:16: return Total() - base.Total();  (call, VipCart.Saved)
            tests/Shop.Tests/CartTests.cs:13: Assert.Equal(2.4m, cart.Total());  (call, CartTests.TotalAddsTax)
            candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
            src/Shop/Checkout.cs:18: decimal amount = cart.Total() + D.ApplyDiscount(1.0m, null);  (call, Checkout.Run)
        "#]],
    );
    check(
        "cs_shop",
        "callers",
        json!({"symbol": "ApplyDiscount"}),
        expect![[r#"
        callers of method Discounts.ApplyDiscount (src/Shop/Pricing/Discounts.cs:16): 2 resolved, 0 candidates
        src/Shop/Cart.cs:33: return WithTax(Discounts.ApplyDiscount(raw, code));  (call, Cart.Total)
        src/Shop/Checkout.cs:18: decimal amount = cart.Total() + D.ApplyDiscount(1.0m, null);  (call, Checkout.Run)
    "#]],
    );
}

#[test]
fn kotlin_outline_definition_and_references_across_packages() {
    check(
        "kt_shop",
        "outline",
        json!({"path": "src/main/kotlin/shop/Cart.kt"}),
        expect![[r#"
        src/main/kotlin/shop/Cart.kt: 8 definitions, 37 lines
        6-37 class: open class Cart(val owner: String)
          11-14 method: fun add(item: Item): Cart
          16-22 method: open fun total(): Double
          24-24 method: private fun withTax(amount: Double): Double
          27-29 class: class Line
            28-28 method: fun render(item: Item): String
          32-32 constant: const val TAX_RATE
          35-35 method: fun create(owner: String): Cart
    "#]],
    );
    // VipCart.kt:9 `return total() - super.total()`: the bare call is VipCart's own.
    check(
        "kt_shop",
        "definition",
        json!({"path": "src/main/kotlin/shop/VipCart.kt", "line": "9", "column": "16"}),
        expect![[r#"
            definition of `total` at src/main/kotlin/shop/VipCart.kt:9:16: 1 resolved, 0 candidates
            src/main/kotlin/shop/VipCart.kt:4: override fun total(): Double {  (definition, VipCart.total)
        "#]],
    );
    // Checkout.kt:8 `Cart.create(owner)`: a companion object's function, reached through its class.
    check(
        "kt_shop",
        "definition",
        json!({"path": "src/main/kotlin/shop/Checkout.kt", "line": "8", "column": "25"}),
        expect![[r#"
            definition of `create` at src/main/kotlin/shop/Checkout.kt:8:25: 1 resolved, 0 candidates
            src/main/kotlin/shop/Cart.kt:35: fun create(owner: String): Cart = Cart(owner)  (definition, Cart.create)
        "#]],
    );
    check(
        "kt_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
        references to method Cart.total (src/main/kotlin/shop/Cart.kt:16): 5 resolved, 1 candidate
        src/main/kotlin/shop/Cart.kt:16: open fun total(): Double {  (definition, Cart.total)
        src/main/kotlin/shop/Checkout.kt:15: other.discounted() + D.percent(other.total(), 0.1)  (call, Checkout.quote)
        src/main/kotlin/shop/VipCart.kt:5: return super.total() * 0.95  (call, VipCart.total)
        src/main/kotlin/shop/VipCart.kt:9: return total() - super.total()  (call, VipCart.saved)
        src/test/kotlin/shop/CartTest.kt:11: assertEquals(2.4, cart.total())  (call, CartTest.totalAddsTax)
        candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
        src/main/kotlin/shop/Checkout.kt:14: return cart.total() + applyDiscount(1.0, null) + vip.saved() +  (call, Checkout.quote)
    "#]],
    );
    check(
        "kt_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
        callers of function applyDiscount (src/main/kotlin/shop/pricing/Pricing.kt:7): 2 resolved, 0 candidates
        src/main/kotlin/shop/Cart.kt:21: return withTax(applyDiscount(raw, code))  (call, Cart.total)
        src/main/kotlin/shop/Checkout.kt:14: return cart.total() + applyDiscount(1.0, null) + vip.saved() +  (call, Checkout.quote)
    "#]],
    );
    check(
        "kt_shop",
        "references",
        json!({"symbol": "Cart.discounted"}),
        expect![[r#"
            references to function Cart.discounted (src/main/kotlin/shop/VipCart.kt:14): 2 resolved, 0 candidates
            src/main/kotlin/shop/VipCart.kt:14: fun Cart.discounted(): Double = total() * 0.95  (definition, Cart.discounted)
            src/main/kotlin/shop/Checkout.kt:15: other.discounted() + D.percent(other.total(), 0.1)  (call, Checkout.quote)
        "#]],
    );
}

#[test]
fn swift_outline_definition_and_references_across_targets() {
    check(
        "swift_shop",
        "outline",
        json!({"path": "Sources/Shop/VipCart.swift"}),
        expect![[r#"
        Sources/Shop/VipCart.swift: 4 definitions, 20 lines
        2-20 class: public final class VipCart: Cart, Priced
          7-9 method: public override func total() -> Int
          12-15 method: public func saved() -> Int
          17-19 method: public func price() -> Int
    "#]],
    );
    // CartTests.swift:21 `vip.saved()`: `vip` is `VipCart()`, a type of the imported target.
    check(
        "swift_shop",
        "definition",
        json!({"path": "Tests/ShopTests/CartTests.swift", "line": "21", "column": "28"}),
        expect![[r#"
            definition of `saved` at Tests/ShopTests/CartTests.swift:21:28: 1 resolved, 0 candidates
            Sources/Shop/VipCart.swift:12: public func saved() -> Int {  (definition, VipCart.saved)
        "#]],
    );
    // VipCart.swift:18 `self.total()`: `self` is the VipCart around it.
    check(
        "swift_shop",
        "definition",
        json!({"path": "Sources/Shop/VipCart.swift", "line": "18", "column": "14"}),
        expect![[r#"
            definition of `total` at Sources/Shop/VipCart.swift:18:14: 1 resolved, 0 candidates
            Sources/Shop/VipCart.swift:7: public override func total() -> Int {  (definition, VipCart.total)
        "#]],
    );
    // Pricing.swift:25 `Cart.taxPercent`: a type's `static let`.
    check(
        "swift_shop",
        "definition",
        json!({"path": "Sources/Shop/Pricing.swift", "line": "25", "column": "28"}),
        expect![[r#"
            definition of `taxPercent` at Sources/Shop/Pricing.swift:25:28: 1 resolved, 0 candidates
            Sources/Shop/Cart.swift:4: public static let taxPercent = 20  (definition, Cart.taxPercent)
        "#]],
    );
    check(
        "swift_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
        references to method Cart.total (Sources/Shop/Cart.swift:21): 6 resolved, 0 candidates
        Sources/Shop/Cart.swift:21: open func total() -> Int {  (definition, Cart.total)
        Sources/Shop/Ledger.swift:7: let amount = cart.total()  (call, Ledger.record)
        Sources/Shop/VipCart.swift:8: return super.total() * 95 / 100  (call, VipCart.total)
        Sources/Shop/VipCart.swift:13: let plain = super.total()  (call, VipCart.saved)
        Tests/ShopTests/CartTests.swift:8: XCTAssertEqual(cart.total(), 240)  (call, CartTests.testTotalAddsTax)
        Tests/ShopTests/CartTests.swift:14: XCTAssertEqual(cart.total(), 1080)  (call, CartTests.testDiscountIsTakenOff)
    "#]],
    );
    check(
        "swift_shop",
        "references",
        json!({"symbol": "Cart.discounted"}),
        expect![[r#"
        references to method Cart.discounted (Sources/Shop/Cart+Discount.swift:3): 2 resolved, 0 candidates
        Sources/Shop/Cart+Discount.swift:3: public func discounted(by code: DiscountCode) -> Int {  (definition, Cart.discounted)
        Tests/ShopTests/CartTests.swift:15: XCTAssertEqual(cart.discounted(by: .half), 600)  (call, CartTests.testDiscountIsTakenOff)
    "#]],
    );
    check(
        "swift_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
        callers of function applyDiscount (Sources/Shop/Pricing.swift:16): 3 resolved, 0 candidates
        Sources/Shop/Cart+Discount.swift:5: return withTax(applyDiscount(raw, code: code))  (call, Cart.discounted)
        Sources/Shop/Cart.swift:26: return withTax(applyDiscount(raw, code: code))  (call, Cart.total)
        Tests/ShopTests/CartTests.swift:22: XCTAssertEqual(applyDiscount(100, code: nil), 100)  (call, CartTests.testVipSaves)
    "#]],
    );
}

#[test]
fn bash_outline_definition_and_references_across_sourced_files() {
    check(
        "sh_shop",
        "outline",
        json!({"path": "lib/cart.sh"}),
        expect![[r#"
        lib/cart.sh: 3 definitions, 27 lines
        10-12 function: cart_add()
        15-22 function: cart_total()
        25-27 function: cart_clear()
    "#]],
    );
    // bin/shop.sh:20 `vip_cart_total "$code"`: a function of another file.
    check(
        "sh_shop",
        "definition",
        json!({"path": "bin/shop.sh", "line": "20", "column": "9"}),
        expect![[r#"
        definition of `vip_cart_total` at bin/shop.sh:20:9: 1 resolved, 0 candidates
        lib/vip_cart.sh:7: vip_cart_total() {  (definition, vip_cart_total)
    "#]],
    );
    check(
        "sh_shop",
        "references",
        json!({"symbol": "cart_total"}),
        expect![[r#"
        references to function cart_total (lib/cart.sh:15): 6 resolved, 0 candidates
        lib/cart.sh:15: cart_total() {  (definition, cart_total)
        bin/shop.sh:22: cart_total "$code"  (call, main)
        lib/vip_cart.sh:9: base=$(cart_total "$@")  (call, vip_cart_total)
        lib/vip_cart.sh:16: plain=$(cart_total "$@")  (call, vip_cart_saved)
        test/test_cart.sh:20: assert_eq "$(cart_total)" 240  (call, test_total_adds_tax)
        test/test_cart.sh:26: assert_eq "$(cart_total SAVE10)" 1080  (call, test_total_applies_discount)
    "#]],
    );
    check(
        "sh_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
        callers of function apply_discount (lib/pricing.sh:17): 2 resolved, 0 candidates
        bin/shop.sh:24: echo "discounted: $(apply_discount 1000 "$code")"  (call, main)
        lib/cart.sh:21: with_tax "$(apply_discount "$raw" "$code")"  (call, cart_total)
    "#]],
    );
}

#[test]
fn ruby_outline_definition_and_references_across_reopened_classes_and_mixins() {
    check(
        "rb_shop",
        "outline",
        json!({"path": "lib/shop/cart.rb"}),
        expect![[r#"
        lib/shop/cart.rb: 6 definitions, 36 lines
        7-36 module: module Shop
          9-35 class: class Cart
            15-17 method: def self.create(owner)
            19-23 method: def initialize(owner, code = nil)
            26-29 method: def add(item)
            31-34 method: def total
    "#]],
    );
    // checkout.rb:11 `cart.total`, `cart = Cart.new(owner)`: Shop::Cart's own method.
    check(
        "rb_shop",
        "definition",
        json!({"path": "lib/shop/checkout.rb", "line": "11", "column": "12"}),
        expect![[r#"
            definition of `total` at lib/shop/checkout.rb:11:12: 1 resolved, 0 candidates
            lib/shop/cart.rb:31: def total  (definition, Shop::Cart::total)
        "#]],
    );
    // cart.rb:33 `with_tax(…)`, called bare: the method of the module Cart includes.
    check(
        "rb_shop",
        "definition",
        json!({"path": "lib/shop/cart.rb", "line": "33", "column": "7"}),
        expect![[r#"
            definition of `with_tax` at lib/shop/cart.rb:33:7: 1 resolved, 0 candidates
            lib/shop/taxable.rb:9: def with_tax(amount)  (definition, Shop::Taxable::with_tax)
        "#]],
    );
    // The bare `total` in receipt.rb is in Cart reopened; vip_cart.rb's bare one is VipCart's.
    check(
        "rb_shop",
        "references",
        json!({"symbol": "Shop::Cart::total"}),
        expect![[r#"
        references to method Shop::Cart::total (lib/shop/cart.rb:31): 5 resolved, 0 candidates
        lib/shop/cart.rb:31: def total  (definition, Shop::Cart::total)
        lib/shop/checkout.rb:11: cart.total + Pricing.apply_discount(1.0, nil)  (call, Shop::Checkout::quote)
        lib/shop/receipt.rb:8: lines << "total: #{total}"  (reference, Shop::Cart::receipt)
        lib/shop/vip_cart.rb:13: Cart.new(owner).total - total  (call, Shop::VipCart::saved)
        test/cart_test.rb:10: assert_in_delta 2.4, cart.total  (call, CartTest::test_total_adds_tax)
    "#]],
    );
    check(
        "rb_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
        callers of method Shop::Pricing::apply_discount (lib/shop/pricing.rb:9): 2 resolved, 0 candidates
        lib/shop/cart.rb:33: with_tax(Pricing.apply_discount(raw, code))  (call, Shop::Cart::total)
        lib/shop/checkout.rb:11: cart.total + Pricing.apply_discount(1.0, nil)  (call, Shop::Checkout::quote)
    "#]],
    );
    // checkout.rb:15 `cart.receipt`: a parameter, of no evident type, so a candidate.
    check(
        "rb_shop",
        "references",
        json!({"symbol": "Shop::Cart::receipt"}),
        expect![[r#"
        references to method Shop::Cart::receipt (lib/shop/receipt.rb:6): 1 resolved, 1 candidate
        lib/shop/receipt.rb:6: def receipt  (definition, Shop::Cart::receipt)
        candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
        lib/shop/checkout.rb:15: cart.receipt  (call, Shop::Checkout::receipt_for)
    "#]],
    );
}

#[test]
fn php_outline_definition_and_references_across_namespaces() {
    check(
        "php_shop",
        "outline",
        json!({"path": "src/Shop/Cart.php"}),
        expect![[r#"
        src/Shop/Cart.php: 6 definitions, 42 lines
        8-42 class: class Cart
          12-12 constant: TAX_RATE = 0.2
          17-19 method: public function __construct(private string $owner, private ?string $code = null)
          22-25 method: public static function create(string $owner): static
          28-32 method: public function add(Item $item): self
          34-41 method: public function total(): float
    "#]],
    );
    // Checkout.php:15 `$cart->total()`, `$cart = new Cart($owner)` with `Cart` from a grouped use.
    check(
        "php_shop",
        "definition",
        json!({"path": "src/Checkout.php", "line": "15", "column": "23"}),
        expect![[r#"
            definition of `total` at src/Checkout.php:15:23: 1 resolved, 0 candidates
            src/Shop/Cart.php:34: public function total(): float  (definition, Cart::total)
        "#]],
    );
    // VipCart.php:10 `parent::total()`: the base's.
    check(
        "php_shop",
        "definition",
        json!({"path": "src/Shop/VipCart.php", "line": "10", "column": "24"}),
        expect![[r#"
            definition of `total` at src/Shop/VipCart.php:10:24: 1 resolved, 0 candidates
            src/Shop/Cart.php:34: public function total(): float  (definition, Cart::total)
        "#]],
    );
    // Cart.php:40 `$this->withTax(…)`: the method of the trait Cart uses.
    check(
        "php_shop",
        "definition",
        json!({"path": "src/Shop/Cart.php", "line": "40", "column": "23"}),
        expect![[r#"
            definition of `withTax` at src/Shop/Cart.php:40:23: 1 resolved, 0 candidates
            src/Shop/Taxable.php:9: protected function withTax(float $amount): float  (definition, Taxable::withTax)
        "#]],
    );
    // By the name PHP writes, namespace included.
    check(
        "php_shop",
        "references",
        json!({"symbol": "App\\Shop\\Cart::total"}),
        expect![[r#"
            references to method Cart::total (src/Shop/Cart.php:34): 5 resolved, 1 candidate
            src/Shop/Cart.php:34: public function total(): float  (definition, Cart::total)
            src/Checkout.php:15: return $cart->total() + Pricing\applyDiscount(1.0, null);  (call, Checkout::quote)
            src/Shop/VipCart.php:10: return parent::total() * 0.95;  (call, VipCart::total)
            src/Shop/VipCart.php:15: return parent::total() - $this->total();  (call, VipCart::saved)
            tests/CartTest.php:15: $this->assertEqualsWithDelta(2.4, $cart->total(), 0.001);  (call, CartTest::testTotalAddsTax)
            candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
            tests/CartTest.php:20: $this->assertSame(0.0, Cart::create('bo')->total());  (call, CartTest::testCreateMakesAnEmptyCart)
        "#]],
    );
    check(
        "php_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
            callers of function applyDiscount (src/Pricing/functions.php:12): 2 resolved, 0 candidates
            src/Checkout.php:15: return $cart->total() + Pricing\applyDiscount(1.0, null);  (call, Checkout::quote)
            src/Shop/Cart.php:40: return $this->withTax(applyDiscount($raw, $this->code));  (call, Cart::total)
        "#]],
    );
    // Checkout.php:26 `$vip->saved()`: `Vip $vip`, an aliased use.
    check(
        "php_shop",
        "references",
        json!({"symbol": "saved"}),
        expect![[r#"
            references to method VipCart::saved (src/Shop/VipCart.php:13): 2 resolved, 0 candidates
            src/Shop/VipCart.php:13: public function saved(): float  (definition, VipCart::saved)
            src/Checkout.php:26: return $vip->saved();  (call, Checkout::savedBy)
        "#]],
    );
}

#[test]
fn lua_outline_definition_and_references_across_required_modules() {
    check(
        "lua_shop",
        "outline",
        json!({"path": "lua/shop/cart.lua"}),
        expect![[r#"
        lua/shop/cart.lua: 4 definitions, 32 lines
        5-5 class: local Cart = {
        9-14 function: function Cart.new(owner)
        17-21 method: function Cart:add(name, price, quantity)
        24-30 method: function Cart:total(code)
    "#]],
    );
    // checkout.lua:12 `cart:add(…)`, `local cart = Cart.new(owner)`: Cart's method, through the
    // table `require("shop.cart")` returns.
    check(
        "lua_shop",
        "definition",
        json!({"path": "lua/shop/checkout.lua", "line": "12", "column": "8"}),
        expect![[r#"
            definition of `add` at lua/shop/checkout.lua:12:8: 1 resolved, 0 candidates
            lua/shop/cart.lua:17: function Cart:add(name, price, quantity)  (definition, Cart.add)
        "#]],
    );
    // checkout.lua:6 `format_price(…)`: a global of the file a bare `require` loads.
    check(
        "lua_shop",
        "definition",
        json!({"path": "lua/shop/checkout.lua", "line": "6", "column": "36"}),
        expect![[r#"
            definition of `format_price` at lua/shop/checkout.lua:6:36: 1 resolved, 0 candidates
            lua/shop/format.lua:4: function format_price(amount)  (definition, format_price)
        "#]],
    );
    check(
        "lua_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
        references to method Cart.total (lua/shop/cart.lua:24): 2 resolved, 1 candidate
        lua/shop/cart.lua:24: function Cart:total(code)  (definition, Cart.total)
        spec/cart_spec.lua:8: assert.are.equal(12, cart:total())  (call, <module>)
        candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
        lua/shop/checkout.lua:6: return cart.owner .. " pays " .. format_price(cart:total(code))  (call, receipt)
    "#]],
    );
    check(
        "lua_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
        callers of function M.apply_discount (lua/shop/pricing.lua:7): 2 resolved, 0 candidates
        lua/shop/cart.lua:29: return pricing.with_tax(pricing.apply_discount(sum, code))  (call, Cart.total)
        spec/cart_spec.lua:12: assert.are.equal(5, pricing.apply_discount(10, "HALF"))  (call, <module>)
    "#]],
    );
}

#[test]
fn elixir_outline_definition_and_references_across_aliases_and_imports() {
    check(
        "ex_shop",
        "outline",
        json!({"path": "lib/shop/cart.ex"}),
        expect![[r#"
            lib/shop/cart.ex: 4 definitions, 25 lines
            1-25 module: defmodule Shop.Cart
              11-11 function: def new(owner)
              14-16 function: def add(%__MODULE__{items: items} = cart, %Item{} = item)
              19-24 function: def total(%__MODULE__{items: items}, code \\ nil)
        "#]],
    );
    // cart.ex:23 `Pricing.apply_discount(code)`, `Pricing` from `alias Shop.{Item, Pricing}`:
    // the function of two clauses in pricing.ex, one definition.
    check(
        "ex_shop",
        "definition",
        json!({"path": "lib/shop/cart.ex", "line": "23", "column": "16"}),
        expect![[r#"
            definition of `apply_discount` at lib/shop/cart.ex:23:16: 1 resolved, 0 candidates
            lib/shop/pricing.ex:10: def apply_discount(amount, nil), do: amount  (definition, Shop.Pricing.apply_discount)
        "#]],
    );
    // cart.ex:21 `&Item.subtotal/1`, a function captured through the same alias.
    check(
        "ex_shop",
        "definition",
        json!({"path": "lib/shop/cart.ex", "line": "21", "column": "23"}),
        expect![[r#"
            definition of `subtotal` at lib/shop/cart.ex:21:23: 1 resolved, 0 candidates
            lib/shop/item.ex:12: def subtotal(%__MODULE__{price: price, quantity: quantity}), do: price * quantity  (definition, Shop.Item.subtotal)
        "#]],
    );
    // checkout.ex:15 `apply_discount(…)`, called bare through `import Shop.Pricing`.
    check(
        "ex_shop",
        "definition",
        json!({"path": "lib/shop/checkout.ex", "line": "15", "column": "32"}),
        expect![[r#"
            definition of `apply_discount` at lib/shop/checkout.ex:15:32: 1 resolved, 0 candidates
            lib/shop/pricing.ex:10: def apply_discount(amount, nil), do: amount  (definition, Shop.Pricing.apply_discount)
        "#]],
    );
    // cart_test.exs:8 `Cart.new("ann")`: the module `alias Shop.{Cart, Item}` names.
    check(
        "ex_shop",
        "definition",
        json!({"path": "test/cart_test.exs", "line": "8", "column": "7"}),
        expect![[r#"
            definition of `Cart` at test/cart_test.exs:8:7: 1 resolved, 0 candidates
            lib/shop/cart.ex:1: defmodule Shop.Cart do  (definition, Shop.Cart)
        "#]],
    );
    // checkout.ex:10 `C.total(cart, code)`, through `alias Shop.Cart, as: C`.
    check(
        "ex_shop",
        "definition",
        json!({"path": "lib/shop/checkout.ex", "line": "10", "column": "16"}),
        expect![[r#"
            definition of `total` at lib/shop/checkout.ex:10:16: 1 resolved, 0 candidates
            lib/shop/cart.ex:19: def total(%__MODULE__{items: items}, code \\ nil) do  (definition, Shop.Cart.total)
        "#]],
    );
    check(
        "ex_shop",
        "references",
        json!({"symbol": "Shop.Cart.total"}),
        expect![[r#"
            references to function Shop.Cart.total (lib/shop/cart.ex:19): 4 resolved, 0 candidates
            lib/shop/cart.ex:19: def total(%__MODULE__{items: items}, code \\ nil) do  (definition, Shop.Cart.total)
            lib/shop/checkout.ex:10: amount = C.total(cart, code)  (call, Shop.Checkout.receipt)
            test/cart_test.exs:11: assert Cart.total(cart) == 200  (call, Shop.CartTest)
            test/cart_test.exs:12: assert Cart.total(cart, "SAVE10") == 180  (call, Shop.CartTest)
        "#]],
    );
    // The module by its short name wherever an alias or its path names it.
    check(
        "ex_shop",
        "references",
        json!({"symbol": "Shop.Pricing"}),
        expect![[r#"
            references to module Shop.Pricing (lib/shop/pricing.ex:1): 4 resolved, 0 candidates
            lib/shop/pricing.ex:1: defmodule Shop.Pricing do  (definition, Shop.Pricing)
            lib/shop/cart.ex:6: alias Shop.{Item, Pricing}  (import, Shop.Cart)
            lib/shop/cart.ex:23: |> Pricing.apply_discount(code)  (reference, Shop.Cart.total)
            lib/shop/checkout.ex:5: import Shop.Pricing, only: [apply_discount: 2]  (import, Shop.Checkout)
        "#]],
    );
    // The call through `alias`, the bare one through `import`; a `@spec` names the function as
    // a call does.
    check(
        "ex_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
            callers of function Shop.Pricing.apply_discount (lib/shop/pricing.ex:10): 3 resolved, 0 candidates
            lib/shop/cart.ex:23: |> Pricing.apply_discount(code)  (call, Shop.Cart.total)
            lib/shop/checkout.ex:15: def quote_price(amount), do: apply_discount(amount, "SAVE10")  (call, Shop.Checkout.quote_price)
            lib/shop/pricing.ex:9: @spec apply_discount(number, String.t() | nil) :: number  (call, Shop.Pricing)
        "#]],
    );
}

#[test]
fn zig_outline_definition_and_references_across_imported_files() {
    check(
        "zig_shop",
        "outline",
        json!({"path": "src/cart.zig"}),
        expect![[r#"
            src/cart.zig: 7 definitions, 38 lines
            7-33 class: pub const Cart = struct
              8-8 constant: const Self = @This()
              9-9 constant: pub const capacity = 8
              15-17 method: pub fn init() Self
              20-23 method: pub fn add(self: *Self, item: Item) void
              26-32 method: pub fn total(self: *const Self, percent: u32) u32
            35-38 function: test "an empty cart costs nothing"
        "#]],
    );
    // checkout.zig:17 `cart.total(…)`, `var cart = shop.Cart.init()` with `shop` the imported
    // cart.zig and `init` returning `Self` (`@This()`): Cart's own method.
    check(
        "zig_shop",
        "definition",
        json!({"path": "src/checkout.zig", "line": "17", "column": "17"}),
        expect![[r#"
            definition of `total` at src/checkout.zig:17:17: 1 resolved, 0 candidates
            src/cart.zig:26: pub fn total(self: *const Self, percent: u32) u32 {  (definition, Cart.total)
        "#]],
    );
    // cart.zig:31 `pricing.apply_discount(…)`: a function of the file `@import("pricing.zig")`.
    check(
        "zig_shop",
        "definition",
        json!({"path": "src/cart.zig", "line": "31", "column": "24"}),
        expect![[r#"
            definition of `apply_discount` at src/cart.zig:31:24: 1 resolved, 0 candidates
            src/pricing.zig:7: pub fn apply_discount(amount: u32, percent: u32) u32 {  (definition, apply_discount)
        "#]],
    );
    check(
        "zig_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
            references to method Cart.total (src/cart.zig:26): 5 resolved, 0 candidates
            src/cart.zig:26: pub fn total(self: *const Self, percent: u32) u32 {  (definition, Cart.total)
            src/cart.zig:37: try std.testing.expectEqual(@as(u32, 0), cart.total(0));  (call, an empty cart costs nothing)
            src/cart_test.zig:10: try std.testing.expectEqual(@as(u32, 600), cart.total(0));  (call, total sums the subtotals)
            src/cart_test.zig:16: try std.testing.expectEqual(pricing.apply_discount(1000, 10), cart.total(10));  (call, a discount comes off the total)
            src/checkout.zig:17: return cart.total(discount_for(code));  (call, checkout)
        "#]],
    );
    check(
        "zig_shop",
        "callers",
        json!({"symbol": "apply_discount"}),
        expect![[r#"
            callers of function apply_discount (src/pricing.zig:7): 2 resolved, 0 candidates
            src/cart.zig:31: return pricing.apply_discount(sum, percent);  (call, Cart.total)
            src/cart_test.zig:16: try std.testing.expectEqual(pricing.apply_discount(1000, 10), cart.total(10));  (call, a discount comes off the total)
        "#]],
    );
    // main.zig:11 `checkout.checkout(…)`: the function `checkout` of the file imported as
    // `checkout`.
    check(
        "zig_shop",
        "definition",
        json!({"path": "src/main.zig", "line": "11", "column": "46"}),
        expect![[r#"
            definition of `checkout` at src/main.zig:11:46: 1 resolved, 0 candidates
            src/checkout.zig:12: pub fn checkout(items: []const Item, code: []const u8) u32 {  (definition, checkout)
        "#]],
    );
    // cart.zig:29 `item.subtotal()`: a `for` payload over `self.items`, a `[capacity]Item`;
    // checkout.zig:22 `line.subtotal()`: an `anytype` parameter, so a candidate.
    check(
        "zig_shop",
        "references",
        json!({"symbol": "Item.subtotal"}),
        expect![[r#"
            references to method Item.subtotal (src/item.zig:10): 2 resolved, 1 candidate
            src/item.zig:10: pub fn subtotal(self: Item) u32 {  (definition, Item.subtotal)
            src/cart.zig:29: sum += item.subtotal();  (call, Cart.total)
            candidates (same name, not resolved: the receiver's type is unknown to tack, check before relying on them):
            src/checkout.zig:22: return line.subtotal();  (call, line_total)
        "#]],
    );
}

#[test]
fn scala_outline_definition_and_references_across_packages_and_companions() {
    check(
        "scala_shop",
        "outline",
        json!({"path": "src/main/scala/shop/Cart.scala"}),
        expect![[r#"
            src/main/scala/shop/Cart.scala: 8 definitions, 32 lines
            6-24 class: class Cart(val owner: String) extends Priced with Serializable
              10-13 method: def add(item: Item): Cart
              16-19 method: def total(code: String): Double
              21-21 method: def subtotal: Double
              23-23 method: private def withTax(amount: Double): Double
            27-32 class: object Cart
              28-28 constant: val TaxRate
              31-31 method: def empty(owner: String): Cart
        "#]],
    );
    // Checkout.scala:9 `Cart.empty(owner)`: the companion object's method.
    check(
        "scala_shop",
        "definition",
        json!({"path": "src/main/scala/shop/Checkout.scala", "line": "9", "column": "21"}),
        expect![[r#"
            definition of `empty` at src/main/scala/shop/Checkout.scala:9:21: 1 resolved, 0 candidates
            src/main/scala/shop/Cart.scala:31: def empty(owner: String): Cart = new Cart(owner)  (definition, Cart.empty)
        "#]],
    );
    // Checkout.scala:14 `D.percent(…)`, `D` the renamed `Discount` of `import shop.pricing.{Discount => D, …}`.
    check(
        "scala_shop",
        "definition",
        json!({"path": "src/main/scala/shop/Checkout.scala", "line": "14", "column": "29"}),
        expect![[r#"
            definition of `percent` at src/main/scala/shop/Checkout.scala:14:29: 1 resolved, 0 candidates
            src/main/scala/shop/pricing/Pricing.scala:14: def percent(amount: Double, rate: Double): Double = amount * (1 - rate)  (definition, Discount.percent)
        "#]],
    );
    check(
        "scala_shop",
        "references",
        json!({"symbol": "Cart.total"}),
        expect![[r#"
        references to method Cart.total (src/main/scala/shop/Cart.scala:16): 6 resolved, 0 candidates
        src/main/scala/shop/Cart.scala:16: def total(code: String): Double = {  (definition, Cart.total)
        src/main/scala/shop/Cart.scala:21: def subtotal: Double = total("")  (call, Cart.subtotal)
        src/main/scala/shop/Checkout.scala:13: val due = cart.total(Welcome) + vip.saved("")  (call, Checkout.receipt)
        src/main/scala/shop/VipCart.scala:5: override def total(code: String): Double = super.total(code) * 0.9  (call, VipCart.total)
        src/main/scala/shop/VipCart.scala:7: def saved(code: String): Double = super.total(code) - total(code)  (call, VipCart.saved)
        src/test/scala/shop/CartSuite.scala:7: assertEquals(cart.total(""), 3.0)  (call, CartSuite)
    "#]],
    );
    check(
        "scala_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
        callers of function applyDiscount (src/main/scala/shop/pricing/Pricing.scala:8): 2 resolved, 0 candidates
        src/main/scala/shop/Cart.scala:18: withTax(applyDiscount(sum, code))  (call, Cart.total)
        src/main/scala/shop/Checkout.scala:14: s"$owner owes $due, ${D.percent(due, 0.5)} at half price, ${applyDiscount(due, "")} plain"  (call, Checkout.receipt)
    "#]],
    );
}

#[test]
fn haskell_outline_definition_and_references_across_imported_modules() {
    check(
        "hs_shop",
        "outline",
        json!({"path": "src/Shop/Cart.hs"}),
        expect![[r#"
        src/Shop/Cart.hs: 12 definitions, 44 lines
        2-8 module: module Shop.Cart
        14-18 class: data Cart
          14-17 function: Cart { owner :: String , items :: [Item] }
            15-15 function: owner :: String
            16-16 function: items :: [Item]
        21-23 interface: class Priced a
          23-23 method: priceOf :: a -> Int
        26-26 method: priceOf
        29-29 method: priceOf
        32-33 function: empty :: String -> Cart
        36-37 function: add :: Item -> Cart -> Cart
        40-44 function: total :: P.Discount -> Cart -> Int
    "#]],
    );
    // Cart.hs:41 `P.applyDiscount`, `import qualified Shop.Pricing as P`: Shop.Pricing's function.
    check(
        "hs_shop",
        "definition",
        json!({"path": "src/Shop/Cart.hs", "line": "41", "column": "36"}),
        expect![[r#"
            definition of `applyDiscount` at src/Shop/Cart.hs:41:36: 1 resolved, 0 candidates
            src/Shop/Pricing.hs:13: applyDiscount :: Discount -> Int -> Int  (definition, applyDiscount)
        "#]],
    );
    // Main.hs:10 `add`, `import Shop.Cart (add, empty, total)`.
    check(
        "hs_shop",
        "definition",
        json!({"path": "app/Main.hs", "line": "10", "column": "14"}),
        expect![[r#"
            definition of `add` at app/Main.hs:10:14: 1 resolved, 0 candidates
            src/Shop/Cart.hs:36: add :: Item -> Cart -> Cart  (definition, add)
        "#]],
    );
    // CartSpec.hs:13 `priceOf cart`: the class method `Shop.Cart` exports with `Priced (..)`.
    check(
        "hs_shop",
        "definition",
        json!({"path": "test/CartSpec.hs", "line": "13", "column": "19"}),
        expect![[r#"
            definition of `priceOf` at test/CartSpec.hs:13:19: 1 resolved, 0 candidates
            src/Shop/Cart.hs:23: priceOf :: a -> Int  (definition, Priced.priceOf)
        "#]],
    );
    check(
        "hs_shop",
        "references",
        json!({"symbol": "total"}),
        expect![[r#"
        references to function total (src/Shop/Cart.hs:40): 6 resolved, 0 candidates
        src/Shop/Cart.hs:40: total :: P.Discount -> Cart -> Int  (definition, total)
        app/Main.hs:3: import Shop.Cart (add, empty, total)  (import, <module>)
        app/Main.hs:11: bill = total (Percent 10) cart  (call, main)
        src/Shop/Cart.hs:7: , total  (reference, Shop.Cart)
        src/Shop/Cart.hs:29: priceOf = total P.NoDiscount  (call, Cart.priceOf)
        test/CartSpec.hs:11: check "total" (total NoDiscount cart == 120)  (call, main)
    "#]],
    );
    check(
        "hs_shop",
        "callers",
        json!({"symbol": "applyDiscount"}),
        expect![[r#"
        callers of function applyDiscount (src/Shop/Pricing.hs:13): 2 resolved, 0 candidates
        src/Shop/Cart.hs:41: total discount cart = P.withTax (P.applyDiscount discount sum')  (call, total)
        test/CartSpec.hs:12: check "discount" (applyDiscount (Percent 50) 100 == 50)  (call, main)
    "#]],
    );
}

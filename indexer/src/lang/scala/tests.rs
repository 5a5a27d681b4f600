//! Scala's tests: definitions, imports and name resolution on `fixtures/scala_shop`, and inputs
//! that must finish (deep nesting, an alias chain, an import cycle).

use super::*;
use crate::snapshot::Snapshot;
use crate::test_support::{entry, resolve_at as resolve};

const ITEM: &str = include_str!("../../../../fixtures/scala_shop/src/main/scala/shop/Item.scala");
const CART: &str = include_str!("../../../../fixtures/scala_shop/src/main/scala/shop/Cart.scala");
const PRICING: &str =
    include_str!("../../../../fixtures/scala_shop/src/main/scala/shop/pricing/Pricing.scala");
const VIP: &str = include_str!("../../../../fixtures/scala_shop/src/main/scala/shop/VipCart.scala");
const CHECKOUT: &str = include_str!("../../../../fixtures/scala_shop/src/main/scala/shop/Checkout.scala");
const TEST: &str = include_str!("../../../../fixtures/scala_shop/src/test/scala/shop/CartSuite.scala");

const SHOP: &[(&str, &str)] = &[
    ("src/main/scala/shop/Item.scala", ITEM),
    ("src/main/scala/shop/Cart.scala", CART),
    ("src/main/scala/shop/pricing/Pricing.scala", PRICING),
    ("src/main/scala/shop/VipCart.scala", VIP),
    ("src/main/scala/shop/Checkout.scala", CHECKOUT),
    ("src/test/scala/shop/CartSuite.scala", TEST),
];

/// Each definition: kind, qualified name, lines, signature and doc's first line.
fn defs(src: &str) -> String {
    crate::test_support::def_listing(Lang::Scala, src)
}

fn imports(src: &str) -> String {
    crate::test_support::import_listing(Lang::Scala, src)
}

#[test]
fn definitions_kinds_members_signatures_and_docs() {
    expect_test::expect![[r#"
        interface Priced 4-6 | trait Priced  // Anything with a price.
        method Priced.subtotal 5-5 | def subtotal: Double
        class Item 9-11 | case class Item(name: String, price: Double, category: Category) extends Priced  // One product at its unit price.
        method Item.subtotal 10-10 | def subtotal: Double
        enum Category 14-16 | enum Category  // What kind of product an item is.
        constant Category.Food 15-15 | Food
        constant Category.Drink 15-15 | Drink
        class Cart 6-24 | class Cart(val owner: String) extends Priced with Serializable  // A customer's basket.
        method Cart.add 10-13 | def add(item: Item): Cart  // Puts an item in the cart.
        method Cart.total 16-19 | def total(code: String): Double  // The sum of the items' prices, with the code's discount.
        method Cart.subtotal 21-21 | def subtotal: Double
        method Cart.withTax 23-23 | private def withTax(amount: Double): Double
        class Cart 27-32 | object Cart  // Carts made ready to fill.
        constant Cart.TaxRate 28-28 | val TaxRate
        method Cart.empty 31-31 | def empty(owner: String): Cart  // An empty cart for an owner.
        constant Welcome 5-5 | val Welcome  // The discount codes the shop knows.
        function applyDiscount 8-10 | def applyDiscount(amount: Double, code: String): Double  // Takes a discount code off an amount; unknown codes change nothing.
        class Discount 13-15 | object Discount  // Discounts by rate.
        method Discount.percent 14-14 | def percent(amount: Double, rate: Double): Double
        class VipCart 4-8 | class VipCart(owner: String) extends Cart(owner)  // A cart whose owner pays less.
        method VipCart.total 5-5 | override def total(code: String): Double
        method VipCart.saved 7-7 | def saved(code: String): Double
    "#]].assert_eq(&(defs(ITEM) + &defs(CART) + &defs(PRICING) + &defs(VIP)));
}

#[test]
fn braceless_bodies_givens_extensions_package_objects_and_enum_cases() {
    let src = "package shop\n\npackage object util:\n  type Price = Double\n  given ord: Ordering[Int] = Ordering.Int\n\n\
               /** Rounds. */\ndef round(x: Double): Double =\n  x.floor\n\n/** Taxes. */\nobject Tax:\n  val Rate = 0.2\n\n\
               extension (c: Cart) def discounted: Double = c.total(\"\")\n\n\
               enum Size(val cm: Int):\n  case Small extends Size(1)\n  case Custom(n: Int) extends Size(n)\n";
    expect_test::expect![[r#"
        module util 3-5 | package object util
        type util.Price 4-4 | type Price = Double
        constant util.ord 5-5 | given ord: Ordering[Int]
        function round 8-9 | def round(x: Double): Double  // Rounds.
        class Tax 12-15 | object Tax  // Taxes.
        constant Tax.Rate 13-13 | val Rate
        function Cart.discounted 15-15 | def discounted: Double
        enum Size 17-20 | enum Size(val cm: Int)
        constant Size.Small 18-18 | Small extends Size(1)
        constant Size.Custom 19-19 | Custom(n: Int) extends Size(n)
    "#]]
    .assert_eq(&defs(src));
}

#[test]
fn packages_and_imports_decode() {
    let more =
        "package a\npackage b\nimport x.y.{C => D, E => _, F, given}\nimport x.G as H, z.K\nimport w._\n";
    expect_test::expect![[r#"
        1: module=shop item=- bound=- alias=false glob=true
        2: module=shop.pricing item=- bound=- alias=true glob=true
        1: module=shop item=- bound=- alias=true glob=true
        3: module=shop.pricing item=- bound=- alias=false glob=true
        4: module=shop.pricing item=Discount bound=D alias=true glob=false
        4: module=shop.pricing item=applyDiscount bound=applyDiscount alias=false glob=false
        1: module=a item=- bound=- alias=false glob=true
        2: module=a.b item=- bound=- alias=true glob=true
        3: module=x.y item=C bound=D alias=true glob=false
        3: module=x.y item=F bound=F alias=false glob=false
        3: module=x.y item=- bound=- alias=false glob=true
        4: module=x item=G bound=H alias=true glob=false
        4: module=z item=K bound=K alias=false glob=false
        5: module=w item=- bound=- alias=false glob=true
    "#]]
    .assert_eq(&(imports(PRICING) + &imports(CHECKOUT) + &imports(more)));
}

#[test]
fn return_types_and_type_hints() {
    assert_eq!(Scala.return_type("def empty(owner: String): Cart"), Some("Cart"));
    assert_eq!(Scala.return_type("def subtotal: Double"), Some("Double"));
    assert_eq!(Scala.return_type("def pick[T](f: Int => T): List[T]"), Some("List[T]"));
    assert_eq!(Scala.return_type("def add(item: Item)"), None);
    assert_eq!(Scala.type_hint("List[Item]").as_deref(), Some("List"));
    assert_eq!(Scala.type_hint("shop.Cart").as_deref(), Some("shop.Cart"));
    assert_eq!(Scala.type_hint("Int => Unit"), None);
}

#[test]
fn names_resolve_across_packages_companions_and_imports() {
    let at = |path, line, column| resolve(SHOP, path, line, column);
    let checkout = "src/main/scala/shop/Checkout.scala";
    let cart = "src/main/scala/shop/Cart.scala";
    let vip = "src/main/scala/shop/VipCart.scala";
    let pricing = "src/main/scala/shop/pricing/Pricing.scala";
    expect_test::expect![[r#"
        empty: method Cart.empty (src/main/scala/shop/Cart.scala:31)
        add: method Cart.add (src/main/scala/shop/Cart.scala:10)
        Item: class Item (src/main/scala/shop/Item.scala:9)
        Drink: constant Category.Drink (src/main/scala/shop/Item.scala:15)
        VipCart: class VipCart (src/main/scala/shop/VipCart.scala:4)
        add: method Cart.add (src/main/scala/shop/Cart.scala:10)
        total: method Cart.total (src/main/scala/shop/Cart.scala:16)
        Welcome: constant Welcome (src/main/scala/shop/pricing/Pricing.scala:5)
        saved: method VipCart.saved (src/main/scala/shop/VipCart.scala:7)
        percent: method Discount.percent (src/main/scala/shop/pricing/Pricing.scala:14)
        applyDiscount: function applyDiscount (src/main/scala/shop/pricing/Pricing.scala:8)
        applyDiscount: function applyDiscount (src/main/scala/shop/pricing/Pricing.scala:8)
        withTax: method Cart.withTax (src/main/scala/shop/Cart.scala:23)
        TaxRate: constant Cart.TaxRate (src/main/scala/shop/Cart.scala:28)
        Priced: interface Priced (src/main/scala/shop/Item.scala:4)
        total: method Cart.total (src/main/scala/shop/Cart.scala:16)
        total: method VipCart.total (src/main/scala/shop/VipCart.scala:5)
        percent: method Discount.percent (src/main/scala/shop/pricing/Pricing.scala:14)
        Welcome: constant Welcome (src/main/scala/shop/pricing/Pricing.scala:5)
        total: method Cart.total (src/main/scala/shop/Cart.scala:16)
        Cart: class Cart (src/main/scala/shop/Cart.scala:6)
        Cart: class Cart (src/main/scala/shop/Cart.scala:6) class Cart (src/main/scala/shop/Cart.scala:27)
        g: method Y.g (q/Y.scala:2)"#]]
    .assert_eq(
        &[
            // `Cart.empty(owner)`: the companion object's; `cart.add`, `Item(…)`, `Category.Drink`.
            at(checkout, 9, 21),
            at(checkout, 10, 10),
            at(checkout, 10, 14),
            at(checkout, 10, 40),
            // `new VipCart(owner)`, `vip.add` (inherited), `cart.total(Welcome)` through
            // `import shop.pricing._`, `vip.saved`.
            at(checkout, 11, 28),
            at(checkout, 12, 9),
            at(checkout, 13, 20),
            at(checkout, 13, 26),
            at(checkout, 13, 41),
            // `D.percent` (`Discount => D`), `applyDiscount` by a selector.
            at(checkout, 14, 29),
            at(checkout, 14, 65),
            // In Cart: `applyDiscount` by a single import, its own `withTax`, the object's
            // `TaxRate`, a base trait.
            at(cart, 18, 13),
            at(cart, 18, 5),
            at(cart, 23, 68),
            at(cart, 6, 39),
            // `super.total` and the bare `total` in VipCart.
            at(vip, 5, 52),
            at(vip, 7, 57),
            // In the chained package `shop.pricing`: `Discount.percent`, `Welcome`.
            at(pricing, 9, 33),
            at(pricing, 9, 16),
            // The test: `cart.total` on `val cart = new Cart("ann")`.
            at("src/test/scala/shop/CartSuite.scala", 7, 23),
            // `new Cart("ann")` means the class; `Cart.empty`'s `Cart` the class and its companion,
            // which are one name.
            at("src/test/scala/shop/CartSuite.scala", 5, 20),
            at(checkout, 9, 16),
            // `new Y().g()`.
            resolve(
                &[
                    ("p/X.scala", "package p\nimport q.Y\nclass X { def f() = new Y().g() }\n"),
                    ("q/Y.scala", "package q\nclass Y { def g() = 1 }\n"),
                ],
                "p/X.scala",
                3,
                29,
            ),
        ]
        .join("\n"),
    );
}

/// Deeply nested classes, a chain of type aliases through renaming imports across packages and
/// two packages importing each other (with classes extending each other) all finish.
#[test]
fn deep_nesting_alias_chains_and_import_cycles_finish() {
    let mut deep = String::from("package deep\n");
    for i in 0..300 {
        deep.push_str(&format!("class C{i} {{\ndef m{i}() = {{ m{i}() }}\n"));
    }
    deep.push_str(&"}\n".repeat(300));
    let fs = crate::extract::extract(Lang::Scala, &deep);
    assert!(fs.defs.len() >= 300 || fs.too_deep.is_some(), "{} defs", fs.defs.len());

    let mut files: Vec<(String, String)> =
        vec![("a/A0.scala".into(), "package n0\nclass A {\n  def f(): Unit = {}\n}\n".into())];
    for i in 1..50 {
        files.push((
            format!("a/A{i}.scala"),
            format!(
                "package n{i}\nimport n{}.{{A => B}}\ntype A = B\nclass C{i} {{\n  def g(a: A) = a.f()\n}}\n",
                i - 1
            ),
        ));
    }
    files.push((
        "c/X.scala".into(),
        "package p\nimport q._\nclass X extends Y {\n  def f() = new Y().g()\n}\n".into(),
    ));
    files.push((
        "c/Y.scala".into(),
        "package q\nimport p._\nclass Y extends X {\n  def g() = { new X().f(); super.f() }\n}\n".into(),
    ));
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let snapshot = Snapshot::from_entries(files.iter().map(|(p, t)| entry(p, t)));
    let resolver = snapshot.resolver();
    for file in 0..resolver.n_files() as u32 {
        for r in resolver.entry(file).symbols.refs.iter() {
            resolver.resolve_ref(file, &r);
        }
    }
    let column = |path: &str, line: usize, text: &str| {
        let line =
            files.iter().find(|f| f.0 == path).expect("a file").1.lines().nth(line - 1).expect("a line");
        line.find(text).expect("the text") as u32 + 1
    };
    assert_eq!(
        resolve(&files, "c/Y.scala", 4, column("c/Y.scala", 4, "f();")),
        "f: method X.f (c/X.scala:4)"
    );
    assert_eq!(resolve(&files, "c/X.scala", 4, column("c/X.scala", 4, "g()")), "g: method Y.g (c/Y.scala:4)");
}

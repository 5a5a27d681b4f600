//! Haskell's definitions, references and name resolution, on small sources.

use crate::extract::extract;
use crate::snapshot::Lang;

fn defs(src: &str) -> Vec<String> {
    extract(Lang::Haskell, src)
        .defs
        .iter()
        .map(|d| {
            format!(
                "{} {} {}-{} | {} | {}",
                d.kind.as_str(),
                d.qualified(),
                d.line,
                d.end_line,
                d.signature(),
                d.doc().unwrap_or("-")
            )
        })
        .collect()
}

fn refs(src: &str) -> Vec<String> {
    let fs = extract(Lang::Haskell, src);
    fs.refs
        .iter()
        .map(|r| {
            let q = if r.qualifier == crate::names::NONE { "" } else { fs.text(r.qualifier) };
            format!("{}:{} {} {} {q}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
        })
        .collect()
}

const CART: &str = r#"-- | Shopping carts.
module Shop.Cart (Cart(..), total, add) where

import Shop.Pricing
import qualified Shop.Pricing as P
import Shop.Util (helper, Item(..))
import Data.List hiding (sort)

-- | A customer's basket.
data Cart = Cart { items :: [Item], owner :: String } deriving Show

data Shape = Circle Double | Square Double

newtype Money = Money Int

type Price = Int

-- | Adds an item.
add :: Item -> Cart -> Cart
add item cart = cart { items = item : items cart }

{-| The total. -}
total :: Cart -> Int
total (Cart is _) = P.applyDiscount (sum (map price is)) rate
  where
    price x = x * rate
    rate = 2
total _ = 0

maxItems :: Int
maxItems = 10

class Priced a where
  -- | Its price.
  priceOf :: a -> Int
  label :: a -> String
  label _ = "x"

instance Priced Cart where
  priceOf c = total c

main :: IO ()
main = do
  let c = Cart [] "ann"
      d = add 1 c
  x <- pure (total d)
  print (Shop.Pricing.applyDiscount x 1)
  print $ \y -> helper y
"#;

#[test]
fn definitions_are_kinded_qualified_and_documented() {
    assert_eq!(
        defs(CART),
        vec![
            "module Shop.Cart 2-2 | module Shop.Cart | Shopping carts.",
            "class Cart 10-10 | data Cart | A customer's basket.",
            "function Cart.Cart 10-10 | Cart { items :: [Item], owner :: String } | -",
            "function Cart.Cart.items 10-10 | items :: [Item] | -",
            "function Cart.Cart.owner 10-10 | owner :: String | -",
            "class Shape 12-12 | data Shape | -",
            "function Shape.Circle 12-12 | Circle Double | -",
            "function Shape.Square 12-12 | Square Double | -",
            "type Money 14-14 | newtype Money | -",
            "function Money.Money 14-14 | Money Int | -",
            "type Price 16-16 | type Price = Int | -",
            "function add 19-20 | add :: Item -> Cart -> Cart | Adds an item.",
            "function total 23-28 | total :: Cart -> Int | The total.",
            "constant maxItems 30-31 | maxItems :: Int | -",
            "interface Priced 33-37 | class Priced a | -",
            "method Priced.priceOf 35-35 | priceOf :: a -> Int | Its price.",
            "method Priced.label 36-37 | label :: a -> String | -",
            "method Cart.priceOf 40-40 | priceOf c | -",
            "function main 42-48 | main :: IO () | -",
        ]
    );
    assert_eq!(
        extract(Lang::Haskell, CART).exports,
        Some(vec!["Cart".to_string(), "total".to_string(), "add".to_string()])
    );
}

#[test]
fn references_name_calls_with_their_modules() {
    let got = refs(CART);
    for expected in [
        "6:19 helper import Shop.Util",
        "6:27 Item import Shop.Util",
        "19:8 Item type use ",
        "20:39 items call ",
        "24:8 Cart name ",
        "24:23 applyDiscount call P",
        "24:47 price name ",
        "40:15 total call ",
        "45:11 add call ",
        "47:23 applyDiscount call Shop.Pricing",
        "48:17 helper call ",
    ] {
        assert!(got.contains(&expected.to_string()), "missing {expected:?} in {got:#?}");
    }
    assert!(!got.iter().any(|r| r.contains(" map ") || r.contains(" Int ")), "{got:#?}");
}

#[test]
fn imports_are_globs_lists_and_aliases() {
    let fs = extract(Lang::Haskell, CART);
    let imports: Vec<String> = fs
        .imports
        .iter()
        .map(|i| {
            let text = |n: u32| if n == crate::names::NONE { "-" } else { fs.text(n) };
            format!("{} {} as {} glob={}", text(i.module), text(i.item), text(i.bound), { i.glob })
        })
        .collect();
    assert_eq!(
        imports,
        [
            "Shop.Pricing - as - glob=true",
            "Shop.Pricing - as P glob=false",
            "Shop.Util helper as helper glob=false",
            "Shop.Util Item as Item glob=false",
            "Data.List - as - glob=true",
        ]
    );
}

/// A GADT's constructors and record fields, a class with a superclass, a signature of two
/// names; `import M as P` brings in M's names and binds `P` too.
#[test]
fn gadts_contexts_and_an_unqualified_alias() {
    let src = "module G where\nimport Shop.Pricing as P\ndata T a where\n  C :: Int -> T Int\n  D :: { dv :: Int } -> T Int\nclass (Eq a) => Ord2 a where\n  cmp :: a -> a -> Bool\nf, g :: Int\nf = 1\ng = 2\n";
    assert_eq!(
        defs(src),
        [
            "module G 1-1 | module G | -",
            "class T 3-5 | data T a | -",
            "function T.C 4-4 | C :: Int -> T Int | -",
            "function T.D 5-5 | D :: { dv :: Int } -> T Int | -",
            "function T.D.dv 5-5 | dv :: Int | -",
            "interface Ord2 6-7 | class (Eq a) => Ord2 a | -",
            "method Ord2.cmp 7-7 | cmp :: a -> a -> Bool | -",
            "constant f 8-9 | f, g :: Int | -",
            "constant g 10-10 | g | -",
        ]
    );
    let fs = extract(Lang::Haskell, src);
    let imports: Vec<String> = fs
        .imports
        .iter()
        .map(|i| {
            let bound = if i.bound == crate::names::NONE { "-" } else { fs.text(i.bound) };
            format!("{} as {bound} glob={}", fs.text(i.module), { i.glob })
        })
        .collect();
    assert_eq!(imports, ["Shop.Pricing as P glob=false", "Shop.Pricing as - glob=true"]);
}

const PRICING: &str = "module Shop.Pricing (applyDiscount) where\n\n-- | Takes a discount off.\napplyDiscount :: Int -> Int -> Int\napplyDiscount amount pct = amount - cut amount pct\n\ncut :: Int -> Int -> Int\ncut a p = a * p `div` 100\n\nhalf :: Int -> Int\nhalf x = x `cut` 50\n";

const UTIL: &str = "module Shop.Util where\n\ndata Item = Item { name :: String, price :: Int }\n\nhelper :: Int -> Int\nhelper = id\n";

const MAIN: &str = "module Main where\n\nimport Shop.Cart\nimport qualified Shop.Pricing as Pr\nimport Shop.Util (Item(..))\n\nmain :: IO ()\nmain = do\n  let c = add (Item \"tea\" 3) (Cart [] \"ann\")\n  print (Pr.applyDiscount (total c) 10)\n  print (price (Item \"x\" 1))\n  print (cut 1 2)\n  print (items c)\n";

/// Every reference of a small repository with what it resolves to: modules by their header
/// (under `src/`) or their path (`app/`), qualified names through an import's alias and the
/// module's own name, import lists, the export list hiding `cut`, where bindings and
/// constructors.
#[test]
fn names_resolve_through_imports_aliases_and_export_lists() {
    let files = [
        ("src/Shop/Cart.hs", CART),
        ("src/Shop/Pricing.hs", PRICING),
        ("src/Shop/Util.hs", UTIL),
        ("app/Main.hs", MAIN),
    ];
    let resolved = super::super::bash::tests::resolve(&files);
    let interesting: Vec<&str> = resolved
        .iter()
        .map(String::as_str)
        .filter(|l| {
            !l.contains('$')
                && (l.starts_with("app/") || l.contains("Cart.hs:2 ") || l.contains("Cart.hs:24 "))
        })
        .collect();
    assert_eq!(
        interesting,
        [
            "app/Main.hs:5 Item import -> src/Shop/Util.hs:3 Item, src/Shop/Util.hs:3 Item.Item",
            "app/Main.hs:7 main name -> app/Main.hs:7 main",
            "app/Main.hs:9 add call -> src/Shop/Cart.hs:19 add",
            "app/Main.hs:9 Item name -> src/Shop/Util.hs:3 Item.Item",
            "app/Main.hs:9 Cart name -> src/Shop/Cart.hs:10 Cart.Cart",
            "app/Main.hs:10 applyDiscount call -> src/Shop/Pricing.hs:4 applyDiscount",
            "app/Main.hs:10 total call -> src/Shop/Cart.hs:23 total",
            "app/Main.hs:11 Item name -> src/Shop/Util.hs:3 Item.Item",
            "app/Main.hs:13 items call -> src/Shop/Cart.hs:10 Cart.Cart.items",
            "src/Shop/Cart.hs:2 Cart type use -> src/Shop/Cart.hs:10 Cart",
            "src/Shop/Cart.hs:2 total name -> src/Shop/Cart.hs:23 total",
            "src/Shop/Cart.hs:2 add name -> src/Shop/Cart.hs:19 add",
            "src/Shop/Cart.hs:24 Cart name -> src/Shop/Cart.hs:10 Cart.Cart",
            "src/Shop/Cart.hs:24 applyDiscount call -> src/Shop/Pricing.hs:4 applyDiscount",
        ]
    );
    // `price` of Util's `Item` and `cut`, which Pricing's export list leaves out.
    assert!(!resolved.iter().any(|l| l.starts_with("app/Main.hs:12")), "{resolved:#?}");
    for line in [
        "src/Shop/Cart.hs:47 applyDiscount call -> src/Shop/Pricing.hs:4 applyDiscount",
        "src/Shop/Cart.hs:48 helper call -> src/Shop/Util.hs:5 helper",
        "src/Shop/Cart.hs:40 total call -> src/Shop/Cart.hs:23 total",
        "src/Shop/Cart.hs:24 price name -> src/Shop/Cart.hs:26 $price",
        "src/Shop/Cart.hs:24 rate name -> src/Shop/Cart.hs:27 $rate",
        "src/Shop/Pricing.hs:11 cut call -> src/Shop/Pricing.hs:7 cut",
    ] {
        assert!(resolved.contains(&line.to_string()), "missing {line:?} in {resolved:#?}");
    }
}

/// 300 nested lets, a chain of aliases, and two modules importing each other: every lookup
/// finishes.
#[test]
fn deep_nesting_an_alias_chain_and_an_import_cycle_finish() {
    let mut src = String::from("module Deep where\nf x =\n");
    for i in 0..300 {
        src.push_str(&format!("  let a{i} = x in\n"));
    }
    src.push_str("  g a0\n");
    let fs = extract(Lang::Haskell, &src);
    assert!(fs.too_deep.is_some() || fs.defs.iter().any(|d| d.name() == "f"));
    let mut aliases = String::from("module Alias where\nimport qualified Alias as A0\n");
    for i in 1..40 {
        aliases.push_str(&format!("a{i} = a{}\n", i - 1));
    }
    aliases.push_str("a0 = a39\nz = A0.a39\n");
    let files = [("Alias.hs", aliases.as_str())];
    let last = crate::test_support::resolve_at(&files, "Alias.hs", 43, 8);
    assert!(last.starts_with("a39:"), "{last}");
    let cycle = [
        ("A.hs", "module A where\nimport B\nimport qualified B as Q\nf = g + Q.h\n"),
        ("B.hs", "module B where\nimport A\ng = f\nh = 1\n"),
    ];
    assert_eq!(
        super::super::bash::tests::resolve(&cycle)
            .into_iter()
            .filter(|l| l.contains("call") || l.contains(" name "))
            .collect::<Vec<_>>(),
        ["A.hs:4 g name -> B.hs:3 g", "A.hs:4 h name -> B.hs:4 h", "B.hs:3 f name -> A.hs:4 f"]
    );
}

//! Elixir's definitions, references and name resolution, on small sources.

use crate::extract::extract;
use crate::snapshot::Lang;
use crate::test_support::resolve_at;

fn defs(src: &str) -> Vec<String> {
    crate::test_support::def_lines(Lang::Elixir, src)
}

fn refs(src: &str) -> Vec<String> {
    let fs = extract(Lang::Elixir, src);
    fs.refs
        .iter()
        .map(|r| {
            let q = if r.qualifier == crate::names::NONE { "" } else { fs.text(r.qualifier) };
            format!("{}:{} {} {} {q}", r.line, r.column(), fs.ref_name(&r), r.kind().as_str())
        })
        .collect()
}

const CART: &str = r#"defmodule Shop.Cart do
  @moduledoc """
  A customer's basket.
  """
  alias Shop.Pricing
  alias Shop.{Item, Tax}
  alias Shop.Pricing, as: P
  import Shop.Util
  use GenServer
  require Logger

  defstruct items: [], owner: nil

  @type t :: %__MODULE__{items: list}
  @max 10

  @doc "A new cart."
  @spec new(String.t()) :: t
  def new(owner), do: %__MODULE__{owner: owner}

  # Adds an item.
  def add(%__MODULE__{} = cart, item) do
    x = Pricing.apply_discount(item.price, 1)
    __MODULE__.total(cart)
    helper(x)
    Enum.map(cart.items, fn i -> i.price end)
  end

  def total(cart, code \\ nil) when is_list(cart) do
    P.apply_discount(cart.items |> Enum.sum(), code)
  end

  defp helper(x), do: round(x)
  defmacro m(a), do: a

  defmodule Inner do
    def f, do: 1
  end
end
"#;

#[test]
fn definitions_are_qualified_kinded_and_documented() {
    assert_eq!(
        defs(CART),
        vec![
            "module Shop.Cart 1-39 | defmodule Shop.Cart | A customer's basket.",
            "type Shop.Cart.t 14-14 | @type t :: %__MODULE__{items: list} | -",
            "constant Shop.Cart.max 15-15 | @max 10 | -",
            "function Shop.Cart.new 19-19 | def new(owner) | A new cart.",
            "function Shop.Cart.add 22-27 | def add(%__MODULE__{} = cart, item) | Adds an item.",
            "function Shop.Cart.total 29-31 | def total(cart, code \\\\ nil) when is_list(cart) | -",
            "function Shop.Cart.helper 33-33 | defp helper(x) | -",
            "macro Shop.Cart.m 34-34 | defmacro m(a) | -",
            "module Shop.Cart.Inner 36-38 | defmodule Inner | -",
            "function Shop.Cart.Inner.f 37-37 | def f | -",
        ]
    );
}

#[test]
fn references_name_calls_with_their_modules_and_module_names() {
    let got = refs(CART);
    for expected in [
        "23:9 Pricing name ",
        "23:17 apply_discount call Pricing",
        "23:37 price attribute item",
        "24:16 total call __MODULE__",
        "25:5 helper call ",
        "26:10 map call Enum",
        "30:7 apply_discount call P",
        "33:23 round call ",
        "5:14 Pricing import Shop",
    ] {
        assert!(got.contains(&expected.to_string()), "missing {expected:?} in {got:#?}");
    }
    assert!(!got.iter().any(|r| r.contains(" def ") || r.contains(" alias ")), "{got:#?}");
}

#[test]
fn directives_are_imports_and_clauses_bind_their_parameters() {
    let fs = extract(Lang::Elixir, CART);
    let imports: Vec<String> = fs
        .imports
        .iter()
        .map(|i| {
            let bound = if i.bound == crate::names::NONE { "-" } else { fs.text(i.bound) };
            format!("{} {bound} glob={}", fs.text(i.module), i.glob)
        })
        .collect();
    assert_eq!(
        imports,
        vec![
            "Shop.Pricing Pricing glob=false",
            "Shop.Item Item glob=false",
            "Shop.Tax Tax glob=false",
            "Shop.Pricing P glob=false",
            "Shop.Util - glob=true",
            "GenServer - glob=false",
            "Logger - glob=false",
        ]
    );
    let bindings: Vec<String> =
        fs.bindings.iter().map(|b| format!("{}:{} {}", { b.line }, { b.column }, fs.text(b.name))).collect();
    for expected in
        ["19:11 owner", "22:27 cart", "22:33 item", "23:5 x", "26:29 i", "29:13 cart", "29:19 code"]
    {
        assert!(bindings.contains(&expected.to_string()), "missing {expected:?} in {bindings:#?}");
    }
    assert!(!bindings.iter().any(|b| b.ends_with("__MODULE__")), "{bindings:#?}");
}

const PRICING: &str = r#"defmodule Shop.Pricing do
  def apply_discount(amount, code), do: amount - discount(code)
  defp discount(nil), do: 0
  defp discount(_code), do: 1
end
"#;

const UTIL: &str = "defmodule Shop.Util do\n  def round(x), do: x\nend\n";

const NESTED: &str = r#"defmodule Shop do
  defmodule Item do
    def new(name), do: name
  end

  def item(name), do: Item.new(name)
end
"#;

const CHECKOUT: &str = r#"defmodule Shop.Checkout do
  alias Shop.Cart, as: C
  import Shop.Pricing

  def run(owner) do
    cart = C.new(owner)
    C.add(cart, Shop.Item.new("pen"))
    apply_discount(1, nil)
    Enum.count([cart])
    missing(cart)
  end
end
"#;

#[test]
fn calls_resolve_through_aliases_imports_and_full_names_across_files() {
    let files = [
        ("lib/shop/cart.ex", CART),
        ("lib/shop/pricing.ex", PRICING),
        ("lib/shop/util.ex", UTIL),
        ("lib/shop.ex", NESTED),
        ("lib/shop/checkout.ex", CHECKOUT),
    ];
    let at = |path, line, column| resolve_at(&files, path, line, column);
    // Through `alias Shop.Pricing` and `alias Shop.Pricing, as: P`.
    assert_eq!(
        at("lib/shop/cart.ex", 23, 17),
        "apply_discount: function Shop.Pricing.apply_discount (lib/shop/pricing.ex:2)"
    );
    assert_eq!(at("lib/shop/cart.ex", 23, 9), "Pricing: module Shop.Pricing (lib/shop/pricing.ex:1)");
    assert_eq!(
        at("lib/shop/cart.ex", 30, 7),
        "apply_discount: function Shop.Pricing.apply_discount (lib/shop/pricing.ex:2)"
    );
    // `__MODULE__`, a bare call of the module's own function, an imported one.
    assert_eq!(at("lib/shop/cart.ex", 24, 16), "total: function Shop.Cart.total (lib/shop/cart.ex:29)");
    assert_eq!(at("lib/shop/cart.ex", 25, 5), "helper: function Shop.Cart.helper (lib/shop/cart.ex:33)");
    assert_eq!(at("lib/shop/cart.ex", 33, 23), "round: function Shop.Util.round (lib/shop/util.ex:2)");
    // A module outside the repository: nothing, no candidates.
    assert_eq!(at("lib/shop/cart.ex", 26, 10), "map:");
    // The clauses of a private function, called bare.
    assert_eq!(
        at("lib/shop/pricing.ex", 2, 50),
        "discount: function Shop.Pricing.discount (lib/shop/pricing.ex:3)"
    );
    // A nested module by its short name inside its parent, and by its full name elsewhere.
    assert_eq!(at("lib/shop.ex", 6, 30), "new: function Shop.Item.new (lib/shop.ex:3)");
    assert_eq!(at("lib/shop/checkout.ex", 7, 28), "new: function Shop.Item.new (lib/shop.ex:3)");
    assert_eq!(at("lib/shop/checkout.ex", 7, 22), "Item: module Shop.Item (lib/shop.ex:2)");
    // `alias …, as: C`, `import Shop.Pricing`.
    assert_eq!(at("lib/shop/checkout.ex", 6, 14), "new: function Shop.Cart.new (lib/shop/cart.ex:19)");
    assert_eq!(at("lib/shop/checkout.ex", 7, 7), "add: function Shop.Cart.add (lib/shop/cart.ex:22)");
    assert_eq!(
        at("lib/shop/checkout.ex", 8, 5),
        "apply_discount: function Shop.Pricing.apply_discount (lib/shop/pricing.ex:2)"
    );
    assert_eq!(at("lib/shop/checkout.ex", 2, 14), "Cart: module Shop.Cart (lib/shop/cart.ex:1)");
    assert_eq!(at("lib/shop/checkout.ex", 10, 5), "missing:");
    assert_eq!(at("lib/shop/checkout.ex", 10, 13), "cart: local variable cart (lib/shop/checkout.ex:6)");
    // A test's block keeps its variables.
    let test = "defmodule T do\n  test \"x\" do\n    c = 1\n    c\n  end\nend\n";
    assert_eq!(resolve_at(&[("t_test.exs", test)], "t_test.exs", 4, 5), "c: local variable c (t_test.exs:3)");
}

/// Clauses of one name and arity are one function; another arity is another.
#[test]
fn clauses_of_one_arity_are_one_function() {
    let src = "defmodule M do\n  @doc \"First.\"\n  def f(0), do: 0\n  def f(n) when n > 0 do\n    n\n  end\n\n  def f(a, b), do: a + b\n  defp f(a, b, c), do: a\n  def g, do: f(1)\nend\n";
    assert_eq!(
        defs(src),
        vec![
            "module M 1-11 | defmodule M | -",
            "function M.f 3-6 | def f(0) | First.",
            "function M.f 8-8 | def f(a, b) | -",
            "function M.f 9-9 | defp f(a, b, c) | -",
            "function M.g 10-10 | def g | -",
        ]
    );
    assert_eq!(
        defs("defmodule D do\n  defdelegate total(cart), to: Shop.Cart\nend\n"),
        vec!["module D 1-3 | defmodule D | -", "function D.total 2-2 | defdelegate total(cart) | -"]
    );
    let fs = extract(Lang::Elixir, src);
    let n = fs.refs.iter().find(|r| fs.ref_name(r) == "n" && r.line == 5).expect("n in the second clause");
    assert_eq!(n.enclosing(), Some(1), "a later clause's names are inside the function");
    assert_eq!(resolve_at(&[("m.ex", src)], "m.ex", 5, 5), "n: parameter n (m.ex:4)");
}

#[test]
fn deep_nesting_finishes() {
    let mut src = String::new();
    for i in 0..300 {
        src.push_str(&format!("defmodule M{i} do\n"));
    }
    src.push_str("def f, do: g()\n");
    for _ in 0..300 {
        src.push_str("end\n");
    }
    let fs = extract(Lang::Elixir, &src);
    assert!(fs.defs.len() == 301 || fs.too_deep.is_some());
    let _ = resolve_at(&[("deep.ex", &src)], "deep.ex", 301, 12);
}

/// Aliases that name each other and modules that import each other: every lookup finishes.
#[test]
fn alias_chains_and_import_cycles_finish() {
    let a = "defmodule A do\n  alias B, as: C\n  alias C.D, as: B\n  import B\n  def f, do: C.g() + g() + B.h()\nend\n";
    let b = "defmodule B do\n  import A\n  import B\n  alias A, as: B\n  def g, do: f() + B.f() + nothere()\nend\n";
    let files = [("a.ex", a), ("b.ex", b)];
    assert_eq!(resolve_at(&files, "a.ex", 5, 16), "g: function B.g (b.ex:5)");
    let _ = resolve_at(&files, "a.ex", 5, 22);
    let _ = resolve_at(&files, "a.ex", 5, 32);
    assert_eq!(resolve_at(&files, "b.ex", 5, 14), "f: function A.f (a.ex:5)");
    let _ = resolve_at(&files, "b.ex", 5, 24);
    assert_eq!(resolve_at(&files, "b.ex", 5, 30), "nothere:");
}

//! `repo_map` through the toolbox, counted with the real tokenizer: the map an agent reads on the
//! fixtures, and budgets on real code (a package of the installed CPython standard library).

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect;
use serde_json::{Value, json};
use tack_tools::{CallContext, Config, Observation, Profile, Session, Toolbox, count_tokens};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name)
}

fn map(root: &Path, args: Value) -> Observation {
    let tb = Toolbox::new(root, Config::default(), Profile::Core, true).unwrap();
    tb.call(&Session::new(), "repo_map", args, &CallContext::default()).observation
}

#[test]
fn focus_on_a_symbol_shows_its_file_then_its_users() {
    let obs = map(&fixture("py_shop"), json!({"focus": ["apply_discount"], "tokens": 200}));
    expect![[r#"
        repo map: 4 of 7 files, 8 of 17 definitions, most referenced first (focus: apply_discount)
        shop/pricing.py:
        ⋮
         3│TAX_RATE = 0.2
        ⋮
         5│DISCOUNTS = {"WELCOME10": 0.10, "HALF": 0.50}
        ⋮
         8│def apply_discount(amount: float, code: str | None) -> float:
        ⋮
        15│def with_tax(amount: float) -> float:
        ⋮
        shop/cart.py:
        ⋮
         7│class Cart:
        ⋮
        23│    def total(self) -> float:
        ⋮
        shop/checkout.py:
        ⋮
        14│def quote(cart: Cart) -> float:
        ⋮
        shop/item.py:
        ⋮
        5│class Item:
        ⋮
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.unwrap();
    assert_eq!(data["files"][0]["path"], json!("shop/pricing.py"));
    let symbols = data["files"][0]["symbols"].as_array().unwrap();
    assert!(
        symbols.contains(&json!({"name": "apply_discount", "kind": "function", "line": 8})),
        "{symbols:?}"
    );
    assert_eq!(data["total_files"], json!(7));
}

#[test]
fn without_focus_the_most_referenced_file_leads_and_a_lone_string_is_a_focus() {
    let obs = map(&fixture("rs_shapes"), json!({}));
    let first_file = obs.text.lines().nth(1).unwrap();
    assert_eq!(first_file, "src/geo.rs:", "{}", obs.text);
    let obs = map(&fixture("rs_shapes"), json!({"focus": "Circle::contains", "tokens": "300"}));
    assert!(obs.text.lines().nth(1).unwrap() == "src/shapes/circle.rs:", "{}", obs.text);
}

fn stdlib_package(name: &str) -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
        .output()
        .expect("python3 runs");
    let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim()).join(name);
    assert!(dir.is_dir(), "the CPython standard library has no {}", dir.display());
    dir
}

#[test]
fn the_map_fills_each_budget_on_real_code() {
    let root = stdlib_package("email");
    for budget in [512u64, 1024, 4096] {
        for focus in [json!([]), json!(["Message"])] {
            let obs = map(&root, json!({"tokens": budget, "focus": focus}));
            let data = obs.structured.as_ref().unwrap();
            let tokens = count_tokens(&obs.text) as u64;
            assert_eq!(data["tokens"], json!(tokens), "the reported count is the real one");
            let whole = data["shown_definitions"] == data["total_definitions"];
            assert!(tokens <= budget, "{tokens} tokens for a budget of {budget}");
            // Short of the budget by less than one more definition costs: its line (at most
            // 100 characters), a new file's path and the `⋮` around them.
            assert!(whole || budget - tokens <= 80, "{tokens} tokens for a budget of {budget} ({focus})");
        }
    }
}

#[test]
fn a_client_that_cuts_by_length_gets_a_smaller_map_never_a_cut_one() {
    // The email package's map at its default budget is far over Codex's 11,964 bytes.
    let root = stdlib_package("email");
    let tb = Toolbox::new(&root, Config::default(), Profile::Core, true).unwrap();
    let plain = map(&root, json!({}));
    assert!(plain.text.len() > 20_000, "the default map is {} bytes", plain.text.len());
    let ctx = CallContext { client: Some("codex-mcp-client".into()), ..Default::default() };
    let codex = tb.call(&Session::new(), "repo_map", json!({}), &ctx).observation;
    assert!(codex.text.len() <= 11_400, "{} bytes", codex.text.len());
    assert!(codex.text.len() > 5_000, "the map uses the room it has: {} bytes", codex.text.len());
    assert!(!codex.text.contains("read_output(handle="), "fitted, not cut:\n{}", codex.text);
    assert!(codex.text.starts_with("repo map: "), "{}", codex.text);
    assert_eq!(codex.text.lines().nth(1), plain.text.lines().nth(1), "the same file leads");
}

#[test]
fn a_go_module_maps_its_most_used_package_first() {
    let obs = map(&fixture("go_shop"), json!({"tokens": 300}));
    expect![[r#"
        repo map: 5 of 5 files, 15 of 15 definitions, most referenced first
        cart/cart.go:
        ⋮
         9│const TaxRate = 0.2
        ⋮
        12│type Cart struct {
        ⋮
        19│func New(owner string) *Cart {
        ⋮
        24│func (c *Cart) Add(item Item) {
        ⋮
        29│func (c *Cart) Total() float64 {
        ⋮
        cart/item.go:
        ⋮
         4│type Item struct {
        ⋮
        11│func (i Item) Subtotal() float64 {
        ⋮
        pricing/pricing.go:
        ⋮
         7│type Discounter interface {
         8│	Discount(amount float64) float64
        ⋮
        12│type Percent float64
        ⋮
        15│func (p Percent) Discount(amount float64) float64 {
        ⋮
        19│var codes = map[string]Discounter{"WELCOME10": Percent(0.1)}
        ⋮
        22│func ApplyDiscount(amount float64, code string) float64 {
        ⋮
        main.go:
        ⋮
        9│func main() {
        ⋮
        cart/cart_test.go:
        ⋮
        5│func TestTotal(t *testing.T) {
        ⋮
    "#]]
    .assert_eq(&obs.text);
}

#[test]
fn typescript_and_javascript_maps() {
    expect![[r#"
        repo map: 5 of 7 files, 10 of 18 definitions, most referenced first
        src/item.ts:
         1│export interface Priced {
         2│  subtotal(): number;
        ⋮
         5│export class Item implements Priced {
        ⋮
        11│  subtotal(): number {
        ⋮
        src/cart.ts:
        ⋮
         4│export const TAX_RATE = 0.2;
        ⋮
         7│export class Cart {
        ⋮
        18│  total(): number {
        ⋮
        src/pricing.ts:
        ⋮
        9│export function applyDiscount(amount: number, code?: Code): number {
        ⋮
        src/receipt.tsx:
        ⋮
        5│export function Line({ item }: { item: Item }) {
        ⋮
        src/checkout.ts:
        ⋮
        3│export function checkout(cart: Cart): number {
        ⋮
    "#]]
    .assert_eq(&map(&fixture("ts_shop"), json!({"tokens": 200})).text);
    expect![[r#"
        repo map: 5 of 5 files, 11 of 11 definitions, most referenced first
        lib/cart.js:
        ⋮
         4│class Cart {
         5│  constructor(owner) {
        ⋮
        10│  add(item) {
        ⋮
        14│  total() {
        ⋮
        lib/pricing.js:
        ⋮
        2│function applyDiscount(amount, code) {
        ⋮
        index.js:
        ⋮
         4│export function run(owner) {
        ⋮
        10│export const name = 'shop';
        lib/vip.js:
        ⋮
        3│class VipCart extends Cart {
        4│  total() {
        ⋮
        test/cart.test.js:
        1│const assert = require('assert');
        ⋮
        4│const cart = new VipCart('ada');
        ⋮
    "#]]
    .assert_eq(&map(&fixture("js_shop"), json!({"tokens": 200})).text);
}

#[test]
fn a_java_project_maps_its_most_used_types_first() {
    expect![[r#"
        repo map: 5 of 7 files, 9 of 24 definitions, most referenced first
        src/main/java/shop/Cart.java:
        ⋮
         9│public class Cart {
        10│    public static final double TAX_RATE = 0.2;
        ⋮
        23│    public double total() {
        ⋮
        src/main/java/shop/Item.java:
        ⋮
         3│public class Item implements Priced {
        ⋮
        13│    public double subtotal() {
        ⋮
        src/main/java/shop/Priced.java:
        ⋮
        4│public interface Priced {
        ⋮
        src/main/java/shop/pricing/Pricing.java:
        ⋮
        4│public final class Pricing {
        ⋮
        8│    public static double applyDiscount(double amount, String code) {
        ⋮
        src/main/java/shop/VipCart.java:
        ⋮
        3│public class VipCart extends Cart {
        ⋮
    "#]]
    .assert_eq(&map(&fixture("java_shop"), json!({"tokens": 200})).text);
}

#[test]
fn c_and_cpp_maps() {
    expect![[r#"
        repo map: 5 of 6 files, 10 of 10 definitions, most referenced first
        include/shop/cart.h:
        ⋮
         5│#define TAX_RATE 0.2
        ⋮
         8│struct cart {
        ⋮
        15│typedef struct cart cart_t;
        ⋮
        src/cart.c:
        ⋮
         6│static double with_tax(double amount) {
        ⋮
        10│struct cart *cart_new(const char *owner) {
        ⋮
        17│void cart_add(struct cart *c, double price) {
        ⋮
        21│double cart_total(const struct cart *c) {
        ⋮
        src/pricing.c:
        ⋮
        6│double apply_discount(double amount, const char *code) {
        ⋮
        src/main.c:
        ⋮
        5│int main(void) {
        ⋮
        tests/test_cart.c:
        ⋮
        5│int main(void) {
        ⋮
    "#]]
    .assert_eq(&map(&fixture("c_shop"), json!({"tokens": 200})).text);
    expect![[r#"
        repo map: 5 of 6 files, 11 of 22 definitions, most referenced first
        include/shop/cart.hpp:
        ⋮
         6│namespace shop {
        ⋮
         9│class Item {
        ⋮
        20│class Cart {
        ⋮
        22│    explicit Cart(std::string owner);
        ⋮
        src/cart.cpp:
        ⋮
         5│namespace shop {
        ⋮
         7│Item::Item(std::string name, double price) : name_(std::move(name)), price_(price) {}
        ⋮
        11│Cart::Cart(std::string owner) {}
        ⋮
        src/vip.hpp:
        ⋮
        5│class VipCart : public shop::Cart {
        ⋮
        src/pricing.cpp:
        ⋮
        5│namespace pricing {
        ⋮
        7│double apply_discount(double amount, const char* code) {
        ⋮
        src/pricing.hpp:
        ⋮
        3│namespace pricing {
        ⋮
    "#]]
    .assert_eq(&map(&fixture("cpp_shop"), json!({"tokens": 200})).text);
}

//! `context` through the toolbox: the text an agent reads for a task, its budget, focus, what it
//! says it left out, and failures an agent can act on.

use std::path::{Path, PathBuf};

use expect_test::expect;
use serde_json::{Value, json};
use tack_tools::{CallContext, Config, Observation, Profile, Session, Toolbox, count_tokens};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name)
}

fn context(root: &Path, args: Value) -> Observation {
    let tb = Toolbox::new(root, Config::default(), Profile::Core, true).unwrap();
    tb.call(&Session::new(), "context", args, &CallContext::default()).observation
}

#[test]
fn a_bug_report_reads_as_functions_with_bodies_callers_callees_and_tests() {
    let obs =
        context(&fixture("py_shop"), json!({"task": "Receipt shows the wrong amount after a discount code"}));
    assert!(!obs.is_error, "{}", obs.text);
    expect![[r#"
        3 functions for the task, best first (3 whole; ⋮ marks lines left out; ← caller, → callee, test: a test calling it)
        shop/receipts.py:4-6 send_receipt (function)
        4	def send_receipt(cart: Cart, amount: float) -> str:
        5	    lines = [f"{item.name} x{item.quantity}" for item in cart.items]
        6	    return f"Receipt for {cart.customer}: " + ", ".join(lines) + f" = {amount:.2f}"
          ← shop/checkout.py:10 def checkout(cart: Cart, code: str | None = None) -> float
        shop/checkout.py:6-11 checkout (function)
         6	def checkout(cart: Cart, code: str | None = None) -> float:
         7	    """Charge the cart and send a receipt."""
         8	    cart.code = code
         9	    amount = cart.total()
        10	    send_receipt(cart, amount)
        11	    return amount
          → shop/cart.py:23 def total(self) -> float
          → shop/receipts.py:4 def send_receipt(cart: Cart, amount: float) -> str
          test tests/test_cart.py:14 def test_checkout_with_code()
        shop/pricing.py:8-12 apply_discount (function)
         8	def apply_discount(amount: float, code: str | None) -> float:
         9	    """Take a discount code off an amount; unknown codes change nothing."""
        10	    if code is None:
        11	        return amount
        12	    return amount * (1 - DISCOUNTS.get(code, 0.0))
        next files:
          shop/cart.py: Cart.total
          tests/test_cart.py: test_checkout_with_code
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.unwrap();
    // The report's first word is the receipt's: its function first, then the checkout that
    // sends it.
    assert_eq!(data["functions"][0]["symbol"], json!("send_receipt"));
    assert_eq!(data["functions"][0]["whole"], json!(true));
    assert_eq!(data["functions"][1]["symbol"], json!("checkout"));
    assert_eq!(data["functions"][1]["tests"][0]["path"], json!("tests/test_cart.py"));
    // The first two functions list their links; the third, shown for its body, does not.
    assert_eq!(data["functions"][2]["symbol"], json!("apply_discount"));
    assert_eq!(data["functions"][2]["callers"], json!([]));
}

#[test]
fn a_rust_task_names_methods_and_their_callers() {
    let obs = context(&fixture("rs_shapes"), json!({"task": "the area of a circle is wrong"}));
    assert!(!obs.is_error, "{}", obs.text);
    let data = obs.structured.unwrap();
    let symbols: Vec<&str> =
        data["functions"].as_array().unwrap().iter().filter_map(|f| f["symbol"].as_str()).collect();
    assert!(symbols.iter().any(|s| s.ends_with("Circle::area") || *s == "area"), "{symbols:?}\n{}", obs.text);
    assert!(obs.text.contains("src/shapes/circle.rs:"), "{}", obs.text);
}

#[test]
fn the_same_task_gives_the_same_bytes() {
    let root = fixture("py_shop");
    let task = json!({"task": "cart total with tax is off by a cent"});
    assert_eq!(context(&root, task.clone()).text, context(&root, task).text);
}

#[test]
fn a_small_budget_shows_fewer_functions_and_says_what_it_left_out() {
    let root = fixture("py_shop");
    let task = "Receipt shows the wrong amount after a discount code";
    let small = context(&root, json!({"task": task, "tokens": 300}));
    let full = context(&root, json!({"task": task}));
    let shown = |o: &Observation| o.structured.as_ref().unwrap()["functions"].as_array().unwrap().len();
    assert!(shown(&small) < shown(&full), "{}\n---\n{}", small.text, full.text);
    assert!(count_tokens(&small.text) <= 300, "{} tokens:\n{}", count_tokens(&small.text), small.text);
    assert!(small.text.contains("left out: "), "{}", small.text);
    assert!(small.text.contains("read_file(path=..., start=...)"), "{}", small.text);
}

#[test]
fn a_focus_symbol_comes_first() {
    let obs = context(
        &fixture("py_shop"),
        json!({"task": "Receipt shows the wrong amount after a discount code", "focus": "Cart.remove"}),
    );
    let data = obs.structured.unwrap();
    assert_eq!(data["functions"][0]["symbol"], json!("Cart.remove"), "{}", obs.text);
    assert!(obs.text.contains("shop/cart.py:18-21 Cart.remove (method)\n"), "{}", obs.text);
}

#[test]
fn a_long_body_is_trimmed_around_its_matches() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("def parse_header(raw):\n    \"\"\"Parse one header line.\"\"\"\n");
    for i in 0..60 {
        body.push_str(&format!("    step_{i} = raw + {i}\n"));
    }
    body.push_str("    charset = raw.split(';')[1]  # the charset parameter\n");
    for i in 60..120 {
        body.push_str(&format!("    step_{i} = raw + {i}\n"));
    }
    body.push_str("    return raw\n");
    std::fs::write(dir.path().join("headers.py"), body).unwrap();
    let obs = context(dir.path(), json!({"task": "the charset of a header is lost by parse_header"}));
    assert!(
        obs.text.contains("headers.py:1-124 parse_header (function)\n 1\tdef parse_header(raw):\n"),
        "{}",
        obs.text
    );
    assert!(
        obs.text.contains("63\t    charset = raw.split(';')[1]  # the charset parameter\n"),
        "{}",
        obs.text
    );
    assert!(obs.text.contains("⋮\n"), "{}", obs.text);
    assert!(!obs.text.contains("step_100 = raw"), "the unmatched middle is left out:\n{}", obs.text);
    assert_eq!(obs.structured.unwrap()["functions"][0]["whole"], json!(false));
}

#[test]
fn a_task_without_words_or_matches_says_what_to_do() {
    let root = fixture("py_shop");
    let empty = context(&root, json!({"task": "  "}));
    assert!(empty.is_error);
    assert!(empty.text.contains("pass task="), "{}", empty.text);
    let none = context(&root, json!({"task": "zebra quokka"}));
    assert!(!none.is_error, "{}", none.text);
    assert!(none.text.starts_with("nothing in the repository matches the task"), "{}", none.text);
    let bad = context(&root, json!({"task": "x", "tokens": "many"}));
    assert!(bad.is_error, "{}", bad.text);
}

#[test]
fn a_last_line_left_alone_is_shown_rather_than_marked() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::from("def parse_header(raw):\n");
    for i in 2..48 {
        body.push_str(&format!("    step_{i} = {i}\n"));
    }
    body.push_str("    charset = raw\n    step_49 = 49\n    return raw\n");
    std::fs::write(dir.path().join("headers.py"), body).unwrap();
    let obs = context(dir.path(), json!({"task": "the charset is lost by parse_header"}));
    // The match and a line either side (47 to 49), then the last line alone.
    assert!(obs.text.contains("⋮\n47\t    step_47 = 47\n48\t    charset = raw\n"), "{}", obs.text);
    assert!(obs.text.contains("49\t    step_49 = 49\n50\t    return raw\n"), "{}", obs.text);
    assert!(!obs.text.contains("50\t    return raw\n⋮"), "{}", obs.text);
}

#[test]
fn a_file_shorter_on_disk_than_in_the_index_shows_no_empty_or_falsely_whole_function() {
    let dir = tempfile::tempdir().unwrap();
    let long: String = (0..40).map(|i| format!("    total_{i} = {i}\n")).collect();
    let file = dir.path().join("totals.py");
    std::fs::write(&file, format!("def other():\n    pass\n\n\ndef compute_total(items):\n{long}")).unwrap();
    let tb = Toolbox::new(dir.path(), Config::default(), Profile::Core, true).unwrap();
    let ask = || {
        let args = json!({"task": "compute_total is wrong", "focus": ["compute_total"]});
        tb.call(&Session::new(), "context", args, &CallContext::default()).observation
    };
    assert!(ask().text.contains("totals.py:5-45 compute_total (function)"));
    // The file changes behind the index's back (no watcher here): the index still says the
    // function spans lines 5-45. Cut inside the function, its body is not whole.
    std::fs::write(&file, format!("def other():\n    pass\n\n\ndef compute_total(items):\n{}", &long[..60]))
        .unwrap();
    let obs = ask();
    assert_eq!(obs.structured.as_ref().unwrap()["functions"][0]["whole"], json!(false), "{}", obs.text);
    // Cut before it, there is nothing of it to show.
    std::fs::write(&file, "def other():\n    pass\n").unwrap();
    let obs = ask();
    assert!(!obs.is_error, "{}", obs.text);
    assert!(!obs.text.contains("totals.py:5-"), "{}", obs.text);
}

#[test]
fn a_files_fifth_function_waits_for_the_next_files_best_and_the_tail_shows_its_best_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut many = String::new();
    for part in ["header", "body", "footer", "title", "chunk", "rest"] {
        many.push_str(&format!(
            "def parse_{part}(text):\n    # parse the {part} tokens\n    tokens = text.split()\n    \
             count = len(tokens)\n    return tokens[:count]\n\n\n"
        ));
    }
    std::fs::write(dir.path().join("parsing.py"), many).unwrap();
    std::fs::write(
        dir.path().join("lexer.py"),
        "def parse_tokens(stream):\n    # tokens before parse\n    first = stream.read()\n    \
         return first.split()\n",
    )
    .unwrap();
    let obs = context(dir.path(), json!({"task": "parse tokens"}));
    let data = obs.structured.unwrap();
    let order: Vec<&str> =
        data["functions"].as_array().unwrap().iter().map(|f| f["symbol"].as_str().unwrap()).collect();
    // The first file gives four, then the next file's best, then the first file's others.
    let lexer = order.iter().position(|s| *s == "parse_tokens").expect("the second file's function");
    assert_eq!(lexer, 4, "{order:?}\n{}", obs.text);
    assert_eq!(order.len(), 7, "{order:?}");
    // From the fourth function on, its signature and its best line.
    let tail = obs.text.split("lexer.py:1-4 parse_tokens (function)\n").nth(1).unwrap();
    expect![[r#"
        1	def parse_tokens(stream):
        2	    # tokens before parse
        ⋮
    "#]]
    .assert_eq(&tail.lines().take(3).map(|l| format!("{l}\n")).collect::<String>());
}

#[test]
fn a_reports_first_file_shows_its_weakly_matching_function_and_the_next_files_do_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("refunds.py"),
        "def refund_order_total(order):\n    # refund the order total\n    return order.total\n\n\n\
         def audit(entries):\n    kept = [e for e in entries if e.valid]\n    kept.sort()\n    \
         return [e.order for e in kept]\n\n\n\
         class Book:\n    order_id = 0\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ledger.py"),
        "def post_total(rows):\n    return sum(rows)\n\n\n\
         def close(book):\n    book.shut()\n    return book.order\n",
    )
    .unwrap();
    let shown = |task: &str| {
        let obs = context(dir.path(), json!({"task": task}));
        let data = obs.structured.unwrap();
        let shown: Vec<String> = data["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}:{}", f["path"].as_str().unwrap(), f["symbol"].as_str().unwrap()))
            .collect();
        (shown, obs.text)
    };
    // `audit` names the order once, in passing, as `close` does: the first file's is shown,
    // the next file's is not, nor the class whose field names it.
    let (report, text) = shown("Refund the order total\n\nThe total is refunded twice.");
    assert_eq!(
        report,
        ["refunds.py:refund_order_total", "refunds.py:audit", "ledger.py:post_total"],
        "{text}"
    );
    expect![[r#"
        3 functions for the task, best first (3 whole; ⋮ marks lines left out; ← caller, → callee, test: a test calling it)
        refunds.py:1-3 refund_order_total (function)
        1	def refund_order_total(order):
        2	    # refund the order total
        3	    return order.total
        refunds.py:6-9 audit (function)
        6	def audit(entries):
        7	    kept = [e for e in entries if e.valid]
        8	    kept.sort()
        9	    return [e.order for e in kept]
        ledger.py:1-2 post_total (function)
        1	def post_total(rows):
        2	    return sum(rows)
    "#]].assert_eq(&text);
    // A question is precise: a function that names it only in passing is not shown.
    let (question, text) = shown("refund the order total");
    assert_eq!(question, ["refunds.py:refund_order_total", "ledger.py:post_total"], "{text}");
}

#[test]
fn a_weak_function_past_the_third_gives_its_place_to_the_next_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut strong = String::new();
    for part in ["header", "body", "footer", "title"] {
        strong.push_str(&format!(
            "def parse_{part}_tokens(text):\n    # parse the {part} tokens\n    tokens = parse(text)\n    \
             return tokens\n\n\n"
        ));
    }
    std::fs::write(dir.path().join("parsing.py"), strong).unwrap();
    let filler: String = (0..40).map(|i| format!("    step_{i} = {i}\n")).collect();
    std::fs::write(
        dir.path().join("report.py"),
        format!("def summary(rows):\n    # counts tokens\n{filler}    return rows\n"),
    )
    .unwrap();
    let obs = context(dir.path(), json!({"task": "parse tokens"}));
    let data = obs.structured.unwrap();
    let symbols: Vec<&str> =
        data["functions"].as_array().unwrap().iter().map(|f| f["symbol"].as_str().unwrap()).collect();
    assert_eq!(symbols.len(), 4, "{symbols:?}\n{}", obs.text);
    assert!(!symbols.contains(&"summary"), "{symbols:?}");
    assert_eq!(data["next_files"][0], json!("report.py"), "{}", obs.text);
}

/// The first functions list two callees; a third is shown rather than a line saying how to list
/// it (which costs as much), and past three the rest are counted with how to list them.
#[test]
fn two_callees_are_listed_and_one_more_is_shown_rather_than_counted() {
    let callees = |n: usize| {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("def helper_{i}(x):\n    return x + {i}\n\n\n"));
        }
        let calls: String = (0..n).map(|i| format!("    x = helper_{i}(x)\n")).collect();
        text.push_str(&format!("def settle_invoice(x):\n    # settle the invoice\n{calls}    return x\n"));
        std::fs::write(dir.path().join("billing.py"), text).unwrap();
        let obs = context(dir.path(), json!({"task": "settle the invoice"}));
        let data = obs.structured.unwrap();
        assert_eq!(data["functions"][0]["symbol"], json!("settle_invoice"), "{}", obs.text);
        let listed = data["functions"][0]["callees"].as_array().unwrap().len();
        let more =
            obs.text.lines().find(|l| l.starts_with("  → ") && l.contains(" more: ")).map(str::to_string);
        (listed, more)
    };
    assert_eq!(callees(2), (2, None));
    assert_eq!(callees(3), (3, None));
    assert_eq!(
        callees(5),
        (2, Some("  → 3 more: callers(path=\"billing.py\", line=21, direction=\"callees\")".to_string()))
    );
}

/// Past the first, a function too long to show whole shows its best lines alone, no lines
/// around them.
#[test]
fn the_second_function_shows_its_best_lines_without_lines_around_them() {
    let dir = tempfile::tempdir().unwrap();
    let filler =
        |from: usize| -> String { (from..from + 20).map(|i| format!("    step_{i} = {i}\n")).collect() };
    std::fs::write(
        dir.path().join("refunds.py"),
        "def refund_invoice(x):\n    # refund the invoice\n    return x\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ledger.py"),
        format!("def post(x):\n{}    invoice_refund = x * 2\n{}    return x\n", filler(0), filler(20)),
    )
    .unwrap();
    let obs = context(dir.path(), json!({"task": "refund the invoice"}));
    let second = obs.text.split("ledger.py:1-43 post (function)\n").nth(1).expect(&obs.text);
    let shown: String = second.lines().take(4).map(|l| format!("{l}\n")).collect();
    assert_eq!(shown, " 1\tdef post(x):\n⋮\n22\t    invoice_refund = x * 2\n⋮\n", "{}", obs.text);
}

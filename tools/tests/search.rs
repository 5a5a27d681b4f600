//! `search` in `auto` mode through the toolbox: exact names, identifier words, enclosing symbols,
//! the cap, and what an agent reads.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect;
use serde_json::{Value, json};
use tack_tools::{CallContext, Config, Observation, Profile, Session, Toolbox, count_tokens};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name)
}

fn search(root: &Path, args: Value) -> Observation {
    let tb = Toolbox::new(root, Config::default(), Profile::Core, true).unwrap();
    tb.call(&Session::new(), "search", args, &CallContext::default()).observation
}

#[test]
fn an_exact_definition_name_finds_its_file_first_at_its_line() {
    let obs = search(&fixture("py_shop"), json!({"query": "apply_discount"}));
    let data = obs.structured.as_ref().unwrap();
    assert_eq!(data["results"][0]["path"], json!("shop/pricing.py"), "{}", obs.text);
    assert_eq!(data["results"][0]["hits"][0]["line"], json!(8), "{}", obs.text);
    assert_eq!(data["results"][0]["hits"][0]["symbol"], json!("apply_discount"));
    let obs = search(&fixture("rs_shapes"), json!({"query": "distance"}));
    let data = obs.structured.as_ref().unwrap();
    assert_eq!(data["results"][0]["path"], json!("src/geo.rs"), "{}", obs.text);
    assert_eq!(data["results"][0]["hits"][0]["line"], json!(21), "{}", obs.text);
}

#[test]
fn a_bug_report_reads_as_ranked_files_with_symbols() {
    let obs = search(
        &fixture("py_shop"),
        json!({"query": "Receipt shows the wrong amount after a discount code", "limit": 3}),
    );
    expect![[r#"
        12 matches in 5 files
        shop/receipts.py
          4: def send_receipt(cart: Cart, amount: float) -> str:  # in send_receipt
          6: return f"Receipt for {cart.customer}: " + ", ".join(lines) + f" = {amount:.2f}"  # in send_receipt
        shop/checkout.py
          10: send_receipt(cart, amount)  # in checkout
        shop/pricing.py
          8: def apply_discount(amount: float, code: str | None) -> float:  # in apply_discount
        … 2 more files; narrow with path= (a folder or a glob such as src/**/*.py) or a more specific query
    "#]]
    .assert_eq(&obs.text);
}

#[test]
fn a_camel_case_identifier_is_found_by_its_words_and_whole() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(
        dir.path().join("src/http.rs"),
        "pub fn parseHttpResponse(buf: &[u8]) -> usize {\n    buf.len()\n}\n",
    )
    .unwrap();
    fs::write(dir.path().join("src/other.rs"), "pub fn respond() {}\npub fn parse_args() {}\n").unwrap();
    fs::write(dir.path().join("src/third.rs"), "pub fn http_client() {}\n").unwrap();
    for query in ["parse http response", "parseHttpResponse", "HTTP response parsing"] {
        let obs = search(dir.path(), json!({ "query": query }));
        assert_eq!(
            obs.structured.unwrap()["results"][0]["path"],
            json!("src/http.rs"),
            "{query}: {}",
            obs.text
        );
    }
}

#[test]
fn hit_lines_of_a_crlf_file_keep_their_numbers_and_lose_the_carriage_return() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("codec.py"),
        "import os\r\n\r\ndef decode_frame(buf):\r\n    # DECODE the FRAME: decode, then check\r\n    return buf\r\n\r\nFRAME_SIZE = 4\r\n",
    )
    .unwrap();
    let obs = search(dir.path(), json!({"query": "decode frame"}));
    expect![[r#"
        2 matches in 1 files
        codec.py
          3: def decode_frame(buf):  # in decode_frame
          4: # DECODE the FRAME: decode, then check  # in decode_frame
    "#]]
    .assert_eq(&obs.text);
}

#[test]
fn every_hit_inside_a_definition_names_it() {
    let mut checked = 0;
    for query in
        ["cart items total", "discount code amount", "receipt for the customer", "tax rate", "checkout"]
    {
        let obs = search(&fixture("py_shop"), json!({"query": query, "limit": 50}));
        let data = obs.structured.unwrap();
        for result in data["results"].as_array().unwrap() {
            for hit in result["hits"].as_array().unwrap() {
                let text = hit["text"].as_str().unwrap();
                // Imports and the module docstring are the only module-level lines here.
                let top_level = text.starts_with("from ")
                    || text.starts_with("import ")
                    || text.starts_with("\"\"\"A tiny shop");
                assert_eq!(hit.get("symbol").is_some(), !top_level, "{result}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "{checked}");
}

#[test]
fn hits_name_the_functions_a_report_most_likely_means_best_first() {
    let dir = tempfile::tempdir().unwrap();
    let parser = r#"class Parser:
    """Reads a config: a header line, then the body's lines."""

    def __init__(self, text):
        self.text = text

    def parse_header(self, line):
        return line.split(":")

    def parse_body(self, lines):
        def strip(line):
            return line.strip()
        return [strip(line) for line in lines if line]


def test_parse_body():
    assert Parser("").parse_body([" a ", ""]) == ["a"]
"#;
    fs::write(dir.path().join("parser.py"), parser).unwrap();
    fs::write(dir.path().join("cli.py"), "def main(path):\n    return open(path).read()\n").unwrap();
    let obs = search(dir.path(), json!({"query": "parse_body drops the blank lines of a config's body"}));
    // The method the report names comes first. The test that calls it scores less, as do the
    // class's docstring (config, body, lines) and the other method: under half of it, so they
    // are left out.
    expect![[r#"
        5 matches in 1 files
        parser.py
          10: def parse_body(self, lines):  # in Parser.parse_body
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.unwrap();
    let symbols: Vec<&str> =
        data["results"][0]["hits"].as_array().unwrap().iter().filter_map(|h| h["symbol"].as_str()).collect();
    assert_eq!(symbols.first(), Some(&"Parser.parse_body"), "{symbols:?}");
    // A closure's lines count for the method that holds it.
    let obs = search(dir.path(), json!({"query": "strip"}));
    expect![[r#"
        1 matches in 1 files
        parser.py
          11: def strip(line):  # in Parser.parse_body
          12: return line.strip()  # in Parser.parse_body
          13: return [strip(line) for line in lines if line]  # in Parser.parse_body
    "#]]
    .assert_eq(&obs.text);
}

#[test]
fn a_file_the_report_names_by_its_identifier_outranks_one_that_repeats_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let references = r#"class MockWeakReference:
    """A weak ref to a mock object: the garbage collector may collect the mock object."""

    def get(self):
        # A weak ref lets the mock object be garbage: a strong ref keeps the mock alive.
        return self.ref()


class MockStrongReference:
    """A strong ref to a mock object, never garbage while the ref lives."""
"#;
    fs::write(dir.path().join("references.py"), references).unwrap();
    let stubbing =
        "class BaseStubbing:\n    def then_return(self, value):\n        self.answers.append(value)\n";
    fs::write(dir.path().join("stubbing.py"), stubbing).unwrap();
    let query = "Prevent premature garbage collection of mock object when using one-liner stubs by \
                 using strong ref in BaseStubbing";
    let obs = search(dir.path(), json!({"query": query}));
    let data = obs.structured.unwrap();
    let paths: Vec<&str> =
        data["results"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    // `BaseStubbing` is one identifier of two parts: the report names the class, not its words.
    assert_eq!(paths, ["stubbing.py", "references.py"], "{}", obs.text);
    // The same words apart name nothing: the file that repeats them comes first.
    let obs = search(dir.path(), json!({"query": query.replace("BaseStubbing", "base stubbing")}));
    let data = obs.structured.unwrap();
    assert_eq!(data["results"][0]["path"], json!("references.py"), "{}", obs.text);
}

#[test]
fn a_files_weak_functions_leave_its_hits() {
    let dir = tempfile::tempdir().unwrap();
    // Only one function of the first file is about the report: `list_dir` holds one of its
    // words in passing and is not shown (it was, as the second hit, before the weak were
    // dropped), while the next file keeps its best function however weak.
    let walk = "def spawn_senders(entries, tx):\n    for entry in entries:\n        tx.send(entry)  # send each entry, stop when the receiver is gone\n\n\ndef scan(root):\n    return spawn_senders(list_dir(root), channel())\n\n\ndef list_dir(root):\n    return [root]  # entry\n";
    fs::write(dir.path().join("walk.py"), walk).unwrap();
    let exec = "def batch(receiver):\n    # the receiver is gone: stop\n    return list(receiver)\n";
    fs::write(dir.path().join("exec.py"), exec).unwrap();
    let obs = search(dir.path(), json!({"query": "stop sending each entry once the receiver is gone"}));
    expect![[r#"
        8 matches in 2 files
        walk.py
          3: tx.send(entry)  # send each entry, stop when the receiver is gone  # in spawn_senders
          2: for entry in entries:  # in spawn_senders
        exec.py
          2: # the receiver is gone: stop  # in batch
    "#]]
    .assert_eq(&obs.text);
}

fn stdlib() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
fn the_text_stays_under_the_cap_for_any_limit() {
    let root = stdlib().join("email");
    for limit in [1, 10, 50] {
        let obs = search(
            &root,
            json!({"query": "parse the message header and encode the payload", "limit": limit}),
        );
        let data = obs.structured.as_ref().unwrap();
        let total = data["total_files"].as_u64().unwrap();
        assert!(total > 20);
        assert_eq!(data["results"].as_array().unwrap().len() as u64, total.min(limit));
        assert!(count_tokens(&obs.text) <= 10_000, "limit {limit}: {} tokens", count_tokens(&obs.text));
        assert!(data.get("output_handle").is_none(), "no cut needed: results are bounded by construction");
    }
}

#[test]
fn symbol_mode_finds_definitions_by_exact_prefix_and_camel_humps() {
    let obs = search(&fixture("py_shop"), json!({"query": "apply_disc", "mode": "symbol"}));
    expect![[r#"
        1 matches in 1 files
        shop/pricing.py
          8: def apply_discount(amount: float, code: str | None) -> float:  # in apply_discount
    "#]]
    .assert_eq(&obs.text);
    let obs = search(&fixture("rs_shapes"), json!({"query": "Shape", "mode": "symbol"}));
    let data = obs.structured.unwrap();
    assert_eq!(data["results"][0]["path"], json!("src/shapes/mod.rs"), "the exact name leads");
    let obs = search(&fixture("py_shop"), json!({"query": "wt", "mode": "symbol"}));
    assert!(obs.text.contains("def with_tax("), "camel humps: {}", obs.text);
    let obs = search(&fixture("py_shop"), json!({"query": "nothing_like_it", "mode": "symbol"}));
    assert!(obs.text.contains("no definition is named like it"), "{}", obs.text);
}

#[test]
fn lines_that_hold_the_same_terms_tie_and_keep_their_order_from_call_to_call() {
    let dir = tempfile::tempdir().unwrap();
    // Four query terms of four different document frequencies, so their IDFs are distinct
    // floats whose sum depends on the order they are added in.
    let mut tie = String::new();
    for (i, words) in
        ["alpha beta gamma delta", "delta gamma beta alpha", "gamma alpha delta beta"].iter().enumerate()
    {
        tie.push_str(&format!("def f{i}():\n    return '{words}'\n"));
    }
    fs::write(dir.path().join("ties.py"), tie).unwrap();
    for (i, (n, words)) in [(3, "alpha"), (4, "alpha beta"), (3, "alpha beta gamma")].iter().enumerate() {
        for k in 0..*n {
            fs::write(dir.path().join(format!("other_{i}_{k}.py")), format!("X = '{words}'\n")).unwrap();
        }
    }
    let tb = Toolbox::new(dir.path(), Config::default(), Profile::Core, true).unwrap();
    // Each thread hashes with its own random keys, as each server run does.
    let run = || {
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let args = json!({"query": "alpha beta gamma delta", "path": "ties.py"});
                    tb.call(&Session::new(), "search", args, &CallContext::default()).observation.text
                })
                .join()
                .unwrap()
        })
    };
    let first = run();
    expect![[r#"
        4 matches in 1 files
        ties.py
          2: return 'alpha beta gamma delta'  # in f0
          4: return 'delta gamma beta alpha'  # in f1
          6: return 'gamma alpha delta beta'  # in f2
    "#]]
    .assert_eq(&first);
    for _ in 0..40 {
        assert_eq!(run(), first);
    }
}

#[test]
fn go_a_report_finds_the_defining_file_with_its_functions() {
    let obs = search(
        &fixture("go_shop"),
        json!({"query": "discount code is applied twice in ApplyDiscount", "limit": 2}),
    );
    expect![[r#"
        8 matches in 2 files
        pricing/pricing.go
          22: func ApplyDiscount(amount float64, code string) float64 {  # in ApplyDiscount
           8: Discount(amount float64) float64  # in Discounter.Discount
        cart/cart.go
          34: return pricing.ApplyDiscount(raw, c.Code) * (1 + TaxRate)  # in Cart.Total
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.as_ref().unwrap();
    assert_eq!(data["results"][0]["path"], json!("pricing/pricing.go"), "{}", obs.text);
    let obs = search(&fixture("go_shop"), json!({"query": "Subtotal", "mode": "symbol"}));
    assert!(obs.text.contains("cart/item.go") && obs.text.contains("Item.Subtotal"), "{}", obs.text);
}

#[test]
fn typescript_a_report_finds_the_defining_file() {
    let obs = search(
        &fixture("ts_shop"),
        json!({"query": "the discount code is not taken off the amount", "limit": 2}),
    );
    expect![[r#"
        6 matches in 2 files
        src/pricing.ts
          9: export function applyDiscount(amount: number, code?: Code): number {  # in applyDiscount
        src/cart.ts
          20: return applyDiscount(raw, this.code) * (1 + TAX_RATE);  # in Cart.total
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.as_ref().unwrap();
    assert_eq!(data["results"][0]["path"], json!("src/pricing.ts"), "{}", obs.text);
}

#[test]
fn java_a_report_finds_the_defining_file() {
    let obs = search(
        &fixture("java_shop"),
        json!({"query": "the discount code is not taken off the amount", "limit": 2}),
    );
    expect![[r#"
        8 matches in 3 files
        src/main/java/shop/pricing/Pricing.java
          8: public static double applyDiscount(double amount, String code) {  # in Pricing.applyDiscount
        src/main/java/shop/Cart.java
          28: return withTax(Pricing.applyDiscount(raw, code));  # in Cart.total
        … 1 more files; narrow with path= (a folder or a glob such as src/**/*.py) or a more specific query
    "#]]
    .assert_eq(&obs.text);
    let data = obs.structured.as_ref().unwrap();
    assert_eq!(data["results"][0]["path"], json!("src/main/java/shop/pricing/Pricing.java"), "{}", obs.text);
}

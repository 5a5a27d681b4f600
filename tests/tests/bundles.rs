//! Index bundles through the real binary: `tack index --bundle` gives the same bytes for one
//! tree at two paths; `tack search --bundle` and `tack serve --bundle` start a checkout with no
//! index from one, parse only the files that differ, and answer; a damaged bundle is refused
//! with a message that says so, and tack still answers, from an index built from nothing. A
//! reader of `tack index`'s output that goes away (`| head`) leaves the bundle written, no panic.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use tack_tests::{call, fixture_copy, tack_binary};

/// Runs tack with `args`; its standard output and error.
fn tack(args: &[&str]) -> (String, String) {
    let out = Command::new(tack_binary()).args(args).env("TACK_LOG", "info").output().expect("tack runs");
    assert!(out.status.success(), "tack {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

/// The bundle of `root`, written to `out` by `tack index` with a fresh store.
fn bundle(root: &Path, out: &Path) -> String {
    let store = tempfile::tempdir().unwrap();
    tack(&["index", "--root", path(root), "--index-dir", path(store.path()), "--bundle", path(out)]).0
}

/// `tack search QUERY` on `root` with its index in `store`, started from `bundle`.
fn search_from(query: &str, root: &Path, store: &Path, bundle: &Path) -> (String, String) {
    tack(&["search", query, "--root", path(root), "--index-dir", path(store), "--bundle", path(bundle)])
}

#[test]
fn one_tree_gives_one_bundle_and_a_checkout_starts_from_it() {
    let (a, b, out) = (fixture_copy("py_shop"), fixture_copy("py_shop"), tempfile::tempdir().unwrap());
    let printed = bundle(a.path(), &out.path().join("a.bundle"));
    assert!(
        printed.contains(&format!("bundle {}: 7 files", path(&out.path().join("a.bundle")))),
        "{printed}"
    );
    bundle(b.path(), &out.path().join("b.bundle"));
    let (first, second) = (
        std::fs::read(out.path().join("a.bundle")).unwrap(),
        std::fs::read(out.path().join("b.bundle")).unwrap(),
    );
    assert!(first == second, "two bundles of one tree at two paths differ");

    // Another checkout, one file changed, no index yet: it starts from the bundle.
    std::fs::write(
        b.path().join("shop/pricing.py"),
        std::fs::read_to_string(b.path().join("shop/pricing.py")).unwrap()
            + "\n\ndef loyalty_bonus():\n    return 5\n",
    )
    .unwrap();
    let store = tempfile::tempdir().unwrap();
    let (found, log) = search_from("loyalty bonus", b.path(), store.path(), &out.path().join("a.bundle"));
    assert!(log.contains("starting from the bundle"), "{log}");
    assert!(found.lines().nth(1) == Some("shop/pricing.py"), "{found}");
    // The store holds an index now: the bundle is not read again.
    let (_, log) = search_from("cart", b.path(), store.path(), &out.path().join("a.bundle"));
    assert!(log.contains("the bundle is not read"), "{log}");
}

#[test]
fn a_damaged_bundle_is_refused_and_tack_still_answers() {
    let (a, out) = (fixture_copy("py_shop"), tempfile::tempdir().unwrap());
    let good = out.path().join("a.bundle");
    bundle(a.path(), &good);
    let mut bytes = std::fs::read(&good).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    let damaged = out.path().join("damaged.bundle");
    std::fs::write(&damaged, bytes).unwrap();
    let store = tempfile::tempdir().unwrap();
    let (found, log) = search_from("cart total", a.path(), store.path(), &damaged);
    assert!(log.contains("the bundle is refused") && log.contains("damaged"), "{log}");
    assert!(found.contains("shop/cart.py"), "{found}");
}

/// `serve --bundle`: the server's first answers come from an index the bundle seeded.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_starts_from_a_bundle() {
    use rmcp::ServiceExt;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let (a, b, out) = (fixture_copy("py_shop"), fixture_copy("py_shop"), tempfile::tempdir().unwrap());
    let file = out.path().join("a.bundle");
    bundle(a.path(), &file);
    let store = tempfile::tempdir().unwrap();
    let (root, store_path) = (b.path().to_path_buf(), store.path().to_path_buf());
    let transport = TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.arg("serve")
            .arg("--root")
            .arg(&root)
            .arg("--index-dir")
            .arg(&store_path)
            .arg("--bundle")
            .arg(&file)
            .env("TACK_LOG", "error");
    }))
    .expect("tack starts");
    let client = ().serve(transport).await.expect("handshake");
    let result = call(&client, "search", json!({"query": "apply discount", "limit": 3})).await;
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("shop/pricing.py"), "{text}");
    assert!(store.path().join("index.bin").exists(), "the bundle seeded the store");
    client.cancel().await.unwrap();
}

#[test]
fn a_reader_that_goes_away_leaves_the_bundle_written_and_no_panic() {
    use std::process::Stdio;
    let (a, out) = (fixture_copy("py_shop"), tempfile::tempdir().unwrap());
    let store = tempfile::tempdir().unwrap();
    let file = out.path().join("a.bundle");
    let mut child = Command::new(tack_binary())
        .args(["index", "--root", path(a.path()), "--index-dir", path(store.path()), "--bundle", path(&file)])
        .env("TACK_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tack runs");
    // The reader closes its end before tack prints anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("tack ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !stderr.contains("panicked"), "{:?}: {stderr}", out.status);
    assert!(file.exists(), "the bundle is written");
}

//! The map and search through the real server: they follow changes made while the server runs,
//! and a restart on an unchanged repository reuses the saved index and answers the same bytes.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tack_tests::{fixture_copy, tack_binary};
use tokio::io::AsyncReadExt;

type Client = RunningService<RoleClient, ()>;

async fn start(root: &Path, store: &Path) -> (Client, tokio::process::ChildStderr) {
    start_logging(root, store, "info").await
}

/// [`start`], its log filtered by `log` (`TACK_LOG`).
async fn start_logging(root: &Path, store: &Path, log: &str) -> (Client, tokio::process::ChildStderr) {
    let (transport, stderr) =
        TokioChildProcess::builder(tokio::process::Command::new(tack_binary()).configure(|cmd| {
            cmd.arg("serve").arg("--root").arg(root).arg("--index-dir").arg(store).env("TACK_LOG", log);
        }))
        .stderr(Stdio::piped())
        .spawn()
        .expect("tack starts");
    let client = ().serve(transport).await.expect("handshake");
    (client, stderr.expect("stderr is piped"))
}

async fn repo_map(client: &Client) -> String {
    let args = json!({}).as_object().unwrap().clone();
    let result = client.call_tool(CallToolRequestParams::new("repo_map").with_arguments(args)).await.unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

async fn search(client: &Client, query: &str) -> String {
    let args = json!({ "query": query }).as_object().unwrap().clone();
    let result = client.call_tool(CallToolRequestParams::new("search").with_arguments(args)).await.unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

/// Calls `tool` until `seen` holds for its text, for up to 10 s: the watcher folds a change in
/// after 250 ms of quiet, and calls in the meantime read the snapshot before it.
async fn until<F, Fut>(tool: F, seen: impl Fn(&str) -> bool) -> String
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let text = tool().await;
        if seen(&text) || std::time::Instant::now() > deadline {
            return text;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_map_and_search_follow_changes_made_while_the_server_runs() {
    let repo = fixture_copy("py_shop");
    let store = tempfile::tempdir().unwrap();
    let (client, _stderr) = start(repo.path(), store.path()).await;
    let before = repo_map(&client).await;
    assert!(before.contains("shop/cart.py:"), "{before}");
    assert!(!before.contains("refund_order"));

    // Another agent (or an editor) writes a file: the watcher folds it in, no restart.
    std::fs::write(
        repo.path().join("shop/refunds.py"),
        "from .cart import Cart\n\n\ndef refund_order(cart: Cart) -> float:\n    return -cart.total()\n",
    )
    .unwrap();
    let signature = "def refund_order(cart: Cart) -> float:";
    let after = until(|| repo_map(&client), |map| map.contains(signature)).await;
    assert!(after.contains(signature), "{after}");
    // The search index follows too: a term that did not exist is found.
    std::fs::write(repo.path().join("shop/audit.py"), "def zanzibar_ledger():\n    return 1\n").unwrap();
    let found = until(|| search(&client, "zanzibar ledger"), |text| text.contains("shop/audit.py")).await;
    assert!(found.starts_with("2 matches in 1 files\nshop/audit.py\n"), "{found}");

    std::fs::remove_file(repo.path().join("shop/receipts.py")).unwrap();
    let gone = until(|| repo_map(&client), |map| !map.contains("shop/receipts.py")).await;
    assert!(!gone.contains("shop/receipts.py"), "{gone}");
    assert!(!gone.contains("send_receipt(cart"), "{gone}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_restart_reuses_the_saved_index_and_the_map_is_byte_identical() {
    let repo = fixture_copy("rs_shapes");
    let store = tempfile::tempdir().unwrap();
    let (client, mut stderr) = start(repo.path(), store.path()).await;
    let first = repo_map(&client).await;
    client.cancel().await.unwrap();
    let mut log = String::new();
    stderr.read_to_string(&mut log).await.unwrap();
    assert!(log.contains("no saved index yet"), "{log}");
    assert!(log.contains("parsed=5"), "{log}");

    let (client, mut stderr) = start(repo.path(), store.path()).await;
    let second = repo_map(&client).await;
    client.cancel().await.unwrap();
    let mut log = String::new();
    stderr.read_to_string(&mut log).await.unwrap();
    assert!(log.contains("reusing the saved index files=5"), "{log}");
    assert!(log.contains("parsed=0 reused=5"), "no file is parsed again: {log}");
    assert_eq!(first, second);
}

#[tokio::test]
async fn a_fresh_server_answers_its_first_map_from_the_ranks_tack_index_saved_with_the_same_bytes() {
    let repo = fixture_copy("py_shop");
    let saved = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(tack_binary())
        .args(["index", "--root"])
        .arg(repo.path())
        .arg("--index-dir")
        .arg(saved.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let log = "info,tack_indexer::map=debug";
    let (client, mut stderr) = start_logging(repo.path(), saved.path(), log).await;
    let from_saved = repo_map(&client).await;
    client.cancel().await.unwrap();
    let mut saved_log = String::new();
    stderr.read_to_string(&mut saved_log).await.unwrap();
    assert!(saved_log.contains("reusing the saved index"), "{saved_log}");
    // The ranks are read, not iterated (whether the map or the tables made after the first scan
    // asks first: on so few files the tables are often made before the map is asked).
    assert_eq!(first_iterations(&saved_log), Some("0"), "{saved_log}");
    assert!(!saved_log.contains("not used"), "{saved_log}");

    let nothing = tempfile::tempdir().unwrap();
    let (client, mut stderr) = start_logging(repo.path(), nothing.path(), log).await;
    let from_nothing = repo_map(&client).await;
    client.cancel().await.unwrap();
    let mut log = String::new();
    stderr.read_to_string(&mut log).await.unwrap();
    assert!(log.contains("no saved index yet"), "{log}");
    assert_ne!(first_iterations(&log), Some("0"), "{log}");
    assert_eq!(from_saved, from_nothing);
}

/// How many iterations the first PageRank a server's debug log shows took.
fn first_iterations(log: &str) -> Option<&str> {
    let at = log.find("pagerank iterations=")? + "pagerank iterations=".len();
    log[at..].split_whitespace().next()
}

/// The types ARCHITECTURE.md names in backticks that the repository defines (`struct`, `enum`,
/// `trait`, `type`), read from the document and the sources as they are now.
fn architecture_types(repo: &Path) -> Vec<String> {
    let doc = std::fs::read_to_string(repo.join("ARCHITECTURE.md")).unwrap();
    let mut named: Vec<String> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| {
            let last = quoted.rsplit("::").next()?;
            let ok = last.starts_with(|c: char| c.is_ascii_uppercase())
                && last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ok.then(|| last.to_string())
        })
        .collect();
    named.sort();
    named.dedup();
    let mut sources = String::new();
    for dir in ["indexer/src", "tools/src", "server/src", "tests/src"] {
        let walk = ignore::WalkBuilder::new(repo.join(dir)).build();
        for entry in walk.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "rs")) {
            sources += &std::fs::read_to_string(entry.path()).unwrap();
        }
    }
    named.into_iter().filter(|name| declares(&sources, name)).collect()
}

/// Whether `text` declares type `name` (`struct Name`, not `struct Names`).
fn declares(text: &str, name: &str) -> bool {
    ["struct ", "enum ", "trait ", "type "].iter().any(|kw| {
        text.match_indices(&format!("{kw}{name}"))
            .any(|(at, m)| !text[at + m.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

#[test]
fn the_readme_map_of_tack_shows_most_types_its_architecture_document_names() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let store = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(tack_binary())
        .args(["map", "--tokens", "2048", "--root"])
        .arg(repo)
        .arg("--index-dir")
        .arg(store.path())
        .env("TACK_LOG", "error")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let map = String::from_utf8(output.stdout).unwrap();
    let types = architecture_types(repo);
    assert!(types.len() >= 10, "ARCHITECTURE.md names these types: {types:?}");
    let (shown, missing): (Vec<&String>, Vec<&String>) = types.iter().partition(|name| {
        map.lines().any(|line| declares(line.split_once('│').map_or(line, |(_, b)| b), name))
    });
    assert!(2 * shown.len() >= types.len(), "shown {shown:?}, missing {missing:?}\n{map}");
}

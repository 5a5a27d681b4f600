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
    let (transport, stderr) =
        TokioChildProcess::builder(tokio::process::Command::new(tack_binary()).configure(|cmd| {
            cmd.arg("serve").arg("--root").arg(root).arg("--index-dir").arg(store).env("TACK_LOG", "info");
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

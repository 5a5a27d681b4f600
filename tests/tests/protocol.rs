//! Raw JSON-RPC over stdio: malformed lines and wrong argument types get errors, and the
//! server keeps serving.

use std::time::Duration;

use serde_json::{Value, json};
use tack_tests::{sample_repo, stdio_server};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

#[tokio::test]
async fn malformed_input_gets_errors_never_a_dead_server() {
    let repo = sample_repo();
    let mut child = Command::from(stdio_server(repo.path())).kill_on_drop(true).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |line: &str| {
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    };
    send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#).await;
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    send("this is not json").await;
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":["not","a","string"]}}}"#).await;
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#)
        .await;
    send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"../../etc/passwd"}}}"#).await;
    send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;

    let mut replies: Vec<Value> = Vec::new();
    while replies.len() < 6 {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("a reply within 20 s")
            .unwrap()
            .expect("the server is still writing");
        replies.push(serde_json::from_str(&line).expect("every stdout line is JSON"));
    }
    let by_id = |id: Value| replies.iter().find(|r| r["id"] == id).cloned().unwrap_or(Value::Null);
    assert_eq!(by_id(Value::Null)["error"]["code"], json!(-32700), "{replies:?}");
    let wrong_type = by_id(json!(2));
    assert_eq!(wrong_type["result"]["isError"], json!(true));
    assert!(
        wrong_type["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("invalid arguments for read_file")
    );
    assert_eq!(by_id(json!(3))["error"]["code"], json!(-32602));
    let escape = by_id(json!(4));
    assert_eq!(escape["result"]["isError"], json!(true));
    assert!(escape["result"]["content"][0]["text"].as_str().unwrap().contains("leaves the repository root"));
    assert_eq!(by_id(json!(5))["result"], json!({}));
    child.kill().await.unwrap();
}

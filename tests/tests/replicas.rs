//! Three `tack serve --http --state …` replicas behind a real HAProxy (round robin, 2025
//! sessions stuck to a replica by `Mcp-Session-Id`), one shared tree and a real PostgreSQL. One
//! agent goes through a plan, an edit, a passing `verify` and a result cut to a handle; the
//! replica that served its last call is killed; another replica serves it on with the plan, the
//! gate's `done` and the handle's text intact. On 2026-07-28 any replica serves any call; a 2025
//! session whose replica died gets the protocol's 404, and a new session resumes the agent by
//! its handle.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tack_tests::postgres::Postgres;
use tack_tests::{HttpServer, agent_in, fixture_copy, handle_in, python_with, start_http_as};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PYTEST: &str = "pytest==9.2.0";
const TOKEN: &str = "replicas-share-this-token-0123456789";

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// An HTTP response: status, headers (names lowercased), and the JSON-RPC message its body holds.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    message: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    fn replica(&self) -> String {
        self.header("x-tack-replica")
            .unwrap_or_else(|| panic!("no replica named: {:?}", self.headers))
            .to_string()
    }

    fn text(&self) -> String {
        self.message["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
    }
}

/// A body sent in chunks, put back together.
fn unchunk(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..end]).trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < end + 2 + size {
            break;
        }
        out.extend_from_slice(&rest[end + 2..end + 2 + size]);
        rest = &rest[(end + 4 + size).min(rest.len())..];
    }
    out
}

/// POSTs one JSON-RPC message to `url` with the token and `headers`.
async fn post(url: &str, headers: &[(&str, &str)], body: &Value) -> Answer {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = tokio::net::TcpStream::connect(host).await.expect("HAProxy listens");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(300), stream.read_to_end(&mut raw))
        .await
        .expect("an answer")
        .unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("headers end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked")) {
        body = unchunk(&body);
    }
    let body = String::from_utf8_lossy(&body).into_owned();
    let message = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").or(Some(l)))
        .find_map(|l| serde_json::from_str::<Value>(l).ok().filter(|v| v.get("jsonrpc").is_some()))
        .unwrap_or(Value::Null);
    Answer { status, headers, message }
}

/// A `tools/call` without a session (2026-07-28).
async fn call_2026(url: &str, name: &str, args: Value) -> Answer {
    let meta = json!({
        "io.modelcontextprotocol/clientInfo": {"name": "replicas-test", "version": "0"},
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": args, "_meta": meta}});
    post(
        url,
        &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", name)],
        &body,
    )
    .await
}

/// A 2025 session: its id, and the replica it is stuck to.
async fn open_session(url: &str) -> (String, String) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "replicas-test", "version": "0"}}});
    let answer = post(url, &[], &init).await;
    assert_eq!(answer.status, 200, "{:?}", answer.message);
    let id = answer.header("mcp-session-id").expect("a session id").to_string();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(url, &[("Mcp-Session-Id", &id), ("MCP-Protocol-Version", "2025-06-18")], &initialized).await;
    (id, answer.replica())
}

/// A `tools/call` in the 2025 session `id`.
async fn call_2025(url: &str, id: &str, name: &str, args: Value) -> Answer {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": args}});
    post(url, &[("Mcp-Session-Id", id), ("MCP-Protocol-Version", "2025-06-18")], &body).await
}

/// Three replicas and HAProxy in front of them; dropped, all stop.
struct Cluster {
    replicas: Vec<(String, HttpServer)>,
    haproxy: tokio::process::Child,
    url: String,
    _dir: tempfile::TempDir,
}

async fn cluster(root: &Path, db: &Postgres) -> Cluster {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    let python = python_with(&[("pytest", PYTEST)]);
    let path =
        format!("{}:{}", python.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let url = db.url();
    let mut replicas = Vec::new();
    for name in ["r1", "r2", "r3"] {
        let store = dir.path().join(name);
        let args = [
            "--state",
            &url,
            "--index-dir",
            store.to_str().unwrap(),
            "--token-file",
            token.to_str().unwrap(),
        ];
        let server = start_http_as(root, &args, |cmd| {
            cmd.env("PATH", &path);
        })
        .await;
        replicas.push((name.to_string(), server));
    }
    let port = free_port();
    let mut config = format!(
        "global\n  maxconn 256\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 300s\n  timeout server 300s\n  option redispatch\n  retries 3\nfrontend mcp\n  bind 127.0.0.1:{port}\n  default_backend tack\nbackend tack\n  balance roundrobin\n  stick-table type string len 64 size 10k expire 30m\n  stick on req.hdr(mcp-session-id)\n  stick store-response res.hdr(mcp-session-id)\n  http-response set-header X-Tack-Replica %[srv_name]\n"
    );
    for (name, server) in &replicas {
        let address = server.url.trim_start_matches("http://").split('/').next().unwrap().to_string();
        config.push_str(&format!("  server {name} {address} check inter 200ms fall 1 rise 2\n"));
    }
    let file = dir.path().join("haproxy.cfg");
    std::fs::write(&file, config).unwrap();
    let haproxy = tokio::process::Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(&file)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("HAProxy starts (scripts/test installs Debian's haproxy)");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Cluster { replicas, haproxy, url: format!("http://127.0.0.1:{port}/mcp"), _dir: dir }
}

impl Cluster {
    /// Kills replica `name` (SIGKILL) and waits until HAProxy has marked it down.
    async fn kill(&mut self, name: &str) {
        let (_, server) = self.replicas.iter_mut().find(|(n, _)| n == name).unwrap();
        server.child.start_kill().unwrap();
        server.child.wait().await.unwrap();
        tokio::time::sleep(Duration::from_millis(800)).await;
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.haproxy.start_kill();
    }
}

/// The agent's work before the failure: a plan, a fix, a passing verify, a cut result. Each
/// call goes through `call`; the handle of the cut result and the replica of the last call.
async fn work<F, Fut>(call: F) -> (String, String)
where
    F: Fn(&'static str, Value) -> Fut,
    Fut: std::future::Future<Output = Answer>,
{
    let edit =
        call("edit_file", json!({"path": "calc.py", "old": "sum(prices) - 1", "new": "sum(prices)"})).await;
    assert!(!edit.text().is_empty() && edit.message["result"]["isError"] != true, "{}", edit.text());
    let verify = call("verify", json!({})).await;
    assert!(verify.text().starts_with("verify: all 1 checks passed"), "{}", verify.text());
    let cut = call("run", json!({"command": "seq 1 100000"})).await;
    (handle_in(&cut.text()), cut.replica())
}

/// After the failure: the plan, the gate and the handle's text, as another replica serves them.
async fn intact<F, Fut>(call: F, handle: &str, dead: &str)
where
    F: Fn(&'static str, Value) -> Fut,
    Fut: std::future::Future<Output = Answer>,
{
    let plan = call("call_tool", json!({"name": "todo", "arguments": {}})).await;
    assert_ne!(plan.replica(), dead);
    assert!(plan.text().contains("fix total() dropping one"), "the plan: {}", plan.text());
    let done = call("call_tool", json!({"name": "done", "arguments": {}})).await;
    assert!(
        done.text().starts_with("done: a verify passed after the last edit"),
        "the gate: {}",
        done.text()
    );
    let page = call(
        "call_tool",
        json!({"name": "read_output", "arguments": {"handle": handle, "start": 100000, "lines": 2}}),
    )
    .await;
    assert!(page.text().contains("100000\t99999"), "the handle's text: {}", page.text());
}

const PLAN: &str = r#"{"name": "todo", "arguments": {"plan": [{"step": "fix total() dropping one", "status": "completed"}]}}"#;

#[tokio::test(flavor = "multi_thread")]
async fn without_sessions_any_replica_serves_an_agent_and_a_dead_one_loses_nothing() {
    let db = Postgres::start();
    let repo = fixture_copy("verify_py");
    let mut cluster = cluster(repo.path(), &db).await;
    let url = cluster.url.clone();
    let first = call_2026(&url, "call_tool", serde_json::from_str(PLAN).unwrap()).await;
    assert_eq!(first.status, 200, "{:?}", first.message);
    let agent = agent_in(&first.text());
    let with = |mut args: Value| {
        args["agent"] = json!(agent);
        args
    };
    let (handle, last) = work(|name, args| call_2026(&url, name, with(args))).await;
    cluster.kill(&last).await;
    intact(|name, args| call_2026(&url, name, with(args)), &handle, &last).await;
    // Without a session to stick to, the replicas left take the calls in turn.
    let again = two_reads(&url, &with).await;
    assert!(again[0] != again[1] && again.iter().all(|r| *r != last), "{again:?}");

    // A file one replica wrote is in the other's index by its next answer, asked at once.
    let edit = call_2026(
        &url,
        "edit_file",
        with(json!({"path": "calc.py", "old": "def total(prices):", "new": "def loyalty_bonus(points):\n    return points // 10\n\n\ndef total(prices):"})),
    )
    .await;
    assert_eq!(edit.message["result"]["isError"], false, "{}", edit.text());
    let writer = edit.replica();
    let (_, other) = cluster.replicas.iter().find(|(name, _)| *name != writer && *name != last).unwrap();
    let found =
        call_2026(&other.url, "search", with(json!({"query": "loyalty_bonus", "mode": "symbol"}))).await;
    assert!(found.text().contains("calc.py") && found.text().contains("loyalty_bonus"), "{}", found.text());
}

/// Two reads in a row: the replicas left alive take turns.
async fn two_reads(url: &str, with: &dyn Fn(Value) -> Value) -> Vec<String> {
    let mut replicas = Vec::new();
    for _ in 0..2 {
        replicas.push(call_2026(url, "read_file", with(json!({"path": "calc.py"}))).await.replica());
    }
    replicas
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_whose_replica_died_is_told_so_and_a_new_one_resumes_its_agent() {
    let db = Postgres::start();
    let repo = fixture_copy("verify_py");
    let mut cluster = cluster(repo.path(), &db).await;
    let url = cluster.url.clone();
    let (session, stuck) = open_session(&url).await;
    let first = call_2025(&url, &session, "call_tool", serde_json::from_str(PLAN).unwrap()).await;
    assert!(first.text().contains("this agent's state is kept"), "{}", first.text());
    let agent = agent_in(&first.text());
    let (handle, last) = work(|name, args| call_2025(&url, &session, name, args)).await;
    assert_eq!(last, stuck, "a session stays on its replica");
    cluster.kill(&stuck).await;
    let lost = call_2025(&url, &session, "read_file", json!({"path": "calc.py"})).await;
    assert_eq!(lost.status, 404, "a session whose replica died is unknown: {:?}", lost.message);
    let (resumed, _) = open_session(&url).await;
    let with = |mut args: Value| {
        args["agent"] = json!(agent);
        args
    };
    intact(|name, args| call_2025(&url, &resumed, name, with(args)), &handle, &stuck).await;
}

//! Agents' state kept in a real PostgreSQL (`tack serve --state`), through the real binary over
//! HTTP, on both protocol revisions: an agent writes a plan, fixes a bug, passes `verify` and
//! has a result cut to a handle; the server that served it is killed; another server on the
//! same tree and database serves the same agent by its handle, with the plan, the gate's `done`
//! and the handle's text intact.

use rmcp::model::{CallToolResult, ProtocolVersion};
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{Value, json};
use tack_tests::postgres::Postgres;
use tack_tests::{HttpServer, agent_in, call, fixture_copy, handle_in, python_with, start_http_as};

const PYTEST: &str = "pytest==9.2.0";

fn text(result: &CallToolResult) -> &str {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str()).unwrap_or("")
}

/// A server on `root` whose agents' state is kept in `db`, with pytest on its PATH.
async fn server(root: &std::path::Path, store: &std::path::Path, db: &Postgres) -> HttpServer {
    let python = python_with(&[("pytest", PYTEST)]);
    let path =
        format!("{}:{}", python.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let url = db.url();
    start_http_as(root, &["--state", &url, "--index-dir", store.to_str().unwrap()], |cmd| {
        cmd.env("PATH", &path);
    })
    .await
}

/// A client of `server`: a 2025 session, or requests without one (2026-07-28).
async fn client(server: &HttpServer, stateless: bool) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    if stateless {
        ().serve_with_lifecycle(
            server.transport(),
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        )
        .await
        .expect("discover over HTTP")
    } else {
        ().serve(server.transport()).await.expect("a session over HTTP")
    }
}

async fn outlives_its_server(stateless: bool) {
    let db = Postgres::start();
    let repo = fixture_copy("verify_py");
    let store = tempfile::tempdir().unwrap();
    let mut first = server(repo.path(), store.path(), &db).await;
    let a = client(&first, stateless).await;

    let plan = call(
        &a,
        "call_tool",
        json!({"name": "todo", "arguments": {"plan": [{"step": "fix total() dropping one", "status": "completed"}]}}),
    )
    .await;
    assert_ne!(plan.is_error, Some(true), "{}", text(&plan));
    let agent = agent_in(text(&plan));
    let with = |mut args: Value| {
        args["agent"] = json!(agent);
        args
    };
    let edit = call(
        &a,
        "edit_file",
        with(json!({"path": "calc.py", "old": "sum(prices) - 1", "new": "sum(prices)"})),
    )
    .await;
    assert_ne!(edit.is_error, Some(true), "{}", text(&edit));
    let verify = call(&a, "verify", with(json!({}))).await;
    assert!(text(&verify).starts_with("verify: all 1 checks passed"), "{}", text(&verify));
    let cut = call(&a, "run", with(json!({"command": "seq 1 100000"}))).await;
    let handle = handle_in(text(&cut));

    // The server that served it dies.
    first.child.start_kill().unwrap();
    first.child.wait().await.unwrap();
    drop(a);

    let second = server(repo.path(), store.path(), &db).await;
    let b = client(&second, stateless).await;
    let plan = call(&b, "call_tool", with(json!({"name": "todo", "arguments": {}}))).await;
    assert!(text(&plan).contains("fix total() dropping one"), "the plan: {}", text(&plan));
    let done = call(&b, "call_tool", with(json!({"name": "done", "arguments": {}}))).await;
    assert!(
        text(&done).starts_with("done: a verify passed after the last edit"),
        "the gate's verdict: {}",
        text(&done)
    );
    let page = call(
        &b,
        "call_tool",
        with(json!({"name": "read_output", "arguments": {"handle": handle, "start": 100000, "lines": 2}})),
    )
    .await;
    assert_ne!(page.is_error, Some(true), "{}", text(&page));
    assert!(
        text(&page).contains("of 100001") && text(&page).contains("100000\t99999"),
        "the handle's whole text: {}",
        text(&page)
    );
    // Every call's trace line is in the database, the first server's and the second's.
    let traced: u64 = db.query("SELECT count(*) FROM tack_traces").parse().unwrap();
    assert!(traced >= 7, "{traced} trace lines");
    assert_eq!(db.query(&format!("SELECT count(*) FROM tack_agents WHERE handle = '{agent}'")), "1");
    // `tack trace` reads it back: both servers' calls, under the one session.
    let out = std::process::Command::new(tack_tests::tack_binary())
        .args(["trace", "--state", &db.url(), "--root"])
        .arg(repo.path())
        .env("TACK_LOG", "error")
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{summary}{}", String::from_utf8_lossy(&out.stderr));
    for tool in ["todo", "edit_file", "verify", "run", "done", "read_output"] {
        assert!(summary.contains(tool), "{tool} missing from the trace:\n{summary}");
    }
    // A handle no server gave is refused, with what to do.
    let forged = call(&b, "read_file", json!({"path": "calc.py", "agent": "a0123456789abcdef0123"})).await;
    assert_eq!(forged.is_error, Some(true), "{}", text(&forged));
    b.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sessions_agent_outlives_its_server() {
    outlives_its_server(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_without_a_session_outlives_its_server() {
    outlives_its_server(true).await;
}

/// The database restarts under a running server: a call while it is away fails with a message
/// that says so; the first after it is back connects again and finds the agent's state.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_connects_again_when_the_database_comes_back() {
    let mut db = Postgres::start();
    let repo = fixture_copy("verify_py");
    let store = tempfile::tempdir().unwrap();
    let running = server(repo.path(), store.path(), &db).await;
    let a = client(&running, true).await;
    let plan = call(
        &a,
        "call_tool",
        json!({"name": "todo", "arguments": {"plan": [{"step": "survive a restart", "status": "pending"}]}}),
    )
    .await;
    let agent = agent_in(text(&plan));
    db.restart();
    let read = call(&a, "call_tool", json!({"name": "todo", "arguments": {}, "agent": agent})).await;
    assert_ne!(read.is_error, Some(true), "{}", text(&read));
    assert!(text(&read).contains("survive a restart"), "{}", text(&read));
    a.cancel().await.unwrap();
}

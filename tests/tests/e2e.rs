//! End-to-end: the real `tack` binary driven by rmcp's client over stdio (legacy handshake and
//! 2026-07-28 discovery) and over streamable HTTP with two sessions at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use expect_test::expect_file;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ProgressNotificationParam,
    ProtocolVersion,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tack_tests::{
    agent_in, call, handle_in, sample_repo, start_http, tack_binary, test_cache_home, wait_for_processes,
};

/// A client that counts the notifications tack sends.
#[derive(Clone, Default)]
struct Recorder {
    list_changed: Arc<AtomicUsize>,
    progress: Arc<std::sync::Mutex<Vec<f64>>>,
}

impl ClientHandler for Recorder {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params.progress);
    }
}

type Client = RunningService<RoleClient, Recorder>;

fn stdio_transport(root: &std::path::Path, extra: &[&str]) -> TokioChildProcess {
    let root = root.to_path_buf();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.arg("serve")
            .arg("--root")
            .arg(&root)
            .args(&extra)
            .env("TACK_LOG", "warn")
            .env("XDG_CACHE_HOME", test_cache_home());
    }))
    .expect("tack starts")
}

fn text(result: &CallToolResult) -> &str {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str()).unwrap_or("")
}

async fn tool_names(client: &Client) -> Vec<String> {
    client.list_tools(None).await.expect("tools/list").tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn stdio_legacy_client_lists_calls_and_discovers_tools() {
    let repo = sample_repo();
    let recorder = Recorder::default();
    let client = recorder.clone().serve(stdio_transport(repo.path(), &[])).await.expect("handshake");
    assert_eq!(client.peer_info().unwrap().protocol_version, ProtocolVersion::V_2025_11_25);

    let listed = client.list_tools(None).await.unwrap();
    let json = serde_json::to_string_pretty(&listed.tools).unwrap();
    expect_file!["snapshots/tools_list.json"].assert_eq(&json);
    for tool in &listed.tools {
        assert!(tool.annotations.is_some(), "{} has annotations", tool.name);
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
    }
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.len() < 2048, "instructions are {} bytes", instructions.len());

    // Text only by default: what Claude Code and Codex hand their model is this text.
    assert!(listed.tools.iter().all(|t| t.output_schema.is_none()), "no output schema without --structured");
    let result = call(&client, "read_file", json!({"path": "notes/big.txt", "start": 450})).await;
    let version = tack_tools::version_of(&std::fs::read(repo.path().join("notes/big.txt")).unwrap());
    assert_eq!(
        text(&result).lines().next(),
        Some(
            format!("[notes/big.txt: lines 450-549 of 1000; 449 above, 451 below; version {version}]")
                .as_str()
        )
    );
    assert_eq!(text(&result).lines().count(), 101);
    assert_eq!(result.structured_content, None);

    let result = call(&client, "search", json!({"query": "marker", "mode": "text", "limit": 5})).await;
    assert!(text(&result).starts_with("30 matches in 30 files\n"), "{}", text(&result));
    assert_eq!(result.structured_content, None);

    // Discovery: the new tool is listed and the client is told.
    assert!(!tool_names(&client).await.contains(&"read_output".to_string()));
    let result = call(&client, "find_tools", json!({"query": "output"})).await;
    assert!(text(&result).contains("read_output (output)"), "{}", text(&result));
    let deadline = Instant::now() + Duration::from_secs(5);
    while recorder.list_changed.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(recorder.list_changed.load(Ordering::SeqCst), 1, "one tools/list_changed");
    assert!(tool_names(&client).await.contains(&"read_output".to_string()));

    // A cut result and its handle, read back directly and through call_tool.
    let result = call(&client, "run", json!({"command": "seq 1 200000"})).await;
    let handle = handle_in(text(&result));
    assert!(text(&result).starts_with("exit=0\n"));
    assert!(text(&result).contains(&format!("read_output(handle=\"{handle}\", start=")));
    let page = call(&client, "read_output", json!({"handle": handle, "start": 100000, "lines": 2})).await;
    assert!(text(&page).contains("100000\t99999\n100001\t100000\n"), "{}", text(&page));
    let page = call(
        &client,
        "call_tool",
        json!({"name": "read_output", "arguments": {"handle": handle, "start": "5", "lines": "1"}}),
    )
    .await;
    assert!(text(&page).contains("5\t4\n"), "{}", text(&page));
    client.cancel().await.unwrap();
}

/// Checks `data` against the top level of `schema`: every required property present, and no
/// property the schema does not name.
fn assert_matches_schema(tool: &str, data: &Value, schema: &serde_json::Map<String, Value>) {
    let props = schema["properties"].as_object().expect("properties");
    let data = data.as_object().unwrap_or_else(|| panic!("{tool}: structured content is an object"));
    for key in data.keys() {
        assert!(props.contains_key(key), "{tool}: {key} is not in the output schema");
    }
    for key in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
        assert!(data.contains_key(key.as_str().unwrap()), "{tool}: required {key} is missing");
    }
}

#[tokio::test]
async fn structured_mode_sends_data_that_matches_the_listed_output_schemas() {
    let repo = sample_repo();
    let client =
        Recorder::default().serve(stdio_transport(repo.path(), &["--structured"])).await.expect("handshake");
    let listed = client.list_tools(None).await.unwrap();
    let json = serde_json::to_string_pretty(&listed.tools).unwrap();
    expect_file!["snapshots/tools_list_structured.json"].assert_eq(&json);
    let schema = |name: &str| {
        listed
            .tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.output_schema.clone())
            .expect("output schema")
    };
    let calls = [
        ("read_file", json!({"path": "notes/big.txt", "start": 450})),
        ("search", json!({"query": "marker", "mode": "text", "limit": 5})),
        ("run", json!({"command": "seq 1 200000"})),
        ("repo_map", json!({})),
        ("edit_file", json!({"path": "src/lib.rs", "old": "3.14", "new": "std::f64::consts::PI"})),
    ];
    for (name, args) in calls {
        let result = call(&client, name, args).await;
        let data = result.structured_content.as_ref().unwrap_or_else(|| panic!("{name}: structured content"));
        assert_matches_schema(name, data, &schema(name));
        match name {
            "read_file" => assert_eq!(data["total"], json!(1000)),
            "search" => assert_eq!(data["results"].as_array().unwrap().len(), 5),
            "run" => assert_eq!(data["output_handle"].as_str(), Some(handle_in(text(&result)).as_str())),
            "edit_file" => assert_eq!(data["verified_since_last_edit"], json!(false)),
            _ => {}
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdio_2026_client_keeps_a_fixed_list_and_uses_call_tool() {
    let repo = sample_repo();
    let client = Recorder::default()
        .serve_with_lifecycle(
            stdio_transport(repo.path(), &[]),
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
        )
        .await
        .expect("discover");
    let before = tool_names(&client).await;
    assert_eq!(before, tack_tests::CORE_TOOLS);
    let found = call(&client, "find_tools", json!({})).await;
    assert!(text(&found).contains("call them with call_tool(name, arguments)\n"), "{}", text(&found));
    assert_eq!(tool_names(&client).await, before, "2026-07-28: the list never changes per connection");
    let result = call(&client, "run", json!({"command": "seq 1 100000"})).await;
    let handle = handle_in(text(&result));
    let page = call(
        &client,
        "call_tool",
        json!({"name": "read_output", "arguments": {"handle": handle, "lines": 2}}),
    )
    .await;
    assert!(text(&page).starts_with(&format!("[{handle}: lines 1-2 of 100001;")), "{}", text(&page));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_call_kills_its_command_and_the_server_keeps_serving() {
    let repo = sample_repo();
    let client = Recorder::default().serve(stdio_transport(repo.path(), &[])).await.unwrap();
    let Value::Object(args) = json!({"command": "sleep 7401"}) else { unreachable!() };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("run").with_arguments(args),
    ));
    let handle = client.send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
    let started =
        tokio::task::spawn_blocking(|| wait_for_processes(&["sleep", "7401"], 10, |p| !p.is_empty()));
    assert!(!started.await.unwrap().is_empty(), "the command started");
    handle.cancel(Some("test".into())).await.unwrap();
    let left = tokio::task::spawn_blocking(|| wait_for_processes(&["sleep", "7401"], 10, <[u32]>::is_empty));
    assert_eq!(left.await.unwrap(), Vec::<u32>::new(), "the command outlived the cancel");
    let result = call(&client, "run", json!({"command": "echo still here"})).await;
    assert_eq!(text(&result), "exit=0\nstill here\n");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn long_runs_report_progress_when_asked() {
    let repo = sample_repo();
    let recorder = Recorder::default();
    let client = recorder.clone().serve(stdio_transport(repo.path(), &[])).await.unwrap();
    let Value::Object(args) = json!({"command": "sleep 6; echo done"}) else { unreachable!() };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("run").with_arguments(args),
    ));
    let handle = client.send_request_with_option(request, PeerRequestOptions::no_options()).await.unwrap();
    handle.await_response().await.unwrap();
    let progress = recorder.progress.lock().unwrap().clone();
    assert!(!progress.is_empty(), "no progress notification in a 6 s run");
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "progress increases: {progress:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn read_only_server_has_no_run() {
    let repo = sample_repo();
    let client = Recorder::default().serve(stdio_transport(repo.path(), &["--read-only"])).await.unwrap();
    assert_eq!(
        tool_names(&client).await,
        ["context", "repo_map", "search", "read_file", "find_tools", "call_tool"]
    );
    let err = client
        .call_tool(
            CallToolRequestParams::new("run")
                .with_arguments(json!({"command": "touch x"}).as_object().unwrap().clone()),
        )
        .await;
    assert!(err.is_err(), "run is not a tool under --read-only");
    assert!(!repo.path().join("x").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_serves_two_sessions_at_once_with_separate_state() {
    let repo = sample_repo();
    let server = start_http(repo.path(), &[]).await;
    let a = Recorder::default();
    let b = Recorder::default();
    let client_a = a.clone().serve(server.transport()).await.unwrap();
    let client_b = b.clone().serve(server.transport()).await.unwrap();

    // Both at once: slow commands in A, more of them than the server has workers for quick
    // tools, all run at once and do not hold up B.
    let mut slow = tokio::task::JoinSet::new();
    for i in 0..8 {
        let peer = client_a.peer().clone();
        slow.spawn(
            async move { call(&peer, "run", json!({"command": format!("sleep 2.51; echo a-{i}")})).await },
        );
    }
    let running =
        tokio::task::spawn_blocking(|| wait_for_processes(&["sleep", "2.51"], 10, |p| p.len() >= 8));
    assert_eq!(running.await.unwrap().len(), 8, "A's commands waited for each other");
    let started = Instant::now();
    let quick = call(&client_b, "search", json!({"query": "Cart", "mode": "text"})).await;
    let quick_took = started.elapsed();
    assert!(text(&quick).starts_with("2 matches in 2 files\n"), "{}", text(&quick));
    assert!(quick_took < Duration::from_secs(2), "B waited for A: {quick_took:?}");
    let mut done: Vec<String> = slow.join_all().await.iter().map(|r| text(r).to_string()).collect();
    done.sort();
    assert_eq!(done, (0..8).map(|i| format!("exit=0\na-{i}\n")).collect::<Vec<_>>());

    // Discovery is per session.
    call(&client_a, "find_tools", json!({"query": "output"})).await;
    assert!(tool_names(&client_a).await.contains(&"read_output".to_string()));
    assert!(!tool_names(&client_b).await.contains(&"read_output".to_string()));

    // Handles are per session: B cannot read A's.
    let cut = call(&client_a, "run", json!({"command": "seq 1 100000"})).await;
    let handle = handle_in(text(&cut));
    let mine = call(&client_a, "read_output", json!({"handle": handle, "lines": 1})).await;
    assert_eq!(mine.is_error, Some(false));
    let theirs = call(&client_b, "read_output", json!({"handle": handle})).await;
    assert_eq!(theirs.is_error, Some(true), "{}", text(&theirs));

    client_a.cancel().await.unwrap();
    client_b.cancel().await.unwrap();
}

#[tokio::test]
async fn http_2026_agents_keep_their_own_state_and_never_reach_anothers() {
    let repo = sample_repo();
    let server = start_http(repo.path(), &[]).await;
    let discover = || async {
        Recorder::default()
            .serve_with_lifecycle(
                server.transport(),
                ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] },
            )
            .await
            .expect("discover over HTTP")
    };
    let (a, b) = (discover().await, discover().await);
    let tools = a.list_all_tools().await.unwrap();
    let run = tools.iter().find(|t| t.name == "run").unwrap();
    assert!(
        run.input_schema["properties"]["agent"].is_object(),
        "requests without a session are told of agent"
    );

    // A's first call starts its agent; with the handle, A pages its output, however it nests it.
    let cut = call(&a, "run", json!({"command": "seq 1 100000"})).await;
    let (agent_a, handle) = (agent_in(text(&cut)), handle_in(text(&cut)));
    for args in [
        json!({"name": "read_output", "arguments": {"handle": handle, "lines": 1}, "agent": agent_a}),
        json!({"name": "read_output", "arguments": {"handle": handle, "lines": 1, "agent": agent_a}}),
    ] {
        let page = call(&a, "call_tool", args).await;
        assert_eq!(page.is_error, Some(false), "a handle outlives the request that made it: {}", text(&page));
        assert!(!text(&page).contains("agent a"), "a known agent is not told again: {}", text(&page));
    }
    // Without A's handle, B is a new agent, which has no h1.
    let theirs = call(&b, "call_tool", json!({"name": "read_output", "arguments": {"handle": handle}})).await;
    assert_eq!(theirs.is_error, Some(true), "{}", text(&theirs));
    let agent_b = agent_in(text(&theirs));
    assert_ne!(agent_a, agent_b);
    let theirs = call(
        &b,
        "call_tool",
        json!({"name": "read_output", "arguments": {"handle": handle}, "agent": agent_b}),
    )
    .await;
    assert_eq!(theirs.is_error, Some(true), "B's own agent has no h1 either: {}", text(&theirs));

    // A's edit: B's undo cannot revert it and B's gate does not count it; A's undo does.
    let edited = "class Cart:\n    def add(self, item):\n        self.items.insert(0, item)\n";
    let edit = call(
        &a,
        "edit_file",
        json!({"path": "shop/cart.py", "old": "append(item)", "new": "insert(0, item)", "agent": agent_a}),
    )
    .await;
    assert_eq!(edit.is_error, Some(false), "{}", text(&edit));
    let undo = |client, agent| {
        call(
            client,
            "call_tool",
            json!({"name": "undo", "arguments": {"path": "shop/cart.py"}, "agent": agent}),
        )
    };
    let theirs = undo(&b, agent_b.clone()).await;
    assert_eq!(theirs.is_error, Some(true), "{}", text(&theirs));
    assert_eq!(std::fs::read_to_string(repo.path().join("shop/cart.py")).unwrap(), edited);
    let done =
        |client, agent| call(client, "call_tool", json!({"name": "done", "arguments": {}, "agent": agent}));
    let done_a = done(&a, agent_a.clone()).await;
    let done_b = done(&b, agent_b.clone()).await;
    assert!(text(&done_a).contains("not verified since the last edit"), "{}", text(&done_a));
    assert!(
        text(&done_b).contains("not verified: no verify has run"),
        "B's gate knows nothing of A's edit: {}",
        text(&done_b)
    );
    let mine = undo(&a, agent_a.clone()).await;
    assert_eq!(mine.is_error, Some(false), "{}", text(&mine));
    assert!(std::fs::read_to_string(repo.path().join("shop/cart.py")).unwrap().contains("append(item)"));

    // A guessed handle is refused, with what to do.
    let forged =
        call(&b, "read_file", json!({"path": "shop/cart.py", "agent": "a0123456789abcdef0123"})).await;
    assert_eq!(forged.is_error, Some(true));
    assert!(text(&forged).contains("unknown or has ended"), "{}", text(&forged));
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

#[tokio::test]
async fn commands_see_no_credential_unless_the_command_line_passes_it() {
    let repo = sample_repo();
    let secrets = [("OPENAI_API_KEY", "sk-1"), ("GITHUB_TOKEN", "ghp-2"), ("AWS_SECRET_ACCESS_KEY", "aws-3")];
    for pass in [None, Some("GITHUB_TOKEN")] {
        let root = repo.path().to_path_buf();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
                cmd.args(["serve", "--root"])
                    .arg(&root)
                    .env("TACK_LOG", "warn")
                    .env("XDG_CACHE_HOME", test_cache_home());
                cmd.env("TACK_HARMLESS", "visible");
                for (name, value) in secrets {
                    cmd.env(name, value);
                }
                if let Some(name) = pass {
                    cmd.args(["--pass-env", name]);
                }
            }))
            .expect("tack starts");
        let client = Recorder::default().serve(transport).await.expect("handshake");
        let env = call(&client, "run", json!({"command": "env"})).await;
        let env = text(&env);
        assert!(env.contains("TACK_HARMLESS=visible\n"), "{env}");
        for (name, value) in secrets {
            let visible = env.contains(&format!("{name}={value}\n"));
            assert_eq!(visible, pass == Some(name), "{name} with --pass-env {pass:?}:\n{env}");
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn commands_write_only_inside_the_root_and_their_scratch_folder_unless_the_user_adds_one() {
    if !tack_tools::confines_writes() {
        eprintln!("this kernel has no Landlock: commands may write anywhere");
        return;
    }
    let repo = sample_repo();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("kept.txt"), "mine\n").unwrap();
    let out = outside.path().display().to_string();
    // Each way a shell or a program writes, aimed outside the root.
    let escapes = [
        format!("echo x > {out}/new.txt"),
        format!("echo x >> {out}/kept.txt"),
        format!("rm {out}/kept.txt"),
        format!("mkdir {out}/dir"),
        format!("ln -s /etc/passwd {out}/link"),
        format!("cp src/lib.rs {out}/copied.rs"),
        format!("mv shop/cart.py {out}/moved.py"),
        format!("truncate -s 0 {out}/kept.txt"),
        format!("python3 -c \"open('{out}/py.txt', 'w').write('x')\""),
        format!("cd {out} && git init -q repo"),
    ];
    for writable in [false, true] {
        let root = repo.path().to_path_buf();
        let extra = outside.path().to_path_buf();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
                cmd.args(["serve", "--root"])
                    .arg(&root)
                    .env("TACK_LOG", "warn")
                    .env("XDG_CACHE_HOME", test_cache_home());
                if writable {
                    cmd.arg("--writable").arg(&extra);
                }
            }))
            .expect("tack starts");
        let client = Recorder::default().serve(transport).await.expect("handshake");
        for escape in &escapes {
            let result = call(&client, "run", json!({"command": escape})).await;
            let refused = !text(&result).starts_with("exit=0");
            assert_eq!(refused, !writable, "`{escape}` with --writable {writable}: {}", text(&result));
        }
        if !writable {
            let left: Vec<_> =
                std::fs::read_dir(outside.path()).unwrap().flatten().map(|e| e.file_name()).collect();
            assert_eq!(left, ["kept.txt"], "nothing was made, moved or removed outside");
            assert_eq!(std::fs::read_to_string(outside.path().join("kept.txt")).unwrap(), "mine\n");
            assert!(repo.path().join("shop/cart.py").exists(), "the refused mv moved nothing");
            let inside = call(
                &client,
                "run",
                json!({"command": "echo a > made.txt && mkdir -p d && echo b > \"$TMPDIR/t\" && cat made.txt \"$TMPDIR/t\" && rm made.txt"}),
            )
            .await;
            assert!(text(&inside).starts_with("exit=0\na\nb\n"), "{}", text(&inside));
            // Outside folders are absent where commands see by allow-list; `/` is there, and
            // Landlock refuses a write to it.
            let refusal = call(&client, "run", json!({"command": "echo x > /tack-landlock-probe.txt"})).await;
            assert!(
                text(&refusal).contains("Permission denied"),
                "the kernel's own error: {}",
                text(&refusal)
            );
            assert!(!std::path::Path::new("/tack-landlock-probe.txt").exists());
        }
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn with_redact_secrets_no_result_shows_a_secret_and_without_it_the_file_reads_as_it_is() {
    let repo = sample_repo();
    std::fs::write(
        repo.path().join("settings.py"),
        "AWS_KEY = \"AKIAIOSFODNN7EXAMPLE\"\nDB_PASSWORD = \"correct-horse-battery\"\nDEBUG = True\n",
    )
    .unwrap();
    for redact in [false, true] {
        let root = repo.path().to_path_buf();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
                cmd.args(["serve", "--root"])
                    .arg(&root)
                    .args(["--pass-env", "OPENAI_API_KEY"])
                    .env("OPENAI_API_KEY", "sk-proj-0123456789abcdefghijklmn")
                    .env("TACK_LOG", "warn")
                    .env("XDG_CACHE_HOME", test_cache_home());
                if redact {
                    cmd.arg("--redact-secrets");
                }
            }))
            .expect("tack starts");
        let client = Recorder::default().serve(transport).await.expect("handshake");
        let read = call(&client, "read_file", json!({"path": "settings.py"})).await;
        let search = call(&client, "search", json!({"query": "AKIAIOSFODNN7EXAMPLE", "mode": "text"})).await;
        let env = call(&client, "run", json!({"command": "echo key=$OPENAI_API_KEY"})).await;
        let all = format!("{}\n{}\n{}", text(&read), text(&search), text(&env));
        for secret in ["AKIAIOSFODNN7EXAMPLE", "correct-horse-battery", "sk-proj-0123456789abcdefghijklmn"] {
            assert_eq!(all.contains(secret), !redact, "{secret} with --redact-secrets {redact}:\n{all}");
        }
        if redact {
            assert!(text(&read).contains("2\tDB_PASSWORD = \"[redacted: secret]\"\n"), "{}", text(&read));
            assert!(text(&read).contains("1\tAWS_KEY = \"[redacted: aws-access-key]\"\n"), "{}", text(&read));
            assert!(text(&env).contains("key=[redacted: environment]"), "{}", text(&env));
            assert!(text(&read).contains("3\tDEBUG = True\n"), "the rest reads as it is: {}", text(&read));
        }
        client.cancel().await.unwrap();
    }
}

/// Starts `tack serve --http ADDR` with `extra`, returning the child, the loopback URL to reach
/// it and the stderr lines printed before it served.
async fn start_http_logged(
    root: &std::path::Path,
    addr: &str,
    extra: &[&str],
) -> (tokio::process::Child, String, Vec<String>) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(tack_binary())
        .args(["serve", "--http", addr, "--root"])
        .arg(root)
        .args(extra)
        .env("XDG_CACHE_HOME", test_cache_home())
        .env("TACK_LOG", "warn")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut before = Vec::new();
    let url = loop {
        let line =
            tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
        if let Some(url) = line.strip_prefix("tack: serving MCP at ") {
            break url.trim().replace("0.0.0.0", "127.0.0.1");
        }
        before.push(line);
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url, before)
}

/// The status line of a bare initialize POST to `url`, with this Authorization header.
async fn post_status(url: &str, authorization: Option<&str>) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let auth = authorization.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
    post_raw(url, &auth, body).await.0
}

#[tokio::test]
async fn http_beyond_loopback_needs_a_bearer_token() {
    let repo = sample_repo();
    // Given a token, even on loopback: every request must carry it.
    let (_given, url, _) = start_http_logged(repo.path(), "127.0.0.1:0", &["--token", "s3cret-token"]).await;
    assert!(post_status(&url, None).await.contains("401"));
    assert!(post_status(&url, Some("Bearer wrong-token0")).await.contains("401"));
    assert!(post_status(&url, Some("Bearer s3cret-token")).await.contains("200"));
    let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header("s3cret-token");
    let client = Recorder::default().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap();
    assert!(tool_names(&client).await.contains(&"read_file".to_string()));
    client.cancel().await.unwrap();

    // Beyond loopback without one: a token is made, saved 0600, and its path logged.
    let (_made, url, before) = start_http_logged(repo.path(), "0.0.0.0:0", &[]).await;
    let line = before
        .iter()
        .find(|l| l.contains("Authorization: Bearer <the token in "))
        .expect("the token's path is logged");
    let path = line.split("the token in ").nth(1).unwrap().trim_end_matches('>');
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(path).unwrap().permissions().mode() & 0o777, 0o600);
    let token = std::fs::read_to_string(path).unwrap();
    assert_eq!(token.len(), 48);
    assert!(post_status(&url, None).await.contains("401"));
    assert!(post_status(&url, Some(&format!("Bearer {token}"))).await.contains("200"));
}

#[tokio::test]
async fn http_on_loopback_needs_the_saved_token_which_survives_a_restart_unless_no_auth() {
    let repo = sample_repo();
    let index = tempfile::tempdir().unwrap();
    let index_dir = index.path().to_str().unwrap();
    let path = index.path().join("state/http-token");
    let logged = format!("tack: requests need Authorization: Bearer <the token in {}>", path.display());
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let start = |extra: &'static [&'static str]| {
        let mut args = vec!["--index-dir", index_dir];
        args.extend_from_slice(extra);
        let root = repo.path().to_path_buf();
        async move { start_http_logged(&root, "127.0.0.1:0", &args).await }
    };

    // No flag on loopback: a token is made, saved 0600, its path logged, and asked for.
    let (mut first, url, before) = start(&[]).await;
    assert!(before.contains(&logged), "{before:?}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    let token = std::fs::read_to_string(&path).unwrap();
    let refused = post_text(&url, "", init).await;
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    for says in [
        format!(
            "tack needs Authorization: Bearer TOKEN on every request; the token is in {}",
            path.display()
        ),
        format!("--header \"Authorization: Bearer $(cat {})\"", path.display()),
    ] {
        assert!(refused.contains(&says), "the 401 says how to get the token: {says}\n{refused}");
    }
    assert!(post_status(&url, Some(&format!("Bearer {token}"))).await.contains("200"));

    // Another Unix user on this machine gets 401, and cannot read the saved token.
    let as_nobody = |program: &str, args: &[&str]| {
        std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", program])
            .args(args)
            .output()
    };
    let root = unsafe { libc::geteuid() } == 0;
    if root && as_nobody("true", &[]).is_ok_and(|o| o.status.success()) {
        let curl = as_nobody(
            "curl",
            &[
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-H",
                "Content-Type: application/json",
                "-H",
                "Accept: application/json, text/event-stream",
                "--data",
                init,
                &url,
            ],
        )
        .expect("curl runs");
        assert_eq!(String::from_utf8_lossy(&curl.stdout), "401", "another user's request without the token");
        let read = as_nobody("cat", &[path.to_str().unwrap()]).unwrap();
        assert!(!read.status.success() && read.stdout.is_empty(), "another user read the token");
    } else {
        println!("skipped the other-user request: it needs root and setpriv to switch to uid 65534");
    }

    // A restart on the same index dir keeps the token, so a client's configuration still works.
    first.kill().await.unwrap();
    let (mut second, url, before) = start(&[]).await;
    assert!(before.contains(&logged), "{before:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), token);
    assert!(post_status(&url, Some(&format!("Bearer {token}"))).await.contains("200"));
    second.kill().await.unwrap();

    // A token file others could read is not reused: a new one replaces it, 0600 again.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (mut third, url, before) = start(&[]).await;
    assert!(
        before
            .iter()
            .any(|l| l.contains("http-token: not reused (its mode is 644, readable or writable by others)")),
        "{before:?}"
    );
    let fresh = std::fs::read_to_string(&path).unwrap();
    assert_ne!(fresh, token);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(post_status(&url, Some(&format!("Bearer {token}"))).await.contains("401"));
    assert!(post_status(&url, Some(&format!("Bearer {fresh}"))).await.contains("200"));
    third.kill().await.unwrap();

    // --no-auth restores the open loopback port, with a warning; beyond loopback it is refused.
    let (_open, url, before) = start(&["--no-auth"]).await;
    assert!(before.iter().any(|l| l.contains("--no-auth: HTTP requests need no token")), "{before:?}");
    assert!(post_status(&url, None).await.contains("200"));
    let refused = std::process::Command::new(tack_binary())
        .args(["serve", "--no-auth", "--http", "0.0.0.0:0", "--root"])
        .arg(repo.path())
        .env("XDG_CACHE_HOME", test_cache_home())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--no-auth is refused beyond loopback"));
}

/// The whole response to a raw POST of `body` to `url` with extra header lines.
async fn post_text(url: &str, headers: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').unwrap();
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut response)).await;
    String::from_utf8_lossy(&response).into_owned()
}

/// A raw POST of `body` to `url` with extra header lines: the status line and the
/// `mcp-session-id` header, if any.
async fn post_raw(url: &str, headers: &str, body: &str) -> (String, Option<String>) {
    let text = post_text(url, headers, body).await;
    let status = text.lines().next().unwrap_or("").to_string();
    let id = text.lines().find_map(|l| {
        l.to_ascii_lowercase().starts_with("mcp-session-id:").then(|| l[15..].trim().to_string())
    });
    (status, id)
}

#[tokio::test]
async fn an_http_session_keeps_its_state_among_hundreds_and_an_idle_one_answers_404() {
    let repo = sample_repo();
    let server = start_http(repo.path(), &[]).await;
    let first = Recorder::default().serve(server.transport()).await.expect("first session");
    let cut = call(&first, "run", json!({"command": "seq 1 200000"})).await;
    let handle = handle_in(text(&cut));
    // More sessions than the old table held (256): none may push the first one's state out.
    let mut others = Vec::new();
    for _ in 0..300 {
        others.push(().serve(server.transport()).await.expect("session"));
    }
    let page = call(&first, "read_output", json!({"handle": handle, "start": 100000, "lines": 1})).await;
    assert!(text(&page).contains("100000\t99999"), "{}", text(&page));
    for other in others {
        other.cancel().await.unwrap();
    }
    first.cancel().await.unwrap();

    // A session idle past --session-timeout is gone: its id answers 404, never 200 with empty state.
    let server = start_http(repo.path(), &["--session-timeout", "2"]).await;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let (status, id) = post_raw(&server.url, &server.auth_header(), init).await;
    assert!(status.contains("200"), "{status}");
    let id = id.expect("a session id");
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let session =
        format!("{}Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n", server.auth_header());
    assert!(post_raw(&server.url, &session, ping).await.0.contains("200"));
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (status, _) = post_raw(&server.url, &session, ping).await;
    assert!(status.contains("404"), "an expired session answered {status}");
}

/// The server's resident memory in MB, from `/proc`.
fn rss_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_http_sessions_leave_memory_bounded_and_a_busy_session_alive() {
    const SESSIONS: usize = 10_000;
    const WARM: usize = 2_000;
    let repo = sample_repo();
    let server = start_http(repo.path(), &[]).await;
    let pid = server.child.id().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let auth = server.auth_header();
    let header = |id: &str| format!("{auth}Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n");
    let open = |url: String, auth: String| async move {
        let (status, id) = post_raw(&url, &auth, init).await;
        assert!(status.contains("200"), "{status}");
        id.expect("a session id")
    };
    let first = open(server.url.clone(), auth.clone()).await;
    let busy = open(server.url.clone(), auth.clone()).await;
    let base = rss_mb(pid);
    let mut warm = 0;
    let mut opened = 2;
    while opened < SESSIONS {
        // Eight at a time, with the busy session used between batches.
        let mut batch = tokio::task::JoinSet::new();
        for _ in 0..8 {
            batch.spawn(open(server.url.clone(), auth.clone()));
        }
        batch.join_all().await;
        opened += 8;
        if opened % 200 < 8 {
            let (status, _) = post_raw(&server.url, &header(&busy), ping).await;
            assert!(status.contains("200"), "the busy session answered {status} after {opened} sessions");
        }
        if warm == 0 && opened >= WARM {
            warm = rss_mb(pid);
        }
    }
    let end = rss_mb(pid);
    // Unbounded, each session kept about 54 KB: 8,000 more would add about 430 MB.
    eprintln!("RSS {base} MB with 2 sessions, {warm} MB after {WARM}, {end} MB after {SESSIONS}");
    assert!(end <= warm + 100, "memory grew from {warm} MB to {end} MB over {} sessions", SESSIONS - WARM);
    let (status, _) = post_raw(&server.url, &header(&first), ping).await;
    assert!(status.contains("404"), "the session idle longest was closed, so its id answers {status}");
    let (status, _) = post_raw(&server.url, &header(&busy), ping).await;
    assert!(status.contains("200"), "the busy session is kept: {status}");
}

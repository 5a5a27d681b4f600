//! What the model reads through the real clients: Claude Code and Codex, installed from npm,
//! run headless with tack as their MCP server and a scripted stand-in as their model's API.
//! Every assertion is on the text a client handed its model as a tool result, taken from the
//! next request it sent the stand-in.
//!
//! CI time: about 10 s a client run once the npm packages are in `target/real-clients` (a
//! first install takes about 20 s).

use std::path::Path;

use serde_json::{Value, json};
use tack_tests::clients::{self, ClientRun, Transport};
use tack_tests::model::{AGENT, Api, ScriptedModel, ToolCall, call};
use tack_tests::{fixture_copy, python_with, start_http};
use tack_tools::{count_tokens, version_of};

/// pytest, pinned like the verify tests' (the same venv serves both).
const PYTEST: &str = "pytest==9.2.0";

/// Client truncation markers: none may reach the model, since tack cuts first.
const CLIENT_CUTS: &[&str] = &[
    "tokens truncated",
    "chars truncated",
    "<persisted-output>",
    "exceeds maximum allowed tokens",
    "OUTPUT TRUNCATED",
    "characters truncated",
];

/// The shop fixture with a verify check that runs pytest from the test venv.
fn shop() -> tempfile::TempDir {
    let repo = fixture_copy("py_shop");
    let python = python_with(&[("pytest", PYTEST)]);
    // (Commands see the venv because the server is told it is readable: `shows_the_venv`.)
    let config = format!(
        "[[verify.checks]]\nname = \"tests\"\ncommand = \"{} -m pytest -q -p no:cacheprovider\"\nformat = \"pytest\"\n",
        python.display()
    );
    std::fs::write(repo.path().join("tack.toml"), config).unwrap();
    repo
}

/// Every core tool, one specialised tool through `call_tool`, an error, and a 40,000-line run
/// paged back through its handle.
fn full_script() -> Vec<ToolCall> {
    vec![
        call("context", json!({"task": "Receipt shows the wrong amount after a discount code"})),
        call("repo_map", json!({})),
        call("search", json!({"query": "the total applies the discount code before tax"})),
        call("read_file", json!({"path": "shop/cart.py", "start": 20, "lines": 10})),
        call(
            "edit_file",
            json!({"path": "shop/cart.py", "old": "raw = sum(item.subtotal() for item in self.items)", "new": "raw = sum(i.subtotal() for i in self.items)"}),
        ),
        call(
            "edit_file",
            json!({"path": "shop/cart.py", "old": "def totl(self) -> int:", "new": "def total(self):"}),
        ),
        call("run", json!({"command": "echo hello from run; exit 3"})),
        call("run", json!({"command": "seq 1 40000"})),
        call(
            "call_tool",
            json!({"name": "read_output", "arguments": {"handle": "h1", "start": 20000, "lines": 3}}),
        ),
        call("verify", json!({})),
        call("find_tools", json!({"query": "definition"})),
        call("call_tool", json!({"name": "outline", "arguments": {"path": "shop/cart.py"}})),
        // Few tokens but 120,000 characters: under tack's token cap, over Claude Code's 50,000
        // characters (and Codex's 11,964 bytes), so only the client's own limit makes tack cut.
        call(
            "run",
            json!({"command": "awk 'BEGIN { for (i = 1; i <= 400; i++) printf \"x%300sy %d\\n\", \"\", i }'"}),
        ),
    ]
}

/// Asserts what the model received for each call of [`full_script`].
fn check_full_script(client: &str, results: &[String], repo: &Path, version_before: &str) {
    assert_eq!(results.len(), full_script().len(), "{client}: every call got a result: {results:#?}");
    let [context, map, search, read, edit, bad_edit, run, long_run, page, verify, found, outline, wide] =
        results
    else {
        unreachable!("the length was checked")
    };
    // The whole of `context`, as text, the same bytes through every client (Codex puts its
    // `Wall time … Output:` header first).
    let context = context.split_once("Output:\n").map_or(context.as_str(), |(_, text)| text);
    expect_test::expect_file!["snapshots/context_shop.txt"].assert_eq(context);
    let has = |what: &str, text: &str, needle: &str| {
        assert!(text.contains(needle), "{client}: {what} lacks {needle:?}:\n{text}");
    };
    has("repo_map", map, "class Cart:");
    has("repo_map", map, "def total(self) -> float:");
    has("repo_map", map, "⋮");
    has("search", search, "shop/cart.py");
    has("search", search, "# in Cart.total");
    has(
        "read_file",
        read,
        &format!("[shop/cart.py: lines 20-25 of 25; 19 above, 0 below; version {version_before}]\n"),
    );
    has("read_file", read, "24\t        raw = sum(item.subtotal() for item in self.items)");
    let version_after = version_of(&std::fs::read(repo.join("shop/cart.py")).unwrap());
    has(
        "edit_file",
        edit,
        &format!("edited shop/cart.py: 1 replacement at line 24; version {version_after}"),
    );
    has("edit_file", edit, "24\t        raw = sum(i.subtotal() for i in self.items)");
    has("edit_file", edit, "not verified since the last edit");
    has("edit_file error", bad_edit, "old does not occur in shop/cart.py");
    has("edit_file error", bad_edit, "Copy old exactly from the file");
    assert!(run.contains("exit=3\n") && run.contains("hello from run\n"), "{client}: run:\n{run}");
    has("long run", long_run, "exit=0\n1\n2\n");
    has("long run", long_run, "read_output(handle=\"h1\", start=");
    has("long run", long_run, "\n40000\n");
    for cut in CLIENT_CUTS {
        assert!(!long_run.contains(cut), "{client}: the client cut the result itself ({cut:?}):\n{long_run}");
    }
    has("read_output", page, "20000\t19999\n20001\t20000\n20002\t20001\n");
    // The fixture's float comparison fails: the model sees the counts and where.
    has("verify", verify, "verify: 1 of 1 checks failed");
    has("verify", verify, "1 passed, 1 failed");
    has("verify", verify, "tests/test_cart.py:8 tests/test_cart.py::test_total_includes_tax");
    has("verify", verify, "not verified since the last edit: fix the failures");
    has("find_tools", found, "definition");
    has("outline", outline, "class Cart");
    has("outline", outline, "def total(self) -> float");
    has("wide run", wide, "read_output(handle=\"h3\", start=");
    has("wide run", wide, "y 400\n");
    for cut in CLIENT_CUTS {
        assert!(!wide.contains(cut), "{client}: the client cut the result itself ({cut:?}):\n{wide}");
    }
    eprintln!("{client}: a 120,000-character run reached the model as {} characters", wide.chars().count());
}

fn assert_ran(client: &str, run: &ClientRun) {
    assert!(run.success, "{client} failed\n{}", run.dump());
}

/// The server's arguments that show commands the test venv, which is outside every folder a
/// command sees unless the user names it (as a person names a venv kept elsewhere).
fn shows_the_venv() -> Vec<String> {
    let python = python_with(&[("pytest", PYTEST)]);
    let venv = python.parent().and_then(Path::parent).expect("the venv holds bin/python");
    vec!["--readable".into(), venv.display().to_string()]
}

/// Runs [`full_script`] through one client over stdio and checks what its model received.
async fn full_script_through(api: Api, mut args: Vec<String>) -> ScriptedModel {
    let repo = shop();
    args.extend(shows_the_venv());
    let version = version_of(&std::fs::read(repo.path().join("shop/cart.py")).unwrap());
    let model = ScriptedModel::start(api, "tack", full_script()).await;
    let transport = Transport::Stdio { root: repo.path().to_path_buf(), args };
    let run = clients::run(api, &model, &transport, repo.path()).await;
    assert_ran(clients::name(api), &run);
    check_full_script(clients::name(api), &model.results(), repo.path(), &version);
    model
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_over_stdio_hands_its_model_tacks_text() {
    let model = full_script_through(Api::Anthropic, vec![]).await;
    // What tack's core tools cost the model's context, as Claude Code sends them.
    let definitions = model.tool_definitions();
    let mut names: Vec<&str> = definitions.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        tack_tests::core_tools_as("mcp__tack__"),
        "Claude Code offers the core tools directly (it sorts them by name)"
    );
    let tokens = count_tokens(&Value::Array(definitions).to_string());
    eprintln!("claude: tack's tool definitions take {tokens} tokens");
    assert!(tokens <= 1_500, "tack's tool definitions take {tokens} tokens in Claude Code's request");
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_over_stdio_hands_its_model_tacks_text() {
    let model = full_script_through(Api::OpenAiResponses, vec![]).await;
    let tokens = count_tokens(&Value::Array(model.tool_definitions()).to_string());
    eprintln!("codex: tack's tool definitions take {tokens} tokens");
    assert!(tokens <= 1_500, "tack's tool definitions take {tokens} tokens in Codex's request");
}

/// A `context` as large as tack's cap allows, on this repository: each client hands its model
/// tack's whole text, within the client's own limit (Codex cuts a result over 11,964 bytes
/// itself), ending with what tack left out.
#[tokio::test(flavor = "multi_thread")]
async fn a_large_context_reaches_the_model_whole_within_each_clients_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository").to_path_buf();
    let task = "the search ranks files for a bug report by definitions, paths and the reference graph";
    for api in [Api::Anthropic, Api::OpenAiResponses] {
        let script = vec![call("context", json!({"task": task, "tokens": 10000}))];
        let model = ScriptedModel::start(api, "tack", script).await;
        let transport = Transport::Stdio { root: root.clone(), args: vec![] };
        let run = clients::run(api, &model, &transport, &root).await;
        let client = clients::name(api);
        assert_ran(client, &run);
        let results = model.results();
        let text = results.first().unwrap_or_else(|| panic!("{client}: no result"));
        for cut in CLIENT_CUTS {
            assert!(!text.contains(cut), "{client}: the client cut the result itself ({cut:?}):\n{text}");
        }
        let body = text.split_once("Output:\n").map_or(text.as_str(), |(_, t)| t);
        assert!(body.contains(" for the task, best first ("), "{client}: {body}");
        assert!(body.trim_end().ends_with("callers(symbol=...) lists every caller"), "{client}: {body}");
        let functions = body.lines().filter(|l| l.contains(" (function)") || l.contains(" (method)")).count();
        assert!(functions >= 5, "{client}: {functions} functions:\n{body}");
        if api == Api::OpenAiResponses {
            assert!(text.len() <= 11_964, "{client}: {} bytes", text.len());
        }
        eprintln!(
            "{client}: a 10,000-token context reached the model as {} tokens, {} bytes",
            count_tokens(body),
            body.len()
        );
    }
}

/// A file read, then a 40,000-line run paged back: the short path every transport must carry.
/// Over HTTP, Claude Code speaks 2026-07-28, which has no session: the first result names an
/// agent handle and the later calls pass it back, as a model does, to reach their own output.
fn paging_script() -> Vec<ToolCall> {
    vec![
        call("read_file", json!({"path": "shop/cart.py"})),
        call("run", json!({"command": "seq 1 40000", "agent": AGENT})),
        call(
            "call_tool",
            json!({"name": "read_output", "arguments": {"handle": "h1", "start": 30000, "lines": 2}, "agent": AGENT}),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_over_http_hands_its_model_tacks_text() {
    let repo = shop();
    let readable = shows_the_venv();
    let server = start_http(repo.path(), &readable.iter().map(String::as_str).collect::<Vec<_>>()).await;
    let model = ScriptedModel::start(Api::Anthropic, "tack", paging_script()).await;
    let run = clients::claude(
        &model,
        &Transport::Http { url: server.url.clone(), token: server.token.clone() },
        repo.path(),
    )
    .await;
    assert_ran("claude over http", &run);
    let results = model.results();
    assert_eq!(results.len(), 3, "{results:#?}");
    assert!(results[0].starts_with("[shop/cart.py: lines 1-"), "{}", results[0]);
    assert!(results[0].contains("\n 7\tclass Cart:\n"), "{}", results[0]);
    assert!(
        results[0].contains("\nagent a"),
        "a request without a session is handed an agent: {}",
        results[0]
    );
    assert!(results[1].contains("read_output(handle=\"h1\", start="), "{}", results[1]);
    assert!(!results[1].contains("\nagent a"), "a call naming its agent starts none: {}", results[1]);
    // The agent argument each tool offers here costs the model's context too.
    let tokens = count_tokens(&Value::Array(model.tool_definitions()).to_string());
    eprintln!("claude over http: tack's tool definitions take {tokens} tokens");
    assert!(
        tokens <= 1_500,
        "tack's tool definitions take {tokens} tokens in Claude Code's request over HTTP"
    );
    assert!(results[2].contains("30000\t29999\n30001\t30000\n"), "{}", results[2]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_small_context_window_keeps_every_result_under_an_eighth_of_it() {
    for api in [Api::Anthropic, Api::OpenAiResponses] {
        let window = ["--context-window", "32000"].map(String::from).to_vec();
        let model = full_script_through(api, window).await;
        for (call, result) in full_script().iter().zip(model.results()) {
            let tokens = count_tokens(&result);
            assert!(tokens <= 4_000, "{}: {} took {tokens} tokens:\n{result}", clients::name(api), call.name);
        }
    }
}

/// A failing Go verify through the real Claude Code: the model reads the failing test's
/// `path:line` and message.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_hands_its_model_a_failing_go_tests_place_and_message() {
    let repo = fixture_copy("verify_go");
    let model = ScriptedModel::start(Api::Anthropic, "tack", vec![call("verify", json!({}))]).await;
    let transport = Transport::Stdio { root: repo.path().to_path_buf(), args: vec![] };
    let run = clients::claude(&model, &transport, repo.path()).await;
    assert_ran("claude", &run);
    let results = model.results();
    assert_eq!(results.len(), 1, "{results:#?}\n{}", run.dump());
    assert!(results[0].contains("calc_test.go:13 example.com/calc.TestTotal"), "{}", results[0]);
    assert!(results[0].contains("Total([1 2]) = 2, want 3"), "{}", results[0]);
}

/// One server over three repositories, through each real client: the model's `search` with
/// `repo="*"` shows each file under its repository's name, and a read that names a
/// repository reads that one's file.
#[tokio::test(flavor = "multi_thread")]
async fn several_repositories_reach_the_model_each_file_named_by_its_repository() {
    let parent = tempfile::tempdir().unwrap();
    for fixture in ["py_shop", "go_shop", "rs_shapes"] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(fixture);
        let status =
            std::process::Command::new("cp").arg("-r").arg(&from).arg(parent.path()).status().unwrap();
        assert!(status.success(), "cp {fixture}");
    }
    let root = parent.path().join("py_shop");
    let others: Vec<String> =
        ["go_shop", "rs_shapes"].iter().map(|n| parent.path().join(n).display().to_string()).collect();
    for api in [Api::Anthropic, Api::OpenAiResponses] {
        let script = vec![
            call("search", json!({"query": "the line's price subtotal", "repo": "*"})),
            call("read_file", json!({"path": "cart/item.go", "repo": "go_shop"})),
        ];
        let model = ScriptedModel::start(api, "tack", script).await;
        let args = vec!["--root".to_string(), others[0].clone(), "--root".to_string(), others[1].clone()];
        let transport = Transport::Stdio { root: root.clone(), args };
        let run = clients::run(api, &model, &transport, &root).await;
        let client = clients::name(api);
        assert_ran(client, &run);
        let results = model.results();
        let found = results.first().unwrap_or_else(|| panic!("{client}: no result"));
        assert!(found.contains("of 3 repositories (go_shop, py_shop, rs_shapes)"), "{client}: {found}");
        assert!(found.contains("[go_shop] cart/item.go"), "{client}: {found}");
        let read = results.get(1).unwrap_or_else(|| panic!("{client}: no second result"));
        assert!(read.contains("func (i Item) Subtotal() float64"), "{client}: {read}");
    }
}

//! Under `--structured`, every tool's result validates against the `outputSchema` its listing
//! declares (JSON Schema 2020-12, checked in full by the `jsonschema` crate): each tool is called
//! in its success shapes and in its error shape, through the real binary, as the official Python
//! SDK checks them. Optional fields are left out, never sent as `null`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rmcp::model::CallToolResult;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tack_tests::{call, fixture_copy, python_with, tack_binary, test_cache_home};

/// pytest, pinned as in the verify tests.
const PYTEST: &str = "pytest==9.2.0";

/// Two checks: pytest, and a check of the `cargo test` format that a path scope skips, so a
/// scoped verify answers a check without an exit code.
const CHECKS: &str = "[[verify.checks]]\nname = \"tests\"\ncommand = \"pytest -q\"\n\n\
                      [[verify.checks]]\nname = \"rust\"\ncommand = \"true\"\nformat = \"cargo-test\"\n";

type Client = RunningService<RoleClient, ()>;

/// `tack serve --structured --profile full` on `root`, with pytest on its PATH.
async fn serve(root: &Path) -> Client {
    let python = python_with(&[("pytest", PYTEST)]);
    let bin = python.parent().expect("venv bin").to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let root = root.to_path_buf();
    let transport = TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.args(["serve", "--structured", "--profile", "full", "--root"])
            .arg(&root)
            .env("TACK_LOG", "warn")
            .env("XDG_CACHE_HOME", test_cache_home())
            .env("PATH", &path);
    }))
    .expect("tack starts");
    ().serve(transport).await.expect("handshake")
}

fn text(result: &CallToolResult) -> String {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

/// Where `value` holds a `null`, by path.
fn nulls(value: &Value, path: &str, found: &mut Vec<String>) {
    match value {
        Value::Null => found.push(path.to_string()),
        Value::Object(map) => map.iter().for_each(|(k, v)| nulls(v, &format!("{path}/{k}"), found)),
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, v)| nulls(v, &format!("{path}/{i}"), found))
        }
        _ => {}
    }
}

/// The calls made so far and what each result broke.
struct Checker {
    validators: BTreeMap<String, jsonschema::Validator>,
    /// Tools called with a successful result, and with an error result.
    succeeded: BTreeSet<String>,
    failed: BTreeSet<String>,
    problems: Vec<String>,
}

impl Checker {
    /// Calls `name` with `args`, expecting an error result when `error`; checks the structured
    /// content against the schema of the tool that ran (`call_tool`'s target for `call_tool`).
    async fn call(&mut self, client: &Client, name: &str, args: Value, error: bool) -> CallToolResult {
        let label = format!("{name} {args}");
        let ran =
            if name == "call_tool" { args["name"].as_str().unwrap_or(name).to_string() } else { name.into() };
        let result = call(client, name, args).await;
        let is_error = result.is_error == Some(true);
        if is_error != error {
            self.problems.push(format!("{label}: isError {is_error}, expected {error}: {}", text(&result)));
        }
        if is_error { &mut self.failed } else { &mut self.succeeded }.insert(name.to_string());
        let Some(data) = &result.structured_content else {
            // The spec lets an error leave it out; a success of a tool with a schema must send it.
            if !is_error && self.validators.contains_key(&ran) {
                self.problems.push(format!("{label}: a success without structuredContent"));
            }
            return result;
        };
        let mut found = Vec::new();
        nulls(data, "", &mut found);
        if !found.is_empty() {
            self.problems.push(format!("{label}: null at {found:?} in {data}"));
        }
        match self.validators.get(&ran) {
            Some(validator) => {
                for err in validator.iter_errors(data) {
                    self.problems
                        .push(format!("{label}: {err} at {:?} in {data}", err.instance_path().as_str()));
                }
            }
            None => self.problems.push(format!("{label}: structuredContent but {ran} lists no outputSchema")),
        }
        result
    }
}

#[tokio::test]
async fn every_result_validates_against_its_tools_output_schema() {
    let repo = fixture_copy("verify_py");
    std::fs::write(repo.path().join("tack.toml"), CHECKS).unwrap();
    let client = serve(repo.path()).await;
    let tools = client.list_tools(None).await.expect("tools/list").tools;
    let mut checker = Checker {
        validators: BTreeMap::new(),
        succeeded: BTreeSet::new(),
        failed: BTreeSet::new(),
        problems: Vec::new(),
    };
    for tool in &tools {
        if let Some(schema) = &tool.output_schema {
            let schema = Value::Object((**schema).clone());
            let validator = jsonschema::draft202012::new(&schema)
                .unwrap_or_else(|e| panic!("{}'s output schema is not a valid schema: {e}", tool.name));
            checker.validators.insert(tool.name.to_string(), validator);
        }
    }
    let c = &mut checker;
    let cl = &client;

    // Reading and finding.
    c.call(cl, "context", json!({"task": "total of prices is off by one"}), false).await;
    c.call(cl, "context", json!({"task": "zzqx qqzx"}), false).await;
    c.call(cl, "context", json!({"task": "   "}), true).await;
    c.call(cl, "repo_map", json!({}), false).await;
    c.call(cl, "repo_map", json!({"focus": ["calc.py"], "tokens": 256}), false).await;
    c.call(cl, "repo_map", json!({"tokens": "many"}), true).await;
    c.call(cl, "search", json!({"query": "total"}), false).await;
    c.call(cl, "search", json!({"query": "no such words anywhere", "mode": "text"}), false).await;
    c.call(cl, "search", json!({"query": "(", "mode": "regex"}), true).await;
    c.call(cl, "read_file", json!({"path": "calc.py"}), false).await;
    c.call(cl, "read_file", json!({"path": "tests/test_calc.py", "start": 8, "lines": 2}), false).await;
    c.call(cl, "read_file", json!({"path": "missing.py"}), true).await;
    c.call(cl, "definition", json!({"symbol": "total"}), false).await;
    c.call(cl, "definition", json!({"symbol": "no_such_name"}), true).await;
    c.call(cl, "references", json!({"symbol": "add"}), false).await;
    c.call(cl, "references", json!({"path": "calc.py"}), true).await;
    c.call(cl, "callers", json!({"symbol": "total"}), false).await;
    c.call(cl, "callers", json!({"symbol": "test_total", "direction": "callees"}), false).await;
    c.call(cl, "callers", json!({"symbol": "no_such_name"}), true).await;
    c.call(cl, "outline", json!({"path": "tests/test_calc.py"}), false).await;
    c.call(cl, "outline", json!({"path": "missing.py"}), true).await;
    c.call(cl, "symbols", json!({"query": "add"}), false).await;
    c.call(cl, "symbols", json!({"query": ""}), true).await;
    c.call(cl, "find_tools", json!({"query": "output"}), false).await;
    c.call(cl, "find_tools", json!({}), false).await;
    c.call(cl, "find_tools", json!({"query": 7}), true).await;

    // Commands and their output.
    let big = c.call(cl, "run", json!({"command": "seq 1 200000"}), false).await;
    let handle =
        big.structured_content.as_ref().and_then(|d| d["output_handle"].as_str()).unwrap_or("h1").to_string();
    c.call(cl, "run", json!({"command": "exit 3"}), false).await;
    c.call(cl, "run", json!({"command": "sleep 5", "timeout_s": 1}), false).await;
    c.call(cl, "run", json!({"command": "  "}), true).await;
    c.call(cl, "read_output", json!({"handle": handle, "start": 5, "lines": 2}), false).await;
    c.call(cl, "read_output", json!({"handle": handle, "grep": "^19999"}), false).await;
    c.call(cl, "read_output", json!({"handle": "h999"}), true).await;
    c.call(
        cl,
        "call_tool",
        json!({"name": "read_output", "arguments": {"handle": handle, "lines": 1}}),
        false,
    )
    .await;
    c.call(cl, "call_tool", json!({"name": "no_such_tool", "arguments": {}}), true).await;

    // The plan, the gate and the note before any verify.
    c.call(cl, "todo", json!({}), false).await;
    c.call(
        cl,
        "todo",
        json!({"explanation": "fix total", "plan": [{"step": "fix total", "status": "in_progress"}]}),
        false,
    )
    .await;
    c.call(cl, "todo", json!({"plan": [{"step": "x", "status": "bogus"}]}), true).await;
    c.call(cl, "done", json!({}), false).await;
    c.call(cl, "done", json!({"now": true}), true).await;
    c.call(cl, "handoff", json!({}), false).await;
    c.call(cl, "handoff", json!({"note": 5}), true).await;

    // A failing verify, with a check its scope skips.
    c.call(cl, "verify", json!({}), false).await;
    c.call(cl, "verify", json!({"scope": "tests/test_calc.py"}), false).await;
    c.call(cl, "verify", json!({"scope": 5}), true).await;

    // Every writing tool, then the fix.
    c.call(cl, "write_file", json!({"path": "notes.txt", "content": "hello\n"}), false).await;
    c.call(cl, "write_file", json!({"path": "../outside.txt", "content": "x"}), true).await;
    let patch = "*** Begin Patch\n*** Add File: extra.py\n+X = 1\n*** End Patch\n";
    c.call(cl, "apply_patch", json!({"patch": patch}), false).await;
    c.call(cl, "apply_patch", json!({"patch": "not a patch"}), true).await;
    let swapped = "def add(a, b):\n    return b + a\n";
    c.call(cl, "replace_symbol", json!({"path": "calc.py", "symbol": "add", "new": swapped}), false).await;
    c.call(cl, "replace_symbol", json!({"path": "calc.py", "symbol": "no_such_name", "new": "x"}), true)
        .await;
    c.call(cl, "undo", json!({"path": "calc.py"}), false).await;
    c.call(cl, "undo", json!({"path": "never_written.py"}), true).await;
    c.call(
        cl,
        "edit_file",
        json!({"path": "calc.py", "old": "sum(prices) - 1", "new": "sum(prices)"}),
        false,
    )
    .await;
    c.call(cl, "edit_file", json!({"path": "calc.py", "old": "not in the file", "new": "x"}), true).await;
    c.call(cl, "handoff", json!({"note": "fixed total; verify next"}), false).await;
    c.call(cl, "handoff", json!({}), false).await;

    // A passing verify, and the gate that names the tree it checked.
    c.call(cl, "todo", json!({"plan": [{"step": "fix total", "status": "completed"}]}), false).await;
    c.call(cl, "verify", json!({}), false).await;
    let done = c.call(cl, "done", json!({}), false).await;
    let data = done.structured_content.clone().unwrap_or_default();
    assert_eq!(data["done"], json!(true), "{}", text(&done));
    assert!(data["verified_tree"].is_string(), "{data}");
    c.call(cl, "call_tool", json!({"name": "done", "arguments": {}}), false).await;
    client.cancel().await.unwrap();

    let problems = std::mem::take(&mut checker.problems);
    assert!(
        problems.is_empty(),
        "{} results are not as expected or break their schema:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Every tool listed was seen in both shapes, so a new tool needs its calls here.
    let listed: BTreeSet<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(checker.succeeded, listed, "tools called with a successful result");
    assert_eq!(checker.failed, listed, "tools called with an error result");
}

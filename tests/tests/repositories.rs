//! Many repositories behind one server, through the real binary over HTTP with one token:
//! every tool takes `repo`; `search` and `context` with `repo="*"` rank across repositories and
//! name the one each answer is in; a call naming no repository goes to the first the agent
//! named; an agent's `run` in one repository never sees another's files; more repositories than
//! `--max-open` still all answer; a name that cannot be told apart is refused at start.

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::CallToolResult;
use serde_json::json;
use tack_tests::{call, start_http, tack_binary};

fn text(result: &CallToolResult) -> &str {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str()).unwrap_or("")
}

/// A repository named `name` under `parent`, with `files` (path, content).
fn repository(parent: &Path, name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let root = parent.join(name);
    for (path, content) in files {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
    root
}

/// Three repositories, each holding the one answer to one question and a file that mentions
/// the other questions' words in passing.
fn three(parent: &Path) -> [std::path::PathBuf; 3] {
    [
        repository(
            parent,
            "billing",
            &[
                (
                    "billing/invoice.py",
                    "def settle_invoice(invoice, payment):\n    \"\"\"Settle an invoice with a payment.\"\"\"\n    invoice.paid += payment.amount\n    return invoice.paid >= invoice.total\n",
                ),
                ("billing/notes.py", "# certificates are rotated by the ops team\nNOTE = 'markdown'\n"),
            ],
        ),
        repository(
            parent,
            "docs-engine",
            &[
                (
                    "src/markdown.rs",
                    "/// Splits markdown text into tokens.\npub fn tokenize_markdown(text: &str) -> Vec<String> {\n    text.split_whitespace().map(str::to_string).collect()\n}\n",
                ),
                ("src/lib.rs", "//! An invoice template is rendered here too.\npub mod markdown;\n"),
            ],
        ),
        repository(
            parent,
            "ops",
            &[
                (
                    "certs/rotate.go",
                    "package certs\n\n// RotateCertificates replaces every certificate before it expires.\nfunc RotateCertificates(days int) int {\n\treturn days - 30\n}\n",
                ),
                (
                    "main.go",
                    "package main\n\n// markdown reports and invoices are out of scope\nfunc main() {}\n",
                ),
            ],
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn one_server_serves_several_repositories_and_ranks_across_them() {
    let parent = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let [billing, docs, ops] = three(parent.path());
    let (docs, ops, store) = (docs.to_str().unwrap(), ops.to_str().unwrap(), store.path().to_str().unwrap());
    let server =
        start_http(&billing, &["--root", docs, "--root", ops, "--max-open", "2", "--index-dir", store]).await;
    let client = ().serve(server.transport()).await.expect("handshake with the token");

    let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    assert!(
        instructions.contains("This server serves 3 repositories: billing, docs-engine, ops."),
        "{instructions}"
    );
    let tools = client.list_tools(None).await.unwrap().tools;
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), tools.len(), "each tool is listed once");
    for tool in &tools {
        let repo = &tool.input_schema["properties"]["repo"];
        assert_eq!(repo["type"], "string", "{} takes repo", tool.name);
    }
    let search = tools.iter().find(|t| t.name == "search").unwrap();
    assert!(search.input_schema["properties"]["repo"]["description"].as_str().unwrap().contains("\"*\""));

    // Across every repository: the answer's repository comes first, and names itself.
    let mut read_by_the_model = String::new();
    for (query, first) in [
        ("settle an invoice with a payment", "[billing] billing/invoice.py"),
        ("tokenize markdown text", "[docs-engine] src/markdown.rs"),
        ("rotate certificates before they expire", "[ops] certs/rotate.go"),
    ] {
        let found = call(&client, "search", json!({"query": query, "repo": "*"})).await;
        let shown = text(&found);
        assert_eq!(shown.lines().nth(1), Some(first), "{query}: {shown}");
        assert!(
            shown.lines().next().unwrap().ends_with("of 3 repositories (billing, docs-engine, ops)"),
            "{shown}"
        );
        read_by_the_model.push_str(&format!("search {query:?} repo=\"*\"\n{shown}\n"));
    }
    // Two of them, as a list in one string.
    let found =
        call(&client, "search", json!({"query": "markdown", "repo": "ops,docs-engine", "mode": "text"}))
            .await;
    assert!(!text(&found).contains("[billing]"), "{}", text(&found));
    let context = call(
        &client,
        "context",
        json!({"task": "Certificates expire before RotateCertificates runs", "repo": "*"}),
    )
    .await;
    let shown = text(&context);
    assert!(shown.starts_with("repository ops, where the task matches best:\n"), "{shown}");
    assert!(shown.contains("certs/rotate.go") && shown.contains("other repositories' best files"), "{shown}");
    read_by_the_model.push_str(&format!("context repo=\"*\"\n{shown}"));
    expect_test::expect_file!["snapshots/repositories_across.txt"].assert_eq(&read_by_the_model);

    // A call that names no repository goes to the first this agent named, else the first served.
    let read = call(&client, "read_file", json!({"path": "billing/invoice.py"})).await;
    assert!(text(&read).contains("settle_invoice"), "{}", text(&read));
    let read = call(&client, "read_file", json!({"path": "src/markdown.rs", "repo": "docs-engine"})).await;
    assert!(text(&read).contains("tokenize_markdown"), "{}", text(&read));
    let read = call(&client, "read_file", json!({"path": "src/markdown.rs"})).await;
    assert!(text(&read).contains("tokenize_markdown"), "the agent's own repository: {}", text(&read));
    let through = call(
        &client,
        "call_tool",
        json!({"name": "read_file", "arguments": {"path": "certs/rotate.go", "repo": "ops"}}),
    )
    .await;
    assert!(text(&through).contains("RotateCertificates"), "{}", text(&through));

    // Names that do not fit are errors the agent can act on.
    let wrong = call(&client, "read_file", json!({"path": "x", "repo": "payments"})).await;
    assert_eq!(wrong.is_error, Some(true));
    assert_eq!(
        text(&wrong),
        "no repository is named \"payments\"; this server serves billing, docs-engine, ops"
    );
    let wrong = call(&client, "read_file", json!({"path": "x", "repo": "*"})).await;
    assert!(
        text(&wrong).starts_with("read_file runs in one repository: pass repo= with one name"),
        "{}",
        text(&wrong)
    );

    // A command in one repository sees none of another's files.
    let invoice = billing.join("billing/invoice.py");
    let run =
        call(&client, "run", json!({"command": format!("cat {}", invoice.display()), "repo": "ops"})).await;
    assert!(!text(&run).contains("settle_invoice"), "ops's command read billing's file: {}", text(&run));
    let run = call(&client, "run", json!({"command": "cat billing/invoice.py", "repo": "billing"})).await;
    assert!(text(&run).contains("settle_invoice"), "{}", text(&run));

    // With at most two open, the third opened closed one; all still answer, each from its index.
    for (repo, path) in [("ops", "main.go"), ("billing", "billing/notes.py"), ("docs-engine", "src/lib.rs")] {
        let read = call(&client, "read_file", json!({"path": path, "repo": repo})).await;
        assert_ne!(read.is_error, Some(true), "{repo}: {}", text(&read));
    }
    for name in ["billing", "docs-engine", "ops"] {
        assert!(
            Path::new(store).join(name).join("index.bin").exists(),
            "{name}'s index is saved in its own folder"
        );
    }
    client.cancel().await.unwrap();
}

#[test]
fn names_that_cannot_be_told_apart_and_one_bundle_for_several_are_refused() {
    let parent = tempfile::tempdir().unwrap();
    let a = repository(&parent.path().join("one"), "app", &[("a.py", "x = 1\n")]);
    let b = repository(&parent.path().join("two"), "app", &[("b.py", "y = 2\n")]);
    let serve = |extra: &[&str]| {
        let out = std::process::Command::new(tack_binary())
            .args(["serve", "--root"])
            .arg(&a)
            .arg("--root")
            .arg(&b)
            .args(extra)
            .env("TACK_LOG", "error")
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = serve(&[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("two repositories are named \"app\"") && err.contains("name = "), "{err}");
    let (code, err) = serve(&["--bundle", "/nonexistent.bundle"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--bundle starts one repository"), "{err}");
}

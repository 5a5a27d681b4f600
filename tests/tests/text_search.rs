//! Through the real server, in a repository of each language added after the first eight (Bash,
//! C#, Kotlin, Ruby, Swift) and in one of only documentation and configuration, `search` and
//! `context` put first the file a hand-written question is about: in code, the function that
//! answers it; in a document, a passage. The texts an agent reads are snapshots.

use std::path::Path;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tack_tests::{fixture_copy, tack_binary};

type Client = RunningService<RoleClient, ()>;

async fn start(root: &Path, store: &Path) -> Client {
    let transport = TokioChildProcess::new(tokio::process::Command::new(tack_binary()).configure(|cmd| {
        cmd.arg("serve").arg("--root").arg(root).arg("--index-dir").arg(store).env("TACK_LOG", "error");
    }))
    .expect("tack starts");
    ().serve(transport).await.expect("handshake")
}

/// The text of one call.
async fn call(client: &Client, tool: &str, args: Value) -> String {
    let Value::Object(args) = args else { panic!("arguments are an object") };
    let result =
        client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
    result.content[0].as_text().unwrap().text.clone()
}

/// Asks `search` and `context` the question about `fixture` whose answer is `expected`: both put
/// that file first (search's first result, context's first section, as the text names them), and
/// context shows `shown` of it: the function that answers (`plugin_enable (function)`), or
/// `(text)` for a document's passage. Returns both texts for the snapshot.
async fn ask(fixture: &str, question: &str, expected: &str, shown: &str) -> String {
    let repo = fixture_copy(fixture);
    let store = tempfile::tempdir().unwrap();
    let client = start(repo.path(), store.path()).await;
    let search = call(&client, "search", json!({ "query": question, "limit": 3 })).await;
    // A count line, then each file: its path alone on a line, its hits indented below.
    let first = search.lines().nth(1).unwrap_or("");
    assert_eq!(first, expected, "search put another file first:\n{search}");
    let context = call(&client, "context", json!({ "task": question, "tokens": 600 })).await;
    let section = context.lines().nth(1).unwrap_or("");
    assert!(
        section.starts_with(&format!("{expected}:")) && section.ends_with(shown),
        "context showed another file or section first:\n{context}"
    );
    client.cancel().await.unwrap();
    format!("$ search {question:?}\n{search}\n$ context {question:?}\n{context}")
}

#[tokio::test]
async fn bash_scripts_answer_which_function_turns_a_plugin_on() {
    let text = ask(
        "text_bash",
        "which function turns on a plugin so new shells load it",
        "lib/plugins.sh",
        " plugin_enable (function)",
    )
    .await;
    expect_test::expect_file!["snapshots/text_bash.txt"].assert_eq(&text);
}

#[tokio::test]
async fn csharp_answers_where_requests_are_checked_before_their_handler() {
    let question = "where are requests checked for errors before their handler runs";
    let text = ask(
        "text_csharp",
        question,
        "src/Pipeline/ValidationBehavior.cs",
        " ValidationBehavior.Handle (method)",
    )
    .await;
    expect_test::expect_file!["snapshots/text_csharp.txt"].assert_eq(&text);
}

#[tokio::test]
async fn kotlin_answers_how_a_failed_call_is_tried_again() {
    let question = "how is a failed call attempted again after waiting longer each time";
    let text = ask(
        "text_kotlin",
        question,
        "src/main/kotlin/net/RetryInterceptor.kt",
        " RetryInterceptor.intercept (method)",
    )
    .await;
    expect_test::expect_file!["snapshots/text_kotlin.txt"].assert_eq(&text);
}

#[tokio::test]
async fn ruby_answers_how_a_changed_session_cookie_is_detected() {
    let question = "how is a session cookie changed by the client detected";
    let text = ask(
        "text_ruby",
        question,
        "lib/mini/session/cookie.rb",
        " Mini::Session::Cookie::load_session (method)",
    )
    .await;
    expect_test::expect_file!["snapshots/text_ruby.txt"].assert_eq(&text);
}

/// A repository with no file in a parsed language still has a map: its text files.
#[tokio::test]
async fn the_map_of_a_repository_without_a_parsed_language_lists_its_files() {
    let repo = fixture_copy("text_docs");
    let store = tempfile::tempdir().unwrap();
    let client = start(repo.path(), store.path()).await;
    let map = call(&client, "repo_map", json!({})).await;
    client.cancel().await.unwrap();
    expect_test::expect![[r#"
        repo map: no definitions (no file is in a language tack parses); 6 text files, which search ranks:
        README.md
        defaults/main.yml
        docs/upgrading.md
        handlers/main.yml
        tasks/main.yml
        tasks/server.yml
    "#]]
    .assert_eq(&map);
}

#[tokio::test]
async fn swift_answers_where_a_response_with_a_bad_status_is_rejected() {
    let question = "reject a response whose status code is not acceptable";
    let text =
        ask("text_swift", question, "Sources/Net/Validation.swift", " DataRequest.validate (method)").await;
    expect_test::expect_file!["snapshots/text_swift.txt"].assert_eq(&text);
}

#[tokio::test]
async fn markdown_and_yaml_answer_a_task_question_and_a_documentation_question() {
    let task = ask(
        "text_docs",
        "which task writes sshd_config and checks it is valid",
        "tasks/server.yml",
        "(text)",
    )
    .await;
    let docs =
        ask("text_docs", "what was renamed or is gone when upgrading", "docs/upgrading.md", "(text)").await;
    expect_test::expect_file!["snapshots/text_docs.txt"].assert_eq(&format!("{task}\n{docs}"));
}

/// A question about one function, named in backticks: the file that defines it comes first,
/// though its name looks like a test's (`test_functions.bash`) and a test file is named after
/// the function and mentions it thirty times more.
#[tokio::test]
async fn a_question_about_one_named_function_finds_its_definition_first() {
    let text = ask(
        "text_named_helper",
        "`shop_pipe` implementation",
        "lib/test_functions.bash",
        " shop_pipe (function)",
    )
    .await;
    expect_test::expect_file!["snapshots/text_named_helper.txt"].assert_eq(&text);
}

/// A report naming a diagnostic's code (`SC2103`): the source file that raises it, which writes
/// only its number, comes first, before a file that says the report's other words more often
/// and the changelog that lists the code.
#[tokio::test]
async fn a_report_naming_a_diagnostic_code_finds_the_check_that_raises_it() {
    let text = ask(
        "text_diagnostic_code",
        "Silence SC2103 when using 'set -e'",
        "lint/checks.py",
        " check_cd_back (function)",
    )
    .await;
    expect_test::expect_file!["snapshots/text_diagnostic_code.txt"].assert_eq(&text);
}

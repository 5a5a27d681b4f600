//! `tack setup`: it adds tack to the real clients' configuration once, leaves the rest of the
//! user's file as it was, and the client then calls tack through what it wrote (Claude Code over
//! HTTP with the saved token as its header, Codex over stdio).

use std::path::Path;
use std::process::Command;

use serde_json::json;
use tack_tests::clients::{self, ClientRun};
use tack_tests::model::{Api, ScriptedModel, call};
use tack_tests::{sample_repo, start_http, stdout_of, tack_binary, test_cache_home};
use tack_tools::count_tokens;

/// `tack setup ARGS` in `repo` with `home` as HOME (and CODEX_HOME), the real clients first on
/// PATH; its stdout, after asserting it succeeded.
fn setup(repo: &Path, home: &Path, args: &[&str]) -> String {
    let bin = clients::clients_dir().join("node_modules/.bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    stdout_of(
        Command::new(tack_binary())
            .arg("setup")
            .args(args)
            .current_dir(repo)
            .env("HOME", home)
            .env("CODEX_HOME", home)
            .env("XDG_CACHE_HOME", test_cache_home())
            .env("PATH", path),
    )
}

fn assert_ran(client: &str, run: &ClientRun) {
    assert!(run.success, "{client} failed\n{}", run.dump());
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_set_up_for_http_sends_the_saved_token_and_reads_tacks_text() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let server = start_http(repo.path(), &[]).await;
    let url = server.url.clone();

    let first = setup(repo.path(), home.path(), &["claude", "--http", &url]);
    let config = home.path().join(".claude.json");
    assert_eq!(
        first.trim(),
        format!(
            "added tack in Claude Code's user config ({}): {url} (HTTP, with the token as a header)",
            config.display()
        )
    );
    let written = std::fs::read_to_string(&config).unwrap();
    let entry: serde_json::Value = serde_json::from_str(&written).unwrap();
    let token = server.token.clone().expect("the server asks for a token");
    assert_eq!(entry["mcpServers"]["tack"]["headers"]["Authorization"], json!(format!("Bearer {token}")));

    let second = setup(repo.path(), home.path(), &["claude", "--http", &url]);
    assert!(second.ends_with("nothing changed\n"), "{second}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), written, "a second setup leaves the file alone");

    let model =
        ScriptedModel::start(Api::Anthropic, "tack", vec![call("read_file", json!({"path": "src/lib.rs"}))])
            .await;
    let run = clients::claude_in_home(&model, home.path(), repo.path()).await;
    assert_ran("claude", &run);
    let results = model.results();
    assert_eq!(results.len(), 1, "{results:#?}\n{}", run.dump());
    assert!(results[0].contains("pub fn area(r: f64) -> f64 {"), "{}", results[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_set_up_keeps_the_users_config_byte_for_byte_and_calls_tack() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let model = ScriptedModel::start(
        Api::OpenAiResponses,
        "tack",
        vec![call("read_file", json!({"path": "src/lib.rs"}))],
    )
    .await;
    let mine = format!(
        "# my Codex settings\n{}\n[profiles.quick]   # kept as I wrote it\nmodel = \"o4-mini\"\n",
        clients::codex_provider(&model)
    );
    let config = home.path().join("config.toml");
    std::fs::write(&config, &mine).unwrap();

    let first = setup(repo.path(), home.path(), &["codex"]);
    assert_eq!(
        first.trim(),
        format!(
            "added tack in Codex's user config ({}): {} serve (stdio)",
            config.display(),
            tack_binary().display()
        )
    );
    let written = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        written,
        format!("{mine}\n[mcp_servers.tack]\ncommand = {}\nargs = [\"serve\"]\n", json!(tack_binary())),
        "the user's file is kept byte for byte, tack's table added after it"
    );
    // Keys the user adds to tack's table stay; then a second setup changes nothing.
    let tuned = format!("{written}required = true\ntool_timeout_sec = 120\n");
    std::fs::write(&config, &tuned).unwrap();
    let second = setup(repo.path(), home.path(), &["codex"]);
    assert!(second.ends_with("nothing changed\n"), "{second}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), tuned);

    let run = clients::codex_in_home(home.path(), repo.path()).await;
    assert_ran("codex", &run);
    let results = model.results();
    assert_eq!(results.len(), 1, "{results:#?}\n{}", run.dump());
    assert!(results[0].contains("pub fn area(r: f64) -> f64 {"), "{}", results[0]);

    // A small model's window, asked for later, replaces the entry in place.
    let third = setup(repo.path(), home.path(), &["codex", "--context-window", "32000"]);
    assert!(third.starts_with("replaced tack in Codex's user config"), "{third}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        format!(
            "{mine}\n[mcp_servers.tack]\ncommand = {}\nargs = [\"serve\", \"--context-window\", \"32000\"]\nrequired = true\ntool_timeout_sec = 120\n",
            json!(tack_binary())
        )
    );
}

/// A small local model through Codex's own path for one (`codex exec --oss`, Ollama's API
/// stood in for): `tack setup codex --context-window` is all the setup, and every result the
/// model receives fits an eighth of its window.
#[tokio::test(flavor = "multi_thread")]
async fn a_local_model_through_codex_oss_gets_every_result_within_an_eighth_of_its_window() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n",
    )
    .unwrap();
    let added = setup(repo.path(), home.path(), &["codex", "--context-window", "16000"]);
    assert!(added.starts_with("added tack in Codex's user config"), "{added}");
    let script = vec![
        call("repo_map", json!({})),
        call("search", json!({"query": "area of a circle"})),
        call("read_file", json!({"path": "notes/big.txt"})),
        call("run", json!({"command": "seq 1 40000"})),
    ];
    let model = ScriptedModel::start(Api::OpenAiResponses, "tack", script.clone()).await;
    let run = clients::codex_oss_in_home(&model, home.path(), repo.path()).await;
    assert_ran("codex --oss", &run);
    let results = model.results();
    assert_eq!(results.len(), script.len(), "{results:#?}\n{}", run.dump());
    assert!(results[1].contains("src/lib.rs"), "search answers from tack: {}", results[1]);
    for (call, result) in script.iter().zip(&results) {
        let tokens = count_tokens(result);
        println!("codex --oss: {} took {tokens} tokens", call.name);
        assert!(tokens <= 2_000, "{} took {tokens} tokens of a 16,000-token window:\n{result}", call.name);
    }
}

/// `tack setup` never puts the HTTP token on a command line (where every local user can read
/// it): with a `claude` and a `codex` on PATH that record their arguments, the token reaches
/// each client's file, and no argument any of them was started with.
#[test]
fn setup_never_puts_the_http_token_on_a_command_line() {
    use std::os::unix::fs::PermissionsExt as _;
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let index = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let argv = home.path().join("argv");
    for client in ["claude", "codex"] {
        let script = format!("#!/bin/sh\necho \"{client} $*\" >> '{}'\n", argv.display());
        std::fs::write(bin.join(client), script).unwrap();
        std::fs::set_permissions(bin.join(client), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let setup = |args: &[&str]| {
        stdout_of(
            Command::new(tack_binary())
                .arg("setup")
                .args(args)
                .args(["--index-dir", index.path().to_str().unwrap()])
                .current_dir(repo.path())
                .env("HOME", home.path())
                .env("CODEX_HOME", home.path())
                .env("PATH", &path),
        )
    };
    let url = "http://127.0.0.1:8765/mcp";

    // Over stdio Claude Code's own CLI adds tack (so the recorder is the one that runs).
    setup(&["claude"]);
    let calls = std::fs::read_to_string(&argv).unwrap();
    assert!(calls.starts_with("claude mcp add -s user tack -- "), "{calls}");

    setup(&["claude", "--http", url]);
    setup(&["codex", "--http", url]);
    setup(&["claude", "--http", url, "--project"]);
    let token = std::fs::read_to_string(index.path().join("state/http-token")).unwrap();
    let calls = std::fs::read_to_string(&argv).unwrap();
    assert!(!calls.contains(&token), "a client was started with the token on its command line:\n{calls}");
    // The project's file names the variable, through Claude Code's CLI.
    assert!(calls.contains("Authorization: Bearer ${TACK_HTTP_TOKEN}"), "{calls}");

    // The token is in the user's files, where the clients read it.
    let claude: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".claude.json")).unwrap()).unwrap();
    assert_eq!(claude["mcpServers"]["tack"]["url"], json!(url));
    assert_eq!(claude["mcpServers"]["tack"]["headers"]["Authorization"], json!(format!("Bearer {token}")));
    let codex = std::fs::read_to_string(home.path().join("config.toml")).unwrap();
    assert!(codex.contains(&format!("http_headers = {{ Authorization = \"Bearer {token}\" }}")), "{codex}");
}

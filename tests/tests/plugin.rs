//! tack as the clients' own plugin. The repository is a marketplace for Claude Code
//! (`.claude-plugin/marketplace.json`) and for Codex (`.agents/plugins/marketplace.json`), both
//! listing `plugins/tack`: its manifests, one MCP server entry, a skill and a hook. The real
//! clients validate it and install it by path into a scratch home; a headless session then
//! starts tack through the plugin's server entry (the workspace's binary first on PATH, as an
//! installed one would be) and hands the scripted model tack's text. The skill quotes the
//! server's instructions word for word.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use expect_test::expect_file;
use serde_json::{Value, json};
use tack_tests::clients::{self, ClientRun};
use tack_tests::model::{Api, ScriptedModel, call, client_call};
use tack_tests::{sample_repo, stdout_of, tack_binary, test_cache_home};
use tack_tools::{Config, Profile, Toolbox, count_tokens};

/// The repository's top folder: the marketplace root for both clients.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

fn plugin_dir() -> PathBuf {
    repository().join("plugins/tack")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The test's PATH without any folder that holds a `tack`, so only the one a test adds is found.
fn path_without_tack() -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .filter(|d| !d.is_empty() && !Path::new(d).join("tack").exists())
        .collect::<Vec<_>>()
        .join(":")
}

/// A folder holding only `tack`, a link to the workspace's binary, and a PATH that finds it
/// first: what an installed binary looks like to the plugin.
fn tack_on_path() -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().expect("bin dir");
    std::os::unix::fs::symlink(tack_binary(), bin.path().join("tack")).expect("link tack");
    let path = format!("{}:{}", bin.path().display(), path_without_tack());
    (bin, path)
}

/// `claude ARGS` (the plugin commands) with `home` as HOME; its stdout, after asserting it
/// succeeded.
fn claude_cli(home: &Path, args: &[&str]) -> String {
    stdout_of(
        Command::new(clients::clients_dir().join("node_modules/.bin/claude"))
            .args(args)
            .current_dir(home)
            .env("HOME", home)
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    )
}

/// `codex ARGS` (the plugin commands) with `home` as HOME and CODEX_HOME; its stdout, after
/// asserting it succeeded.
fn codex_cli(home: &Path, args: &[&str]) -> String {
    stdout_of(
        Command::new(clients::clients_dir().join("node_modules/.bin/codex"))
            .args(args)
            .current_dir(home)
            .env("HOME", home)
            .env("CODEX_HOME", home),
    )
}

fn assert_ran(client: &str, run: &ClientRun) {
    assert!(run.success, "{client} failed\n{}", run.dump());
}

/// Every piece of text a request hands the model, in order: system blocks, message strings and
/// text blocks, tool results.
fn texts(body: &Value) -> Vec<String> {
    fn collect(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(text) => out.push(text.clone()),
            Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            Value::Object(map) => {
                for key in ["text", "content", "description"] {
                    if let Some(v) = map.get(key) {
                        collect(v, out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(&body["system"], &mut out);
    collect(&body["messages"], &mut out);
    collect(&body["instructions"], &mut out);
    collect(&body["input"], &mut out);
    out
}

/// The skill as its file holds it: the frontmatter's fields and the body.
struct Skill {
    name: String,
    description: String,
    body: String,
}

fn skill() -> Skill {
    let text = std::fs::read_to_string(plugin_dir().join("skills/tack/SKILL.md")).expect("SKILL.md");
    let rest = text.strip_prefix("---\n").expect("SKILL.md opens with frontmatter");
    let (front, body) = rest.split_once("\n---\n").expect("the frontmatter closes");
    let field = |key: &str| {
        front
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("the frontmatter has no {key}"))
            .to_string()
    };
    Skill { name: field("name"), description: field("description"), body: body.trim().to_string() }
}

/// The skill's cases, in order, and the tool whose sentence of the server's instructions each
/// one quotes: the issue's list of where tack's tools answer better than the built-in ones.
const CASES: &[(&str, &str)] = &[
    ("A task.", "context"),
    ("An unfamiliar repository.", "repo_map"),
    ("A phrase or an error.", "search"),
    ("A file's lines.", "read_file"),
    ("A definition or its callers.", "find_tools"),
    ("An edit that must not break the file.", "edit_file"),
    ("Is it done?", "verify"),
];

#[test]
fn the_skill_and_the_servers_instructions_agree_word_for_word() {
    let repo = sample_repo();
    let toolbox = Toolbox::new(repo.path(), Config::default(), Profile::Core, false).expect("toolbox");
    let instructions = toolbox.instructions();
    let skill = skill();
    assert_eq!(skill.name, "tack");
    // Skills' listing shows the description in every session: short, and naming the habits it
    // replaces.
    assert!(skill.description.len() <= 400, "{} characters", skill.description.len());
    for habit in ["grep", "rg", "find", "cat"] {
        assert!(skill.description.contains(habit), "the description does not name {habit}");
    }

    let mut paragraphs = skill.body.split("\n\n");
    let intro = paragraphs.next().expect("an opening paragraph");
    assert!(intro.starts_with(Toolbox::PURPOSE), "the skill opens with what tack is for:\n{intro}");
    let bullets: Vec<&str> = paragraphs.next().expect("the cases").lines().collect();
    assert_eq!(bullets.len(), CASES.len(), "{bullets:#?}");
    for (line, (case, tool)) in bullets.iter().zip(CASES) {
        let guide = toolbox.guide(tool).unwrap_or_else(|| panic!("the instructions say nothing of {tool}"));
        assert_eq!(*line, format!("- **{case}** {}", guide.trim()), "the skill's case for {tool}");
        assert!(instructions.contains(guide.trim()));
    }
    // The rest, sentence by sentence, is in the instructions too.
    let rest: Vec<&str> = paragraphs.collect();
    assert!(!rest.is_empty(), "the skill ends with what every result shares");
    for sentence in rest.iter().flat_map(|p| p.split_inclusive(". ")) {
        assert!(
            instructions.contains(sentence.trim()),
            "the instructions lack {sentence:?}:\n{instructions}"
        );
    }
}

#[test]
fn the_manifests_name_one_plugin_with_the_crates_version() {
    let root = repository();
    let claude = read_json(&plugin_dir().join(".claude-plugin/plugin.json"));
    let codex = read_json(&plugin_dir().join(".codex-plugin/plugin.json"));
    for key in ["name", "version", "description", "license"] {
        assert_eq!(claude[key], codex[key], "the two manifests disagree on {key}");
    }
    assert_eq!(claude["name"], "tack");
    assert_eq!(claude["version"], env!("CARGO_PKG_VERSION"), "the plugin's version is the crates'");

    let claude_market = read_json(&root.join(".claude-plugin/marketplace.json"));
    let codex_market = read_json(&root.join(".agents/plugins/marketplace.json"));
    assert_eq!(
        claude_market["plugins"],
        json!([{"name": "tack", "source": "./plugins/tack", "description": claude["description"]}])
    );
    assert_eq!(codex_market["plugins"][0]["name"], "tack");
    // Codex skips an entry whose path is the marketplace root: it points at the subdirectory.
    assert_eq!(codex_market["plugins"][0]["source"], json!({"source": "local", "path": "./plugins/tack"}));
    for path in ["skills", "mcpServers"] {
        let target = codex[path].as_str().expect("a path");
        assert!(plugin_dir().join(target).exists(), "the Codex manifest's {path} ({target}) is missing");
    }

    // One server entry serves both clients: tools loaded from the first turn (alwaysLoad for
    // Claude Code, required for Codex, which then waits for tack before its first request).
    let servers = read_json(&plugin_dir().join(".mcp.json"));
    let tack = &servers["mcpServers"]["tack"];
    assert_eq!(tack["alwaysLoad"], true);
    assert_eq!(tack["required"], true);
    assert_eq!(tack["command"], "sh");
}

/// The plugin's server entry, as a command to run in `cwd` with only `env` (and a scratch HOME).
fn server_entry(cwd: &Path, home: &Path, env: &[(&str, &str)]) -> Command {
    let servers = read_json(&plugin_dir().join(".mcp.json"));
    let entry = &servers["mcpServers"]["tack"];
    let args: Vec<&str> =
        entry["args"].as_array().expect("args").iter().map(|a| a.as_str().expect("a string")).collect();
    let mut command = Command::new(entry["command"].as_str().expect("command"));
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("HOME", home)
        .env("XDG_CACHE_HOME", test_cache_home())
        .env("TACK_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    command
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"plugin-test","version":"1"}}}"#;

#[test]
fn the_server_entry_execs_the_tack_it_finds() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let (_bin, path) = tack_on_path();
    let named = tack_binary().display().to_string();
    // Where cargo install and pipx or uv tool install leave theirs, each alone in its case.
    let cargo_home = tempfile::tempdir().unwrap();
    let local_home = tempfile::tempdir().unwrap();
    for dir in [cargo_home.path().join("bin"), local_home.path().join(".local/bin")] {
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(tack_binary(), dir.join("tack")).unwrap();
    }
    let cargo_home_dir = cargo_home.path().display().to_string();
    let bare = "/usr/bin:/bin";
    let cases = [
        ("on PATH", home.path(), vec![("PATH", path.as_str())]),
        ("named by TACK_BINARY", home.path(), vec![("PATH", bare), ("TACK_BINARY", named.as_str())]),
        ("in $CARGO_HOME/bin", home.path(), vec![("PATH", bare), ("CARGO_HOME", cargo_home_dir.as_str())]),
        ("in ~/.local/bin", local_home.path(), vec![("PATH", bare)]),
    ];
    for (how, home, env) in cases {
        let mut child = server_entry(repo.path(), home, &env).spawn().expect("the entry starts");
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{INITIALIZE}").unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{how}: {e}: {line:?}"));
        assert_eq!(answer["result"]["serverInfo"]["name"], "tack", "{how}: {answer}");
        // The shell became tack: the client's server process is tack itself, with no shell
        // between them to swallow signals or outlive it.
        let exe = std::fs::read_link(format!("/proc/{}/exe", child.id())).unwrap();
        assert_eq!(exe, tack_binary().canonicalize().unwrap(), "{how}");
        writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
        drop(stdin);
        let status = child.wait().unwrap();
        assert!(status.success(), "{how}: tack ends when its client closes stdin: {status}");
    }
}

#[test]
fn without_a_tack_the_server_entry_says_how_to_get_one() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let mut child = server_entry(repo.path(), home.path(), &[("PATH", &path_without_tack())])
        .spawn()
        .expect("the entry starts");
    let mut stdin = child.stdin.take().unwrap();
    // Claude Code asks server/discover first (a string id here), then initialize; a
    // notification gets no answer.
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{{"_meta":{{"id":7}}}}}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).unwrap();
    writeln!(stdin, "{INITIALIZE}").unwrap();
    drop(stdin);
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{stdout}\n{stderr}");
    let how = "Install one (cargo install --locked --path server in a checkout of tack, or pipx install the tack wheel) or set TACK_BINARY to its path, then restart the client.";
    assert!(stderr.contains(how), "{stderr}");
    let answers: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).expect("JSON-RPC")).collect();
    assert_eq!(answers.len(), 2, "one answer per request: {stdout}");
    for (answer, id) in answers.iter().zip([json!("d1"), json!(0)]) {
        assert_eq!(answer["id"], id, "{answer}");
        let message = answer["error"]["message"].as_str().expect("an error");
        assert!(message.starts_with("tack: no tack binary on PATH") && message.ends_with(how), "{message}");
    }
}

/// Runs the hook's script for `kind` with Claude Code's input for `session` on stdin; its
/// stdout, after asserting it exited 0 (a hook that fails would be reported, never block).
fn hint(data: &Path, kind: &str, session: &str) -> String {
    let mut child = Command::new(plugin_dir().join("scripts/hint"))
        .arg(kind)
        .env("CLAUDE_PLUGIN_DATA", data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the hint runs");
    let input = json!({"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "grep -rn \"session_id\" ."}});
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{kind}: {}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_hook_names_tacks_tool_once_per_session_and_kind() {
    let data = tempfile::tempdir().unwrap();
    let first = hint(data.path(), "search", "s-1");
    let answer: Value = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first:?}"));
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "PreToolUse");
    assert_eq!(answer.as_object().unwrap().len(), 1, "no decision, no block: {answer}");
    assert_eq!(output.as_object().unwrap().len(), 2, "only additionalContext: {answer}");
    assert!(output["additionalContext"].as_str().unwrap().starts_with("tack: search "), "{answer}");
    assert_eq!(hint(data.path(), "search", "s-1"), "", "the same session hears it once");
    assert!(hint(data.path(), "read_file", "s-1").contains("tack: read_file "), "another kind is said");
    assert!(hint(data.path(), "search", "s-2").contains("tack: search "), "another session hears it");
    assert_eq!(hint(data.path(), "make", "s-3"), "", "a kind it does not know says nothing");
}

#[test]
fn claude_code_validates_the_plugin_and_the_marketplace() {
    let home = tempfile::tempdir().unwrap();
    for (path, kind) in [(plugin_dir(), "plugin"), (repository(), "marketplace")] {
        let out = claude_cli(home.path(), &["plugin", "validate", "--json", &path.display().to_string()]);
        let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        assert_eq!(report["success"], true, "{report:#}");
        assert_eq!(report["manifest"]["type"], kind, "{report:#}");
        assert_eq!(report["manifest"]["errors"], json!([]), "{kind}: {report:#}");
        assert_eq!(report["manifest"]["warnings"], json!([]), "{kind}: {report:#}");
        if kind == "plugin" {
            let provides = &report["provides"];
            assert_eq!(provides["skills"], json!(["tack:tack"]));
            assert_eq!(provides["mcpServers"][0]["name"], "tack");
            let hooks: Vec<&str> = provides["hooks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["matcher"].as_str().unwrap())
                .collect();
            assert!(
                !hooks.is_empty() && hooks.iter().all(|m| *m == "Bash"),
                "hooks match Bash only: {hooks:?}"
            );
        }
    }
}

/// The hook's lines as Claude Code hands them to the model.
const HOOK_PREFIX: &str = "PreToolUse:Bash hook additional context: ";

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_installs_the_plugin_by_path_and_hands_its_model_tacks_text() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let root = repository().display().to_string();
    let installed = claude_cli(home.path(), &["plugin", "install", "tack", "--marketplace", &root]);
    assert!(installed.contains("Successfully installed plugin: tack@tack"), "{installed}");
    let listed = claude_cli(home.path(), &["plugin", "list"]);
    assert!(listed.contains("tack@tack") && listed.contains("✔ enabled"), "{listed}");

    // What the plugin costs the context, as Claude Code projects it.
    let details = claude_cli(home.path(), &["plugin", "details", "tack@tack"]);
    let figure = |pattern: &str| -> u64 {
        let found = regex::Regex::new(pattern).unwrap().captures(&details);
        found.unwrap_or_else(|| panic!("no {pattern:?} in:\n{details}"))[1].parse().unwrap()
    };
    let always_on = figure(r"Always-on:\s+~(\d+) tok");
    let on_invoke = figure(r"\n\s*tack\s+~\d+\s+~(\d+)");
    assert!(details.contains("Skills (1)  tack") && details.contains("MCP servers (1)  tack"), "{details}");
    eprintln!("claude plugin details: always-on ~{always_on} tokens, the skill ~{on_invoke} when invoked");

    let script = vec![
        client_call("Skill", json!({"skill": "tack:tack"})),
        call("read_file", json!({"path": "src/lib.rs"})),
        client_call("Bash", json!({"command": "grep -rn area src", "description": "grep"})),
        client_call("Bash", json!({"command": "grep -rn Cart shop", "description": "grep again"})),
        client_call("Bash", json!({"command": "find . -name '*.py'", "description": "find"})),
        client_call("Bash", json!({"command": "cat shop/cart.py", "description": "cat"})),
        client_call("Bash", json!({"command": "ls shop", "description": "ls"})),
        call("search", json!({"query": "Cart add item"})),
    ];
    let model = ScriptedModel::start(Api::Anthropic, "plugin_tack_tack", script.clone()).await;
    let (_bin, path) = tack_on_path();
    let mut command = clients::claude_command(&model, home.path(), "mcp__plugin_tack_tack,Bash,Skill");
    command
        .env("PATH", path)
        .env("XDG_CACHE_HOME", test_cache_home())
        .env("TACK_LOG", "warn")
        .env_remove("TACK_BINARY");
    let run = clients::finish(command, repo.path()).await;
    assert_ran("claude", &run);

    let results = model.results();
    assert_eq!(results.len(), script.len(), "{results:#?}\n{}", run.dump());
    // tack, started by the plugin in the session's folder, answered with its text.
    assert!(results[1].starts_with("[src/lib.rs: lines 1-3 of 3; version "), "{}", results[1]);
    assert!(results[1].contains("1\tpub fn area(r: f64) -> f64 {"), "{}", results[1]);
    assert!(results[7].contains("shop/cart.py") && results[7].contains("# in Cart.add"), "{}", results[7]);

    // The core tools are offered from the first turn, none deferred behind tool search.
    let definitions = model.tool_definitions();
    let mut names: Vec<&str> = definitions.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, tack_tests::core_tools_as("mcp__plugin_tack_tack__"));
    assert!(definitions.iter().all(|t| t.get("defer_loading") != Some(&json!(true))), "{definitions:#?}");
    let tool_tokens = count_tokens(&Value::Array(definitions).to_string());
    assert!(tool_tokens <= 1_500, "tack's tool definitions take {tool_tokens} tokens through the plugin");

    let first = model.turns().into_iter().next().expect("a first turn");
    let listing: Vec<String> = texts(&first)
        .iter()
        .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| l.starts_with("- tack:tack: "))
        .collect();
    assert_eq!(listing, [format!("- tack:tack: {}", skill().description)], "the skill is listed once");
    let last = model.turns().pop().expect("a last turn");
    let all = texts(&last);
    let invoked = all
        .iter()
        .find(|t| t.starts_with("Base directory for this skill: "))
        .unwrap_or_else(|| panic!("the skill's text never reached the model: {all:#?}"));
    let read = format!(
        "listed:\n{}\n\ninvoked:\n{}",
        listing[0],
        invoked.replace(&plugin_dir().display().to_string(), "<plugin>")
    );
    expect_file!["snapshots/plugin_skill.txt"].assert_eq(&read);
    eprintln!(
        "claude: the skill's listing line {} o200k tokens, its text when invoked {}",
        count_tokens(&listing[0]),
        count_tokens(invoked)
    );

    // The hook: one line per kind of command (two greps, one line), nothing for ls.
    let hints: Vec<&str> =
        all.iter().flat_map(|t| t.lines()).filter(|l| l.starts_with(HOOK_PREFIX)).collect();
    let kinds: Vec<&str> =
        hints.iter().map(|h| h[HOOK_PREFIX.len()..].split(' ').nth(1).unwrap_or("")).collect();
    assert_eq!(kinds, ["search", "repo_map", "read_file"], "{hints:#?}");
    let per_line: Vec<usize> = hints.iter().map(|h| count_tokens(h)).collect();
    let hook_tokens: usize = per_line.iter().sum();
    eprintln!(
        "claude through the plugin: tools {tool_tokens} tokens; the hook at most {hook_tokens} a session \
         ({per_line:?} for {kinds:?})"
    );
    let skill_and_hook = always_on as usize + on_invoke as usize + hook_tokens;
    assert!(skill_and_hook <= 600, "skill and hook take {skill_and_hook} tokens");
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_installs_the_plugin_by_path_and_hands_its_model_tacks_text() {
    let repo = sample_repo();
    let home = tempfile::tempdir().unwrap();
    let script = vec![
        call("read_file", json!({"path": "src/lib.rs"})),
        call("search", json!({"query": "Cart add item"})),
    ];
    let model = ScriptedModel::start(Api::OpenAiResponses, "tack", script.clone()).await;
    // The model's settings first: Codex adds the marketplace and the plugin after them.
    std::fs::write(home.path().join("config.toml"), clients::codex_provider(&model)).unwrap();
    let root = repository().display().to_string();
    let added = codex_cli(home.path(), &["plugin", "marketplace", "add", &root]);
    assert!(added.contains("Added marketplace `tack`"), "{added}");
    let installed = codex_cli(home.path(), &["plugin", "add", "tack@tack"]);
    assert!(installed.contains("Added plugin `tack` from marketplace `tack`"), "{installed}");
    let listed = codex_cli(home.path(), &["plugin", "list"]);
    assert!(
        listed.lines().any(|l| l.starts_with("tack@tack") && l.contains("installed, enabled")),
        "{listed}"
    );

    let (_bin, path) = tack_on_path();
    let mut command = clients::codex_command(home.path());
    command.env("PATH", &path).env_remove("TACK_BINARY");
    let run = clients::finish(command, repo.path()).await;
    assert_ran("codex", &run);
    let results = model.results();
    assert_eq!(results.len(), script.len(), "{results:#?}\n{}", run.dump());
    assert!(results[0].contains("[src/lib.rs: lines 1-3 of 3; version "), "{}", results[0]);
    assert!(results[0].contains("1\tpub fn area(r: f64) -> f64 {"), "{}", results[0]);
    assert!(results[1].contains("shop/cart.py") && results[1].contains("# in Cart.add"), "{}", results[1]);

    let first = model.turns().into_iter().next().expect("a first turn");
    let tools = model.tool_definitions();
    let tool_tokens = count_tokens(&Value::Array(tools.clone()).to_string());
    eprintln!("codex through the plugin: tools {tool_tokens} tokens");
    assert!(tool_tokens <= 1_500, "tack's tool definitions take {tool_tokens} tokens through the plugin");
    let namespace = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__tack")
        .expect("tack's namespace");
    assert!(namespace["description"].as_str().unwrap().starts_with(Toolbox::PURPOSE), "{namespace:#}");
    let listed_skill = format!("- tack:tack: {}", skill().description);
    assert!(
        texts(&first).iter().any(|t| t.lines().any(|l| l.starts_with(&listed_skill))),
        "Codex lists the plugin's skill"
    );

    // Without a tack anywhere, Codex refuses to start and says how to get one.
    let mut command = clients::codex_command(home.path());
    command.env("PATH", path_without_tack()).env_remove("TACK_BINARY");
    let run = clients::finish(command, repo.path()).await;
    assert!(!run.success, "{}", run.dump());
    assert!(
        run.stderr.contains("required MCP servers failed to initialize: tack")
            && run.stderr.contains("tack: no tack binary on PATH")
            && run.stderr.contains("cargo install --locked --path server"),
        "{}",
        run.dump()
    );
}

/// The plugin's eval suite (`plugins/tack/evals`: localize a bug report, who calls a function,
/// a rename across files, fix a failing test, each on the py_shop fixture) under `claude plugin
/// eval`, both arms, against the scripted model: the suite loads, each case's scaffold makes
/// its repository, the plugin's real server starts in the with arm and answers, every grader
/// runs, and the report is written. With a real model the same command gives tack's effect
/// (README: "Measure it").
#[tokio::test(flavor = "multi_thread")]
async fn claude_plugin_eval_runs_the_suite_with_and_without_tack() {
    let home = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let script = vec![call("search", json!({"query": "discount code takes off the total"}))];
    let model = ScriptedModel::start(Api::Anthropic, "plugin_tack_tack", script).await;
    let (_bin, path) = tack_on_path();
    let report = out.path().join("result.json");
    let output = Command::new(clients::clients_dir().join("node_modules/.bin/claude"))
        .args(["plugin", "eval"])
        .arg(plugin_dir())
        .args(["--trust-plugin", "--scaffold", "--mocks", "off", "--runs", "1", "--threshold", "0"])
        .args(["--ablation", "with-without", "--no-publish", "--allow-tools", "mcp__plugin_tack_tack__*"])
        .arg("--output-dir")
        .arg(out.path().join("aggregate"))
        .arg("--json")
        .arg(&report)
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("PATH", path)
        .env("ANTHROPIC_BASE_URL", &model.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("XDG_CACHE_HOME", test_cache_home())
        .env("TACK_LOG", "warn")
        .env_remove("TACK_BINARY")
        .output()
        .expect("claude plugin eval runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let dump = format!("{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "claude plugin eval failed:\n{dump}");
    assert!(out.path().join("aggregate/report.html").is_file(), "the report is written:\n{dump}");
    let result = read_json(&report);
    assert_eq!(result["suite"]["ablation"], "with-without", "{result}");
    let cases = result["cases"].as_array().expect("cases");
    let mut names: Vec<&str> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["fix-a-failing-test", "localize-a-bug-report", "rename-across-files", "who-calls-a-function"]
    );
    for case in cases {
        for arm in ["with", "without"] {
            let runs = case["arms"][arm].as_array().expect("runs");
            assert_eq!(runs.len(), 1, "{case}");
            let run = &runs[0];
            // No scaffold, server or grader failed: every grader gave a verdict.
            assert!(run["error"].is_null(), "{} [{arm}] errored: {run}", case["name"]);
            let graders = run["graders"].as_array().expect("graders");
            assert_eq!(graders.len(), case["graders"].as_array().unwrap().len(), "{run}");
            assert!(graders.iter().all(|g| g["passed"].is_boolean()), "{run}");
            if case["name"] == "fix-a-failing-test" {
                // The scaffold planted the bug and left the test alone; nothing fixed it.
                let verdict =
                    |name: &str| graders.iter().find(|g| g["name"] == name).unwrap()["passed"].clone();
                assert_eq!(
                    (verdict("discount-restored"), verdict("test-unchanged")),
                    (json!(false), json!(true))
                );
            }
        }
    }
    // tack, started by the plugin in each with-arm run's repository, answered the search.
    let answers: Vec<String> = model
        .requests()
        .iter()
        .flat_map(|r| texts(&r.body))
        .filter(|t| t.contains("shop/pricing.py"))
        .collect();
    assert!(!answers.is_empty(), "no request carried tack's search answer:\n{dump}");
}

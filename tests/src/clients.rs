//! The real Claude Code and Codex binaries: installed from npm at pinned versions into
//! `target/real-clients` on first use, and run headless against a [`ScriptedModel`] with tack
//! as their MCP server, the way a user would configure it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;

use crate::model::{Api, ScriptedModel};
use crate::{tack_binary, test_cache_home};

/// The newest versions that install here (Claude Code asks for Node 22 but its native binary
/// runs on Node 20; Codex's launcher runs on Node 20).
pub const CLAUDE_CODE: &str = "@anthropic-ai/claude-code@2.1.332";
pub const CODEX: &str = "@openai/codex@0.171.0";

/// How long one headless client run may take before the test fails.
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

/// Where the clients are installed; installs them when the pinned versions are not there.
/// Fails loudly when npm is missing: these tests never skip.
pub fn clients_dir() -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let target = tack_binary().parent().and_then(Path::parent).expect("target dir");
    let dir = target.join("real-clients");
    let stamp = dir.join("installed.txt");
    let wanted = format!("{CLAUDE_CODE} {CODEX}\n");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
        return dir;
    }
    std::fs::create_dir_all(&dir).expect("real-clients dir");
    let status = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
        .arg(&dir)
        .args([CLAUDE_CODE, CODEX])
        .status()
        .expect("npm runs (install Node.js and npm: apt-get install nodejs npm)");
    assert!(status.success(), "npm install {CLAUDE_CODE} {CODEX} failed");
    std::fs::write(&stamp, wanted).expect("stamp");
    dir
}

/// How a client reaches tack.
#[derive(Debug, Clone)]
pub enum Transport {
    /// `tack serve --root ROOT` over stdio, with these extra arguments.
    Stdio { root: PathBuf, args: Vec<String> },
    /// A running `tack serve --http` at this URL, and the bearer token it asks for (`None`
    /// under `--no-auth`).
    Http { url: String, token: Option<String> },
    /// Another MCP server over stdio (a peer measured beside tack), configured under the same
    /// server name, so a script's tool names read `mcp__tack__<tool>`.
    Command { program: PathBuf, args: Vec<String>, env: Vec<(String, String)> },
}

/// What a client run printed, and how it ended.
#[derive(Debug)]
pub struct ClientRun {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl ClientRun {
    /// Both streams, for a failure message.
    pub fn dump(&self) -> String {
        format!("--- stdout\n{}\n--- stderr\n{}", self.stdout, self.stderr)
    }
}

/// The client that speaks `api`, run headless in `cwd` against `model`.
pub async fn run(api: Api, model: &ScriptedModel, transport: &Transport, cwd: &Path) -> ClientRun {
    match api {
        Api::Anthropic => claude(model, transport, cwd).await,
        Api::OpenAiResponses => codex(model, transport, cwd).await,
    }
}

/// A short name for the client that speaks `api`.
pub fn name(api: Api) -> &'static str {
    match api {
        Api::Anthropic => "claude",
        Api::OpenAiResponses => "codex",
    }
}

/// Runs `claude -p` headless in `cwd` with tack as its only MCP server and `model` as its API.
pub async fn claude(model: &ScriptedModel, transport: &Transport, cwd: &Path) -> ClientRun {
    let home = tempfile::tempdir().expect("scratch HOME");
    let server = match transport {
        Transport::Stdio { root, args } => {
            let mut all = vec!["serve".to_string(), "--root".to_string(), root.display().to_string()];
            all.extend(args.iter().cloned());
            json!({"type": "stdio", "command": tack_binary(), "args": all, "env": tack_env()})
        }
        // As a user's configuration passes it (`claude mcp add --header` writes the same).
        Transport::Http { url, token: Some(token) } => {
            json!({"type": "http", "url": url, "headers": {"Authorization": format!("Bearer {token}")}})
        }
        Transport::Http { url, token: None } => json!({"type": "http", "url": url}),
        Transport::Command { program, args, env } => {
            let env: serde_json::Map<String, serde_json::Value> =
                env.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            json!({"type": "stdio", "command": program, "args": args, "env": env})
        }
    };
    let config = home.path().join("mcp.json");
    std::fs::write(&config, json!({"mcpServers": {"tack": server}}).to_string()).expect("mcp config");
    let mut command = claude_command(model, home.path(), "mcp__tack");
    command.arg("--strict-mcp-config").arg("--mcp-config").arg(&config);
    finish(command, cwd).await
}

/// Runs `claude -p` headless in `cwd` with `home` as its HOME and only the MCP servers that
/// home's configuration names (as `tack setup claude` left it).
pub async fn claude_in_home(model: &ScriptedModel, home: &Path, cwd: &Path) -> ClientRun {
    finish(claude_command(model, home, "mcp__tack"), cwd).await
}

/// `claude -p` with `home` as its HOME and `model` as its API, the tools in `allowed` (a comma
/// list of tools or servers, such as `mcp__tack`) called without a permission prompt; run it
/// with [`finish`].
pub fn claude_command(model: &ScriptedModel, home: &Path, allowed: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(clients_dir().join("node_modules/.bin/claude"));
    command
        .args(["-p", "Work on this repository with the tack tools.", "--output-format", "json"])
        .args(["--allowedTools", allowed])
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", &model.url)
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("MCP_TIMEOUT", "60000")
        .env("MCP_TOOL_TIMEOUT", "120000")
        .env_remove("MAX_MCP_OUTPUT_TOKENS");
    command
}

/// Runs `codex exec` headless in `cwd` with tack as its only MCP server and `model` as its API.
/// `required` makes Codex wait for tack before its first request (else that request may go
/// out before tack's tools are listed).
pub async fn codex(model: &ScriptedModel, transport: &Transport, cwd: &Path) -> ClientRun {
    const COMMON: &str = "tool_timeout_sec = 120\nrequired = true\n";
    let home = tempfile::tempdir().expect("scratch CODEX_HOME");
    let server = match transport {
        Transport::Stdio { root, args } => {
            let mut all = vec!["serve".to_string(), "--root".to_string(), root.display().to_string()];
            all.extend(args.iter().cloned());
            let env: Vec<String> =
                tack_env().as_object().expect("env").iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!(
                "command = {}\nargs = {}\n{COMMON}[mcp_servers.tack.env]\n{}\n",
                json!(tack_binary()),
                json!(all),
                env.join("\n")
            )
        }
        Transport::Http { url, token } => {
            let headers = token
                .as_ref()
                .map(|t| format!("http_headers = {{ Authorization = {} }}\n", json!(format!("Bearer {t}"))))
                .unwrap_or_default();
            format!("url = {}\n{headers}{COMMON}", json!(url))
        }
        Transport::Command { program, args, env } => {
            let env: Vec<String> = env.iter().map(|(k, v)| format!("{k} = {}", json!(v))).collect();
            format!(
                "command = {}\nargs = {}\n{COMMON}[mcp_servers.tack.env]\n{}\n",
                json!(program),
                json!(args),
                env.join("\n")
            )
        }
    };
    let config = format!("{}\n[mcp_servers.tack]\n{server}", codex_provider(model));
    std::fs::write(home.path().join("config.toml"), config).expect("codex config");
    codex_in_home(home.path(), cwd).await
}

/// The top of a Codex `config.toml` that makes `model` its model's API, without approvals.
pub fn codex_provider(model: &ScriptedModel) -> String {
    format!(
        "model = \"gpt-5-codex\"\nmodel_provider = \"standin\"\napproval_policy = \"never\"\n\
         sandbox_mode = \"danger-full-access\"\n\n[model_providers.standin]\nname = \"standin\"\n\
         base_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"TACK_STANDIN_KEY\"\n",
        model.url
    )
}

/// Runs `codex exec` headless in `cwd` with `home` as its HOME and CODEX_HOME, whose
/// `config.toml` names the model (see [`codex_provider`]) and the MCP servers.
pub async fn codex_in_home(home: &Path, cwd: &Path) -> ClientRun {
    finish(codex_command(home), cwd).await
}

/// `codex exec` with `home` as its HOME and CODEX_HOME; run it with [`finish`].
pub fn codex_command(home: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(clients_dir().join("node_modules/.bin/codex"));
    command
        .args(["exec", "--skip-git-repo-check", "Work on this repository with the tack tools."])
        .env("HOME", home)
        .env("CODEX_HOME", home)
        .env("TACK_STANDIN_KEY", "sk-test");
    command
}

/// Runs `codex exec --oss --local-provider ollama` headless in `cwd`, as a user of a local model
/// does, with `model` standing in for the Ollama server (`CODEX_OSS_BASE_URL`) and `home` as its
/// HOME and CODEX_HOME.
pub async fn codex_oss_in_home(model: &ScriptedModel, home: &Path, cwd: &Path) -> ClientRun {
    let mut command = tokio::process::Command::new(clients_dir().join("node_modules/.bin/codex"));
    command
        .args(["exec", "--oss", "--local-provider", "ollama", "-m", crate::model::LOCAL_MODEL])
        .args(["--skip-git-repo-check", "Work on this repository with the tack tools."])
        .env("HOME", home)
        .env("CODEX_HOME", home)
        .env("CODEX_OSS_BASE_URL", format!("{}/v1", model.url));
    finish(command, cwd).await
}

/// The environment tack runs with under a client: quiet, its index in the test cache.
fn tack_env() -> serde_json::Value {
    json!({"TACK_LOG": "warn", "XDG_CACHE_HOME": test_cache_home()})
}

/// Runs a client's `command` in `cwd` to its end (within the run timeout) and keeps its output.
pub async fn finish(mut command: tokio::process::Command, cwd: &Path) -> ClientRun {
    command
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = command.spawn().expect("the client starts");
    let output = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
        .await
        .expect("the client finishes within its timeout")
        .expect("the client's output");
    ClientRun {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

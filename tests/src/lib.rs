//! Helpers for the end-to-end tests: build and find the real `tack` binary, start it over stdio
//! or HTTP, make small repositories to point it at, and drive the real Claude Code and Codex
//! binaries against a scripted model.

pub mod as_user;
pub mod bench;
pub mod clients;
pub mod model;
pub mod postgres;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// tack's core tools, in the order its tool list gives them (the contract's order).
pub const CORE_TOOLS: [&str; 9] =
    ["context", "repo_map", "search", "read_file", "edit_file", "run", "verify", "find_tools", "call_tool"];

/// [`CORE_TOOLS`] as a client names them after the server's prefix (`mcp__tack__`), sorted by
/// name, as Claude Code lists them.
pub fn core_tools_as(prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = CORE_TOOLS.iter().map(|n| format!("{prefix}{n}")).collect();
    names.sort_unstable();
    names
}

/// Calls tool `name` with the object `args` over an rmcp client and returns its result; a
/// transport failure fails the test.
pub async fn call(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    name: &str,
    args: serde_json::Value,
) -> rmcp::model::CallToolResult {
    let serde_json::Value::Object(args) = args else { panic!("arguments must be an object") };
    peer.call_tool(rmcp::model::CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
        .expect("tools/call")
}

/// The `tack` binary of this workspace, built once per test process with the same profile as
/// the tests (so `cargo test` alone is enough). `TACK_TEST_BINARY` names another one instead,
/// to show that a test fails against an older build.
pub fn tack_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        if let Some(given) = std::env::var_os("TACK_TEST_BINARY").filter(|v| !v.is_empty()) {
            return PathBuf::from(given);
        }
        let status = std::process::Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "tack", "--bin", "tack"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "cargo build -p tack failed");
        // The test executable lives in target/<profile>/deps; the binary one level up.
        let exe = std::env::current_exe().expect("current exe");
        let dir = exe.parent().and_then(Path::parent).expect("target/<profile>");
        let binary = dir.join("tack");
        assert!(binary.exists(), "{} is missing", binary.display());
        binary
    })
}

/// The `tack` binary where every user may run it: [`tack_binary`] itself when each folder above
/// it lets others through, else a copy made once in a fresh folder of the system's temporary
/// folder (a checkout in root's own home, as on many CI machines, is closed to others).
pub fn tack_binary_for_anyone() -> &'static Path {
    use std::os::unix::fs::PermissionsExt;
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let binary = tack_binary();
        let open =
            |p: &Path, bits: u32| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & bits == bits);
        if open(binary, 0o005) && binary.ancestors().skip(1).all(|dir| open(dir, 0o001)) {
            return binary.to_path_buf();
        }
        let dir = std::env::temp_dir().join(format!("tack-for-anyone-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder for the copy");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let copy = dir.join("tack");
        std::fs::copy(binary, &copy).expect("the binary copies");
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        copy
    })
}

/// Runs `command` to its end and returns its stdout, after asserting it succeeded (the failure
/// shows the command, its status and both streams).
pub fn stdout_of(command: &mut std::process::Command) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{command:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Where servers started by tests keep their indexes: a scratch cache directory, so tests never
/// write into the user's cache.
pub fn test_cache_home() -> PathBuf {
    let dir = std::env::temp_dir().join("tack-test-cache");
    std::fs::create_dir_all(&dir).expect("test cache dir");
    dir
}

/// `tack serve` over stdio on `root`, quiet on stderr, with its index in the test cache: the
/// command for tests that speak raw JSON-RPC (wrap it in `tokio::process::Command::from` for
/// async ones).
pub fn stdio_server(root: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(tack_binary());
    command
        .args(["serve", "--root"])
        .arg(root)
        .env("TACK_LOG", "error")
        .env("XDG_CACHE_HOME", test_cache_home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// A Python (from `TACK_PYTHON`, else the venv `target/interop-venv`, made on first use) that
/// can import every module of `modules` (`(import name, pip requirement)`), installing the
/// missing ones with pip. Fails loudly when it cannot: tests that need Python never skip.
pub fn python_with(modules: &[(&str, &str)]) -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(python) = std::env::var("TACK_PYTHON") {
        return PathBuf::from(python);
    }
    let target = tack_binary().parent().and_then(Path::parent).expect("target dir");
    let venv = target.join("interop-venv");
    let python = venv.join("bin/python");
    let imports = |python: &Path, module: &str| {
        std::process::Command::new(python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !python.exists() {
        let made = std::process::Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .status()
            .expect("python3 runs");
        assert!(made.success(), "python3 -m venv {} failed", venv.display());
    }
    let missing: Vec<&str> =
        modules.iter().filter(|(module, _)| !imports(&python, module)).map(|(_, spec)| *spec).collect();
    if !missing.is_empty() {
        let installed = std::process::Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .args(&missing)
            .status()
            .expect("pip runs");
        assert!(installed.success(), "pip install {missing:?} failed");
    }
    for (module, _) in modules {
        assert!(imports(&python, module), "{module} is not importable from {}", python.display());
    }
    python
}

/// A small repository: a Python package, a Rust file, a 1,000-line text file, and a word in
/// 30 files.
pub fn sample_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("shop/cart.py", "class Cart:\n    def add(self, item):\n        self.items.append(item)\n");
    write("shop/__init__.py", "from .cart import Cart\n");
    write("src/lib.rs", "pub fn area(r: f64) -> f64 {\n    3.14 * r * r\n}\n");
    write("notes/big.txt", &(1..=1000).map(|i| format!("line {i}\n")).collect::<String>());
    for i in 0..30 {
        write(&format!("words/w{i:02}.txt"), "a marker word\n");
    }
    dir
}

/// Copies a fixture repository into a fresh temporary directory (so a test may change it).
pub fn fixture_copy(name: &str) -> tempfile::TempDir {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name);
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&from, dir.path());
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A `tack serve --http 127.0.0.1:0` process, the URL it serves and the token its requests
/// need (`None` under `--no-auth`).
pub struct HttpServer {
    pub child: Child,
    pub url: String,
    pub token: Option<String>,
    /// The lines it logged before it served.
    pub log: Vec<String>,
}

impl HttpServer {
    /// An rmcp client transport to this server that sends the token, as a configured client does.
    pub fn transport(&self) -> impl rmcp::transport::Transport<rmcp::RoleClient> + 'static {
        let mut config =
            rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                self.url.clone(),
            );
        if let Some(token) = &self.token {
            config = config.auth_header(token.clone());
        }
        rmcp::transport::StreamableHttpClientTransport::from_config(config)
    }

    /// The `Authorization` header line for a raw request (empty under `--no-auth`).
    pub fn auth_header(&self) -> String {
        self.token.as_ref().map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default()
    }
}

/// The token a server's log line before `serving MCP at` names: the file it was saved in, or the
/// token itself when there is no state folder.
pub fn token_from_log(line: &str) -> Option<String> {
    let rest = line.strip_prefix("tack: requests need Authorization: Bearer ")?;
    match rest.strip_prefix("<the token in ").and_then(|r| r.strip_suffix('>')) {
        Some(path) => {
            Some(std::fs::read_to_string(path).expect("the saved token is readable").trim().to_string())
        }
        None => Some(rest.trim().to_string()),
    }
}

/// Starts `tack serve --http` on a free loopback port and waits until it listens.
pub async fn start_http(root: &Path, extra: &[&str]) -> HttpServer {
    start_http_as(root, extra, |_| {}).await
}

/// [`start_http`], with `prepare` applied to the command before it starts (an environment
/// variable, a `pre_exec`).
pub async fn start_http_as(root: &Path, extra: &[&str], prepare: impl FnOnce(&mut Command)) -> HttpServer {
    let mut command = Command::new(tack_binary());
    command
        .args(["serve", "--http", "127.0.0.1:0", "--root"])
        .arg(root)
        .args(extra)
        .env("XDG_CACHE_HOME", test_cache_home())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    prepare(&mut command);
    let mut child = command.spawn().expect("tack starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let given =
        extra.iter().position(|a| *a == "--token").and_then(|i| extra.get(i + 1)).map(|t| t.to_string());
    let (url, token, log) = tokio::time::timeout(Duration::from_secs(30), async {
        let mut token = given;
        let mut log = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.strip_prefix("tack: serving MCP at ") {
                return (url.trim().to_string(), token, log);
            }
            token = token.or_else(|| token_from_log(&line));
            log.push(line);
        }
        panic!("tack exited before serving:\n{}", log.join("\n"));
    })
    .await
    .expect("tack serves within 30 s");
    // Keep draining stderr so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    HttpServer { child, url, token, log }
}

/// Live processes whose command line is exactly `argv` (zombies count as dead). Commands run in
/// their own PID namespace, so the pids they print are not the host's; command lines are.
pub fn processes(argv: &[&str]) -> Vec<u32> {
    let wanted: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
            .unwrap_or(true);
        if !zombie && std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted) {
            found.push(pid);
        }
    }
    found
}

/// Polls [`processes`] of `argv` until `want` holds or `secs` pass; the processes at the end.
pub fn wait_for_processes(argv: &[&str], secs: u64, want: impl Fn(&[u32]) -> bool) -> Vec<u32> {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let now = processes(argv);
        if want(&now) || std::time::Instant::now() > deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The whole response to a raw POST of `body` to `url` with extra header lines (each ending in
/// `\r\n`) on a connection of its own; what arrived within 10 s.
pub async fn raw_post(url: &str, headers: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = rest.split_once('/').expect("a path");
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let Ok(mut stream) = tokio::net::TcpStream::connect(host).await else { return String::new() };
    if stream.write_all(request.as_bytes()).await.is_err() {
        return String::new();
    }
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response)).await;
    String::from_utf8_lossy(&response).into_owned()
}

/// A JSON-RPC `initialize` request, the first a client sends.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

/// The agent handle a result names on a line of its own (`agent a…: …`): the one a call
/// without a session started, or a kept session's.
pub fn agent_in(text: &str) -> String {
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with("agent a"))
        .unwrap_or_else(|| panic!("no agent line: {text}"));
    line["agent ".len()..].split(':').next().unwrap().to_string()
}

/// The handle a cut result's marker names (`read_output(handle="h1")`).
pub fn handle_in(text: &str) -> String {
    let start =
        text.find("read_output(handle=\"").unwrap_or_else(|| panic!("no handle in the marker: {text}"))
            + "read_output(handle=\"".len();
    text[start..].split('"').next().unwrap().to_string()
}

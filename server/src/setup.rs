//! `tack setup claude|codex`: adds tack to a client's configuration, once.
//!
//! Claude Code is configured through `claude mcp add` when `claude` is on PATH (it owns its
//! file's format), else by editing the file it reads; an entry holding the HTTP token is always
//! written to the file, since no token goes on a command line another user could read. Codex is always configured by editing its
//! `config.toml` with `toml_edit`: `codex mcp add` can write neither a project's
//! `.codex/config.toml` nor `http_headers`, and an edit keeps the user's comments and order.
//! Either way only tack's own entry changes, and a second run changes nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;
use indexmap::IndexMap;
use serde_json::value::RawValue;

/// The name tack's entry has in each client's configuration (its tools are `mcp__tack__…`).
const NAME: &str = "tack";

/// The variable a project's configuration reads the HTTP token from: a file the repository may
/// commit never holds the token itself.
pub use crate::http::TOKEN_VAR;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    Claude,
    Codex,
}

/// What `tack setup` was asked for.
pub struct Request {
    pub client: Client,
    /// The repository root (for `--project`, and for finding the HTTP token).
    pub root: PathBuf,
    /// `tack serve --http` at this URL instead of a stdio server the client starts.
    pub http: Option<String>,
    /// The token the client sends to `http`.
    pub token: Option<String>,
    /// The repository's own configuration (`.mcp.json`, `.codex/config.toml`) instead of the
    /// user's.
    pub project: bool,
    pub dry_run: bool,
    /// Passed to `tack serve --context-window` (stdio only).
    pub context_window: Option<usize>,
    /// The `tack` binary the client starts.
    pub binary: PathBuf,
    /// The user's home (where the user's configuration of each client lives).
    pub home: PathBuf,
    /// Codex's home (`$CODEX_HOME`, else `~/.codex`).
    pub codex_home: PathBuf,
    /// `claude` on PATH, if it is there.
    pub claude: Option<PathBuf>,
}

/// The entry tack wants, independent of the client's spelling of it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Stdio {
        command: String,
        args: Vec<String>,
    },
    /// `header` is the `Authorization` value: the token itself, or `${TACK_HTTP_TOKEN}` for a
    /// project's file.
    Http {
        url: String,
        header: String,
    },
}

/// What happened, as printed.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Unchanged(String),
    Changed(String),
}

impl Outcome {
    pub fn message(&self) -> &str {
        match self {
            Outcome::Unchanged(m) | Outcome::Changed(m) => m,
        }
    }
}

pub fn run(req: &Request) -> anyhow::Result<Outcome> {
    let entry = entry(req)?;
    match req.client {
        Client::Claude => claude(req, &entry),
        Client::Codex => codex(req, &entry),
    }
}

fn entry(req: &Request) -> anyhow::Result<Entry> {
    match &req.http {
        Some(url) => {
            anyhow::ensure!(
                req.context_window.is_none(),
                "--context-window belongs to the server over HTTP: pass it to tack serve --http"
            );
            anyhow::ensure!(
                url.starts_with("http://") || url.starts_with("https://"),
                "--http takes the server's URL, such as http://127.0.0.1:8765/mcp (got {url})"
            );
            let header = if req.project {
                format!("Bearer ${{{TOKEN_VAR}}}")
            } else {
                let token = req.token.as_deref().context("no token for the HTTP server")?;
                format!("Bearer {token}")
            };
            Ok(Entry::Http { url: url.clone(), header })
        }
        None => {
            let command = req
                .binary
                .to_str()
                .with_context(|| format!("the tack binary's path is not UTF-8: {}", req.binary.display()))?
                .to_string();
            let mut args = vec!["serve".to_string()];
            if let Some(window) = req.context_window {
                args.extend(["--context-window".to_string(), window.to_string()]);
            }
            Ok(Entry::Stdio { command, args })
        }
    }
}

/// Whether the entry holds the token itself (rather than the name of a variable holding it).
fn holds_token(entry: &Entry) -> bool {
    matches!(entry, Entry::Http { header, .. } if !header.starts_with("Bearer ${"))
}

fn describe(entry: &Entry) -> String {
    match entry {
        Entry::Stdio { command, args } => format!("{command} {} (stdio)", args.join(" ")),
        Entry::Http { url, .. } => format!("{url} (HTTP, with the token as a header)"),
    }
}

// ---- Claude Code ----

fn claude(req: &Request, want: &Entry) -> anyhow::Result<Outcome> {
    let (file, scope) = if req.project {
        (req.root.join(".mcp.json"), "project")
    } else {
        (req.home.join(".claude.json"), "user")
    };
    let text = read_optional(&file)?;
    let have = match &text {
        Some(text) => claude_entry(text, &file)?,
        None => None,
    };
    let what = describe(want);
    if have.as_ref() == Some(want) {
        return Ok(Outcome::Unchanged(format!(
            "tack is already in Claude Code's {scope} config ({}): {what}; nothing changed",
            file.display()
        )));
    }
    let verb = if have.is_some() { "replaced" } else { "added" };
    let message = format!("{verb} tack in Claude Code's {scope} config ({}): {what}", file.display());
    if req.dry_run {
        return Ok(Outcome::Changed(format!("would have {message}")));
    }
    match &req.claude {
        // `claude mcp add --header` would put the token on a command line, which every local
        // user can read while it runs: an entry that holds the token is written to the file.
        Some(claude) if !holds_token(want) => claude_cli(claude, req, want, scope, have.is_some())?,
        _ => {
            let text = text.unwrap_or_else(|| "{}".to_string());
            write_atomic(&file, &set_claude_entry(&text, want, &file)?)?;
        }
    }
    Ok(Outcome::Changed(message))
}

/// tack's entry in a Claude Code config file's `mcpServers`, if it has one.
fn claude_entry(text: &str, file: &Path) -> anyhow::Result<Option<Entry>> {
    let doc: serde_json::Value =
        serde_json::from_str(text).with_context(|| format!("{} is not JSON", file.display()))?;
    let Some(server) = doc.get("mcpServers").and_then(|s| s.get(NAME)) else {
        return Ok(None);
    };
    let text_of = |key: &str| server.get(key).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(url) = text_of("url") {
        let header = server
            .get("headers")
            .and_then(|h| h.get("Authorization"))
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string();
        return Ok(Some(Entry::Http { url, header }));
    }
    let args = server
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    Ok(text_of("command").map(|command| Entry::Stdio { command, args }))
}

fn claude_cli(claude: &Path, req: &Request, want: &Entry, scope: &str, replace: bool) -> anyhow::Result<()> {
    let run = |args: &[&str]| -> anyhow::Result<()> {
        let out = Command::new(claude)
            .args(args)
            .current_dir(&req.root)
            .env("HOME", &req.home)
            .output()
            .with_context(|| format!("cannot run {}", claude.display()))?;
        anyhow::ensure!(
            out.status.success(),
            "claude {} failed ({}): {}",
            args.first().copied().unwrap_or_default(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        Ok(())
    };
    if replace {
        run(&["mcp", "remove", "-s", scope, NAME])?;
    }
    match want {
        Entry::Stdio { command, args } => {
            let mut argv = vec!["mcp", "add", "-s", scope, NAME, "--", command.as_str()];
            argv.extend(args.iter().map(String::as_str));
            run(&argv)
        }
        Entry::Http { url, header } => {
            let header = format!("Authorization: {header}");
            run(&["mcp", "add", "-s", scope, "--transport", "http", NAME, url, "--header", &header])
        }
    }
}

/// `text` with tack's entry in `mcpServers` set to `want`; every other byte of the file kept as
/// it was where the file is laid out as Claude Code writes it (two-space indentation).
fn set_claude_entry(text: &str, want: &Entry, file: &Path) -> anyhow::Result<String> {
    type Raw = IndexMap<String, Box<RawValue>>;
    let not_object = || format!("{} is not a JSON object", file.display());
    let mut doc: Raw = serde_json::from_str(text).with_context(not_object)?;
    let mut servers: Raw = match doc.get("mcpServers") {
        Some(raw) => serde_json::from_str(raw.get())
            .with_context(|| format!("{}: mcpServers is not an object", file.display()))?,
        None => Raw::new(),
    };
    // Keys in the order Claude Code writes them (serde_json's own maps sort them).
    let quoted = |v: &str| serde_json::Value::from(v).to_string();
    let value = match want {
        Entry::Stdio { command, args } => format!(
            "{{\"type\":\"stdio\",\"command\":{},\"args\":{},\"env\":{{}}}}",
            quoted(command),
            serde_json::to_string(args)?
        ),
        Entry::Http { url, header } => format!(
            "{{\"type\":\"http\",\"url\":{},\"headers\":{{\"Authorization\":{}}}}}",
            quoted(url),
            quoted(header)
        ),
    };
    servers.insert(NAME.to_string(), RawValue::from_string(value)?);
    // The other servers' text is kept as it was, already indented for its depth.
    let members: Vec<String> =
        servers.iter().map(|(name, raw)| format!("    {}: {}", quoted(name), raw.get())).collect();
    let servers = format!("{{\n{}\n  }}", members.join(",\n"));
    doc.insert("mcpServers".to_string(), RawValue::from_string(servers)?);
    let trailing = &text[text.trim_end().len()..];
    Ok(serde_json::to_string_pretty(&doc)? + trailing)
}

// ---- Codex ----

fn codex(req: &Request, want: &Entry) -> anyhow::Result<Outcome> {
    let (file, scope) = if req.project {
        (req.root.join(".codex").join("config.toml"), "project")
    } else {
        (req.codex_home.join("config.toml"), "user")
    };
    let text = read_optional(&file)?.unwrap_or_default();
    let mut doc: toml_edit::DocumentMut =
        text.parse().with_context(|| format!("{} is not valid TOML", file.display()))?;
    let have = codex_entry(&doc);
    let what = describe(want);
    if have.as_ref() == Some(want) {
        return Ok(Outcome::Unchanged(format!(
            "tack is already in Codex's {scope} config ({}): {what}; nothing changed",
            file.display()
        )));
    }
    let verb = if have.is_some() { "replaced" } else { "added" };
    let mut message = format!("{verb} tack in Codex's {scope} config ({}): {what}", file.display());
    if req.project {
        message.push_str(" (Codex reads a project's config only once the project is trusted)");
    }
    if req.dry_run {
        return Ok(Outcome::Changed(format!("would have {message}")));
    }
    set_codex_entry(&mut doc, want);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    write_atomic(&file, &doc.to_string())?;
    Ok(Outcome::Changed(message))
}

fn codex_entry(doc: &toml_edit::DocumentMut) -> Option<Entry> {
    let server = doc.get("mcp_servers")?.get(NAME)?;
    let text_of = |key: &str| server.get(key).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(url) = text_of("url") {
        let header = match text_of("bearer_token_env_var") {
            Some(var) => format!("Bearer ${{{var}}}"),
            None => server
                .get("http_headers")
                .and_then(|h| h.get("Authorization"))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string(),
        };
        return Some(Entry::Http { url, header });
    }
    let args = server
        .get("args")
        .and_then(|a| a.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    text_of("command").map(|command| Entry::Stdio { command, args })
}

/// Sets tack's keys in `[mcp_servers.tack]`, removing those of the other transport; keys the
/// user added there (`enabled`, `startup_timeout_sec`, …) stay.
fn set_codex_entry(doc: &mut toml_edit::DocumentMut, want: &Entry) {
    use toml_edit::{Array, InlineTable, Item, Table, value};
    let servers = doc.entry("mcp_servers").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    if !servers.is_table() {
        *servers = Item::Table(Table::new());
    }
    let servers = servers.as_table_mut().expect("a table");
    let server = servers.entry(NAME).or_insert_with(|| Item::Table(Table::new()));
    if !server.is_table() {
        *server = Item::Table(Table::new());
    }
    let server = server.as_table_mut().expect("a table");
    // Keys tack sets again keep their place; those of the other transport (or the other way of
    // passing the token) go.
    let keep: &[&str] = match want {
        Entry::Stdio { .. } => &["command", "args"],
        Entry::Http { header, .. } if header.starts_with("Bearer ${") => &["url", "bearer_token_env_var"],
        Entry::Http { .. } => &["url", "http_headers"],
    };
    for key in ["command", "args", "url", "http_headers", "bearer_token_env_var", "env_http_headers"] {
        if !keep.contains(&key) {
            server.remove(key);
        }
    }
    match want {
        Entry::Stdio { command, args } => {
            server.insert("command", value(command.as_str()));
            server.insert("args", value(args.iter().map(String::as_str).collect::<Array>()));
        }
        Entry::Http { url, header } => {
            server.insert("url", value(url.as_str()));
            match header.strip_prefix("Bearer ${").and_then(|h| h.strip_suffix('}')) {
                Some(var) => {
                    server.insert("bearer_token_env_var", value(var));
                }
                None => {
                    let mut headers = InlineTable::new();
                    headers.insert("Authorization", header.as_str().into());
                    server.insert("http_headers", value(headers));
                }
            }
        }
    }
}

// ---- files ----

/// The file's text, `None` when there is none; bounded, so a FIFO or a huge file fails here.
fn read_optional(path: &Path) -> anyhow::Result<Option<String>> {
    let bytes = tack_indexer::read_bounded(path, 16 << 20, None)
        .with_context(|| format!("cannot read {}", path.display()))?;
    bytes
        .map(|b| String::from_utf8(b).with_context(|| format!("{} is not UTF-8", path.display())))
        .transpose()
}

/// Replaces `path` with `text` atomically (tack's own writer), keeping the file's mode and
/// owner; a new one is made 0600, since `~/.claude.json` and Codex's config can hold a token.
fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    // A config kept elsewhere and linked in (dotfile managers) is written where it lives.
    let path = &std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let keep = match std::fs::metadata(path) {
        Ok(meta) => (meta.mode() & 0o7777, meta.uid(), meta.gid()),
        // SAFETY: geteuid and getegid have no preconditions and cannot fail.
        Err(_) => (0o600, unsafe { libc::geteuid() }, unsafe { libc::getegid() }),
    };
    tack_tools::write_atomic(path, text.as_bytes(), Some(keep))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `name` on PATH, if it is there.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| {
        use std::os::unix::fs::PermissionsExt as _;
        p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> Entry {
        Entry::Stdio { command: "/opt/tack".into(), args: vec!["serve".into()] }
    }

    #[test]
    fn a_claude_file_keeps_every_byte_outside_tacks_entry() {
        let text = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\",\n      \"args\": []\n    }\n  },\n  \"projects\": {\n    \"/a\": {\n      \"allowedTools\": []\n    }\n  }\n}\n";
        let out = set_claude_entry(text, &stdio(), Path::new("c.json")).unwrap();
        let expected = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"x\",\n      \"args\": []\n    },\n    \"tack\": {\"type\":\"stdio\",\"command\":\"/opt/tack\",\"args\":[\"serve\"],\"env\":{}}\n  },\n  \"projects\": {\n    \"/a\": {\n      \"allowedTools\": []\n    }\n  }\n}\n";
        assert_eq!(out, expected);
        assert_eq!(claude_entry(&out, Path::new("c.json")).unwrap(), Some(stdio()));
        // A second edit replaces the entry in place.
        let http = Entry::Http { url: "http://127.0.0.1:1/mcp".into(), header: "Bearer t".into() };
        let again = set_claude_entry(&out, &http, Path::new("c.json")).unwrap();
        assert_eq!(claude_entry(&again, Path::new("c.json")).unwrap(), Some(http));
        assert!(again.starts_with("{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"other\""));
    }

    #[test]
    fn a_dry_run_says_what_it_would_do_and_writes_nothing() {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("config.toml");
        std::fs::write(&config, "# mine\n").unwrap();
        let request = Request {
            client: Client::Codex,
            root: home.path().to_path_buf(),
            http: None,
            token: None,
            project: false,
            dry_run: true,
            context_window: None,
            binary: PathBuf::from("/opt/tack"),
            home: home.path().to_path_buf(),
            codex_home: home.path().to_path_buf(),
            claude: None,
        };
        let outcome = run(&request).unwrap();
        assert_eq!(
            outcome,
            Outcome::Changed(format!(
                "would have added tack in Codex's user config ({}): /opt/tack serve (stdio)",
                config.display()
            ))
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "# mine\n");
        // Claude Code without its CLI: the file is edited, and a dry run leaves none behind.
        let claude = Request { client: Client::Claude, ..request };
        assert!(
            run(&claude).unwrap().message().starts_with("would have added tack in Claude Code's user config")
        );
        assert!(!home.path().join(".claude.json").exists());
        let done = run(&Request { dry_run: false, ..claude }).unwrap();
        assert!(done.message().starts_with("added tack in Claude Code's user config"), "{done:?}");
        let written = std::fs::read_to_string(home.path().join(".claude.json")).unwrap();
        assert_eq!(claude_entry(&written, Path::new("c.json")).unwrap(), Some(stdio()));
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(home.path().join(".claude.json")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "a new config holding a token is the user's alone");
    }

    #[test]
    fn a_codex_file_keeps_comments_order_and_the_users_own_keys() {
        let text = "# my settings\nmodel = \"o3\" # fast\n\n[mcp_servers.docs]\ncommand = \"docs\" # keep\n\n[mcp_servers.tack]\nenabled = true\nurl = \"http://old\"\n\n[profiles.x]\nmodel = \"y\"\n";
        let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
        set_codex_entry(&mut doc, &stdio());
        let out = doc.to_string();
        assert_eq!(
            out,
            "# my settings\nmodel = \"o3\" # fast\n\n[mcp_servers.docs]\ncommand = \"docs\" # keep\n\n[mcp_servers.tack]\nenabled = true\ncommand = \"/opt/tack\"\nargs = [\"serve\"]\n\n[profiles.x]\nmodel = \"y\"\n"
        );
        assert_eq!(codex_entry(&out.parse().unwrap()), Some(stdio()));
    }
}

//! Streamable HTTP at `/mcp`: one process, many sessions, one shared workspace. Every request
//! must carry `Authorization: Bearer TOKEN`, on loopback too (any local user can reach a
//! loopback port), unless `--no-auth` was asked for on a loopback address. The token comes from
//! `--token-file`, `TACK_HTTP_TOKEN`, `--token` (which every local user can read) or the file
//! tack saves; connections are served by [`crate::listener`], which bounds what idle and slow
//! clients can hold.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::listener::{self, Standing};
use crate::mcp::{Shared, TackServer};
use crate::sessions::BoundedSessions;

/// The variable `tack serve --http` reads the token from (and a project's client configuration
/// names instead of holding the token).
pub const TOKEN_VAR: &str = "TACK_HTTP_TOKEN";

/// The token every request must carry, and where a client finds it.
pub struct Auth {
    pub token: String,
    pub source: Source,
}

/// Where the token came from, as the 401's body tells a client.
pub enum Source {
    /// A file readable only by the user running tack: `--token-file`, or the one tack saves.
    File(PathBuf),
    /// The `TACK_HTTP_TOKEN` variable.
    Env,
    /// `--token`.
    Flag,
    /// Made at start and only logged (no state folder to save it in).
    Logged,
}

impl Auth {
    /// The file holding the token, if it is in one.
    pub fn file(&self) -> Option<&Path> {
        match &self.source {
            Source::File(path) => Some(path),
            _ => None,
        }
    }
}

pub async fn serve(
    shared: Arc<Shared>,
    addr: SocketAddr,
    auth: Option<Auth>,
    session_timeout: std::time::Duration,
    max_sessions: usize,
) -> anyhow::Result<()> {
    let port = addr.port();
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    if !addr.ip().is_loopback() {
        tracing::warn!(%addr, "serving beyond localhost: anyone who can reach this address can run commands in the root");
        hosts.push(addr.ip().to_string());
    }
    let origins = [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        format!("http://[::1]:{port}"),
    ];
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(listener::MAX_BODY);
    // A session idle this long is closed, and its state (handles, undo log, gate) freed with it.
    // Past max_sessions, the session idle longest is closed.
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(session_timeout);
    let sessions = Arc::new(BoundedSessions::new(sessions, max_sessions));
    let service = StreamableHttpService::new(move || Ok(TackServer::http(shared.clone())), sessions, config);
    // Layers run outermost first: the token is checked before a body is waited for.
    let mut router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(listener::read_body_within));
    let descriptors = listener::raise_descriptor_limit();
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    router = match auth {
        Some(auth) => {
            let refusal = refusal_text(&auth, &format!("http://{local}/mcp"));
            let state = Arc::new(Required { token: auth.token, refusal });
            router.layer(axum::middleware::from_fn_with_state(state, require_token))
        }
        // Without a token, any whole request is as good as one that shows it.
        None => router.layer(axum::middleware::from_fn(any_request)),
    };
    // A line on stderr that tests and scripts can wait for; port 0 gets its real port here.
    eprintln!("tack: serving MCP at http://{local}/mcp");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    listener::serve(listener, router, listener::unproven_cap(descriptors), shutdown).await;
    Ok(())
}

/// What the middleware checks, and what it answers a request without the token.
struct Required {
    token: String,
    refusal: String,
}

/// The body of a 401: where the token is and how the usual clients pass it.
fn refusal_text(auth: &Auth, url: &str) -> String {
    let (whence, value) = match &auth.source {
        Source::File(file) => (
            format!("the token is in {} (readable only by the user running tack serve)", file.display()),
            format!("$(cat {})", file.display()),
        ),
        Source::Env => {
            (format!("the token is the one tack serve was given in {TOKEN_VAR}"), format!("${TOKEN_VAR}"))
        }
        Source::Flag => ("the token is the one given to tack serve --token".to_string(), "TOKEN".to_string()),
        Source::Logged => {
            ("the token is the one tack serve logged at its start".to_string(), "TOKEN".to_string())
        }
    };
    format!(
        "tack needs Authorization: Bearer TOKEN on every request; {whence}. Claude Code: claude mcp add \
         --transport http tack {url} --header \"Authorization: Bearer {value}\". Codex: http_headers = \
         {{ Authorization = \"Bearer TOKEN\" }} (or bearer_token_env_var) under [mcp_servers.tack]. \
         tack serve --no-auth serves loopback without a token.\n"
    )
}

/// Notes that a connection made a request, where no token is asked for: its standing is then
/// that of a connection that showed the token.
async fn any_request(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if let Some(standing) = request.extensions().get::<Standing>() {
        standing.proven();
    }
    next.run(request).await
}

/// Refuses a request without the bearer token (401), comparing in constant time. A request
/// with it proves its connection, which is then never dropped to make room for others.
async fn require_token(
    axum::extract::State(required): axum::extract::State<Arc<Required>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let given = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let token = &required.token;
    let same = given.len() == token.len()
        && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if same {
        if let Some(standing) = request.extensions().get::<Standing>() {
            standing.proven();
        }
        return next.run(request).await;
    }
    (
        axum::http::StatusCode::UNAUTHORIZED,
        [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
        required.refusal.clone(),
    )
        .into_response()
}

/// The token saved in `state_dir/http-token`, reused when that file is one this user made as
/// tack makes it (a regular file owned by the user, mode 0600, holding a token), so a client's
/// configuration keeps working across restarts; otherwise a new random one saved there with
/// mode 0600. Without a state folder the token is only logged.
pub fn saved_token(state_dir: Option<&Path>) -> anyhow::Result<Auth> {
    use std::io::{Read as _, Write as _};
    use std::os::unix::fs::OpenOptionsExt as _;
    let Some(dir) = state_dir else {
        let token = new_token()?;
        eprintln!("tack: requests need Authorization: Bearer {token}");
        return Ok(Auth { token, source: Source::Logged });
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("http-token");
    match reusable(&path) {
        Ok(Some(token)) => {
            eprintln!("tack: requests need Authorization: Bearer <the token in {}>", path.display());
            return Ok(Auth { token, source: Source::File(path) });
        }
        Ok(None) => {}
        Err(reason) => tracing::warn!("{}: not reused ({reason}); saving a new token there", path.display()),
    }
    let token = new_token()?;
    let _ = std::fs::remove_file(&path);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc_nofollow())
        .open(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(token.as_bytes())?;
    // Read back, so a file that did not take the bytes fails here rather than at a client.
    let mut check = String::new();
    std::fs::File::open(&path)?.read_to_string(&mut check)?;
    anyhow::ensure!(check == token, "{} does not hold the token just written", path.display());
    eprintln!("tack: requests need Authorization: Bearer <the token in {}>", path.display());
    Ok(Auth { token, source: Source::File(path) })
}

/// The token the user gave `tack serve --http`, if any: `--token` (with a warning, since every
/// local user can read a process's command line), else the one in the file `--token-file`
/// names, else `TACK_HTTP_TOKEN`'s.
pub fn given_token(flag: Option<String>, file: Option<&Path>) -> anyhow::Result<Option<Auth>> {
    if let Some(token) = flag {
        tracing::warn!(
            "--token is on tack's command line, which every local user can read (ps, /proc/{}/cmdline) and then call run as you: pass --token-file PATH or {TOKEN_VAR} instead",
            std::process::id()
        );
        return Ok(Some(Auth { token, source: Source::Flag }));
    }
    if let Some(path) = file {
        let token = token_file(path)?;
        // Named in full, since a client reads the 401 in a folder of its own.
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        eprintln!("tack: requests need Authorization: Bearer <the token in {}>", path.display());
        return Ok(Some(Auth { token, source: Source::File(path) }));
    }
    match std::env::var(TOKEN_VAR) {
        Ok(token) if !token.is_empty() => {
            check_token(&token).map_err(|why| anyhow::anyhow!("{TOKEN_VAR} holds no usable token: {why}"))?;
            tracing::info!("requests need Authorization: Bearer ${TOKEN_VAR}");
            Ok(Some(Auth { token, source: Source::Env }))
        }
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            anyhow::bail!("{TOKEN_VAR} holds no usable token: it is not text")
        }
    }
}

/// The token in `path`, a file the user named: refused unless it is a regular file of this
/// user's that no one else may read or write, the rule the saved token follows.
fn token_file(path: &Path) -> anyhow::Result<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let refused = |why: String| {
        anyhow::anyhow!(
            "the token file {} is refused: {why}; it must be a regular file of yours that no one else may read or write (chmod 600 {})",
            path.display(),
            path.display()
        )
    };
    // Opened without blocking, so a FIFO put there is refused below rather than waited on; the
    // checks are on the file opened, not on a path that could change in between.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(|| format!("cannot open the token file {}", path.display()))?;
    let meta = file.metadata().with_context(|| format!("cannot read the token file {}", path.display()))?;
    private(&meta).map_err(refused)?;
    let mut text = String::new();
    file.take(4097).read_to_string(&mut text).map_err(|err| refused(format!("it is not text ({err})")))?;
    let token = text.trim();
    check_token(token).map_err(refused)?;
    Ok(token.to_string())
}

/// Whether a token can go in an `Authorization` header as it is.
fn check_token(token: &str) -> Result<(), String> {
    if token.is_empty() {
        return Err("it is empty".into());
    }
    if token.len() > 4096 {
        return Err("it is over 4096 bytes".into());
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("it holds characters other than printable ASCII".into());
    }
    Ok(())
}

/// Why a file may not hold a token, if it may not: it must be a regular file owned by the user
/// running tack, neither readable nor writable by anyone else.
fn private(meta: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt as _;
    if !meta.file_type().is_file() {
        return Err("it is not a regular file".into());
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(format!("it belongs to uid {}, not {me}", meta.uid()));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!("its mode is {:o}, readable or writable by others", meta.mode() & 0o777));
    }
    Ok(())
}

/// The token in `path` if tack may reuse it: `Ok(None)` when there is no file, `Err(why not)`.
fn reusable(path: &Path) -> Result<Option<String>, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
    private(&meta)?;
    let bytes = match tack_indexer::read_bounded(path, 4096, None) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
    let token = String::from_utf8(bytes).map_err(|_| "it is not text".to_string())?;
    if token.len() < 32 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("it holds no token".into());
    }
    Ok(Some(token))
}

/// 48 hex digits from the kernel's random source.
fn new_token() -> anyhow::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read /dev/urandom for an HTTP token")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// `O_NOFOLLOW`, so a link planted at the token's path is not written through.
fn libc_nofollow() -> i32 {
    libc::O_NOFOLLOW
}

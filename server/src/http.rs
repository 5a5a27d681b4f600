//! Streamable HTTP at `/mcp`: one process, many sessions, one shared workspace. Every request
//! must carry `Authorization: Bearer TOKEN`, on loopback too (any local user can reach a
//! loopback port), unless `--no-auth` was asked for on a loopback address.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::{Shared, TackServer};
use crate::sessions::BoundedSessions;

/// The token every request must carry, and where a client finds it.
pub struct Auth {
    pub token: String,
    /// The file it is saved in; `None`: it was given with `--token` (or only logged).
    pub file: Option<PathBuf>,
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
    let config =
        StreamableHttpServerConfig::default().with_allowed_hosts(hosts).with_allowed_origins(origins);
    // A session idle this long is closed, and its state (handles, undo log, gate) freed with it.
    // Past max_sessions, the session idle longest is closed.
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(session_timeout);
    let sessions = Arc::new(BoundedSessions::new(sessions, max_sessions));
    let service = StreamableHttpService::new(move || Ok(TackServer::http(shared.clone())), sessions, config);
    let mut router = axum::Router::new().nest_service("/mcp", service);
    let listener = listen(addr).await?;
    let local = axum::serve::Listener::local_addr(&listener)?;
    if let Some(auth) = auth {
        let refusal = refusal_text(&auth, &format!("http://{local}/mcp"));
        let state = Arc::new(Required { token: auth.token, refusal });
        router = router.layer(axum::middleware::from_fn_with_state(state, require_token));
    }
    // A line on stderr that tests and scripts can wait for; port 0 gets its real port here.
    eprintln!("tack: serving MCP at http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the HTTP server failed")
}

/// Listens at `addr`, with Nagle's algorithm off on every accepted connection. A response goes
/// out in several small writes (headers, the SSE event, the end of the chunked body); with Nagle
/// on, each write after the first waits for the client's ACK, which a client that keeps its
/// connection alive delays by 40 ms: every call on a kept-alive connection took 44 ms, whatever
/// the tool (BENCHMARKS.md, issue 14).
async fn listen(
    addr: SocketAddr,
) -> anyhow::Result<impl axum::serve::Listener<Io = tokio::net::TcpStream, Addr = SocketAddr>> {
    use axum::serve::ListenerExt as _;
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    Ok(listener.tap_io(|stream| {
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY on a connection: {err}");
        }
    }))
}

/// What the middleware checks, and what it answers a request without the token.
struct Required {
    token: String,
    refusal: String,
}

/// The body of a 401: where the token is and how the usual clients pass it.
fn refusal_text(auth: &Auth, url: &str) -> String {
    let (whence, value) = match &auth.file {
        Some(file) => (
            format!("the token is in {} (readable only by the user running tack serve)", file.display()),
            format!("$(cat {})", file.display()),
        ),
        None => ("the token is the one given to tack serve --token".to_string(), "TOKEN".to_string()),
    };
    format!(
        "tack needs Authorization: Bearer TOKEN on every request; {whence}. Claude Code: claude mcp add \
         --transport http tack {url} --header \"Authorization: Bearer {value}\". Codex: http_headers = \
         {{ Authorization = \"Bearer TOKEN\" }} (or bearer_token_env_var) under [mcp_servers.tack]. \
         tack serve --no-auth serves loopback without a token.\n"
    )
}

/// Refuses a request without the bearer token (401), comparing in constant time.
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
        return Ok(Auth { token, file: None });
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("http-token");
    match reusable(&path) {
        Ok(Some(token)) => {
            eprintln!("tack: requests need Authorization: Bearer <the token in {}>", path.display());
            return Ok(Auth { token, file: Some(path) });
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
    Ok(Auth { token, file: Some(path) })
}

/// The token in `path` if tack may reuse it: `Ok(None)` when there is no file, `Err(why not)`.
fn reusable(path: &Path) -> Result<Option<String>, String> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.to_string()),
    };
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

#[cfg(test)]
mod tests {
    use axum::serve::Listener as _;

    /// Every accepted connection has Nagle's algorithm off: with it on, each response on a
    /// kept-alive connection waited 40 ms for the client's delayed ACK.
    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        let mut listener = super::listen("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (accepted, _) = listener.accept().await;
        assert!(accepted.nodelay().unwrap(), "accepted connection has TCP_NODELAY off");
        drop(client);
    }
}

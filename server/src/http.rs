//! Streamable HTTP at `/mcp`: one process, many sessions, one shared workspace. Beyond
//! loopback (or whenever a token is given) every request must carry `Authorization: Bearer`.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::{Shared, TackServer};
use crate::sessions::BoundedSessions;

pub async fn serve(
    shared: Arc<Shared>,
    addr: SocketAddr,
    token: Option<String>,
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
    if let Some(token) = token {
        router = router.layer(axum::middleware::from_fn_with_state(Arc::new(token), require_token));
    }
    let listener = listen(addr).await?;
    let local = axum::serve::Listener::local_addr(&listener)?;
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

/// Refuses a request without the bearer token (401), comparing in constant time.
async fn require_token(
    axum::extract::State(token): axum::extract::State<Arc<String>>,
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
    let same = given.len() == token.len()
        && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if same {
        return next.run(request).await;
    }
    (
        axum::http::StatusCode::UNAUTHORIZED,
        [(axum::http::header::WWW_AUTHENTICATE, "Bearer")],
        "tack needs Authorization: Bearer TOKEN (the token tack serve was given, or the one it saved and logged)\n",
    )
        .into_response()
}

/// A new random token, saved with mode 0600 in `state_dir` (else only logged), for a server
/// that listens beyond loopback and was given none.
pub fn made_token(state_dir: Option<&std::path::Path>) -> anyhow::Result<String> {
    use std::io::{Read as _, Write as _};
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read /dev/urandom for an HTTP token")?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    match state_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let path = dir.join("http-token");
            let _ = std::fs::remove_file(&path);
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            file.write_all(token.as_bytes())?;
            eprintln!("tack: requests need Authorization: Bearer <the token in {}>", path.display());
        }
        None => eprintln!("tack: requests need Authorization: Bearer {token}"),
    }
    Ok(token)
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

//! Streamable HTTP at `/mcp`: one process, many sessions, one shared workspace.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::mcp::{Shared, TackServer};

pub async fn serve(shared: Arc<Shared>, addr: SocketAddr) -> anyhow::Result<()> {
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
    let service = StreamableHttpService::new(
        move || Ok(TackServer::http(shared.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    // A line on stderr that tests and scripts can wait for; port 0 gets its real port here.
    eprintln!("tack: serving MCP at http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the HTTP server failed")
}

//! MCP over stdio, with a line filter in front of rmcp: a line that is not JSON gets a JSON-RPC
//! parse error (-32700) instead of silence, and the session keeps going.

use anyhow::Context as _;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::mcp::TackServer;

/// How much a single message may buffer between the filter and rmcp.
const PIPE_BYTES: usize = 1 << 20;

pub async fn serve(server: TackServer) -> anyhow::Result<()> {
    let (rmcp_end, filter_end) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(filter_end);
    let (errors_tx, mut errors_rx) = mpsc::unbounded_channel::<String>();

    // stdin → rmcp, line by line; a line that is not JSON is answered here.
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(_) => {
                    if to_rmcp.write_all(line.as_bytes()).await.is_err()
                        || to_rmcp.write_all(b"\n").await.is_err()
                    {
                        break;
                    }
                }
                Err(err) => {
                    tracing::warn!("stdin line is not JSON: {err}");
                    let reply = serde_json::json!({
                        "jsonrpc": "2.0",
                        "id": null,
                        "error": {
                            "code": -32700,
                            "message": format!("Parse error: {err}; send one JSON-RPC message per line"),
                        }
                    });
                    let _ = errors_tx.send(reply.to_string());
                }
            }
        }
        let _ = to_rmcp.shutdown().await;
    });

    // rmcp → stdout, whole lines only, with the filter's own replies between them.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut lines = BufReader::new(from_rmcp).lines();
        loop {
            let line = tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                Some(reply) = errors_rx.recv() => reply,
            };
            if stdout.write_all(line.as_bytes()).await.is_err()
                || stdout.write_all(b"\n").await.is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });

    let service = server.serve(rmcp_end).await.context("the MCP session over stdio did not start")?;
    let result = service.waiting().await;
    reader.abort();
    let _ = writer.await;
    result.context("the MCP session over stdio failed")?;
    Ok(())
}

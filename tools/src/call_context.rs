//! What one call may consult besides its arguments: cancellation, progress, the client.

use tokio_util::sync::CancellationToken;

/// Reports progress on long work: `(progress, total, message)`.
pub type Progress = Box<dyn Fn(f64, Option<f64>, &str) + Send + Sync>;

/// What one call may consult besides its arguments.
#[derive(Default)]
pub struct CallContext {
    /// Cancelled when the client cancels the call; long work polls it and stops.
    pub cancel: CancellationToken,
    /// Where progress goes, when the client asked for it.
    pub progress: Option<Progress>,
    /// Whether the client's tool list may change during the connection (2025 protocol
    /// revisions) or must stay fixed (2026-07-28, where `call_tool` is the route).
    pub list_can_change: bool,
    /// The client's `clientInfo.name`, when it sent one: a known client's own limit on a tool
    /// result joins tack's cap.
    pub client: Option<String>,
}

impl CallContext {
    pub fn progress(&self, progress: f64, total: Option<f64>, message: &str) {
        if let Some(report) = &self.progress {
            report(progress, total, message);
        }
    }
}

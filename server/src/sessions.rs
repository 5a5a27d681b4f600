//! HTTP sessions with a bound: rmcp's local session manager, less its one unbounded part. Each
//! live session costs about 54 KB (measured: 10,000 opened sessions took a server from 21 MB to
//! 563 MB), and rmcp keeps every one until it idles out. Past `max` live sessions, opening one
//! more closes the session idle longest; its id then answers 404, so its client starts anew
//! instead of finding an empty state under a known id.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};

/// Live HTTP sessions at most, by default.
pub const MAX_SESSIONS: usize = 1_024;

/// [`LocalSessionManager`] that closes the session idle longest when a new one would pass `max`.
pub struct BoundedSessions {
    inner: LocalSessionManager,
    used: Mutex<HashMap<SessionId, Instant>>,
    max: usize,
}

impl BoundedSessions {
    pub fn new(inner: LocalSessionManager, max: usize) -> Self {
        Self { inner, used: Mutex::default(), max: max.max(1) }
    }

    fn touch(&self, id: &SessionId) {
        if let Some(used) = self.used.lock().expect("sessions lock").get_mut(id) {
            *used = Instant::now();
        }
    }

    /// The sessions to close so that `id`, just made, fits: those idle longest past the bound.
    async fn over_the_bound(&self, id: &SessionId) -> Vec<SessionId> {
        let live = self.inner.sessions.read().await;
        let mut used = self.used.lock().expect("sessions lock");
        // Sessions rmcp closed itself (idle timeout, DELETE) are no longer counted.
        used.retain(|known, _| live.contains_key(known));
        used.insert(id.clone(), Instant::now());
        let excess = used.len().saturating_sub(self.max);
        if excess == 0 {
            return Vec::new();
        }
        let mut oldest: Vec<(Instant, SessionId)> =
            used.iter().filter(|(known, _)| *known != id).map(|(known, at)| (*at, known.clone())).collect();
        oldest.sort_unstable();
        let closing: Vec<SessionId> = oldest.into_iter().take(excess).map(|(_, known)| known).collect();
        for known in &closing {
            used.remove(known);
        }
        closing
    }
}

impl SessionManager for BoundedSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        for old in self.over_the_bound(&id).await {
            tracing::debug!(session = %old, max = self.max, "closing the session idle longest: too many sessions");
            let _ = self.inner.close_session(&old).await;
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.used.lock().expect("sessions lock").remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }
}

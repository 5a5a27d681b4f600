//! The HTTP accept loop, built to outlast idle and slow clients: every connection has a header
//! read timeout and every request a body read timeout, and the connections that have not yet
//! shown the token are capped. Past the cap the oldest of them is dropped, never a new one, so
//! a flood of half-sent requests cannot keep a client with the token from being served.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// How long a client has to send a request's headers, counted from when the server starts
/// waiting for them: a half-sent request, or a kept-alive connection idle this long between
/// requests, is closed.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client has to send a request's whole body once its headers are in; later, the
/// request gets 408 and its connection is closed.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest request body read (rmcp's own default: one JSON-RPC message).
pub const MAX_BODY: usize = 4 << 20;

/// The most connections without the token kept at once, however many descriptors the process
/// may hold.
pub const MAX_UNPROVEN: usize = 1024;

/// How many connections without the token are kept when the process may hold `descriptors`
/// open files: a quarter of them, so the rest stay for the index, commands and clients with the
/// token; at least 16 and at most [`MAX_UNPROVEN`].
pub fn unproven_cap(descriptors: u64) -> usize {
    usize::try_from(descriptors / 4).unwrap_or(usize::MAX).clamp(16, MAX_UNPROVEN)
}

/// Raises this process's soft limit on open descriptors to its hard limit, so many clients'
/// connections fit (a limit of 256 or 1,024 is a common default); the soft limit now in force.
pub fn raise_descriptor_limit() -> u64 {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        tracing::warn!("cannot read the open-descriptor limit: {}", std::io::Error::last_os_error());
        return 1024;
    }
    if limit.rlim_cur >= limit.rlim_max {
        return limit.rlim_cur;
    }
    let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
    // SAFETY: setrlimit reads only the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        tracing::warn!(
            soft = limit.rlim_cur,
            hard = limit.rlim_max,
            "cannot raise the open-descriptor limit: {}",
            std::io::Error::last_os_error()
        );
        return limit.rlim_cur;
    }
    tracing::info!(from = limit.rlim_cur, to = limit.rlim_max, "raised the open-descriptor limit");
    limit.rlim_max
}

/// The connections that have not yet shown the token, by their number in accept order (so the
/// first is the oldest), each with what drops it.
struct Unproven {
    cap: usize,
    waiting: Mutex<BTreeMap<u64, CancellationToken>>,
    /// Whether the cap was reached once (it is logged the first time only).
    reached: AtomicBool,
}

impl Unproven {
    fn new(cap: usize) -> Unproven {
        Unproven { cap, waiting: Mutex::default(), reached: AtomicBool::new(false) }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, CancellationToken>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds connection `id`, dropping the oldest ones past the cap; what drops `id`.
    fn add(&self, id: u64) -> CancellationToken {
        let drop = CancellationToken::new();
        let mut waiting = self.waiting();
        waiting.insert(id, drop.clone());
        while waiting.len() > self.cap {
            let Some((_, oldest)) = waiting.pop_first() else { break };
            oldest.cancel();
            if !self.reached.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    cap = self.cap,
                    "more connections without the token than the cap: dropping the oldest of them"
                );
            }
        }
        drop
    }

    /// Drops the oldest connection without the token; whether there was one.
    fn drop_oldest(&self) -> bool {
        let oldest = self.waiting().pop_first();
        oldest.map(|(_, drop)| drop.cancel()).is_some()
    }

    fn remove(&self, id: u64) {
        self.waiting().remove(&id);
    }
}

/// A connection's standing, in each of its requests' extensions. The auth middleware calls
/// [`Standing::proven`] once a request has shown the token; from then on the connection is
/// never dropped to make room.
#[derive(Clone)]
pub struct Standing(Arc<StandingOf>);

struct StandingOf {
    id: u64,
    proven: AtomicBool,
    unproven: Arc<Unproven>,
}

impl Standing {
    pub fn proven(&self) {
        if !self.0.proven.swap(true, Ordering::Relaxed) {
            self.0.unproven.remove(self.0.id);
        }
    }
}

/// Serves `router` on every connection `listener` accepts until `shutdown` resolves, keeping at
/// most `cap` connections that have not shown the token; then lets the open connections finish
/// for up to 5 s.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    cap: usize,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let unproven = Arc::new(Unproven::new(cap));
    let closing = CancellationToken::new();
    // Each connection's task holds a sender; `recv` answers `None` once every one has ended.
    let (open_tx, mut open_rx) = tokio::sync::mpsc::channel::<()>(1);
    let mut shutdown = std::pin::pin!(shutdown);
    let mut next_id = 0u64;
    loop {
        let stream = tokio::select! {
            accepted = accept(&listener, &unproven) => accepted,
            () = &mut shutdown => break,
        };
        next_id += 1;
        let standing = Standing(Arc::new(StandingOf {
            id: next_id,
            proven: AtomicBool::new(false),
            unproven: unproven.clone(),
        }));
        let dropped = unproven.add(next_id);
        let task = connection(stream, router.clone(), standing, dropped, closing.clone());
        let open = open_tx.clone();
        tokio::spawn(async move {
            task.await;
            drop(open);
        });
    }
    closing.cancel();
    drop(open_tx);
    let _ = tokio::time::timeout(Duration::from_secs(5), open_rx.recv()).await;
}

/// The next connection, with Nagle's algorithm off. A response goes out in several small writes
/// (headers, the SSE event, the end of the chunked body); with Nagle on, each write after the
/// first waits for the client's ACK, which a client that keeps its connection alive delays by
/// 40 ms: every call on a kept-alive connection took 44 ms, whatever the tool (BENCHMARKS.md,
/// issue 14). Out of descriptors, the oldest connection without the token makes room.
async fn accept(listener: &TcpListener, unproven: &Unproven) -> TcpStream {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                if let Err(err) = stream.set_nodelay(true) {
                    tracing::debug!("cannot set TCP_NODELAY on a connection: {err}");
                }
                return stream;
            }
            Err(err) => match err.raw_os_error() {
                // The client left before its connection was accepted.
                Some(libc::ECONNABORTED | libc::ECONNRESET | libc::EPROTO) => {}
                Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM) => {
                    if !unproven.drop_oldest() {
                        tracing::warn!("cannot accept a connection: {err}");
                    }
                    // Let the dropped connection's task close its socket before trying again.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                _ => {
                    tracing::warn!("cannot accept a connection: {err}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
}

/// Serves one connection until it ends, is dropped to make room, or the server shuts down.
async fn connection(
    stream: TcpStream,
    router: axum::Router,
    standing: Standing,
    dropped: CancellationToken,
    closing: CancellationToken,
) {
    let inner = hyper_util::service::TowerToHyperService::new(router);
    let of_requests = standing.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(of_requests.clone());
        hyper::service::Service::call(&inner, request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT);
    let mut conn = std::pin::pin!(builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service));
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(err) = result {
                tracing::debug!("an HTTP connection ended: {err}");
            }
        }
        () = dropped.cancelled() => {
            tracing::debug!("dropped the oldest connection without the token, to make room");
        }
        () = closing.cancelled() => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
    standing.0.unproven.remove(standing.0.id);
}

/// Reads a request's body within [`BODY_TIMEOUT`] and at most [`MAX_BODY`] bytes before the
/// request goes on: a client that sends its body slowly, or never, gets 408 and its connection
/// closed, rather than holding a task and a descriptor for as long as it likes.
pub async fn read_body_within(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let (parts, body) = request.into_parts();
    let close = [(header::CONNECTION, "close")];
    let declared =
        parts.headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        let says = format!("tack reads request bodies of at most {MAX_BODY} bytes\n");
        return (StatusCode::PAYLOAD_TOO_LARGE, close, says).into_response();
    }
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => {
            next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))).await
        }
        Ok(Err(err)) => {
            let says = format!("cannot read the request body (at most {MAX_BODY} bytes): {err}\n");
            (StatusCode::BAD_REQUEST, close, says).into_response()
        }
        Err(_) => {
            let says = format!("the request body did not arrive within {} s\n", BODY_TIMEOUT.as_secs());
            (StatusCode::REQUEST_TIMEOUT, close, says).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_a_quarter_of_the_descriptors_within_bounds() {
        assert_eq!(unproven_cap(256), 64);
        assert_eq!(unproven_cap(20), 16);
        assert_eq!(unproven_cap(1 << 20), MAX_UNPROVEN);
        assert_eq!(unproven_cap(u64::MAX), MAX_UNPROVEN);
    }

    /// Past the cap the oldest connection without the token is dropped, never the new one, and
    /// one that has shown the token never is.
    #[test]
    fn past_the_cap_the_oldest_unproven_connection_is_dropped() {
        let unproven = Arc::new(Unproven::new(2));
        let first = unproven.add(1);
        let proven = Standing(Arc::new(StandingOf {
            id: 2,
            proven: AtomicBool::new(false),
            unproven: unproven.clone(),
        }));
        let second = unproven.add(2);
        proven.proven();
        let third = unproven.add(3);
        assert!(!first.is_cancelled() && !second.is_cancelled() && !third.is_cancelled());
        let fourth = unproven.add(4);
        assert!(first.is_cancelled(), "the oldest without the token is dropped");
        assert!(!second.is_cancelled(), "a connection that showed the token stays");
        assert!(!third.is_cancelled() && !fourth.is_cancelled(), "the newer ones stay");
        assert!(unproven.drop_oldest());
        assert!(third.is_cancelled());
    }

    /// Every accepted connection has Nagle's algorithm off: with it on, each response on a
    /// kept-alive connection waited 40 ms for the client's delayed ACK.
    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = TcpStream::connect(addr).await.unwrap();
        let unproven = Unproven::new(1);
        let accepted = accept(&listener, &unproven).await;
        assert!(accepted.nodelay().unwrap(), "accepted connection has TCP_NODELAY off");
        drop(client);
    }
}

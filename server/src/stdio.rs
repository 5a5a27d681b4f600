//! MCP over stdio, with a line filter in front of rmcp. Every line gets an answer and none can
//! stop the server: bytes that are not UTF-8 or not JSON get a parse error (-32700), a line
//! over the size limit, a batch, a wrong envelope or a request id already in flight gets an
//! invalid-request error (-32600), each with the request's id when it can be read. Before the
//! session starts (an `initialize`, or a request carrying the 2026-07-28 metadata), rmcp ends
//! the session on any notification or response, so the filter drops those until then.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::mcp::TackServer;

/// How much a single message may buffer between the filter and rmcp.
const PIPE_BYTES: usize = 1 << 20;

/// The largest line accepted; a longer one is answered with an error and skipped.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Request ids sent to rmcp and not yet answered, by their JSON text.
type InFlight = Arc<Mutex<HashSet<String>>>;

pub async fn serve(server: TackServer) -> anyhow::Result<()> {
    let (rmcp_end, filter_end) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(filter_end);
    let (errors_tx, mut errors_rx) = mpsc::unbounded_channel::<String>();
    let in_flight: InFlight = Arc::default();

    // stdin → rmcp, line by line; a line rmcp must not see is answered here.
    let reader = tokio::spawn({
        let mut filter = Filter { in_flight: in_flight.clone(), started: false };
        async move {
            let mut stdin = BufReader::new(tokio::io::stdin());
            let mut buf = Vec::new();
            loop {
                let line = match read_line(&mut stdin, &mut buf).await {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    Err(err) => {
                        tracing::warn!("cannot read stdin: {err}");
                        break;
                    }
                };
                match filter.check(line) {
                    Ok(Some(message)) => {
                        if to_rmcp.write_all(message.as_bytes()).await.is_err()
                            || to_rmcp.write_all(b"\n").await.is_err()
                        {
                            break;
                        }
                    }
                    Ok(None) => {}
                    Err(reply) => {
                        let _ = errors_tx.send(reply.to_string());
                    }
                }
                // One long message must not keep its buffer for the rest of the session.
                if buf.capacity() > PIPE_BYTES {
                    buf = Vec::new();
                }
            }
            let _ = to_rmcp.shutdown().await;
        }
    });

    // rmcp → stdout, whole lines only, with the filter's own replies between them.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut lines = BufReader::new(from_rmcp).lines();
        loop {
            // The filter's replies first: each was queued before any later line reached rmcp,
            // so no answer overtakes the answer to an earlier line.
            let line = tokio::select! {
                biased;
                Some(reply) = errors_rx.recv() => reply,
                line = lines.next_line() => match line {
                    Ok(Some(line)) => {
                        answered(&line, &in_flight);
                        line
                    }
                    _ => break,
                },
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

/// One line of stdin, as it came (possibly not UTF-8, possibly cut at the size limit); `None`
/// at the end of input.
enum Line<'a> {
    Whole(&'a [u8]),
    /// Longer than [`MAX_LINE_BYTES`]: its first bytes, the rest already skipped.
    TooLong(&'a [u8]),
}

async fn read_line<'a, R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &'a mut Vec<u8>,
) -> std::io::Result<Option<Line<'a>>> {
    buf.clear();
    let n = (&mut *reader).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', buf).await?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE_BYTES && !buf.ends_with(b"\n") {
        // Skip the rest of the line without keeping it.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let n = (&mut *reader).take(1 << 20).read_until(b'\n', &mut rest).await?;
            if n == 0 || rest.ends_with(b"\n") {
                break;
            }
        }
        return Ok(Some(Line::TooLong(&buf[..1024.min(buf.len())])));
    }
    Ok(Some(Line::Whole(buf.trim_ascii_end())))
}

/// What the reader knows of the session: the requests in flight, and whether rmcp has left
/// its handshake loop.
struct Filter {
    in_flight: InFlight,
    started: bool,
}

impl Filter {
    /// The message to pass on (`None`: nothing to pass), or the error to answer it with.
    fn check<'a>(&mut self, line: Line<'a>) -> Result<Option<&'a str>, Value> {
        let Some(Checked { text, method, id }) = check(line, &self.in_flight)? else { return Ok(None) };
        if self.started {
            // A second initialize would replace the negotiated protocol revision mid-session.
            if method.as_deref() == Some("initialize")
                && let Some(id) = id
            {
                self.in_flight.lock().expect("in-flight lock").remove(&id.to_string());
                return Err(error(
                    id,
                    -32600,
                    "Invalid request: this session is already initialized; initialize once per connection"
                        .into(),
                ));
            }
            return Ok(Some(text));
        }
        let Ok(message) = serde_json::from_str::<ClientJsonRpcMessage>(text) else {
            return Ok(Some(text));
        };
        match message {
            ClientJsonRpcMessage::Request(request) => {
                self.started = match &request.request {
                    ClientRequest::InitializeRequest(_) => true,
                    ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
                    other => {
                        let meta = other.get_meta();
                        meta.protocol_version().is_some()
                            && meta.missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty()
                    }
                };
                Ok(Some(text))
            }
            _ => {
                tracing::warn!("dropped a notification or response sent before initialize");
                Ok(None)
            }
        }
    }
}

/// A message that may pass, with what the filter read of it.
#[derive(Debug)]
struct Checked<'a> {
    text: &'a str,
    method: Option<String>,
    id: Option<Value>,
}

/// A message's top-level fields, each left as its JSON text: reading the envelope of a
/// request with megabytes of arguments copies none of them.
type Envelope<'a> = HashMap<String, &'a RawValue>;

/// The message to pass on (`None`: a blank line), or the error to answer it with.
fn check<'a>(line: Line<'a>, in_flight: &InFlight) -> Result<Option<Checked<'a>>, Value> {
    let bytes = match line {
        Line::TooLong(prefix) => {
            tracing::warn!("stdin line over {MAX_LINE_BYTES} bytes");
            return Err(error(
                id_in(prefix),
                -32600,
                format!("Invalid request: the message is over {MAX_LINE_BYTES} bytes"),
            ));
        }
        Line::Whole(bytes) => bytes,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let text = std::str::from_utf8(bytes).map_err(|err| {
        tracing::warn!("stdin line is not UTF-8: {err}");
        error(id_in(bytes), -32700, format!("Parse error: the line is not UTF-8 ({err}); send UTF-8 JSON"))
    })?;
    let not_json = |err: serde_json::Error| {
        tracing::warn!("stdin line is not JSON: {err}");
        error(id_in(bytes), -32700, format!("Parse error: {err}; send one JSON-RPC message per line"))
    };
    let message: &RawValue = serde_json::from_str(text).map_err(not_json)?;
    let fields = match message.get().as_bytes().first() {
        Some(b'{') => serde_json::from_str::<Envelope<'_>>(message.get()).map_err(not_json)?,
        first => {
            let what =
                if first == Some(&b'[') { "batches are not supported" } else { "a message is a JSON object" };
            return Err(error(Value::Null, -32600, format!("Invalid request: {what}")));
        }
    };
    let field = |name: &str| fields.get(name).and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok());
    let id = field("id");
    let reply_id = id.clone().filter(valid_id).unwrap_or(Value::Null);
    if field("jsonrpc") != Some(json!("2.0")) {
        return Err(error(reply_id, -32600, "Invalid request: \"jsonrpc\" must be \"2.0\"".to_string()));
    }
    let method = fields.get("method").map(|raw| serde_json::from_str::<Value>(raw.get()));
    match (&method, &id) {
        (Some(Ok(Value::String(method))), None) => {
            // A cancelled request may never be answered: its id is free again.
            if method == "notifications/cancelled"
                && let Some(cancelled) = field("params").as_ref().and_then(|p| p.get("requestId"))
            {
                in_flight.lock().expect("in-flight lock").remove(&cancelled.to_string());
            }
        }
        (Some(Ok(Value::String(_))), Some(id)) => {
            if !valid_id(id) {
                return Err(error(
                    Value::Null,
                    -32600,
                    "Invalid request: an id is a string or an integer".into(),
                ));
            }
            if !in_flight.lock().expect("in-flight lock").insert(id.to_string()) {
                return Err(error(
                    id.clone(),
                    -32600,
                    format!(
                        "Invalid request: id {id} is already used by a request in progress; use a new id"
                    ),
                ));
            }
        }
        (Some(_), _) => {
            return Err(error(reply_id, -32600, "Invalid request: \"method\" must be a string".into()));
        }
        (None, Some(_)) if fields.contains_key("result") || fields.contains_key("error") => {}
        (None, _) => {
            return Err(error(reply_id, -32600, "Invalid request: a message needs \"method\"".into()));
        }
    }
    let method = match method {
        Some(Ok(Value::String(method))) => Some(method),
        _ => None,
    };
    Ok(Some(Checked { text, method, id }))
}

/// Forgets the id of a response rmcp writes, so the client may use it again.
fn answered(line: &str, in_flight: &InFlight) {
    if !line.contains("\"id\"") {
        return;
    }
    if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(line)
        && !fields.contains_key("method")
        && let Some(id) = fields.get("id")
    {
        in_flight.lock().expect("in-flight lock").remove(&id.to_string());
    }
}

fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// The request id a broken line seems to carry (`"id": 7` or `"id": "x"`), else `null`.
fn id_in(bytes: &[u8]) -> Value {
    let text = String::from_utf8_lossy(bytes);
    let Some(at) = text.find("\"id\"") else { return Value::Null };
    let rest = text[at + 4..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else { return Value::Null };
    let rest = rest.trim_start();
    if let Some(quoted) = rest.strip_prefix('"') {
        return match quoted.find('"') {
            Some(end) if !quoted[..end].contains('\\') => Value::String(quoted[..end].to_string()),
            _ => Value::Null,
        };
    }
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse::<i64>().map(Value::from).unwrap_or(Value::Null)
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(line: &[u8]) -> Result<Option<String>, Value> {
        check(Line::Whole(line), &InFlight::default()).map(|c| c.map(|c| c.text.to_string()))
    }

    #[test]
    fn broken_lines_are_answered_with_the_id_they_carry() {
        let not_utf8 =
            checked(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"x\":\"\xff\"}").unwrap_err();
        assert_eq!((not_utf8["id"].clone(), not_utf8["error"]["code"].clone()), (json!(7), json!(-32700)));
        let not_json = checked(br#"{"jsonrpc":"2.0","id":"a1","method":"ping""#).unwrap_err();
        assert_eq!((not_json["id"].clone(), not_json["error"]["code"].clone()), (json!("a1"), json!(-32700)));
        let old = checked(br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#).unwrap_err();
        assert_eq!((old["id"].clone(), old["error"]["code"].clone()), (json!(3), json!(-32600)));
        let batch = checked(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err();
        assert_eq!(batch["id"], Value::Null);
        assert!(checked(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).is_err());
        assert!(checked(br#"{"jsonrpc":"2.0","id":1}"#).is_err(), "neither a request nor a response");
        assert_eq!(checked(b"   "), Ok(None));
        assert_eq!(checked(b" 7 ").unwrap_err()["error"]["code"], json!(-32600), "not an object");
        let last = checked(br#"{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}"#);
        assert!(last.is_err(), "of two fields with one name the last counts");
        let too_long = check(
            Line::TooLong(br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":"#),
            &InFlight::default(),
        );
        assert_eq!(too_long.unwrap_err()["id"], json!(12));
    }

    #[test]
    fn notifications_before_the_session_starts_are_dropped_not_passed() {
        let mut filter = Filter { in_flight: InFlight::default(), started: false };
        let mut pass = |line: &str| filter.check(Line::Whole(line.as_bytes())).unwrap().is_some();
        assert!(!pass(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#));
        assert!(!pass(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(pass(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#));
        assert!(pass(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#), "rmcp answers it with an error");
        assert!(!pass(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#));
        let init = r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}"#;
        assert!(pass(init));
        assert!(pass(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), "the session has started");
        let again = filter.check(Line::Whole(init.as_bytes())).unwrap_err();
        assert_eq!((again["id"].clone(), again["error"]["code"].clone()), (json!(4), json!(-32600)));
    }

    #[test]
    fn an_id_in_flight_is_refused_until_it_is_answered() {
        let in_flight = InFlight::default();
        let ping = br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
        assert!(check(Line::Whole(ping), &in_flight).unwrap().is_some());
        let again = check(Line::Whole(ping), &in_flight).unwrap_err();
        assert_eq!((again["id"].clone(), again["error"]["code"].clone()), (json!(9), json!(-32600)));
        answered(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#, &in_flight);
        assert!(check(Line::Whole(ping), &in_flight).unwrap().is_some(), "free again once answered");
        let notification = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(check(Line::Whole(notification), &in_flight).unwrap().is_some());
        assert!(check(Line::Whole(notification), &in_flight).unwrap().is_some(), "notifications have no id");
        let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#;
        assert!(check(Line::Whole(cancel), &in_flight).unwrap().is_some());
        assert!(check(Line::Whole(ping), &in_flight).unwrap().is_some(), "free again once cancelled");
    }
}

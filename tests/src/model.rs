//! Scripted stand-ins for the model APIs the real clients call: the Anthropic Messages API
//! (Claude Code) and the OpenAI Responses API (Codex), both streaming Server-Sent Events.
//!
//! A stand-in answers each turn with the next tool call of its script, then with a plain text
//! when the script is done, and records every request, so a test reads exactly what the client
//! handed its model as each tool's result. The turn is derived from the request itself (how
//! many tool calls its history holds), so a client that retries a request gets the same answer.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One scripted tool call: a tack tool's name (without the client's `mcp__tack__` prefix), or
/// one of the client's own tools (`Bash`, `Skill`, `exec_command`), and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub arguments: Value,
    /// The client's own tool, named as the client names it, rather than tack's.
    pub client_tool: bool,
}

/// A string argument the stand-in replaces with the agent handle an earlier result of the
/// same conversation named (`agent aXXXX: …`), as a model reads it back: tack hands requests
/// without a session (2026-07-28 over HTTP) such a handle.
pub const AGENT: &str = "{agent}";

/// A scripted call of tack's tool `name`.
pub fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall { name: name.to_string(), arguments, client_tool: false }
}

/// A scripted call of the client's own tool `name` (`Bash`, `Skill` in Claude Code).
pub fn client_call(name: &str, arguments: Value) -> ToolCall {
    ToolCall { name: name.to_string(), arguments, client_tool: true }
}

/// Which API a stand-in speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/messages` (Claude Code).
    Anthropic,
    /// `POST /v1/responses` (Codex).
    OpenAiResponses,
}

/// A running stand-in: its base URL, and the requests it has seen.
pub struct ScriptedModel {
    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL` (Codex's `base_url` adds `/v1`).
    pub url: String,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

struct State {
    api: Api,
    /// The MCP server's name as the client prefixes its tools: `tack`, or `plugin_tack_tack` for
    /// Claude Code's plugin server.
    server: String,
    script: Vec<ToolCall>,
    requests: Mutex<Vec<Recorded>>,
}

/// The model a stand-in for a local Ollama server says it has.
pub const LOCAL_MODEL: &str = "gpt-oss:20b";

/// One request as the stand-in received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub body: Value,
    /// When it arrived.
    pub at: std::time::Instant,
}

impl ScriptedModel {
    /// Starts a stand-in on a free loopback port that plays `script` to a client whose MCP
    /// server is named `server`.
    pub async fn start(api: Api, server: &str, script: Vec<ToolCall>) -> Self {
        let state =
            Arc::new(State { api, server: server.to_string(), script, requests: Mutex::new(Vec::new()) });
        let app = axum::Router::new().fallback({
            let state = state.clone();
            move |uri: Uri, body: Bytes| {
                let state = state.clone();
                async move { state.answer(&uri, &body) }
            }
        });
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("a loopback port for the stand-in");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { url, state, task }
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.requests.lock().expect("requests lock").clone()
    }

    /// The requests of the agent's own loop (those that offer tack's tools), in order.
    pub fn turns(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).filter(|b| self.state.offers_tools(b)).collect()
    }

    /// What the client handed its model as the result of each scripted call, in script order,
    /// read from the last turn (whose history holds every earlier result). A call the client
    /// never answered has no entry.
    pub fn results(&self) -> Vec<String> {
        let Some(last) = self.turns().pop() else { return Vec::new() };
        (0..self.state.script.len()).map_while(|i| self.state.result_of(&last, i)).collect()
    }

    /// For each scripted call the client answered, the time from the turn the stand-in answered
    /// with that call to the first turn that carries its result: the call's wall time as the
    /// client ran it, the client's own handling included.
    pub fn call_times(&self) -> Vec<std::time::Duration> {
        let turns: Vec<Recorded> =
            self.requests().into_iter().filter(|r| self.state.offers_tools(&r.body)).collect();
        (0..self.state.script.len())
            .map_while(|i| {
                let asked = turns.iter().find(|t| self.state.calls_made(&t.body) == i)?;
                let answered = turns.iter().find(|t| self.state.calls_made(&t.body) > i)?;
                Some(answered.at.saturating_duration_since(asked.at))
            })
            .collect()
    }

    /// The tool definitions the client sent its model for tack's tools (the first turn's).
    pub fn tool_definitions(&self) -> Vec<Value> {
        let Some(first) = self.turns().into_iter().next() else { return Vec::new() };
        self.state.tack_tools(&first)
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl State {
    fn answer(&self, uri: &Uri, body: &Bytes) -> Response {
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        self.requests.lock().expect("requests lock").push(Recorded {
            path: uri.path().to_string(),
            body: body.clone(),
            at: std::time::Instant::now(),
        });
        let path = uri.path();
        match self.api {
            Api::Anthropic if path.ends_with("/messages") => self.anthropic_turn(&body),
            Api::Anthropic if path.ends_with("/count_tokens") => json_response(json!({"input_tokens": 1000})),
            Api::OpenAiResponses if path.ends_with("/responses") => self.responses_turn(&body),
            // What `codex exec --oss --local-provider ollama` asks before its first turn: that
            // a server answers, that it is new enough, and that it has the model.
            Api::OpenAiResponses if path.ends_with("/v1/models") => json_response(
                json!({"object": "list", "data": [{"id": LOCAL_MODEL, "object": "model", "owned_by": "stand-in"}]}),
            ),
            Api::OpenAiResponses if path.ends_with("/api/version") => {
                json_response(json!({"version": "0.13.5"}))
            }
            Api::OpenAiResponses if path.ends_with("/api/tags") => {
                json_response(json!({"models": [{"name": LOCAL_MODEL, "model": LOCAL_MODEL}]}))
            }
            _ => (StatusCode::NOT_FOUND, "the stand-in serves only the model's turns").into_response(),
        }
    }

    /// The tools a request offers the model that belong to tack.
    fn tack_tools(&self, body: &Value) -> Vec<Value> {
        let prefix = format!("mcp__{}__", self.server);
        let namespace = format!("mcp__{}", self.server);
        let mut tools = Vec::new();
        for tool in body["tools"].as_array().into_iter().flatten() {
            if tool["name"].as_str().is_some_and(|n| n.starts_with(&prefix)) {
                tools.push(tool.clone());
            } else if tool["type"] == "namespace" && tool["name"] == namespace.as_str() {
                tools.extend(tool["tools"].as_array().into_iter().flatten().cloned());
            }
        }
        tools
    }

    fn offers_tools(&self, body: &Value) -> bool {
        !self.tack_tools(body).is_empty()
    }

    /// How many tool calls the model has made so far in this request's history.
    fn calls_made(&self, body: &Value) -> usize {
        match self.api {
            Api::Anthropic => body["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["role"] == "assistant")
                .flat_map(|m| m["content"].as_array().into_iter().flatten())
                .filter(|block| block["type"] == "tool_use")
                .count(),
            Api::OpenAiResponses => body["input"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|item| item["type"] == "function_call")
                .count(),
        }
    }

    /// The text the client gave its model for scripted call `i`, from a request's history.
    fn result_of(&self, body: &Value, i: usize) -> Option<String> {
        let id = call_id(self.api, i);
        match self.api {
            Api::Anthropic => body["messages"]
                .as_array()?
                .iter()
                .filter(|m| m["role"] == "user")
                .flat_map(|m| m["content"].as_array().into_iter().flatten())
                .find(|block| block["type"] == "tool_result" && block["tool_use_id"] == id.as_str())
                .map(|block| text_of(&block["content"])),
            Api::OpenAiResponses => body["input"]
                .as_array()?
                .iter()
                .find(|item| item["type"] == "function_call_output" && item["call_id"] == id.as_str())
                .map(|item| text_of(&item["output"])),
        }
    }

    /// Call `i`'s arguments, with [`AGENT`] replaced by the newest handle the earlier results
    /// of this request's history name.
    fn arguments(&self, body: &Value, i: usize) -> Value {
        let handle = (0..i).rev().filter_map(|j| self.result_of(body, j)).find_map(|text| {
            text.lines()
                .rev()
                .find_map(|line| Some(line.strip_prefix("agent ")?.split(':').next()?.to_string()))
        });
        fn fill(value: &mut Value, handle: &str) {
            match value {
                Value::String(s) if s == AGENT => *s = handle.to_string(),
                Value::Array(items) => items.iter_mut().for_each(|v| fill(v, handle)),
                Value::Object(map) => map.values_mut().for_each(|v| fill(v, handle)),
                _ => {}
            }
        }
        let mut arguments = self.script[i].arguments.clone();
        if let Some(handle) = handle {
            fill(&mut arguments, &handle);
        }
        arguments
    }

    /// The name Claude Code gives `call`'s tool: tack's carry the server's prefix.
    fn tool_name(&self, call: &ToolCall) -> String {
        if call.client_tool { call.name.clone() } else { format!("mcp__{}__{}", self.server, call.name) }
    }

    fn anthropic_turn(&self, body: &Value) -> Response {
        // Side requests (titles, summaries) offer no tools: a short text ends them.
        let i = self.calls_made(body);
        let next = if self.offers_tools(body) { self.script.get(i) } else { None };
        let arguments = next.map(|_| self.arguments(body, i));
        let (block, delta, stop) = match next {
            Some(call) => (
                json!({"type": "tool_use", "id": call_id(Api::Anthropic, i), "name": self.tool_name(call), "input": {}}),
                json!({"type": "input_json_delta", "partial_json": arguments.as_ref().map(Value::to_string)}),
                "tool_use",
            ),
            None => (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": "done"}),
                "end_turn",
            ),
        };
        let usage = json!({"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
        let model = body["model"].as_str().unwrap_or("claude-sonnet-4-5");
        if body["stream"] != true {
            let mut content = block.clone();
            match next {
                Some(_) => content["input"] = arguments.clone().unwrap_or_default(),
                None => content["text"] = json!("done"),
            }
            return json_response(json!({
                "id": format!("msg_{i}"), "type": "message", "role": "assistant", "model": model,
                "content": [content], "stop_reason": stop, "stop_sequence": null, "usage": usage,
            }));
        }
        let events = [
            (
                "message_start",
                json!({"type": "message_start", "message": {"id": format!("msg_{i}"), "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": block}),
            ),
            ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": delta})),
            ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            (
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 10}}),
            ),
            ("message_stop", json!({"type": "message_stop"})),
        ];
        sse(&events)
    }

    fn responses_turn(&self, body: &Value) -> Response {
        let i = self.calls_made(body);
        let next = if self.offers_tools(body) { self.script.get(i) } else { None };
        let item = match next {
            Some(call) => {
                let mut item = json!({
                    "type": "function_call", "id": format!("fc_{i}"), "call_id": call_id(Api::OpenAiResponses, i),
                    "name": call.name, "arguments": self.arguments(body, i).to_string(), "status": "completed",
                });
                if !call.client_tool {
                    item["namespace"] = json!(format!("mcp__{}", self.server));
                }
                item
            }
            None => json!({
                "type": "message", "id": format!("msg_{i}"), "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}],
            }),
        };
        let response_id = format!("resp_{i}");
        let usage = json!({"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110});
        let events = [
            ("response.created", json!({"type": "response.created", "response": {"id": response_id}})),
            (
                "response.output_item.added",
                json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
            ),
            (
                "response.output_item.done",
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ),
            (
                "response.completed",
                json!({"type": "response.completed", "response": {"id": response_id, "usage": usage}}),
            ),
        ];
        sse(&events)
    }
}

/// The id of scripted call `i`, as each API spells its ids.
fn call_id(api: Api, i: usize) -> String {
    match api {
        Api::Anthropic => format!("toolu_{i:04}"),
        Api::OpenAiResponses => format!("call_{i:04}"),
    }
}

/// A result's text: a plain string, or the text parts of a list of content blocks.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => {
            blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n")
        }
        other => other.to_string(),
    }
}

fn sse(events: &[(&str, Value)]) -> Response {
    let body: String = events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect();
    ([(header::CONTENT_TYPE, "text/event-stream"), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

fn json_response(value: Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

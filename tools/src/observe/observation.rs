//! What a tool hands back: text for the model, optional structured data, and an error flag.

use serde_json::Value;

/// The result of one tool call, before the server turns it into a protocol result.
///
/// `text` is what the agent reads; `structured` carries the same facts as data for clients
/// that use `structuredContent`. A failure the agent can act on is an `Observation` with
/// `is_error` set, never a protocol error.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
}

impl Observation {
    /// A successful result with structured data beside the text.
    pub fn ok(text: impl Into<String>, structured: Value) -> Self {
        Self { text: text.into(), structured: Some(structured), is_error: false }
    }

    /// A successful result with text only.
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: text.into(), structured: None, is_error: false }
    }

    /// A failure the agent can act on; the text should say what to do next.
    pub fn error(text: impl Into<String>) -> Self {
        Self { text: text.into(), structured: None, is_error: true }
    }
}

//! The one place tack's own types become MCP types: a [`ToolSpec`] becomes a `Tool`, an
//! [`Observation`] becomes a `CallToolResult`.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};
use tack_tools::{Group, Observation, ToolSpec};

/// The protocol form of a tool. Core tools carry `anthropic/alwaysLoad`, so clients with tool
/// search keep them loaded. The output schema is listed only when results carry structured
/// content (`structured`), as the spec requires of a declared schema.
pub fn tool(spec: &ToolSpec, structured: bool) -> Tool {
    let a = spec.annotations;
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world);
    let mut tool = Tool::new(spec.name, spec.description, Arc::new(spec.input_schema.clone()))
        .with_title(spec.title)
        .with_annotations(annotations);
    if structured && let Some(schema) = &spec.output_schema {
        tool = tool.with_raw_output_schema(Arc::new(schema.clone()));
    }
    if spec.group == Group::Core {
        let mut meta = Map::new();
        meta.insert("anthropic/alwaysLoad".into(), json!(true));
        tool = tool.with_meta(rmcp::model::MetaObject(meta));
    }
    tool
}

/// `tool` with the `agent` argument that requests without a session pass to keep their state,
/// and, in its output schema, the `agent` a result carries when its call started one.
pub fn with_agent_argument(mut tool: Tool) -> Tool {
    let mut input = (*tool.input_schema).clone();
    add_string(&mut input, crate::agents::ARGUMENT, "your agent handle");
    tool.input_schema = Arc::new(input);
    if let Some(output) = &tool.output_schema {
        let mut output = (**output).clone();
        add_string(&mut output, crate::agents::ARGUMENT, "the agent this call started");
        tool.output_schema = Some(Arc::new(output));
    }
    tool
}

/// `tool` with the `repo` argument of a server with several repositories; `across`: the tool
/// also ranks across them (`search`, `context`).
pub fn with_repo_argument(mut tool: Tool, across: bool) -> Tool {
    let description = if across {
        "repository name (default: your first); \"*\" or names joined by commas rank across repositories"
    } else {
        "repository name (default: your first)"
    };
    let mut input = (*tool.input_schema).clone();
    add_string(&mut input, crate::repos::ARGUMENT, description);
    tool.input_schema = Arc::new(input);
    tool
}

/// Adds a string property `name` to an object schema.
fn add_string(schema: &mut Map<String, Value>, name: &str, description: &str) {
    let property = json!({"type": "string", "description": description});
    match schema.entry("properties").or_insert_with(|| json!({})) {
        Value::Object(properties) => {
            properties.insert(name.into(), property);
        }
        other => *other = json!({name: property}),
    }
}

/// The protocol form of a result: the text as a text block, `isError` for failures the agent
/// can act on, and with `structured` the data as `structuredContent`. Text only by default:
/// Claude Code and Codex hand their model only `structuredContent` when a result has it.
pub fn result(observation: Observation, structured: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(observation.text)];
    let mut result =
        if observation.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) };
    if structured && let Some(data @ Value::Object(_)) = observation.structured {
        result.structured_content = Some(data);
    }
    result
}

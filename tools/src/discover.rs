//! Progressive disclosure: `find_tools` reveals the specialised tools, `call_tool` calls any
//! tool by name for clients whose tool list cannot change.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::catalog::{Group, ToolSpec};
use crate::observation::Observation;
use crate::session::Session;
use crate::toolbox::{CallContext, Toolbox};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindToolsParams {
    /// Words describing the job, such as `references` or `page output`; empty lists every tool.
    #[serde(default)]
    pub query: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FoundTool {
    pub name: String,
    pub group: String,
    pub description: String,
    pub input_schema: Map<String, Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FindToolsOutput {
    /// Tools that match.
    pub total: u64,
    pub tools: Vec<FoundTool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallToolParams {
    /// The tool's name, such as `read_output`.
    pub name: String,
    /// The tool's arguments, as an object.
    #[serde(default)]
    #[schemars(with = "Map<String, Value>")]
    pub arguments: Option<Value>,
}

/// Runs `find_tools`; returns the observation and whether the session's tool list grew.
pub fn find_tools(
    toolbox: &Toolbox,
    session: &Session,
    params: FindToolsParams,
    ctx: &CallContext,
) -> (Observation, bool) {
    let words: Vec<String> = params
        .query
        .as_deref()
        .unwrap_or("")
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let specialised: Vec<&ToolSpec> = toolbox.specs().iter().filter(|t| t.group != Group::Core).collect();
    let mut scored: Vec<(usize, usize, &ToolSpec)> = specialised
        .iter()
        .enumerate()
        .filter_map(|(order, tool)| {
            if words.is_empty() {
                return Some((0, order, *tool));
            }
            let haystack = format!("{} {} {}", tool.name, tool.group.name(), tool.description).to_lowercase();
            let hits = words.iter().filter(|w| haystack.contains(w.as_str())).count();
            (hits > 0).then_some((hits, order, *tool))
        })
        .collect();
    // More words matched first; catalogue order breaks ties, so the answer is stable.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let found: Vec<&ToolSpec> = scored.into_iter().map(|(_, _, t)| t).collect();

    let mut grew = false;
    {
        let mut enabled = session.enabled.lock().expect("session lock");
        for tool in &found {
            grew |= enabled.insert(tool.name.to_string());
        }
    }
    let query = params.query.as_deref().unwrap_or("").trim();
    let mut text = if query.is_empty() {
        format!("{} specialised tools", found.len())
    } else {
        format!("{} tools match {query:?}", found.len())
    };
    if found.is_empty() {
        let groups: Vec<&str> = {
            let mut g: Vec<&str> = specialised.iter().map(|t| t.group.name()).collect();
            g.dedup();
            g
        };
        text.push_str(&format!(
            "; the specialised groups are: {}. Call find_tools without query to see every tool\n",
            groups.join(", ")
        ));
    } else if ctx.list_can_change {
        text.push_str(
            "; call them with call_tool(name, arguments), or directly: they are now in your tool list\n",
        );
    } else {
        text.push_str("; call them with call_tool(name, arguments)\n");
    }
    for tool in &found {
        let schema = serde_json::to_string(&tool.input_schema).unwrap_or_default();
        text.push_str(&format!(
            "\n{} ({}): {}\n  input schema: {schema}\n",
            tool.name,
            tool.group.name(),
            tool.description
        ));
    }
    let out = FindToolsOutput {
        total: found.len() as u64,
        tools: found
            .iter()
            .map(|t| FoundTool {
                name: t.name.into(),
                group: t.group.name().into(),
                description: t.description.into(),
                input_schema: t.input_schema.clone(),
            })
            .collect(),
    };
    (Observation::ok(text, json!(out)), grew && ctx.list_can_change)
}

/// Resolves `call_tool`'s target and arguments, or says why it cannot.
pub fn call_target(toolbox: &Toolbox, params: CallToolParams) -> Result<(String, Value), Observation> {
    let name = params.name.trim().to_string();
    if name == "call_tool" {
        return Err(Observation::error(
            "call_tool cannot call itself; name the tool to run, such as read_output",
        ));
    }
    if toolbox.spec(&name).is_none() {
        let names: Vec<&str> = toolbox.specs().iter().map(|t| t.name).collect();
        return Err(Observation::error(format!(
            "no tool named {name:?}; the tools are: {}. find_tools(query=...) describes them",
            names.join(", ")
        )));
    }
    // Lenient: some clients send the arguments object as a JSON string.
    let arguments = match params.arguments {
        None | Some(Value::Null) => json!({}),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                return Err(Observation::error(format!(
                    "arguments for {name} must be an object such as {{\"path\": \"src/a.py\"}}; got a string that is not one"
                )));
            }
        },
        Some(value @ Value::Object(_)) => value,
        Some(other) => {
            return Err(Observation::error(format!(
                "arguments for {name} must be an object such as {{\"path\": \"src/a.py\"}}; got {other}"
            )));
        }
    };
    Ok((name, arguments))
}

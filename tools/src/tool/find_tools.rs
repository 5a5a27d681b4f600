//! `find_tools`: progressive disclosure. It reveals the specialised tools by words, and adds them
//! to the session's tool list where the client's list may change.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::observe::observation::Observation;
use crate::tool::{Call, Group, READS, Reply, Spec, Tool, ToolSpec};

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

pub(crate) struct FindTools;

impl Tool for FindTools {
    type Params = FindToolsParams;
    type Output = FindToolsOutput;
    const SPEC: Spec = Spec {
        reads: false,
        annotations: READS,
        ..Spec::reader(
            "find_tools",
            "Find more tools",
            Group::Core,
            "Find tack's specialised tools (navigation, patches, plans, paging cut output) by words \
             such as `references` or `output`; without query, all of them, with input schemas. call_tool \
             calls them at once.",
        )
    };

    fn run(call: &Call<'_>, params: FindToolsParams) -> Reply {
        let (observation, grew) = find_tools(call, params);
        if grew { Reply::ListChanged(observation) } else { Reply::Done(observation) }
    }

    fn guide(_ws: &crate::workspace::Workspace) -> Option<String> {
        Some(
            "definition, references and callers answer from tack's name resolution; find_tools reveals them and the other specialised tools (patches, plans), \
             and call_tool calls any tool by name. "
                .into(),
        )
    }
}

/// Runs `find_tools`; returns the observation and whether the session's tool list grew.
fn find_tools(call: &Call<'_>, params: FindToolsParams) -> (Observation, bool) {
    let (session, ctx) = (call.session, call.ctx);
    let words: Vec<String> = params
        .query
        .as_deref()
        .unwrap_or("")
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let specialised: Vec<&ToolSpec> =
        call.offered.iter().map(|e| &e.spec).filter(|t| t.group != Group::Core).collect();
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

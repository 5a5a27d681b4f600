//! `call_tool`: calls any tool by name, the stable route for clients whose tool list cannot
//! change to the tools `find_tools` reveals.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::observe::observation::Observation;
use crate::tool::{Annotations, Call, Group, Reply, Spec, Tool};

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

pub(crate) struct CallTool;

impl Tool for CallTool {
    type Params = CallToolParams;
    /// The result is the called tool's: no schema of its own.
    type Output = ();
    const SPEC: Spec = Spec {
        annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
        reads: false,
        ..Spec::reader(
            "call_tool",
            "Call a tool by name",
            Group::Core,
            "Call any tack tool by name with its arguments object: the stable route to the tools \
             find_tools reveals.",
        )
    };

    fn run(call: &Call<'_>, params: CallToolParams) -> Reply {
        match call_target(call, params) {
            Ok((name, arguments)) => Reply::Forward(name, arguments),
            Err(observation) => observation.into(),
        }
    }

    fn output_schema() -> Option<Map<String, Value>> {
        None
    }

    fn target(args: &Value) -> Option<&str> {
        args.get("name").and_then(Value::as_str)
    }
}

/// Resolves `call_tool`'s target and arguments, or says why it cannot.
fn call_target(call: &Call<'_>, params: CallToolParams) -> Result<(String, Value), Observation> {
    let name = params.name.trim().to_string();
    if name == CallTool::SPEC.name {
        return Err(Observation::error(
            "call_tool cannot call itself; name the tool to run, such as read_output",
        ));
    }
    if !call.offered.iter().any(|e| e.spec.name == name) {
        let names: Vec<&str> = call.offered.iter().map(|e| e.spec.name).collect();
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

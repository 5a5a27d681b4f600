//! The tool catalogue: every tool's name, group, description, annotations and schemas, in the
//! fixed order clients see them.

use std::sync::OnceLock;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::discover::{CallToolParams, FindToolsOutput, FindToolsParams};
use crate::edit::{EditFileOutput, EditFileParams};
use crate::navigate::{CallersParams, NavOutput, NavParams, OutlineParams, SymbolsOutput, SymbolsParams};
use crate::patch_tools::{ApplyPatchParams, ChangedFiles, UndoParams, WriteFileParams};
use crate::read_file::{ReadFileOutput, ReadFileParams};
use crate::read_output::{ReadOutputOutput, ReadOutputParams};
use crate::replace_symbol::{ReplaceSymbolOutput, ReplaceSymbolParams};
use crate::repo_map::{RepoMapOutput, RepoMapParams};
use crate::run::{RunOutput, RunParams};
use crate::search::{SearchOutput, SearchParams};
use crate::state::{DoneOutput, DoneParams, Handoff, HandoffParams, Plan, TodoParams};
use crate::verify::{VerifyOutput, VerifyParams};

/// Where a tool is found: core tools are always listed, the rest through `find_tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Core,
    Navigate,
    Patch,
    State,
    Output,
}

impl Group {
    pub fn name(self) -> &'static str {
        match self {
            Group::Core => "core",
            Group::Navigate => "navigate",
            Group::Patch => "patch",
            Group::State => "state",
            Group::Output => "output",
        }
    }
}

/// The MCP behaviour hints, in tack's own terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

const READS: Annotations =
    Annotations { read_only: true, destructive: false, idempotent: true, open_world: false };

/// Tools that change files in place: a repeated call may change them again.
const EDITS: Annotations =
    Annotations { read_only: false, destructive: true, idempotent: false, open_world: false };

/// One tool as clients see it.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub group: Group,
    pub description: &'static str,
    pub annotations: Annotations,
    /// Removed under `--read-only`.
    pub writes: bool,
    pub input_schema: Map<String, Value>,
    pub output_schema: Option<Map<String, Value>>,
}

/// Every tool tack has, in the order clients see them.
pub fn all() -> &'static [ToolSpec] {
    static ALL: OnceLock<Vec<ToolSpec>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            ToolSpec {
                name: "repo_map",
                title: "Map the repository",
                group: Group::Core,
                description: "Map of the repository: the files and signatures that matter most, ranked by how the \
                    code references itself (PageRank), within a token budget. focus= paths, symbol names or words \
                    centers it on them. Start here in an unfamiliar repository.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<RepoMapParams>(),
                output_schema: Some(output_schema::<RepoMapOutput>()),
            },
            ToolSpec {
                name: "search",
                title: "Search code",
                group: Group::Core,
                description: "Search the repository: by default rank files for a bug report, a phrase or \
                    identifiers; mode=text literal lines, mode=regex a regex, mode=symbol definitions by name. \
                    Answers `N matches in M files`, then files best first with numbered hit lines and their \
                    enclosing symbol. path= narrows to a folder or glob.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<SearchParams>(),
                output_schema: Some(output_schema::<SearchOutput>()),
            },
            ToolSpec {
                name: "read_file",
                title: "Read a file",
                group: Group::Core,
                description: "Read a file as numbered lines, 100 at a time (start= first line, 1-based; lines= how \
                    many), or list a directory. The header says how many lines lie above and below. Returns the \
                    file's version, a content hash for conflict-checked edits.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<ReadFileParams>(),
                output_schema: Some(output_schema::<ReadFileOutput>()),
            },
            ToolSpec {
                name: "edit_file",
                title: "Edit a file",
                group: Group::Core,
                description: "Edit a file: replace old (exact text that occurs once; replace_all=true for every \
                    occurrence) with new. Refuses edits that add syntax errors (Python, Rust); with version= (from \
                    read_file), refuses if the file changed since. Answers with the edited lines.",
                annotations: EDITS,
                writes: true,
                input_schema: input_schema::<EditFileParams>(),
                output_schema: Some(gated(output_schema::<EditFileOutput>())),
            },
            ToolSpec {
                name: "run",
                title: "Run a shell command",
                group: Group::Core,
                description: "Run a shell command (sh -c) in the repository root. First line `exit=N` or `timeout \
                    after Ns`, then stdout and stderr merged in order. Long output keeps head and tail; the middle \
                    stays readable with read_output. Timeout 120 s by default, 600 at most.",
                annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
                writes: true,
                input_schema: input_schema::<RunParams>(),
                output_schema: Some(output_schema::<RunOutput>()),
            },
            ToolSpec {
                name: "verify",
                title: "Run the checks",
                group: Group::Core,
                description: "Run the repository's checks ([verify] in tack.toml, else pytest or cargo test, and a \
                    configured linter) and read their results: counts, and each failure's test, file:line and \
                    message. scope= a path or test name narrows it. Call it after editing; done() needs a pass.",
                annotations: Annotations { read_only: false, destructive: false, idempotent: true, open_world: true },
                writes: true,
                input_schema: input_schema::<VerifyParams>(),
                output_schema: Some(output_schema::<VerifyOutput>()),
            },
            ToolSpec {
                name: "find_tools",
                title: "Find more tools",
                group: Group::Core,
                description: "Find tack's specialised tools (navigation, patches, plans, paging cut output) by words \
                    such as `references` or `output`; without query, list them all with their input schemas. \
                    Found tools can be called at once with call_tool.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<FindToolsParams>(),
                output_schema: Some(output_schema::<FindToolsOutput>()),
            },
            ToolSpec {
                name: "call_tool",
                title: "Call a tool by name",
                group: Group::Core,
                description: "Call any tack tool by name with its arguments object, such as \
                    call_tool(name=\"read_output\", arguments={\"handle\": \"h1\"}): the stable route to the tools \
                    find_tools reveals.",
                annotations: Annotations { read_only: false, destructive: true, idempotent: false, open_world: true },
                writes: false,
                input_schema: input_schema::<CallToolParams>(),
                output_schema: None,
            },
            ToolSpec {
                name: "definition",
                title: "Go to definition",
                group: Group::Navigate,
                description: "Where a name is defined, resolved like a language server: by symbol (Cart.add, \
                    shapes::Circle::new) or by path+line+column of a use. Says resolved vs candidates (same name, \
                    receiver type unknown); each line: path:line, text, enclosing symbol, relation.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<NavParams>(),
                output_schema: Some(output_schema::<NavOutput>()),
            },
            ToolSpec {
                name: "references",
                title: "Find references",
                group: Group::Navigate,
                description: "Every use of a definition (calls, imports, type uses, inheritance), by symbol or by \
                    path+line+column; resolved by name resolution first, then candidates (same name, receiver \
                    unknown), with totals. within= narrows to a folder.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<NavParams>(),
                output_schema: Some(output_schema::<NavOutput>()),
            },
            ToolSpec {
                name: "callers",
                title: "Callers and callees",
                group: Group::Navigate,
                description: "Who calls a function (direction=callers, default) or what it calls \
                    (direction=callees), by symbol or path+line+column; resolved calls first, then candidates, \
                    with totals.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<CallersParams>(),
                output_schema: Some(output_schema::<NavOutput>()),
            },
            ToolSpec {
                name: "outline",
                title: "Outline a file",
                group: Group::Navigate,
                description: "A file's definitions as a tree: classes, functions, methods, constants with line spans \
                    and signatures. Cheaper than reading the file to see what it holds.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<OutlineParams>(),
                output_schema: Some(output_schema::<SymbolsOutput>()),
            },
            ToolSpec {
                name: "symbols",
                title: "Find symbols by name",
                group: Group::Navigate,
                description: "Find definitions by name across the repository: exact, prefix, camel humps (CA finds \
                    CartAdapter), substring, letters in order. Each with kind, path:line and signature.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<SymbolsParams>(),
                output_schema: Some(output_schema::<SymbolsOutput>()),
            },
            ToolSpec {
                name: "apply_patch",
                title: "Apply a multi-file patch",
                group: Group::Patch,
                description: "Apply a patch to several files at once, all or none, in the Codex format: *** Begin \
                    Patch, then *** Add File: p (+ lines), *** Delete File: p, or *** Update File: p (*** Move to: q, \
                    @@ context, ' '/-/+ lines), then *** End Patch. Refuses syntax errors. Answers A/M/D lines.",
                annotations: EDITS,
                writes: true,
                input_schema: input_schema::<ApplyPatchParams>(),
                output_schema: Some(gated(output_schema::<ChangedFiles>())),
            },
            ToolSpec {
                name: "write_file",
                title: "Write a whole file",
                group: Group::Patch,
                description: "Write a whole file: create a new one, or overwrite an existing one only when version= \
                    is the version read_file returned (so no one else's change is lost). Refuses content that adds \
                    syntax errors (Python, Rust). Answers with the new version.",
                annotations: Annotations { read_only: false, destructive: true, idempotent: true, open_world: false },
                writes: true,
                input_schema: input_schema::<WriteFileParams>(),
                output_schema: Some(gated(output_schema::<ChangedFiles>())),
            },
            ToolSpec {
                name: "replace_symbol",
                title: "Replace a definition",
                group: Group::Patch,
                description: "Replace one definition (function, method, class, struct…) found by qualified name, \
                    such as Parser.parse (Python) or parser::Parser::parse (Rust), with new text; keeps its \
                    indentation and the blank lines around it. Refuses syntax errors; version= guards against \
                    changes.",
                annotations: Annotations { read_only: false, destructive: true, idempotent: true, open_world: false },
                writes: true,
                input_schema: input_schema::<ReplaceSymbolParams>(),
                output_schema: Some(gated(output_schema::<ReplaceSymbolOutput>())),
            },
            ToolSpec {
                name: "undo",
                title: "Undo the last write to a file",
                group: Group::Patch,
                description: "Undo this session's last write to a file (by edit_file, write_file, apply_patch or \
                    replace_symbol), refusing when someone else changed the file since. Call again to go further \
                    back.",
                annotations: EDITS,
                writes: true,
                input_schema: input_schema::<UndoParams>(),
                output_schema: Some(gated(output_schema::<ChangedFiles>())),
            },
            ToolSpec {
                name: "todo",
                title: "Write or read the plan",
                group: Group::State,
                description: "Write the plan (plan=[{step, status: pending|in_progress|completed}], at most one \
                    in_progress; explanation= why), replacing the saved one; without plan, read it back. Saved \
                    for the repository, so a later session reads it.",
                annotations: Annotations { read_only: false, destructive: false, idempotent: true, open_world: false },
                writes: false,
                input_schema: input_schema::<TodoParams>(),
                output_schema: Some(output_schema::<Plan>()),
            },
            ToolSpec {
                name: "done",
                title: "May the work be called finished?",
                group: Group::State,
                description: "Whether this session may call its work finished: a verify passed after its last \
                    edit, and the plan has no open step. When not, names each failing condition and what to run.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<DoneParams>(),
                output_schema: Some(output_schema::<DoneOutput>()),
            },
            ToolSpec {
                name: "handoff",
                title: "Leave or read a note for the next session",
                group: Group::State,
                description: "Leave a note for the next session (note= what was done, what is left); tack adds the \
                    last verify result, the changed files and the plan. Without note, read the last one.",
                annotations: Annotations { read_only: false, destructive: false, idempotent: true, open_world: false },
                writes: false,
                input_schema: input_schema::<HandoffParams>(),
                output_schema: Some(output_schema::<Handoff>()),
            },
            ToolSpec {
                name: "read_output",
                title: "Page through cut output",
                group: Group::Output,
                description: "Page through the full text of a result that was cut: handle from the cut marker (such \
                    as h3), start= first line, lines= how many (default 200), grep= a regex to keep only matching \
                    lines.",
                annotations: READS,
                writes: false,
                input_schema: input_schema::<ReadOutputParams>(),
                output_schema: Some(output_schema::<ReadOutputOutput>()),
            },
        ]
    })
}

/// A plain-object input schema: no `$schema`, no title, no root combinators.
fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = settings().into_generator().into_root_schema_for::<T>();
    tidy(schema.to_value())
}

/// An output schema for what the tool serializes, plus the `output_handle` every result may
/// carry when its text was cut.
fn output_schema<T: JsonSchema>() -> Map<String, Value> {
    let schema = settings().for_serialize().into_generator().into_root_schema_for::<T>();
    let mut map = tidy(schema.to_value());
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.insert(
            "output_handle".into(),
            json!({"type": "string", "description": "Set when the text was cut: the handle read_output pages."}),
        );
    }
    map
}

/// Adds the gate's verdict, which [`crate::Toolbox::call`] puts in every writing tool's result.
fn gated(mut map: Map<String, Value>) -> Map<String, Value> {
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.insert(
            "verified_since_last_edit".into(),
            json!({"type": "boolean", "description": "True when a verify passed after this session's last write."}),
        );
    }
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.push(json!("verified_since_last_edit"));
    }
    map
}

/// Draft 2020-12 (the MCP default) with every subschema inlined: no `$defs` to chase.
fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true)
}

fn tidy(mut value: Value) -> Map<String, Value> {
    simplify(&mut value);
    let Value::Object(mut map) = value else { unreachable!("a struct's schema is an object") };
    map.remove("$schema");
    map.remove("title");
    map.remove("description");
    map
}

/// Strips what an agent does not need to read and some clients warn about: `null` in types and
/// enums of optional fields (absent is how tack spells "not given"), `default: null`, the
/// `uint64` formats, and line breaks that doc comments leave in descriptions.
fn simplify(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int"))
            {
                map.remove("format");
                if map.get("minimum") == Some(&json!(0)) {
                    map.remove("minimum");
                }
            }
            if let Some(Value::Array(types)) = map.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    map.insert("type".into(), kept[0].clone());
                }
            }
            if let Some(Value::Array(variants)) = map.get_mut("enum") {
                variants.retain(|v| !v.is_null());
            }
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            }
            for child in map.values_mut() {
                simplify(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(simplify),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_descriptions_short() {
        let mut names: Vec<&str> = all().iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all().len());
        for tool in all() {
            assert!(tool.description.len() <= 320, "{} has {} chars", tool.name, tool.description.len());
            assert!(!tool.description.contains("  "), "{} has a double space", tool.name);
        }
    }

    #[test]
    fn input_schemas_are_plain_objects() {
        for tool in all() {
            let schema = &tool.input_schema;
            assert_eq!(schema.get("type"), Some(&json!("object")), "{}", tool.name);
            for combinator in ["anyOf", "oneOf", "allOf", "$schema"] {
                assert!(!schema.contains_key(combinator), "{} has {combinator}", tool.name);
            }
        }
    }
}

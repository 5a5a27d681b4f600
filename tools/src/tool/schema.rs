//! JSON schemas of tools' parameters and results, made from their types and trimmed to what a
//! model needs to read.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// A plain-object input schema: no `$schema`, no title, no root combinators.
pub(crate) fn input<T: JsonSchema>() -> Map<String, Value> {
    let schema = settings().into_generator().into_root_schema_for::<T>();
    tidy(schema.to_value())
}

/// An output schema for what the tool serializes, plus the `output_handle` every result may
/// carry when its text was cut.
pub(crate) fn output<T: JsonSchema>() -> Map<String, Value> {
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

/// Adds the gate's verdict, which the front door puts in every writing tool's result.
pub(crate) fn gated(mut map: Map<String, Value>) -> Map<String, Value> {
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

/// The fields of `T`, as it serializes, that are required and yet may be `null` (an `Option`
/// without `skip_serializing_if`), by their path such as `checks[].exit`. The output schema
/// drops `null` from every type, so such a field, when empty, breaks the tool's own schema.
#[cfg(test)]
pub(crate) fn required_nullable<T: JsonSchema>() -> Vec<String> {
    let schema = settings().for_serialize().into_generator().into_root_schema_for::<T>();
    let mut found = Vec::new();
    find_required_nullable(&schema.to_value(), "", &mut found);
    found
}

#[cfg(test)]
fn find_required_nullable(schema: &Value, path: &str, found: &mut Vec<String>) {
    let Value::Object(map) = schema else { return };
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(Value::Object(props)) = map.get("properties") {
        for (name, prop) in props {
            let at = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
            if required.contains(&name.as_str()) && admits_null(prop) {
                found.push(at.clone());
            }
            find_required_nullable(prop, &at, found);
        }
    }
    if let Some(items) = map.get("items") {
        find_required_nullable(items, &format!("{path}[]"), found);
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        for variant in map.get(combinator).and_then(Value::as_array).into_iter().flatten() {
            find_required_nullable(variant, path, found);
        }
    }
}

#[cfg(test)]
fn admits_null(schema: &Value) -> bool {
    let has_null = |key: &str| match schema.get(key) {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(values)) => values.iter().any(|v| v.is_null() || v == "null"),
        _ => false,
    };
    has_null("type")
        || schema.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(Value::is_null))
        || schema.get("const") == Some(&Value::Null)
        || ["anyOf", "oneOf"]
            .iter()
            .any(|c| schema.get(*c).and_then(Value::as_array).is_some_and(|vs| vs.iter().any(admits_null)))
}

/// Draft 2020-12 (the MCP default) with every subschema inlined: no `$defs` to chase.
fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true)
}

fn tidy(mut value: Value) -> Map<String, Value> {
    simplify(&mut value);
    // A struct's schema is an object; anything else would have no properties to list.
    let Value::Object(mut map) = value else { return Map::new() };
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

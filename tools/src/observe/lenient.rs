//! Lenient argument decoding: numbers and booleans sent as strings are accepted, because small
//! models and some clients send `"100"` where the schema says integer.

use serde::{Deserialize, Deserializer, de::Error};
use serde_json::Value;

/// An optional non-negative integer that may arrive as a JSON number or a numeric string.
pub fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(v), _) => Ok(Some(v)),
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 => Ok(Some(f as u64)),
            _ => Err(D::Error::custom(format!("expected a non-negative integer, got {n}"))),
        },
        Some(Value::String(s)) => s
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| D::Error::custom(format!("expected a non-negative integer, got {s:?}"))),
        Some(other) => Err(D::Error::custom(format!("expected a non-negative integer, got {other}"))),
    }
}

/// An optional boolean that may arrive as a JSON bool, a string (`"true"`, `"false"`, `"yes"`,
/// `"no"`, `"1"`, `"0"`, any case) or the numbers 0 and 1.
pub fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(0) => Ok(Some(false)),
            Some(1) => Ok(Some(true)),
            _ => Err(D::Error::custom(format!("expected true or false, got {n}"))),
        },
        Some(Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Ok(Some(true)),
            "false" | "no" | "0" | "" => Ok(Some(false)),
            _ => Err(D::Error::custom(format!("expected true or false, got {s:?}"))),
        },
        Some(other) => Err(D::Error::custom(format!("expected true or false, got {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct P {
        #[serde(default, deserialize_with = "opt_u64")]
        n: Option<u64>,
    }

    fn parse(v: Value) -> Result<Option<u64>, String> {
        serde_json::from_value::<P>(v).map(|p| p.n).map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_strings_and_absence_decode() {
        assert_eq!(parse(serde_json::json!({"n": 100})), Ok(Some(100)));
        assert_eq!(parse(serde_json::json!({"n": "100"})), Ok(Some(100)));
        assert_eq!(parse(serde_json::json!({"n": 5.0})), Ok(Some(5)));
        assert_eq!(parse(serde_json::json!({})), Ok(None));
        assert_eq!(parse(serde_json::json!({"n": null})), Ok(None));
    }

    #[derive(Deserialize, Debug)]
    struct B {
        #[serde(default, deserialize_with = "opt_bool")]
        b: Option<bool>,
    }

    fn parse_bool(v: Value) -> Result<Option<bool>, String> {
        serde_json::from_value::<B>(v).map(|p| p.b).map_err(|e| e.to_string())
    }

    #[test]
    fn booleans_strings_and_absence_decode() {
        assert_eq!(parse_bool(serde_json::json!({"b": true})), Ok(Some(true)));
        assert_eq!(parse_bool(serde_json::json!({"b": "True"})), Ok(Some(true)));
        assert_eq!(parse_bool(serde_json::json!({"b": "false"})), Ok(Some(false)));
        assert_eq!(parse_bool(serde_json::json!({"b": 1})), Ok(Some(true)));
        assert_eq!(parse_bool(serde_json::json!({})), Ok(None));
        let err = parse_bool(serde_json::json!({"b": "maybe"})).unwrap_err();
        assert!(err.contains("\"maybe\""), "{err}");
        assert!(parse_bool(serde_json::json!({"b": 2})).is_err());
    }

    #[test]
    fn nonsense_is_rejected_with_the_value_named() {
        let err = parse(serde_json::json!({"n": "ten"})).unwrap_err();
        assert!(err.contains("\"ten\""), "{err}");
        assert!(parse(serde_json::json!({"n": -3})).is_err());
        assert!(parse(serde_json::json!({"n": [1]})).is_err());
    }
}

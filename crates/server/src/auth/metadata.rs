//! `user_metadata` and `app_metadata`: JSON objects stored as text and copied into every access
//! token. Patches merge key by key (a `null` removes its key, as GoTrue); what is stored is
//! capped at [`MAX_METADATA_BYTES`], so that a user cannot grow their tokens past what servers
//! and proxies accept (a megabyte of metadata made every later request fail with 431).

use serde_json::{Map, Value};

use super::error::AuthError;

/// The largest metadata object stored, as compact JSON.
pub const MAX_METADATA_BYTES: usize = 16 * 1024;

/// `current` (JSON text) with `patch` merged in: a `null` value removes its key.
pub fn merge(current: &str, patch: Map<String, Value>) -> String {
    let mut object = match serde_json::from_str::<Value>(current) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    for (key, value) in patch {
        if value.is_null() {
            object.remove(&key);
        } else {
            object.insert(key, value);
        }
    }
    Value::Object(object).to_string()
}

/// A metadata field of a request: absent or `null` is `None`, an object its map, anything else
/// 400 `validation_failed` naming `field`.
pub fn object(value: Option<Value>, field: &str) -> Result<Option<Map<String, Value>>, AuthError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => Err(AuthError::validation(format!(
            "{field} must be a JSON object"
        ))),
    }
}

/// The `data` of a request that creates a user, as their first `user_metadata` (JSON text,
/// size-checked).
pub fn initial(data: Option<Value>) -> Result<String, AuthError> {
    checked(
        Value::Object(object(data, "data")?.unwrap_or_default()).to_string(),
        "data",
    )
}

/// `text` if it is small enough to store; 400 `validation_failed` naming `field` otherwise.
pub fn checked(text: String, field: &str) -> Result<String, AuthError> {
    if text.len() > MAX_METADATA_BYTES {
        return Err(AuthError::validation(format!(
            "{field} is too large: {} bytes, at most {MAX_METADATA_BYTES}",
            text.len()
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_merge_and_null_removes() {
        let merged = merge(
            r#"{"a":1,"b":2}"#,
            serde_json::from_str(r#"{"b":null,"c":3}"#).unwrap(),
        );
        assert_eq!(
            serde_json::from_str::<Value>(&merged).unwrap(),
            json!({"a":1,"c":3})
        );
    }

    #[test]
    fn large_objects_are_refused_with_their_size() {
        let small = json!({"name": "Ada"}).to_string();
        assert_eq!(checked(small.clone(), "data").unwrap(), small);
        let large = json!({"blob": "x".repeat(MAX_METADATA_BYTES)}).to_string();
        let err = checked(large, "data").unwrap_err();
        assert_eq!(err.code, "validation_failed");
        assert!(
            err.message.starts_with("data is too large"),
            "{}",
            err.message
        );
    }
}

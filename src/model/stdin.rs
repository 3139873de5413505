//! Claude Code's JSON on a command's stdin (the status line, the hooks):
//! bounded in size, and one JSON object or a refusal that says why.

use serde_json::Value;

/// Why the input on stdin was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StdinError {
    #[error("no input on stdin")]
    Empty,
    #[error("input larger than {0} bytes")]
    TooLarge(usize),
    #[error("input is not a JSON object")]
    NotJson,
}

/// `bytes` as one JSON object, refused when over `max` bytes, blank, not
/// JSON or not an object.
pub fn json_object(bytes: &[u8], max: usize) -> Result<Value, StdinError> {
    if bytes.len() > max {
        return Err(StdinError::TooLarge(max));
    }
    if bytes.trim_ascii().is_empty() {
        return Err(StdinError::Empty);
    }
    let v: Value = serde_json::from_slice(bytes).map_err(|_| StdinError::NotJson)?;
    if !v.is_object() {
        return Err(StdinError::NotJson);
    }
    Ok(v)
}

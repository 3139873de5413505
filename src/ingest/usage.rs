//! What the parser takes from a line's `usage` and boundary metadata, and
//! the bounds it holds them to: token counts with a missing 5m/1h split
//! counted as 5m, a token field above `MAX_TOKENS` or too many web searches
//! making the line a bad line, and triggers and uuids stored without
//! control characters and cut short. Hands `TokenCounts` and reasons to
//! `parse`.

use super::line::{CacheCreation, Usage};
use crate::model::{TokenCounts, MAX_TOKENS};

/// Longest trigger or uuid kept from a boundary line (they are short
/// words and ids; anything longer is cut, never stored whole).
const MAX_TRIGGER: usize = 64;

/// Most web searches one request may log; above is a damaged line.
pub const MAX_WEB_SEARCHES: u64 = 1_000_000;

/// Why a usage object is not believable: a token field above `MAX_TOKENS`
/// (10^9 per request; see `model::MAX_TOKENS`) or too many web searches.
pub(super) fn out_of_bounds(u: &Usage) -> Option<String> {
    let split = u.cache_creation.as_ref();
    let fields = [
        ("input_tokens", u.input_tokens),
        ("cache_creation_input_tokens", u.cache_creation_input_tokens),
        ("cache_read_input_tokens", u.cache_read_input_tokens),
        ("output_tokens", u.output_tokens),
        ("cache_creation.ephemeral_5m_input_tokens", split.and_then(|c| c.ephemeral_5m_input_tokens)),
        ("cache_creation.ephemeral_1h_input_tokens", split.and_then(|c| c.ephemeral_1h_input_tokens)),
    ];
    if let Some((name, v)) = fields.into_iter().find_map(|(n, v)| v.filter(|&v| v > MAX_TOKENS).map(|v| (n, v))) {
        return Some(format!("usage.{name} {v} is above the bound of {MAX_TOKENS} tokens per request"));
    }
    let searches = u.server_tool_use.as_ref().and_then(|s| s.web_search_requests).unwrap_or(0);
    (searches > MAX_WEB_SEARCHES).then(|| {
        format!("usage.server_tool_use.web_search_requests {searches} is above the bound of {MAX_WEB_SEARCHES}")
    })
}

/// A trigger or uuid as stored: control characters dropped (it reaches
/// terminals and pages), at most `MAX_TRIGGER` characters.
pub(super) fn bounded(s: &str) -> String {
    crate::model::one_line(s, MAX_TRIGGER)
}

/// Token counts of a usage object. A 5m/1h split larger than the cache
/// writes it splits (`cache_creation_input_tokens`) cannot be what was
/// written: the total is, its 1-hour part kept up to it and the rest 5m.
pub(super) fn tokens_of(u: &Usage) -> TokenCounts {
    let write = u.cache_creation_input_tokens.unwrap_or(0);
    let mut t = counts(u.input_tokens, write, u.cache_creation.as_ref(), u.cache_read_input_tokens, u.output_tokens);
    if let Some(total) = u.cache_creation_input_tokens.filter(|&n| t.cache_write_5m + t.cache_write_1h > n) {
        t.cache_write_1h = t.cache_write_1h.min(total);
        t.cache_write_5m = total - t.cache_write_1h;
    }
    t
}

/// Token counts from usage fields; a missing 5m/1h split counts as 5m.
pub(super) fn counts(
    input: Option<u64>,
    write: u64,
    split: Option<&CacheCreation>,
    read: Option<u64>,
    output: Option<u64>,
) -> TokenCounts {
    let (w5, w1h) = match split {
        Some(c) if c.ephemeral_5m_input_tokens.is_some() || c.ephemeral_1h_input_tokens.is_some() => {
            (c.ephemeral_5m_input_tokens.unwrap_or(0), c.ephemeral_1h_input_tokens.unwrap_or(0))
        }
        _ => (write, 0),
    };
    TokenCounts {
        input: input.unwrap_or(0),
        cache_write_5m: w5,
        cache_write_1h: w1h,
        cache_read: read.unwrap_or(0),
        output: output.unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_larger_than_its_total_is_priced_at_the_total() {
        let u = |json: &'static str| -> Usage<'static> { serde_json::from_str(json).unwrap() };
        let bomb = u(
            r#"{"cache_creation_input_tokens":5,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":999999999}}"#,
        );
        let t = tokens_of(&bomb);
        assert_eq!((t.cache_write_5m, t.cache_write_1h), (0, 5));
        let fair = u(
            r#"{"cache_creation_input_tokens":9,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":5}}"#,
        );
        assert_eq!((tokens_of(&fair).cache_write_5m, tokens_of(&fair).cache_write_1h), (4, 5));
        let no_total = u(r#"{"cache_creation":{"ephemeral_1h_input_tokens":7}}"#);
        assert_eq!(tokens_of(&no_total).cache_write_1h, 7, "no total to hold it to");
    }
}

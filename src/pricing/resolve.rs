//! Model-id normalisation: turns any spelling of a model id found in
//! transcripts (dated, Bedrock, Vertex, `-latest`, `-fast`, `[1m]`) into the
//! undated form the price table is keyed by.
//!
//! Normalisation only removes decorations; the result is then looked up
//! exactly. Only when that fails does `PriceTable` fall back to the newest
//! version of the same family (`estimate.rs`), and says so.

/// Normalises a raw `message.model` string to the key the price table uses.
///
/// Steps: trim and lowercase; drop any `provider/` path prefix (ARNs, LiteLLM
/// style); drop a Bedrock `anthropic.` or `<region>.anthropic.` prefix; then
/// repeatedly drop trailing decorations: `[...]` (`[1m]`), Vertex `@date`,
/// Bedrock `:0` and `-v2`, `-fast`, `-latest` and an 8-digit `-YYYYMMDD`.
pub fn normalize(raw: &str) -> String {
    let lower = raw.trim().to_ascii_lowercase();
    let mut id = lower.rsplit('/').next().unwrap_or_default();
    id = strip_bedrock_prefix(id);
    while let Some(shorter) = strip_one_suffix(id) {
        id = shorter;
    }
    id.to_string()
}

/// Removes `anthropic.` or a one-label region prefix such as `us.anthropic.`.
fn strip_bedrock_prefix(id: &str) -> &str {
    const VENDOR: &str = "anthropic.";
    if let Some(rest) = id.strip_prefix(VENDOR) {
        return rest;
    }
    match id.split_once('.') {
        Some((region, rest))
            if !region.is_empty() && region.bytes().all(|b| b.is_ascii_alphabetic()) && rest.starts_with(VENDOR) =>
        {
            &rest[VENDOR.len()..]
        }
        _ => id,
    }
}

/// Removes one trailing decoration, or returns None when there is none.
fn strip_one_suffix(id: &str) -> Option<&str> {
    if id.ends_with(']') {
        if let Some(pos) = id.rfind('[') {
            return Some(&id[..pos]);
        }
    }
    if let Some(pos) = id.rfind('@') {
        return Some(&id[..pos]);
    }
    if let Some((head, tail)) = id.rsplit_once(':') {
        if all_digits(tail) {
            return Some(head);
        }
    }
    for fixed in ["-fast", "-latest"] {
        if let Some(head) = id.strip_suffix(fixed) {
            return Some(head);
        }
    }
    let (head, tail) = id.rsplit_once('-')?;
    let is_version = tail.strip_prefix('v').is_some_and(all_digits);
    let is_date = tail.len() == 8 && all_digits(tail);
    (is_version || is_date).then_some(head)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn normalize_strips_every_decoration() {
        let cases = [
            ("claude-opus-4-20250514", "claude-opus-4"),
            ("claude-opus-4-5-20251101", "claude-opus-4-5"),
            ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
            ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"),
            ("anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
            ("us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"),
            ("eu.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4"),
            ("global.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
            ("arn:aws:bedrock:us-east-1:123:inference-profile/us.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
            ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
            ("claude-opus-4-6[1m]", "claude-opus-4-6"),
            ("claude-opus-4-6-fast", "claude-opus-4-6"),
            ("  Claude-Opus-4-6  ", "claude-opus-4-6"),
            ("claude-opus-4-9", "claude-opus-4-9"),
            ("<synthetic>", "<synthetic>"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(normalize(raw), want, "normalize({raw:?})");
        }
    }

    #[test]
    fn normalize_keeps_version_numbers() {
        // Single digits are model versions, not dates or Bedrock revisions.
        assert_eq!(normalize("claude-opus-4-5"), "claude-opus-4-5");
        assert_eq!(normalize("claude-haiku-5-5"), "claude-haiku-5-5");
        assert_eq!(normalize("claude-fable-5-1"), "claude-fable-5-1");
    }
}

//! The server's own verdict on a request it did not serve from cache as
//! expected (Claude Code 2.1.119+: `message.diagnostics.cache_miss_reason`,
//! cache-model section 19), as stored: its `type` kept as written
//! (unknown types too), bounded and reduced to plain characters.

/// The longest reason type stored (the known ones are under 30).
pub const MAX_REASON_LEN: usize = 48;

/// The known reason types, as Claude Code writes them.
pub const MODEL_CHANGED: &str = "model_changed";
pub const SYSTEM_CHANGED: &str = "system_changed";
pub const TOOLS_CHANGED: &str = "tools_changed";
pub const MESSAGES_CHANGED: &str = "messages_changed";
pub const PREVIOUS_MESSAGE_NOT_FOUND: &str = "previous_message_not_found";
pub const UNAVAILABLE: &str = "unavailable";

/// `raw` as stored: ASCII letters, digits, `_`, `-` and `.` only (anything
/// else dropped), at most `MAX_REASON_LEN` of them. Empty means no reason.
pub fn server_reason(raw: &str) -> String {
    raw.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')).take(MAX_REASON_LEN).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_types_are_kept_as_written_and_bounded() {
        assert_eq!(server_reason(TOOLS_CHANGED), "tools_changed");
        assert_eq!(server_reason("beta_header_changed"), "beta_header_changed");
        assert_eq!(server_reason("x\u{1b}[31m<b>\u{202e}y"), "x31mby");
        assert_eq!(server_reason(&"a".repeat(500)).len(), MAX_REASON_LEN);
        assert_eq!(server_reason(""), "");
    }
}

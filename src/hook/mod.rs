//! Claude Code hooks: `cachewise hook session-start` answers Claude Code's
//! `SessionStart` hook on a resume or fork with one or two lines for the
//! user (`systemMessage`): whether the session's cache is warm or cold and
//! since when, what resuming, compacting first and starting fresh cost
//! over the next turns (the advice's own figures, `report::stored_rows`),
//! which to choose, and Claude Code's own estimate beside cachewise's
//! premium. It never adds to the model's context (no `additionalContext`,
//! and never plain stdout, which a `SessionStart` hook would add to it).
//! `install` writes the hook entries into Claude Code's settings.
//!
//! Hook input and output: <https://code.claude.com/docs/en/hooks>.

pub mod install;

use crate::analyze::{option_names, Advice, Recommendation};
use crate::model::format::{duration_words, usd};
use crate::model::stdin::{json_object, StdinError};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde_json::json;

/// Largest hook input accepted (Claude Code sends well under a kilobyte).
pub const MAX_INPUT: usize = 64 << 10;
/// Turns the options are priced over.
pub const TURNS: u32 = 10;
/// Longest session id looked up.
const MAX_ID: usize = 200;
/// The largest estimate of Claude Code's believed (dollars).
const MAX_ESTIMATE_USD: f64 = 1e6;

/// What cachewise reads from the `SessionStart` hook's JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionStart {
    pub session_id: String,
    /// `startup`, `resume`, `clear`, `compact` or `fork`.
    pub source: String,
    /// `estimated_cache_write_usd` (resume and fork): Claude Code's own
    /// estimate, the whole context re-cached at list price.
    pub estimated_cache_write_usd: Option<f64>,
}

impl SessionStart {
    /// True for the sources a message is given on.
    pub fn answers(&self) -> bool {
        matches!(self.source.as_str(), "resume" | "fork")
    }
}

/// Why the input was not read (said on stderr, never on stdout).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookInputError {
    #[error(transparent)]
    Input(#[from] StdinError),
    #[error("input has no session_id")]
    NoSession,
}

/// Parses the hook's JSON.
pub fn parse(bytes: &[u8]) -> Result<SessionStart, HookInputError> {
    let v = json_object(bytes, MAX_INPUT)?;
    let text = |k: &str| v[k].as_str().filter(|s| s.len() <= MAX_ID).map(|s| crate::model::one_line(s, MAX_ID));
    let session_id = text("session_id").filter(|s| !s.is_empty()).ok_or(HookInputError::NoSession)?;
    let estimate =
        v["estimated_cache_write_usd"].as_f64().filter(|x| x.is_finite() && (0.0..=MAX_ESTIMATE_USD).contains(x));
    Ok(SessionStart { session_id, source: text("source").unwrap_or_default(), estimated_cache_write_usd: estimate })
}

/// The one or two lines shown to the user for `advice`, as of `now`.
pub fn message(advice: &Advice, input: &SessionStart, now: DateTime<Utc>, tz: Tz) -> String {
    let at = |t: DateTime<Utc>| {
        let local = t.with_timezone(&tz);
        match (now - t).num_hours().abs() < 20 {
            true => local.format("%H:%M").to_string(),
            false => local.format("%b %-d %H:%M").to_string(),
        }
    };
    let ttl = if advice.ttl_s >= 3600 { "1 h" } else { "5 min" };
    let claude = input
        .estimated_cache_write_usd
        .map(|x| format!(" (Claude Code estimates {} for re-caching the whole context)", usd(x)))
        .unwrap_or_default();
    let first = match advice.warm {
        true => format!(
            "cachewise: the cache is warm until {} ({ttl} TTL); if it goes cold, the next message pays +{}{claude}.",
            at(advice.expires_at),
            usd(advice.cold_resume_usd)
        ),
        false => format!(
            "cachewise: the cache went cold at {} ({} idle); the next message re-writes it: +{}{claude}.",
            at(advice.expires_at),
            duration_words(advice.idle_s),
            usd(advice.cold_resume_usd)
        ),
    };
    let (resume, compact) = option_names(advice);
    let pick = match advice.recommendation {
        Recommendation::Resume => resume.clone(),
        Recommendation::Compact => compact.clone(),
        Recommendation::Restart => "a new session".to_owned(),
    };
    let o = &advice.options;
    if advice.claude_code.compacted_since {
        // The next message sends the summary: one way on, whose cost holds
        // the system prompt's and tools' premium when cold (cache-model §8, §9).
        return format!(
            "cachewise: Claude Code compacted this conversation after its last reply; the next message starts from the summary.\nOver the next {} turns: {resume} {} · start fresh {}.",
            advice.turns,
            usd(o.resume_usd),
            usd(o.restart_usd)
        );
    }
    format!(
        "{first}\nOver the next {} turns: {resume} {} · {compact} {} · start fresh {}. Recommended: {pick}.",
        advice.turns,
        usd(o.resume_usd),
        usd(o.compact_usd),
        usd(o.restart_usd)
    )
}

/// The hook's answer: a JSON object whose only key is `systemMessage`
/// (shown to the user, never to the model), control characters removed.
pub fn answer(message: &str) -> String {
    let clean = message.split('\n').map(|l| crate::model::one_line(l, 1000)).collect::<Vec<_>>().join("\n");
    json!({ "systemMessage": clean }).to_string()
}

#[cfg(test)]
mod tests;

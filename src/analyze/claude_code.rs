//! What Claude Code itself will do when a session is picked up again
//! (cache-model §7 v2): the resume dialog it shows after an hour's rest
//! over 100k tokens, the idle compaction it runs on a 200k+ conversation
//! about 54 minutes into a 1-hour cache, and whether the session was
//! already compacted after its last request. Pure: the clock is an
//! argument. Hands on `ClaudeCode` for the advice and its text.

use crate::model::{Boundary, Compaction, Request};
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// The resume dialog appears above this many prompt tokens (strictly).
pub const RESUME_DIALOG_ABOVE_TOKENS: u64 = 100_000;
/// ... after more than this many seconds of rest.
pub const RESUME_DIALOG_AFTER_S: i64 = 3600;
/// Idle compaction applies from this many prompt tokens (inclusive).
pub const IDLE_COMPACTION_MIN_TOKENS: u64 = 200_000;
/// ... this many seconds after the last request (before the 1-hour cache expires).
pub const IDLE_COMPACTION_AFTER_S: i64 = 3240;
/// The TTL in force idle compaction needs (a 1-hour cache).
pub(super) const IDLE_COMPACTION_TTL_S: u32 = 3600;

/// What the user will meet in Claude Code (§7 v2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClaudeCode {
    /// Claude Code (Pro and Max) asks before the first new message:
    /// "Resume from summary" (compact) or "Resume full session as-is" (resume).
    pub resume_dialog: bool,
    /// When Claude Code will compact the session by itself (unless
    /// `idleCompaction` is off); None when it will not.
    pub idle_compaction_at: Option<DateTime<Utc>>,
    /// A compaction boundary came after the last request: the conversation
    /// is already compacted and the next request starts a new lineage.
    pub compacted_since: bool,
}

/// The flags for a session whose last main-thread request is `last`, with
/// `ttl_s` in force after it, at `now`. `compactions` may hold any
/// sessions' rows; only `last`'s `(user, session)` counts.
pub fn claude_code(last: &Request, ttl_s: u32, compactions: &[Compaction], now: DateTime<Utc>) -> ClaudeCode {
    let p = last.tokens.prompt();
    let idle = now - last.time;
    let compact_at = last.time + TimeDelta::seconds(IDLE_COMPACTION_AFTER_S);
    let idle_compaction = p >= IDLE_COMPACTION_MIN_TOKENS && ttl_s == IDLE_COMPACTION_TTL_S && now <= compact_at;
    let compacted_since =
        LastCompactions::of(compactions).after(last.user.as_str(), last.session_id.as_str(), last.time);
    // Compacted, the conversation resumes from its summary: no dialog asks
    // about a long transcript, and nothing is left to compact when idle.
    ClaudeCode {
        resume_dialog: !compacted_since
            && p > RESUME_DIALOG_ABOVE_TOKENS
            && idle > TimeDelta::seconds(RESUME_DIALOG_AFTER_S),
        idle_compaction_at: (idle_compaction && !compacted_since).then_some(compact_at),
        compacted_since,
    }
}

/// The latest compaction (not a microcompact) of each person's session
/// (person, then session id): the one rule of "compacted since its last
/// request".
#[derive(Debug, Clone, Default)]
pub struct LastCompactions(HashMap<String, HashMap<String, DateTime<Utc>>>);

impl LastCompactions {
    /// Over `compactions` (any sessions' rows).
    pub fn of(compactions: &[Compaction]) -> LastCompactions {
        let mut latest: HashMap<String, HashMap<String, DateTime<Utc>>> = HashMap::new();
        for c in compactions.iter().filter(|c| c.boundary == Boundary::Compact) {
            let by_session = latest.entry(c.user.to_string()).or_default();
            let t = by_session.entry(c.session_id.to_string()).or_insert(c.time);
            *t = (*t).max(c.time);
        }
        LastCompactions(latest)
    }

    /// `user`'s `session` was compacted after `time` (as `claude_code`'s
    /// `compacted_since`).
    pub fn after(&self, user: &str, session: &str, time: DateTime<Utc>) -> bool {
        self.0.get(user).and_then(|s| s.get(session)).is_some_and(|&t| t > time)
    }
}

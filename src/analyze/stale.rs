//! Stale sessions (cache-model §6): a session's main thread is stale at
//! `now` when `now - t_last > T_last`; its cold-resume premium is what the
//! next message pays because the cache expired, at the last request's
//! rates: v3 `(P_last - Rs) * (write price at T_last - read price)`, with
//! `Rs` the shared prefix still warm at `now` (§8.2), and the system prompt
//! and tools in place of `P_last` for a conversation Claude Code compacted
//! after its last request (`next_prompt`, v4), beside v2's
//! `P_last * (...)`. Hands on a session's premium and why it cannot be
//! resumed (`resumability`) to `report::resume`, which ranks the stale
//! sessions.

use super::classify::RequestCache;
use super::prefix::{shared_prefix, ResumePremium, WarmPrefixes};
use super::prices::rewrite_premium;
use crate::model::Request;
use crate::pricing::Rates;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Why a session cannot be resumed (cache-model §8.3 v3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotResumable {
    /// Its main transcript file no longer exists.
    TranscriptDeleted,
    /// Idle at least `cleanupPeriodDays`: Claude Code deletes it (or has).
    PastCleanup,
    /// Sub-agent requests only: no conversation to resume.
    NoMainThread,
    /// A team store's row: the session is a person's, on their machine.
    TeamMember,
}

impl NotResumable {
    /// A short label for a table cell.
    pub fn label(self) -> &'static str {
        match self {
            NotResumable::TranscriptDeleted => "transcript deleted",
            NotResumable::PastCleanup => "transcript due for deletion",
            NotResumable::NoMainThread => "no conversation",
            NotResumable::TeamMember => "a team member's",
        }
    }

    /// Why, as the end of a sentence ("This session cannot be resumed: ...").
    pub fn sentence(self) -> &'static str {
        match self {
            NotResumable::TranscriptDeleted => "its transcript was deleted (Claude Code removes old transcripts)",
            NotResumable::PastCleanup => {
                "it has been idle past Claude Code's cleanup period, which deletes its transcript"
            }
            NotResumable::NoMainThread => "it has no main conversation, only sub-agents",
            NotResumable::TeamMember => {
                "it is a team member's session, read from a bundle: only they can resume it, on their machine"
            }
        }
    }

    /// In words, for pages and the terminal.
    pub fn words(self, cleanup_days: u64) -> String {
        match self {
            NotResumable::TranscriptDeleted => "transcript deleted".to_owned(),
            NotResumable::PastCleanup => {
                format!(
                    "idle longer than Claude Code keeps transcripts ({})",
                    crate::model::format::plural(cleanup_days, "day", "days")
                )
            }
            NotResumable::NoMainThread => "no main conversation (sub-agents only)".to_owned(),
            NotResumable::TeamMember => "a team member's session: only they can resume it, on their machine".to_owned(),
        }
    }
}

/// Whether `user`'s session whose last main-thread request was at `last`
/// can be resumed here at `now` (§8.3): it is this machine's (no person
/// named: a team store's rows are their owners'), its transcript still
/// exists (`deleted` false) and it is idle less than `cleanup_days` days.
/// The one rule every view asks.
pub fn resumability(
    user: &str,
    last: DateTime<Utc>,
    now: DateTime<Utc>,
    cleanup_days: u64,
    deleted: bool,
) -> Option<NotResumable> {
    let days = i64::try_from(cleanup_days).unwrap_or(i64::MAX);
    let cleanup = chrono::TimeDelta::try_days(days).unwrap_or(chrono::TimeDelta::MAX);
    if !user.is_empty() {
        Some(NotResumable::TeamMember)
    } else if deleted {
        Some(NotResumable::TranscriptDeleted)
    } else if now - last >= cleanup {
        Some(NotResumable::PastCleanup)
    } else {
        None
    }
}

/// A session whose main-thread cache has expired.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StaleSession {
    pub session_id: String,
    /// Whose session (empty for local transcripts): a session id two people
    /// share is two sessions.
    pub user: String,
    /// From the caller's titles; empty when unknown.
    pub title: String,
    pub project: String,
    pub model: String,
    /// Cold-resume premium in USD (0 for an unknown model), v3: the warm
    /// shared prefix (`shared_prefix_tokens`) is read, not written.
    pub premium_usd: f64,
    /// The same premium as cache model v2 priced it (everything written
    /// again; the stored `resume_premium_usd`).
    pub premium_v2_usd: f64,
    /// `Rs`, the shared prefix warm at `now` (cache-model §8.2).
    pub shared_prefix_tokens: u64,
    /// What a warm cache would hold of the next message's prompt
    /// (`next_prompt`): `P_last`, or the system prompt and tools when
    /// `compacted_since`.
    pub prompt_tokens: u64,
    /// Claude Code compacted the conversation after its last request: the
    /// next message starts from the summary (cache-model §9 v4).
    pub compacted_since: bool,
    /// Time of the last main-thread request.
    pub last: DateTime<Utc>,
    /// `T_last`, the TTL of the last write.
    pub ttl_s: u32,
    /// Seconds from `last` to `now`.
    pub idle_s: f64,
    /// `last + ttl_s`: when the cache expires or expired.
    pub expires_at: DateTime<Utc>,
    /// `now <= expires_at`: the next message still reads the cache.
    pub warm: bool,
    /// Why it cannot be resumed (None: it can). Set by views that know
    /// Claude Code's settings and transcripts; stale lists hold resumable
    /// sessions only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_resumable: Option<NotResumable>,
}

impl StaleSession {
    /// The resume state of a session whose last main-thread request was at
    /// `last` with `ttl_s` in force after it, at `now` (cache-model §6):
    /// warm while `now - last <= ttl_s`. Every view calls this one rule.
    pub fn at(last: DateTime<Utc>, ttl_s: u32, now: DateTime<Utc>) -> (f64, DateTime<Utc>, bool) {
        let idle_s = (now - last).as_seconds_f64();
        let expires_at = last + chrono::TimeDelta::seconds(i64::from(ttl_s));
        (idle_s, expires_at, idle_s <= f64::from(ttl_s))
    }
}

/// The v2 cold-resume premium of a request with `ttl_s` in force after it,
/// at the rates it paid (`Basis::Request`): everything written again. What
/// the analysis stores (`resume_premium_usd`); `resume_premium` is v3.
pub fn cold_resume_premium(r: &Request, c: &RequestCache, ttl_s: u32) -> f64 {
    rewrite_premium(c.rates.as_ref(), r.tokens.prompt() as f64, ttl_s)
}

/// The cold-resume premium of a request with `ttl_s` in force after it, at
/// the rates it paid, with the shared prefix `warm` says is warm at the
/// moment (cache-model §6 v3, §8.2), beside v2's; `next` is the prompt a
/// warm cache would hold for the next message (`next_prompt`).
pub fn resume_premium(r: &Request, c: &RequestCache, ttl_s: u32, warm: &WarmPrefixes, next: u64) -> ResumePremium {
    let warm = warm.warm(&r.model, &r.version);
    cold_premium(c.rates.as_ref(), r.tokens.prompt(), next, c.lineage_first_read, warm, ttl_s)
}

/// What a warm cache would hold of the next message's prompt, the one rule
/// of every view (cache-model §8, §9 v4): the last prompt `P_last` (or
/// Claude Code's own count of it, `recache_tokens_if_cold`); or, when
/// Claude Code compacted the conversation after its last request
/// (`compacted_base`: the project's base context `Bc`), the system prompt
/// and tools alone, which the last lineage's first request read from
/// another conversation's cache (`first_read`), at most `B = min(Bc,
/// P_last)`, or `B` when it read none: the summary after them is new.
pub fn next_prompt(p_last: u64, first_read: u64, compacted_base: Option<f64>) -> u64 {
    let Some(bc) = compacted_base else { return p_last };
    let b = p_last.min(bc.max(0.0).round() as u64);
    if first_read > 0 {
        first_read.min(b)
    } else {
        b
    }
}

/// The cold-resume premium (§6 v3, §8.2) of a next message holding
/// `next` tokens a warm cache would read, after a last request of `p_last`
/// whose lineage first read `first_read`, with `ttl_s` in force, at
/// `rates`; `prefix_warm`: a request of its model and version came within
/// the hour, so the shared prefix is read. v2's figure is `P_last` written
/// again, as the analysis stores it.
pub fn cold_premium(
    rates: Option<&Rates>,
    p_last: u64,
    next: u64,
    first_read: u64,
    prefix_warm: bool,
    ttl_s: u32,
) -> ResumePremium {
    let rs = shared_prefix(first_read, next, prefix_warm);
    ResumePremium {
        premium_v2_usd: rewrite_premium(rates, p_last as f64, ttl_s),
        ..ResumePremium::of(rates, next, rs, ttl_s)
    }
}

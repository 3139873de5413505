//! The dashboard's "Now" panel: the sessions active in the last two hours
//! (warm or cold at `now`, when the cache expires or expired, the
//! cold-resume premium, what Claude Code will do on resume), the current
//! 5-hour block with its projection, and the plan-limit use the status line
//! last recorded with its dollars-per-percent estimate. Pure over the cache
//! data and the samples; the clock comes in as an argument.

use super::blocks::{self, Block};
use super::cache::CacheData;
use crate::analyze::{cold_resume_premium, fmt_usd};
use crate::model::MAIN_THREAD;
use crate::statusline::limits::{self, LimitEstimate, Priced, Sample, WindowKind};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// Sessions whose last main-thread request is at most this old are listed.
pub const ACTIVE_WITHIN: Duration = Duration::hours(2);
/// Claude Code asks before resuming a session whose prompt exceeds this...
pub const RESUME_DIALOG_TOKENS: u64 = 100_000;
/// ...after this much idle time (cache-model v2 §7).
pub const RESUME_DIALOG_IDLE_S: i64 = 3600;
/// Claude Code compacts an idle session with a prompt of at least this...
pub const IDLE_COMPACTION_TOKENS: u64 = 200_000;
/// ...this long after its last request, when its cache TTL is one hour.
pub const IDLE_COMPACTION_AFTER_S: i64 = 3240;

/// What Claude Code will do when the session is picked up again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClaudeCodeFlags {
    /// It will ask "Resume from summary" (compact) or "Resume full session as-is".
    pub resume_dialog: bool,
    /// It will compact the session by itself at this time.
    pub idle_compaction_at: Option<DateTime<Utc>>,
}

/// Cache-model v2 §7's two flags, from the last main-thread request alone.
pub fn claude_code_flags(prompt: u64, last: DateTime<Utc>, ttl_s: u32, now: DateTime<Utc>) -> ClaudeCodeFlags {
    let at = last + Duration::seconds(IDLE_COMPACTION_AFTER_S);
    ClaudeCodeFlags {
        resume_dialog: prompt > RESUME_DIALOG_TOKENS && (now - last).num_seconds() > RESUME_DIALOG_IDLE_S,
        idle_compaction_at: (prompt >= IDLE_COMPACTION_TOKENS && ttl_s == 3600 && now <= at).then_some(at),
    }
}

/// One recently active session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NowSession {
    pub session_id: String,
    pub title: String,
    pub last: DateTime<Utc>,
    pub ttl_s: u32,
    pub warm: bool,
    pub expires_at: DateTime<Utc>,
    pub prompt_tokens: u64,
    pub premium_usd: f64,
    pub claude_code: ClaudeCodeFlags,
}

/// The panel.
#[derive(Debug, Clone, PartialEq)]
pub struct NowPanel {
    pub now: DateTime<Utc>,
    /// Most recent first.
    pub sessions: Vec<NowSession>,
    pub block: Option<Block>,
    /// The last recorded 5-hour use, when any.
    pub five_hour: Option<Sample>,
    pub estimate: LimitEstimate,
}

/// The panel at `now` over `data` and the status line's `samples`.
pub fn now_panel(data: &CacheData, samples: &[Sample], now: DateTime<Utc>) -> NowPanel {
    let mut latest: HashMap<&str, usize> = HashMap::new();
    for (i, r) in data.requests.iter().enumerate() {
        if r.thread.as_str() != MAIN_THREAD || r.time > now || now - r.time > ACTIVE_WITHIN {
            continue;
        }
        let e = latest.entry(r.session_id.as_str()).or_insert(i);
        if data.requests[*e].time < r.time {
            *e = i;
        }
    }
    let mut sessions: Vec<NowSession> = latest
        .into_values()
        .map(|i| {
            let (r, c) = (&data.requests[i], &data.caches[i]);
            let expires_at = r.time + Duration::seconds(i64::from(c.ttl_after_s));
            NowSession {
                session_id: r.session_id.to_string(),
                title: data.titles.get(r.session_id.as_str()).cloned().unwrap_or_default(),
                last: r.time,
                ttl_s: c.ttl_after_s,
                warm: now <= expires_at,
                expires_at,
                prompt_tokens: r.tokens.prompt(),
                premium_usd: cold_resume_premium(r, c, c.ttl_after_s),
                claude_code: claude_code_flags(r.tokens.prompt(), r.time, c.ttl_after_s, now),
            }
        })
        .collect();
    sessions.sort_by(|a, b| b.last.cmp(&a.last).then_with(|| a.session_id.cmp(&b.session_id)));
    let recent: Vec<_> = data.requests.iter().filter(|r| r.time <= now && now - r.time <= blocks::BLOCK * 2).collect();
    let block = blocks::blocks(&recent, now).into_iter().rev().find(|b| b.active);
    let five_hour = samples.iter().filter(|s| s.five_hour.is_some() && s.time <= now).max_by_key(|s| s.time).cloned();
    NowPanel { now, sessions, block, five_hour, estimate: five_hour_estimate(data, samples) }
}

/// What 1% of the 5-hour window costs, from `samples` and every request.
pub fn five_hour_estimate(data: &CacheData, samples: &[Sample]) -> LimitEstimate {
    let priced: Vec<Priced> = data
        .requests
        .iter()
        .map(|r| Priced { time: r.time, cost_usd: r.cost_usd, tokens: r.tokens.prompt() + r.tokens.output })
        .collect();
    limits::estimate(samples, &priced, WindowKind::FiveHour)
}

/// The cold-resume premium of a session's last main-thread request.
pub fn cold_resume_usd(data: &CacheData, session_id: &str) -> Option<f64> {
    let i = (0..data.requests.len())
        .filter(|&i| data.requests[i].session_id == *session_id && data.requests[i].thread.as_str() == MAIN_THREAD)
        .max_by_key(|&i| data.requests[i].time)?;
    let c = &data.caches[i];
    Some(cold_resume_premium(&data.requests[i], c, c.ttl_after_s))
}

/// The plan-limit lines of `advise`.
pub struct PlanLimits {
    pub estimate: LimitEstimate,
    pub cold_resume_usd: Option<f64>,
}

impl PlanLimits {
    /// The cold resume as a share of the 5-hour window, when both are known.
    pub fn cold_resume_pct(&self) -> Option<f64> {
        let per = self.estimate.usd_per_pct.filter(|p| *p > 0.0)?;
        Some(self.cold_resume_usd? / per)
    }

    /// `{"five_hour": estimate, "cold_resume_five_hour_pct": N|null}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "five_hour": self.estimate, "cold_resume_five_hour_pct": self.cold_resume_pct() })
    }

    /// One sentence for the terminal.
    pub fn sentence(&self) -> String {
        let e = &self.estimate;
        match (self.cold_resume_pct(), e.usd_per_pct, e.spread_usd_per_pct) {
            (Some(pct), Some(per), Some([lo, hi])) => format!(
                "Plan limits: a cold resume now uses about {pct:.1}% of your 5-hour window \
(1% is about {} at list price; {} intervals, {}-{}).",
                fmt_usd(per),
                e.intervals,
                fmt_usd(lo),
                fmt_usd(hi)
            ),
            _ => format!("Plan limits: {}.", e.note.as_deref().unwrap_or("no estimate")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn claude_code_flags_at_their_edges() {
        let last = Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap();
        let s = |x: i64| last + Duration::seconds(x);
        assert!(!claude_code_flags(100_001, last, 3600, s(3600)).resume_dialog, "idle must exceed 3600 s");
        assert!(claude_code_flags(100_001, last, 3600, s(3601)).resume_dialog);
        assert!(!claude_code_flags(100_000, last, 3600, s(9000)).resume_dialog, "prompt must exceed 100,000");
        assert_eq!(claude_code_flags(200_000, last, 3600, s(3240)).idle_compaction_at, Some(s(3240)));
        assert_eq!(claude_code_flags(200_000, last, 3600, s(3241)).idle_compaction_at, None);
        assert_eq!(claude_code_flags(199_999, last, 3600, s(10)).idle_compaction_at, None);
        assert_eq!(claude_code_flags(300_000, last, 300, s(10)).idle_compaction_at, None, "5-minute TTL");
    }
}

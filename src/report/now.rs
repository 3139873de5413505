//! The dashboard's "Now" panel: the sessions active in the last two hours
//! (warm or cold at `now`, when the cache expires or expired, the
//! cold-resume premium, what Claude Code will do on resume), the current
//! 5-hour block with its projection, and the plan-limit use the status line
//! last recorded with its dollars-per-percent estimate. The premium is the
//! status line's: Claude Code's own count of the prompt a cold message
//! re-caches when the status line recorded one after the last request,
//! else the last request's prompt. Pure over the sessions' stored rows and
//! verdicts and the samples; the clock comes in as an argument.

use super::blocks::{self, Block};
use super::stored_rows::StoredRows;
use crate::analyze::limits::{self, LimitEstimate, Priced};
use crate::analyze::{claude_code, resume_premium, ClaudeCode, StaleSession};
use crate::model::format::usd;
use crate::model::limits::{LiveCache, Sample, WindowKind};
use crate::model::MAIN_THREAD;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use std::collections::HashMap;

/// Sessions whose last main-thread request is at most this old are listed.
pub const ACTIVE_WITHIN: Duration = Duration::hours(2);
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
    /// `prompt_tokens` is Claude Code's count (`recache_tokens_if_cold`);
    /// else it is the stored rows' `next_prompt`.
    pub counted_by_claude_code: bool,
    pub premium_usd: f64,
    /// What Claude Code will do on resume (cache-model v2 §7).
    pub claude_code: ClaudeCode,
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

/// The panel at `now` over `data` and the status line's `samples` and
/// `live` readings of Claude Code's `prompt_cache`.
pub fn now_panel(
    data: &StoredRows,
    priced: &[Priced],
    samples: &[Sample],
    live: &[LiveCache],
    now: DateTime<Utc>,
) -> NowPanel {
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
            let (_, expires_at, warm) = StaleSession::at(r.time, c.ttl_after_s, now);
            let told = reading(live, r.session_id.as_str(), r.time, now);
            let counted = told.and_then(|l| l.recache_tokens);
            let prompt_tokens = counted.unwrap_or_else(|| data.next_prompt(i));
            let premium_ttl = told.and_then(|l| l.ttl_s).unwrap_or(c.ttl_after_s);
            NowSession {
                session_id: r.session_id.to_string(),
                title: data.titles.get(r.session_id.as_str()).cloned().unwrap_or_default(),
                last: r.time,
                ttl_s: c.ttl_after_s,
                warm,
                expires_at,
                prompt_tokens,
                counted_by_claude_code: counted.is_some(),
                premium_usd: resume_premium(r, c, premium_ttl, &data.prefixes, prompt_tokens).premium_usd,
                claude_code: claude_code(r, c.ttl_after_s, &data.compactions, now),
            }
        })
        .collect();
    sessions.sort_by(|a, b| b.last.cmp(&a.last).then_with(|| a.session_id.cmp(&b.session_id)));
    let recent: Vec<_> = data.requests.iter().filter(|r| r.time <= now && now - r.time <= blocks::BLOCK * 2).collect();
    let block = blocks::blocks(&recent, now).into_iter().rev().find(|b| b.active);
    let five_hour = samples.iter().filter(|s| s.five_hour.is_some() && s.time <= now).max_by_key(|s| s.time).cloned();
    NowPanel { now, sessions, block, five_hour, estimate: limits::estimate(samples, priced, WindowKind::FiveHour) }
}

/// The status line's latest reading of Claude Code's `prompt_cache` for
/// `session` between its last request (`since`) and `now`.
fn reading<'a>(
    live: &'a [LiveCache],
    session: &str,
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<&'a LiveCache> {
    live.iter().filter(|l| l.session_id == session && l.time >= since && l.time <= now).max_by_key(|l| l.time)
}

/// The cold-resume premium (v3) of a session's last main-thread request.
pub fn cold_resume_usd(data: &StoredRows, session_id: &str) -> Option<f64> {
    let i = (0..data.requests.len())
        .filter(|&i| data.requests[i].session_id == *session_id && data.requests[i].thread.as_str() == MAIN_THREAD)
        .max_by_key(|&i| data.requests[i].time)?;
    let c = &data.caches[i];
    Some(resume_premium(&data.requests[i], c, c.ttl_after_s, &data.prefixes, data.next_prompt(i)).premium_usd)
}

/// The plan-limit lines of `advise`.
pub struct LimitUse {
    pub estimate: LimitEstimate,
    pub cold_resume_usd: Option<f64>,
}

impl LimitUse {
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
                usd(per),
                e.intervals,
                usd(lo),
                usd(hi)
            ),
            _ => format!("Plan limits: {}.", e.note.as_deref().unwrap_or("no estimate")),
        }
    }
}

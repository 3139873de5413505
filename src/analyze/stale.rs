//! Stale sessions (cache-model §6): a session's main thread is stale at
//! `now` when `now - t_last > T_last`; its cold-resume premium is what the
//! next message pays because the cache expired,
//! `P_last * (write price at T_last - read price)` at the last request's rates.
//! Hands on the stale sessions ranked by premium, for the summary.

use super::classify::RequestCache;
use super::prices::rewrite_premium;
use super::threads::last_main;
use crate::model::Request;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::HashMap;

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
    /// Cold-resume premium in USD (0 for an unknown model).
    pub premium_usd: f64,
    /// `P_last`, the prompt the next message re-writes.
    pub prompt_tokens: u64,
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

/// The cold-resume premium of a request with `ttl_s` in force after it, at
/// the rates it paid (`Basis::Request`, cache-model §4 v2).
pub fn cold_resume_premium(r: &Request, c: &RequestCache, ttl_s: u32) -> f64 {
    rewrite_premium(c.rates.as_ref(), r.tokens.prompt() as f64, ttl_s)
}

/// The stale sessions at `now`, highest premium first (ties by session id).
pub fn stale_sessions(
    requests: &[Request],
    caches: &[RequestCache],
    now: DateTime<Utc>,
    titles: &HashMap<String, String>,
) -> Vec<StaleSession> {
    let mut out: Vec<StaleSession> = last_main(requests)
        .into_iter()
        .filter_map(|((user, sid), i)| {
            let (r, c) = (&requests[i], &caches[i]);
            let ttl_s = c.ttl_after_s;
            let (idle_s, expires_at, warm) = StaleSession::at(r.time, ttl_s, now);
            (!warm).then(|| StaleSession {
                session_id: sid.to_string(),
                user: user.to_string(),
                title: titles.get(sid).cloned().unwrap_or_default(),
                project: r.project.to_string(),
                model: r.model.to_string(),
                premium_usd: cold_resume_premium(r, c, ttl_s),
                prompt_tokens: r.tokens.prompt(),
                last: r.time,
                ttl_s,
                idle_s,
                expires_at,
                warm,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.premium_usd.total_cmp(&a.premium_usd).then_with(|| (&a.session_id, &a.user).cmp(&(&b.session_id, &b.user)))
    });
    out
}

//! The shared prefix `Rs` (cache-model §8.2 v3): the system prompt and tool
//! definitions open every request of a model and Claude Code version, so
//! that prefix stays warm while any conversation uses it, for up to an hour.
//! A thread's `Rs` at a moment is what its current lineage read when it
//! started (at most its prompt), while some request of the same model and
//! version (any thread, any session) came within the hour before; else 0.
//! A cold resume then rewrites `P - Rs`, a restart `Bc - min(Bc, Rs)`.
//! Hands on `Rs`, the v3 resume premium beside v2's, and the set of model
//! and version pairs whose prefix is warm at a moment.

use crate::pricing::{rewrite_premium, Rates};
use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use std::collections::HashSet;

/// How long the shared prefix stays warm after a request that used it.
pub const SHARED_PREFIX_WINDOW_S: i64 = 3600;

/// True when a request at `t` keeps the shared prefix of its model and
/// version warm at `at`: `at - 1 h <= t < at` (as the what-if's flags).
pub fn warms_at(t: DateTime<Utc>, at: DateTime<Utc>) -> bool {
    t < at && at - TimeDelta::seconds(SHARED_PREFIX_WINDOW_S) <= t
}

/// `Rs`: the lineage's first read, at most `prompt`, when the prefix is
/// `warm`; else 0.
pub fn shared_prefix(lineage_first_read: u64, prompt: u64, warm: bool) -> u64 {
    if warm {
        lineage_first_read.min(prompt)
    } else {
        0
    }
}

/// The (model, version) pairs whose shared prefix is warm at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarmPrefixes {
    pub at: DateTime<Utc>,
    pairs: HashSet<(String, String)>,
}

impl WarmPrefixes {
    /// From the (model, version, time) of requests; those that do not
    /// warm `at` are skipped.
    pub fn of<'a>(rows: impl IntoIterator<Item = (&'a str, &'a str, DateTime<Utc>)>, at: DateTime<Utc>) -> Self {
        let pairs = rows
            .into_iter()
            .filter(|(_, _, t)| warms_at(*t, at))
            .map(|(m, v, _)| (m.to_owned(), v.to_owned()))
            .collect();
        WarmPrefixes { at, pairs }
    }

    /// True when a request of `model` and `version` came within the hour
    /// before `at`.
    pub fn warm(&self, model: &str, version: &str) -> bool {
        self.pairs.contains(&(model.to_owned(), version.to_owned()))
    }
}

/// A cold resume's cost both ways: v3 (the shared prefix is read, not
/// written) and v2 (everything is written again).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ResumePremium {
    /// v3: `(P_last - Rs) * (write price at T_last - read price)`.
    pub premium_usd: f64,
    /// v2: `P_last * (write price at T_last - read price)` (the stored
    /// `resume_premium_usd`).
    pub premium_v2_usd: f64,
    /// `Rs`, the warm shared prefix the v3 figure leaves out.
    pub shared_prefix_tokens: u64,
}

impl ResumePremium {
    /// The premium of a prompt of `prompt` tokens with `ttl_s` in force,
    /// whose warm shared prefix is `rs`, at `rates`.
    pub fn of(rates: Option<&Rates>, prompt: u64, rs: u64, ttl_s: u32) -> ResumePremium {
        let rs = rs.min(prompt);
        ResumePremium {
            premium_usd: rewrite_premium(rates, (prompt - rs) as f64, ttl_s),
            premium_v2_usd: rewrite_premium(rates, prompt as f64, ttl_s),
            shared_prefix_tokens: rs,
        }
    }
}

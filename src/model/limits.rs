//! Plan-limit readings as the status line records them: one `Sample` per
//! `rate_limits` reading Claude Code pipes to it (the store keeps them in
//! `store::samples`; `analyze::limits` estimates from them what 1% of a
//! window costs).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One plan-limit window as Claude Code reports it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// `used_percentage`, 0 to 100.
    pub used_pct: f64,
    /// `resets_at`, epoch seconds.
    pub resets_at: Option<i64>,
}

/// One `rate_limits` reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub time: DateTime<Utc>,
    pub session_id: String,
    pub five_hour: Option<Window>,
    pub seven_day: Option<Window>,
}

/// Which plan window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum WindowKind {
    #[serde(rename = "five_hour")]
    FiveHour,
    #[serde(rename = "seven_day")]
    SevenDay,
}

impl WindowKind {
    /// This window's reading in `s`.
    pub fn of(self, s: &Sample) -> Option<Window> {
        match self {
            WindowKind::FiveHour => s.five_hour,
            WindowKind::SevenDay => s.seven_day,
        }
    }
}

/// One status-line call's `prompt_cache` (Claude Code's own verdict on the
/// session's cache) beside cachewise's verdict from the transcript: what
/// `cache --json`'s `live_agreement` counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveCache {
    pub time: DateTime<Utc>,
    pub session_id: String,
    /// `prompt_cache.warm`.
    pub warm: bool,
    /// cachewise's own warm/cold verdict from the transcript (None: it had
    /// no request to judge by).
    pub cachewise_warm: Option<bool>,
    /// `prompt_cache.ttl` in seconds.
    pub ttl_s: Option<u32>,
    /// `prompt_cache.expires_at`, epoch seconds.
    pub expires_at: Option<i64>,
    /// `prompt_cache.recache_tokens_if_cold`.
    pub recache_tokens: Option<u64>,
}

/// Samples for the tests of the modules that store and read them.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Sample, Window};
    use chrono::{DateTime, Duration, TimeZone, Utc};

    /// `min` minutes after 2026-11-30 10:00 UTC.
    pub(crate) fn t(min: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap() + Duration::minutes(min)
    }

    /// A 5-hour window at `pct`, resetting at epoch second `reset`, seen at `t(min)`.
    pub(crate) fn sample(min: i64, pct: f64, reset: i64) -> Sample {
        let w = Window { used_pct: pct, resets_at: Some(reset) };
        Sample { time: t(min), session_id: "s".into(), five_hour: Some(w), seven_day: None }
    }
}

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

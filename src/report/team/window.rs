//! The days a team report covers: `--since`/`--until`, else the first and
//! last day of the data, and whether the flags set them (a report over all
//! history is rarely what a pilot lead means).

use super::PersonDay;
use crate::report::query::Query;
use chrono::NaiveDate;
use serde::Serialize;

/// The days the report covers (from --since/--until, else the data).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Window {
    pub first_day: Option<NaiveDate>,
    pub last_day: Option<NaiveDate>,
    pub days: u64,
    /// True when --since or --until set it (else it is the data's span).
    pub given: bool,
}

/// A window longer than this without --since/--until gets a warning: a
/// pilot is usually weeks, and all history is rarely what a lead means.
pub const PILOT_DAYS: u64 = 31;

/// The window of `q`, or of the person days when `q` sets no day.
pub(super) fn window(q: &Query, days: &[PersonDay]) -> Window {
    let parse = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
    let first = q.since.or_else(|| days.iter().filter_map(|d| parse(&d.day)).min());
    let last = q.until.or_else(|| days.iter().filter_map(|d| parse(&d.day)).max());
    let days = match (first, last) {
        (Some(f), Some(l)) if l >= f => (l - f).num_days() as u64 + 1,
        _ => 0,
    };
    Window { first_day: first, last_day: last, days, given: q.since.is_some() || q.until.is_some() }
}

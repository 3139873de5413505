//! A chart over the page's days: one bar per day, week or month from the
//! range's first day (or the first with data) to its last, every period
//! drawn, so the time axis is to scale; and the chart's heading, which says
//! what it plots over which days.

use crate::web::range::{by_period, Range};
use chrono::NaiveDate;

/// Bar labels and values of `rows` (a day and its values) over the range.
pub fn chart_periods(range: &Range, rows: Vec<(NaiveDate, Vec<f64>)>) -> (Vec<String>, Vec<Vec<f64>>) {
    let first = rows.iter().map(|(d, _)| *d).min();
    let last = rows.iter().map(|(d, _)| *d).max();
    let (Some(first), Some(last)) = (first.or(range.since), last.or(range.until)) else {
        return (Vec::new(), Vec::new());
    };
    let periods = range.periods(first, last);
    let values = by_period(range, &periods, rows);
    (periods, values)
}

/// `Cost per week (from Monday), the last 30 days (2026-11-01 to 2026-11-30)`; for all
/// time, the first and last period drawn.
pub fn period_heading(what: &str, range: &Range, labels: &[String]) -> String {
    let per = range.by_words(range.by);
    let span = if range.is_all() {
        match (labels.first(), labels.last()) {
            (Some(a), Some(b)) if a != b => format!("all time ({a} to {b})"),
            (Some(a), _) => format!("all time ({a})"),
            _ => "all time".to_owned(),
        }
    } else {
        range.words()
    };
    format!("{what} {per}, {span}")
}

//! The summary `cachewise` prints without a subcommand: spend today, in the
//! last 7 and 30 days, the top sessions by cost, and how fresh the data is.

use super::calls::CallTotals;
use super::query::{Grouping, Query};
use super::usage::render::calls_line;
use super::usage::{usage, Totals, UsageReport, UsageRow};
use super::ReportError;
use crate::model::format::{local_stamp, thousands, usd};
use crate::pricing::Estimate;
use crate::store::view::StoreView;
use chrono::{DateTime, Days, NaiveDate, Utc};

/// The summary's figures.
#[derive(Debug, Clone)]
pub struct Summary {
    pub today: Totals,
    pub last_7: Totals,
    pub last_30: Totals,
    pub all_time: Totals,
    pub top_sessions: Vec<UsageRow>,
    /// Advisor calls and refused attempts of the last 30 days.
    pub calls_30: CallTotals,
    /// When the store last changed, to the second, in the query's zone.
    pub updated: Option<String>,
    /// The local days of the oldest and the newest request, and today.
    pub first_used: Option<NaiveDate>,
    pub last_used: Option<NaiveDate>,
    pub today_date: NaiveDate,
    /// The zone the days are in.
    pub tz: chrono_tz::Tz,
    pub unknown_models: Vec<String>,
    pub estimated_models: Vec<Estimate>,
    /// What Claude Code's settings and transcripts warn about
    /// (`cleanupPeriodDays` 0, transcripts about to be deleted unread).
    pub warnings: Vec<String>,
}

/// Builds the summary as of the view's clock, with days in `q.tz`.
pub fn summary(view: &StoreView, q: &Query) -> Result<Summary, ReportError> {
    let daily = usage(view, Grouping::Daily, q)?;
    let sessions = usage(view, Grouping::Session, &last_30_days(q, view.now()))?;
    Ok(summary_of(view, &daily, sessions, q))
}

/// `q` narrowed to the 30 days up to `now`: the summary's session query.
pub fn last_30_days(q: &Query, now: DateTime<Utc>) -> Query {
    let today = now.with_timezone(&q.tz).date_naive();
    Query { since: today.checked_sub_days(Days::new(29)), ..q.clone() }
}

/// The summary from the daily report of `q` and the session report of
/// `last_30_days(q)` (a caller that has them already).
pub fn summary_of(view: &StoreView, daily: &UsageReport, sessions: UsageReport, q: &Query) -> Summary {
    let today = view.now().with_timezone(&q.tz).date_naive();
    let since = |days: u64| today.checked_sub_days(Days::new(days)).unwrap_or(today).format("%Y-%m-%d").to_string();
    let sum_since = |from: String| daily.rows.iter().filter(|r| r.key >= from).map(|r| r.totals).sum::<Totals>();
    Summary {
        today: sum_since(since(0)),
        last_7: sum_since(since(6)),
        last_30: sum_since(since(29)),
        all_time: daily.total,
        calls_30: sessions.calls,
        top_sessions: sessions.rows.into_iter().take(5).collect(),
        updated: view.manifest().updated.as_deref().map(|u| local_stamp(u, q.tz)),
        first_used: daily.rows.iter().map(|r| r.first).min().map(|t| t.with_timezone(&q.tz).date_naive()),
        last_used: daily.rows.iter().map(|r| r.last).max().map(|t| t.with_timezone(&q.tz).date_naive()),
        today_date: today,
        tz: q.tz,
        unknown_models: daily.unknown_models.clone(),
        estimated_models: daily.estimated_models.clone(),
        warnings: view.claude().warnings(),
    }
}

/// The summary as terminal text.
pub fn render(s: &Summary) -> String {
    let line = |label: &str, t: &Totals, days: String| {
        format!("{label:<10} {:>12}  {:>8} requests  {days}\n", usd(t.cost_usd), thousands(t.requests))
    };
    let today = s.today_date;
    let since = |n: u64| format!("{} to {today}", today.checked_sub_days(Days::new(n)).unwrap_or(today));
    let all = match (s.first_used, s.last_used) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a} to {b}"),
        _ => String::new(),
    };
    let mut out = String::new();
    for w in &s.warnings {
        out += &format!("Warning: {w}\n");
    }
    out += "Claude Code spend (list prices, from transcripts)\n";
    out += &line("today", &s.today, today.to_string());
    out += &line("7 days", &s.last_7, since(6));
    out += &line("30 days", &s.last_30, since(29));
    out += &line("all time", &s.all_time, all);
    if !s.calls_30.is_empty() {
        out += &format!("30 days include {}", calls_line(&s.calls_30));
    }
    if !s.top_sessions.is_empty() {
        out += "\nTop sessions, last 30 days:\n";
        for r in &s.top_sessions {
            let (first, last) = (r.first.with_timezone(&s.tz).date_naive(), r.last.with_timezone(&s.tz).date_naive());
            let path = r.project_path.as_deref().unwrap_or(&r.project);
            let name = super::labels::session_name(&r.title, &r.key, path, first);
            let title = super::cell::shorten(&super::cell::term(&name), 60);
            out += &format!("  {:>10}  {last}  {title}\n", usd(r.totals.cost_usd));
        }
    }
    if let (0, Some(day)) = (s.last_30.requests, s.last_used) {
        let ago = (s.today_date - day).num_days();
        out += &format!(
            "\nNothing in the last 30 days: Claude Code was last used on {day} ({ago} {} ago). \
`cachewise report daily --since {}` shows that time.\n",
            if ago == 1 { "day" } else { "days" },
            day.checked_sub_days(Days::new(29)).unwrap_or(day).format("%Y%m%d")
        );
    }
    match &s.updated {
        Some(u) => out += &format!("\nData last changed {u}. `cachewise report daily` for more.\n"),
        None => out += "\nNo data ingested yet.\n",
    }
    if !s.unknown_models.is_empty() {
        out += &format!("Unknown models (priced at $0): {}\n", super::cell::term(&s.unknown_models.join(", ")));
    }
    if let Some(note) = Estimate::note(&s.estimated_models) {
        out += &format!("{}\n", super::cell::term(&note));
    }
    out
}

//! The session list of the dashboard (`/sessions`): one row per row of
//! the session report (`report session`, with the cache columns of
//! `report::cache::rows::annotate_sessions`: cost, requests, misses, idle cost,
//! peak prompt), marked stale from the stale list and with the models the
//! requests used. Then filtering (text, project, model, date range),
//! sorting and paging, so a page of 100k sessions costs one pass over rows
//! already built.

use crate::model::TokenCounts;
use crate::report::calls::CallTotals;
use crate::report::query::model_id;
use crate::report::usage::models::SessionModels;
use crate::report::usage::UsageReport;
use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use std::collections::HashMap;

/// One session, as the table shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRow {
    pub session_id: String,
    pub title: String,
    pub project: String,
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    /// Local days of `first` and `last`, for date filters.
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    /// Models used, most requests first, fast mode apart (`MODEL (fast)`);
    /// then models only calls inside responses used (an advisor).
    pub models: Vec<String>,
    pub requests: u64,
    pub tokens: TokenCounts,
    pub cost_usd: f64,
    /// Largest prompt (`in + w + r`) of any request.
    pub peak_prompt: u64,
    /// Cache misses of any cause.
    pub misses: u64,
    /// Miss cost of TTL expiries.
    pub idle_cost_usd: f64,
    /// Cold-resume premium when the session is stale now.
    pub stale_premium_usd: Option<f64>,
    /// The main conversation's cache is warm now; None for a session with
    /// sub-agent requests only.
    pub warm: Option<bool>,
    /// Why it cannot be resumed (None: it can, or has no main conversation).
    pub not_resumable: Option<crate::analyze::NotResumable>,
    /// Advisor calls, fallback calls and refused attempts (count and cost).
    pub calls: CallTotals,
}

/// Builds one row per session of `sessions` (a `Grouping::Session` report
/// annotated by `annotate_sessions`), in its order (cost, highest first).
/// A model only calls inside responses used (an advisor) comes last.
pub fn session_rows(sessions: &UsageReport, models_of: &HashMap<String, Vec<String>>, tz: Tz) -> Vec<SessionRow> {
    let day = |t: DateTime<Utc>| t.with_timezone(&tz).date_naive();
    sessions
        .rows
        .iter()
        .map(|u| {
            let c = u.cache.unwrap_or_default();
            SessionRow {
                session_id: u.key.clone(),
                title: u.title.clone(),
                project: u.project.clone(),
                first: u.first,
                last: u.last,
                first_day: day(u.first),
                last_day: day(u.last),
                models: models(u.used.as_ref(), models_of.get(u.key.as_str())),
                requests: u.totals.requests,
                tokens: u.totals.tokens,
                cost_usd: u.totals.cost_usd,
                peak_prompt: c.peak_prompt,
                misses: c.misses,
                idle_cost_usd: c.idle_cost_usd,
                stale_premium_usd: match (c.warm, c.not_resumable) {
                    (Some(false), None) => c.cold_resume_usd,
                    _ => None,
                },
                warm: c.warm,
                not_resumable: c.not_resumable,
                calls: u.calls.unwrap_or_default(),
            }
        })
        .collect()
}

/// A session's model labels from the report (fast mode apart), then the
/// stored list's models (with those of calls inside responses) that are
/// not among them.
fn models(used: Option<&SessionModels>, stored: Option<&Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = used.map(|u| u.names.clone()).unwrap_or_default();
    for m in stored.into_iter().flatten() {
        if !out.iter().any(|x| model_id(x) == m) {
            out.push(m.clone());
        }
    }
    out
}

/// Which sessions a table shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionFilter {
    /// Case-insensitive text in the title or session id.
    pub q: Option<String>,
    /// Text in the project directory name.
    pub project: Option<String>,
    /// Exact model id among the session's models (fast mode or not).
    pub model: Option<String>,
    /// Sessions active on or after this local day.
    pub since: Option<NaiveDate>,
    /// Sessions active on or before this local day.
    pub until: Option<NaiveDate>,
}

impl SessionFilter {
    /// True when the row passes every filter set.
    pub fn accepts(&self, r: &SessionRow) -> bool {
        let q_ok = self.q.as_ref().is_none_or(|q| {
            let q = q.to_lowercase();
            r.title.to_lowercase().contains(&q) || r.session_id.to_lowercase().contains(&q)
        });
        q_ok && self.project.as_ref().is_none_or(|p| r.project.contains(p.as_str()))
            && self.model.as_ref().is_none_or(|m| r.models.iter().any(|x| x == m || model_id(x) == m))
            && self.since.is_none_or(|s| r.last_day >= s)
            && self.until.is_none_or(|u| r.first_day <= u)
    }
}

/// The column a table is sorted by (descending unless `ascending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionSort {
    #[default]
    Cost,
    Requests,
    Peak,
    Misses,
    Idle,
    Last,
    Stale,
}

impl SessionSort {
    /// Every sort key with its URL name.
    pub const ALL: [(SessionSort, &'static str); 7] = [
        (SessionSort::Cost, "cost"),
        (SessionSort::Requests, "requests"),
        (SessionSort::Peak, "peak"),
        (SessionSort::Misses, "misses"),
        (SessionSort::Idle, "idle"),
        (SessionSort::Last, "last"),
        (SessionSort::Stale, "stale"),
    ];

    /// Parses a URL name.
    pub fn parse(s: &str) -> Option<SessionSort> {
        SessionSort::ALL.iter().find(|(_, n)| *n == s).map(|(k, _)| *k)
    }

    /// The URL name.
    pub fn name(self) -> &'static str {
        SessionSort::ALL.iter().find(|(k, _)| *k == self).map_or("cost", |(_, n)| n)
    }

    fn compare(self, a: &SessionRow, b: &SessionRow) -> std::cmp::Ordering {
        match self {
            SessionSort::Cost => a.cost_usd.total_cmp(&b.cost_usd),
            SessionSort::Requests => a.requests.cmp(&b.requests),
            SessionSort::Peak => a.peak_prompt.cmp(&b.peak_prompt),
            SessionSort::Misses => a.misses.cmp(&b.misses),
            SessionSort::Idle => a.idle_cost_usd.total_cmp(&b.idle_cost_usd),
            SessionSort::Last => a.last.cmp(&b.last),
            SessionSort::Stale => a.stale_premium_usd.unwrap_or(-1.0).total_cmp(&b.stale_premium_usd.unwrap_or(-1.0)),
        }
    }
}

/// One page of a filtered, sorted table.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionListPage {
    pub rows: Vec<SessionRow>,
    /// Rows passing the filter, over all pages.
    pub matching: usize,
    /// 1-based page number shown.
    pub page: usize,
    pub pages: usize,
    /// Cost and requests of every matching row.
    pub matching_cost_usd: f64,
    pub matching_requests: u64,
}

/// Filters, sorts (ties by session id) and cuts page `page` (1-based,
/// clamped to the last page) of `per_page` rows.
pub fn session_page(
    rows: &[SessionRow],
    filter: &SessionFilter,
    sort: SessionSort,
    ascending: bool,
    page: usize,
    per_page: usize,
) -> SessionListPage {
    let mut hits: Vec<&SessionRow> = rows.iter().filter(|r| filter.accepts(r)).collect();
    hits.sort_by(|a, b| {
        let o = sort.compare(a, b);
        let o = if ascending { o } else { o.reverse() };
        o.then_with(|| a.session_id.cmp(&b.session_id))
    });
    let per_page = per_page.max(1);
    let pages = hits.len().div_ceil(per_page).max(1);
    let page = page.clamp(1, pages);
    SessionListPage {
        rows: hits.iter().skip((page - 1) * per_page).take(per_page).map(|r| (*r).clone()).collect(),
        matching: hits.len(),
        page,
        pages,
        matching_cost_usd: hits.iter().map(|r| r.cost_usd).sum(),
        matching_requests: hits.iter().map(|r| r.requests).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn row(id: &str, title: &str, cost: f64, day: u32) -> SessionRow {
        let t = Utc.with_ymd_and_hms(2026, 11, day, 12, 0, 0).single().unwrap_or_default();
        SessionRow {
            session_id: id.into(),
            title: title.into(),
            project: format!("proj-{id}"),
            first: t,
            last: t,
            first_day: t.date_naive(),
            last_day: t.date_naive(),
            models: vec!["m1".into()],
            requests: 1,
            tokens: TokenCounts::default(),
            cost_usd: cost,
            peak_prompt: 0,
            misses: 0,
            idle_cost_usd: 0.0,
            stale_premium_usd: None,
            not_resumable: None,
            warm: Some(true),
            calls: CallTotals::default(),
        }
    }

    #[test]
    fn filters_sort_and_pages() {
        let rows: Vec<SessionRow> =
            (1..=25).map(|i| row(&format!("s{i:02}"), &format!("Fix bug {i}"), f64::from(i), i)).collect();
        let all = session_page(&rows, &SessionFilter::default(), SessionSort::Cost, false, 1, 10);
        assert_eq!((all.matching, all.pages, all.rows.len()), (25, 3, 10));
        assert_eq!(all.rows[0].session_id, "s25");
        let last = session_page(&rows, &SessionFilter::default(), SessionSort::Cost, true, 99, 10);
        assert_eq!((last.page, last.rows.len(), last.rows[0].session_id.as_str()), (3, 5, "s21"));
        let f = SessionFilter { q: Some("BUG 1".into()), ..SessionFilter::default() };
        assert_eq!(session_page(&rows, &f, SessionSort::Cost, false, 1, 50).matching, 11);
        let since = NaiveDate::from_ymd_opt(2026, 11, 20);
        let f = SessionFilter { since, until: NaiveDate::from_ymd_opt(2026, 11, 21), ..SessionFilter::default() };
        let p = session_page(&rows, &f, SessionSort::Last, false, 1, 50);
        assert_eq!(p.matching, 2);
        assert!((p.matching_cost_usd - 41.0).abs() < 1e-9);
        let f = SessionFilter { model: Some("m2".into()), ..SessionFilter::default() };
        assert_eq!(session_page(&rows, &f, SessionSort::Cost, false, 1, 50).matching, 0);
        assert_eq!(SessionSort::parse("stale"), Some(SessionSort::Stale));
        assert_eq!(SessionSort::parse("x"), None);
    }
}

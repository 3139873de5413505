//! `/days`: cost per day, week or month over the page's days (the CLI's
//! `report daily|weekly|monthly` rows, newest first, with the stacked class
//! chart of the same periods); `/day/{date}`: one day's sessions (the CLI's
//! `report session --since D --until D`), with links to the previous and
//! next day that have requests. Both take the `user` filter.

use super::overview::class_chart;
use crate::report::charts::{self, palette, Unit};
use crate::report::query::{Grouping, Query};
use crate::report::usage::{UsageReport, UsageRow};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::{parse_date, Params};
use crate::web::range::{with_pairs, By, Range};
use crate::web::state::AppState;
use crate::web::view::{Formats, Num};
use askama::Template;
use axum::extract::{Path, State};
use axum::response::Html;
use chrono::{Datelike, NaiveDate};
use chrono_tz::Tz;
use std::sync::Arc;

/// Periods per page.
pub const PER_PAGE: usize = 60;

#[derive(Template)]
#[template(path = "days.html")]
pub struct DaysPage {
    pub chrome: Chrome,
    pub empty: bool,
    pub rows: Vec<UsageRow>,
    pub report: Arc<UsageReport>,
    pub chart: String,
    pub heading: String,
    pub page: usize,
    pub pages: usize,
}

impl Formats for DaysPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl DaysPage {
    pub fn page_href(&self, page: impl Num) -> String {
        self.chrome.link(&format!("/days?page={}", page.value() as usize))
    }

    /// A row's link: a day's page, or the days of a week or month.
    pub fn period_href(&self, key: &str) -> String {
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        let span = match self.chrome.range.by {
            By::Day => return self.chrome.link(&format!("/day/{key}")),
            By::Week => day(key).map(|d| (d, d + chrono::TimeDelta::days(6))),
            By::Month => day(&format!("{key}-01")).and_then(|d| {
                let next = if d.month() == 12 {
                    d.with_year(d.year() + 1)?.with_month(1)
                } else {
                    d.with_month(d.month() + 1)
                };
                Some((d, next?.pred_opt()?))
            }),
        };
        let Some((from, to)) = span else { return self.chrome.link("/days") };
        let days = Range { since: Some(from), until: Some(to), by: By::Day, ..self.chrome.range.clone() };
        let mut pairs: Vec<(&str, String)> = self.chrome.user.iter().map(|u| ("user", u.clone())).collect();
        pairs.extend(days.pairs());
        with_pairs("/days", &pairs)
    }

    /// The first column's heading.
    pub fn period_name(&self) -> &'static str {
        match self.chrome.range.by {
            By::Day => "Day",
            By::Week => "Week from",
            By::Month => "Month",
        }
    }

    pub fn periods_text(&self) -> String {
        let (one, many) = match self.chrome.range.by {
            By::Day => ("day", "days"),
            By::Week => ("week", "weeks"),
            By::Month => ("month", "months"),
        };
        crate::report::labels::plural(self.report.rows.len() as u64, one, many)
    }
}

/// `GET /days?since=&until=&by=&page=&user=`.
pub async fn days(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let page = params.page()?;
    let (snap, view) = super::reports(&state, &params).await?;
    let range = super::range(&state, &snap, &params)?;
    let report = if range.by == By::Day {
        Arc::clone(&view.daily)
    } else {
        let q = Query { breakdown: false, ..params.usage_query(snap.tz, range.week_default)? };
        let s = Arc::clone(&snap);
        let g = range.by.grouping();
        super::blocking(move || Ok(s.usage(g, &q)?)).await?
    };
    let pages = report.rows.len().div_ceil(PER_PAGE).max(1);
    let page = page.min(pages);
    let rows: Vec<UsageRow> = report.rows.iter().rev().skip((page - 1) * PER_PAGE).take(PER_PAGE).cloned().collect();
    let (chart, labels) = class_chart(&view.class_costs, &range, None, 1100);
    render(&DaysPage {
        chrome: Chrome::new(&state, &snap, "Days", &params).with_json("/api/daily"),
        empty: snap.is_empty(),
        heading: super::periods::period_heading("Cost", &range, &labels),
        chart,
        rows,
        report,
        page,
        pages,
    })
}

#[derive(Template)]
#[template(path = "day.html")]
pub struct DayPage {
    pub chrome: Chrome,
    pub date: NaiveDate,
    pub report: Arc<UsageReport>,
    pub chart: String,
    /// The nearest days before and after with requests.
    pub previous: Option<String>,
    pub next: Option<String>,
}

impl Formats for DayPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl DayPage {
    pub fn href(&self, id: &str) -> String {
        super::session_href(id)
    }

    pub fn day_href(&self, day: &str) -> String {
        self.chrome.link(&format!("/day/{day}"))
    }
}

/// `GET /day/{date}?user=`.
pub async fn day(
    State(state): State<AppState>,
    Path(date): Path<String>,
    params: Params,
) -> Result<Html<String>, WebError> {
    let date = parse_date("date", &date)?;
    let snap = state.snapshot();
    let s = snap.clone();
    let user = Params::text(&params.user);
    let (report, all) = super::blocking(move || {
        let q = Query { since: Some(date), until: Some(date), user: user.clone(), ..Query::new(s.tz) };
        Ok((s.usage(Grouping::Session, &q)?, s.reports(user.as_deref())?))
    })
    .await?;
    let key = date.format("%Y-%m-%d").to_string();
    let days = &all.daily.rows;
    let previous = days.iter().rev().find(|r| r.key < key).map(|r| r.key.clone());
    let next = days.iter().find(|r| r.key > key).map(|r| r.key.clone());
    let items: Vec<(String, f64)> = report
        .rows
        .iter()
        .take(20)
        .map(|r| (if r.title.is_empty() { r.key.clone() } else { r.title.clone() }, r.totals.cost_usd))
        .collect();
    let mut chrome = Chrome::new(&state, &snap, "Days", &params).without_range();
    let mut pairs: Vec<(&str, String)> = vec![("since", key.clone()), ("until", key.clone())];
    pairs.extend(chrome.user.iter().map(|u| ("user", u.clone())));
    chrome.json = Some(with_pairs("/api/sessions", &pairs));
    render(&DayPage {
        chrome,
        date,
        chart: charts::hbars(&items, Unit::Usd, palette::READ, 1100),
        report,
        previous,
        next,
    })
}

//! `/days`: cost per day (the CLI's `report daily` rows, newest first, with
//! the stacked class chart of the page's days); `/day/{date}`: one day's
//! sessions (the CLI's `report session --since D --until D`). Both take the
//! `user` filter.

use super::overview::class_chart;
use crate::report::charts::{self, palette, Unit};
use crate::report::query::{Grouping, Query};
use crate::report::usage::{UsageReport, UsageRow};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::{parse_date, Params};
use crate::web::state::AppState;
use crate::web::view::{Formats, Num};
use askama::Template;
use axum::extract::{Path, State};
use axum::response::Html;
use chrono::NaiveDate;
use chrono_tz::Tz;
use std::sync::Arc;

/// Days per page.
pub const PER_PAGE: usize = 60;

#[derive(Template)]
#[template(path = "days.html")]
pub struct DaysPage {
    pub chrome: Chrome,
    pub empty: bool,
    pub rows: Vec<UsageRow>,
    pub report: Arc<UsageReport>,
    pub chart: String,
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
        self.chrome.with_user(&format!("/days?page={}", page.value() as usize))
    }

    pub fn day_href(&self, day: &str) -> String {
        self.chrome.with_user(&format!("/day/{day}"))
    }
}

/// `GET /days?page=&user=`.
pub async fn days(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let page = params.page()?;
    let (snap, view) = super::reports(&state, &params).await?;
    let report = Arc::clone(&view.daily);
    let pages = report.rows.len().div_ceil(PER_PAGE).max(1);
    let page = page.min(pages);
    let rows: Vec<UsageRow> = report.rows.iter().rev().skip((page - 1) * PER_PAGE).take(PER_PAGE).cloned().collect();
    let days: Vec<NaiveDate> =
        rows.iter().rev().filter_map(|r| NaiveDate::parse_from_str(&r.key, "%Y-%m-%d").ok()).collect();
    render(&DaysPage {
        chrome: Chrome::new(&state, &snap, "Days", &params),
        empty: snap.is_empty(),
        chart: class_chart(&view.class_costs, &days, None, 1100),
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

    pub fn day_href(&self, days: i64) -> String {
        self.chrome.with_user(&format!("/day/{}", self.date + chrono::TimeDelta::days(days)))
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
    let report = super::blocking(move || {
        let q = Query { since: Some(date), until: Some(date), user, ..Query::new(s.tz) };
        Ok(s.usage(Grouping::Session, &q)?)
    })
    .await?;
    let items: Vec<(String, f64)> = report
        .rows
        .iter()
        .take(20)
        .map(|r| (if r.title.is_empty() { r.key.clone() } else { r.title.clone() }, r.totals.cost_usd))
        .collect();
    render(&DayPage {
        chrome: Chrome::new(&state, &snap, "Days", &params),
        date,
        chart: charts::hbars(&items, Unit::Usd, palette::READ, 1100),
        report,
    })
}

//! `/sessions`: the sortable, filterable, paginated session list (text
//! search `q` on title or id, `project`, `model`, `since`/`until` activity,
//! `sort`/`order`, `page`), from the snapshot's rows of everyone or of the
//! `user` asked for.

use crate::report::charts::{self, palette, Unit};
use crate::report::session::list::{session_page, SessionListPage, SessionRow, SessionSort};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::Params;
use crate::web::state::AppState;
use crate::web::view::{Formats, Num};
use askama::Template;
use axum::extract::State;
use axum::response::Html;
use chrono_tz::Tz;
use std::sync::Arc;

/// Rows per page by default.
pub const PER_PAGE: usize = 50;

#[derive(Template)]
#[template(path = "sessions.html")]
pub struct SessionsPage {
    pub chrome: Chrome,
    pub empty: bool,
    pub params: Params,
    pub table: SessionListPage,
    pub sort: SessionSort,
    pub ascending: bool,
    pub models: Vec<String>,
    pub chart: String,
    /// What the chart plots.
    pub chart_heading: String,
}

impl Formats for SessionsPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl SessionsPage {
    pub fn href(&self, id: &str) -> String {
        super::session_href(id)
    }

    /// Link sorting by `key`, toggling the direction when already sorted by it.
    pub fn sort_href(&self, key: &str) -> String {
        let same = self.sort.name() == key;
        let order = if same && !self.ascending { "asc" } else { "" };
        let p = Params { order: Some(order.to_owned()), ..self.params.clone() };
        p.with("sort", key)
    }

    /// Arrow of the sorted column.
    pub fn arrow(&self, key: &str) -> &'static str {
        match (self.sort.name() == key, self.ascending) {
            (false, _) => "",
            (true, true) => " ▲",
            (true, false) => " ▼",
        }
    }

    pub fn page_href(&self, page: impl Num) -> String {
        self.params.with("page", &(page.value() as usize).to_string())
    }

    pub fn text(&self, v: &Option<String>) -> String {
        v.clone().unwrap_or_default()
    }

    /// `12 sessions match`.
    pub fn matching_text(&self) -> String {
        let n = self.table.matching as u64;
        format!(
            "{} {}",
            crate::report::labels::plural(n, "session", "sessions"),
            if n == 1 { "matches" } else { "match" }
        )
    }
}

/// `GET /sessions`.
pub async fn page(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let filter = params.session_filter()?;
    let (sort, ascending) = params.sort()?;
    let (page, per_page) = (params.page()?, params.per_page(PER_PAGE)?);
    let (snap, view) = super::reports(&state, &params).await?;
    let s = Arc::clone(&snap);
    let (table, all) = super::blocking(move || {
        let table = session_page(&view.session_rows, &filter, sort, ascending, page, per_page);
        Ok((table, super::everyone(&s)?))
    })
    .await?;
    // The bars show the column the rows are sorted by.
    let (what, unit, value): (&str, Unit, fn(&SessionRow) -> f64) = match sort {
        SessionSort::Requests => ("Requests", Unit::Count, |r| r.requests as f64),
        SessionSort::Peak => ("Peak prompt", Unit::Tokens, |r| r.peak_prompt as f64),
        SessionSort::Misses => ("Cache misses", Unit::Count, |r| r.misses as f64),
        SessionSort::Idle => ("Lost to expired caches", Unit::Usd, |r| r.idle_cost_usd),
        SessionSort::Stale => ("Extra to resume now", Unit::Usd, |r| r.stale_premium_usd.unwrap_or(0.0)),
        SessionSort::Cost | SessionSort::Last => ("Cost", Unit::Usd, |r| r.cost_usd),
    };
    let chrome = Chrome::new(&state, &snap, "Sessions", &params).with_json("/api/sessions");
    let items: Vec<(String, f64)> = table
        .rows
        .iter()
        .take(15)
        .map(|r| (chrome.session_name(&r.title, &r.session_id, &r.project, &r.first), value(r)))
        .collect();
    let first = crate::report::labels::plural(items.len() as u64, "session", "sessions");
    let chart_heading = format!("{what} of the first {first} below, {}", chrome.range.words());
    render(&SessionsPage {
        chrome,
        empty: snap.is_empty(),
        chart_heading,
        chart: charts::hbars(&items, unit, palette::READ, 1100),
        models: all.models.model_ids(),
        params,
        table,
        sort,
        ascending,
    })
}

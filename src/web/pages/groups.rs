//! `/projects` and `/models`: the CLI's `report project` and `report model`
//! rows over the page's days, with a bar chart of the largest; projects by
//! the path their transcripts ran in.

use crate::report::charts::{self, palette, Unit};
use crate::report::usage::UsageReport;
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::{encode, Params};
use crate::web::state::AppState;
use crate::web::view::Formats;
use askama::Template;
use axum::extract::State;
use axum::response::Html;
use chrono_tz::Tz;
use std::sync::Arc;

#[derive(Template)]
#[template(path = "groups.html")]
pub struct GroupsPage {
    pub chrome: Chrome,
    pub empty: bool,
    pub heading: String,
    /// `project` or `model`: the sessions filter each row links to.
    pub filter: &'static str,
    pub report: Arc<UsageReport>,
    pub chart: String,
}

impl Formats for GroupsPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl GroupsPage {
    pub fn sessions_href(&self, key: &str) -> String {
        self.chrome.link(&format!("/sessions?{}={}", self.filter, encode(key)))
    }

    /// A row's name: a project's path, a model's id.
    pub fn name<'a>(&'a self, key: &'a str) -> &'a str {
        if self.filter == "project" {
            self.chrome.path(key)
        } else {
            key
        }
    }
}

async fn build(state: &AppState, which: &'static str, params: &Params) -> Result<Html<String>, WebError> {
    let (snap, view) = super::reports(state, params).await?;
    let (report, heading, active, json) = match which {
        "model" => (Arc::clone(&view.models), "Cost per model", "Models", "/api/models"),
        _ => (Arc::clone(&view.projects), "Cost per project", "Projects", "/api/projects"),
    };
    let chrome = Chrome::new(state, &snap, active, params).with_json(json);
    let name = |k: &str| if which == "project" { chrome.path(k).to_owned() } else { k.to_owned() };
    let items: Vec<(String, f64)> = report.rows.iter().take(20).map(|r| (name(&r.key), r.totals.cost_usd)).collect();
    let color = if which == "model" { palette::WRITE_1H } else { palette::READ };
    let heading = format!("{heading}, {}", chrome.range.words());
    render(&GroupsPage {
        chrome,
        empty: snap.is_empty(),
        heading,
        filter: which,
        chart: charts::hbars(&items, Unit::Usd, color, 1100),
        report,
    })
}

/// `GET /projects?user=`.
pub async fn projects(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    build(&state, "project", &params).await
}

/// `GET /models?user=`.
pub async fn models(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    build(&state, "model", &params).await
}

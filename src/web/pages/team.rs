//! `/team`: the team report (`report::team`, what `cachewise report team`
//! prints) of a data directory holding several people's imported bundles:
//! per person spend, spend per active day beside the vendor's published
//! baseline, cache hit ratio, money lost to expired caches and to prompt
//! edits, run-rate (the terminal report's columns), machines and top
//! model; the model mix; cost per day stacked by person. Takes `since`, `until`,
//! `project` and `user`. With one person or none, how to import bundles.

use crate::report::charts::{self, palette, Stacked};
use crate::report::team::{
    adoption_line, all_history, mix_cells, notes, person_cells, total_cells, who, window_line, TeamReport, TeamRow,
    HEADER, MIX_HEADER,
};
use crate::web::error::WebError;
use crate::web::layout::{render, Chrome};
use crate::web::params::{encode, Params};
use crate::web::state::AppState;
use crate::web::view::Formats;
use askama::Template;
use axum::extract::State;
use axum::response::Html;
use chrono::NaiveDate;
use chrono_tz::Tz;
use std::sync::Arc;

/// Most days the chart shows (the latest).
const CHART_DAYS: i64 = 120;

#[derive(Template)]
#[template(path = "team.html")]
pub struct TeamPage {
    pub chrome: Chrome,
    /// None when the store holds fewer than two people.
    pub report: Option<Arc<TeamReport>>,
    pub chart: String,
    pub params: Params,
}

impl Formats for TeamPage {
    fn tz(&self) -> Tz {
        self.chrome.tz
    }
}

impl TeamPage {
    /// The overview of one person.
    pub fn person_href(&self, user: &str) -> String {
        format!("/?user={}", encode(user))
    }

    /// The columns of the terminal report (`report team`), in its order.
    pub fn header(&self) -> [&'static str; 11] {
        HEADER
    }

    /// A person's figures as the terminal report prints them.
    pub fn cells(&self, row: &TeamRow) -> [String; 11] {
        person_cells(row)
    }

    /// The team row as the terminal report prints it.
    pub fn total(&self, r: &TeamReport) -> [String; 11] {
        total_cells(r)
    }

    pub fn mix_header(&self) -> [&'static str; 5] {
        MIX_HEADER
    }

    /// The model mix (fast mode apart), as the terminal report prints it.
    pub fn mix(&self, r: &TeamReport) -> Vec<[String; 5]> {
        mix_cells(r)
    }

    /// The model with the most spend.
    pub fn top_model<'a>(&self, row: &'a TeamRow) -> &'a str {
        row.figures.models.first().map_or("–", |m| m.model.as_str())
    }

    pub fn window(&self, r: &TeamReport) -> String {
        window_line(r)
    }

    /// Adoption and the cost of a seat, as the terminal report says them.
    pub fn adoption(&self, r: &TeamReport) -> String {
        adoption_line(r)
    }

    /// A download of this report (`/api/team.csv`, `/api/team.md`) with the
    /// page's range and person.
    pub fn download(&self, what: &str) -> String {
        format!("/api/team.{what}{}", self.params.with("page", ""))
    }

    /// The run-rate of a page over all history, in the page's words (the
    /// terminal's names flags).
    pub fn history_warning(&self, r: &TeamReport) -> Option<String> {
        all_history(r).then(|| {
            format!(
                "No dates are chosen, so these figures cover all {} days of data and the run-rate averages over all of them. A pilot report covers the pilot's weeks: choose its first and last day above.",
                r.window.days
            )
        })
    }

    pub fn notes(&self, r: &TeamReport) -> Vec<String> {
        notes(r)
    }

    /// `1 active person`, `3 active people`.
    pub fn active_people(&self, n: impl crate::web::view::Num) -> String {
        crate::report::labels::plural(n.value() as u64, "active person", "active people")
    }

    /// `1 person`, `3 people`.
    pub fn people(&self, n: impl crate::web::view::Num) -> String {
        crate::report::labels::plural(n.value() as u64, "person", "people")
    }
}

/// Cost per day stacked by person, one bar per day from the first active
/// day to the last (at most `CHART_DAYS`, the latest), people in the
/// report's order.
pub fn person_day_chart(r: &TeamReport, width: u32) -> String {
    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
    let days: Vec<NaiveDate> = r.person_days.iter().filter_map(|d| day(&d.day)).collect();
    let (Some(first), Some(last)) = (days.iter().min(), days.iter().max()) else {
        return charts::stacked_bars(&Stacked::cost_per_day(&[], &[], &[], width));
    };
    let first = (*first).max(*last - chrono::TimeDelta::days(CHART_DAYS - 1));
    let shown: Vec<NaiveDate> = first.iter_days().take_while(|d| d <= last).collect();
    let names: Vec<&str> = r.rows.iter().map(|row| who(&row.user)).collect();
    let mut values = vec![vec![0.0; names.len()]; shown.len()];
    for d in &r.person_days {
        let Some(date) = day(&d.day).filter(|t| *t >= first) else { continue };
        let bar = values.get_mut((date - first).num_days() as usize);
        if let (Some(bar), Some(k)) = (bar, r.rows.iter().position(|row| row.user == d.user)) {
            bar[k] += d.cost_usd;
        }
    }
    let series: Vec<(&str, _)> = names.iter().enumerate().map(|(i, n)| (*n, palette::nth(i))).collect();
    let labels: Vec<String> = shown.iter().map(|d| d.format("%Y-%m-%d").to_string()).collect();
    charts::stacked_bars(&Stacked::cost_per_day(&labels, &series, &values, width))
}

/// `GET /team?since=&until=&project=&user=`.
pub async fn page(State(state): State<AppState>, params: Params) -> Result<Html<String>, WebError> {
    let q = params.usage_query(state.settings().tz, state.settings().week_start)?;
    let snap = state.snapshot();
    let report = if snap.is_team() {
        let s = Arc::clone(&snap);
        Some(super::blocking(move || Ok(s.team(&q)?)).await?)
    } else {
        None
    };
    render(&TeamPage {
        chrome: Chrome::new(&state, &snap, "Team", &params).with_json("/api/team"),
        chart: report.as_deref().map(|r| person_day_chart(r, 700)).unwrap_or_default(),
        report,
        params,
    })
}

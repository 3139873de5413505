//! The derived `sessions` table: per session its project, first and last
//! request, title and totals, folded from the priced requests.

use super::best_titles;
use crate::model::columns as c;
use crate::model::{Request, SessionTitle, TokenCounts};
use chrono::{DateTime, Utc};
use polars::prelude::*;
use std::borrow::Borrow;
use std::collections::BTreeMap;

/// One row of the `sessions` table.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub session_id: String,
    pub project: String,
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    pub title: String,
    pub requests: u64,
    pub tokens: TokenCounts,
    pub cost_usd: f64,
}

/// Folds requests into sessions, ordered by session id.
pub fn derive<R: Borrow<Request>>(requests: &[R], titles: &[SessionTitle]) -> Vec<SessionRow> {
    let names = best_titles(titles);
    let mut by: BTreeMap<&str, SessionRow> = BTreeMap::new();
    for r in requests.iter().map(Borrow::borrow) {
        let s = by.entry(r.session_id.as_str()).or_insert_with(|| SessionRow {
            session_id: r.session_id.clone(),
            project: r.project.clone(),
            first: r.time,
            last: r.time,
            title: names.get(&r.session_id).cloned().unwrap_or_default(),
            requests: 0,
            tokens: TokenCounts::default(),
            cost_usd: 0.0,
        });
        s.first = s.first.min(r.time);
        s.last = s.last.max(r.time);
        s.requests += 1;
        s.tokens += r.tokens;
        s.cost_usd += r.cost_usd;
    }
    by.into_values().collect()
}

/// The `sessions` table as a DataFrame.
pub fn frame(rows: &[SessionRow]) -> PolarsResult<DataFrame> {
    let ms = |f: fn(&SessionRow) -> DateTime<Utc>, name: &str| {
        Int64Chunked::from_vec(name.into(), rows.iter().map(|r| f(r).timestamp_millis()).collect())
            .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
            .into_column()
    };
    let u = |f: fn(&SessionRow) -> u64, name: &str| Column::new(name.into(), rows.iter().map(f).collect::<Vec<u64>>());
    let s =
        |f: fn(&SessionRow) -> &str, name: &str| Column::new(name.into(), rows.iter().map(f).collect::<Vec<&str>>());
    DataFrame::new(
        rows.len(),
        vec![
            s(|r| &r.session_id, c::SESSION_ID),
            s(|r| &r.project, c::PROJECT),
            ms(|r| r.first, c::FIRST),
            ms(|r| r.last, c::LAST),
            s(|r| &r.title, c::TITLE),
            u(|r| r.requests, c::REQUESTS),
            u(|r| r.tokens.input, c::INPUT),
            u(|r| r.tokens.cache_write_5m, c::CACHE_WRITE_5M),
            u(|r| r.tokens.cache_write_1h, c::CACHE_WRITE_1H),
            u(|r| r.tokens.cache_read, c::CACHE_READ),
            u(|r| r.tokens.output, c::OUTPUT),
            Column::new(c::COST_USD.into(), rows.iter().map(|r| r.cost_usd).collect::<Vec<f64>>()),
        ],
    )
}

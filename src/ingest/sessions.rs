//! The derived `sessions` table: per session its project, first and last
//! request, title and totals, folded from the priced requests.

use super::best_titles;
use crate::model::columns as c;
use crate::model::{Request, SessionTitle, TokenCounts};
use crate::store::frames::Cols;
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

/// The `requests` columns a session row is folded from.
pub const INPUT_COLUMNS: [&str; 9] = [
    c::SESSION_ID,
    c::PROJECT,
    c::TIME,
    c::INPUT,
    c::CACHE_WRITE_5M,
    c::CACHE_WRITE_1H,
    c::CACHE_READ,
    c::OUTPUT,
    c::COST_USD,
];

/// What a session row is folded from, per request.
struct Input<'a> {
    session: &'a str,
    project: &'a str,
    time: DateTime<Utc>,
    tokens: TokenCounts,
    cost_usd: f64,
}

/// Folds requests into sessions, ordered by session id.
pub fn derive<R: Borrow<Request>>(requests: &[R], titles: &[SessionTitle]) -> Vec<SessionRow> {
    let inputs = requests.iter().map(Borrow::borrow).map(|r| Input {
        session: &r.session_id,
        project: &r.project,
        time: r.time,
        tokens: r.tokens,
        cost_usd: r.cost_usd,
    });
    fold(inputs, titles)
}

/// Folds the `INPUT_COLUMNS` of a requests frame into sessions.
pub fn derive_frame(df: &DataFrame, titles: &[SessionTitle]) -> PolarsResult<Vec<SessionRow>> {
    let k = Cols(df);
    let (session, project, time) = (k.str(c::SESSION_ID)?, k.str(c::PROJECT)?, k.time(c::TIME)?);
    let tokens = k.tokens()?;
    let cost = k.f64(c::COST_USD)?;
    let inputs = (0..df.height()).map(|i| Input {
        session: session[i],
        project: project[i],
        time: time[i],
        tokens: tokens[i],
        cost_usd: cost[i],
    });
    Ok(fold(inputs, titles))
}

/// A session's project is its earliest request's (the smallest name on a
/// tie), and its cost is summed in ascending order, so the fold does not
/// depend on row order, down to the last bit.
fn fold<'a>(inputs: impl Iterator<Item = Input<'a>>, titles: &[SessionTitle]) -> Vec<SessionRow> {
    let names = best_titles(titles);
    let mut by: BTreeMap<&str, (SessionRow, Vec<f64>)> = BTreeMap::new();
    for r in inputs {
        let (s, costs) = by.entry(r.session).or_insert_with(|| {
            let row = SessionRow {
                session_id: r.session.to_owned(),
                project: r.project.to_owned(),
                first: r.time,
                last: r.time,
                title: names.get(r.session).cloned().unwrap_or_default(),
                requests: 0,
                tokens: TokenCounts::default(),
                cost_usd: 0.0,
            };
            (row, Vec::new())
        });
        if (r.time, r.project) < (s.first, s.project.as_str()) {
            s.project = r.project.to_owned();
        }
        s.first = s.first.min(r.time);
        s.last = s.last.max(r.time);
        s.requests += 1;
        s.tokens += r.tokens;
        costs.push(r.cost_usd);
    }
    by.into_values()
        .map(|(mut s, mut costs)| {
            costs.sort_unstable_by(f64::total_cmp);
            s.cost_usd = costs.iter().sum();
            s
        })
        .collect()
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

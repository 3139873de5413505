//! The session totals (`Table::SessionTotals`, stored as
//! `sessions.parquet`): per session its project, first and last request,
//! title and totals, folded from the priced requests. Not the session
//! analysis (`materialize::side_rows`) nor the dashboard's session list
//! (`report::session::list`).

use super::best_titles;
use crate::model::columns as c;
use crate::model::{Request, SessionTitle, TokenCounts};
use crate::store::frames::{f64_column, str_column, u64_column, Cols};
use chrono::{DateTime, Utc};
use foldhash::HashMap as FoldMap;
use polars::prelude::*;
use std::borrow::Borrow;

/// One row of the session totals.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionTotals {
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

/// Folds requests into session totals, ordered by session id.
pub fn derive<R: Borrow<Request>>(requests: &[R], titles: &[SessionTitle]) -> Vec<SessionTotals> {
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
pub fn derive_frame(df: &DataFrame, titles: &[SessionTitle]) -> PolarsResult<Vec<SessionTotals>> {
    let mut fold = Fold::default();
    fold.add_frame(df)?;
    Ok(fold.finish(titles))
}

/// A session's project is its earliest request's (the smallest name on a
/// tie), and its cost is summed in ascending order, so the fold does not
/// depend on row order, down to the last bit.
fn fold<'a>(inputs: impl Iterator<Item = Input<'a>>, titles: &[SessionTitle]) -> Vec<SessionTotals> {
    let mut fold = Fold::default();
    inputs.for_each(|r| fold.add(r));
    fold.finish(titles)
}

/// Sessions folded from requests given a frame at a time (a table read in
/// slices): each session's row so far, and its costs.
#[derive(Default)]
pub struct Fold {
    by: FoldMap<String, (SessionTotals, Vec<f64>)>,
}

impl Fold {
    /// Folds in the `INPUT_COLUMNS` of a requests frame.
    pub fn add_frame(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let k = Cols(df);
        let (session, project, time) = (k.str(c::SESSION_ID)?, k.str(c::PROJECT)?, k.time(c::TIME)?);
        let tokens = k.tokens()?;
        let cost = k.f64(c::COST_USD)?;
        for i in 0..df.height() {
            let r =
                Input { session: session[i], project: project[i], time: time[i], tokens: tokens[i], cost_usd: cost[i] };
            self.add(r);
        }
        Ok(())
    }

    fn add(&mut self, r: Input<'_>) {
        match self.by.get_mut(r.session) {
            Some((s, costs)) => fold_in(s, costs, &r),
            None => {
                let mut row = SessionTotals {
                    session_id: r.session.to_owned(),
                    project: r.project.to_owned(),
                    first: r.time,
                    last: r.time,
                    title: String::new(),
                    requests: 0,
                    tokens: TokenCounts::default(),
                    cost_usd: 0.0,
                };
                let mut costs = Vec::new();
                fold_in(&mut row, &mut costs, &r);
                self.by.insert(r.session.to_owned(), (row, costs));
            }
        }
    }

    /// The session rows, ordered by session id, titled from `titles`.
    pub fn finish(self, titles: &[SessionTitle]) -> Vec<SessionTotals> {
        let names = best_titles(titles);
        let mut rows: Vec<SessionTotals> = self
            .by
            .into_values()
            .map(|(mut s, mut costs)| {
                costs.sort_unstable_by(f64::total_cmp);
                s.cost_usd = costs.iter().sum();
                s.title = names.get(s.session_id.as_str()).cloned().unwrap_or_default();
                s
            })
            .collect();
        rows.sort_unstable_by(|a, b| a.session_id.cmp(&b.session_id));
        rows
    }
}

/// One request folded into its session's row and costs.
fn fold_in(s: &mut SessionTotals, costs: &mut Vec<f64>, r: &Input<'_>) {
    if (r.time, r.project) < (s.first, s.project.as_str()) {
        s.project = r.project.to_owned();
    }
    s.first = s.first.min(r.time);
    s.last = s.last.max(r.time);
    s.requests += 1;
    s.tokens += r.tokens;
    costs.push(r.cost_usd);
}

/// The session totals as a DataFrame.
pub fn frame(rows: &[SessionTotals]) -> PolarsResult<DataFrame> {
    let ms = |f: fn(&SessionTotals) -> DateTime<Utc>, name: &str| {
        Int64Chunked::from_vec(name.into(), rows.iter().map(|r| f(r).timestamp_millis()).collect())
            .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
            .into_column()
    };
    let u = |f: fn(&SessionTotals) -> u64, name: &str| u64_column(name, rows.iter().map(f));
    let s = |f: fn(&SessionTotals) -> &str, name: &str| str_column(name, rows.iter().map(f));
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
            f64_column(c::COST_USD, rows.iter().map(|r| r.cost_usd)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::frames::requests_frame;
    use chrono::TimeZone;

    fn request(session: &str, project: &str, minute: u32, cost: f64) -> Request {
        let tokens = TokenCounts { input: 10, output: u64::from(minute), ..TokenCounts::default() };
        Request {
            session_id: session.into(),
            project: project.into(),
            time: Utc.with_ymd_and_hms(2026, 3, 1, 10, minute, 0).unwrap(),
            cost_usd: cost,
            ..crate::model::calls::tests::request("m", tokens)
        }
    }

    /// A table folded a slice at a time gives the rows of one fold, to the
    /// bit: the project of the earliest request, every count, the cost.
    #[test]
    fn slices_fold_to_the_rows_of_the_whole_table() {
        let rows: Vec<Request> = vec![
            request("s2", "/b", 9, 0.1),
            request("s1", "/z", 5, 0.2),
            request("s1", "/a", 5, 0.7),
            request("s2", "/c", 3, 1e-17),
            request("s1", "/y", 1, 0.3),
            request("s2", "/d", 8, 0.3),
        ];
        let df = requests_frame(&rows).unwrap().select(INPUT_COLUMNS).unwrap();
        let whole = derive_frame(&df, &[]).unwrap();
        let mut fold = Fold::default();
        for (offset, len) in [(0, 2), (2, 3), (5, 1)] {
            fold.add_frame(&df.slice(offset, len)).unwrap();
        }
        let sliced = fold.finish(&[]);
        assert_eq!(sliced, whole);
        assert_eq!(sliced.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["s1", "s2"]);
        assert_eq!((sliced[0].project.as_str(), sliced[0].requests), ("/y", 3));
        assert_eq!(sliced[1].project, "/c", "the earliest request's project");
        assert_eq!(sliced[0].tokens.output, 11);
        assert_eq!(sliced[1].cost_usd, 1e-17 + 0.1 + 0.3, "summed in ascending order");
        assert_eq!(derive(&rows, &[]), whole);
    }
}

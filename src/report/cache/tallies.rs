//! The cache report's sums over its rows, in one pass: the total, per day
//! (in the report's zone) and per session (with its project and time
//! span), and the models seen.

use crate::analyze::{CacheStats, DayStats, SessionStats, Tally};
use crate::report::analysis_cols::{AnalysisCols, LocalDays};
use chrono::{DateTime, Utc};
use polars::prelude::*;
use std::collections::{BTreeSet, HashMap};

/// Per-session running sums plus the session's project and time span
/// (UTC milliseconds).
struct SessionTally {
    tally: Tally,
    project: String,
    first_ms: i64,
    last_ms: i64,
}

/// The cache report's running tallies over the rows: the total, per day,
/// per session, and the models seen.
#[derive(Default)]
pub(super) struct Tallies {
    total: Tally,
    by_day: Vec<(i32, Tally)>,
    day_index: HashMap<i32, usize>,
    index: HashMap<(String, String), usize>,
    sessions: Vec<((String, String), SessionTally)>,
    models: BTreeSet<String>,
}

impl Tallies {
    /// Adds a batch of analysis rows (`FIGURES`), each to the total, its
    /// day in `days`' zone and its session.
    pub(super) fn add(&mut self, df: &DataFrame, days: &mut LocalDays) -> PolarsResult<()> {
        let a = AnalysisCols::of(df)?;
        let mut last: Option<((&str, &str), usize)> = None;
        let mut today: Option<(i32, usize)> = None;
        let mut model = "";
        for i in 0..df.height() {
            let (f, ms) = (a.figures(i), a.time_ms[i]);
            self.total.add_figures(&f);
            let day = days.day(ms);
            if today.is_none_or(|(d, _)| d != day) {
                today = Some((
                    day,
                    *self.day_index.entry(day).or_insert_with(|| {
                        self.by_day.push((day, Tally::default()));
                        self.by_day.len() - 1
                    }),
                ));
            }
            if let Some((_, k)) = today {
                self.by_day[k].1.add_figures(&f);
            }
            if a.model[i] != model {
                model = a.model[i];
                self.models.insert(model.to_owned());
            }
            // Rows come grouped by session: look a session up when it changes.
            let key = (a.user[i], a.session[i]);
            let k = match last {
                Some((l, k)) if l == key => k,
                _ => *self.index.entry((key.0.to_owned(), key.1.to_owned())).or_insert_with(|| {
                    let first = SessionTally {
                        tally: Tally::default(),
                        project: a.project[i].to_owned(),
                        first_ms: ms,
                        last_ms: ms,
                    };
                    self.sessions.push(((key.0.to_owned(), key.1.to_owned()), first));
                    self.sessions.len() - 1
                }),
            };
            last = Some((key, k));
            let s = &mut self.sessions[k].1;
            s.tally.add_figures(&f);
            s.first_ms = s.first_ms.min(ms);
            s.last_ms = s.last_ms.max(ms);
        }
        Ok(())
    }

    /// The totals, per day (in day order) and per session (by id and
    /// user, titled), and the models seen.
    pub(super) fn finish(
        self,
        titles: &HashMap<String, String>,
    ) -> (CacheStats, Vec<DayStats>, Vec<SessionStats>, BTreeSet<String>) {
        (self.total.finish(), day_stats(self.by_day), session_stats(self.sessions, titles), self.models)
    }
}

fn day_stats(mut v: Vec<(i32, Tally)>) -> Vec<DayStats> {
    let name = LocalDays::name;
    v.sort_by_key(|(d, _)| *d);
    v.into_iter().map(|(d, t)| DayStats { day: name(d), stats: t.finish() }).collect()
}

fn session_stats(
    sessions: Vec<((String, String), SessionTally)>,
    titles: &HashMap<String, String>,
) -> Vec<SessionStats> {
    let at = |ms: i64| DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default();
    let mut v: Vec<SessionStats> = sessions
        .into_iter()
        .map(|((user, sid), s)| SessionStats {
            title: titles.get(&sid).cloned().unwrap_or_default(),
            session_id: sid,
            user,
            project: s.project,
            first: at(s.first_ms),
            last: at(s.last_ms),
            stats: s.tally.finish(),
        })
        .collect();
    v.sort_by(|a, b| (&a.session_id, &a.user).cmp(&(&b.session_id, &b.user)));
    v
}

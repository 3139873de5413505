//! Calls Claude Code paid for without writing them down, from its own
//! running totals (`cost-state` lines, `model::CostReading`): the stage
//! after a merge that keeps the derived `unlogged` table (request rows on
//! the `unlogged:*` threads, priced by the one money function) current.
//!
//! The rule (`docs/cache-model.md`, "Calls Claude Code did not write
//! down"): a lineage is every reading with one `(user, startTime)`; a
//! resume and a fork carry the totals on. Its readings are walked in time
//! order; at each, per model and token class, the deficit is the reading
//! minus the lineage's recorded requests up to its time (sub-agents
//! included, each response once), and what is new is the deficit past
//! what the lineage has shown so far. A reading below the last (two
//! terminals on one session, a branch) never lowers a figure, and nothing
//! is counted twice.

use crate::model::calls::{calls_of, sort_calls};
use crate::model::{is_unlogged, unlogged_thread, Call, CostReading, Lineage, Request, Text, TokenCounts};
use crate::pricing::PriceTable;
use crate::store::analysis::collect_sessions;
use crate::store::{frames, Commit, StoreError, Table};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Which lineages a merge asks to compute again.
#[derive(Debug, Clone)]
pub enum Touched {
    /// Every lineage (a rebuilt or repriced store).
    All,
    /// The lineages of these `(user, session)`s' readings.
    Sessions(HashSet<(String, String)>),
}

/// Token classes and web searches, signed, for deficits.
type Totals = [i128; 6];

fn totals_of(t: &TokenCounts, web_search: u64) -> Totals {
    [t.input, t.cache_write_5m, t.cache_write_1h, t.cache_read, t.output, web_search].map(i128::from)
}

fn add(a: &mut Totals, b: &Totals) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
}

/// Brings the `unlogged` table up to date for `touched`.
pub fn refresh(store: &Commit<'_>, prices: &PriceTable, touched: &Touched) -> Result<(), StoreError> {
    if matches!(touched, Touched::Sessions(s) if s.is_empty()) {
        return Ok(());
    }
    let readings = store.load(Table::CostReadings, frames::readings_from)?;
    let lineages = lineages_of(&readings, touched);
    if lineages.is_empty() && !matches!(touched, Touched::All) {
        return Ok(());
    }
    let mine: Vec<&CostReading> = readings.iter().filter(|r| lineages.contains(&r.lineage())).collect();
    let sessions: HashSet<String> = mine.iter().map(|r| r.session_id.clone()).collect();
    let mut kept = store.load(Table::Unlogged, frames::requests_from)?;
    kept.retain(|r| !matches!(touched, Touched::All) && !sessions.contains(r.session_id.as_str()));
    let recorded = match store.scan_requests()? {
        Some(lf) if !sessions.is_empty() => {
            let df =
                collect_sessions(lf, &sessions).map_err(|e| StoreError::damaged(store.path(Table::Requests), &e))?;
            frames::requests_from(&df).map_err(|e| StoreError::damaged(store.path(Table::Requests), &e))?
        }
        _ => Vec::new(),
    };
    let mut calls = store.load(Table::Calls, frames::calls_from)?;
    sort_calls(&mut calls);
    let mut rows = unlogged_calls(&mine, &recorded, &calls);
    prices.price_all(rows.iter_mut());
    kept.extend(rows);
    if kept.is_empty() && !store.path(Table::Unlogged).exists() {
        return Ok(());
    }
    kept.sort_by(|a, b| {
        (&a.user, &a.session_id, a.time, &a.message_id).cmp(&(&b.user, &b.session_id, b.time, &b.message_id))
    });
    let mut df = frames::requests_frame(&kept)
        .map_err(|e| StoreError::Polars { path: store.path(Table::Unlogged), source: e })?;
    store.write(Table::Unlogged, &mut df)
}

/// The lineages to compute: those `touched` names, and every lineage that
/// shares a session with one of them.
fn lineages_of(readings: &[CostReading], touched: &Touched) -> HashSet<Lineage> {
    let mut out: HashSet<Lineage> = match touched {
        Touched::All => return readings.iter().map(CostReading::lineage).collect(),
        Touched::Sessions(s) => readings
            .iter()
            .filter(|r| s.contains(&(r.user.clone(), r.session_id.clone())))
            .map(CostReading::lineage)
            .collect(),
    };
    let sessions: HashSet<(&str, &str)> = readings
        .iter()
        .filter(|r| out.contains(&r.lineage()))
        .map(|r| (r.user.as_str(), r.session_id.as_str()))
        .collect();
    out.extend(
        readings
            .iter()
            .filter(|r| sessions.contains(&(r.user.as_str(), r.session_id.as_str())))
            .map(CostReading::lineage),
    );
    out
}

/// The unlogged calls of the lineages of `readings`, given the recorded
/// requests of their sessions (any other rows are ignored) and the stored
/// calls (sorted by line key). Pure; rows unpriced.
pub fn unlogged_calls(readings: &[&CostReading], recorded: &[Request], calls: &[Call]) -> Vec<Request> {
    let mut by_lineage: BTreeMap<Lineage, Vec<&CostReading>> = BTreeMap::new();
    for r in readings {
        by_lineage.entry(r.lineage()).or_default().push(r);
    }
    let mut by_session: HashMap<(&str, &str), Vec<&Request>> = HashMap::new();
    for r in recorded.iter().filter(|r| !is_unlogged(&r.thread)) {
        by_session.entry((r.user.as_str(), r.session_id.as_str())).or_default().push(r);
    }
    by_lineage.into_values().flat_map(|mut rs| lineage_calls(&mut rs, &by_session, calls)).collect()
}

/// One lineage's unlogged calls, given the recorded requests by
/// `(user, session)`.
fn lineage_calls(
    readings: &mut [&CostReading],
    recorded: &HashMap<(&str, &str), Vec<&Request>>,
    calls: &[Call],
) -> Vec<Request> {
    readings.sort_by(|a, b| (a.time, &a.source, a.line, &a.model).cmp(&(b.time, &b.source, b.line, &b.model)));
    let user = readings.first().map_or("", |r| r.user.as_str());
    let sessions: BTreeSet<&str> = readings.iter().map(|r| r.session_id.as_str()).collect();
    let mut mine: Vec<&Request> =
        sessions.iter().filter_map(|s| recorded.get(&(user, *s))).flatten().copied().collect();
    mine.sort_by_key(|r| r.time);
    let mut seen = 0;
    let mut so_far: HashMap<&str, Totals> = HashMap::new();
    let mut shown: HashMap<String, Totals> = HashMap::new();
    let mut out = Vec::new();
    for reading in group_lines(readings) {
        let time = reading[0].time;
        while seen < mine.len() && mine[seen].time <= time {
            for (model, t) in per_model(mine[seen], calls) {
                add(so_far.entry(model).or_default(), &t);
            }
            seen += 1;
        }
        for r in reading {
            let recorded = so_far.get(r.model.as_str()).copied().unwrap_or_default();
            let shown = shown.entry(r.model.clone()).or_default();
            let total = totals_of(&r.tokens, r.web_search);
            let new: Totals = std::array::from_fn(|k| (total[k] - recorded[k] - shown[k]).max(0));
            if new.iter().any(|&n| n > 0) {
                add(shown, &new);
                let like = context(&mine[..seen], &r.session_id).or_else(|| context(&mine, &r.session_id));
                out.push(row(r, &new, like));
            }
        }
    }
    out
}

/// The readings of each `cost-state` line, in order.
fn group_lines<'a>(readings: &'a [&'a CostReading]) -> impl Iterator<Item = &'a [&'a CostReading]> {
    readings.chunk_by(|a, b| a.source == b.source && a.line == b.line)
}

/// A request's totals per model: its calls' (advisor calls at their own
/// model) when its line logged any, else its own.
fn per_model<'a>(r: &'a Request, calls: &'a [Call]) -> Vec<(&'a str, Totals)> {
    let own = calls_of(calls, r);
    if own.is_empty() {
        return vec![(r.model.as_str(), totals_of(&r.tokens, r.web_search))];
    }
    let mut out: Vec<(&str, Totals)> = own
        .iter()
        .map(|c| (if c.model.is_empty() { r.model.as_str() } else { c.model.as_str() }, totals_of(&c.tokens, 0)))
        .collect();
    out[0].1[5] += i128::from(r.web_search);
    out
}

/// The latest recorded request of `session` among `before`, whose project,
/// directory, branch and version the row takes.
fn context<'a>(before: &[&'a Request], session: &str) -> Option<&'a Request> {
    before.iter().rev().find(|r| r.session_id.as_str() == session).copied()
}

fn row(r: &CostReading, new: &Totals, like: Option<&Request>) -> Request {
    let n = |k: usize| u64::try_from(new[k]).unwrap_or(0);
    let text = |f: fn(&Request) -> &Text| like.map_or_else(|| Text::from(""), |l| f(l).clone());
    Request {
        time: r.time,
        session_id: Text::from(r.session_id.as_str()),
        thread: unlogged_thread(r.compacted),
        project: text(|l| &l.project),
        cwd: text(|l| &l.cwd),
        git_branch: text(|l| &l.git_branch),
        version: text(|l| &l.version),
        model: Text::from(r.model.as_str()),
        tokens: TokenCounts { input: n(0), cache_write_5m: n(1), cache_write_1h: n(2), cache_read: n(3), output: n(4) },
        web_search: n(5),
        speed: Text::from(""),
        inference_geo: Text::from(""),
        server_reason: Text::from(""),
        server_missed_tokens: None,
        is_sidechain: false,
        cost_usd: 0.0,
        source: Text::from(r.source.as_str()),
        line: r.line,
        message_id: format!("unlogged:{}:{}:{}:{}", r.start_ms, r.session_id, r.line, r.model),
        request_id: String::new(),
        user: Text::from(r.user.as_str()),
        machine: Text::from(""),
        client: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::calls::tests::request;
    use chrono::{DateTime, TimeDelta, TimeZone, Utc};

    fn t(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap() + TimeDelta::minutes(minutes)
    }

    fn tok(input: u64, read: u64, output: u64) -> TokenCounts {
        TokenCounts { input, cache_read: read, output, ..TokenCounts::default() }
    }

    fn req(session: &str, id: &str, minutes: i64, tokens: TokenCounts) -> Request {
        Request { session_id: session.into(), message_id: id.into(), time: t(minutes), ..request("m", tokens) }
    }

    fn reading(session: &str, line: u64, minutes: i64, tokens: TokenCounts, compacted: bool) -> CostReading {
        CostReading {
            user: String::new(),
            session_id: session.into(),
            source: format!("{session}.jsonl"),
            line,
            time: t(minutes),
            start_ms: 1,
            model: "m".into(),
            tokens,
            web_search: 0,
            claude_cost_usd: 0.0,
            compacted,
        }
    }

    fn run(readings: &[CostReading], recorded: &[Request]) -> Vec<Request> {
        unlogged_calls(&readings.iter().collect::<Vec<_>>(), recorded, &[])
    }

    #[test]
    fn a_compaction_the_transcript_does_not_show_is_counted_once() {
        let recorded = [req("s", "a", 0, tok(10, 100, 5)), req("s", "b", 10, tok(10, 200, 5))];
        let readings = [
            reading("s", 5, 0, tok(10, 100, 5), false),
            // The summary call: 300 read, 20 out; then the next turn.
            reading("s", 9, 8, tok(10, 400, 25), true),
            reading("s", 14, 10, tok(20, 600, 30), false),
        ];
        let rows = run(&readings, &recorded);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0].thread.as_str(), crate::model::UNLOGGED_COMPACTION);
        assert_eq!(rows[0].tokens, tok(0, 300, 20));
        assert_eq!((rows[0].time, rows[0].line), (t(8), 9));
    }

    #[test]
    fn a_fork_carries_its_parents_totals_without_counting_them_twice() {
        let recorded = [req("parent", "a", 0, tok(10, 100, 5)), req("fork", "b", 5, tok(10, 100, 5))];
        let readings =
            [reading("parent", 3, 0, tok(10, 100, 5), false), reading("fork", 9, 5, tok(20, 200, 10), false)];
        assert!(run(&readings, &recorded).is_empty());
    }

    #[test]
    fn two_terminals_never_lower_a_figure_nor_count_a_call_twice() {
        // Each process writes what it found (the base) plus its own call.
        let recorded =
            [req("s", "base", 0, tok(10, 0, 5)), req("s", "x", 2, tok(1, 0, 1)), req("s", "y", 3, tok(2, 0, 2))];
        let readings = [
            reading("s", 3, 0, tok(10, 0, 5), false),
            reading("s", 9, 2, tok(11, 0, 6), false),
            reading("s", 12, 3, tok(12, 0, 7), false),
        ];
        assert!(run(&readings, &recorded).is_empty());
    }

    #[test]
    fn sub_agent_requests_of_the_session_are_recorded_calls() {
        let agent = Request { thread: "a1".into(), ..req("s", "sub", 1, tok(5, 50, 3)) };
        let recorded = [req("s", "a", 0, tok(10, 100, 5)), agent];
        assert!(run(&[reading("s", 9, 2, tok(15, 150, 8), false)], &recorded).is_empty());
    }
}

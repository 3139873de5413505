//! The rows of the analysis side tables, per session like the analysis
//! rows: every `compact` boundary with its label (`idle` or its trigger)
//! and the main-thread request it is counted with (time, project and cwd,
//! what a report's filter asks: `Table::AnalysisCompactions`), and the
//! session analysis (`Table::SessionAnalysis`, stored as
//! `analysis-sessions.parquet`): per session its last main-thread request
//! (for stale sessions) and its compaction report as JSON.
//! Views count the labels (`analyze::count_by_trigger`, which drops a
//! boundary replayed in another session) and filter the reports.

use crate::analyze::{
    cold_resume_premium, compaction_labels, compaction_report, last_main, CompactionParams, RequestCache,
    SessionCompaction,
};
use crate::model::columns as c;
use crate::model::{Call, Compaction, Request, TokenCounts};
use crate::pricing::Rates;
use crate::store::frames::{f64_column, opt_f64_column, str_column, time_column, u64_column};
use foldhash::HashMap as FoldMap;
use polars::prelude::*;
use std::borrow::Borrow;

/// The label table of `compactions` (whole sessions of `thread`).
pub(super) fn labels_frame<R: Borrow<Request>>(thread: &[R], compactions: &[Compaction]) -> PolarsResult<DataFrame> {
    let labels = compaction_labels(thread, compactions);
    let anchor = |f: fn(&Request) -> &str| -> Vec<Option<&str>> {
        labels.iter().map(|l| l.anchor.map(|i| f(thread[i].borrow()))).collect()
    };
    let anchor_ms: Vec<Option<i64>> =
        labels.iter().map(|l| l.anchor.map(|i| thread[i].borrow().time.timestamp_millis())).collect();
    let anchor_time = Int64Chunked::from_iter_options(c::ANCHOR_TIME.into(), anchor_ms.into_iter())
        .into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC))
        .into_column();
    let columns = vec![
        str_column(c::USER, labels.iter().map(|l| l.compaction.user.as_str())),
        str_column(c::SESSION_ID, labels.iter().map(|l| l.compaction.session_id.as_str())),
        str_column(c::UUID, labels.iter().map(|l| l.compaction.uuid.as_str())),
        str_column(c::TRIGGER, labels.iter().map(|l| l.compaction.trigger.as_str())),
        time_column(c::TIME, labels.iter().map(|l| l.compaction.time)),
        str_column(c::LABEL, labels.iter().map(|l| l.label.as_str())),
        anchor_time,
        Column::new(c::ANCHOR_PROJECT.into(), anchor(|r| &r.project)),
        Column::new(c::ANCHOR_CWD.into(), anchor(|r| &r.cwd)),
    ];
    DataFrame::new(labels.len(), columns)
}

fn to_json(v: &impl serde::Serialize) -> PolarsResult<String> {
    serde_json::to_string(v).map_err(|e| PolarsError::ComputeError(e.to_string().into()))
}

/// Each session's models and how many of its requests each served (a
/// model only its responses' inner calls used counts none), counted a run
/// of one session's rows at a time (the rows come grouped by session).
fn session_models<'a, R: Borrow<Request>>(
    thread: &'a [R],
    calls: &'a [Call],
) -> FoldMap<(&'a str, &'a str), FoldMap<&'a str, u64>> {
    let mut call_models: FoldMap<(&str, &str), Vec<&str>> = FoldMap::default();
    for k in calls {
        call_models.entry((k.user.as_str(), k.message_id.as_str())).or_default().push(k.model.as_str());
    }
    let mut models: FoldMap<(&str, &str), FoldMap<&str, u64>> = FoldMap::default();
    let same = |a: &Request, b: &Request| (&a.user, &a.session_id) == (&b.user, &b.session_id);
    for run in thread.chunk_by(|a, b| same(a.borrow(), b.borrow())) {
        let first = run[0].borrow();
        let m = models.entry((first.user.as_str(), first.session_id.as_str())).or_default();
        for r in run.iter().map(Borrow::borrow) {
            *m.entry(r.model.as_str()).or_default() += 1;
            for k in call_models.get(&(r.user.as_str(), r.message_id.as_str())).into_iter().flatten() {
                m.entry(k).or_default();
            }
        }
    }
    models
}

/// The session analysis: one row per `(user, session)` with a main thread:
/// its last main-thread request (what a stale session's cold resume costs,
/// cache-model §6: its prompt, TTL, rates, model, version and lineage's
/// first read, from which a view computes the v3 premium at its clock) and
/// its compaction report.
pub(super) fn session_analysis_frame<R: Borrow<Request>>(
    thread: &[R],
    caches: &[RequestCache],
    compactions: &[Compaction],
    calls: &[Call],
) -> PolarsResult<DataFrame> {
    let reports = compaction_report(thread, caches, compactions, &CompactionParams::default());
    let last = last_main(thread);
    let models = session_models(thread, calls);
    let rows: Vec<(&SessionCompaction, &Request, &RequestCache)> = reports
        .iter()
        .filter_map(|r| {
            let i = *last.get(&(r.user.as_str(), r.session_id.as_str()))?;
            Some((r, thread[i].borrow(), &caches[i]))
        })
        .collect();
    let json: Vec<String> = rows.iter().map(|(r, _, _)| to_json(r)).collect::<PolarsResult<_>>()?;
    let model_lists: Vec<String> = rows
        .iter()
        .map(|(r, _, _)| {
            let mut v: Vec<(&str, u64)> = models
                .get(&(r.user.as_str(), r.session_id.as_str()))
                .map(|m| m.iter().map(|(k, n)| (*k, *n)).collect())
                .unwrap_or_default();
            v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            to_json(&v)
        })
        .collect::<PolarsResult<_>>()?;
    let s = |name: &str, f: fn(&Request) -> &str| str_column(name, rows.iter().map(|(_, r, _)| f(r)));
    let t = |name: &str, f: fn(&TokenCounts) -> u64| u64_column(name, rows.iter().map(|(_, r, _)| f(&r.tokens)));
    let rate =
        |name: &str, f: fn(&Rates) -> f64| opt_f64_column(name, rows.iter().map(|(_, _, k)| k.rates.as_ref().map(f)));
    let columns = vec![
        s(c::USER, |r| &r.user),
        s(c::SESSION_ID, |r| &r.session_id),
        s(c::PROJECT, |r| &r.project),
        s(c::MODEL, |r| &r.model),
        s(c::VERSION, |r| &r.version),
        time_column(c::TIME, rows.iter().map(|(_, r, _)| r.time)),
        u64_column(c::TTL_AFTER_S, rows.iter().map(|(_, _, k)| u64::from(k.ttl_after_s))),
        f64_column(c::RESUME_PREMIUM_USD, rows.iter().map(|(_, r, k)| cold_resume_premium(r, k, k.ttl_after_s))),
        t(c::INPUT, |k| k.input),
        t(c::CACHE_WRITE_5M, |k| k.cache_write_5m),
        t(c::CACHE_WRITE_1H, |k| k.cache_write_1h),
        t(c::CACHE_READ, |k| k.cache_read),
        u64_column(c::LINEAGE_FIRST_READ, rows.iter().map(|(_, _, k)| k.lineage_first_read)),
        rate(c::RATE_INPUT, |p| p.input),
        rate(c::RATE_OUTPUT, |p| p.output),
        rate(c::RATE_READ_MULTIPLIER, |p| p.read_multiplier),
        str_column(c::COMPACTION_REPORT, json.iter().map(String::as_str)),
        str_column(c::MODELS, model_lists.iter().map(String::as_str)),
    ];
    DataFrame::new(rows.len(), columns)
}

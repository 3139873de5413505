//! The analysis side tables, per session like the analysis rows: every
//! `compact` boundary with its label (`idle` or its trigger) and the
//! main-thread request it is counted with (time, project and cwd, what a
//! report's filter asks), and every session's compaction report as JSON.
//! Views count the labels (`analyze::count_by_trigger`, which drops a
//! boundary replayed in another session) and filter the reports.

use crate::analyze::{compaction_labels, compaction_report, CompactionParams, RequestCache};
use crate::model::columns as c;
use crate::model::{Compaction, Request};
use crate::store::frames::{str_column, time_column};
use polars::prelude::*;

/// The label table of `compactions` (whole sessions of `thread`).
pub fn labels_frame(thread: &[Request], compactions: &[Compaction]) -> PolarsResult<DataFrame> {
    let labels = compaction_labels(thread, compactions);
    let anchor = |f: fn(&Request) -> &str| -> Vec<Option<&str>> {
        labels.iter().map(|l| l.anchor.map(|i| f(&thread[i]))).collect()
    };
    let anchor_ms: Vec<Option<i64>> =
        labels.iter().map(|l| l.anchor.map(|i| thread[i].time.timestamp_millis())).collect();
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

/// The compaction report table: one row per `(user, session)` with a main
/// thread.
pub fn reports_frame(
    thread: &[Request],
    caches: &[RequestCache],
    compactions: &[Compaction],
) -> PolarsResult<DataFrame> {
    let reports = compaction_report(thread, caches, compactions, &CompactionParams::default());
    let json: Vec<String> = reports
        .iter()
        .map(|r| serde_json::to_string(r).map_err(|e| PolarsError::ComputeError(e.to_string().into())))
        .collect::<PolarsResult<_>>()?;
    let columns = vec![
        str_column(c::USER, reports.iter().map(|r| r.user.as_str())),
        str_column(c::SESSION_ID, reports.iter().map(|r| r.session_id.as_str())),
        str_column(c::COMPACTION_REPORT, json.iter().map(String::as_str)),
    ];
    DataFrame::new(reports.len(), columns)
}

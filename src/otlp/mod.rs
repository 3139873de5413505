//! `cachewise export --otlp`: a person's store -> OpenTelemetry, for the
//! collectors platform teams already run. The design, end to end:
//!
//! - **What** (`read`): the view's responses as `report daily` counts and
//!   prices them, each with the cache model's stored verdict. Only usage
//!   figures leave; never message content, titles or paths.
//! - **Logs** (`records`): one record per response, shaped like Claude
//!   Code's `claude_code.api_request` event, plus the cache attributes only
//!   cachewise knows.
//! - **Metrics** (`metrics`): per batch, local day, person and model, the
//!   sums as delta Sums (`claude_code.cost.usage`, `claude_code.token.usage`,
//!   `cachewise.cache.miss_cost`), so a day's points add up to `report daily`.
//! - **Watermark** (`sent`): what a collector accepted, by request
//!   identity. A response is sent once: it is marked only when the logs and
//!   the metrics of its batch were both answered with a 2xx, so a failed run
//!   loses nothing and the next one sends nothing twice. Responses of the
//!   last `SETTLE` before the run's clock wait for the next run (the newest
//!   may still be streaming, and a sent response is never sent again).
//! - **Batches** of `Config::batch` responses bound each request's size.
//! - **Stopping** (`stop`, set by Ctrl-C or SIGTERM): the batch in flight
//!   is answered and marked before the run ends, so an interrupted run
//!   sends nothing twice. Only a kill (or a lost answer) between a
//!   collector's taking a batch and the mark can send it again: the next
//!   run sends that batch first, as it was (`sent`'s pending keys), so its
//!   log records carry the same `cachewise.record_id`s and its metric
//!   points are the same points (attributes, start and end times, values),
//!   which a collector or backend can drop as copies.
//! - **Transport** (`send`): OTLP/HTTP, protobuf (`proto`, declared by
//!   hand) or JSON, retried on 429, 5xx and transport errors.

pub mod config;
pub mod metrics;
pub mod proto;
pub mod read;
pub mod records;
pub mod send;
pub mod sent;

pub use config::{Config, Encoding, Flags};

use crate::store::view::StoreView;
use crate::store::{files, StoreError};
use chrono::{NaiveDate, TimeDelta};
use chrono_tz::Tz;
use prost::Message;
use proto::{ExportMetricsServiceRequest, ResourceMetrics, ScopeMetrics};
use read::Row;
use send::{Accepted, Sender};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// How long a response rests before it is sent.
pub const SETTLE: TimeDelta = TimeDelta::minutes(10);

/// Errors of an OTLP export; each names the URL or file involved (never a
/// header's value).
#[derive(Debug, thiserror::Error)]
pub enum OtlpError {
    #[error("{0}")]
    Config(String),
    #[error(
        "the collector at {url} refused the export: HTTP {status}{}; nothing of this batch was marked sent",
        if detail.is_empty() { String::new() } else { format!(" ({detail})") }
    )]
    Refused { url: String, status: u16, detail: String },
    #[error(
        "the collector at {url} did not take the export after {attempts} tries (last: {why}); nothing of this batch was marked sent, so the next run sends it again"
    )]
    GaveUp { url: String, attempts: u32, why: String },
    #[error(
        "stopped: {done} batch(es) were accepted and marked sent before the interrupt; the next run sends the rest"
    )]
    Stopped { done: usize },
    #[error("{source} (the {done} batch(es) before it were accepted and are marked sent)")]
    Partial { done: usize, source: Box<OtlpError> },
    #[error("{path}: another `cachewise export --otlp` to this collector is running")]
    Busy { path: PathBuf },
    #[error(
        "{dir}: this data directory holds imported bundles; export from your own data directory (the one `cachewise ingest` fills)"
    )]
    TeamStore { dir: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot record what was sent: {0}")]
    Watermark(String),
    #[error("{what}: {source}")]
    Polars { what: &'static str, source: polars::prelude::PolarsError },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What an export did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub logs_url: String,
    pub metrics_url: String,
    /// Responses sent now (one log record each).
    pub sent: usize,
    /// Responses the collector had accepted before.
    pub already_sent: usize,
    /// Responses of the last `SETTLE`, left for the next run.
    pub waiting: usize,
    pub batches: usize,
    pub data_points: usize,
    /// Bytes of the bodies sent.
    pub bytes: usize,
    /// Tries beyond the first, over every body.
    pub retries: u32,
    /// What the collector said it dropped, when it did (partial success).
    pub dropped: Vec<String>,
}

/// Sends what the collector of `config` has not accepted yet: the view's
/// responses since `since` (a local day in `tz`), as `config.user`'s.
/// Once `stop` is set, no further batch starts.
pub fn export(
    view: &StoreView,
    config: &Config,
    since: Option<NaiveDate>,
    tz: Tz,
    stop: &AtomicBool,
) -> Result<Outcome, OtlpError> {
    if view.dir().join(files::LEDGER).exists() {
        return Err(OtlpError::TeamStore { dir: view.dir().to_path_buf() });
    }
    let rows = read::rows(view, &config.user, since, tz)?;
    let mut sent = sent::Sent::open(view.dir(), &config.logs_url, &config.metrics_url)?;
    let cutoff = view.now() - SETTLE;
    let mut out = Outcome {
        logs_url: send::shown(&config.logs_url),
        metrics_url: send::shown(&config.metrics_url),
        ..Outcome::default()
    };
    let mut todo: Vec<Row> = Vec::new();
    for r in rows {
        if sent.contains(r.key) {
            out.already_sent += 1;
        } else if r.time > cutoff {
            out.waiting += 1;
        } else {
            todo.push(r);
        }
    }
    // A batch a killed run left in flight goes first, as it was.
    let (first, rest): (Vec<Row>, Vec<Row>) = todo.into_iter().partition(|r| sent.was_in_flight(r.key));
    let batches = std::iter::once(&first[..]).filter(|b| !b.is_empty()).chain(rest.chunks(config.batch));
    let sender = Sender::new(config);
    for batch in batches {
        if stop.load(Ordering::SeqCst) {
            return Err(OtlpError::Stopped { done: out.batches });
        }
        let step = sent.begin(batch.iter().map(|r| r.key)).and_then(|()| {
            let (accepted, points, bytes) = send_batch(&sender, batch, config, view, tz)?;
            sent.mark(batch.iter().map(|r| r.key))?;
            Ok((accepted, points, bytes))
        });
        let (accepted, points, bytes) = match step {
            Ok(s) => s,
            Err(e) if out.batches == 0 => return Err(e),
            Err(e) => return Err(OtlpError::Partial { done: out.batches, source: Box::new(e) }),
        };
        out.sent += batch.len();
        out.batches += 1;
        out.data_points += points;
        out.bytes += bytes;
        for (what, a) in ["log records", "data points"].iter().zip(&accepted) {
            out.retries += a.attempts.saturating_sub(1);
            if a.rejected > 0 || !a.message.is_empty() {
                out.dropped.push(format!("the collector dropped {} {what}: {}", a.rejected, a.message));
            }
        }
    }
    Ok(out)
}

/// Posts one batch's logs, then its metrics: their answers, the data
/// points and the bytes sent.
fn send_batch(
    sender: &Sender,
    batch: &[Row],
    config: &Config,
    view: &StoreView,
    tz: Tz,
) -> Result<([Accepted; 2], usize, usize), OtlpError> {
    let logs = records::logs_request(batch, config, view.now());
    let metrics = metrics::batch_metrics(batch, &config.user, tz);
    let points = metrics::points(&metrics);
    let metrics = ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(records::resource(config)),
            scope_metrics: vec![ScopeMetrics { scope: Some(records::scope()), metrics }],
        }],
    };
    let (logs, metrics) = match config.encoding {
        Encoding::Protobuf => (logs.encode_to_vec(), metrics.encode_to_vec()),
        Encoding::Json => (json(&logs)?, json(&metrics)?),
    };
    let a = sender.post(&config.logs_url, &logs)?;
    let b = sender.post(&config.metrics_url, &metrics)?;
    Ok(([a, b], points, logs.len() + metrics.len()))
}

fn json<T: serde::Serialize>(v: &T) -> Result<Vec<u8>, OtlpError> {
    serde_json::to_vec(v).map_err(|e| OtlpError::Config(format!("cannot encode OTLP/JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::proto::*;

    #[test]
    fn json_follows_the_otlp_rules() {
        let r = ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                resource: Some(Resource { attributes: vec![KeyValue::text("service.name", "cachewise")] }),
                scope_logs: vec![ScopeLogs {
                    scope: None,
                    log_records: vec![LogRecord {
                        time_unix_nano: 1_770_000_000_000_000_000,
                        attributes: vec![KeyValue::int("input_tokens", 12), KeyValue::double("cost_usd", 0.5)],
                        ..LogRecord::default()
                    }],
                }],
            }],
        };
        let v: serde_json::Value = serde_json::to_value(&r).unwrap();
        let rec = &v["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
        assert_eq!(rec["timeUnixNano"], "1770000000000000000");
        assert_eq!(rec["attributes"][0]["value"]["intValue"], "12");
        assert_eq!(rec["attributes"][1]["value"]["doubleValue"], 0.5);
        assert_eq!(v["resourceLogs"][0]["resource"]["attributes"][0]["value"]["stringValue"], "cachewise");
        let p = NumberDataPoint { value: Some(Number::AsInt(5)), ..NumberDataPoint::default() };
        assert_eq!(serde_json::to_value(&p).unwrap()["asInt"], "5");
        let m = Metric {
            data: Some(Data::Sum(Sum { aggregation_temporality: DELTA, ..Sum::default() })),
            ..Metric::default()
        };
        assert_eq!(serde_json::to_value(&m).unwrap()["sum"]["aggregationTemporality"], 1);
    }
}

//! Rows -> OTLP metrics: per batch, local day (in `--tz`), person and
//! model, the sums of the batch's responses as three monotonic Sums with
//! **delta** temporality (Claude Code's own default):
//!
//! - `claude_code.cost.usage` (USD), what `report daily` sums as `cost_usd`;
//! - `claude_code.token.usage` (tokens), attribute `type` = `input`,
//!   `output`, `cacheRead` or `cacheCreation`, the last split by
//!   `cache.ttl` = `5m` / `1h`;
//! - `cachewise.cache.miss_cost` (USD), attribute `cause` = the cache
//!   model's class of the calls that paid it (`ttl_5m`, `ttl_1h`,
//!   `context_edit`, ..., and `first` for a thread's first write), as
//!   `cache --json` splits its classes' `miss_cost_usd`.
//!
//! A point's interval runs from the first to just after the last response
//! it sums, so it falls inside its day, and each response is in exactly
//! one point of each metric: a backend that sums a day's points (as every
//! delta backend does) shows that day's `report daily` figures. Delta
//! rather than cumulative, because an export sends each response once and
//! nothing else: a cumulative series would need the day's running total,
//! which a later run with older rows (a transcript copied in) would have
//! to restate. Zero-valued points are left out.

use super::proto::{Data, KeyValue, Metric, Number, NumberDataPoint, Sum, DELTA};
use super::read::Row;
use super::records::nanos;
use crate::analyze::CacheClass;
use crate::model::TokenCounts;
use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use chrono_tz::Tz;
use std::collections::BTreeMap;

pub const COST: &str = "claude_code.cost.usage";
pub const TOKENS: &str = "claude_code.token.usage";
pub const MISS_COST: &str = "cachewise.cache.miss_cost";

/// One day and model of a batch: its span and sums.
#[derive(Debug, Clone, PartialEq)]
struct Group {
    first: DateTime<Utc>,
    last: DateTime<Utc>,
    tokens: TokenCounts,
    cost_usd: f64,
    by_cause: BTreeMap<&'static str, f64>,
}

fn groups(rows: &[Row], tz: Tz) -> BTreeMap<(NaiveDate, &str), Group> {
    let mut out: BTreeMap<(NaiveDate, &str), Group> = BTreeMap::new();
    for r in rows {
        let day = r.time.with_timezone(&tz).date_naive();
        let g = out.entry((day, r.model.as_str())).or_insert_with(|| Group {
            first: r.time,
            last: r.time,
            tokens: TokenCounts::default(),
            cost_usd: 0.0,
            by_cause: BTreeMap::new(),
        });
        g.first = g.first.min(r.time);
        g.last = g.last.max(r.time);
        g.tokens += r.tokens;
        g.cost_usd += r.cost_usd;
        for (class, usd) in r.cache.iter().flat_map(|v| &v.by_cause) {
            *g.by_cause.entry(CacheClass::as_str(*class)).or_default() += usd;
        }
    }
    out
}

fn point(g: &Group, attributes: Vec<KeyValue>, value: Number) -> NumberDataPoint {
    NumberDataPoint {
        attributes,
        start_time_unix_nano: nanos(g.first),
        time_unix_nano: nanos(g.last + TimeDelta::milliseconds(1)),
        value: Some(value),
    }
}

fn sum(name: &str, description: &str, unit: &str, data_points: Vec<NumberDataPoint>) -> Metric {
    Metric {
        name: name.to_owned(),
        description: description.to_owned(),
        unit: unit.to_owned(),
        data: Some(Data::Sum(Sum { data_points, aggregation_temporality: DELTA, is_monotonic: true })),
    }
}

fn int(n: u64) -> Number {
    Number::AsInt(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The three metrics of one batch (none for an empty batch).
pub fn batch_metrics(rows: &[Row], user: &str, tz: Tz) -> Vec<Metric> {
    let (mut cost, mut tokens, mut misses) = (Vec::new(), Vec::new(), Vec::new());
    for ((_, model), g) in groups(rows, tz) {
        let base = || vec![KeyValue::text("user.name", user), KeyValue::text("model", model)];
        cost.push(point(&g, base(), Number::AsDouble(g.cost_usd)));
        let t = &g.tokens;
        let kinds = [
            ("input", None, t.input),
            ("output", None, t.output),
            ("cacheRead", None, t.cache_read),
            ("cacheCreation", Some("5m"), t.cache_write_5m),
            ("cacheCreation", Some("1h"), t.cache_write_1h),
        ];
        for (kind, ttl, n) in kinds.into_iter().filter(|k| k.2 > 0) {
            let mut a = base();
            a.push(KeyValue::text("type", kind));
            if let Some(ttl) = ttl {
                a.push(KeyValue::text("cache.ttl", ttl));
            }
            tokens.push(point(&g, a, int(n)));
        }
        for (cause, usd) in g.by_cause.iter().filter(|(_, usd)| **usd != 0.0) {
            let mut a = base();
            a.push(KeyValue::text("cause", *cause));
            misses.push(point(&g, a, Number::AsDouble(*usd)));
        }
    }
    let mut out = Vec::new();
    if !cost.is_empty() {
        out.push(sum(COST, "Cost of the Claude Code responses, as cachewise prices them", "USD", cost));
    }
    if !tokens.is_empty() {
        out.push(sum(TOKENS, "Tokens of the Claude Code responses, by type", "tokens", tokens));
    }
    if !misses.is_empty() {
        out.push(sum(MISS_COST, "What prompt-cache misses cost, by the cache model's cause", "USD", misses));
    }
    out
}

/// The data points of `metrics`.
pub fn points(metrics: &[Metric]) -> usize {
    metrics.iter().map(|m| m.data.as_ref().map_or(0, |Data::Sum(s)| s.data_points.len())).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::otlp::read::Verdict;

    fn row(ms: i64, model: &str, miss: f64) -> Row {
        Row {
            key: ms as u64,
            time: DateTime::from_timestamp_millis(ms).unwrap(),
            session_id: "s".into(),
            model: model.into(),
            tokens: TokenCounts { input: 1, cache_write_5m: 0, cache_write_1h: 7, cache_read: 2, output: 3 },
            cost_usd: 0.5,
            cache: Some(Verdict {
                class: CacheClass::Ttl1h,
                ttl_after_s: 3600,
                rebuilt_tokens: 7,
                miss_cost_usd: miss,
                by_cause: if miss > 0.0 { vec![(CacheClass::Ttl1h, miss)] } else { Vec::new() },
            }),
        }
    }

    #[test]
    fn one_point_per_day_model_and_attribute_set() {
        let day = 86_400_000;
        let rows = [row(10, "a", 0.2), row(20, "a", 0.0), row(day + 5, "a", 0.1), row(30, "b", 0.0)];
        let m = batch_metrics(&rows, "ana", chrono_tz::UTC);
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, [COST, TOKENS, MISS_COST]);
        let Some(Data::Sum(cost)) = &m[0].data else { panic!() };
        assert_eq!(cost.data_points.len(), 3);
        assert_eq!(cost.data_points[0].value, Some(Number::AsDouble(1.0)));
        assert_eq!(cost.data_points[0].start_time_unix_nano, 10_000_000);
        assert_eq!(cost.data_points[0].time_unix_nano, 21_000_000);
        // input, output, cacheRead and the 1h writes (no 5m writes): 4 per group.
        assert_eq!(points(&m[1..2]), 12);
        assert_eq!(points(&m[2..]), 2);
        assert!(batch_metrics(&[], "ana", chrono_tz::UTC).is_empty());
    }
}

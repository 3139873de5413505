//! Rows -> OTLP log records, one per response, shaped like Claude Code's
//! own `claude_code.api_request` event (its body, `event.name` and the
//! attribute names Claude Code uses, so a dashboard built on Claude Code's
//! telemetry reads these too), plus what only cachewise knows: the person,
//! the 5-minute / 1-hour split of the cache writes, the TTL in force, the
//! cache model's class, the tokens it rebuilt and what the miss cost.
//! Also the resource and scope every request of an export carries.

use super::config::Config;
use super::proto::{
    AnyValue, ExportLogsServiceRequest, InstrumentationScope, KeyValue, LogRecord, Resource, ResourceLogs, ScopeLogs,
    Value,
};
use super::read::Row;
use chrono::{DateTime, SecondsFormat, Utc};

/// The body and event name of every record.
pub const EVENT: &str = "claude_code.api_request";
/// `SeverityNumber::INFO`.
const INFO: i32 = 9;

/// Nanoseconds since the epoch (0 before it).
pub fn nanos(t: DateTime<Utc>) -> u64 {
    t.timestamp_nanos_opt().and_then(|n| u64::try_from(n).ok()).unwrap_or(0)
}

/// The resource of every request: the configured attributes.
pub fn resource(config: &Config) -> Resource {
    Resource { attributes: config.resource.iter().map(|(k, v)| KeyValue::text(k, v.as_str())).collect() }
}

/// The instrumentation scope: cachewise and its version.
pub fn scope() -> InstrumentationScope {
    InstrumentationScope { name: "cachewise".to_owned(), version: env!("CARGO_PKG_VERSION").to_owned() }
}

/// The TTL a response left in force, as Claude Code names TTLs: from the
/// cache model when it has the response, else from the response's writes.
fn ttl_name(r: &Row) -> Option<&'static str> {
    match r.cache.as_ref().map(|v| v.ttl_after_s) {
        Some(s) if s >= 3600 => Some("1h"),
        Some(_) => Some("5m"),
        None if r.tokens.cache_write_1h > 0 => Some("1h"),
        None if r.tokens.cache_write_5m > 0 => Some("5m"),
        None => None,
    }
}

/// The attributes of one response's record.
pub fn attributes(r: &Row, user: &str) -> Vec<KeyValue> {
    let t = &r.tokens;
    let mut a = vec![
        KeyValue::text("event.name", "api_request"),
        KeyValue::text("event.timestamp", r.time.to_rfc3339_opts(SecondsFormat::Millis, true)),
        // The response's identity: a record sent again after an interrupted
        // run carries the same id, so a collector can drop the copy.
        KeyValue::text("cachewise.record_id", format!("{:016x}", r.key)),
        KeyValue::text("session.id", r.session_id.as_str()),
        KeyValue::text("user.name", user),
        KeyValue::text("model", r.model.as_str()),
        KeyValue::double("cost_usd", r.cost_usd),
        KeyValue::int("input_tokens", t.input),
        KeyValue::int("output_tokens", t.output),
        KeyValue::int("cache_read_tokens", t.cache_read),
        KeyValue::int("cache_creation_tokens", t.cache_write_5m + t.cache_write_1h),
        KeyValue::int("cache.creation_5m_tokens", t.cache_write_5m),
        KeyValue::int("cache.creation_1h_tokens", t.cache_write_1h),
    ];
    if let Some(ttl) = ttl_name(r) {
        a.push(KeyValue::text("cache.ttl", ttl));
    }
    if let Some(v) = &r.cache {
        a.push(KeyValue::text("cache.class", v.class.as_str()));
        a.push(KeyValue::int("cache.rebuilt_tokens", v.rebuilt_tokens));
        a.push(KeyValue::double("cache.miss_cost_usd", v.miss_cost_usd));
    }
    // `cache.server_reason` goes here once the store keeps the server's
    // own reason for a miss (Claude Code's `last_miss_cause`); no stored
    // column holds it yet, so it is not sent.
    a
}

/// One batch of rows as the body of `/v1/logs`.
pub fn logs_request(rows: &[Row], config: &Config, observed: DateTime<Utc>) -> ExportLogsServiceRequest {
    let observed = nanos(observed);
    let log_records = rows
        .iter()
        .map(|r| LogRecord {
            time_unix_nano: nanos(r.time),
            observed_time_unix_nano: observed,
            severity_number: INFO,
            severity_text: "INFO".to_owned(),
            body: Some(AnyValue { value: Some(Value::StringValue(EVENT.to_owned())) }),
            attributes: attributes(r, &config.user),
            event_name: EVENT.to_owned(),
        })
        .collect();
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(resource(config)),
            scope_logs: vec![ScopeLogs { scope: Some(scope()), log_records }],
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::CacheClass;
    use crate::model::TokenCounts;
    use crate::otlp::read::Verdict;

    fn row(cache: Option<Verdict>) -> Row {
        Row {
            key: 1,
            time: DateTime::from_timestamp_millis(1_770_000_000_123).unwrap(),
            session_id: "s1".into(),
            model: "claude-sonnet-4-5".into(),
            tokens: TokenCounts { input: 3, cache_write_5m: 10, cache_write_1h: 20, cache_read: 400, output: 50 },
            cost_usd: 0.25,
            cache,
        }
    }

    fn get<'a>(a: &'a [KeyValue], k: &str) -> Option<&'a Value> {
        a.iter().find(|kv| kv.key == k).and_then(|kv| kv.value.as_ref()).and_then(|v| v.value.as_ref())
    }

    #[test]
    fn a_record_carries_claude_codes_names_and_the_cache_verdict() {
        let v = Verdict {
            class: CacheClass::Ttl5m,
            ttl_after_s: 3600,
            rebuilt_tokens: 30,
            miss_cost_usd: 0.1,
            by_cause: vec![(CacheClass::Ttl5m, 0.1)],
        };
        let a = attributes(&row(Some(v)), "ana");
        assert_eq!(get(&a, "event.name"), Some(&Value::StringValue("api_request".into())));
        assert_eq!(get(&a, "cache_creation_tokens"), Some(&Value::IntValue(30)));
        assert_eq!(get(&a, "cost_usd"), Some(&Value::DoubleValue(0.25)));
        assert_eq!(get(&a, "cache.class"), Some(&Value::StringValue("ttl_5m".into())));
        assert_eq!(get(&a, "cache.ttl"), Some(&Value::StringValue("1h".into())));
        assert_eq!(get(&a, "user.name"), Some(&Value::StringValue("ana".into())));
        let id = get(&a, "cachewise.record_id");
        assert!(matches!(id, Some(Value::StringValue(s)) if s.len() == 16), "{id:?}");
        let bare = attributes(&row(None), "ana");
        assert_eq!(get(&bare, "cache.class"), None);
        assert_eq!(get(&bare, "cache.ttl"), Some(&Value::StringValue("1h".into())));
    }
}

//! The OTLP messages cachewise sends, declared by hand with `prost`'s derive
//! macros (no protoc, no build script): only the fields it fills, with the
//! field numbers of opentelemetry-proto (`common/v1`, `resource/v1`,
//! `logs/v1`, `metrics/v1` and the two collector services). The same
//! structs serialize as OTLP/JSON through serde: camelCase field names,
//! 64-bit integers as decimal strings, enums as integers. Also the
//! collector's answers: the partial success of an export and the
//! `google.rpc.Status` of a refusal.

use prost::Message;
use serde::{Serialize, Serializer};

/// OTLP/JSON writes 64-bit integers as strings.
fn int_string<S: Serializer>(v: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

fn uint_string<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// `common.v1.AnyValue`: the value kinds cachewise sends.
#[derive(Clone, PartialEq, Message, Serialize)]
pub struct AnyValue {
    #[prost(oneof = "Value", tags = "1, 3, 4")]
    #[serde(flatten)]
    pub value: Option<Value>,
}

#[derive(Clone, PartialEq, prost::Oneof, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Value {
    #[prost(string, tag = "1")]
    StringValue(String),
    #[prost(int64, tag = "3")]
    #[serde(serialize_with = "int_string")]
    IntValue(i64),
    #[prost(double, tag = "4")]
    DoubleValue(f64),
}

/// `common.v1.KeyValue`.
#[derive(Clone, PartialEq, Message, Serialize)]
pub struct KeyValue {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

impl KeyValue {
    /// A string attribute.
    pub fn text(key: &str, v: impl Into<String>) -> KeyValue {
        KeyValue::of(key, Value::StringValue(v.into()))
    }

    /// An integer attribute (token counts past `i64::MAX` saturate).
    pub fn int(key: &str, v: u64) -> KeyValue {
        KeyValue::of(key, Value::IntValue(i64::try_from(v).unwrap_or(i64::MAX)))
    }

    /// A floating-point attribute.
    pub fn double(key: &str, v: f64) -> KeyValue {
        KeyValue::of(key, Value::DoubleValue(v))
    }

    fn of(key: &str, v: Value) -> KeyValue {
        KeyValue { key: key.to_owned(), value: Some(AnyValue { value: Some(v) }) }
    }
}

/// `common.v1.InstrumentationScope`.
#[derive(Clone, PartialEq, Message, Serialize)]
pub struct InstrumentationScope {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub version: String,
}

/// `resource.v1.Resource`.
#[derive(Clone, PartialEq, Message, Serialize)]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `collector.logs.v1.ExportLogsServiceRequest` (the body of `/v1/logs`).
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportLogsServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_logs: Vec<ResourceLogs>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLogs {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_logs: Vec<ScopeLogs>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeLogs {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub log_records: Vec<LogRecord>,
}

/// `logs.v1.LogRecord`.
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogRecord {
    #[prost(fixed64, tag = "1")]
    #[serde(serialize_with = "uint_string")]
    pub time_unix_nano: u64,
    #[prost(fixed64, tag = "11")]
    #[serde(serialize_with = "uint_string")]
    pub observed_time_unix_nano: u64,
    /// `SeverityNumber` (9 is INFO).
    #[prost(int32, tag = "2")]
    pub severity_number: i32,
    #[prost(string, tag = "3")]
    pub severity_text: String,
    #[prost(message, optional, tag = "5")]
    pub body: Option<AnyValue>,
    #[prost(message, repeated, tag = "6")]
    pub attributes: Vec<KeyValue>,
    #[prost(string, tag = "12")]
    pub event_name: String,
}

/// `collector.metrics.v1.ExportMetricsServiceRequest` (the body of `/v1/metrics`).
#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportMetricsServiceRequest {
    #[prost(message, repeated, tag = "1")]
    pub resource_metrics: Vec<ResourceMetrics>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetrics {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_metrics: Vec<ScopeMetrics>,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeMetrics {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub metrics: Vec<Metric>,
}

/// `metrics.v1.Metric`: cachewise sends sums only.
#[derive(Clone, PartialEq, Message, Serialize)]
pub struct Metric {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub description: String,
    #[prost(string, tag = "3")]
    pub unit: String,
    #[prost(oneof = "Data", tags = "7")]
    #[serde(flatten)]
    pub data: Option<Data>,
}

#[derive(Clone, PartialEq, prost::Oneof, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Data {
    #[prost(message, tag = "7")]
    Sum(Sum),
}

/// `AggregationTemporality::DELTA`.
pub const DELTA: i32 = 1;

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sum {
    #[prost(message, repeated, tag = "1")]
    pub data_points: Vec<NumberDataPoint>,
    #[prost(int32, tag = "2")]
    pub aggregation_temporality: i32,
    #[prost(bool, tag = "3")]
    pub is_monotonic: bool,
}

#[derive(Clone, PartialEq, Message, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberDataPoint {
    #[prost(message, repeated, tag = "7")]
    pub attributes: Vec<KeyValue>,
    #[prost(fixed64, tag = "2")]
    #[serde(serialize_with = "uint_string")]
    pub start_time_unix_nano: u64,
    #[prost(fixed64, tag = "3")]
    #[serde(serialize_with = "uint_string")]
    pub time_unix_nano: u64,
    #[prost(oneof = "Number", tags = "4, 6")]
    #[serde(flatten)]
    pub value: Option<Number>,
}

#[derive(Clone, PartialEq, prost::Oneof, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Number {
    #[prost(double, tag = "4")]
    AsDouble(f64),
    #[prost(sfixed64, tag = "6")]
    #[serde(serialize_with = "int_string")]
    AsInt(i64),
}

/// The body of a collector's 2xx answer, logs or metrics alike: field 1 of
/// `PartialSuccess` is `rejected_log_records` or `rejected_data_points`.
#[derive(Clone, PartialEq, Message)]
pub struct ExportResponse {
    #[prost(message, optional, tag = "1")]
    pub partial_success: Option<PartialSuccess>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PartialSuccess {
    #[prost(int64, tag = "1")]
    pub rejected: i64,
    #[prost(string, tag = "2")]
    pub error_message: String,
}

/// `google.rpc.Status`, the body of a refusal (its message only).
#[derive(Clone, PartialEq, Message)]
pub struct Status {
    #[prost(int32, tag = "1")]
    pub code: i32,
    #[prost(string, tag = "2")]
    pub message: String,
}

//! OTLP/HTTP: one POST per body, `Content-Type: application/x-protobuf` or
//! `application/json`, with the configured headers. A 429, a 5xx or a
//! transport error is tried again, at most `ATTEMPTS` times, after an
//! exponential backoff (or the collector's `Retry-After` seconds, capped);
//! any other answer but a 2xx is a refusal naming the URL and the status.
//! A 2xx's partial success (records the collector dropped) is handed back.
//! URLs are shown without credentials or query; header values never.

use super::config::{Config, Encoding};
use super::proto::{ExportResponse, Status};
use super::OtlpError;
use prost::Message;
use std::time::Duration;
use url::Url;

/// Tries per body.
pub const ATTEMPTS: u32 = 5;
/// The first wait; each next one doubles, up to `MAX_WAIT`.
const FIRST_WAIT: Duration = Duration::from_millis(500);
const MAX_WAIT: Duration = Duration::from_secs(30);
/// The longest `Retry-After` honoured.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// What is read of an answer's body.
const MAX_ANSWER: u64 = 64 * 1024;

/// A 2xx answer: what the collector says it dropped (0: nothing).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Accepted {
    pub rejected: i64,
    pub message: String,
    /// Tries it took.
    pub attempts: u32,
}

/// Posts bodies to a collector.
pub struct Sender {
    agent: ureq::Agent,
    headers: Vec<(String, String)>,
    encoding: Encoding,
}

/// A URL as messages show it: no user, password or query.
pub fn shown(url: &Url) -> String {
    let mut u = url.clone();
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

enum Try {
    Done(Accepted),
    /// Worth another try, after the collector's wait if it named one.
    Again(String, Option<Duration>),
    Refused(u16, String),
}

impl Sender {
    pub fn new(config: &Config) -> Sender {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // A redirect is answered as a refusal: headers carry credentials.
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Sender { agent, headers: config.headers.clone(), encoding: config.encoding }
    }

    /// POSTs `body` to `url` until the collector takes it (or refuses it,
    /// or `ATTEMPTS` tries failed).
    pub fn post(&self, url: &Url, body: &[u8]) -> Result<Accepted, OtlpError> {
        let mut wait = FIRST_WAIT;
        let mut why = String::new();
        for attempt in 1..=ATTEMPTS {
            match self.once(url, body) {
                Try::Done(a) => return Ok(Accepted { attempts: attempt, ..a }),
                Try::Refused(status, detail) => return Err(OtlpError::Refused { url: shown(url), status, detail }),
                Try::Again(reason, after) => {
                    why = reason;
                    if attempt < ATTEMPTS {
                        let pause = after.map_or(wait, |a| a.min(MAX_RETRY_AFTER));
                        tracing::warn!("{}: {why}; trying again in {:.1} s", shown(url), pause.as_secs_f64());
                        std::thread::sleep(pause);
                        wait = (wait * 2).min(MAX_WAIT);
                    }
                }
            }
        }
        Err(OtlpError::GaveUp { url: shown(url), attempts: ATTEMPTS, why })
    }

    fn once(&self, url: &Url, body: &[u8]) -> Try {
        let mut req = self.agent.post(url.as_str()).header("content-type", self.encoding.content_type());
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let mut resp = match req.send(body) {
            Ok(r) => r,
            // The error may quote the request; only its kind is kept.
            Err(e) => return Try::Again(transport(&e), None),
        };
        let status = resp.status().as_u16();
        let after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let json = resp.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
        let answer = resp.body_mut().with_config().limit(MAX_ANSWER).read_to_vec().unwrap_or_default();
        match status {
            200..=299 => Try::Done(partial(&answer, json)),
            429 | 500..=599 => Try::Again(format!("HTTP {status}"), after),
            _ => Try::Refused(status, detail(&answer, json)),
        }
    }
}

fn transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) => format!("cannot reach the collector ({})", io.kind()),
        ureq::Error::Timeout(_) => "the collector did not answer in time".to_owned(),
        ureq::Error::HostNotFound => "host not found".to_owned(),
        ureq::Error::ConnectionFailed => "connection failed".to_owned(),
        other => format!("transport error: {other}"),
    }
}

/// The partial success of a 2xx answer, protobuf or JSON (empty: none).
fn partial(answer: &[u8], json: bool) -> Accepted {
    if json {
        let v: serde_json::Value = serde_json::from_slice(answer).unwrap_or_default();
        let p = &v["partialSuccess"];
        let rejected = ["rejectedLogRecords", "rejectedDataPoints"]
            .iter()
            .find_map(|k| match &p[k] {
                serde_json::Value::String(s) => s.parse().ok(),
                n => n.as_i64(),
            })
            .unwrap_or(0);
        let message = p["errorMessage"].as_str().unwrap_or_default();
        return Accepted { rejected, message: bounded(message), attempts: 0 };
    }
    let p = ExportResponse::decode(answer).ok().and_then(|r| r.partial_success).unwrap_or_default();
    Accepted { rejected: p.rejected, message: bounded(&p.error_message), attempts: 0 }
}

/// What a refusal's body says: a `google.rpc.Status` message (protobuf or
/// JSON), else its text; bounded, controls stripped.
fn detail(answer: &[u8], json: bool) -> String {
    let text = if json {
        let v: serde_json::Value = serde_json::from_slice(answer).unwrap_or_default();
        v["message"].as_str().map_or_else(|| String::from_utf8_lossy(answer).into_owned(), str::to_owned)
    } else {
        match Status::decode(answer) {
            Ok(s) if !s.message.is_empty() => s.message,
            _ => String::from_utf8_lossy(answer).into_owned(),
        }
    };
    bounded(&text)
}

/// At most 300 characters of `s`, without control characters.
fn bounded(s: &str) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control()).take(300).collect();
    clean.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_drop_credentials_and_query() {
        let u = Url::parse("https://me:secret@otel.example:4318/v1/logs?api_key=k").unwrap();
        assert_eq!(shown(&u), "https://otel.example:4318/v1/logs");
    }

    #[test]
    fn answers_are_read_in_either_encoding() {
        let pb = ExportResponse {
            partial_success: Some(crate::otlp::proto::PartialSuccess { rejected: 3, error_message: "old".into() }),
        };
        let a = partial(&pb.encode_to_vec(), false);
        assert_eq!((a.rejected, a.message.as_str()), (3, "old"));
        let j = br#"{"partialSuccess":{"rejectedDataPoints":"2","errorMessage":"x"}}"#;
        assert_eq!(partial(j, true).rejected, 2);
        assert_eq!(partial(b"", false), Accepted::default());
        let s = Status { code: 3, message: "bad \x1b[31mbody".into() };
        assert_eq!(detail(&s.encode_to_vec(), false), "bad [31mbody");
        assert_eq!(detail(br#"{"code":3,"message":"nope"}"#, true), "nope");
    }
}

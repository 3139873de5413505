//! The fake Messages API Claude Code talks to: `POST /v1/messages`
//! (streamed as server-sent events, or one JSON body), `POST
//! /v1/messages/count_tokens`, and two control routes: `POST /_fake/clock`
//! sets the API's clock (`{"now": RFC 3339}`; it then runs on from there),
//! `GET /_fake/ledger` lists every call served. Usage comes from the
//! prompt cache (`cache`), answers from the prompt's directives (`reply`);
//! the ledger is the truth the suite checks cachewise against.

use super::cache::{Cache, Cause, Prompt, Served, Usage};
use super::reply::{reply_to, Reply};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One API call the fake served.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub at: DateTime<Utc>,
    /// `X-Claude-Code-Session-Id`.
    pub session: String,
    /// The cache's thread (`thread_of`).
    pub thread: String,
    pub model: String,
    pub message_id: String,
    pub usage: Usage,
    pub output: u64,
    pub cause: Cause,
    /// The `cache_miss_reason.type` sent, if any, and its
    /// `cache_missed_input_tokens`.
    pub reason: Option<&'static str>,
    pub missed: Option<u64>,
    /// A compaction's summary request.
    pub summary: bool,
    pub streamed: bool,
}

/// The API's clock: an instant set by the test, running on in real time.
#[derive(Debug, Clone, Copy)]
struct Clock {
    at: DateTime<Utc>,
    set: Instant,
}

impl Clock {
    fn now(&self) -> DateTime<Utc> {
        self.at + chrono::TimeDelta::from_std(self.set.elapsed()).unwrap_or_default()
    }
}

#[derive(Debug)]
struct Inner {
    /// This API's number among the process's: message ids are unique
    /// across them, as the real API's are.
    api: u64,
    cache: Cache,
    ledger: Vec<Call>,
    clock: Clock,
    paths: Vec<String>,
}

/// The fake's state, shared by its handlers and the test.
#[derive(Debug, Clone)]
pub(crate) struct Fake(Arc<Mutex<Inner>>);

impl Fake {
    pub(crate) fn new(now: DateTime<Utc>) -> Fake {
        static APIS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let inner = Inner {
            api: APIS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            cache: Cache::default(),
            ledger: Vec::new(),
            clock: Clock { at: now, set: Instant::now() },
            paths: Vec::new(),
        };
        Fake(Arc::new(Mutex::new(inner)))
    }

    /// Sets the clock (what `POST /_fake/clock` does).
    pub(crate) fn set_clock(&self, now: DateTime<Utc>) {
        self.lock().clock = Clock { at: now, set: Instant::now() };
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.lock().clock.now()
    }

    /// Every call served so far.
    pub(crate) fn ledger(&self) -> Vec<Call> {
        self.lock().ledger.clone()
    }

    /// Every path a request was made to, in order.
    pub(crate) fn paths(&self) -> Vec<String> {
        self.lock().paths.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The router over this state.
    pub(crate) fn router(&self) -> Router {
        Router::new()
            .route("/v1/messages", post(messages))
            .route("/v1/messages/count_tokens", post(count_tokens))
            .route("/_fake/clock", post(set_clock))
            .route("/_fake/ledger", get(ledger))
            .fallback(unknown)
            .layer(DefaultBodyLimit::max(64 << 20))
            .with_state(self.clone())
    }

    /// Serves on `listener` (bound inside the test's network namespace)
    /// on a runtime of its own, for as long as the test runs.
    pub(crate) fn serve(&self, listener: std::net::TcpListener) {
        let app = self.router();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                listener.set_nonblocking(true).expect("nonblocking");
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                axum::serve(listener, app).await.expect("serve");
            });
        });
    }

    fn serve_call(&self, headers: &HeaderMap, body: &Value, streamed: bool) -> (Call, Reply) {
        let mut inner = self.lock();
        let now = inner.clock.now();
        let n = inner.ledger.len() as u64 + 1;
        let prompt = Prompt::of(body);
        let thread = thread_of(body);
        let Served { usage, cause, missed } = inner.cache.serve(&thread, &prompt, now);
        let reply = reply_to(body, n);
        let call = Call {
            at: now,
            session: header_str(headers, "x-claude-code-session-id"),
            thread,
            model: prompt.model.clone(),
            message_id: format!("msg_fake{:03}{n:06}", inner.api),
            usage,
            output: reply.output_tokens(),
            cause,
            reason: cause.reason(),
            missed,
            summary: reply.summary,
            streamed,
        };
        inner.ledger.push(call.clone());
        (call, reply)
    }
}

fn header_str(headers: &HeaderMap, name: &str) -> String {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned()
}

/// The cache's thread of a request: the conversation it continues, known
/// by how it starts (its first message). Sub-agents start their own; a
/// compaction starts a new one; a resume, a fork, a model switch or a
/// tools change continues one. The session (Claude Code's header) is in
/// the ledger, not in the thread: a fork's first request continues its
/// parent's conversation, and reads its cache.
pub(super) fn thread_of(body: &Value) -> String {
    let mut first = body.pointer("/messages/0/content").cloned().unwrap_or(Value::Null);
    if let Some(blocks) = first.as_array_mut() {
        blocks.iter_mut().filter_map(Value::as_object_mut).for_each(|b| {
            b.remove("cache_control");
        });
    }
    let digest = Sha256::digest(first.to_string().as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

async fn messages(State(fake): State<Fake>, headers: HeaderMap, body: Bytes) -> Response {
    fake.lock().paths.push("/v1/messages".into());
    let Ok(body) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let streamed = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let (call, reply) = fake.serve_call(&headers, &body, streamed);
    if let Some(ms) = reply.delay_ms {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
    if streamed {
        let events = sse(&call, &reply);
        ([(header::CONTENT_TYPE, "text/event-stream")], events).into_response()
    } else {
        Json(message(&call, &reply, reply.blocks.clone())).into_response()
    }
}

/// The usage object the API reports for `call`.
fn usage_json(call: &Call, output: u64) -> Value {
    let u = call.usage;
    json!({
        "input_tokens": u.input,
        "cache_creation_input_tokens": u.write_5m + u.write_1h,
        "cache_read_input_tokens": u.read,
        "cache_creation": {"ephemeral_5m_input_tokens": u.write_5m, "ephemeral_1h_input_tokens": u.write_1h},
        "output_tokens": output,
        "service_tier": "standard",
    })
}

fn diagnostics(call: &Call) -> Value {
    match (call.reason, call.missed) {
        (Some(kind), Some(missed)) => json!({"cache_miss_reason": {"type": kind, "cache_missed_input_tokens": missed}}),
        (Some(kind), None) => json!({"cache_miss_reason": {"type": kind}}),
        (None, _) => Value::Null,
    }
}

fn message(call: &Call, reply: &Reply, content: Vec<Value>) -> Value {
    let mut m = json!({
        "id": call.message_id, "type": "message", "role": "assistant", "model": call.model,
        "content": content, "stop_reason": reply.stop, "stop_sequence": null,
        "usage": usage_json(call, call.output),
    });
    if call.reason.is_some() {
        m["diagnostics"] = diagnostics(call);
    }
    m
}

/// The response as server-sent events, `message_start` to `message_stop`.
fn sse(call: &Call, reply: &Reply) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| out.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    let mut start = message(call, reply, Vec::new());
    start["stop_reason"] = Value::Null;
    start["usage"] = usage_json(call, 1);
    event("message_start", json!({"type": "message_start", "message": start}));
    for (i, block) in reply.blocks.iter().enumerate() {
        let (opening, delta) = match block["type"].as_str() {
            Some("tool_use") => {
                let mut open = block.clone();
                open["input"] = json!({});
                (open, json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}))
            }
            _ => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": block["text"]})),
        };
        event("content_block_start", json!({"type": "content_block_start", "index": i, "content_block": opening}));
        event("content_block_delta", json!({"type": "content_block_delta", "index": i, "delta": delta}));
        event("content_block_stop", json!({"type": "content_block_stop", "index": i}));
    }
    let mut delta = json!({"type": "message_delta", "delta": {"stop_reason": reply.stop, "stop_sequence": null},
        "usage": usage_json(call, call.output)});
    if call.reason.is_some() {
        delta["diagnostics"] = diagnostics(call);
    }
    event("message_delta", delta);
    event("message_stop", json!({"type": "message_stop"}));
    out
}

async fn count_tokens(State(fake): State<Fake>, body: Bytes) -> Response {
    fake.lock().paths.push("/v1/messages/count_tokens".into());
    let tokens = serde_json::from_slice::<Value>(&body).map(|b| Prompt::of(&b).tokens()).unwrap_or(0);
    Json(json!({"input_tokens": tokens})).into_response()
}

async fn set_clock(State(fake): State<Fake>, Json(body): Json<Value>) -> Response {
    match body.get("now").and_then(Value::as_str).and_then(|s| DateTime::parse_from_rfc3339(s).ok()) {
        Some(t) => {
            fake.set_clock(t.with_timezone(&Utc));
            StatusCode::NO_CONTENT.into_response()
        }
        None => (StatusCode::BAD_REQUEST, "expected {\"now\": RFC 3339}").into_response(),
    }
}

async fn ledger(State(fake): State<Fake>) -> Response {
    let rows: Vec<Value> = fake
        .ledger()
        .iter()
        .map(|c| {
            json!({"at": c.at.to_rfc3339(), "session": c.session, "thread": c.thread, "model": c.model,
                "message_id": c.message_id, "input": c.usage.input, "write_5m": c.usage.write_5m,
                "write_1h": c.usage.write_1h, "read": c.usage.read, "output": c.output,
                "cause": format!("{:?}", c.cause), "reason": c.reason, "summary": c.summary})
        })
        .collect();
    Json(rows).into_response()
}

async fn unknown(State(fake): State<Fake>, uri: axum::http::Uri) -> Response {
    fake.lock().paths.push(uri.path().to_owned());
    StatusCode::NOT_FOUND.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    async fn post(fake: &Fake, uri: &str, body: Value) -> (StatusCode, Vec<u8>) {
        let req = axum::http::Request::builder()
            .method("POST")
            .uri(uri)
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let res = fake.router().oneshot(req).await.unwrap();
        (res.status(), res.into_body().collect().await.unwrap().to_bytes().to_vec())
    }

    #[tokio::test]
    async fn answers_without_streaming_counts_tokens_and_takes_its_clock() {
        let t = Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap();
        let fake = Fake::new(t);
        let body = json!({"model": "m", "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "hello [[pad:100]]"}]});
        let (status, bytes) = post(&fake, "/v1/messages/count_tokens", body.clone()).await;
        assert_eq!(status, StatusCode::OK);
        let counted: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(counted["input_tokens"].as_u64(), Some(Prompt::of(&body).tokens()));
        let (status, bytes) = post(&fake, "/v1/messages", body.clone()).await;
        assert_eq!(status, StatusCode::OK);
        let m: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            m["usage"]["cache_creation"]["ephemeral_5m_input_tokens"].as_u64().unwrap()
                + m["usage"]["input_tokens"].as_u64().unwrap(),
            Prompt::of(&body).tokens()
        );
        assert!(!fake.ledger()[0].streamed);
        let later = t + chrono::TimeDelta::hours(2);
        let (status, _) = post(&fake, "/_fake/clock", json!({"now": later.to_rfc3339()})).await;
        assert_eq!(status, StatusCode::NO_CONTENT);
        assert!(fake.now() >= later && fake.now() < later + chrono::TimeDelta::seconds(5));
        let (status, _) = post(
            &fake,
            "/v1/messages",
            json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}]}),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert!(fake.ledger()[1].streamed);
    }
}

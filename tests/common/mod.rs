//! Fixture builder for integration tests: writes Claude Code-shaped JSONL
//! trees with known usage, so expected totals are computed, not copied;
//! and the dashboard's state over a store, with a fixed clock.
#![allow(dead_code)]

use cachewise::pricing::PriceTable;
use cachewise::store::Store;
use cachewise::web::{AppState, Clock, Settings};
use chrono::{DateTime, Duration, TimeZone, Utc};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) mod reference;
pub(crate) mod stepwise;
pub(crate) mod summary;
pub(crate) mod words;

/// Runs the `cachewise` binary on the transcripts under `root` and the data
/// directory `data`, with the user's own settings left out of its
/// environment.
pub(crate) fn cachewise(root: &Path, data: &Path, args: &[&str]) -> Output {
    cachewise_in(Some(root), data, args)
}

/// The binary under test: this build's, or `CACHEWISE_TEST_BIN` (to show
/// a test fails on an older build).
pub(crate) fn bin() -> std::ffi::OsString {
    std::env::var_os("CACHEWISE_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_cachewise").into())
}

/// `cachewise`, also without any transcript root (`None`: the data
/// directory alone, as for `import` or `--no-ingest` reports).
pub(crate) fn cachewise_in(root: Option<&Path>, data: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(bin());
    c.args(args).arg("--data-dir").arg(data).env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR");
    if let Some(r) = root {
        c.arg("--claude-dir").arg(r);
    }
    c.output().unwrap_or_else(|e| panic!("cannot run cachewise: {e}"))
}

/// A secret that appears in message content and must never reach the store.
pub(crate) const SECRET: &str = "sk-ant-SECRET-never-store-me";

/// One API response, written as `lines` JSONL lines.
#[derive(Debug, Clone)]
pub(crate) struct Resp {
    pub session: String,
    pub msg: String,
    pub req: String,
    pub model: String,
    pub time: DateTime<Utc>,
    pub input: u64,
    pub w5: u64,
    pub w1h: u64,
    pub read: u64,
    pub out: u64,
    pub lines: usize,
    pub sidechain: bool,
    pub agent: Option<String>,
    pub version: String,
}

pub(crate) fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 11, 20, 0, 0).unwrap()
}

impl Resp {
    pub(crate) fn new(session: &str, n: u64, minutes: i64) -> Resp {
        Resp {
            session: session.into(),
            msg: format!("msg_{session}_{n}"),
            req: format!("req_{session}_{n}"),
            model: "claude-sonnet-4-5-20250929".into(),
            time: t0() + Duration::minutes(minutes),
            input: 3 + n,
            w5: 1000 * n,
            w1h: 0,
            read: 20_000 + 500 * n,
            out: 100 + n,
            lines: 3,
            sidechain: false,
            agent: None,
            version: "2.1.39".into(),
        }
    }

    /// The JSONL lines of this response: placeholder output on all but the last.
    pub(crate) fn to_lines(&self) -> Vec<String> {
        (0..self.lines)
            .map(|i| {
                let last = i + 1 == self.lines;
                let out = if last { self.out } else { 1 + i as u64 };
                let ts = (self.time + Duration::milliseconds(i as i64 * 300)).format("%Y-%m-%dT%H:%M:%S%.3fZ");
                let agent = self.agent.as_ref().map(|a| format!(r#","agentId":"{a}""#)).unwrap_or_default();
                format!(
                    r#"{{"parentUuid":null,"isSidechain":{sc},"userType":"external","cwd":"/home/u/app","sessionId":"{s}","version":"{v}","gitBranch":"main"{agent},"message":{{"model":"{m}","id":"{id}","type":"message","role":"assistant","content":[{{"type":"text","text":"{SECRET} part {i}"}}],"stop_reason":null,"usage":{{"input_tokens":{inp},"cache_creation_input_tokens":{w},"cache_read_input_tokens":{r},"cache_creation":{{"ephemeral_5m_input_tokens":{w5},"ephemeral_1h_input_tokens":{w1h}}},"output_tokens":{out},"service_tier":"standard"}}}},"requestId":"{req}","type":"assistant","uuid":"u-{id}-{i}","timestamp":"{ts}"}}"#,
                    sc = self.sidechain,
                    s = self.session,
                    v = self.version,
                    m = self.model,
                    id = self.msg,
                    inp = self.input,
                    w = self.w5 + self.w1h,
                    r = self.read,
                    w5 = self.w5,
                    w1h = self.w1h,
                    req = self.req,
                )
            })
            .collect()
    }

    /// List-price cost of this response for Sonnet 4.5 ($3 in, $15 out).
    pub(crate) fn sonnet_cost(&self) -> f64 {
        let pin = 3e-6;
        self.input as f64 * pin
            + self.w5 as f64 * 1.25 * pin
            + self.w1h as f64 * 2.0 * pin
            + self.read as f64 * 0.1 * pin
            + self.out as f64 * 15e-6
    }
}

pub(crate) fn user_line(session: &str, minutes: i64) -> String {
    let ts = (t0() + Duration::minutes(minutes)).format("%Y-%m-%dT%H:%M:%S%.3fZ");
    format!(
        r#"{{"parentUuid":null,"isSidechain":false,"type":"user","sessionId":"{session}","message":{{"role":"user","content":"{SECRET} please"}},"uuid":"user-{minutes}","timestamp":"{ts}","toolUseResult":{{"usage":{{"input_tokens":999999}}}}}}"#
    )
}

pub(crate) fn compact_line(session: &str, minutes: i64, pre: u64) -> String {
    let ts = (t0() + Duration::minutes(minutes)).format("%Y-%m-%dT%H:%M:%S%.3fZ");
    format!(
        r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","sessionId":"{session}","timestamp":"{ts}","uuid":"cb-{minutes}","compactMetadata":{{"trigger":"auto","preTokens":{pre}}}}}"#
    )
}

pub(crate) fn title_line(session: &str, title: &str) -> String {
    format!(r#"{{"type":"ai-title","sessionId":"{session}","aiTitle":"{title}"}}"#)
}

/// Writes `lines` (joined with `\n`, with a trailing newline) to `root/projects/rel`.
pub(crate) fn write(root: &Path, rel: &str, lines: &[String]) -> PathBuf {
    let path = root.join("projects").join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut body = lines.join("\n");
    body.push('\n');
    fs::write(&path, body).unwrap();
    path
}

/// Appends raw text to a file.
pub(crate) fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// The shared real corpus, when this checkout sits beside `shared/`.
pub(crate) fn real_corpus() -> Option<PathBuf> {
    corpus("real")
}

/// `../shared/corpus/NAME/claude`, when this checkout sits beside
/// `shared/`; None (the caller skips, saying so) when it does not, and a
/// failure instead when `CACHEWISE_CORPUS=required` (CI).
pub(crate) fn corpus(name: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus").join(name).join("claude");
    if p.join("projects").is_dir() {
        return Some(p);
    }
    let required = std::env::var("CACHEWISE_CORPUS").is_ok_and(|v| v == "required");
    assert!(!required, "CACHEWISE_CORPUS=required but ../shared/corpus/{name}/claude is not there");
    println!("skipped: ../shared/corpus/{name}/claude not found (CACHEWISE_CORPUS=required makes this fail)");
    None
}

/// The dashboard's settings over `store`: built-in prices, days in UTC,
/// weeks from Monday, the clock stopped at `now`, no Claude Code roots.
pub(crate) fn settings(store: &Store, now: DateTime<Utc>) -> Settings {
    Settings {
        store: store.clone(),
        prices: PriceTable::embedded().unwrap(),
        tz: chrono_tz::UTC,
        week_start: chrono::Weekday::Mon,
        banner: None,
        clock: Clock::Fixed(now),
        claude_roots: Vec::new(),
    }
}

/// `GET uri` of the dashboard, in process: the body (the status must be 200).
pub(crate) fn get(state: &AppState, uri: &str) -> String {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    // Multi-threaded: a page's first read runs the engine, which blocks.
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let req = axum::http::Request::builder().uri(uri).header("host", "127.0.0.1");
        let res =
            cachewise::web::app(state.clone()).oneshot(req.body(axum::body::Body::empty()).unwrap()).await.unwrap();
        assert_eq!(res.status(), 200, "{uri}");
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
    })
}

/// The dashboard's state over `store`: built-in prices, days in UTC, the
/// clock stopped at `now`.
pub(crate) fn web_state(store: &Store, now: DateTime<Utc>) -> AppState {
    web_state_weeks(store, now, chrono::Weekday::Mon)
}

/// `web_state` with weeks starting on `week_start` (`serve --start-of-week`).
pub(crate) fn web_state_weeks(store: &Store, now: DateTime<Utc>, week_start: chrono::Weekday) -> AppState {
    AppState::new(Settings {
        store: store.clone(),
        prices: PriceTable::embedded().unwrap(),
        tz: chrono_tz::UTC,
        week_start,
        banner: None,
        clock: Clock::Fixed(now),
        claude_roots: Vec::new(),
    })
    .unwrap()
}

/// The store as a report reads it, as of `now`.
pub(crate) fn view(store: &Store, prices: &PriceTable, now: DateTime<Utc>) -> cachewise::store::view::StoreView {
    cachewise::materialize::view(store, prices, now).unwrap()
}

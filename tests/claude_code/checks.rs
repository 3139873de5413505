//! What every scenario asserts, against the fake API's ledger (the truth)
//! and Claude Code's own `cost-state` lines:
//!
//! - ingest reads every line of the client's transcripts (no malformed line);
//! - every call the client paid for is counted: cachewise's total equals
//!   the ledger priced by cachewise's price table, to the micro-dollar;
//! - each recorded request's tokens equal the ledger's call, its cache
//!   class is the cause the ledger names, and the server's reason is kept;
//! - each session's cost equals Claude Code's last `cost-state`, where the
//!   session's lineage is its own (`lineage_totals` covers forks);
//! - no byte of a planted marker reaches any file of the data directory;
//! - the transcripts hold no line type or assistant field cachewise has
//!   no rule for (`format`).

use super::api::Call;
use super::cache::{Cause, Ttl};
use super::*;
use cachewise::pricing::PriceTable;
use cachewise::store::Store;
use cachewise::web::{app, AppState, Clock, Settings};
use serde_json::Value;
use std::collections::BTreeMap;

/// A secret planted in prompts and tool output; never in the store.
pub(super) const MARKER: &str = "sk-ant-MARKER-never-in-the-store";

/// cachewise's figures of one client, as of `now`.
pub(super) struct Seen {
    pub sessions: Vec<Value>,
    pub total_usd: f64,
    pub requests: u64,
    /// Every timeline row of every session, by message id.
    pub rows: BTreeMap<String, Value>,
}

/// Ingests `client`'s transcripts (no line may be malformed) and reads
/// back every figure the checks need.
pub(super) fn seen(h: &Harness, client: &Client, now: DateTime<Utc>) -> Seen {
    let out = cachewise(h, client, now, &["ingest"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ingest: {err}");
    assert!(!err.contains("malformed"), "ingest found malformed lines: {err}");
    let report = cachewise_json(h, client, now, &["report", "session", "--json"]);
    let sessions = report["rows"].as_array().cloned().unwrap_or_default();
    let total_usd = report["total"]["cost_usd"].as_f64().unwrap();
    let requests = report["total"]["requests"].as_u64().unwrap();
    let mut rows = BTreeMap::new();
    for s in &sessions {
        let id = s["session_id"].as_str().unwrap();
        let v = api(h, client, now, &format!("/api/session/{id}"));
        for r in v["timeline"]["rows"].as_array().into_iter().flatten() {
            rows.insert(r["message_id"].as_str().unwrap().to_owned(), r.clone());
        }
    }
    Seen { sessions, total_usd, requests, rows }
}

/// `GET uri` of the dashboard over `client`'s data directory, as JSON.
pub(super) fn api(h: &Harness, client: &Client, now: DateTime<Utc>, uri: &str) -> Value {
    serde_json::from_str(&page(h, client, now, uri)).unwrap()
}

/// `GET uri` of the dashboard over `client`'s data directory: its body.
pub(super) fn page(h: &Harness, client: &Client, now: DateTime<Utc>, uri: &str) -> String {
    let store = Store::open(&h.data_dir(client)).unwrap();
    let state = AppState::new(Settings {
        store,
        prices: PriceTable::embedded().unwrap(),
        tz: chrono_tz::UTC,
        week_start: chrono::Weekday::Mon,
        banner: None,
        clock: Clock::Fixed(now),
        claude_roots: vec![client.config()],
    })
    .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        use http_body_util::BodyExt;
        use tower::ServiceExt;
        let req = axum::http::Request::builder().uri(uri).body(axum::body::Body::empty()).unwrap();
        let res = app(state).oneshot(req).await.unwrap();
        assert!(res.status().is_success(), "{uri}: {}", res.status());
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    })
}

/// A ledger call priced by cachewise's table.
pub(super) fn price(prices: &PriceTable, c: &Call) -> f64 {
    let rates = prices.base_rates(&c.model, c.at).unwrap_or_else(|| panic!("no price for {}", c.model));
    let u = c.usage;
    let tokens = cachewise::model::TokenCounts {
        input: u.input,
        cache_write_5m: u.write_5m,
        cache_write_1h: u.write_1h,
        cache_read: u.read,
        output: c.output,
    };
    rates.cost(&tokens, 0)
}

/// Every call was counted: cachewise's total is the ledger's, priced.
pub(super) fn every_call_counted(ledger: &[Call], seen: &Seen) {
    let prices = PriceTable::embedded().unwrap();
    let truth: f64 = ledger.iter().map(|c| price(&prices, c)).sum();
    assert!((seen.total_usd - truth).abs() < 1e-6, "cachewise ${} against the ledger's ${truth}", seen.total_usd);
    assert_eq!(seen.requests, ledger.len() as u64, "requests against API calls");
}

/// The cache classes a ledger cause may be reported as.
pub(super) fn classes_for(cause: Cause) -> &'static [&'static str] {
    match cause {
        Cause::First => &["first", "compaction"],
        Cause::Hit => &["hit"],
        Cause::Expired(Ttl::FiveMinutes) => &["ttl_5m"],
        Cause::Expired(Ttl::OneHour) => &["ttl_1h"],
        Cause::ModelChanged => &["model_switch"],
        // Claude Code records the shape of its system prompt and tools on
        // every call (2.1.33x): a change of either is named exactly.
        Cause::ToolsChanged | Cause::SystemChanged => &["shape_change"],
        Cause::MessagesChanged => &["context_edit", "full_rebuild", "microcompact", "version_change"],
    }
}

/// Each recorded call: its tokens, its class and its reason. A fork's
/// first request reads its parent's cache (a hit to the API) and starts
/// the fork's thread (`first` to cachewise, whose threads are a session's).
pub(super) fn each_request_matches(ledger: &[Call], seen: &Seen) {
    for (k, c) in ledger.iter().enumerate().filter(|(_, c)| !c.summary) {
        let row = seen
            .rows
            .get(&c.message_id)
            .unwrap_or_else(|| panic!("{} ({:?}) not on any timeline", c.message_id, c.cause));
        let got = |name: &str| row[name].as_u64().unwrap();
        let tokens = [
            got("input_tokens"),
            got("write_5m_tokens"),
            got("write_1h_tokens"),
            got("read_tokens"),
            got("output_tokens"),
        ];
        let u = c.usage;
        assert_eq!(tokens, [u.input, u.write_5m, u.write_1h, u.read, c.output], "{}", c.message_id);
        let class = row["class"].as_str().unwrap();
        let fork_start =
            c.cause == Cause::Hit && class == "first" && ledger[..k].iter().all(|p| p.session != c.session);
        assert!(
            fork_start || classes_for(c.cause).contains(&class),
            "{}: the API's cause {:?}, cachewise's class {class}",
            c.message_id,
            c.cause
        );
        assert_eq!(row["server_reason"].as_str().unwrap(), c.reason.unwrap_or(""), "{}", c.message_id);
        // The cause a person reads is the API's when it gave one.
        if let Some(reason) = c.reason {
            assert_eq!((row["cause"].as_str(), row["cause_from"].as_str()), (Some(reason), Some("server")));
        }
        assert_eq!(row["server_missed_tokens"].as_u64(), c.missed, "{}", c.message_id);
        // Claude Code's record of the call: what made it, the TTL it asked for.
        assert!(!row["query_source"].as_str().unwrap().is_empty(), "{}: no query source", c.message_id);
        let asked = row["ttl_asked"].as_str().unwrap();
        assert!(["5m", "1h"].contains(&asked), "{}: asked for {asked:?}", c.message_id);
        if u.write_1h > 0 || u.write_5m > 0 {
            let wrote = if u.write_1h > 0 { "1h" } else { "5m" };
            assert_eq!(asked, wrote, "{}: the TTL asked for is the TTL the API wrote with", c.message_id);
        }
    }
}

/// Claude Code's last `cost-state` per session file (its `totalCostUSD`).
pub(super) fn last_cost_states(client: &Client) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for p in client.transcripts() {
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["type"] == "cost-state" {
                out.insert(v["sessionId"].as_str().unwrap().to_owned(), v["totalCostUSD"].as_f64().unwrap());
            }
        }
    }
    out
}

/// Each session's cost is Claude Code's own (sessions whose lineage is
/// their own: no fork, one terminal at a time).
pub(super) fn costs_match_claude_code(client: &Client, seen: &Seen) {
    for (session, claude) in last_cost_states(client) {
        let mine = seen.sessions.iter().find(|s| s["session_id"] == session.as_str());
        let mine = mine.map_or(0.0, |s| s["cost_usd"].as_f64().unwrap());
        assert!((mine - claude).abs() < 1e-6, "session {session}: cachewise ${mine}, Claude Code ${claude}");
    }
}

/// No file of the data directory holds `MARKER`.
pub(super) fn marker_never_stored(h: &Harness, client: &Client) {
    let mut dirs = vec![h.data_dir(client)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                let found = bytes.windows(MARKER.len()).any(|w| w == MARKER.as_bytes());
                assert!(!found, "{} holds the marker", p.display());
            }
        }
    }
}

/// Every check a single-lineage scenario passes.
pub(super) fn all(h: &Harness, client: &Client, now: DateTime<Utc>) -> Seen {
    let seen = seen(h, client, now);
    let ledger = h.fake.ledger();
    every_call_counted(&ledger, &seen);
    each_request_matches(&ledger, &seen);
    costs_match_claude_code(client, &seen);
    marker_never_stored(h, client);
    super::format::known(client);
    seen
}

/// What cachewise's hooks told the user, as Claude Code recorded it
/// (`hook_system_message` attachments), in order.
pub(super) fn hook_messages(client: &Client) -> Vec<String> {
    let mut out = Vec::new();
    for p in client.transcripts() {
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["type"] == "attachment" && v["attachment"]["type"] == "hook_system_message" {
                out.push(v["attachment"]["content"].as_str().unwrap_or("").to_owned());
            }
        }
    }
    out
}

/// What `call` paid for rewriting what `before` had cached, beyond the read
/// a warm cache would have charged: the premium of an expired cache.
pub(super) fn rewrite_premium(before: &Call, call: &Call) -> f64 {
    let prices = PriceTable::embedded().unwrap();
    let rates = prices.base_rates(&call.model, call.at).unwrap();
    let cached = (before.usage.prompt() as f64).min((call.usage.write_5m + call.usage.write_1h) as f64);
    let write = if call.usage.write_1h > 0 { rates.write_1h() } else { rates.write_5m() };
    cached * (write - rates.read())
}

/// The first `+$X.XX` a message quotes.
pub(super) fn first_dollars(text: &str) -> f64 {
    let at = text.find("+$").unwrap_or_else(|| panic!("no +$ in {text}")) + 2;
    let digits: String = text[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').collect();
    digits.replace(',', "").trim_end_matches('.').parse().unwrap()
}

/// cachewise's status line on a captured screen (its warm or cold line).
pub(super) fn status_line(screen: &str) -> String {
    let line = screen.lines().find(|l| l.contains(" warm ") || l.contains(" cold "));
    line.unwrap_or_else(|| panic!("no status line on the screen:\n{screen}")).trim().to_owned()
}

/// The seconds a status line's `warm M:SS left` says.
pub(super) fn minutes_left(line: &str) -> i64 {
    let at = line.find("warm ").unwrap_or_else(|| panic!("not warm: {line}")) + 5;
    let span: String = line[at..].chars().take_while(|c| !c.is_whitespace()).collect();
    let (m, s) = span.split_once(':').unwrap_or_else(|| panic!("no M:SS in {line}"));
    m.parse::<i64>().unwrap() * 60 + s.parse::<i64>().unwrap()
}

/// Turns the data directory `data` into what layout 5 wrote: the requests
/// and unlogged calls without Claude Code's record of each call.
pub(super) fn as_layout_5(data: &std::path::Path) {
    use cachewise::store::Table;
    let store = Store::open(data).unwrap();
    let strip = |t: Table| store.read(t).unwrap().unwrap().drop_many(["query_source", "shape_hash", "ttl_asked"]);
    let (mut requests, mut unlogged) = (strip(Table::Requests), strip(Table::Unlogged));
    store.begin().unwrap().write_requests_base(&mut requests).unwrap();
    store.begin().unwrap().write(Table::Unlogged, &mut unlogged).unwrap();
    let manifest = data.join("manifest.json");
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains(&current));
    std::fs::write(&manifest, text.replacen(&current, "\"schema\":5", 1)).unwrap();
}

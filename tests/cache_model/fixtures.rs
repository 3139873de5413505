//! Test fixtures: a fake `RateSource` with round prices (input $1 per
//! token, output $2, reads 0.1x, so 5m writes cost 1.25 and 1h writes 2) and
//! builders for requests and compactions at offsets from a fixed time.

use cachewise::analyze::RateSource;
use cachewise::model::{Boundary, Compaction, Request, TokenCounts, DEFAULT_TRIGGER, MAIN_THREAD};
use cachewise::pricing::Rates;
use chrono::{DateTime, TimeDelta, TimeZone, Utc};

/// Model with the round prices.
pub(super) const M1: &str = "m1";
/// A second priced model (same prices), for model switches.
pub(super) const M2: &str = "m2";
/// A model the fake table does not know.
pub(super) const UNKNOWN: &str = "mystery";

/// Rates of the fake table.
pub(super) const RATES: Rates = Rates { input: 1.0, output: 2.0, read_multiplier: 0.1 };

/// Fake prices: `m1`, `m2` known, anything else unknown.
pub(super) struct FakeRates;

impl RateSource for FakeRates {
    fn request_rates(&self, r: &Request) -> Option<Rates> {
        self.base_rates(&r.model, r.time)
    }
    fn base_rates(&self, model: &str, _at: DateTime<Utc>) -> Option<Rates> {
        (model == M1 || model == M2).then_some(RATES)
    }
}

/// The fixed origin of test times.
pub(super) fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 2, 1, 10, 0, 0).single().unwrap_or_default()
}

/// `t0 + secs` (millisecond precision).
pub(super) fn at(secs: f64) -> DateTime<Utc> {
    t0() + TimeDelta::milliseconds((secs * 1000.0).round() as i64)
}

/// Token counts `[in, w5, w1h, r, out]`.
pub(super) fn tok(t: [u64; 5]) -> TokenCounts {
    TokenCounts { input: t[0], cache_write_5m: t[1], cache_write_1h: t[2], cache_read: t[3], output: t[4] }
}

/// A request of `session`/`thread` at `t0 + secs`, model `m1`, version
/// `2.1.0`, project `p1`.
pub(super) fn req(session: &str, thread: &str, secs: f64, t: [u64; 5]) -> Request {
    let time = at(secs);
    Request {
        time,
        session_id: session.into(),
        thread: thread.into(),
        project: "p1".into(),
        cwd: "/p1".into(),
        git_branch: "main".into(),
        version: "2.1.0".into(),
        model: M1.into(),
        tokens: tok(t),
        web_search: 0,
        speed: Default::default(),
        inference_geo: Default::default(),
        server_reason: Default::default(),
        server_missed_tokens: None,
        is_sidechain: thread != MAIN_THREAD,
        cost_usd: 0.0,
        source: "test".into(),
        line: 0,
        message_id: format!("msg_{session}_{thread}_{}", time.timestamp_millis()),
        request_id: "req".to_string(),
        user: Default::default(),
        machine: Default::default(),
        client: Default::default(),
    }
}

/// A main-thread request of `session`.
pub(super) fn main(session: &str, secs: f64, t: [u64; 5]) -> Request {
    req(session, MAIN_THREAD, secs, t)
}

/// With another model.
pub(super) fn with_model(mut r: Request, model: &str) -> Request {
    r.model = model.into();
    r
}

/// With another version.
pub(super) fn with_version(mut r: Request, v: &str) -> Request {
    r.version = v.into();
    r
}

/// With another project.
pub(super) fn with_project(mut r: Request, p: &str) -> Request {
    r.project = p.into();
    r
}

/// A compaction of `session` at `t0 + secs`.
pub(super) fn compaction(session: &str, secs: f64) -> Compaction {
    Compaction {
        session_id: session.to_string(),
        time: at(secs),
        trigger: "auto".to_string(),
        pre_tokens: Some(167_000),
        source: "test".to_string(),
        trigger_written: true,
        ..Compaction::default()
    }
}

/// A compaction of `session` at `t0 + secs` with `trigger` as written
/// (`None`: absent, defaulted to `auto`).
pub(super) fn compaction_with(session: &str, secs: f64, trigger: Option<&str>) -> Compaction {
    Compaction {
        trigger: trigger.unwrap_or(DEFAULT_TRIGGER).to_string(),
        trigger_written: trigger.is_some(),
        uuid: format!("b-{session}-{secs}"),
        ..compaction(session, secs)
    }
}

/// A microcompact of `session` at `t0 + secs`.
pub(super) fn microcompact(session: &str, secs: f64) -> Compaction {
    Compaction {
        boundary: Boundary::Microcompact,
        tokens_saved: Some(30_000),
        uuid: format!("mc-{session}-{secs}"),
        ..compaction(session, secs)
    }
}

/// With another user (team rows).
pub(super) fn link(mut r: Request, user: &str) -> Request {
    r.user = user.into();
    r
}

/// Float equality to 1e-9 relative.
pub(super) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Asserts float equality with a message.
#[track_caller]
pub(super) fn assert_close(a: f64, b: f64) {
    assert!(close(a, b), "{a} != {b}");
}

//! Unit tests of the pricing module, with shared helpers: `cost` checks every
//! multiplier, band and date rule; `table` checks model resolution,
//! `price_all` and override files; `estimate` checks Fable 5.2 and the
//! prices of new versions of known families. Expected values are worked out by hand in
//! the comments next to each assertion.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cost;
mod estimate;
mod table;

use super::*;
use crate::model::TokenCounts;

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

fn tok(input: u64, w5: u64, w1h: u64, read: u64, output: u64) -> TokenCounts {
    TokenCounts { input, cache_write_5m: w5, cache_write_1h: w1h, cache_read: read, output }
}

fn req(model: &str, time: &str, tokens: TokenCounts) -> Request {
    Request {
        time: at(time),
        session_id: "s".into(),
        thread: crate::model::MAIN_THREAD.into(),
        project: "p".into(),
        cwd: "/".into(),
        git_branch: Default::default(),
        version: "2.1.39".into(),
        model: model.into(),
        tokens,
        web_search: 0,
        speed: Default::default(),
        inference_geo: Default::default(),
        server_reason: Default::default(),
        server_missed_tokens: None,
        is_sidechain: false,
        cost_usd: 0.0,
        source: "f.jsonl".into(),
        line: 1,
        message_id: "m".into(),
        request_id: "r".into(),
        user: Default::default(),
        machine: Default::default(),
        client: Default::default(),
    }
}

fn with(mut r: Request, speed: &str, geo: &str) -> Request {
    r.speed = speed.into();
    r.inference_geo = geo.into();
    r
}

#[track_caller]
fn close(got: f64, want: f64) {
    let tol = 1e-12 * got.abs().max(want.abs());
    assert!((got - want).abs() <= tol, "got {got}, want {want}");
}

fn table() -> PriceTable {
    PriceTable::load(None).unwrap()
}

fn cost(model: &str, time: &str, tokens: TokenCounts) -> f64 {
    table().cost(&req(model, time, tokens)).unwrap()
}

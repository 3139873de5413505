//! `report blocks`: 5-hour windows as ccusage draws them. Requests in time
//! order; a block starts at its first request's time floored to the hour
//! and lasts 5 hours; a request at or after the block's end, or 5 hours or
//! more after the previous request, starts a new block; a gap longer than
//! that gets a gap row from the last request + 5 h to the next request.
//! Per block: requests, tokens, cost, burn rate (cost over the span from
//! first to last request) and, for the active block (its last request less
//! than 5 h ago and its end ahead), the cost projected to its end at that
//! burn rate. Pure: the clock comes in as an argument.

use super::fit::{self, Col, Layout};
use super::query::Query;
use super::usage::render::totals_json;
use super::usage::Totals;
use super::ReportError;
use crate::model::columns as c;
use crate::model::format::duration_words;
use crate::model::format::{thousands, usd};
use crate::model::{Request, TokenCounts};
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use chrono::{DateTime, Duration, DurationRound, Utc};
use polars::prelude::*;
use serde_json::{json, Map, Value};

/// The length of a block.
pub const BLOCK: Duration = Duration::hours(5);

/// One block, or a gap between blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub gap: bool,
    pub active: bool,
    /// First and last request (None for gaps).
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
    pub totals: Totals,
    /// Cost per hour from the first to the last request; None for a gap or
    /// when they are the same instant.
    pub burn_rate_usd_per_h: Option<f64>,
    /// Active block only: cost + burn rate x hours left to `end`.
    pub projected_usd: Option<f64>,
    /// Active block only: seconds from the clock to `end`.
    pub left_s: Option<i64>,
}

/// What a block counts of a request.
#[derive(Debug, Clone, Copy)]
struct BlockRow {
    time: DateTime<Utc>,
    tokens: TokenCounts,
    cost_usd: f64,
}

impl Block {
    fn open(r: &BlockRow) -> Block {
        let start = r.time.duration_trunc(Duration::hours(1)).unwrap_or(r.time);
        Block {
            start,
            end: start + BLOCK,
            gap: false,
            active: false,
            first: Some(r.time),
            last: Some(r.time),
            totals: Totals::default(),
            burn_rate_usd_per_h: None,
            projected_usd: None,
            left_s: None,
        }
    }

    fn add(&mut self, r: &BlockRow) {
        self.totals = self.totals + Totals { requests: 1, tokens: r.tokens, cost_usd: r.cost_usd };
        self.last = Some(r.time);
    }

    fn close(&mut self, now: DateTime<Utc>) {
        let (Some(first), Some(last)) = (self.first, self.last) else { return };
        let hours = (last - first).as_seconds_f64() / 3600.0;
        self.burn_rate_usd_per_h = (hours > 0.0).then(|| self.totals.cost_usd / hours);
        self.active = now - last < BLOCK && now < self.end;
        if self.active {
            let left = (self.end - now).as_seconds_f64() / 3600.0;
            self.projected_usd = Some(self.totals.cost_usd + self.burn_rate_usd_per_h.unwrap_or(0.0) * left);
            self.left_s = Some((self.end - now).num_seconds());
        }
    }
}

/// The blocks of the view's requests that `q` selects, as of its clock:
/// their time, tokens and cost alone, taken in time order (a team's
/// requests read whole as rows took 15 GB; sorted by polars, 2.3 GB).
pub fn blocks_of(view: &StoreView, q: &Query) -> Result<Vec<Block>, ReportError> {
    let Some(lf) = view.requests() else { return Ok(Vec::new()) };
    let columns: Vec<Expr> = [c::TIME, c::COST_USD].iter().chain(&c::TOKENS).map(|n| col(*n)).collect();
    let df = q.filter(lf)?.select(columns).collect()?;
    let k = Cols(&df);
    let (ms, tokens, cost) = (k.millis(c::TIME)?, k.tokens()?, k.f64(c::COST_USD)?);
    // A stable sort: requests of the same instant keep the table's order.
    let mut order: Vec<usize> = (0..ms.len()).collect();
    order.sort_by_key(|&i| ms[i]);
    let time = |i: usize| DateTime::from_timestamp_millis(ms[i]).unwrap_or_default();
    let rows = order.into_iter().map(|i| BlockRow { time: time(i), tokens: tokens[i], cost_usd: cost[i] });
    Ok(in_order(rows, view.now()))
}

/// The blocks (and gaps) of `requests` (any order), oldest first, as of `now`.
pub fn blocks(requests: &[&Request], now: DateTime<Utc>) -> Vec<Block> {
    let mut rows: Vec<BlockRow> =
        requests.iter().map(|r| BlockRow { time: r.time, tokens: r.tokens, cost_usd: r.cost_usd }).collect();
    rows.sort_by_key(|r| r.time);
    in_order(rows, now)
}

/// The blocks of `rows`, in time order.
fn in_order(rows: impl IntoIterator<Item = BlockRow>, now: DateTime<Utc>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut cur: Option<Block> = None;
    for r in rows {
        if let Some(b) = cur.as_mut() {
            let last = b.last.unwrap_or(b.start);
            if r.time >= b.end || r.time - last >= BLOCK {
                b.close(now);
                out.extend(cur.take());
                if r.time > last + BLOCK {
                    out.push(gap(last + BLOCK, r.time));
                }
            }
        }
        cur.get_or_insert_with(|| Block::open(&r)).add(&r);
    }
    if let Some(mut b) = cur {
        b.close(now);
        out.push(b);
    }
    out
}

fn gap(start: DateTime<Utc>, end: DateTime<Utc>) -> Block {
    Block {
        start,
        end,
        gap: true,
        active: false,
        first: None,
        last: None,
        totals: Totals::default(),
        burn_rate_usd_per_h: None,
        projected_usd: None,
        left_s: None,
    }
}

/// The currently active block, if any.
pub fn active(blocks: &[Block]) -> Option<&Block> {
    blocks.iter().rev().find(|b| b.active)
}

/// `{"rows":[{start, end, active, gap, requests, token keys, cost_usd,
/// burn_rate_usd_per_h, projected_usd, left_s}], "total": {requests, token
/// keys, cost_usd}}`.
pub fn to_json(blocks: &[Block]) -> Value {
    let rows: Vec<Value> = blocks
        .iter()
        .map(|b| {
            let mut m = Map::new();
            m.insert("start".into(), json!(b.start.to_rfc3339()));
            m.insert("end".into(), json!(b.end.to_rfc3339()));
            m.insert("active".into(), json!(b.active));
            m.insert("gap".into(), json!(b.gap));
            m.insert("first".into(), json!(b.first.map(|t| t.to_rfc3339())));
            m.insert("last".into(), json!(b.last.map(|t| t.to_rfc3339())));
            m.extend(totals_json(&b.totals));
            m.insert("burn_rate_usd_per_h".into(), json!(b.burn_rate_usd_per_h));
            m.insert("projected_usd".into(), json!(b.projected_usd));
            m.insert("left_s".into(), json!(b.left_s));
            Value::Object(m)
        })
        .collect();
    json!({ "rows": rows, "total": Value::Object(totals_json(&total(blocks))) })
}

/// The requests, tokens and cost of every block.
pub fn total(blocks: &[Block]) -> Totals {
    blocks.iter().map(|b| b.totals).sum()
}

/// The columns of the terminal table.
const COLUMNS: [Col; 8] = [
    Col::text("Block start", 0),
    Col::text("End", 3),
    Col::text("State", 1),
    Col::num("Requests", 2),
    Col::num("Tokens", 2),
    Col::num("Cost", 0),
    Col::num("$/h", 1),
    Col::num("Projected", 1),
];

/// A terminal table in `layout` (times in its zone), with a total row.
pub fn to_table(blocks: &[Block], layout: Layout) -> String {
    let fmt = |d: DateTime<Utc>| d.with_timezone(&layout.tz).format("%Y-%m-%d %H:%M").to_string();
    let mut rows: Vec<Vec<String>> = Vec::new();
    for b in blocks {
        let state = match (b.gap, b.left_s) {
            (true, _) => "gap".to_owned(),
            (false, Some(left)) => format!("active, {} left", duration_words(left as f64)),
            (false, None) => String::new(),
        };
        let k = &b.totals.tokens;
        let figure = |s: String| if b.gap { String::new() } else { s };
        rows.push(vec![
            fmt(b.start),
            fmt(b.end),
            state,
            figure(thousands(b.totals.requests)),
            figure(thousands(k.prompt() + k.output)),
            figure(usd(b.totals.cost_usd)),
            b.burn_rate_usd_per_h.map(usd).unwrap_or_default(),
            b.projected_usd.map(usd).unwrap_or_default(),
        ]);
    }
    let t = total(blocks);
    let blocks_n = blocks.iter().filter(|b| !b.gap).count();
    let label = format!("Total ({blocks_n} {})", if blocks_n == 1 { "block" } else { "blocks" });
    let tokens = thousands(t.tokens.prompt() + t.tokens.output);
    let mut last = vec![label, String::new(), String::new(), thousands(t.requests), tokens, usd(t.cost_usd)];
    last.extend([String::new(), String::new()]);
    rows.push(last);
    format!("{}\n", fit::table(&COLUMNS, &rows, layout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TokenCounts;
    use chrono::TimeZone;

    fn at(d: u32, h: u32, m: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, d, h, m, s).unwrap()
    }

    fn req(time: DateTime<Utc>, cost_usd: f64) -> Request {
        Request {
            time,
            session_id: "s".into(),
            thread: crate::model::MAIN_THREAD.into(),
            project: "p".into(),
            cwd: "/".into(),
            git_branch: Default::default(),
            version: "2.1.39".into(),
            model: "m".into(),
            tokens: TokenCounts { input: 10, cache_write_5m: 0, cache_write_1h: 0, cache_read: 100, output: 5 },
            web_search: 0,
            speed: Default::default(),
            inference_geo: Default::default(),
            server_reason: Default::default(),
            server_missed_tokens: None,
            is_sidechain: false,
            cost_usd,
            source: "f.jsonl".into(),
            line: 1,
            message_id: "m".into(),
            request_id: "r".into(),
            user: Default::default(),
            machine: Default::default(),
            client: Default::default(),
        }
    }

    #[test]
    fn edges_gaps_burn_rate_and_projection() {
        let rs = [
            req(at(29, 10, 17, 0), 1.0),
            req(at(29, 11, 47, 0), 2.0),
            req(at(29, 14, 59, 59), 0.5), // last second of the 10:00 block
            req(at(29, 15, 0, 0), 4.0),   // the block's end: a new block at 15:00
            req(at(29, 16, 30, 0), 2.0),
            req(at(29, 22, 0, 0), 1.0), // 5.5 h after 16:30: gap 21:30-22:00
            req(at(29, 23, 30, 0), 2.0),
        ];
        let refs: Vec<&Request> = rs.iter().rev().collect();
        let b = blocks(&refs, at(30, 0, 0, 0));
        assert_eq!(b.len(), 4);
        assert_eq!((b[0].start, b[0].end, b[0].totals.requests), (at(29, 10, 0, 0), at(29, 15, 0, 0), 3));
        assert_eq!(b[0].totals.cost_usd, 3.5);
        // 3.5 dollars over 10:17:00-14:59:59 = 16,979 s.
        assert_eq!(b[0].burn_rate_usd_per_h, Some(3.5 * 3600.0 / 16_979.0));
        assert_eq!((b[0].active, b[0].projected_usd), (false, None));
        assert_eq!((b[1].start, b[1].end, b[1].totals.requests), (at(29, 15, 0, 0), at(29, 20, 0, 0), 2));
        assert_eq!(b[1].burn_rate_usd_per_h, Some(4.0), "$6 over 1.5 h");
        assert!(b[2].gap);
        assert_eq!((b[2].start, b[2].end, b[2].totals.requests), (at(29, 21, 30, 0), at(29, 22, 0, 0), 0));
        let last = &b[3];
        assert_eq!((last.start, last.end, last.active), (at(29, 22, 0, 0), at(30, 3, 0, 0), true));
        assert_eq!(last.burn_rate_usd_per_h, Some(2.0), "$3 over 1.5 h");
        assert_eq!(last.projected_usd, Some(9.0), "$3 + $2/h x 3 h left");
        assert_eq!(last.left_s, Some(3 * 3600), "the clock is 3 h before the block's end");
        assert_eq!(b.iter().filter(|x| x.left_s.is_some()).count(), 1, "only the active block has time left");
        let table = to_table(&b, Layout::WIDE);
        assert!(table.contains("active, 3.0 h left"), "{table}");
        let total_row = table.lines().find(|l| l.contains("Total (3 blocks)")).unwrap_or_default();
        assert!(total_row.contains("$12.50") && total_row.contains(" 7 "), "{table}");
        assert_eq!(to_json(&b)["total"]["requests"], 7);
        assert_eq!(active(&b).map(|x| x.start), Some(at(29, 22, 0, 0)));
        assert_eq!(b[0].totals.tokens.prompt() + b[0].totals.tokens.output, 3 * 115);
    }

    #[test]
    fn a_block_ends_when_its_last_request_is_five_hours_old() {
        let rs = [req(at(29, 9, 30, 0), 1.0)];
        let refs: Vec<&Request> = rs.iter().collect();
        let b = blocks(&refs, at(29, 13, 0, 0));
        assert_eq!((b[0].active, b[0].burn_rate_usd_per_h, b[0].projected_usd), (true, None, Some(1.0)));
        assert!(!blocks(&refs, at(29, 14, 0, 0))[0].active, "the block's end (14:00) is reached");
        let v = to_json(&b);
        let row = &v["rows"][0];
        assert_eq!(row["start"], "2026-11-29T09:00:00+00:00");
        assert_eq!(row["end"], "2026-11-29T14:00:00+00:00");
        assert_eq!((row["requests"].as_u64(), row["cache_read_tokens"].as_u64()), (Some(1), Some(100)));
        assert_eq!(row["burn_rate_usd_per_h"], Value::Null);
        assert_eq!(row["projected_usd"], 1.0);
    }
}

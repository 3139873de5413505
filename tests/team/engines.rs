//! `sql/*.sql` are standard SQL over the documented bundle schema, and
//! `scripts/team_sql.py` runs them on DuckDB, DataFusion and Spark (local
//! mode): this test writes overlapping bundles (a re-export with a grown
//! response, a sidechain replay, a response made of two API calls sent
//! twice, three people, three models, several days), imports them with
//! cachewise, and checks every query's rows on each engine against
//! cachewise's own results, and the script's figures against `cachewise
//! report team --json`. The team report's cache figures (class table, hit
//! ratio, idle and edit cost, shared message ids) are checked over a
//! second set of bundles that carry analysis rows (schema 3). An engine
//! whose package (or Java) is missing prints `skip:` and the reason, unless
//! `CACHEWISE_DUCKDB`, `CACHEWISE_DATAFUSION` or `CACHEWISE_SPARK` is
//! `required` (CI installs them first). The script's runner and the
//! comparisons are `team/team_sql.rs`.

use super::support::class_tables;
use super::support::{bundle_of, bytes_of, cw, json as json_of, prices, row};
use super::team_sql::{compare_figures, compare_queries, sql_files, team_sql};
use cachewise::analyze::CacheClass;
use cachewise::model::calls::{ADVISOR, MESSAGE};
use cachewise::model::columns as c;
use cachewise::model::{Call, Request, TokenCounts};
use cachewise::report::calls;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::team::team;
use cachewise::report::usage::usage;
use cachewise::store::frames::{self, Cols};
use cachewise::store::{Store, Table};
use cachewise::team::import::{import, Incoming};
use chrono::Duration;
use polars::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

fn priced(mut rows: Vec<Request>) -> Vec<Request> {
    prices().price_all(&mut rows);
    rows
}

/// The calls of `rows`' request `msg_alice-s2_9`: an advisor call on Opus,
/// then the response's own call (which carries the request's two web
/// searches); the request's tokens are their sum and its cost their cost.
fn with_calls(rows: &mut [Request]) -> Vec<Call> {
    let Some(r) = rows.iter_mut().find(|r| r.message_id == "msg_alice-s2_9") else { return Vec::new() };
    r.web_search = 2;
    let advisor = TokenCounts { input: 2, output: 50, ..TokenCounts::default() };
    let own = TokenCounts { input: r.tokens.input - 2, output: r.tokens.output - 50, ..r.tokens };
    let call = |index: u32, kind: &str, model: &str, tokens: TokenCounts| Call {
        user: r.user.clone(),
        message_id: r.message_id.clone(),
        request_id: r.request_id.clone(),
        source: r.source.clone(),
        line: r.line,
        index,
        kind: kind.into(),
        model: model.into(),
        tokens,
        cost_usd: 0.0,
    };
    let mut calls = vec![call(0, ADVISOR, "claude-opus-4-6", advisor), call(1, MESSAGE, &r.model.clone(), own)];
    r.cost_usd = prices().price_calls(r, &mut calls, &mut Default::default());
    calls
}

/// Bundles as files in `dir`, overlapping on purpose.
fn bundles(dir: &Path) -> Vec<Incoming> {
    let models = ["claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001"];
    let person = |user: &str, n: u64| -> Vec<Request> {
        (1..=n)
            .map(|k| {
                let mut r = row(user, &format!("{user}-s{}", k / 4), k, k as i64 * 7 * 60);
                r.model = models[(k % 3) as usize].into();
                r
            })
            .collect()
    };
    let mut alice = priced(person("alice", 12));
    let alice_calls = with_calls(&mut alice);
    // Alice re-exports her last 5 rows (the calls again); one response had grown meanwhile.
    let mut again = alice[7..].to_vec();
    again[0].tokens.output += 900;
    again[0].time += Duration::seconds(1);
    let mut again = priced(again);
    let again_calls = with_calls(&mut again);
    let mut bob = person("bob", 7);
    let mut replay = bob[2].clone();
    (replay.request_id, replay.is_sidechain, replay.thread) = ("req_replay".into(), true, "a1b2c3d".into());
    bob.push(replay);
    let carol = priced(person("carol", 5));
    let sets = [
        ("alice", alice, alice_calls),
        ("alice-again", again, again_calls),
        ("bob", priced(bob), Vec::new()),
        ("carol", carol, Vec::new()),
    ];
    sets.into_iter()
        .map(|(name, rows, calls)| {
            let user = rows[0].user.clone();
            let bundle = cachewise::team::Bundle { calls, ..bundle_of(&user, rows) };
            std::fs::write(dir.join(format!("{name}.parquet")), bytes_of(&bundle)).unwrap();
            Incoming { origin: name.into(), bundle }
        })
        .collect()
}

fn request_json(r: &Request) -> Value {
    json!({
        "time": r.time.timestamp_millis(), "session_id": r.session_id, "thread": r.thread, "project": r.project,
        "cwd": r.cwd, "git_branch": r.git_branch, "version": r.version, "model": r.model, "input": r.tokens.input,
        "cache_write_5m": r.tokens.cache_write_5m, "cache_write_1h": r.tokens.cache_write_1h,
        "cache_read": r.tokens.cache_read, "output": r.tokens.output, "web_search": r.web_search, "speed": r.speed,
        "inference_geo": r.inference_geo, "is_sidechain": r.is_sidechain, "cost_usd": r.cost_usd, "source": r.source,
        "line": r.line, "message_id": r.message_id, "request_id": r.request_id, "user": r.user, "machine": r.machine,
    })
}

/// cachewise's answer for every sql/*.sql over the imported store.
fn expected(store: &Store) -> Value {
    let q = Query::new(chrono_tz::UTC);
    let stored = frames::requests_from(&store.read(Table::Requests).unwrap().unwrap()).unwrap();
    let by_model = usage(&crate::common::view(store, &prices(), crate::common::t0()), Grouping::Model, &q).unwrap();
    let usage_rows: Vec<Value> = by_model
        .rows
        .iter()
        .map(|r| {
            let t = &r.totals;
            json!({"key": r.key, "sub": "", "requests": t.requests, "input_tokens": t.tokens.input,
                "output_tokens": t.tokens.output, "cache_write_5m_tokens": t.tokens.cache_write_5m,
                "cache_write_1h_tokens": t.tokens.cache_write_1h, "cache_read_tokens": t.tokens.cache_read,
                "cost_usd": t.cost_usd, "first": r.first.timestamp_millis(), "last": r.last.timestamp_millis(),
                "project": r.project})
        })
        .collect();
    let opts_now = super::common::t0();
    let report = team(&crate::common::view(store, &prices(), opts_now), &q).unwrap();
    let days: Vec<Value> = report
        .person_days
        .iter()
        .map(|d| json!({"user": d.user, "key": d.day, "requests": d.requests, "cost_usd": d.cost_usd}))
        .collect();
    let mix: Vec<Value> = report
        .rows
        .iter()
        .flat_map(|r| r.figures.models.iter().map(move |m| (r.user.clone(), m)))
        .map(|(u, m)| json!({"user": u, "model": m.model, "requests": m.requests, "cost_usd": m.cost_usd}))
        .collect();
    json!({
        "team_requests.sql": {"sort": ["user", "message_id", "request_id"], "rows": stored.iter().map(request_json).collect::<Vec<_>>()},
        "team_requests_by_call.sql": {"sort": ["user", "message_id", "request_id", "model"], "rows": by_call(store, &stored)},
        "usage_by_key.sql": {"sort": ["key", "sub"], "rows": usage_rows},
        "team_person_days.sql": {"sort": ["user", "key"], "rows": days},
        "team_model_mix.sql": {"sort": ["user", "model"], "rows": mix},
    })
}

/// The stored requests split into their API calls (`report::calls`), as
/// the team report sums them.
fn by_call(store: &Store, stored: &[Request]) -> Vec<Value> {
    let stored_calls = store.load(Table::Calls, frames::calls_from).unwrap();
    assert_eq!(stored_calls.len(), 2, "the two calls, sent twice, are stored once");
    let df = frames::requests_frame(stored).unwrap();
    let df = df.lazy().with_column(lit(1u64).cast(DataType::UInt64).alias(c::COUNTED)).collect().unwrap();
    let matched = calls::match_rows(&df, &stored_calls).unwrap();
    let split = calls::split_by_model(df, &stored_calls, &matched, false, false).unwrap();
    let k = Cols(&split);
    let (user, msg, req, model) = (
        k.str(c::USER).unwrap(),
        k.str(c::MESSAGE_ID).unwrap(),
        k.str(c::REQUEST_ID).unwrap(),
        k.str(c::MODEL).unwrap(),
    );
    let (input, output, cost, counted) =
        (k.u64(c::INPUT).unwrap(), k.u64(c::OUTPUT).unwrap(), k.f64(c::COST_USD).unwrap(), k.u64(c::COUNTED).unwrap());
    (0..split.height())
        .map(|i| {
            json!({"user": user[i], "message_id": msg[i], "request_id": req[i], "model": model[i], "input": input[i],
                "output": output[i], "cost_usd": cost[i], "counted": counted[i]})
        })
        .collect()
}

/// Bundles carrying analysis rows (three people, one file sent twice) in
/// `dir`, imported into `team`; cachewise's answers for the cache queries.
fn cache_expected(dir: &Path, store: &Store) -> Value {
    std::fs::create_dir_all(dir).unwrap();
    let sent: Vec<Incoming> = [("dave", 0), ("erin", 45), ("frank", 900)]
        .iter()
        .map(|(u, shift)| {
            let b = super::columns::bundle(dir.parent().unwrap(), u, *shift);
            std::fs::write(dir.join(format!("{u}.parquet")), bytes_of(&b)).unwrap();
            Incoming { origin: (*u).into(), bundle: b }
        })
        .collect();
    std::fs::copy(dir.join("dave.parquet"), dir.join("dave-again.parquet")).unwrap();
    import(store, &sent, &prices(), super::common::t0()).unwrap();
    let q = Query::new(chrono_tz::UTC);
    let analysis = store.read(Table::Analysis).unwrap().unwrap();
    let k = Cols(&analysis);
    let (user, sid, msg, class) = (
        k.str(c::USER).unwrap(),
        k.str(c::SESSION_ID).unwrap(),
        k.str(c::MESSAGE_ID).unwrap(),
        k.str(c::CLASS).unwrap(),
    );
    let (cost, time) = (k.f64(c::MISS_COST_USD).unwrap(), k.time(c::TIME).unwrap());
    let rows: Vec<Value> = (0..analysis.height())
        .map(|i| {
            json!({"user": user[i], "session_id": sid[i], "message_id": msg[i], "class": class[i],
            "miss_cost_usd": cost[i], "time": time[i].timestamp_millis()})
        })
        .collect();
    let mut classes = Vec::new();
    for (u, t) in class_tables(&crate::common::view(store, &prices(), crate::common::t0()), &q).unwrap() {
        for k in CacheClass::ALL.iter().filter(|k| t.get(**k).count > 0) {
            let s = t.get(*k);
            classes.push(json!({"user": u, "class": k.as_str(), "count": s.count,
                "rebuilt_tokens": s.rebuilt_tokens, "miss_cost_usd": s.miss_cost_usd}));
        }
    }
    let opts_now = super::common::t0();
    let report = team(&crate::common::view(store, &prices(), opts_now), &q).unwrap();
    assert!(report.rows.iter().all(|r| r.figures.idle_cost_usd > 0.0), "the fixture has expiries");
    let people: Vec<Value> = report
        .rows
        .iter()
        .map(|r| {
            let (f, t) = (&r.figures, &r.figures.tokens);
            json!({"user": r.user, "input_tokens": t.input_tokens, "output_tokens": t.output_tokens,
                "cache_write_5m_tokens": t.cache_write_5m_tokens, "cache_write_1h_tokens": t.cache_write_1h_tokens,
                "cache_read_tokens": t.cache_read_tokens, "cache_hit_ratio": f.cache_hit_ratio,
                "idle_cost_usd": f.idle_cost_usd, "edit_cost_usd": f.edit_cost_usd})
        })
        .collect();
    let shared = report.flags.message_ids_under_several_users;
    assert_eq!(shared, 24, "the three people hold copies of the same sessions");
    json!({
        "team_analysis.sql": {"sort": ["user", "session_id", "message_id"], "rows": rows},
        "team_cache_classes.sql": {"sort": ["user", "class"], "rows": classes},
        "team_person_cache.sql": {"sort": ["user"], "rows": people},
        "team_shared_message_ids.sql": {"rows": [{"message_ids": shared}]},
    })
}

/// Every sql/*.sql on `engine` over both sets of bundles equals
/// cachewise's results, and the script's figures equal `report team
/// --json` (over the first set, all but the cache costs: its bundles carry
/// no analysis rows, so the script leaves those null).
fn agrees(engine: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, team_dir) = (tmp.path().join("bundles"), tmp.path().join("team"));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&team_dir).unwrap();
    let o = import(&store, &bundles(&dir), &prices(), super::common::t0()).unwrap();
    assert_eq!((o.received, o.requests_after), (12 + 5 + 8 + 5, 12 + 7 + 5), "overlap and replay count once");
    let want = expected(&store);
    let cache_dir = tmp.path().join("cache").join("bundles");
    let cache_team = tmp.path().join("cache-team");
    let cache_want = cache_expected(&cache_dir, &Store::open(&cache_team).unwrap());
    let Some(mut got) = team_sql(engine, &[&dir], true) else { return };
    let mut problems = compare_queries(&want, &got["queries"]);
    let top = got.as_object_mut().unwrap();
    let mut people: Vec<&mut Value> = Vec::new();
    for (k, v) in top.iter_mut().filter(|(k, _)| ["rows", "total"].contains(&k.as_str())) {
        match k.as_str() {
            "rows" => people.extend(v.as_array_mut().unwrap().iter_mut()),
            _ => people.push(v),
        }
    }
    for figures in people {
        for f in ["idle_cost_usd", "edit_cost_usd"] {
            assert_eq!(figures[f], Value::Null, "no analysis rows: {f} unknown");
            figures.as_object_mut().unwrap().remove(f);
        }
    }
    problems.extend(compare_figures(&got, &json_of(&cw(None, &team_dir, &["report", "team", "--json"]))));
    let cache_got = team_sql(engine, &[&cache_dir], true).unwrap();
    problems.extend(compare_queries(&cache_want, &cache_got["queries"]));
    problems.extend(compare_figures(&cache_got, &json_of(&cw(None, &cache_team, &["report", "team", "--json"]))));
    assert!(problems.is_empty(), "{engine} disagrees with cachewise:\n{}", problems.join("\n"));
    let checked: BTreeSet<&String> =
        want.as_object().unwrap().keys().chain(cache_want.as_object().unwrap().keys()).collect();
    assert_eq!(checked, sql_files().iter().collect(), "every sql/*.sql is checked");
    let people = cache_got["rows"].as_array().unwrap();
    assert_eq!(people.len(), 3);
    assert!(people.iter().all(|p| p["idle_cost_usd"].as_f64().unwrap() > 0.0), "{people:?}");
    let alice = &got["rows"][0];
    assert_eq!((alice["user"].as_str(), alice["requests"].as_u64()), (Some("alice"), Some(12)));
    assert_eq!(
        got["queries"]["team_requests_by_call.sql"].as_array().unwrap().len(),
        24 + 1,
        "one response, two calls"
    );
}

#[test]
fn duckdb_agrees_with_cachewise() {
    agrees("duckdb");
}

#[test]
fn datafusion_agrees_with_cachewise() {
    agrees("datafusion");
}

#[test]
fn spark_agrees_with_cachewise() {
    agrees("spark");
}

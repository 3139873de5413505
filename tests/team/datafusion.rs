//! `sql/*.sql` are standard SQL over the documented bundle schema: this test
//! writes overlapping bundles (a re-export with a grown response, a
//! sidechain replay, three people, three models, several days), imports
//! them with cachewise, writes cachewise's results as the expected JSON, and
//! runs `scripts/datafusion_check.py`, which runs every sql/*.sql with
//! Apache DataFusion over the raw bundles and compares. Without the
//! datafusion package it prints why and skips, unless
//! `CACHEWISE_DATAFUSION=required` (CI installs it first). The team
//! report's cache figures (class table, hit ratio, idle and edit cost,
//! shared message ids) are checked over a second set of bundles that carry
//! analysis rows (schema 3).

use super::support::{bundle_of, bytes_of, prices, row};
use cachewise::analyze::CacheClass;
use cachewise::model::columns as c;
use cachewise::model::Request;
use cachewise::report::query::{Grouping, Query};
use cachewise::report::team::{class_tables, team, TeamOptions};
use cachewise::report::usage::usage;
use cachewise::store::frames::{self, Cols};
use cachewise::store::{Store, Table};
use cachewise::team::import::{import, Incoming};
use chrono::Duration;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn priced(mut rows: Vec<Request>) -> Vec<Request> {
    prices().price_all(&mut rows);
    rows
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
    let alice = priced(person("alice", 12));
    // Alice re-exports her last 5 rows; one response had grown meanwhile.
    let mut again = alice[7..].to_vec();
    again[0].tokens.output += 900;
    again[0].time += Duration::seconds(1);
    let again = priced(again);
    let mut bob = person("bob", 7);
    let mut replay = bob[2].clone();
    (replay.request_id, replay.is_sidechain, replay.thread) = ("req_replay".into(), true, "a1b2c3d".into());
    bob.push(replay);
    let carol = priced(person("carol", 5));
    let sets = [("alice", alice), ("alice-again", again), ("bob", priced(bob)), ("carol", carol)];
    sets.into_iter()
        .map(|(name, rows)| {
            let user = rows[0].user.clone();
            let bundle = bundle_of(&user, rows);
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
    let opts = TeamOptions { top_stale: 0 };
    let report = team(&crate::common::view(store, &prices(), opts_now), &q, &opts).unwrap();
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
    json!({"queries": {
        "team_requests.sql": {"sort": ["user", "message_id", "request_id"], "rows": stored.iter().map(request_json).collect::<Vec<_>>()},
        "usage_by_key.sql": {"key": "model", "sort": ["key", "sub"], "rows": usage_rows},
        "team_person_days.sql": {"key": "day", "sort": ["user", "key"], "rows": days},
        "team_model_mix.sql": {"key": null, "sort": ["user", "model"], "rows": mix},
    }})
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
    let opts = TeamOptions { top_stale: 0 };
    let report = team(&crate::common::view(store, &prices(), opts_now), &q, &opts).unwrap();
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
        "team_analysis.sql": {"over": "cache", "sort": ["user", "session_id", "message_id"], "rows": rows},
        "team_cache_classes.sql": {"over": "cache", "sort": ["user", "class"], "rows": classes},
        "team_person_cache.sql": {"over": "cache", "sort": ["user"], "rows": people},
        "team_shared_message_ids.sql": {"over": "cache", "rows": [{"message_ids": shared}]},
    })
}

#[test]
fn datafusion_agrees_with_cachewise() {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, team_dir) = (tmp.path().join("bundles"), tmp.path().join("team"));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&team_dir).unwrap();
    let o = import(&store, &bundles(&dir), &prices(), super::common::t0()).unwrap();
    assert_eq!((o.received, o.requests_after), (12 + 5 + 8 + 5, 12 + 7 + 5), "overlap and replay count once");
    let mut expected = expected(&store);
    let cache_dir = tmp.path().join("cache").join("bundles");
    let cache = cache_expected(&cache_dir, &Store::open(&tmp.path().join("cache-team")).unwrap());
    for (name, spec) in cache.as_object().unwrap() {
        expected["queries"][name] = spec.clone();
    }
    expected["cache_bundles"] = json!(cache_dir.display().to_string());
    let want = tmp.path().join("expected.json");
    std::fs::write(&want, serde_json::to_vec_pretty(&expected).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/datafusion_check.py");
    let required = std::env::var("CACHEWISE_DATAFUSION").is_ok_and(|v| v == "required");
    let out = match Command::new("python3").arg(&script).arg(&dir).arg(&want).output() {
        Ok(o) => o,
        Err(e) if !required => return println!("skip: cannot run python3: {e}"),
        Err(e) => panic!("cannot run python3: {e}"),
    };
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{text}");
    match out.status.code() {
        Some(0) => {
            assert!(text.contains("ok   team_requests.sql"), "{text}");
            assert!(text.contains("ok   team_person_cache.sql: 3 rows"), "{text}");
        }
        Some(3) if !required => {
            println!("skip: DataFusion is not installed; CACHEWISE_DATAFUSION=required makes this fail")
        }
        _ => panic!("DataFusion disagrees with cachewise:\n{text}"),
    }
}

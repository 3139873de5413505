//! Responses made of several API calls (`usage.iterations`), end
//! to end through ingest, the store, the reports and bundles: the three
//! shapes of transcripts-and-pricing §2.4 and a single call equal to the
//! top-level usage, with hand-computed figures (`iterations/support.rs`);
//! a store of the previous layout upgraded by reading again only the files
//! that logged calls; bundles carrying the calls.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
#[path = "iterations/props.rs"]
mod props;
#[path = "iterations/support.rs"]
mod support;

use cachewise::report::query::Grouping;
use cachewise::store::{frames, Store, Table};
use common::write;
use support::*;

fn one_file(lines: &[String]) -> (tempfile::TempDir, tempfile::TempDir) {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(root.path(), "-home-u-app/s1.jsonl", lines);
    let o = run(root.path(), data.path());
    assert_eq!(o.problems.bad, 0, "{:?}", o.problems.samples);
    (root, data)
}

fn model_row(r: &cachewise::report::usage::UsageReport, model: &str) -> cachewise::report::usage::Totals {
    r.rows.iter().find(|row| row.key == model).map(|row| row.totals).unwrap_or_else(|| panic!("no row {model}"))
}

#[test]
fn an_advisor_call_in_the_middle_is_billed_at_its_model() {
    let (_root, data) = one_file(&[advisor("s1", 1, 0)]);
    let daily = report(data.path(), Grouping::Daily, false).total;
    assert_eq!(daily.requests, 1, "one response is one request");
    assert_eq!(
        (daily.tokens.input, daily.tokens.cache_write_5m, daily.tokens.cache_read, daily.tokens.output),
        (3 + 149_112 + 1, 1000, 81_000, 200 + 14_153 + 300)
    );
    close(daily.cost_usd, ADVISOR_COST);
    let models = report(data.path(), Grouping::Model, false);
    let (fable, opus) = (model_row(&models, FABLE), model_row(&models, OPUS));
    assert_eq!((fable.requests, fable.tokens.input, fable.tokens.output), (0, 149_112, 14_153));
    close(fable.cost_usd, ADVISOR_CALL_COST);
    assert_eq!((opus.requests, opus.tokens.input, opus.tokens.output), (1, 4, 500));
    close(opus.cost_usd, 0.05927);
    close(models.total.cost_usd, ADVISOR_COST);
    let sessions = report(data.path(), Grouping::Session, false);
    let calls = sessions.rows[0].calls.unwrap();
    assert_eq!((calls.advisor_calls, calls.fallback_calls, calls.refused_calls), (1, 0, 0));
    close(calls.advisor_cost_usd, ADVISOR_CALL_COST);
    // The day broken down by model splits the same way.
    let day = report(data.path(), Grouping::Daily, true);
    let by: Vec<(&str, u64)> = day.rows[0].models.iter().map(|(m, t)| (m.as_str(), t.requests)).collect();
    assert_eq!(by, [(FABLE, 0), (OPUS, 1)]);
}

#[test]
fn a_refused_attempt_and_its_fallback_bill_both_models() {
    let (_root, data) = one_file(&[refusal("s1", 1, 0)]);
    let daily = report(data.path(), Grouping::Daily, false).total;
    assert_eq!(daily.requests, 1);
    assert_eq!(
        (daily.tokens.input, daily.tokens.cache_write_1h, daily.tokens.cache_read, daily.tokens.output),
        (8, 21_874, 32_238 + 54_112, 812)
    );
    close(daily.cost_usd, REFUSED_COST + FALLBACK_COST);
    let models = report(data.path(), Grouping::Model, false);
    let (fable, opus) = (model_row(&models, FABLE), model_row(&models, OPUS));
    assert_eq!((fable.requests, opus.requests), (0, 1), "counted on the message's model");
    close(fable.cost_usd, REFUSED_COST);
    close(opus.cost_usd, FALLBACK_COST);
    let s = report(data.path(), Grouping::Session, false);
    let c = s.rows[0].calls.unwrap();
    assert_eq!((c.advisor_calls, c.refused_calls, c.fallback_calls), (0, 1, 1));
    close(c.refused_cost_usd, REFUSED_COST);
    close(c.fallback_cost_usd, FALLBACK_COST);
    close(s.calls.refused_cost_usd, REFUSED_COST);
}

#[test]
fn several_message_calls_mend_a_short_write_split() {
    let (_root, data) = one_file(&[short_split("s1", 1, 0)]);
    let t = report(data.path(), Grouping::Daily, false).total;
    assert_eq!((t.tokens.cache_write_5m, t.tokens.cache_write_1h), (3176, 931));
    assert_eq!((t.tokens.input, t.tokens.cache_read, t.tokens.output), (3, 83_176, 350));
    close(t.cost_usd, SHORT_SPLIT_COST);
    let models = report(data.path(), Grouping::Model, false);
    assert_eq!(models.rows.len(), 1);
    assert_eq!(model_row(&models, OPUS).requests, 1);
    assert!(
        report(data.path(), Grouping::Session, false).calls.is_empty(),
        "plain calls are neither advisor nor fallback"
    );
}

#[test]
fn one_call_equal_to_the_usage_changes_nothing() {
    let (_root, data) = one_file(&[single("s1", 1, 0)]);
    let t = report(data.path(), Grouping::Daily, false).total;
    assert_eq!(
        (t.requests, t.tokens.input, t.tokens.cache_write_5m, t.tokens.cache_read, t.tokens.output),
        (1, 3, 1000, 40_000, 200)
    );
    close(t.cost_usd, SINGLE_COST);
    let store = Store::open(data.path()).unwrap();
    assert!(store.load(Table::Calls, frames::calls_from).unwrap().is_empty(), "nothing worth a row");
}

#[test]
fn stored_calls_keep_type_model_and_tokens_but_no_content() {
    let (_root, data) = one_file(&[advisor("s1", 1, 0), refusal("s1", 2, 1)]);
    let store = Store::open(data.path()).unwrap();
    let calls = store.load(Table::Calls, frames::calls_from).unwrap();
    let shape: Vec<(&str, u32, &str, &str)> =
        calls.iter().map(|i| (i.message_id.as_str(), i.index, i.kind.as_str(), i.model.as_str())).collect();
    assert_eq!(
        shape,
        [
            ("msg_s1_1", 0, "message", OPUS),
            ("msg_s1_1", 1, "advisor_message", FABLE),
            ("msg_s1_1", 2, "message", OPUS),
            ("msg_s1_2", 0, "message", FABLE),
            ("msg_s1_2", 1, "fallback_message", OPUS),
        ]
    );
    close(calls[1].cost_usd, ADVISOR_CALL_COST);
    close(calls[3].cost_usd, REFUSED_COST);
    for f in std::fs::read_dir(data.path()).unwrap() {
        let bytes = std::fs::read(f.unwrap().path()).unwrap();
        assert!(!bytes.windows(12).any(|w| w == b"secret words"), "content never stored");
    }
}

#[test]
fn a_store_of_the_previous_layout_reads_again_only_files_that_logged_calls() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(root.path(), "-p/a.jsonl", &[advisor("a", 1, 0)]);
    write(root.path(), "-p/b.jsonl", &[refusal("b", 1, 0)]);
    write(root.path(), "-p/c.jsonl", &common::Resp::new("c", 1, 0).to_lines());
    run(root.path(), data.path());
    let before = report(data.path(), Grouping::Daily, false).total;
    // As layout 3 left it: no iterations table, an older manifest.
    let manifest = data.path().join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let current = format!("\"schema\":{}", cachewise::store::manifest::STORE_SCHEMA);
    assert!(text.contains(&current), "{text:.80}");
    std::fs::write(&manifest, text.replacen(&current, "\"schema\":3", 1)).unwrap();
    std::fs::remove_file(data.path().join("iterations.parquet")).unwrap();
    std::fs::remove_file(root.path().join("projects/-p/b.jsonl")).unwrap();
    let o = run(root.path(), data.path());
    assert_eq!(o.files_read, 1, "a.jsonl only: c.jsonl logged no calls and b.jsonl is gone");
    let after = report(data.path(), Grouping::Daily, false).total;
    assert_eq!((after.requests, after.tokens), (before.requests, before.tokens), "b's rows outlive its file");
    close(after.cost_usd, before.cost_usd);
    let models = report(data.path(), Grouping::Model, false);
    close(model_row(&models, FABLE).cost_usd, ADVISOR_CALL_COST);
    assert!(std::fs::read_to_string(&manifest).unwrap().contains(&current));
    let again = run(root.path(), data.path());
    assert_eq!((again.files_read, again.changed), (0, false), "upgraded once");
}

#[test]
fn bundles_carry_the_calls_and_older_bundles_still_import() {
    use cachewise::team::hash::PathHasher;
    use cachewise::team::import::Incoming;
    use cachewise::team::{bundle_bytes, export, import, read_bundle, ExportSpec};
    let (_root, data) = one_file(&[advisor("s1", 1, 0), refusal("s1", 2, 1), short_split("s1", 3, 2)]);
    let spec = ExportSpec {
        user: "alice".into(),
        machine: "m1".into(),
        since: None,
        until: None,
        hasher: Some(PathHasher::from_key("team-key")),
        created: common::t0(),
    };
    let bundle = export(&Store::open(data.path()).unwrap(), &spec).unwrap();
    assert_eq!((bundle.meta.schema, bundle.calls.len()), (cachewise::team::BUNDLE_SCHEMA, 7));
    let read = read_bundle(&bundle_bytes(&bundle).unwrap(), "alice").unwrap();
    assert_eq!(read, bundle, "round trip");
    let team = tempfile::tempdir().unwrap();
    let store = Store::open(team.path()).unwrap();
    import(&store, &[Incoming { origin: "alice".into(), bundle: read.clone() }], &prices(), common::t0()).unwrap();
    // Imported twice: each call still counts once.
    import(&store, &[Incoming { origin: "alice".into(), bundle: read }], &prices(), common::t0()).unwrap();
    let total = report(team.path(), Grouping::Daily, false).total;
    assert_eq!(total.requests, 3);
    close(total.cost_usd, ADVISOR_COST + REFUSED_COST + FALLBACK_COST + SHORT_SPLIT_COST);
    let models = report(team.path(), Grouping::Model, false);
    close(model_row(&models, FABLE).cost_usd, ADVISOR_CALL_COST + REFUSED_COST);
    // A schema 1 bundle (no iteration columns) of another person imports.
    let mut old = export(&Store::open(data.path()).unwrap(), &ExportSpec { user: "bob".into(), hasher: None, ..spec });
    let old = old.as_mut().unwrap();
    old.calls.clear();
    old.meta.schema = 1;
    let bytes = schema_1_bytes(old);
    let old = read_bundle(&bytes, "bob").unwrap();
    assert!(old.calls.is_empty());
    import(&store, &[Incoming { origin: "bob".into(), bundle: old }], &prices(), common::t0()).unwrap();
    assert_eq!(report(team.path(), Grouping::Daily, false).total.requests, 6);
}

/// A bundle as schema 1 wrote it: without the iteration columns.
fn schema_1_bytes(b: &cachewise::team::Bundle) -> Vec<u8> {
    use polars::prelude::*;
    let bytes = cachewise::team::bundle_bytes(b).unwrap();
    let mut reader = ParquetReader::new(std::io::Cursor::new(bytes));
    let kv = reader.get_metadata().unwrap().key_value_metadata.clone().unwrap();
    let pairs: Vec<(String, String)> = kv.into_iter().map(|p| (p.key, p.value.unwrap_or_default())).collect();
    let mut df = reader.finish().unwrap().drop_many(["iteration", "iteration_type"]);
    df = df.drop_many(cachewise::team::analysis::own_columns().into_iter().map(|(n, _)| n));
    let mut out = Vec::new();
    let meta = KeyValueMetadata::from_static(pairs);
    ParquetWriter::new(&mut out).with_key_value_metadata(Some(meta)).finish(&mut df).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_page_the_overview_and_the_api_show_advisor_and_refused_calls() {
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let (_root, data) = one_file(&[advisor("s1", 1, 0), refusal_line("s1", 1), refusal("s1", 2, 1)]);
    let store = Store::open(data.path()).unwrap();
    let compactions = store.load(Table::Compactions, frames::compactions_from).unwrap();
    assert!(compactions.is_empty(), "a refusal fallback is no compaction: {compactions:?}");
    let now = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 5, 2, 12, 0, 0).unwrap();
    let state = common::web_state(&store, now);
    let get = |uri: &str| {
        let req = axum::http::Request::builder().uri(uri).body(Body::empty()).unwrap();
        let app = cachewise::web::app(state.clone());
        async move {
            let res = app.oneshot(req).await.unwrap();
            assert_eq!(res.status(), 200);
            String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
        }
    };
    let session = get("/session/s1").await;
    assert!(session.contains("Advisor and fallback calls"), "{session}");
    // $2.19877 advisor, $0.470348 refused, $0.047081 fallback.
    assert!(session.contains("<strong>$2.20</strong> (1 call)"), "one call, in the singular: {session}");
    assert!(session.contains("refused attempts: <strong>$0.47</strong> (1 call)"), "{session}");
    assert!(session.contains("fallbacks: $0.05 (1 call)"), "{session}");
    assert!(!session.contains("1 calls") && !session.contains("1 requests"), "{session}");
    assert!(session.contains("Refusal fallbacks"), "{session}");
    assert!(session.contains("claude-opus-4-8, claude-fable-5"), "models, the advisor's last: {session}");
    let filtered = get("/sessions?model=claude-fable-5").await;
    assert!(filtered.contains("/session/s1"), "{filtered}");
    assert!(session.contains("12:01: claude-fable-5 → claude-opus-4-8 (refusal)"), "{session}");
    let overview = get("/").await;
    assert!(overview.contains("Advisor and refused calls, last 30 days"), "{overview}");
    assert!(overview.contains("advisor: <strong>$2.20</strong> (1 call)<br>"), "one advisor call: {overview}");
    assert!(overview.contains("refused attempts: <strong>$0.47</strong> (1 call)"), "{overview}");
    assert!(overview.contains("fallbacks: $0.05 (1 call)"), "{overview}");
    assert!(!overview.contains("1 calls"), "{overview}");
    let api: serde_json::Value = serde_json::from_str(&get("/api/sessions").await).unwrap();
    let row = &api["rows"][0];
    assert_eq!((row["advisor_calls"].as_u64(), row["refused_calls"].as_u64()), (Some(1), Some(1)));
    close(row["advisor_cost_usd"].as_f64().unwrap(), ADVISOR_CALL_COST);
    close(api["calls"]["refused_cost_usd"].as_f64().unwrap(), REFUSED_COST);
}

#[test]
fn the_cli_reports_show_calls_and_split_by_model() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(root.path(), "-home-u-app/s1.jsonl", &[advisor("s1", 1, 0), refusal_line("s1", 1), refusal("s1", 2, 1)]);
    let cw = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
            .arg("--claude-dir")
            .arg(root.path())
            .arg("--data-dir")
            .arg(data.path())
            .arg("-q")
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&cw(&["report", "session", "--json"])).unwrap();
    let row = &json["rows"][0];
    assert_eq!((row["advisor_calls"].as_u64(), row["fallback_calls"].as_u64()), (Some(1), Some(1)));
    close(row["refused_cost_usd"].as_f64().unwrap(), REFUSED_COST);
    close(row["cost_usd"].as_f64().unwrap(), ADVISOR_COST + REFUSED_COST + FALLBACK_COST);
    let table = cw(&["report", "session", "--no-ingest"]);
    assert!(table.contains("Advisor calls") && table.contains("Refused cost"), "{table}");
    assert!(
        table.contains(
            "Included in the costs: advisor calls $2.20 (1), refused attempts $0.47 (1), fallbacks $0.05 (1)"
        ),
        "{table}"
    );
    let models: serde_json::Value = serde_json::from_str(&cw(&["report", "model", "--json", "--no-ingest"])).unwrap();
    let fable = models["rows"].as_array().unwrap().iter().find(|r| r["model"] == FABLE).unwrap();
    assert_eq!(fable["requests"].as_u64(), Some(0));
    close(fable["cost_usd"].as_f64().unwrap(), ADVISOR_CALL_COST + REFUSED_COST);
}

#[test]
fn hostile_calls_are_bounded_and_cleaned() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let many = (0..65).map(|_| call("message", None, [1, 0, 0, 0, 1])).collect();
    let evil = call("advisor_message\u{1b}[31m", Some(&format!("claude-\u{7}{}", "x".repeat(500))), [1, 0, 0, 0, 1]);
    let lines = [
        line("s1", 1, 0, OPUS, calls_usage([1, 0, 0, 0, 1], true), many),
        line("s1", 2, 1, OPUS, calls_usage([1, 0, 0, 0, 1], true), vec![call("message", None, [1, 0, 0, 0, 1]), evil]),
    ];
    write(root.path(), "-p/s1.jsonl", &lines);
    let o = run(root.path(), data.path());
    assert_eq!(o.problems.bad, 1, "65 calls on one line fail that line only");
    assert!(o.problems.samples[0].reason.contains("usage.iterations has 65 entries (at most 64)"));
    let calls = Store::open(data.path()).unwrap().load(Table::Calls, frames::calls_from).unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].kind, "advisor_message[31m", "control characters dropped");
    assert_eq!((calls[1].model.chars().count(), calls[1].model.starts_with("claude-x")), (100, true));
    assert_eq!(calls[1].cost_usd, 0.0, "an unknown model costs nothing and is named");
    let r = report(data.path(), Grouping::Daily, false);
    assert_eq!(r.unknown_models, [calls[1].model.to_string()]);
}

#[test]
fn appends_replays_and_rewrites_keep_each_call_once() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = write(root.path(), "-p/a.jsonl", &[advisor("a", 1, 0)]);
    run(root.path(), data.path());
    common::append(&a, &format!("{}\n", refusal("a", 2, 1)));
    // A resumed session replays the advisor response into its own file.
    write(root.path(), "-p/b.jsonl", &[advisor("a", 1, 0), short_split("b", 1, 5)]);
    let o = run(root.path(), data.path());
    assert_eq!(o.problems.bad, 0);
    let want = ADVISOR_COST + REFUSED_COST + FALLBACK_COST + SHORT_SPLIT_COST;
    let check = |cost: f64, fable: f64, requests: u64| {
        let t = report(data.path(), Grouping::Daily, false).total;
        assert_eq!(t.requests, requests);
        close(t.cost_usd, cost);
        let m = report(data.path(), Grouping::Model, false);
        close(m.total.cost_usd, cost);
        close(model_row(&m, FABLE).cost_usd, fable);
    };
    check(want, ADVISOR_CALL_COST + REFUSED_COST, 3);
    let again = run(root.path(), data.path());
    assert!(!again.changed, "nothing new");
    check(want, ADVISOR_CALL_COST + REFUSED_COST, 3);
    // a.jsonl rewritten without the refusal: the refused attempt and its
    // fallback were paid for, so they stay, with their calls; the replayed
    // advisor response in b.jsonl still counts, once.
    std::fs::write(&a, format!("{}\n", advisor("a", 1, 0))).unwrap();
    let o = run(root.path(), data.path());
    assert_eq!(o.kept_from_rewritten, 1);
    check(want, ADVISOR_CALL_COST + REFUSED_COST, 3);
}

#[test]
fn a_pushed_bundle_s_calls_belong_to_the_token_s_user() {
    use cachewise::team::tokens::TokenMap;
    use cachewise::team::{bundle_bytes, export, ExportSpec};
    use cachewise::update::{accept as accept_bundle, PushState as TeamState, DEFAULT_MAX_BYTES};
    let (_root, data) = one_file(&[advisor("s1", 1, 0)]);
    let spec = ExportSpec {
        user: "mallory".into(),
        machine: "m".into(),
        since: None,
        until: None,
        hasher: None,
        created: common::t0(),
    };
    let bytes = bundle_bytes(&export(&Store::open(data.path()).unwrap(), &spec).unwrap()).unwrap();
    let team = tempfile::tempdir().unwrap();
    let token = "push-token-0123456789-abcdef-alice";
    let state = TeamState::new(
        Store::open(team.path()).unwrap(),
        TokenMap::new([(token, "alice")]),
        prices(),
        DEFAULT_MAX_BYTES,
    );
    // At a clock after the rows (a push may not carry rows from its future).
    accept_bundle(&state, Some(&format!("Bearer {token}")), &bytes, chrono::Utc::now()).unwrap();
    let calls = Store::open(team.path()).unwrap().load(Table::Calls, frames::calls_from).unwrap();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|c| c.user == "alice"), "{calls:?}");
    let models = report(team.path(), Grouping::Model, false);
    close(model_row(&models, FABLE).cost_usd, ADVISOR_CALL_COST);
}

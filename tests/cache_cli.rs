//! Cache model v2 through the binary, with hand-computed figures:
//! `cache --json` (model, v2 classes, rewinds, compactions by trigger, the
//! idle-compaction what-if), `cache --misses --json`, the terminal view, and
//! `advise --json` with what Claude Code will do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// The binary, quiet.
fn cachewise(root: &Path, data: &Path, args: &[&str]) -> Output {
    common::cachewise(root, data, &[args, &["--quiet"]].concat())
}

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn ts(minutes: f64) -> String {
    let t = t0() + chrono::Duration::milliseconds((minutes * 60_000.0) as i64);
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn resp(session: &str, n: u64, minutes: i64, w5: u64, w1h: u64, read: u64, model: &str) -> Resp {
    Resp { w5, w1h, read, model: model.into(), ..Resp::new(session, n, minutes) }
}

const OPUS: &str = "claude-opus-4-5-20251101";
const SONNET: &str = "claude-sonnet-4-5-20250929";

/// s8 (Opus 4.5, 1h): 250k prompt, a hit, then an idle compaction 3000 s
/// after the last request. s9 (Sonnet 4.5, 5m): a rewind, a miss right after
/// a microcompact, a full rebuild. s10 (Opus 4.5, 1h, another project): a
/// 250k prompt left 70 minutes, a `ttl_1h` miss.
fn tree(root: &Path) {
    let s8 = [resp("s8", 1, 0, 0, 250_000, 0, OPUS), resp("s8", 2, 2, 0, 1000, 250_004, OPUS)];
    let mut lines: Vec<String> = s8.iter().flat_map(Resp::to_lines).collect();
    lines.push(format!(
        r#"{{"parentUuid":null,"type":"system","subtype":"compact_boundary","sessionId":"s8","timestamp":"{}","uuid":"cb-idle","compactMetadata":{{"trigger":"auto","preTokens":251009}}}}"#,
        ts(52.0)
    ));
    write(root, "-home-u-big/s8.jsonl", &lines);
    let mut lines: Vec<String> = Vec::new();
    lines.extend(resp("s9", 1, 0, 50_000, 0, 0, SONNET).to_lines());
    lines.extend(resp("s9", 2, 1, 0, 0, 40_000, SONNET).to_lines());
    lines.push(format!(
        r#"{{"parentUuid":"x","type":"system","subtype":"microcompact_boundary","content":"{SECRET}","sessionId":"s9","timestamp":"{}","uuid":"mc-1","microcompactMetadata":{{"trigger":"auto","preTokens":40005,"tokensSaved":30000}}}}"#,
        ts(2.0)
    ));
    lines.extend(resp("s9", 3, 3, 30_000, 0, 10_000, SONNET).to_lines());
    lines.extend(resp("s9", 4, 4, 40_000, 0, 0, SONNET).to_lines());
    write(root, "-home-u-big/s9.jsonl", &lines);
    let s10 = [resp("s10", 1, 0, 0, 250_000, 0, OPUS), resp("s10", 2, 70, 0, 250_010, 0, OPUS)];
    write(root, "-home-u-idle/s10.jsonl", &s10.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
}

fn close(v: &Value, x: f64) {
    let got = v.as_f64().unwrap();
    assert!((got - x).abs() < 1e-9, "{got} != {x}");
}

#[test]
fn cache_json_contract_checked_by_hand() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    let v = json(&cachewise(root.path(), data.path(), &["cache", "--json", "--now", "2026-02-12T00:00:00Z"]));
    assert_eq!(v["model"], "v4");
    assert!(v["classes"].get("unexplained").is_none());
    let class = |k: &str| &v["classes"][k];
    // s9: q3 (P 40,006 after E 40,005, read 10,000): L = 30,005, right after the microcompact.
    assert_eq!(
        (class("microcompact")["count"].as_u64(), class("microcompact")["rebuilt_tokens"].as_u64()),
        (Some(1), Some(30_005))
    );
    close(&class("microcompact")["miss_cost_usd"], 30_005.0 * 1.15 * 3e-6);
    // q4 read nothing: L = min(40,006, 40,007) = 40,006.
    assert_eq!(class("full_rebuild")["rebuilt_tokens"], 40_006);
    close(&class("full_rebuild")["miss_cost_usd"], 40_006.0 * 1.15 * 3e-6);
    assert_eq!(class("context_edit")["count"], 0);
    // q2 read 40,000 of a 40,005 prompt after 50,004: a hit and a rewind.
    assert_eq!(v["rewinds"], 1);
    assert_eq!(class("hit")["count"], 2);
    assert_eq!(class("ttl_1h")["count"], 1);
    assert_eq!(v["compactions_by_trigger"], serde_json::json!({"auto": 0, "idle": 1, "manual": 0}));
    // s10: B = 250,004 at Opus 4.5 ($5 in, $25 out): rebuild 250004 * 1.9 * 5e-6;
    // compact with S = 10% of 250,004: P * 0.1 * 5e-6 + S * 25e-6 + S * 1.9 * 5e-6.
    let idle = &v["idle_compaction"];
    assert_eq!((idle["gaps"].as_u64(), idle["idle_compactions"].as_u64()), (Some(1), Some(1)));
    close(&idle["rebuild_usd"], 250_004.0 * 1.9 * 5e-6);
    close(&idle["compact_usd"], 250_004.0 * 0.1 * 5e-6 + 25_000.4 * 25e-6 + 25_000.4 * 1.9 * 5e-6);
    let misses = json(&cachewise(root.path(), data.path(), &["cache", "--misses", "--json", "--no-ingest"]));
    let classes: Vec<&str> = misses.as_array().unwrap().iter().map(|m| m["class"].as_str().unwrap()).collect();
    assert_eq!(classes, ["ttl_1h", "full_rebuild", "microcompact"], "costliest first");
    let sessions = json(&cachewise(root.path(), data.path(), &["report", "session", "--json", "--no-ingest"]));
    let s9 = sessions["rows"].as_array().unwrap().iter().find(|r| r["session_id"] == "s9").unwrap();
    assert_eq!((s9["misses"].as_u64(), s9["rewinds"].as_u64()), (Some(2), Some(1)));
    close(&s9["edit_cost_usd"], (30_005.0 + 40_006.0) * 1.15 * 3e-6);
    close(&s9["idle_cost_usd"], 0.0);
    let text = cachewise(root.path(), data.path(), &["cache", "--no-ingest", "--now", "2026-02-12T00:00:00Z"]);
    let text = String::from_utf8_lossy(&text.stdout);
    for want in [
        "old tool results cleared",
        "rebuilt although still warm",
        "Rewinds: 1",
        "idle compaction (before the cache expired) 1",
        "Idle compaction: 1 time a conversation sat idle over an hour",
    ] {
        assert!(text.contains(want), "{want:?} missing from\n{text}");
    }
}

#[test]
fn advise_json_says_what_claude_code_will_do() {
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    let advise =
        |id: &str, now: &str| json(&cachewise(root.path(), data.path(), &["advise", id, "--json", "--now", now]));
    // s8 (last request at 20:02:00, P = 251,009, 1h) was compacted at 20:52
    // after it: the next message starts from the summary, so no dialog asks,
    // no idle compaction is ahead, and keeping the conversation is one
    // option, continuing from the summary.
    let v = advise("s8", "2026-02-11T20:18:40Z");
    assert_eq!(
        v["claude_code"],
        serde_json::json!({"resume_dialog": false, "idle_compaction_at": null, "compacted_since": true})
    );
    assert_eq!((v["recommendation"].as_str(), v["break_even_turns"].as_u64()), (Some("resume"), None));
    assert_eq!(v["options"]["resume_usd"], v["options"]["compact_usd"]);
    let text =
        cachewise(root.path(), data.path(), &["advise", "s8", "--no-ingest", "--now", "2026-02-11T21:02:00.001Z"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Do this: Continue: the conversation starts from the summary Claude Code made."), "{text}");
    assert!(text.contains("continue from the summary") && !text.contains("Resume full session as-is"), "{text}");
    assert!(!text.contains("Compact") && !text.contains("resuming re-writes"), "{text}");
    // s10 (last request at 21:10:00, P = 250,010, 1h, never compacted): the
    // idle compaction is ahead until 22:04:00; past 22:10:00 the dialog asks.
    let v = advise("s10", "2026-02-11T21:20:00Z");
    assert_eq!(
        v["claude_code"],
        serde_json::json!({"resume_dialog": false, "idle_compaction_at": "2026-02-11T22:04:00Z", "compacted_since": false})
    );
    let v = advise("s10", "2026-02-11T22:10:00.001Z");
    assert_eq!(v["claude_code"]["resume_dialog"], true);
    assert_eq!(v["claude_code"]["idle_compaction_at"], Value::Null);
    let text =
        cachewise(root.path(), data.path(), &["advise", "s10", "--no-ingest", "--now", "2026-02-11T22:10:00.001Z"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("\"Resume from summary\"") && text.contains("\"Resume full session as-is\""), "{text}");
}

#[test]
fn a_compacted_conversation_costs_only_its_base_context_to_resume_cold() {
    // s8 (last request at 20:02:00, P = 251,009, 1h), compacted at 20:52:
    // cold at 21:02, its next message sends the base context and the
    // summary, and a warm cache would read the system prompt and tools its
    // first request read; it read none, so the project's base context.
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    let now = "2026-02-11T21:02:00.001Z";
    let cache = json(&cachewise(root.path(), data.path(), &["cache", "--json", "--now", now]));
    let a = json(&cachewise(root.path(), data.path(), &["advise", "s8", "--json", "--no-ingest", "--now", now]));
    let st = cache["stale"].as_array().unwrap().iter().find(|s| s["session_id"] == "s8").unwrap();
    let i = &a["inputs"];
    let bc = i["base_context_tokens"].as_f64().unwrap();
    assert_eq!((st["compacted_since"].as_bool(), st["prompt_tokens"].as_f64()), (Some(true), Some(bc.round())));
    assert!(bc > 0.0 && bc < 251_009.0, "{i}");
    let per_token = i["input_usd_per_mtok"].as_f64().unwrap() / 1e6
        * (i["write_multiplier"].as_f64().unwrap() - i["read_multiplier"].as_f64().unwrap());
    let rs = st["shared_prefix_tokens"].as_f64().unwrap();
    close(&st["premium_usd"], (bc.round() - rs) * per_token);
    close(&st["premium_v2_usd"], 251_009.0 * per_token);
    close(&a["cold_resume_usd"], st["premium_usd"].as_f64().unwrap());
    // The terminal's stale table says so.
    let text = cachewise(root.path(), data.path(), &["cache", "--no-ingest", "--now", now]);
    let text = String::from_utf8_lossy(&text.stdout);
    let row = text.lines().find(|l| l.contains("│ s8 ")).unwrap_or_default();
    assert!(row.contains("(compacted)"), "{text}");
}

#[test]
fn advise_and_the_misses_say_their_times_in_the_zone_asked_for() {
    // s8's 1-hour cache expires at 21:02 UTC: 06:02 the next morning in Seoul.
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    let seoul = ["--tz", "Asia/Seoul", "--now", "2026-02-11T20:18:40Z"];
    let text = cachewise(root.path(), data.path(), &[&["advise", "s8"][..], &seoul].concat());
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("(warm, expires 2026-02-12 06:02 KST)"), "{text}");
    assert!(text.contains("The cache is warm until 2026-02-12 06:02 KST") && !text.contains("UTC"), "{text}");
    // The JSON keeps its explanation in UTC, as every JSON time is.
    let v =
        json(&cachewise(root.path(), data.path(), &[&["advise", "s8", "--json", "--no-ingest"][..], &seoul].concat()));
    assert!(v["explanation"].as_str().unwrap().contains("2026-02-11 21:02 UTC"), "{v}");
    let misses = cachewise(root.path(), data.path(), &[&["cache", "--misses", "--no-ingest"][..], &seoul].concat());
    let misses = String::from_utf8_lossy(&misses.stdout);
    assert!(misses.contains("2026-02-12 ") && misses.contains("Times in Asia/Seoul."), "{misses}");
}

#[test]
fn idle_compaction_what_if_ignores_other_projects_compactions() {
    // s10 (its project never compacted) as above; s11, in another project,
    // compacted once: first prompt 10,004, 60,006 after. Its S (50,002)
    // is not s10's: §7 v3 takes 10% of P_(i-1) there.
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let s10 = [resp("s10", 1, 0, 0, 250_000, 0, OPUS), resp("s10", 2, 70, 0, 250_010, 0, OPUS)];
    write(root.path(), "-home-u-idle/s10.jsonl", &s10.iter().flat_map(Resp::to_lines).collect::<Vec<_>>());
    let mut lines = resp("s11", 1, -300, 0, 10_000, 0, OPUS).to_lines();
    lines.push(compact_line("s11", -290, 10_100));
    lines.extend(resp("s11", 2, -280, 0, 60_000, 0, OPUS).to_lines());
    write(root.path(), "-home-u-other/s11.jsonl", &lines);
    let v = json(&cachewise(root.path(), data.path(), &["cache", "--json", "--now", "2026-02-12T00:00:00Z"]));
    assert_eq!(v["classes"]["compaction"]["count"], 1, "s11's second request follows its compaction");
    let idle = &v["idle_compaction"];
    assert_eq!(idle["gaps"], 1);
    close(&idle["compact_usd"], 250_004.0 * 0.1 * 5e-6 + 25_000.4 * 25e-6 + 25_000.4 * 1.9 * 5e-6);
    // The advice of s10 takes the same S: 10% of its last prompt.
    let a = json(&cachewise(root.path(), data.path(), &["advise", "s10", "--json", "--no-ingest"]));
    assert_eq!(a["inputs"]["summary_source"], "default");
    close(&a["inputs"]["summary_tokens"], 25_001.5);
}

/// The dashboard's page at `uri` over the tree, at 21:02:00.001: s8 was
/// compacted after its 20:02 request and its 1-hour cache has just expired.
async fn compacted_tree_page(uri: &str) -> String {
    use axum::body::Body;
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let (root, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    tree(root.path());
    assert!(cachewise(root.path(), data.path(), &["ingest"]).status.success());
    let store = cachewise::store::Store::open(data.path()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339("2026-02-11T21:02:00.001Z").unwrap().to_utc();
    let req = axum::http::Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = cachewise::web::app(common::web_state(&store, now)).oneshot(req).await.unwrap();
    assert_eq!(res.status(), axum::http::StatusCode::OK);
    String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_now_panel_and_the_stale_list_mark_a_compacted_conversation() {
    let page = compacted_tree_page("/").await;
    // s8 is in the Now panel (its last request an hour ago) and stale.
    assert!(page.contains("continues from the summary it already made"), "{page}");
    assert_eq!(page.matches(">(compacted)</span>").count(), 2, "the Now panel and the stale list:\n{page}");
    assert!(page.contains("only the system prompt and tools are what a warm cache would have saved"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_page_offers_one_way_on_for_a_compacted_conversation() {
    let page = compacted_tree_page("/session/s8").await;
    assert!(page.contains("Continue: the conversation starts from the summary Claude Code made."), "{page}");
    assert!(page.contains("<td>Continue from the summary</td>"), "{page}");
    assert!(!page.contains("Resume full session as-is") && !page.contains("Compact first, then continue"), "{page}");
}

//! The scenarios: each drives Claude Code through a session and checks
//! what cachewise makes of it against the fake API's ledger.

use super::cache::{Cause, Ttl};
use super::checks::{self, MARKER};
use super::*;

#[test]
fn claude_code_runs_only_in_a_namespace_with_loopback_alone() {
    let Some(h) = Harness::start() else { return };
    assert_eq!(h.ns.interfaces(), vec!["lo".to_owned()]);
    let me = h.client("solo");
    let out = h.run(&me, at(0), &["-p", "say hello"]);
    assert!(out.contains("Answer 1."), "{out}");
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 1, "{ledger:?}");
    assert_eq!(h.fake.paths(), vec!["/v1/messages".to_owned()]);
    assert_eq!(me.transcripts().len(), 1);
}

#[test]
fn claude_code_turns_with_a_tool_call_are_counted_and_classified() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("turns");
    let first = format!("remember {MARKER} [[pad:2000]]");
    // In the prompt, in the system prompt (the request shape Claude Code
    // writes down) and in a tool's output: never in the store.
    let system = format!("The secret is {MARKER}.");
    let s = h.begin(&me, at(0), &["-p", &first, "--append-system-prompt", &system]);
    let tool = format!("[[bash:echo {MARKER}]]");
    h.resume(&me, &s, at(1), &["-p", &tool, "--allowedTools", "Bash", "--append-system-prompt", &system]);
    h.resume(&me, &s, at(3), &["-p", "and again", "--append-system-prompt", &system]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 4, "a turn, a tool call and its result, a turn");
    assert!(ledger[1..].iter().all(|c| c.cause == Cause::Hit), "{ledger:?}");
    checks::all(&h, &me, at(10));
}

#[test]
fn claude_code_an_idle_gap_past_five_minutes_is_an_expired_cache() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("idle");
    let s = h.begin(&me, at(0), &["-p", "start [[pad:5000]]"]);
    h.resume(&me, &s, at(20), &["-p", "back after twenty minutes"]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger[1].cause, Cause::Expired(Ttl::FiveMinutes));
    let seen = checks::all(&h, &me, at(30));
    assert_eq!(seen.rows[&ledger[1].message_id]["class"], "ttl_5m");
}

#[test]
fn claude_code_one_hour_ttl_holds_thirty_minutes_and_expires_after_two_hours() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("hour");
    let ttl = ["--settings", r#"{"promptCacheTtl":"1h"}"#];
    let s = h.begin(&me, at(0), &[&["-p", "start [[pad:5000]]"][..], &ttl].concat());
    h.resume(&me, &s, at(30), &[&["-p", "half an hour later"][..], &ttl].concat());
    h.resume(&me, &s, at(150), &[&["-p", "two hours later"][..], &ttl].concat());
    let ledger = h.fake.ledger();
    assert!(ledger[0].usage.write_1h > 0 && ledger[0].usage.write_5m == 0, "{:?}", ledger[0]);
    assert_eq!((ledger[1].cause, ledger[2].cause), (Cause::Hit, Cause::Expired(Ttl::OneHour)));
    let seen = checks::all(&h, &me, at(160));
    assert_eq!(seen.rows[&ledger[2].message_id]["class"], "ttl_1h");
    // The TTL it asked for, from its own record of the call.
    assert!(ledger.iter().all(|c| seen.rows[&c.message_id]["ttl_asked"] == "1h"), "{:?}", seen.rows);
}

#[test]
fn claude_code_a_model_switch_is_a_miss_of_its_own() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("switch");
    let s = h.begin(&me, at(0), &["-p", "start [[pad:3000]]"]);
    h.resume(&me, &s, at(1), &["-p", "now on another model", "--model", "sonnet"]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger[1].cause, Cause::ModelChanged);
    let seen = checks::all(&h, &me, at(5));
    assert_eq!(seen.rows[&ledger[1].message_id]["class"], "model_switch");
}

#[test]
fn claude_code_a_changed_tool_set_is_named_by_claude_codes_own_record() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("tools");
    let s = h.begin(&me, at(0), &["-p", "start [[pad:3000]]"]);
    h.resume(&me, &s, at(1), &["-p", "without Bash", "--disallowedTools", "Bash"]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger[1].cause, Cause::ToolsChanged);
    let seen = checks::all(&h, &me, at(5));
    assert_eq!(seen.rows[&ledger[1].message_id]["class"], "shape_change");
}

#[test]
fn claude_code_compact_summary_calls_are_counted_though_unwritten() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("compact");
    let s = h.begin(&me, at(0), &["-p", "start [[pad:3000]]"]);
    h.resume(&me, &s, at(1), &["-p", "[[bash:echo two]]", "--allowedTools", "Bash"]);
    h.resume(&me, &s, at(2), &["-p", "/compact"]);
    h.resume(&me, &s, at(3), &["-p", "after the compaction"]);
    let ledger = h.fake.ledger();
    let summaries: Vec<&api::Call> = ledger.iter().filter(|c| c.summary).collect();
    assert_eq!(summaries.len(), 1, "{ledger:?}");
    let seen = checks::all(&h, &me, at(10));
    let after = ledger.last().unwrap();
    assert_eq!(seen.rows[&after.message_id]["class"], "compaction");
    // Every report and the dashboard name the summary's cost.
    let summary = checks::price(&cachewise::pricing::PriceTable::embedded().unwrap(), summaries[0]);
    let row = &seen.sessions[0];
    assert_eq!(row["compaction_summary_calls"], 1);
    assert!((row["compaction_summary_cost_usd"].as_f64().unwrap() - summary).abs() < 1e-9);
    let daily = cachewise_json(&h, &me, at(10), &["report", "daily", "--json"]);
    assert_eq!(daily["calls"]["compaction_summary_calls"], 1);
    let cache = cachewise_json(&h, &me, at(10), &["cache", "--json"]);
    assert_eq!(cache["usage"]["unlogged_calls"], 1);
    assert!(cache["usage"]["other_usd"].as_f64().unwrap().abs() < 1e-9, "{}", cache["usage"]);
    let text = String::from_utf8(cachewise(&h, &me, at(10), &["report", "daily"]).stdout).unwrap();
    assert!(text.contains("compaction summaries Claude Code did not write down"), "{text}");
    let html = checks::page(&h, &me, at(10), &format!("/session/{s}"));
    assert!(html.contains("Calls Claude Code did not write down"), "the session page");
    // As the previous layout (5) left this store: no record of the calls in
    // the requests or the unlogged calls; the next ingest upgrades it.
    let by_source = |h: &Harness| cachewise_json(h, &me, at(10), &["report", "source", "--json"]);
    let before = by_source(&h);
    checks::as_layout_5(&h.data_dir(&me));
    assert_eq!(by_source(&h), before, "the same figures and records after the upgrade");
}

#[test]
fn claude_code_auto_compaction_near_the_window_is_counted() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("auto");
    let window = ["--autocompact", "100000"];
    let s = h.begin(&me, at(0), &[&["-p", "one [[pad:20000]]"][..], &window].concat());
    h.resume(&me, &s, at(1), &[&["-p", "two [[pad:60000]]"][..], &window].concat());
    h.resume(&me, &s, at(2), &[&["-p", "three"][..], &window].concat());
    let ledger = h.fake.ledger();
    assert!(ledger.iter().any(|c| c.summary), "no auto-compaction: {ledger:?}");
    checks::all(&h, &me, at(10));
    // Where Claude Code compacted (its --autocompact window, not the
    // model's default) is the threshold the report counts turns left to.
    let cache = cachewise_json(&h, &me, at(10), &["cache", "--json"]);
    let reports = cache["compaction"].as_array().unwrap();
    let report = reports.iter().find(|c| c["session_id"] == s.as_str()).unwrap();
    let auto = report["compactions"].as_array().unwrap().iter().find(|c| c["trigger"] == "auto").unwrap();
    assert!(auto["pre_tokens"].as_u64().is_some_and(|p| (90_000..=110_000).contains(&p)), "{report}");
    assert_eq!((&report["threshold"], report["window_tokens"].as_u64()), (&auto["pre_tokens"], Some(200_000)));
}

#[test]
fn claude_code_a_long_session_past_a_cheaper_window_is_told_to_compact_now() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("window");
    // A conversation that grows past 260k tokens on a 1M window, then
    // goes on with short turns.
    let s = h.begin(&me, at(0), &["-p", "start [[pad:2000]]"]);
    h.resume(&me, &s, at(1), &["-p", "read this [[pad:120000]]"]);
    h.resume(&me, &s, at(2), &["-p", "and this [[pad:130000]]"]);
    for minute in 3..=8 {
        h.resume(&me, &s, at(minute), &["-p", "and on"]);
    }
    let ledger = h.fake.ledger();
    assert!(ledger.iter().all(|c| !c.summary), "a 1M window compacts near 967k: {ledger:?}");
    checks::all(&h, &me, at(10));
    let cache = cachewise_json(&h, &me, at(10), &["cache", "--json"]);
    let bands = cache["context"]["bands"].as_array().unwrap();
    assert_eq!(bands[2]["band"], "200k-400k");
    assert_eq!(bands[2]["requests"].as_u64(), Some(ledger.len() as u64 - 2));
    // Compacting at 200k: one compaction, then every turn reads less.
    let windows = cache["context"]["windows"].as_array().unwrap();
    let at_200k = windows.iter().find(|w| w["window_tokens"] == 200_000).unwrap();
    assert_eq!(at_200k["compactions"], 1, "{windows:?}");
    assert!(at_200k["saving_usd"].as_f64().unwrap() > 0.0, "{windows:?}");
    let advice = cachewise_json(&h, &me, at(10), &["advise", &s, "--json"]);
    assert_eq!(advice["compact_now"]["window_tokens"], 200_000, "{advice}");
    let text = String::from_utf8(cachewise(&h, &me, at(10), &["advise", &s]).stdout).unwrap();
    assert!(text.contains("compact now: the prompt is 26") && text.contains("past 200k"), "{text}");
    let html = checks::page(&h, &me, at(10), &format!("/session/{s}"));
    assert!(html.contains("compact now: the prompt is 26"), "the session page offers it too");
}

#[test]
fn claude_code_a_sub_agents_calls_are_its_own_thread() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("agent");
    h.begin(&me, at(0), &["-p", "[[agent:look around {{bash:echo sub}}]]", "--allowedTools", "Bash", "Agent"]);
    let ledger = h.fake.ledger();
    let threads: std::collections::BTreeSet<&str> = ledger.iter().map(|c| c.thread.as_str()).collect();
    assert_eq!(threads.len(), 2, "{ledger:?}");
    let seen = checks::all(&h, &me, at(10));
    let agent_rows = seen.rows.values().filter(|r| r["thread"] != "main").count();
    assert!(agent_rows >= 2, "{:?}", seen.rows);
}

#[test]
fn claude_code_a_fork_carries_its_parents_totals_and_nothing_is_counted_twice() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("fork");
    let parent = h.begin(&me, at(0), &["-p", "parent [[pad:3000]]"]);
    h.resume(&me, &parent, at(1), &["-p", "parent again"]);
    let out = h.run(&me, at(2), &["-p", "the fork", "--resume", &parent, "--fork-session", "--output-format", "json"]);
    let fork: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let fork = fork["session_id"].as_str().unwrap().to_owned();
    assert_ne!(fork, parent);
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 3, "{ledger:?}");
    let seen = checks::seen(&h, &me, at(10));
    checks::every_call_counted(&ledger, &seen);
    checks::each_request_matches(&ledger, &seen);
    checks::marker_never_stored(&h, &me);
    // Claude Code's fork totals carry the parent's on: the two sessions'
    // costs in cachewise add up to the fork's last cost-state.
    let claude = checks::last_cost_states(&me);
    let cost =
        |s: &str| seen.sessions.iter().find(|r| r["session_id"] == s).map_or(0.0, |r| r["cost_usd"].as_f64().unwrap());
    assert!((cost(&parent) - claude[&parent]).abs() < 1e-6, "{claude:?} {:?}", seen.sessions);
    assert!((cost(&parent) + cost(&fork) - claude[&fork]).abs() < 1e-6, "{claude:?}");
}

#[test]
fn claude_code_two_terminals_on_one_session_are_each_counted_once() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("twice");
    let s = h.begin(&me, at(0), &["-p", "base [[pad:3000]]"]);
    h.fake.set_clock(at(1));
    std::thread::scope(|scope| {
        let slow = scope.spawn(|| me.ok(at(1), &["-p", "first terminal [[slow:1500]]", "--resume", &s]));
        // The second terminal starts once the API holds the first one's
        // request (the ledger has it while its answer waits), whatever
        // the machine's load.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while h.fake.ledger().len() < 2 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        me.ok(at(1), &["-p", "second terminal", "--resume", &s]);
        slow.join().unwrap();
    });
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 3, "{ledger:?}");
    let seen = checks::seen(&h, &me, at(10));
    checks::every_call_counted(&ledger, &seen);
    checks::each_request_matches(&ledger, &seen);
    // Each process wrote its own running total: the last one in the file
    // misses the other terminal's call, which cachewise still counts.
    let claude = checks::last_cost_states(&me)[&s];
    assert!(seen.total_usd > claude + 1e-6, "cachewise ${} against Claude Code's ${claude}", seen.total_usd);
}

#[test]
fn claude_code_the_resume_hook_says_what_the_api_then_charges() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("hook");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["hooks", "--install"])
        .env("HOME", &me.home)
        .env("CLAUDE_CONFIG_DIR", me.config())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = h.begin(&me, at(0), &["-p", "start [[pad:8000]]"]);
    h.resume(&me, &s, at(20), &["-p", "back after twenty minutes"]);
    h.resume(&me, &s, at(22), &["-p", "and two minutes later"]);
    let said = checks::hook_messages(&me);
    assert_eq!(said.len(), 2, "{said:?}");
    let ledger = h.fake.ledger();
    // Twenty minutes on: the API found the cache expired, and charged the
    // rewrite of what a warm cache would have read; the hook said so first.
    assert_eq!(ledger[1].cause, Cause::Expired(Ttl::FiveMinutes));
    assert!(said[0].contains("went cold at 09:05"), "{}", said[0]);
    let premium = checks::rewrite_premium(&ledger[0], &ledger[1]);
    let quoted = checks::first_dollars(&said[0]);
    assert!((quoted - premium).abs() <= 0.005, "the hook said +${quoted}, the API charged +${premium}: {}", said[0]);
    // Two minutes on: warm, and the API read it.
    assert_eq!(ledger[2].cause, Cause::Hit);
    assert!(said[1].contains("warm"), "{}", said[1]);
    checks::all(&h, &me, at(30));
}

#[test]
fn claude_code_the_status_line_shows_the_caches_state() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("status");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cachewise"))
        .args(["statusline", "--install"])
        .env("HOME", &me.home)
        .env("CLAUDE_CONFIG_DIR", me.config())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = h.begin(&me, at(0), &["-p", "start [[pad:8000]]"]);
    let screens = client::interactive(&h, &me, at(20), &s, &["now interactive"]);
    let ledger = h.fake.ledger();
    assert_eq!(ledger.len(), 2, "{ledger:?}");
    // At start, twenty minutes on: the API's entry expired at 09:05.
    let cold = checks::status_line(&screens[0]);
    assert!(cold.contains("cold") && cold.contains("since 09:05"), "{cold}");
    assert_eq!(ledger[1].cause, Cause::Expired(Ttl::FiveMinutes));
    let quoted = checks::first_dollars(&cold);
    let premium = checks::rewrite_premium(&ledger[0], &ledger[1]);
    assert!((quoted - premium).abs() <= 0.005, "the status line said +${quoted}, the API charged +${premium}");
    // After the answer: warm, the entry's five minutes just begun (Claude
    // Code's `expires_at`, which the status line believes first, is whole
    // seconds, rounded up: one second's slack; and the status line's own
    // clock starts at the instant the client's did when it is started, so
    // it runs behind the client by as long as the client has run).
    let warm = checks::status_line(&screens[1]);
    let left = checks::minutes_left(&warm);
    assert!(warm.contains("(5m TTL)") && (285..=330).contains(&left), "{warm}");
    checks::all(&h, &me, at(30));
}

#[test]
fn claude_code_clear_starts_a_session_of_its_own_at_zero() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("clear");
    let s = h.begin(&me, at(0), &["-p", "before the clear [[pad:3000]]"]);
    h.resume(&me, &s, at(1), &["-p", "/clear"]);
    h.resume(&me, &s, at(2), &["-p", "the old conversation goes on"]);
    assert_eq!(h.fake.ledger().len(), 2, "/clear makes no call");
    let claude = checks::last_cost_states(&me);
    assert_eq!(claude.len(), 2, "the cleared session writes its own, zero totals: {claude:?}");
    assert!(claude.values().any(|&usd| usd == 0.0));
    checks::all(&h, &me, at(10));
}

#[test]
fn claude_code_a_compacted_conversation_resumes_cold_for_its_system_prompt_and_tools_alone() {
    let Some(h) = Harness::start() else { return };
    let me = h.client("compacted");
    // A first conversation caches the system prompt and tools; the next two
    // read them, talk, and are compacted.
    h.begin(&me, at(0), &["-p", "first [[pad:2000]]"]);
    let cold = h.begin(&me, at(1), &["-p", "start [[pad:8000]]"]);
    h.resume(&me, &cold, at(2), &["-p", "second [[pad:4000]]"]);
    h.resume(&me, &cold, at(3), &["-p", "/compact"]);
    let warm = h.begin(&me, at(4), &["-p", "another [[pad:6000]]"]);
    h.resume(&me, &warm, at(5), &["-p", "/compact"]);
    // Continued while warm, the API reads just the system prompt and tools
    // the conversation's first request read: what a warm cache holds.
    h.resume(&me, &warm, at(6), &["-p", "after the compaction"]);
    let ledger = h.fake.ledger();
    let mains: Vec<&api::Call> = ledger.iter().filter(|c| !c.summary).collect();
    let (floor, warm_floor) = (mains[1].usage.read, mains[3].usage.read);
    assert!(floor > 0 && floor < mains[1].usage.prompt(), "{ledger:?}");
    assert_eq!(mains[4].usage.read, warm_floor, "continued warm: {ledger:?}");
    // An hour and more on, every entry has expired, the system prompt's and
    // tools' too (cache-model §11 keeps them warm for an hour after any
    // request of the model): the stale list and the advice price the system
    // prompt and tools alone, the summary being new either way.
    let cache = cachewise_json(&h, &me, at(70), &["cache", "--json"]);
    let st = cache["stale"].as_array().unwrap().iter().find(|x| x["session_id"] == cold.as_str()).unwrap();
    assert_eq!((st["compacted_since"].as_bool(), st["prompt_tokens"].as_u64()), (Some(true), Some(floor)), "{st}");
    let rates = cachewise::pricing::PriceTable::embedded().unwrap().base_rates(&mains[1].model, at(70)).unwrap();
    let premium = floor as f64 * (rates.write_5m() - rates.read());
    assert!((st["premium_usd"].as_f64().unwrap() - premium).abs() < 1e-9, "{st} against {premium}");
    let advice = cachewise_json(&h, &me, at(70), &["advise", &cold, "--json"]);
    assert!((advice["cold_resume_usd"].as_f64().unwrap() - premium).abs() < 1e-9, "{advice}");
    // Continued cold, the API writes them again: the premium it charges.
    h.resume(&me, &cold, at(70), &["-p", "after the compaction"]);
    let last = h.fake.ledger().last().cloned().unwrap();
    assert_eq!(last.usage.read, 0);
    assert!(last.usage.write_5m >= floor, "{last:?}");
    checks::all(&h, &me, at(80));
}

//! The pilot report a lead hands on: every person of the team directory is
//! listed, an idle one with zero active days; adoption (people active /
//! people in the team) and the cost per seat over the window; the window
//! printed, and a warning when none was given over more than 31 days;
//! `--csv` is one row per person per active day (the JSON's person days)
//! with the vendor baseline, `--csv-summary` one row per person;
//! `export --until`.

use super::support::{bundle_of, bytes_of, cw, json, ok, person_tree, row};
use cachewise::report::team::PERSON_DAY_COLUMNS;
use std::path::Path;

/// A team directory: alice with 3 turns on 2026-02-11 and 2 on 2026-02-12,
/// bob with 2 turns 40 days later.
fn team_dir(dir: &Path) {
    let mut alice: Vec<_> = (1..=3).map(|k| row("alice", "a-1", k, 3 * k as i64)).collect();
    alice.extend((4..=5).map(|k| row("alice", "a-2", k, 24 * 60 + 3 * k as i64)));
    let bob: Vec<_> = (1..=2).map(|k| row("bob", "b-1", k, 40 * 24 * 60 + 3 * k as i64)).collect();
    let files = [("alice", alice), ("bob", bob)].map(|(u, rows)| {
        let path = dir.join(format!("{u}.parquet"));
        std::fs::write(&path, bytes_of(&bundle_of(u, rows))).unwrap();
        path
    });
    let team = dir.join("team");
    let args: Vec<&str> = ["import"].into_iter().chain(files.iter().map(|p| p.to_str().unwrap())).collect();
    ok(&cw(None, &team, &args));
}

const WINDOW: [&str; 4] = ["--since", "20260211", "--until", "20260212"];

#[test]
fn an_idle_person_is_listed_with_zero_active_days_and_adoption_is_one_of_two() {
    let tmp = tempfile::tempdir().unwrap();
    team_dir(tmp.path());
    let team = tmp.path().join("team");
    let v = json(&cw(None, &team, &[&["report", "team", "--json"][..], &WINDOW[..]].concat()));
    let people: Vec<&str> = v["rows"].as_array().unwrap().iter().map(|r| r["user"].as_str().unwrap()).collect();
    assert_eq!(people, ["alice", "bob"]);
    let bob = &v["rows"][1];
    assert_eq!((bob["active_days"].as_u64(), bob["requests"].as_u64()), (Some(0), Some(0)));
    assert_eq!(bob["cost_usd"], 0.0);
    let t = &v["total"];
    assert_eq!((t["people"].as_u64(), t["people_active"].as_u64()), (Some(2), Some(1)));
    let cost = t["cost_usd"].as_f64().unwrap();
    assert!(cost > 0.0);
    assert!((t["cost_per_seat_usd"].as_f64().unwrap() - cost / 2.0).abs() < 1e-12, "the idle seat counts");
    let per_day = t["cost_per_active_day_mean_usd"].as_f64().unwrap();
    assert!((per_day - cost / 2.0).abs() < 1e-12, "alice's two active days");
    let monthly = t["monthly_projection_per_seat_usd"].as_f64().unwrap();
    assert!((monthly - cost / 2.0 * 365.25 / 12.0 / 2.0).abs() < 1e-9, "a 2-day window, 2 seats");
    assert_eq!(v["window"]["given"], true);
    assert_eq!((v["window"]["first_day"].as_str(), v["window"]["days"].as_u64()), (Some("2026-02-11"), Some(2)));

    let out = cw(None, &team, &[&["report", "team"][..], &WINDOW[..]].concat());
    let table = ok(&out);
    assert!(table.contains("Team pilot, 2026-02-11 to 2026-02-12 (2 days)"), "{table}");
    assert!(table.contains("Adoption: 1 of 2 people active (50%)"), "{table}");
    assert!(table.contains(&format!("per seat over the 2 days: ${:.2}", cost / 2.0)), "{table}");
    assert!(table.contains("bob") && !table.contains("No --since"), "{table}");
    let md = ok(&cw(None, &team, &[&["report", "team", "--md"][..], &WINDOW[..]].concat()));
    assert!(md.contains("Adoption: 1 of 2 people active (50%)") && md.contains("| bob | 0 |"), "{md}");
}

#[test]
fn team_csv_rows_are_the_json_person_days_with_the_baseline() {
    let tmp = tempfile::tempdir().unwrap();
    team_dir(tmp.path());
    let team = tmp.path().join("team");
    let v = json(&cw(None, &team, &["report", "team", "--json"]));
    let csv = ok(&cw(None, &team, &["report", "team", "--csv"]));
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>(), PERSON_DAY_COLUMNS);
    let records: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let days = v["person_days"].as_array().unwrap();
    assert_eq!(records.len(), 3, "alice's two days and bob's one");
    assert_eq!(records.len(), days.len());
    for (rec, d) in records.iter().zip(days) {
        assert_eq!((&rec[0], &rec[1]), (d["user"].as_str().unwrap(), d["day"].as_str().unwrap()));
        assert_eq!(rec[2].parse::<u64>().unwrap(), d["requests"].as_u64().unwrap());
        assert_eq!(rec[3].parse::<f64>().unwrap(), d["cost_usd"].as_f64().unwrap());
        assert_eq!(rec[4].parse::<f64>().unwrap(), v["baseline"]["mean_per_active_day_usd"].as_f64().unwrap());
        assert_eq!(rec[5].parse::<f64>().unwrap(), v["baseline"]["p90_users_per_active_day_usd"].as_f64().unwrap());
    }
    // The per-person summary, an idle person included.
    let summary = ok(&cw(None, &team, &[&["report", "team", "--csv", "--csv-summary"][..], &WINDOW[..]].concat()));
    let users: Vec<String> = summary.lines().skip(1).map(|l| l.split(',').next().unwrap().to_owned()).collect();
    assert_eq!(users, ["alice", "bob", "(total)"]);
    let bob: Vec<&str> = summary.lines().nth(2).unwrap().split(',').collect();
    assert_eq!((bob[2], bob[3]), ("0", "0"), "no active day, no request: {summary}");
    let wrong = cw(None, &team, &["report", "daily", "--csv-summary"]);
    assert_eq!(wrong.status.code(), Some(2));
}

#[test]
fn a_report_without_a_window_over_more_than_31_days_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    team_dir(tmp.path());
    let team = tmp.path().join("team");
    let out = cw(None, &team, &["report", "team", "--json"]);
    let v = json(&out);
    assert_eq!((v["window"]["given"].as_bool(), v["window"]["days"].as_u64()), (Some(false), Some(41)));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: No --since or --until was given, so this covers all 41 days"), "{err}");
    let table = ok(&cw(None, &team, &["report", "team"]));
    assert!(table.contains("Team pilot, 2026-02-11 to 2026-03-23 (41 days)"), "{table}");
    assert!(table.contains("--since 20260222 --until 20260323"), "{table}");
    let quiet = cw(None, &team, &["report", "team", "--json", "--quiet"]);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("warning"));
}

#[test]
fn export_until_keeps_the_days_up_to_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, data) = (tmp.path().join("claude"), tmp.path().join("data"));
    // Three sessions a day apart from 2026-02-11 20:00 UTC, two responses each.
    person_tree(&root, "carol", 3, 2);
    let out = tmp.path().join("carol.parquet");
    let wrote = |args: &[&str]| {
        let base = ["export", "--user", "carol", "--out", out.to_str().unwrap()];
        ok(&cw(Some(&root), &data, &[&base[..], args].concat()))
    };
    assert!(wrote(&["--until", "20260212"]).starts_with("wrote 4 requests"));
    assert!(wrote(&["--since", "2026-02-12", "--until", "2026-02-12"]).starts_with("wrote 2 requests"));
    assert!(wrote(&["-s", "20260213"]).starts_with("wrote 2 requests"));
    assert!(wrote(&[]).starts_with("wrote 6 requests"));
}

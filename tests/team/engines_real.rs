//! The real corpus as a team of two (skipped without ../shared): one store
//! of `../shared/corpus/real3` exported as `alice` (all of it) and as `bob`
//! (from its middle active day on, so the two differ and share message
//! ids), both imported into a team directory; `scripts/team_sql.py` on
//! DuckDB, DataFusion and Spark over the two bundles prints the figures
//! `cachewise report team --json` prints. One corpus only: the test runs
//! in every CI run, Spark included.

use super::support::{cw, json, ok};
use super::team_sql::{compare_figures, team_sql};

#[test]
fn engines_agree_on_the_real_corpus_as_two_people() {
    let Some(root) = crate::common::corpus("real3") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (local, team, out) = (tmp.path().join("local"), tmp.path().join("team"), tmp.path().join("bundles"));
    std::fs::create_dir_all(&out).unwrap();
    ok(&cw(Some(&root), &local, &["ingest"]));
    let days = json(&cw(Some(&root), &local, &["report", "daily", "--json"]));
    let days: Vec<&str> = days["rows"].as_array().unwrap().iter().map(|d| d["period"].as_str().unwrap()).collect();
    let middle = days[days.len() / 2];
    for (user, since) in [("alice", None), ("bob", Some(middle))] {
        let file = out.join(format!("{user}.parquet"));
        let mut args = vec!["export", "--user", user, "--machine", "laptop", "--out", file.to_str().unwrap()];
        args.extend(since.iter().flat_map(|d| ["--since", *d]));
        ok(&cw(Some(&root), &local, &args));
    }
    ok(&cw(None, &team, &["import", out.to_str().unwrap()]));
    let report = json(&cw(None, &team, &["report", "team", "--json"]));
    let people = report["rows"].as_array().unwrap();
    assert_eq!(people.len(), 2);
    assert!(people[0]["requests"].as_u64() > people[1]["requests"].as_u64(), "bob has the later half");
    assert!(report["flags"]["message_ids_under_several_users"].as_u64().unwrap() > 0);
    assert!(report["total"]["idle_cost_usd"].as_f64().unwrap() > 0.0);
    for engine in ["duckdb", "datafusion", "spark"] {
        let Some(got) = team_sql(engine, &[&out], false) else { continue };
        let problems = compare_figures(&got, &report);
        assert!(problems.is_empty(), "{engine} disagrees with report team --json:\n{}", problems.join("\n"));
        assert_eq!(got["total"]["requests"], report["total"]["requests"]);
    }
}

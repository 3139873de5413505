//! A person's bundles arriving in overlapping parts (a weekly export, a
//! second machine) on the real corpus (skipped without ../shared): the
//! team directory that imported them one after the other, each import
//! writing the people it already held again (`team::people`), reports
//! exactly what one import of everything reports.

use super::support::{cw, json, ok};
use std::path::Path;

#[test]
fn overlapping_exports_imported_one_after_the_other_equal_one_import() {
    let Some(root) = crate::common::corpus("real3") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let local = tmp.path().join("local");
    ok(&cw(Some(&root), &local, &["ingest"]));
    let days = json(&cw(Some(&root), &local, &["report", "daily", "--json"]));
    let days: Vec<&str> = days["rows"].as_array().unwrap().iter().map(|d| d["period"].as_str().unwrap()).collect();
    let (third, half) = (days[days.len() / 3], days[days.len() / 2]);
    let export = |name: &str, window: &[&str]| {
        let file = tmp.path().join(format!("{name}.parquet"));
        let args =
            [&["export", "--user", "ann", "--machine", "laptop", "--out", file.to_str().unwrap()], window].concat();
        ok(&cw(Some(&root), &local, &args));
        file
    };
    let (early, late, all) =
        (export("early", &["--until", half]), export("late", &["--since", third]), export("all", &[]));
    let (stepwise, at_once) = (tmp.path().join("stepwise"), tmp.path().join("at-once"));
    let import = |team: &Path, file: &Path| ok(&cw(None, team, &["import", file.to_str().unwrap()]));
    import(&stepwise, &early);
    let second = import(&stepwise, &late);
    assert!(second.contains("already present") && !second.contains(" 0 already present"), "{second}");
    import(&at_once, &all);
    let read = |team: &Path, args: &[&str]| {
        json(&cw(None, team, &[args, &["--no-ingest", "--now", "2026-12-01T00:00:00Z"]].concat()))
    };
    for args in [&["cache", "--json"][..], &["report", "team", "--json"], &["report", "session", "--json"]] {
        assert_eq!(read(&stepwise, args), read(&at_once, args), "{args:?}");
    }
}

//! Runs `scripts/team_sql.py` for the engine tests (`team/engines.rs`,
//! `team/engines_real.rs`) and compares what it prints: each query's rows
//! with cachewise's (in any order, on the columns cachewise gave), and
//! its figures with `cachewise report team --json` (every figure the
//! script prints must be in the report, equal). Floats compare to a
//! relative 1e-9 (the engines sum in their own order), times as epoch ms.

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The file names of sql/*.sql.
pub(super) fn sql_files() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sql"))
        .collect();
    names.sort();
    names
}

/// `team_sql.py --engine ENGINE --tz UTC [--queries] PATHS...`'s JSON, or
/// None (after printing `skip:` and why) when the engine cannot run here
/// and `CACHEWISE_<ENGINE>` is not `required`.
pub(super) fn team_sql(engine: &str, paths: &[&Path], queries: bool) -> Option<Value> {
    let var = format!("CACHEWISE_{}", engine.to_uppercase());
    let required = std::env::var(&var).is_ok_and(|v| v == "required");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/team_sql.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script).args(["--engine", engine, "--tz", "UTC"]).args(paths);
    if queries {
        cmd.arg("--queries");
    }
    let clock = Instant::now();
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) if !required => {
            println!("skip: cannot run python3 for {engine}: {e}");
            return None;
        }
        Err(e) => panic!("cannot run python3: {e}"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    let timings = err.lines().filter(|l| l.starts_with("team_sql:")).collect::<Vec<_>>().join("; ");
    println!("team_sql.py --engine {engine}: exit {:?} after {:.1?} ({timings})", out.status.code(), clock.elapsed());
    match out.status.code() {
        Some(0) => Some(serde_json::from_slice(&out.stdout).unwrap()),
        Some(3) if !required => {
            let why = err.lines().find(|l| l.starts_with("skip:")).unwrap_or("skip: engine missing");
            println!("{why} ({var}=required makes this fail)");
            None
        }
        _ => panic!("team_sql.py --engine {engine} failed ({var}={}):\n{err}", std::env::var(&var).unwrap_or_default()),
    }
}

/// Equal, floats to a relative 1e-9.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_f64() || b.is_f64() => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()) + 1e-12,
        _ => a == b,
    }
}

/// Differences between `want` ({file: {"sort": [..], "rows": [..]}}, from
/// cachewise) and `got` ({file: [rows]}, from the script), as messages.
pub(super) fn compare_queries(want: &Value, got: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, spec) in want.as_object().unwrap() {
        let Some(rows) = got[name].as_array() else {
            problems.push(format!("{name}: no rows from the script"));
            continue;
        };
        let want_rows = spec["rows"].as_array().unwrap();
        let mut cols: Vec<&String> = want_rows.iter().flat_map(|r| r.as_object().unwrap().keys()).collect();
        cols.sort();
        cols.dedup();
        let sort: Vec<&str> = match spec["sort"].as_array() {
            Some(s) => s.iter().map(|c| c.as_str().unwrap()).collect(),
            None => cols.iter().map(|c| c.as_str()).collect(),
        };
        let key = |r: &&Value| sort.iter().map(|c| r[*c].to_string()).collect::<Vec<_>>();
        let (mut w, mut g): (Vec<&Value>, Vec<&Value>) = (want_rows.iter().collect(), rows.iter().collect());
        w.sort_by_key(key);
        g.sort_by_key(key);
        if w.len() != g.len() {
            problems.push(format!("{name}: {} rows from the script, {} from cachewise", g.len(), w.len()));
            continue;
        }
        for (i, (w, g)) in w.iter().zip(&g).enumerate() {
            for c in cols.iter().filter(|c| !same(&w[c.as_str()], &g[c.as_str()])) {
                problems.push(format!(
                    "{name}: row {i} column {c}: script {}, cachewise {}",
                    g[c.as_str()],
                    w[c.as_str()]
                ));
            }
        }
    }
    problems.truncate(40);
    problems
}

/// Differences between the script's figures (`got`, its "queries",
/// "engine" and "tz" aside) and `report` (`report team --json`).
pub(super) fn compare_figures(got: &Value, report: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    for (k, v) in got.as_object().unwrap().iter().filter(|(k, _)| !["queries", "engine", "tz"].contains(&k.as_str())) {
        within(v, &report[k], k, &mut problems);
    }
    problems.truncate(40);
    problems
}

fn within(got: &Value, report: &Value, path: &str, problems: &mut Vec<String>) {
    match (got, report) {
        (Value::Object(g), Value::Object(r)) => {
            for (k, v) in g {
                match r.get(k) {
                    Some(rv) => within(v, rv, &format!("{path}.{k}"), problems),
                    None => problems.push(format!("{path}.{k}: not in report team --json")),
                }
            }
        }
        (Value::Array(g), Value::Array(r)) if g.len() == r.len() => {
            for (i, (g, r)) in g.iter().zip(r).enumerate() {
                within(g, r, &format!("{path}[{i}]"), problems);
            }
        }
        _ if same(got, report) => {}
        _ => problems.push(format!("{path}: script {got}, report team --json {report}")),
    }
}

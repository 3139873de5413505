//! Helpers for the team tests: run the binary, write a person's transcript
//! tree, build bundles in memory, start the push server on loopback, and
//! fingerprint a data directory to prove it was left untouched.
#![allow(dead_code)]

use super::common::{t0, write, Resp};
use cachewise::analyze::{CacheClass, ClassStats, ClassTable};
use cachewise::model::columns as c;
use cachewise::model::{Compaction, Request, TokenCounts};
use cachewise::pricing::PriceTable;
use cachewise::report::query::{Grouping, Query};
use cachewise::store::frames::Cols;
use cachewise::store::view::StoreView;
use cachewise::store::Store;
use cachewise::team::tokens::TokenMap;
use cachewise::team::{bundle_bytes, Bundle, BundleMeta, BUNDLE_SCHEMA};
use cachewise::update::PushState as TeamState;
use cachewise::web::push::router;
use chrono::Duration;
use polars::sql::SQLContext;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

/// The binary under test: this build's, or `CACHEWISE_TEST_BIN` (to show
/// a test fails on an older build).
pub(crate) fn test_bin() -> std::ffi::OsString {
    std::env::var_os("CACHEWISE_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_cachewise").into())
}

/// Runs `cachewise --tz UTC --data-dir DATA [--claude-dir ROOT] ARGS`.
pub(crate) fn cw(root: Option<&Path>, data: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(test_bin());
    c.args(["--tz", "UTC", "--data-dir"]).arg(data).args(args);
    match root {
        Some(r) => c.arg("--claude-dir").arg(r),
        None => c.arg("--claude-dir").arg(data.join("no-transcripts-here")),
    };
    c.env_remove("CLAUDE_CONFIG_DIR").env_remove("CACHEWISE_DATA_DIR").env_remove("CACHEWISE_HASH_KEY");
    c.output().unwrap()
}

pub(crate) fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "stderr: {}\nstdout: {}",
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub(crate) fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap()
}

/// A person's transcripts: `sessions` sessions of `n` responses, one day
/// apart, under `root/projects/-home-NAME-app/`. Returns the responses.
pub(crate) fn person_tree(root: &Path, name: &str, sessions: usize, n: u64) -> Vec<Resp> {
    let mut all = Vec::new();
    for s in 0..sessions {
        let sid = format!("{name}-s{s}");
        let day = s as i64 * 24 * 60;
        let resps: Vec<Resp> = (1..=n).map(|k| Resp::new(&sid, k, day + k as i64 * 3)).collect();
        let lines: Vec<String> = resps.iter().flat_map(Resp::to_lines).collect();
        write(root, &format!("-home-{name}-app/{sid}.jsonl"), &lines);
        all.extend(resps);
    }
    all
}

/// A priced-later request row of `user` (Sonnet 4.5).
pub(crate) fn row(user: &str, session: &str, k: u64, minutes: i64) -> Request {
    Request {
        time: t0() + Duration::minutes(minutes),
        session_id: session.into(),
        thread: "main".into(),
        project: format!("-home-{user}-app").into(),
        cwd: format!("/home/{user}/app").into(),
        git_branch: "main".into(),
        version: "2.1.39".into(),
        model: "claude-sonnet-4-5-20250929".into(),
        tokens: TokenCounts {
            input: 3 + k,
            cache_write_5m: 1000 * k,
            cache_write_1h: 0,
            cache_read: 20_000 + 500 * k,
            output: 100 + k,
        },
        web_search: 0,
        speed: Default::default(),
        inference_geo: Default::default(),
        server_reason: Default::default(),
        server_missed_tokens: None,
        is_sidechain: false,
        cost_usd: 0.0,
        source: format!("/home/{user}/.claude/projects/-home-{user}-app/{session}.jsonl").into(),
        line: k,
        message_id: format!("msg_{session}_{k}"),
        request_id: format!("req_{session}_{k}"),
        user: user.into(),
        machine: "laptop".into(),
        client: Default::default(),
    }
}

/// A bundle of `rows` (all of one user) with no compactions.
pub(crate) fn bundle_of(user: &str, rows: Vec<Request>) -> Bundle {
    let meta = BundleMeta {
        schema: BUNDLE_SCHEMA,
        version: "test".into(),
        user: user.into(),
        machine: "laptop".into(),
        created: "2026-02-20T00:00:00Z".into(),
        hashed_paths: false,
    };
    // A compaction before the first request: in the bundle, no effect on the cache model.
    let time = rows[0].time - Duration::minutes(1);
    let compactions = vec![Compaction {
        session_id: rows[0].session_id.to_string(),
        time,
        trigger: "auto".into(),
        pre_tokens: Some(1),
        source: "x".into(),
        trigger_written: true,
        ..Compaction::default()
    }];
    Bundle { meta, requests: rows, compactions, calls: Vec::new(), analysis: None }
}

pub(crate) fn bytes_of(b: &Bundle) -> Vec<u8> {
    bundle_bytes(b).unwrap()
}

pub(crate) fn prices() -> PriceTable {
    PriceTable::load(None).unwrap()
}

/// `TOKEN_PREFIX + user` is each user's token.
pub(crate) const TOKEN_PREFIX: &str = "test-token-0123456789-";

pub(crate) fn state(dir: &Path, users: &[&str], max_bytes: usize) -> TeamState {
    let tokens: Vec<(String, &str)> = users.iter().map(|u| (format!("{TOKEN_PREFIX}{u}"), *u)).collect();
    let tokens = TokenMap::new(tokens.iter().map(|(t, u)| (t.as_str(), *u)));
    TeamState::new(Store::open(dir).unwrap(), tokens, prices(), max_bytes)
}

/// Serves the team router on 127.0.0.1:0 from a background runtime;
/// returns the base URL. The server lives as long as the test process.
pub(crate) fn serve(state: TeamState) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, router(state)).await.unwrap();
        });
    });
    format!("http://{}", rx.recv().unwrap())
}

/// Every file in a directory with its bytes, to show nothing changed.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.ends_with(".lock"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// A row bomb: `rows` copies of one request compress to a few hundred KB.
pub(crate) fn row_bomb(rows: usize) -> Vec<u8> {
    use polars::prelude::*;
    let one = bytes_of(&bundle_of("alice", vec![row("alice", "a-s1", 1, 1)]));
    let df = ParquetReader::new(std::io::Cursor::new(one)).finish().unwrap();
    let row = df.slice(0, 1);
    let meta = KeyValueMetadata::from_static(vec![("cachewise.bundle_schema".to_owned(), "1".to_owned())]);
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out).with_key_value_metadata(Some(meta)).batched(row.schema()).unwrap();
    for n in (0..rows).step_by(250_000) {
        w.write_batch(&row.new_from_index(0, (rows - n).min(250_000))).unwrap();
    }
    w.finish().unwrap();
    out
}

/// The reported string bomb: `rows` rows sharing one 1 MB text value,
/// dictionary-encoded into a small file whose pages claim little.
pub(crate) fn shared_string_bomb(rows: usize) -> Vec<u8> {
    use polars::prelude::*;
    let one = bytes_of(&bundle_of("alice", vec![row("alice", "a-s1", 1, 1)]));
    let df = ParquetReader::new(std::io::Cursor::new(one)).finish().unwrap();
    let mut row = df.slice(0, 1).new_from_index(0, rows);
    let big = "x".repeat(1 << 20);
    row.with_column(Column::new("cwd".into(), vec![big.as_str(); rows])).unwrap();
    let meta = KeyValueMetadata::from_static(vec![("cachewise.bundle_schema".to_owned(), "1".to_owned())]);
    let mut out = Vec::new();
    ParquetWriter::new(&mut out).with_key_value_metadata(Some(meta)).finish(&mut row).unwrap();
    out
}

/// The class table per person over the analysis rows `q` selects
/// (`sql/team_cache_classes.sql`, as a user's engine would run it).
pub(crate) fn class_tables(
    view: &StoreView,
    q: &Query,
) -> Result<BTreeMap<String, ClassTable>, Box<dyn std::error::Error>> {
    let analysis = q.prepare(view.analysis()?, Grouping::Daily)?;
    let mut ctx = SQLContext::new();
    ctx.register("analysis", analysis);
    let df = ctx.execute(include_str!("../../sql/team_cache_classes.sql"))?.collect()?;
    let k = Cols(&df);
    let (user, class) = (k.str(c::USER)?, k.str(c::CLASS)?);
    let (count, rebuilt, cost) = (k.u64("count")?, k.u64(c::REBUILT_TOKENS)?, k.f64(c::MISS_COST_USD)?);
    let mut out: BTreeMap<String, ClassTable> = BTreeMap::new();
    for i in 0..df.height() {
        let Some(class) = CacheClass::parse(class[i]) else { continue };
        let stats = ClassStats { count: count[i], rebuilt_tokens: rebuilt[i], miss_cost_usd: cost[i] };
        *out.entry(user[i].to_owned()).or_default().get_mut(class) += stats;
    }
    Ok(out)
}

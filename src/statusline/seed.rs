//! A first call's state from the store, so a long transcript the last
//! ingest read is not read again: the session's stored cost and request
//! count (the session totals, `sessions.parquet`), and each file's position where the
//! ingest stopped (the manifest). The bytes just before that position are
//! parsed (not counted) for the last main-thread request, the TTL in force
//! and the responses whose later lines may still come. Used only when the
//! store is consistent (its manifest written after its session totals) and
//! the file's head is the one the manifest fingerprinted; otherwise `None`
//! and the transcript is read in full.

use super::session::{fold_main, source, SessionState, STATE_VERSION};
use super::tail::{fold_known, tail_print, trim, FileTail};
use crate::analyze::TTL_5M_S;
use crate::ingest::parse::{parse_bytes, Start};
use crate::ingest::sidechain::Links;
use crate::model::calls::sort_calls;
use crate::model::columns as c;
use crate::model::{Boundary, Compaction, MAIN_THREAD};
use crate::pricing::PriceTable;
use crate::store::frames::Cols;
use crate::store::manifest::{fingerprint, FileState};
use crate::store::{Store, Table};
use chrono::{DateTime, Utc};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Bytes before the stored position parsed for the last request.
const WINDOW: u64 = 2 << 20;

/// The state the store implies for `transcript` and its `agents`, if any.
pub fn seed(
    data_dir: &Path,
    transcript: &Path,
    agents: &[PathBuf],
    prices: &PriceTable,
    now: DateTime<Utc>,
) -> Option<SessionState> {
    let store = existing_store(data_dir)?;
    let manifest_time = std::fs::metadata(crate::store::files::manifest(data_dir)).and_then(|m| m.modified()).ok()?;
    let totals_time = std::fs::metadata(store.path(Table::SessionTotals)).and_then(|m| m.modified()).ok()?;
    if totals_time > manifest_time {
        return None; // an ingest is between its tables and its manifest
    }
    let manifest = store.manifest().ok()?;
    // The session totals' cost is of the table the store was priced with.
    if manifest.pricing != prices.fingerprint() {
        return None;
    }
    let main_state = manifest.files.get(transcript.to_str()?)?;
    let session_id = transcript.file_stem()?.to_str()?;
    let (cost_usd, requests) = stored_session(&store, session_id)?;
    let lineage_read = stored_lineage_read(&store, session_id);
    let mut state = SessionState {
        version: STATE_VERSION,
        transcript: transcript.to_string_lossy().into_owned(),
        ttl_s: TTL_5M_S,
        ..SessionState::default()
    };
    let main = window(transcript, main_state, None, prices, now)?;
    state.compacted_at = main.2.iter().filter(|c| c.boundary == Boundary::Compact).map(|c| c.time).max();
    fold_main(&mut state, main.1, &[], prices);
    state.last_main.as_ref()?;
    // The window may start inside the last lineage: the store knows its first read.
    if let Some(r) = lineage_read {
        state.lineage_read = r;
    }
    let mut tail = main.0;
    (tail.cost_usd, tail.requests) = (cost_usd, requests);
    state.files.insert(state.transcript.clone(), tail);
    for path in agents {
        let Some(fs) = path.to_str().and_then(|p| manifest.files.get(p)) else { continue };
        let agent = path.file_stem().and_then(|s| s.to_str()).and_then(|s| s.strip_prefix("agent-")).map(str::to_owned);
        if let Some((t, _, _)) = window(path, fs, agent, prices, now) {
            state.files.insert(path.to_string_lossy().into_owned(), t);
        }
    }
    Some(state)
}

/// Stored cost and requests of one session.
fn stored_session(store: &Store, session_id: &str) -> Option<(f64, u64)> {
    let df = store.read_file(Table::SessionTotals, Some(&[c::SESSION_ID, c::COST_USD, c::REQUESTS])).ok()??;
    let cols = Cols(&df);
    let ids = cols.str(c::SESSION_ID).ok()?;
    let i = ids.iter().position(|s| *s == session_id)?;
    Some((cols.f64(c::COST_USD).ok()?[i], cols.u64(c::REQUESTS).ok()?[i]))
}

/// The stored first read of the last main-thread lineage of a local
/// session (the session analysis), when it holds one.
fn stored_lineage_read(store: &Store, session_id: &str) -> Option<u64> {
    let cols = [c::USER, c::SESSION_ID, c::LINEAGE_FIRST_READ];
    let df = store.read_file(Table::SessionAnalysis, Some(&cols)).ok()??;
    let k = Cols(&df);
    let (user, ids, read) = (k.str(c::USER).ok()?, k.str(c::SESSION_ID).ok()?, k.u64(c::LINEAGE_FIRST_READ).ok()?);
    let i = (0..df.height()).find(|&i| ids[i] == session_id && user[i].is_empty())?;
    Some(read[i])
}

/// The file's tail at the stored position, its recent responses, main
/// requests and compactions taken from the bytes before it; None when the
/// file's head is not the one stored.
fn window(
    path: &Path,
    fs: &FileState,
    agent: Option<String>,
    prices: &PriceTable,
    now: DateTime<Utc>,
) -> Option<(FileTail, Vec<crate::model::Request>, Vec<Compaction>)> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut f = crate::store::files::open_regular(path).ok()?;
    let mut head = vec![0u8; usize::try_from(fs.head_len).ok()?];
    f.read_exact(&mut head).ok()?;
    if fingerprint(&head) != fs.head_hash || f.metadata().ok()?.len() < fs.offset {
        return None;
    }
    let from = fs.offset.saturating_sub(WINDOW);
    f.seek(SeekFrom::Start(from)).ok()?;
    let mut buf = vec![0u8; usize::try_from(fs.offset - from).ok()?];
    f.read_exact(&mut buf).ok()?;
    let skip = if from == 0 { 0 } else { memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1) };
    let rows = parse_bytes(
        &source(path, agent),
        &buf[skip..],
        Start { offset: from + skip as u64, line: 0 },
        &mut Links::default(),
        now,
    );
    let (tail_len, tail_hash) = tail_print(&buf);
    let mut tail = FileTail {
        offset: fs.offset,
        lines: fs.lines,
        head_len: fs.head_len,
        head_hash: fs.head_hash,
        tail_len,
        tail_hash,
        ..FileTail::default()
    };
    let mut main = Vec::new();
    let mut calls = rows.calls;
    sort_calls(&mut calls);
    for r in rows.requests {
        fold_known(&mut tail, &r, prices.response_cost(&r, &calls));
        if r.thread.as_str() == MAIN_THREAD {
            main.push(r);
        }
    }
    trim(&mut tail);
    // The cache model walks a response's calls, not their sum.
    Some((tail, crate::analyze::thread_requests(prices, main, &calls), rows.compactions))
}

/// `Bc` of `project` (cache-model §7) over the store under `data_dir`, for
/// a conversation compacted after its last request; None without a store
/// whose analysis is stored for these prices (computing it would hold the
/// status line up for seconds).
pub(super) fn stored_base_context(
    data_dir: &Path,
    project: &str,
    prices: &PriceTable,
    now: DateTime<Utc>,
) -> Option<f64> {
    let store = existing_store(data_dir)?;
    store.open_analysis(&crate::materialize::stamp(prices)).ok()??;
    let view = crate::materialize::view(&store, prices, now).ok()?;
    Some(view.medians().ok()?.project(project).base_context().0)
}

/// The store under `data_dir` when an ingest has written one.
fn existing_store(data_dir: &Path) -> Option<Store> {
    crate::store::files::manifest(data_dir).is_file().then(|| Store::open(data_dir).ok()).flatten()
}

//! Reading only what a transcript gained: per file, the offset of the last
//! complete line read, a fingerprint of its head, the cost so far and the
//! last few requests (to merge the lines of one response that straddle two
//! calls). A file that shrank or whose head changed was truncated or
//! replaced: its figures restart from zero, so nothing is counted twice.
//! Lines go through the ingest's own parser (`ingest::parse`); hands on the
//! new main-thread requests and compactions to `session`.

use crate::ingest::discover::SourceFile;
use crate::ingest::parse::Start;
use crate::model::iterations::sort_calls;
use crate::model::{Compaction, Request, MAIN_THREAD};
use crate::pricing::PriceTable;
use crate::store::manifest::{fingerprint, HEAD_LEN};
use chrono::{DateTime, Utc};
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Requests remembered per file: enough to merge a response's lines across
/// calls and to tell which of today's requests the store has not read yet.
const KEEP_RECENT: usize = 2048;

/// One request seen, compactly: `(key, line, time s, output tokens, cost,
/// cost the store had counted when it was first seen)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Seen(pub u64, pub u64, pub i64, pub u64, pub f64, pub f64);

impl Seen {
    pub fn line(&self) -> u64 {
        self.1
    }
    pub fn time_s(&self) -> i64 {
        self.2
    }
    /// What this request adds beyond what the store counted.
    pub fn unstored(&self) -> f64 {
        self.4 - self.5
    }
}

/// What the status line knows about one transcript file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileTail {
    /// Byte offset just past the last complete line read.
    pub offset: u64,
    /// Lines before `offset` (the ingest manifest counts the same way).
    pub lines: u64,
    pub head_len: u64,
    pub head_hash: u64,
    /// Every request read from this file, priced and deduplicated.
    pub cost_usd: f64,
    pub requests: u64,
    /// The last requests seen, oldest first.
    pub recent: Vec<Seen>,
}

/// What one read of one file found.
#[derive(Debug, Default)]
pub struct Gained {
    /// True when the file was truncated or replaced and read from the start.
    pub reset: bool,
    /// New main-thread requests, in file order.
    pub main: Vec<Request>,
    pub compactions: Vec<Compaction>,
    pub bytes: u64,
}

/// Reads what `path` gained since `tail` and folds it in.
pub fn read_gain(path: &Path, file: &SourceFile, tail: &mut FileTail, prices: &PriceTable) -> std::io::Result<Gained> {
    // A FIFO or device would block or never end: only regular files.
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut f = File::open(path)?;
    let size = f.metadata()?.len();
    let mut out = Gained::default();
    if size < tail.offset || !head_matches(&mut f, tail)? {
        *tail = FileTail::default();
        out.reset = true;
    }
    if size == tail.offset {
        return Ok(out);
    }
    f.seek(SeekFrom::Start(tail.offset))?;
    let mut buf = Vec::with_capacity(usize::try_from(size - tail.offset).unwrap_or(0).min(1 << 30));
    f.read_to_end(&mut buf)?;
    let Some(last_nl) = memchr::memrchr(b'\n', &buf) else { return Ok(out) };
    let rows = super::parallel::parse(file, &buf[..=last_nl], Start { offset: tail.offset, line: tail.lines });
    out.bytes = rows.end.offset - tail.offset;
    if tail.offset == 0 {
        let head = &buf[..(HEAD_LEN.min(rows.end.offset) as usize)];
        tail.head_len = head.len() as u64;
        tail.head_hash = fingerprint(head);
    }
    tail.offset = rows.end.offset;
    tail.lines = rows.end.line;
    // One read's requests are already merged by key (the parser does it),
    // so only the responses of earlier reads need looking up.
    let earlier: HashMap<u64, usize> = tail.recent.iter().enumerate().map(|(i, s)| (s.0, i)).collect();
    // A response made of several API calls costs its calls at their models.
    let mut calls = rows.iterations;
    sort_calls(&mut calls);
    for r in rows.requests {
        let cost = prices.response_cost(&r, &calls);
        if fold(tail, &earlier, &r, cost) && r.thread.as_str() == MAIN_THREAD {
            out.main.push(r);
        }
    }
    trim(tail);
    // The cache model walks a response's calls, not their sum.
    out.main = crate::analyze::thread_requests(prices, std::mem::take(&mut out.main), &calls);
    out.compactions = rows.compactions;
    Ok(out)
}

fn key_of(r: &Request) -> u64 {
    fingerprint(format!("{}\0{}", r.message_id, r.request_id).as_bytes())
}

/// Keeps the last `KEEP_RECENT` responses.
pub fn trim(tail: &mut FileTail) {
    if tail.recent.len() > KEEP_RECENT {
        let extra = tail.recent.len() - KEEP_RECENT;
        tail.recent.drain(..extra);
    }
}

/// Adds one request to the file's figures; a response already seen only
/// adds the difference when a later line carries more output. True when
/// the request is new or better than before.
fn fold(tail: &mut FileTail, earlier: &HashMap<u64, usize>, r: &Request, cost: f64) -> bool {
    let key = key_of(r);
    if let Some(s) = earlier.get(&key).and_then(|&i| tail.recent.get_mut(i)) {
        if r.tokens.output <= s.3 {
            return false;
        }
        tail.cost_usd += cost - s.4;
        (s.1, s.3, s.4) = (r.line, r.tokens.output, cost);
        return true;
    }
    tail.cost_usd += cost;
    tail.requests += 1;
    tail.recent.push(Seen(key, r.line, r.time.timestamp(), r.tokens.output, cost, 0.0));
    true
}

/// Remembers a response the store already counted (a seed's window): its
/// later lines then add only what they add. Call `trim` after a batch.
pub fn fold_known(tail: &mut FileTail, r: &Request, cost: f64) {
    tail.recent.push(Seen(key_of(r), 0, r.time.timestamp(), r.tokens.output, cost, cost));
}

fn head_matches(f: &mut File, tail: &FileTail) -> std::io::Result<bool> {
    if tail.offset == 0 {
        return Ok(true);
    }
    let mut head = vec![0u8; usize::try_from(tail.head_len).unwrap_or(0)];
    f.seek(SeekFrom::Start(0))?;
    match f.read_exact(&mut head) {
        Ok(()) => Ok(fingerprint(&head) == tail.head_hash),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// The cost of this file's requests at or after `since` whose lines lie
/// past `stored_lines` (what the last ingest read of the file).
pub fn unstored_cost(tail: &FileTail, stored_lines: u64, since: DateTime<Utc>) -> f64 {
    let since = since.timestamp();
    tail.recent.iter().filter(|s| s.line() > stored_lines && s.time_s() >= since).map(Seen::unstored).sum()
}

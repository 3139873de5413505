//! Reading only what a transcript gained: per file, the offset of the last
//! complete line read, fingerprints of its head and of the bytes just
//! before that offset, the cost so far and the last few requests (to merge
//! the lines of one response that straddle two calls). A file that shrank
//! or whose head or bytes before the offset changed was truncated, replaced
//! or rewritten past its head: its figures restart from zero, so nothing is
//! counted twice. What one call reads is bounded (`READ_BUDGET`, shared by
//! a session's files): a longer gain is read over the next calls, a line
//! longer than `MAX_LINE` is skipped, and the bytes of a line not yet
//! ended are scanned once (`FileTail::scanned`), never read again to find
//! its end. Lines go through the ingest's own parser (`ingest::parse`), at
//! the call's clock; hands on the new main-thread requests and compactions
//! to `session`.

use crate::ingest::discover::SourceFile;
use crate::ingest::parse::{parse_bytes, Start};
use crate::ingest::sidechain::Links;
use crate::model::calls::sort_calls;
use crate::model::{Compaction, Request, MAIN_THREAD};
use crate::pricing::PriceTable;
use crate::store::manifest::{bytes_match, fingerprint, HEAD_LEN};
use chrono::{DateTime, Utc};
use foldhash::HashMap;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Requests remembered per file: enough to merge a response's lines across
/// calls and to tell which of today's requests the store has not read yet.
const KEEP_RECENT: usize = 2048;

/// Bytes one call reads at most, over all of a session's files, so a call
/// takes its usual milliseconds whatever the files hold (a 2 GB file of NUL
/// bytes, a huge transcript the store has not read): the rest is read by
/// the next calls.
pub const READ_BUDGET: u64 = 16 << 20;

/// Longest line the status line parses (a call's budget): a longer one is
/// skipped (the ingest bounds its lines too, `ingest::read::MAX_LINE`).
pub const MAX_LINE: u64 = READ_BUDGET;

/// Bytes before the offset whose fingerprint tells an append from a rewrite.
const TAIL_LEN: u64 = 4096;

/// Block in which an unfinished line is scanned for its end.
const SCAN_BLOCK: usize = 1 << 20;

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
    /// The `tail_len` bytes before `offset` (at most `TAIL_LEN`) and their fingerprint.
    pub tail_len: u64,
    pub tail_hash: u64,
    /// Bytes from `offset` on known to hold no newline: the start of a line
    /// not yet ended (or too long), scanned once; its end is looked for after them.
    pub scanned: u64,
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
    /// Bytes read by this call (lines parsed, skipped or scanned).
    pub bytes: u64,
    /// Bytes of the file not read yet (the budget ran out).
    pub left: u64,
}

/// How a call reads: its prices, its clock, and what is left of its
/// byte budget (`READ_BUDGET`), spent by each file read.
pub struct Reading<'a> {
    pub prices: &'a PriceTable,
    pub now: DateTime<Utc>,
    pub budget: u64,
}

/// Reads what `path` gained since `tail`, within `r.budget`, and folds it in.
pub fn read_gain(path: &Path, file: &SourceFile, tail: &mut FileTail, r: &mut Reading) -> std::io::Result<Gained> {
    // A FIFO or device would block or never end: only regular files.
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut f = crate::store::files::open_regular(path)?;
    let size = f.metadata()?.len();
    let mut out = Gained::default();
    if size < tail.offset || !head_matches(&mut f, tail)? || !tail_matches(&mut f, tail)? {
        *tail = FileTail::default();
        out.reset = true;
    }
    if size < tail.offset + tail.scanned {
        tail.scanned = 0;
    }
    if tail.scanned == 0 || end_of_line(&mut f, size, tail, r, &mut out)? {
        let want = (size - tail.offset).min(r.budget).min(MAX_LINE);
        if want > 0 {
            read_lines(&mut f, file, tail, want, r, &mut out)?;
        }
    }
    out.left = size.saturating_sub(tail.offset + tail.scanned);
    Ok(out)
}

/// Looks for the end of the line at `tail.offset` after its `scanned`
/// bytes, within the budget. True when the line ended and is to be read
/// (it is short enough), or was skipped (too long); false when its end is
/// still ahead.
fn end_of_line(
    f: &mut File,
    size: u64,
    tail: &mut FileTail,
    r: &mut Reading,
    out: &mut Gained,
) -> std::io::Result<bool> {
    f.seek(SeekFrom::Start(tail.offset + tail.scanned))?;
    let mut block = vec![0u8; SCAN_BLOCK];
    while r.budget > 0 && tail.offset + tail.scanned < size {
        let want = (SCAN_BLOCK as u64).min(r.budget).min(size - tail.offset - tail.scanned) as usize;
        let n = read_some(f, &mut block[..want])?;
        if n == 0 {
            break;
        }
        (r.budget, out.bytes) = (r.budget - n as u64, out.bytes + n as u64);
        if let Some(i) = memchr::memchr(b'\n', &block[..n]) {
            let len = tail.scanned + i as u64 + 1;
            tail.scanned = 0;
            if len > MAX_LINE {
                // Too long to parse: the line is passed over, uncounted.
                (tail.offset, tail.lines) = (tail.offset + len, tail.lines + 1);
                (tail.tail_len, tail.tail_hash) = print_before(f, tail.offset)?;
            }
            return Ok(true);
        }
        tail.scanned += n as u64;
    }
    Ok(false)
}

/// Reads `want` bytes at `tail.offset` (within the budget), parses their
/// complete lines and folds them in; what follows the last newline is
/// remembered as scanned.
fn read_lines(
    f: &mut File,
    file: &SourceFile,
    tail: &mut FileTail,
    want: u64,
    r: &mut Reading,
    out: &mut Gained,
) -> std::io::Result<()> {
    f.seek(SeekFrom::Start(tail.offset))?;
    let mut buf = vec![0u8; usize::try_from(want).unwrap_or(0)];
    let n = read_some(f, &mut buf)?;
    buf.truncate(n);
    (r.budget, out.bytes) = (r.budget.saturating_sub(n as u64), out.bytes + n as u64);
    let Some(last_nl) = memchr::memrchr(b'\n', &buf) else {
        tail.scanned = n as u64;
        return Ok(());
    };
    tail.scanned = (n - last_nl - 1) as u64;
    let start = Start { offset: tail.offset, line: tail.lines };
    let rows = parse_bytes(file, &buf[..=last_nl], start, &mut Links::default(), r.now);
    if tail.offset == 0 {
        let head = &buf[..(HEAD_LEN.min(rows.end.offset) as usize)];
        tail.head_len = head.len() as u64;
        tail.head_hash = fingerprint(head);
    }
    let before = &buf[..usize::try_from(rows.end.offset - tail.offset).unwrap_or(0)];
    (tail.tail_len, tail.tail_hash) = match before.len() as u64 >= TAIL_LEN {
        true => tail_print(before),
        false => print_before(f, rows.end.offset)?,
    };
    tail.offset = rows.end.offset;
    tail.lines = rows.end.line;
    // One read's requests are already merged by key (the parser does it),
    // so only the responses of earlier reads need looking up.
    let earlier: HashMap<u64, usize> = tail.recent.iter().enumerate().map(|(i, s)| (s.0, i)).collect();
    // A response made of several API calls costs its calls at their models.
    let mut calls = rows.calls;
    sort_calls(&mut calls);
    let mut main = Vec::new();
    for q in rows.requests {
        let cost = r.prices.response_cost(&q, &calls);
        if fold(tail, &earlier, &q, cost) && q.thread.as_str() == MAIN_THREAD {
            main.push(q);
        }
    }
    trim(tail);
    // The cache model walks a response's calls, not their sum.
    out.main.extend(crate::analyze::thread_requests(r.prices, main, &calls));
    out.compactions = rows.compactions;
    Ok(())
}

/// Fills as much of `buf` as the file holds from its position.
fn read_some(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The length and fingerprint of the last `TAIL_LEN` bytes (or fewer) of
/// `before`, the bytes that end at a file's offset.
pub fn tail_print(before: &[u8]) -> (u64, u64) {
    let at = before.len().saturating_sub(TAIL_LEN as usize);
    ((before.len() - at) as u64, fingerprint(&before[at..]))
}

/// `tail_print` of the bytes of `f` before `offset`.
fn print_before(f: &mut File, offset: u64) -> std::io::Result<(u64, u64)> {
    let len = offset.min(TAIL_LEN);
    let mut bytes = vec![0u8; len as usize];
    f.seek(SeekFrom::Start(offset - len))?;
    f.read_exact(&mut bytes)?;
    Ok(tail_print(&bytes))
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

/// True when the bytes before the offset are the ones read there.
fn tail_matches(f: &mut File, tail: &FileTail) -> std::io::Result<bool> {
    if tail.offset == 0 {
        return Ok(true);
    }
    let len = tail.tail_len.min(tail.offset);
    Ok(bytes_match(f, tail.offset - len, len, tail.tail_hash)? && len == tail.tail_len)
}

fn head_matches(f: &mut File, tail: &FileTail) -> std::io::Result<bool> {
    Ok(tail.offset == 0 || bytes_match(f, 0, tail.head_len, tail.head_hash)?)
}

/// The cost of this file's requests at or after `since` whose lines lie
/// past `stored_lines` (what the last ingest read of the file).
pub fn unstored_cost(tail: &FileTail, stored_lines: u64, since: DateTime<Utc>) -> f64 {
    let since = since.timestamp();
    tail.recent.iter().filter(|s| s.line() > stored_lines && s.time_s() >= since).map(Seen::unstored).sum()
}

//! Reading one source file: decide from the manifest whether it is
//! unchanged (not opened), grown (read from the last offset) or new or
//! rewritten (read from the start), then stream it through the parser in
//! bounded chunks. A line longer than `MAX_LINE` is a bad line, read past
//! without being held, so memory is bounded by the longest accepted line,
//! whatever the file (a 2 GB file of NUL bytes is one bad line); a sparse
//! file's holes inside it are seeked over, not read (`holes`).

use super::discover::SourceFile;
use super::holes::{hole_len, skip_hole, Skipped};
use super::parse::{FileRows, Parser, Start};
use super::sidechain::Links;
use super::soft::BadLine;
use crate::store::manifest::{bytes_match, fingerprint, FileState, HEAD_LEN};
use chrono::{DateTime, Utc};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

/// Largest block read at once; a longer line grows the buffer to fit it,
/// up to `MAX_LINE`.
const CHUNK: usize = 32 << 20;

/// Longest line read (64 MiB, documented in docs/store.md): a longer one is
/// counted as a bad line (its file, line and byte offset named) and read
/// past to its newline a block at a time, holes seeked over.
pub const MAX_LINE: usize = 64 << 20;

/// Least growth of the read buffer when a file holds more than expected.
const MIN_GROW: usize = 64 << 10;

/// How a file is read this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// New or rewritten: its earlier rows are replaced.
    Full,
    /// Grown: rows are added to the earlier ones.
    Append,
}

/// The outcome of reading one file.
#[derive(Debug)]
pub struct FileRead {
    pub file: SourceFile,
    pub mode: Mode,
    pub rows: FileRows,
    pub state: FileState,
    pub bytes: u64,
}

/// True when the manifest says the file has not changed: it is not opened.
pub fn unchanged(file: &SourceFile, prev: Option<&FileState>) -> bool {
    prev.is_some_and(|p| p.size == file.size && i128::from(p.mtime_ns) == file.mtime_ns)
}

/// Reads what is new in `file` at the clock `now` (stamps more than a day
/// later are bad lines). An unreadable file becomes one bad line.
pub fn read_file(file: &SourceFile, prev: Option<&FileState>, now: DateTime<Utc>) -> FileRead {
    match try_read(file, prev, now) {
        Ok(r) => r,
        Err(e) => {
            let mut rows = FileRows::default();
            rows.problems.push(BadLine { path: file.path.clone(), line: 0, reason: format!("cannot read: {e}") });
            FileRead {
                file: file.clone(),
                mode: Mode::Append,
                rows,
                state: prev.cloned().unwrap_or_default(),
                bytes: 0,
            }
        }
    }
}

fn try_read(file: &SourceFile, prev: Option<&FileState>, now: DateTime<Utc>) -> std::io::Result<FileRead> {
    let mut f = crate::store::files::open_regular(&file.path)?;
    let (mode, start) = match prev {
        Some(p) if file.size >= p.offset && bytes_match(&mut f, 0, p.head_len, p.head_hash)? => {
            (Mode::Append, Start { offset: p.offset, line: p.lines })
        }
        _ => (Mode::Full, Start::default()),
    };
    // A file just opened is at its start; one whose head was compared is
    // moved to where this read begins.
    if prev.is_some() {
        f.seek(SeekFrom::Start(start.offset))?;
    }
    let mut links = match (mode, prev) {
        (Mode::Append, Some(p)) => {
            let mut l = Links::from_state(p.sidechains.clone());
            l.calls.clone_from(&p.calls);
            l
        }
        _ => Links::default(),
    };
    let (rows, first) = stream(file, &mut f, start, &mut links, now)?;
    // The head fingerprinted is the file's first bytes up to what was read:
    // the first block's when this read began at the start.
    let head_len = HEAD_LEN.min(rows.end.offset) as usize;
    let head = match first {
        Some(mut head) if head.len() >= head_len => {
            head.truncate(head_len);
            head
        }
        _ => {
            let mut head = vec![0u8; head_len];
            f.seek(SeekFrom::Start(0))?;
            f.read_exact(&mut head)?;
            head
        }
    };
    let state = FileState {
        size: file.size,
        mtime_ns: i64::try_from(file.mtime_ns).unwrap_or(i64::MAX),
        offset: rows.end.offset,
        lines: rows.end.line,
        head_len: head.len() as u64,
        head_hash: fingerprint(&head),
        sidechains: links.to_state(),
        calls: std::mem::take(&mut links.calls),
    };
    let bytes = rows.end.offset - start.offset;
    Ok(FileRead { file: file.clone(), mode, rows, state, bytes })
}

/// Parses complete lines chunk by chunk, with one parser for the whole
/// file (a response whose lines straddle two chunks is still one candidate
/// row); the incomplete tail is carried over, and whatever follows the last
/// newline at EOF is left unread. Also returns the first `HEAD_LEN` bytes
/// read when reading began at the file's start. Each reading thread keeps
/// one buffer for every file it reads (a fresh one per file was a page
/// fault per 4 KiB read), returned to the system when a long line grew it
/// past two chunks.
fn stream(
    file: &SourceFile,
    f: &mut File,
    start: Start,
    links: &mut Links,
    now: DateTime<Utc>,
) -> std::io::Result<(FileRows, Option<Vec<u8>>)> {
    BUF.with_borrow_mut(|buf| {
        let parser = Parser::new(file, start, links, now);
        let out = stream_with(buf, file, f, parser, start);
        if buf.capacity() > 2 * CHUNK {
            *buf = Vec::new();
        }
        out
    })
}

thread_local! {
    /// The read buffer of each reading thread (`stream`).
    static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Frees every reading thread's buffer (the size of the largest file it
/// read, held by the pool's threads until the process ends): called when
/// the files are read, so the merge after it does not hold them.
pub fn release_buffers() {
    rayon::broadcast(|_| BUF.with_borrow_mut(|buf| *buf = Vec::new()));
}

/// `stream` with `buf`, whose whole length is initialized and reused: only
/// its first bytes hold this file's unparsed data, never more than
/// `MAX_LINE + 1` (that many without a newline is a line over the bound).
fn stream_with(
    buf: &mut Vec<u8>,
    file: &SourceFile,
    f: &mut File,
    mut parser: Parser<'_, '_>,
    start: Start,
) -> std::io::Result<(FileRows, Option<Vec<u8>>)> {
    let mut expect = usize::try_from(file.size.saturating_sub(start.offset)).unwrap_or(CHUNK);
    let mut first = None;
    let (mut filled, mut eof) = (0, false);
    loop {
        if !eof {
            let hole = hole_len(f)?;
            let unfinished = || memchr::memchr(b'\n', &buf[..filled]).is_none();
            if hole > 0 && filled as u64 + hole > MAX_LINE as u64 && unfinished() {
                // A hole carries the unfinished line (all of `buf`) over the
                // bound: it is seeked over, not read (the head is read
                // again at the end).
                f.seek(SeekFrom::Current(i64::try_from(hole).unwrap_or(i64::MAX)))?;
                let (len, left, end) = skip_line(f, buf, filled as u64 + hole)?;
                parser.skip_long_line(len, MAX_LINE);
                (filled, eof) = (left, end);
                first.get_or_insert_with(Vec::new);
                continue;
            }
            let room = MAX_LINE + 1 - filled;
            let (n, end) = read_block(f, buf, filled, CHUNK.max(filled).min(room), expect)?;
            (filled, eof) = (filled + n, end);
            expect = expect.saturating_sub(n);
        }
        if start.offset == 0 && first.is_none() {
            first = Some(buf[..filled.min(HEAD_LEN as usize)].to_vec());
        }
        let used = parser.feed(&buf[..filled]);
        buf.copy_within(used..filled, 0);
        filled -= used;
        if filled > MAX_LINE {
            // No newline in the bound: the line is read past, not kept.
            let (len, left, end) = if eof { (filled as u64, 0, true) } else { skip_line(f, buf, filled as u64)? };
            parser.skip_long_line(len, MAX_LINE);
            (filled, eof) = (left, end);
            continue;
        }
        if eof {
            break;
        }
    }
    let mut out = parser.finish();
    // The rows stay in memory until the merge: no spare capacity.
    out.requests.shrink_to_fit();
    Ok((out, first))
}

/// Reads past the rest of a line whose first `len` bytes (no newline) were
/// read or seeked over, to its newline or the end of the file: a sparse
/// file's holes (zeros, so no newline) are seeked over (`holes`), stored
/// data is read a block at a time into `buf` and looked through for the
/// newline.
/// Returns the line's length (with its newline), how many bytes after it
/// are left at the start of `buf`, and whether the file ended.
fn skip_line(f: &mut File, buf: &mut Vec<u8>, mut len: u64) -> std::io::Result<(u64, usize, bool)> {
    loop {
        match skip_hole(f)? {
            Skipped::ToData(n) => len += n,
            Skipped::ToEnd(n) => return Ok((len + n, 0, true)),
        }
        let (n, eof) = read_block(f, buf, 0, CHUNK, CHUNK)?;
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            buf.copy_within(i + 1..n, 0);
            return Ok((len + i as u64 + 1, n - i - 1, eof));
        }
        len += n as u64;
        if eof {
            return Ok((len, 0, true));
        }
    }
}

/// Reads up to `want` bytes into `buf` after its first `filled`, growing it
/// (zeroed once) to what the file is expected to hold, so a file is one
/// read and the read that finds its end (a generic `read_to_end` starts at
/// 8 KiB and doubles: eight reads of a 1 MB file). Returns the bytes read
/// and whether the end of the file was reached.
fn read_block(
    f: &mut File,
    buf: &mut Vec<u8>,
    filled: usize,
    want: usize,
    expect: usize,
) -> std::io::Result<(usize, bool)> {
    let mut n = 0;
    while n < want {
        let at = filled + n;
        if buf.len() == at {
            let grow = (expect.saturating_sub(n) + 1).max(MIN_GROW).min(want - n);
            buf.resize(at + grow, 0);
        }
        let end = buf.len().min(filled + want);
        match f.read(&mut buf[at..end]) {
            Ok(0) => return Ok((n, true)),
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((n, false))
}

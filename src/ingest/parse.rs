//! Parsing: the bytes of one transcript file (from a byte offset) -> typed
//! candidate rows (`FileRows`). Lines that cannot carry usage, compactions,
//! titles or sidechain links are skipped without being parsed; message
//! content is never built. A malformed line is counted and skipped, and so
//! is a line stamped more than `MAX_AHEAD` after the clock the caller
//! gives (a year-9999 stamp would be "today" and "active" forever); a last
//! line without a newline is left for a later read.

use super::discover::SourceFile;
use super::line::Line;
use super::sidechain::Links;
use super::soft::{BadLine, Problems};
pub use super::usage::MAX_WEB_SEARCHES;
use super::usage::{out_of_bounds, tokens_of};
use crate::model::calls::{redundant, Call, Refusal};
use crate::model::{
    Boundary, Compaction, CostReading, Interner, Request, SessionTitle, Text, TitleKind, TokenCounts, MAIN_THREAD,
};
use chrono::{DateTime, TimeDelta, Utc};
use foldhash::HashMap;

mod calls;
mod client;
mod other;
mod request;
mod stamp;

/// How far after the clock a line's timestamp may be (clocks drift, zones
/// get mixed up); later is a bad line.
pub const MAX_AHEAD: TimeDelta = TimeDelta::days(1);

/// Where to start reading a file and how many lines precede that point.
#[derive(Debug, Clone, Copy, Default)]
pub struct Start {
    pub offset: u64,
    pub line: u64,
}

/// Everything one read of one file produced.
#[derive(Debug, Default)]
pub struct FileRows {
    /// Candidate requests, deduplicated within this read.
    pub requests: Vec<Request>,
    pub compactions: Vec<Compaction>,
    pub titles: Vec<SessionTitle>,
    /// The API calls of the kept lines that logged more than the request
    /// row says (`model::calls`).
    pub calls: Vec<Call>,
    /// `model_refusal_fallback` lines.
    pub refusals: Vec<Refusal>,
    /// Claude Code's own running totals (`cost-state` lines), per model.
    pub readings: Vec<CostReading>,
    pub problems: Problems,
    /// Byte offset just past the last complete line.
    pub end: Start,
}

/// Per-file state while reading lines.
struct FileParser<'f, 'l> {
    file: &'f SourceFile,
    rows: FileRows,
    /// Index into `rows.requests` by dedup key.
    by_key: request::ByKey,
    /// Roots of inline sub-agent threads, kept across chunks and appends.
    links: &'l mut Links,
    /// One `Text` per value the file repeats.
    names: Interner,
    /// The values the last request's fields took (`Interner::get_after`).
    recent: request::Recent,
    /// The calls of `rows.requests[i]`'s kept line, by `i`.
    calls: HashMap<usize, Vec<LineCall>>,
    /// A line with its content cut out (`skip`), reused.
    cut: Vec<u8>,
    /// The values every request of the file shares, interned once.
    same: Same,
    /// Claude Code's records of the calls whose replies are still to
    /// come, by `api-request` id (`parse::client`).
    client: client::Pending,
    /// The request the last assistant line was (`rows.requests` index).
    last: Option<usize>,
    /// The clock the caller read, and `MAX_AHEAD` past it: a later stamp is bad.
    now: DateTime<Utc>,
    latest: DateTime<Utc>,
    /// The last good timestamp of this read (a `cost-state` line takes it),
    /// and whether a compaction was written since the last `cost-state`.
    stamp: Option<DateTime<Utc>>,
    compacted: bool,
}

/// Values of a file's requests that do not depend on the line.
struct Same {
    source: Text,
    project: Text,
    empty: Text,
    main_thread: Text,
    /// The session the path names (`SourceFile::session`).
    session: Option<Text>,
    /// The sub-agent the file holds (`SourceFile::agent`).
    agent: Option<Text>,
}

/// One entry of a line's `usage.iterations`: type, model, tokens.
type LineCall = (Text, Text, TokenCounts);

/// Parses the complete lines of `data`, which starts at `start` in `file`;
/// `links` holds the sidechain links of the lines before `start`, and is
/// extended; `now` is the clock. Bytes after the last newline are not consumed.
pub fn parse_bytes(file: &SourceFile, data: &[u8], start: Start, links: &mut Links, now: DateTime<Utc>) -> FileRows {
    let mut p = Parser::new(file, start, links, now);
    p.feed(data);
    p.finish()
}

/// One file's parser, fed its bytes a block at a time: a request repeated
/// across blocks is still one candidate row, and repeated values are still
/// one `Text`.
pub struct Parser<'f, 'l>(FileParser<'f, 'l>);

impl<'f, 'l> Parser<'f, 'l> {
    /// A parser of `file` from `start`, extending `links`, at the clock
    /// `now` (see `parse_bytes`).
    pub fn new(file: &'f SourceFile, start: Start, links: &'l mut Links, now: DateTime<Utc>) -> Self {
        let mut names = Interner::default();
        let same = Same {
            source: names.get(&crate::store::files::path_key(&file.path)),
            project: names.get(&file.project),
            empty: names.get(""),
            main_thread: names.get(MAIN_THREAD),
            session: file.session.as_deref().map(|s| names.get(s)),
            agent: file.agent.as_deref().map(|a| names.get(a)),
        };
        let mut parser = FileParser {
            file,
            rows: FileRows { end: start, ..FileRows::default() },
            by_key: request::ByKey::default(),
            links,
            names,
            recent: request::Recent::default(),
            calls: HashMap::default(),
            cut: Vec::new(),
            client: client::Pending::default(),
            same,
            last: None,
            now,
            latest: now.checked_add_signed(MAX_AHEAD).unwrap_or(DateTime::<Utc>::MAX_UTC),
            stamp: None,
            compacted: false,
        };
        parser.restore_calls();
        Parser(parser)
    }

    /// Parses the complete lines of `data`, which continues where the last
    /// block's consumed bytes ended; returns how many bytes it consumed
    /// (the rest, after the last newline, belongs to the next block).
    pub fn feed(&mut self, data: &[u8]) -> usize {
        let p = &mut self.0;
        let mut pos = 0usize;
        let mut line_no = p.rows.end.line;
        while let Some(nl) = memchr::memchr(b'\n', &data[pos..]) {
            line_no += 1;
            p.line(&data[pos..pos + nl], line_no);
            pos += nl + 1;
        }
        p.rows.end = Start { offset: p.rows.end.offset + pos as u64, line: line_no };
        pos
    }

    /// Counts the next line, `len` bytes long (with its newline, if it
    /// has one), as a bad line over the bound of `max` bytes without
    /// seeing it: the reader read past it. Its byte offset is named.
    pub fn skip_long_line(&mut self, len: u64, max: usize) {
        let p = &mut self.0;
        let Start { offset, line } = p.rows.end;
        p.rows.problems.lines += 1;
        p.bad(
            line + 1,
            format!("a line of {len} bytes at byte offset {offset} is longer than the bound of {max} bytes; skipped"),
        );
        p.rows.end = Start { offset: offset + len, line: line + 1 };
    }

    /// The rows of every block fed.
    pub fn finish(self) -> FileRows {
        self.0.finish()
    }
}

impl FileParser<'_, '_> {
    fn line(&mut self, raw: &[u8], line_no: u64) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let trimmed = raw.trim_ascii();
        if trimmed.is_empty() {
            return;
        }
        self.rows.problems.lines += 1;
        if trimmed.first() != Some(&b'{') || trimmed.last() != Some(&b'}') {
            self.bad(line_no, "not a JSON object (truncated or corrupt line)".into());
            return;
        }
        if !super::prefilter::needed(trimmed) {
            return;
        }
        // Message content is cut out before parsing (see `skip`); should the
        // rest not parse, the whole line is parsed for the error message.
        if let Some((a, b)) = super::skip::content_span(trimmed).filter(|(a, b)| b - a >= super::skip::MIN_SPAN) {
            // One buffer for every cut line of the file; checked as UTF-8
            // once, so serde need not check each string it borrows.
            let mut rest = std::mem::take(&mut self.cut);
            rest.clear();
            rest.extend_from_slice(&trimmed[..a]);
            rest.extend_from_slice(b"null");
            rest.extend_from_slice(&trimmed[b..]);
            // The line is handed on by reference: a move copies the whole struct.
            let parsed = std::str::from_utf8(&rest).ok().and_then(|text| serde_json::from_str::<Line>(text).ok());
            let done = parsed.as_ref().map(|l| self.interpret(l, line_no)).is_some();
            drop(parsed);
            self.cut = rest;
            if done {
                return;
            }
        }
        // Checked as UTF-8 once (a SIMD pass) rather than string by string
        // as serde borrows them: most assistant lines are parsed here.
        let parsed = match std::str::from_utf8(trimmed) {
            Ok(text) => serde_json::from_str::<Line>(text),
            Err(_) => serde_json::from_slice::<Line>(trimmed),
        };
        match &parsed {
            Ok(l) => self.interpret(l, line_no),
            Err(e) => self.bad(line_no, e.to_string()),
        }
    }

    fn bad(&mut self, line: u64, reason: String) {
        self.rows.problems.push(BadLine { path: self.file.path.clone(), line, reason });
    }

    fn interpret(&mut self, l: &Line, line_no: u64) {
        if l.is_sidechain.0 && l.agent_id.get().is_none() && self.file.agent.is_none() {
            if let Some(u) = l.uuid.get() {
                self.links.link(u, l.parent_uuid.get());
            }
        }
        match l.kind.as_str() {
            "assistant" => self.assistant(l, line_no),
            "system" if l.subtype.as_str() == "compact_boundary" => self.compaction(l, Boundary::Compact, line_no),
            "system" if l.subtype.as_str() == "model_refusal_fallback" => self.refusal(l, line_no),
            "system" if l.subtype.as_str() == "microcompact_boundary" => {
                self.compaction(l, Boundary::Microcompact, line_no)
            }
            "user" if l.is_compact_summary.0 && l.parent_uuid.get().is_none() => {
                self.compaction(l, Boundary::Compact, line_no)
            }
            "summary" => self.title(l, TitleKind::Summary, l.summary.get(), line_no),
            "ai-title" => self.title(l, TitleKind::AiTitle, l.ai_title.get(), line_no),
            "custom-title" => self.title(l, TitleKind::Custom, l.custom_title.get(), line_no),
            "cost-state" => self.cost_state(l, line_no),
            "api-request" => self.api_request(l),
            _ if l.message.as_ref().is_some_and(|m| m.usage.is_some()) => self.uncounted_usage(l, line_no),
            _ => {}
        }
    }

    fn session(&self, l: &Line) -> String {
        match (&self.file.session, l.session_id.get()) {
            (Some(s), _) => s.clone(),
            (None, Some(s)) => s.to_owned(),
            (None, None) => self.file.path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
        }
    }

    /// The line's thread: its agent, the file's, the main thread, or (old
    /// inline sidechains) the one named by its root sidechain line.
    fn thread(&mut self, l: &Line) -> Text {
        if let Some(a) = l.agent_id.get() {
            return self.names.get(a);
        }
        if let Some(a) = &self.same.agent {
            return a.clone();
        }
        if !l.is_sidechain.0 {
            return self.same.main_thread.clone();
        }
        let root = self.links.thread(l.uuid.as_str());
        self.names.get(&root)
    }

    fn time(&mut self, l: &Line, line_no: u64) -> Option<DateTime<Utc>> {
        let Some(ts) = l.timestamp.get() else {
            self.bad(line_no, "missing timestamp".into());
            return None;
        };
        match stamp::parse(ts) {
            Ok(t) if t > self.latest => {
                let now = self.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                self.bad(line_no, format!("timestamp {ts:?} is more than a day after the clock ({now})"));
                None
            }
            Ok(t) => {
                self.stamp = Some(t);
                Some(t)
            }
            Err(e) => {
                self.bad(line_no, format!("invalid timestamp {ts:?}: {e}"));
                None
            }
        }
    }

    /// The row of a response already read: the request last seen is tried
    /// first (a response's lines follow each other), then the key is looked up.
    fn row_of(&self, message_id: &str, request_id: &str) -> Option<usize> {
        let same = |r: &Request| r.message_id == message_id && r.request_id == request_id;
        match self.last.filter(|&i| same(&self.rows.requests[i])) {
            Some(i) => Some(i),
            None => self.by_key.find(&self.rows.requests, message_id, request_id),
        }
    }

    /// The server's reason another line of row `i`'s response carries,
    /// when the kept line lacks one.
    fn reason_from(&mut self, i: usize, l: &Line) {
        if self.rows.requests[i].server_reason.is_empty() && !l.reason_kind().is_empty() {
            let reason = self.names.get(&crate::model::server_reason(l.reason_kind()));
            self.rows.requests[i].server_reason = reason;
            self.rows.requests[i].server_missed_tokens = l.reason_tokens();
        }
    }

    fn assistant(&mut self, l: &Line, line_no: u64) {
        let Some(msg) = &l.message else { return };
        let Some(usage) = &msg.usage else { return };
        let model = msg.model.as_str();
        if model == "<synthetic>" || l.is_api_error.0 {
            return;
        }
        let Some(message_id) = msg.id.get() else {
            self.bad(line_no, "usage without message.id".into());
            return;
        };
        if let Some(why) = out_of_bounds(usage) {
            self.bad(line_no, why);
            return;
        }
        let Some(time) = self.time(l, line_no) else { return };
        let calls = match self.calls_of(usage, model) {
            Ok(c) => c,
            Err(reason) => return self.bad(line_no, reason),
        };
        let top = tokens_of(usage);
        // A request's tokens are the sum over its calls (reference §2.4).
        let tokens = if calls.is_empty() { top } else { calls.iter().map(|c| c.2).sum() };
        let calls = if redundant(&calls, model, &top) { Vec::new() } else { calls };
        let request_id = l.request_id.as_str();
        match self.row_of(message_id, request_id) {
            Some(i) => {
                self.last = Some(i);
                let first = self.rows.requests[i].time.min(time);
                if tokens.output > self.rows.requests[i].tokens.output {
                    // The same key: the kept row's strings move to the better one.
                    let kept = &mut self.rows.requests[i];
                    let key = (std::mem::take(&mut kept.message_id), std::mem::take(&mut kept.request_id));
                    let mut better = self.request(l, usage, tokens, model, key, line_no, first);
                    let kept = &self.rows.requests[i];
                    if better.server_reason.is_empty() {
                        (better.server_reason, better.server_missed_tokens) =
                            (kept.server_reason.clone(), kept.server_missed_tokens);
                    }
                    self.rows.requests[i] = better;
                    self.keep_calls(i, calls);
                } else {
                    self.reason_from(i, l);
                }
                self.rows.requests[i].time = first;
            }
            None => {
                let key = (message_id.to_owned(), request_id.to_owned());
                let req = self.request(l, usage, tokens, model, key, line_no, time);
                let i = self.rows.requests.len();
                self.rows.requests.push(req);
                self.by_key.insert(&self.rows.requests, i);
                self.last = Some(i);
                self.keep_calls(i, calls);
            }
        }
    }
}

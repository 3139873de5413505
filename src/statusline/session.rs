//! One session as the status line sees it: its transcript and sub-agent
//! files read incrementally (`tail`, within one byte budget per call), the
//! state kept between calls in a
//! small file of the data directory (`statusline/sessions/<hash>.json`,
//! written atomically; concurrent calls each write a state computed from
//! the same files, so the last writer is as right as the first), and what
//! that gives: the last main-thread request, the TTL in force after it, its
//! cold-resume premium (the cache model's own functions) and the cost.

use super::tail::{read_gain, FileTail, Reading, READ_BUDGET};
use crate::analyze::{analyze, cold_premium, next_prompt, warms_at, TTL_5M_S};
use crate::ingest::discover::SourceFile;
use crate::model::{Boundary, Compaction, Request};
use crate::pricing::PriceTable;
use crate::store::manifest::fingerprint;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Layout version of the state file; another version is read as empty.
/// 2: each file's fingerprint before its offset and its scanned bytes.
pub(super) const STATE_VERSION: u32 = 2;
/// Sub-agent files read per session at most.
const MAX_AGENT_FILES: usize = 256;

/// The state kept between calls for one transcript.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionState {
    pub version: u32,
    pub transcript: String,
    /// File path -> what was read of it (the transcript and its sub-agents).
    pub files: BTreeMap<String, FileTail>,
    /// The last main-thread request.
    pub last_main: Option<Request>,
    /// TTL in force after `last_main`.
    pub ttl_s: u32,
    /// The cache read of the first request of `last_main`'s lineage: its
    /// shared prefix (cache-model §8.2).
    #[serde(default)]
    pub lineage_read: u64,
    /// Bytes of the files the last call's budget left unread.
    #[serde(default)]
    pub unread_bytes: u64,
    /// The latest compaction read in the main transcript.
    #[serde(default)]
    pub compacted_at: Option<DateTime<Utc>>,
    /// `Bc` of the session's project (cache-model §7), read from the store
    /// once the conversation was compacted after its last request.
    #[serde(default)]
    pub compacted_base: Option<f64>,
}

impl SessionState {
    /// Cost of every request read, all files.
    pub fn cost_usd(&self) -> f64 {
        self.files.values().map(|f| f.cost_usd).sum()
    }

    /// Requests read, all files.
    pub fn requests(&self) -> u64 {
        self.files.values().map(|f| f.requests).sum()
    }

    /// Claude Code compacted the conversation after its last request.
    pub fn compacted_since(&self) -> bool {
        matches!((&self.last_main, self.compacted_at), (Some(l), Some(t)) if t > l.time)
    }

    /// What a warm cache would hold of the next message's prompt
    /// (`analyze::next_prompt`): the last prompt, or once compacted the
    /// system prompt and tools (the last prompt until the store gave `Bc`).
    pub fn next_prompt(&self) -> Option<u64> {
        let base = self.compacted_base.filter(|_| self.compacted_since());
        self.last_main.as_ref().map(|l| next_prompt(l.tokens.prompt(), self.lineage_read, base))
    }

    /// Keeps the latest of `compactions` and, once the conversation was
    /// compacted after its last request, its project's `Bc` from the store
    /// under `data_dir` (read once); true when anything changed.
    fn note_compactions(
        &mut self,
        compactions: &[Compaction],
        data_dir: &Path,
        prices: &PriceTable,
        now: DateTime<Utc>,
    ) -> bool {
        let latest = compactions.iter().filter(|c| c.boundary == Boundary::Compact).map(|c| c.time).max();
        let mut changed = false;
        if latest > self.compacted_at {
            (self.compacted_at, self.compacted_base) = (latest, None);
            changed = true;
        }
        if let (true, None, Some(last)) = (self.compacted_since(), self.compacted_base, &self.last_main) {
            self.compacted_base = super::seed::stored_base_context(data_dir, last.project.as_str(), prices, now);
            changed |= self.compacted_base.is_some();
        }
        changed
    }
}

/// Where the state of `transcript` lives under `data_dir`.
pub fn state_path(data_dir: &Path, transcript: &Path) -> PathBuf {
    let key = fingerprint(transcript.to_string_lossy().as_bytes());
    crate::store::files::statusline_state(data_dir, key)
}

/// The saved state, or an empty one (missing, unreadable, other layout or
/// another transcript's).
pub fn load(path: &Path, transcript: &Path) -> SessionState {
    let fresh = SessionState {
        version: STATE_VERSION,
        transcript: transcript.to_string_lossy().into_owned(),
        ttl_s: TTL_5M_S,
        ..SessionState::default()
    };
    let Ok(bytes) = crate::store::files::read_regular(path) else { return fresh };
    match serde_json::from_slice::<SessionState>(&bytes) {
        Ok(s) if s.version == STATE_VERSION && s.transcript == fresh.transcript => s,
        _ => fresh,
    }
}

/// Saves the state atomically (temporary file, rename).
pub fn save(path: &Path, state: &SessionState) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(state).map_err(std::io::Error::other)?;
    crate::store::files::replace(path, crate::store::files::Sync::No, &bytes)
}

/// Reads what the transcript and its sub-agents gained into `state`, at
/// most `READ_BUDGET` bytes in all (the transcript first; the rest next
/// call); true when anything changed. The transcript must be a readable
/// regular file; a sub-agent file that is not is skipped. A first call (no
/// state) starts from the store's figures when it can (`seed`), reading
/// only what the last ingest did not.
pub fn update(
    state: &mut SessionState,
    data_dir: &Path,
    transcript: &Path,
    prices: &PriceTable,
    now: DateTime<Utc>,
) -> std::io::Result<bool> {
    if !std::fs::metadata(transcript)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let agents = agent_files(transcript);
    let mut seeded = false;
    if state.files.is_empty() {
        if let Some(s) = super::seed::seed(data_dir, transcript, &agents, prices, now) {
            *state = s;
            seeded = true;
        }
    }
    let mut reading = Reading { prices, now, budget: READ_BUDGET };
    let main_file = source(transcript, None);
    let key = transcript.to_string_lossy().into_owned();
    let tail = state.files.entry(key).or_default();
    let gained = read_gain(transcript, &main_file, tail, &mut reading)?;
    let mut changed = seeded || gained.bytes > 0 || gained.reset;
    let mut unread = gained.left;
    if gained.reset {
        state.last_main = None;
        state.ttl_s = TTL_5M_S;
    }
    fold_main(state, gained.main, &gained.compactions, prices);
    changed |= state.note_compactions(&gained.compactions, data_dir, prices, now);
    for path in agents {
        let agent = path.file_stem().and_then(|s| s.to_str()).and_then(|s| s.strip_prefix("agent-")).map(str::to_owned);
        let file = source(&path, agent);
        let tail = state.files.entry(path.to_string_lossy().into_owned()).or_default();
        if let Ok(g) = read_gain(&path, &file, tail, &mut reading) {
            changed |= g.bytes > 0 || g.reset;
            unread += g.left;
        }
    }
    changed |= unread != state.unread_bytes;
    state.unread_bytes = unread;
    Ok(changed)
}

/// The TTL and shared prefix after the new main-thread requests: the cache model
/// over the previous last request and the new ones.
pub(super) fn fold_main(state: &mut SessionState, main: Vec<Request>, compactions: &[Compaction], prices: &PriceTable) {
    if main.is_empty() {
        return;
    }
    let had_last = state.last_main.is_some();
    let mut thread: Vec<Request> = state.last_main.take().into_iter().collect();
    thread.extend(main);
    let caches = analyze(&thread, compactions, prices);
    let (Some(last), Some(c)) = (thread.last(), caches.last()) else { return };
    // A lineage that began before the kept request keeps its first read.
    if !(had_last && c.lineage_first == 0) {
        state.lineage_read = c.lineage_first_read;
    }
    let wrote = thread.iter().skip(1).any(|r| r.tokens.cache_write() > 0) || thread.len() == 1;
    state.ttl_s = if wrote { c.ttl_after_s } else { state.ttl_s };
    state.last_main = Some(last.clone());
}

/// What Claude Code's `prompt_cache` said of the session's cache, when the
/// status line's input carried it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClaudeCodeSays {
    /// `recache_tokens_if_cold`: the prompt a cold message re-caches.
    pub recache_tokens: Option<u64>,
    /// `ttl`, in seconds.
    pub ttl_s: Option<u32>,
}

impl SessionState {
    /// The v3 cold-resume premium of `last_main` at `now`: its shared
    /// prefix is read, not written, while a request of its model and
    /// version came within the hour before (`latest`: the store's latest
    /// such request; the transcript's own last request counts too). What
    /// Claude Code said (`told`) replaces the last request's prompt and
    /// the transcript's TTL.
    pub fn premium_at(
        &self,
        prices: &PriceTable,
        latest: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
        told: ClaudeCodeSays,
    ) -> f64 {
        let Some(last) = &self.last_main else { return 0.0 };
        let warm = warms_at(last.time, now) || latest.is_some_and(|t| warms_at(t, now));
        let next = told.recache_tokens.or(self.next_prompt()).unwrap_or_default();
        let (rates, ttl_s) = (prices.request_rates(last), told.ttl_s.unwrap_or(self.ttl_s));
        cold_premium(rates.as_ref(), last.tokens.prompt(), next, self.lineage_read, warm, ttl_s).premium_usd
    }
}

/// A transcript file as the ingest parser expects it.
pub(super) fn source(path: &Path, agent: Option<String>) -> SourceFile {
    let session_of = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let main = if agent.is_some() { path.parent().and_then(Path::parent) } else { Some(path) };
    let project_dir = main.and_then(Path::parent);
    SourceFile {
        path: path.to_path_buf(),
        project: project_dir.and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        session: main.and_then(session_of),
        agent,
        size: 0,
        mtime_ns: 0,
    }
}

/// `<dir>/<session>/subagents/agent-*.jsonl` of a transcript, sorted.
fn agent_files(transcript: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (transcript.parent(), transcript.file_stem()) else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(dir.join(stem).join("subagents")) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "jsonl")
                && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("agent-"))
        })
        .take(MAX_AGENT_FILES)
        .collect();
    out.sort();
    out
}

//! The rows of the `requests`, `compactions` (compactions and v2
//! microcompactions) and title tables as Rust types.
//!
//! Ingest produces them, the store persists them as Parquet, and analysis
//! reads them back; nothing here carries message content.

use super::{Text, TokenCounts};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The thread name of a session's main conversation (sub-agents use their id).
pub const MAIN_THREAD: &str = "main";

/// One deduplicated API response, priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Timestamp of the response's first line.
    pub time: DateTime<Utc>,
    pub session_id: Text,
    /// `main`, or the sub-agent id (`a881341`, `acompact-fffbd0`, ...).
    pub thread: Text,
    /// The project directory name under `projects/`.
    pub project: Text,
    pub cwd: Text,
    pub git_branch: Text,
    /// Claude Code version that wrote the line.
    pub version: Text,
    pub model: Text,
    pub tokens: TokenCounts,
    /// `server_tool_use.web_search_requests`.
    pub web_search: u64,
    /// `usage.speed` (`standard`, `fast`, or empty when absent).
    pub speed: Text,
    /// `usage.inference_geo` (`us`, `global`, ... or empty).
    pub inference_geo: Text,
    /// The server's miss reason (`message.diagnostics.cache_miss_reason.type`,
    /// `model::reason`): empty when the line carried none. Left out of the
    /// serialized row when empty, so a row without one serializes as it did
    /// before the field existed (bundles of schema 1 and 2 checksum that).
    #[serde(default, skip_serializing_if = "Text::is_empty")]
    pub server_reason: Text,
    /// Its `cache_missed_input_tokens`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_missed_tokens: Option<u64>,
    pub is_sidechain: bool,
    /// Cost in USD from `pricing::cost`; 0 for unknown models.
    pub cost_usd: f64,
    /// The transcript file the kept line came from.
    pub source: Text,
    /// 1-based line number of the kept line in `source`.
    pub line: u64,
    pub message_id: String,
    pub request_id: String,
    /// Whose request this is: empty for local transcripts, set by team
    /// exports and imports.
    pub user: Text,
    /// The machine the transcript was read on (team bundles; else empty).
    pub machine: Text,
    /// What Claude Code (2.1.33x) wrote of the call it made; empty for
    /// older lines. Left out of the serialized row when empty, like
    /// `server_reason`.
    #[serde(default, skip_serializing_if = "ClientRecord::is_empty")]
    pub client: ClientRecord,
}

/// Claude Code's own record of one API call (2.1.33x: the assistant line's
/// `promptCacheRequested`, and its `api-request` line, found by the
/// assistant line's `requestRef`). Each value is empty when not written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRecord {
    /// What made the call (`querySource`: `sdk`, `repl_main_thread`,
    /// `compact`, `agent:...`, ...).
    pub query_source: Text,
    /// `shapeHash`: a hash of the system prompt and tool definitions; a
    /// new value means they changed.
    pub shape_hash: Text,
    /// `promptCacheRequested`: the TTL the call's cache writes asked for,
    /// `5m` or `1h`.
    pub ttl_asked: Text,
}

impl ClientRecord {
    /// Nothing recorded.
    pub fn is_empty(&self) -> bool {
        self.query_source.is_empty() && self.shape_hash.is_empty() && self.ttl_asked.is_empty()
    }
}

/// Which boundary line a `Compaction` row records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Boundary {
    /// `compact_boundary` (or an old root `isCompactSummary` line): the
    /// history was replaced; the next main-thread request starts a lineage.
    #[default]
    Compact,
    /// `microcompact_boundary` (cache-model v2): old tool results were
    /// cleared in place; no new lineage, but the next prefix changes.
    Microcompact,
}

impl Boundary {
    /// The stored name (`compact`, `microcompact`).
    pub fn as_str(self) -> &'static str {
        match self {
            Boundary::Compact => "compact",
            Boundary::Microcompact => "microcompact",
        }
    }

    /// Reads a stored name; anything else (an older store) is `Compact`.
    pub fn parse(s: &str) -> Boundary {
        if s == "microcompact" {
            Boundary::Microcompact
        } else {
            Boundary::Compact
        }
    }
}

/// The trigger Claude Code did not write (cache-model §1 v2: defaulted to
/// `auto`, and such a compaction is never idle).
pub const DEFAULT_TRIGGER: &str = "auto";

/// A context compaction or microcompaction seen in a session (a
/// `compact_boundary`, an old root `isCompactSummary` line, or a
/// `microcompact_boundary`). Usage metadata only, never content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compaction {
    pub session_id: String,
    pub time: DateTime<Utc>,
    /// As written (`auto`, `manual`, any other value kept as is), or `auto`
    /// when absent (then `trigger_written` is false).
    pub trigger: String,
    /// Prompt size before compaction, when logged.
    pub pre_tokens: Option<u64>,
    pub source: String,
    /// Whose compaction this is: empty for local transcripts, the bundle's
    /// user for team rows (a thread is `(user, session, thread)`).
    pub user: String,
    /// The boundary line's `uuid` (empty when it had none): each boundary
    /// is counted once however many files replay it.
    pub uuid: String,
    pub boundary: Boundary,
    /// False when the trigger was absent and defaulted to `auto`.
    pub trigger_written: bool,
    /// `microcompactMetadata.tokensSaved`, when logged.
    pub tokens_saved: Option<u64>,
}

impl Compaction {
    /// True for a compaction (not a microcompaction) whose trigger was
    /// written as `auto`: only these can be idle compactions (§1 v2).
    pub fn written_auto(&self) -> bool {
        self.boundary == Boundary::Compact && self.trigger_written && self.trigger == DEFAULT_TRIGGER
    }
}

/// Where a session title came from; later kinds win over earlier ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TitleKind {
    Summary = 0,
    AiTitle = 1,
    Custom = 2,
}

/// One title line seen for a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTitle {
    pub session_id: String,
    pub kind: TitleKind,
    /// Order of the line in its file, so the last one of a kind wins.
    pub seq: u64,
    pub title: String,
    pub source: String,
}

//! Claude Code's own account of a session (2.1.33x writes a `cost-state`
//! line when a run ends: its running totals per model and token class),
//! and the name of the rows cachewise derives from it: calls Claude Code
//! paid for without writing them down (a compaction's summary requests,
//! and whatever else). `docs/cache-model.md` ("Calls Claude Code did not
//! write down") has the rules.

use super::{Text, TokenCounts};
use chrono::{DateTime, Utc};

/// One model's totals on one `cost-state` line.
#[derive(Debug, Clone, PartialEq)]
pub struct CostReading {
    pub user: String,
    pub session_id: String,
    /// The transcript file and 1-based line of the `cost-state` line.
    pub source: String,
    pub line: u64,
    /// The last timestamp written before it in its file (the line has none).
    pub time: DateTime<Utc>,
    /// `startTime`: when the first run of the session's history started
    /// (epoch ms); it survives resumes and forks, so it names the lineage
    /// whose totals the line carries on.
    pub start_ms: u64,
    pub model: String,
    /// The running totals: `inputTokens`, the 5-minute and 1-hour cache
    /// writes, `cacheReadInputTokens`, `outputTokens`.
    pub tokens: TokenCounts,
    /// `webSearchRequests`.
    pub web_search: u64,
    /// Claude Code's own `costUSD` for the model (kept for comparison:
    /// cachewise prices every row with its own table).
    pub claude_cost_usd: f64,
    /// A compaction boundary was written in the file since its previous
    /// `cost-state` line.
    pub compacted: bool,
}

/// The thread of the calls Claude Code did not write down while a
/// compaction happened (its summary requests).
pub const UNLOGGED_COMPACTION: &str = "unlogged:compaction";
/// The thread of the other calls Claude Code did not write down.
pub const UNLOGGED_OTHER: &str = "unlogged:other";

/// True for the rows derived from `cost-state` lines: real spend, but no
/// API response the transcript shows, so no cache history of a thread.
pub fn is_unlogged(thread: &str) -> bool {
    thread == UNLOGGED_COMPACTION || thread == UNLOGGED_OTHER
}

/// The identity of a lineage: whose, and its `startTime`.
pub type Lineage = (String, u64);

impl CostReading {
    pub fn lineage(&self) -> Lineage {
        (self.user.clone(), self.start_ms)
    }
}

/// The unlogged thread of a reading: the compaction's when one happened
/// since the previous reading.
pub fn unlogged_thread(compacted: bool) -> Text {
    Text::from(if compacted { UNLOGGED_COMPACTION } else { UNLOGGED_OTHER })
}

//! Pure functions over the request and compaction tables implementing the
//! cache model (`docs/cache-model.md`): per-request hits, rewinds, misses
//! and causes (`analyze`), the figures a report sums of them (`Tally`),
//! the what-if TTL policies (`PolicyRow`), the resume premium of a stale
//! session, compactions by trigger (`idle`), resume/compact/restart advice
//! with what Claude Code will do (`advise_in`) and the compaction report
//! (`compaction_report`). The clock, prices
//! (`RateSource`) and thresholds come in as arguments; nothing reads the
//! system time. Hands on serialisable typed structs whose JSON keys are the
//! `cache` / `advise` contracts.

mod advice;
mod advice_options;
mod advice_text;
mod cache_class;
mod class_table;
mod classify;
mod claude_code;
mod compaction;
mod gaps;
mod idle;
mod keep_warm;
pub mod limits;
mod prefix;
mod prices;
mod server_reasons;
mod stale;
mod stats;
mod summary;
mod thread_rows;
mod threads;
mod what_if;
pub mod window;

/// The cache model these functions implement (`"model"` in `cache --json`).
pub const MODEL_VERSION: &str = "v4";

pub use advice::{
    advise_in, Advice, AdviceInputs, AdviceOptions, InputSource, ProjectMedians, Recommendation, DEFAULT_GROWTH_TOKENS,
    FALLBACK_SUMMARY_SHARE, MAX_BREAK_EVEN_TURNS, MIN_SUMMARY_TOKENS,
};
pub use advice_text::{claude_code_text, option_names, COMPACTED_PREMIUM, DIALOG_COMPACT, DIALOG_RESUME};
pub use cache_class::{ClassGroup, ClassInfo, CLASSES};
pub use class_table::{ClassStats, ClassTable};
pub use classify::{analyze, CacheClass, RequestCache};
pub use claude_code::{
    claude_code, ClaudeCode, LastCompactions, IDLE_COMPACTION_AFTER_S, IDLE_COMPACTION_MIN_TOKENS,
    RESUME_DIALOG_ABOVE_TOKENS, RESUME_DIALOG_AFTER_S,
};
pub use compaction::{
    compaction_report, runs_at_1m, CompactionCost, CompactionParams, SessionCompaction, ACOMPACT_MATCH_WINDOW_S,
    ACOMPACT_PREFIX, LARGE_WINDOW_ABOVE,
};
pub use gaps::{GapBucket, IdleBuckets, BUCKET_1H_S, BUCKET_5M_S};
pub use idle::{
    compaction_labels, count_by_trigger, trigger_label, CompactionLabel, IdleCompaction, IDLE,
    IDLE_COMPACTION_MAX_GAP_S, IDLE_COMPACTION_MIN_GAP_S, IDLE_WHAT_IF_MIN_PROMPT,
};
pub use keep_warm::{
    is_expiry, ping_usd, pings, predicted, Backtest, BreakEven, Expiry, KeepWarm, KeepWarmTally, KEEP_WARM_MAX_GAP_S,
    PING_LEAD_S,
};
pub use prefix::{shared_prefix, warms_at, ResumePremium, WarmPrefixes, SHARED_PREFIX_WINDOW_S};
pub use prices::{rates_for, request_cost, rewrite_premium, write_multiplier, Basis, RateSource, TTL_1H_S, TTL_5M_S};
pub use server_reasons::{
    cause_of, cause_words, reason_words, Agreement, Cause, CauseFrom, LiveAgreement, ReasonTally, ServerReasons,
};
pub use stale::{
    cold_premium, cold_resume_premium, next_prompt, resumability, resume_premium, NotResumable, StaleSession,
};
pub use stats::median;
pub use summary::{CacheStats, DayStats, Figures, SessionStats, Tally};
pub use thread_rows::{thread_keys, thread_requests, thread_rows};
pub use threads::{last_main, thread_calls, time_order, ThreadCall};
pub use what_if::{PolicyRow, WhatIf, WriteMix};

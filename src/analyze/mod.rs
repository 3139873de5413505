//! Pure functions over the request and compaction tables implementing the
//! reference cache model (`cache-model.md` v1): per-request hits, misses and
//! causes (`analyze`), idle gaps, hit ratios, the what-if TTL policies and
//! stale sessions (`summarize`), resume/compact/restart advice (`advise`) and
//! the compaction report (`compaction_report`). The clock, prices
//! (`RateSource`) and thresholds come in as arguments; nothing reads the
//! system time. Hands on serialisable typed structs whose JSON keys are the
//! `cache` / `advise` contracts.

mod advice;
mod advice_text;
mod class_table;
mod classify;
mod compaction;
mod gaps;
mod prices;
mod stale;
mod stats;
mod summary;
mod threads;
mod what_if;

#[cfg(test)]
mod tests;

pub use advice::{
    advise, Advice, AdviceInputs, AdviceOptions, InputSource, Recommendation, DEFAULT_GROWTH_TOKENS,
    FALLBACK_SUMMARY_SHARE, MAX_BREAK_EVEN_TURNS, MIN_SUMMARY_TOKENS,
};
pub use advice_text::{fmt_duration, fmt_tokens, fmt_usd};
pub use class_table::{ClassStats, ClassTable};
pub use classify::{analyze, CacheClass, RequestCache};
pub use compaction::{
    compaction_report, CompactionCost, CompactionParams, SessionCompaction, ACOMPACT_MATCH_WINDOW_S, ACOMPACT_PREFIX,
    LARGE_WINDOW_ABOVE,
};
pub use gaps::{GapBucket, IdleBuckets};
pub use prices::{request_cost, write_multiplier, write_price, RateSource, TTL_1H_S, TTL_5M_S};
pub use stale::{cold_resume_premium, stale_sessions, StaleSession};
pub use stats::median;
pub use summary::{
    summarize, summarize_where, utc_day, CacheStats, CacheSummary, DayStats, SessionStats, SummaryOptions,
};
pub use threads::time_order;
pub use what_if::{policy_cost, request_what_if, SharedPrefixIndex, WhatIf, WriteMix};

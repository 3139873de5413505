//! Column names of every stored table, defined once. SQL files in `sql/`
//! use the same names.

pub const TIME: &str = "time";
pub const SESSION_ID: &str = "session_id";
pub const THREAD: &str = "thread";
pub const PROJECT: &str = "project";
pub const CWD: &str = "cwd";
pub const GIT_BRANCH: &str = "git_branch";
pub const VERSION: &str = "version";
pub const MODEL: &str = "model";
pub const INPUT: &str = "input";
pub const CACHE_WRITE_5M: &str = "cache_write_5m";
pub const CACHE_WRITE_1H: &str = "cache_write_1h";
pub const CACHE_READ: &str = "cache_read";
pub const OUTPUT: &str = "output";
/// The five token columns (`store::frames::Cols::tokens` reads them).
pub const TOKENS: [&str; 5] = [INPUT, CACHE_WRITE_5M, CACHE_WRITE_1H, CACHE_READ, OUTPUT];
pub const WEB_SEARCH: &str = "web_search";
pub const SPEED: &str = "speed";
pub const INFERENCE_GEO: &str = "inference_geo";
/// The server's miss reason type (`model::reason`; empty: none) and its
/// `cache_missed_input_tokens` (null: not given). Store layout 5, bundle
/// schema 4; older tables and bundles read without them.
pub const SERVER_REASON: &str = "server_reason";
pub const SERVER_MISSED_TOKENS: &str = "server_missed_tokens";
/// The reason columns, which older stores and bundles lack.
pub const REASON_COLUMNS: [&str; 2] = [SERVER_REASON, SERVER_MISSED_TOKENS];
/// Claude Code's record of a call (`model::ClientRecord`, 2.1.33x): what
/// made it, the shape of its system prompt and tools, the TTL it asked for.
pub const QUERY_SOURCE: &str = "query_source";
pub const SHAPE_HASH: &str = "shape_hash";
pub const TTL_ASKED: &str = "ttl_asked";
pub const CLIENT_COLUMNS: [&str; 3] = [QUERY_SOURCE, SHAPE_HASH, TTL_ASKED];
pub const IS_SIDECHAIN: &str = "is_sidechain";
pub const COST_USD: &str = "cost_usd";
pub const SOURCE: &str = "source";
pub const LINE: &str = "line";
pub const MESSAGE_ID: &str = "message_id";
pub const REQUEST_ID: &str = "request_id";
pub const USER: &str = "user";
pub const MACHINE: &str = "machine";

/// Position of a call in its line's `usage.iterations` (iterations table).
pub const ITERATION: &str = "iteration";
/// A call's `type`: `message`, `advisor_message`, `fallback_message`, ...
pub const ITERATION_TYPE: &str = "iteration_type";

/// A refusal fallback's models (refusals table).
pub const ORIGINAL_MODEL: &str = "original_model";
pub const FALLBACK_MODEL: &str = "fallback_model";

pub const TRIGGER: &str = "trigger";
pub const PRE_TOKENS: &str = "pre_tokens";
pub const UUID: &str = "uuid";
/// `compact` or `microcompact` (cache-model v2).
pub const BOUNDARY: &str = "boundary";
pub const TRIGGER_WRITTEN: &str = "trigger_written";
pub const TOKENS_SAVED: &str = "tokens_saved";

/// A `cost-state` line's lineage (`startTime`, epoch ms), Claude Code's
/// own cost, and whether a compaction happened since the file's previous
/// one (cost-readings table).
pub const START_MS: &str = "start_ms";
pub const CLAUDE_COST_USD: &str = "claude_cost_usd";
pub const COMPACTED: &str = "compacted";

pub const KIND: &str = "kind";
pub const SEQ: &str = "seq";
pub const TITLE: &str = "title";

/// Derived by reports: the grouping key (period, session, project, model).
pub const KEY: &str = "key";
/// Derived by reports: the sub-key (model with `--breakdown`, else empty).
pub const SUB: &str = "sub";

/// Derived by reports: 1 when a row counts as a request (a request split
/// into its calls counts on one of them).
pub const COUNTED: &str = "counted";

pub const FIRST: &str = "first";
pub const LAST: &str = "last";
pub const REQUESTS: &str = "requests";

// The analysis table (`materialize`): the cache model's verdict on each
// thread request, computed at ingest and import (cache-model v2 §1-§6).

/// The request's cache class (`hit`, `first`, `ttl_5m`, ...).
pub const CLASS: &str = "class";
/// A hit whose prompt shrank past the miss threshold.
pub const REWIND: &str = "rewind";
/// Seconds since the thread's previous request (null for its first).
pub const GAP_S: &str = "gap_s";
/// TTL in force at the request, and after it (seconds).
pub const TTL_S: &str = "ttl_s";
pub const TTL_AFTER_S: &str = "ttl_after_s";
/// The previous request's prompt, `E` (0 for lineage starts).
pub const EXPECTED_PREFIX: &str = "expected_prefix";
pub const LOST_TOKENS: &str = "lost_tokens";
pub const REBUILT_TOKENS: &str = "rebuilt_tokens";
pub const MISS_COST_USD: &str = "miss_cost_usd";
/// The cache read of the request's lineage's first request.
pub const LINEAGE_FIRST_READ: &str = "lineage_first_read";
/// The per-token prices the request paid (null for an unknown model).
pub const RATE_INPUT: &str = "rate_input";
pub const RATE_OUTPUT: &str = "rate_output";
pub const RATE_READ_MULTIPLIER: &str = "rate_read_multiplier";
/// A request of the same model and version came within 5 minutes / 1 hour
/// before (any session): the what-if's shared prefix (§5).
pub const WARM_5M: &str = "warm_5m";
pub const WARM_1H: &str = "warm_1h";
/// Reference §4 cost, and the cost under each what-if TTL policy (§5).
pub const ACTUAL_USD: &str = "actual_usd";
pub const POLICY_5M_USD: &str = "policy_5m_usd";
pub const POLICY_1H_USD: &str = "policy_1h_usd";
/// True on the last main-thread request of its `(user, session)`: where a
/// stale session's cold-resume premium is read (§6).
pub const LAST_MAIN: &str = "last_main";
/// What resuming after this request costs once its cache expired (§6).
pub const RESUME_PREMIUM_USD: &str = "resume_premium_usd";
/// For an idle-compaction what-if gap (§5 v2): an idle compaction's cost is
/// `fixed + summary_tokens * per_token` (null on other rows).
pub const IDLE_COMPACT_FIXED_USD: &str = "idle_compact_fixed_usd";
pub const IDLE_COMPACT_PER_TOKEN_USD: &str = "idle_compact_per_token_usd";

/// On a main-thread expiry (`ttl_5m`/`ttl_1h`, cache-model v3 §8.4): one
/// keep-warm ping's cost at the rates of the request before the gap (null
/// on other rows).
pub const KEEP_WARM_PING_USD: &str = "keep_warm_ping_usd";
/// On the same rows: the backtest's predictions of the miss cost (§8.5),
/// v3 (the warm shared prefix read) and v2 (everything written).
pub const BACKTEST_USD: &str = "backtest_usd";
pub const BACKTEST_V2_USD: &str = "backtest_v2_usd";

// The analysis side tables (`materialize`): per compaction boundary, its
// label and anchor request; per (user, session), the compaction report.

/// `idle`, or the compaction's trigger.
pub const LABEL: &str = "label";
/// The main-thread request a compaction is counted with (null: none).
pub const ANCHOR_TIME: &str = "anchor_time";
pub const ANCHOR_PROJECT: &str = "anchor_project";
pub const ANCHOR_CWD: &str = "anchor_cwd";
/// A session's compaction report (`analyze::SessionCompaction`) as JSON.
pub const COMPACTION_REPORT: &str = "compaction_report";
/// A session's models, most requests first, as a JSON list of
/// `[model, requests]` (a response's other call models with 0).
pub const MODELS: &str = "models";

/// The analysis columns a thread request is rebuilt from
/// (`store::frames::requests_of`).
pub const ANALYSIS_REQUEST: [&str; 23] = [
    USER,
    SESSION_ID,
    THREAD,
    PROJECT,
    CWD,
    TIME,
    MODEL,
    VERSION,
    MESSAGE_ID,
    INPUT,
    CACHE_WRITE_5M,
    CACHE_WRITE_1H,
    CACHE_READ,
    OUTPUT,
    WEB_SEARCH,
    COST_USD,
    SPEED,
    INFERENCE_GEO,
    SERVER_REASON,
    SERVER_MISSED_TOKENS,
    QUERY_SOURCE,
    SHAPE_HASH,
    TTL_ASKED,
];

/// The analysis columns of a thread request's stored verdict
/// (`report::stored_rows::verdicts_of`).
pub const VERDICT: [&str; 13] = [
    CLASS,
    REWIND,
    GAP_S,
    TTL_S,
    TTL_AFTER_S,
    EXPECTED_PREFIX,
    LOST_TOKENS,
    REBUILT_TOKENS,
    MISS_COST_USD,
    LINEAGE_FIRST_READ,
    RATE_INPUT,
    RATE_OUTPUT,
    RATE_READ_MULTIPLIER,
];

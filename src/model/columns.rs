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
pub const WEB_SEARCH: &str = "web_search";
pub const SPEED: &str = "speed";
pub const INFERENCE_GEO: &str = "inference_geo";
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

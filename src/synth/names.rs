//! Names and sizes the synthetic generator draws from: model ids and their
//! shared system-prefix sizes, Claude Code versions, session/agent/message
//! ids, project paths, branches and session titles. Hands on plain strings
//! and numbers to the planner and to the row builder.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Opus model id.
pub const OPUS: &str = "claude-opus-4-6";
/// Sonnet model id.
pub const SONNET: &str = "claude-sonnet-4-5-20250929";
/// Haiku model id.
pub const HAIKU: &str = "claude-haiku-4-5-20251001";

/// Tokens of the shared Claude Code system prompt and tools for a model:
/// the globally cached prefix every request of that model starts with.
pub(super) fn system_prefix(model: &str) -> u64 {
    match model {
        OPUS => 19_840,
        SONNET => 18_960,
        _ => 17_620,
    }
}

/// Claude Code version string of version number `k` (`2.1.30` + k).
pub(super) fn version(k: u32) -> String {
    format!("2.1.{}", 30 + k)
}

/// `n` random lowercase hex digits.
pub(super) fn hex(rng: &mut ChaCha8Rng, n: usize) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    (0..n).map(|_| char::from(DIGITS[rng.random_range(0..16)])).collect()
}

/// A random UUID-shaped session id.
pub(super) fn session_id(rng: &mut ChaCha8Rng) -> String {
    format!("{}-{}-4{}-{}-{}", hex(rng, 8), hex(rng, 4), hex(rng, 3), hex(rng, 4), hex(rng, 12))
}

/// Project directory name of project `k` (`-home-dev-demo1`, ...).
pub(super) fn project_dir(k: usize) -> String {
    format!("-home-dev-demo{}", k + 1)
}

/// Working directory of project `k`.
pub(super) fn project_cwd(k: usize) -> String {
    format!("/home/dev/demo{}", k + 1)
}

const VERBS: &[&str] =
    &["Fix", "Add", "Refactor", "Speed up", "Document", "Test", "Debug", "Migrate", "Clean up", "Review"];
const OBJECTS: &[&str] = &[
    "the login flow",
    "CSV export",
    "flaky integration tests",
    "the billing webhook",
    "dark mode",
    "the search index",
    "rate limiting",
    "the Parquet writer",
    "error messages",
    "the release pipeline",
    "caching of API responses",
    "the settings page",
    "database migrations",
    "the CLI parser",
];
const BRANCHES: &[&str] = &["main", "main", "feature/export", "fix/flaky-tests", "dev"];

/// A plausible session title.
pub(super) fn title(rng: &mut ChaCha8Rng) -> String {
    let v = VERBS[rng.random_range(0..VERBS.len())];
    let o = OBJECTS[rng.random_range(0..OBJECTS.len())];
    format!("{v} {o}")
}

/// A plausible git branch.
pub(super) fn branch(rng: &mut ChaCha8Rng) -> String {
    BRANCHES[rng.random_range(0..BRANCHES.len())].to_string()
}

/// A small index per model id, for table lookups.
pub(super) fn model_index(model: &str) -> usize {
    match model {
        OPUS => 0,
        SONNET => 1,
        _ => 2,
    }
}

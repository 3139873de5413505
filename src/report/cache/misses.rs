//! The misses as a terminal table (`cachewise cache --misses`): when, where,
//! the cause a person reads and who named it, and what the miss cost.

use super::render::short_id;
use super::MissRow;
use crate::model::format::{duration_words, thousands, usd};
use crate::report::fit::{self, Col, Layout};
use crate::report::labels;

/// A miss's cause in words, with the tokens the server says were missed.
fn cause_text(m: &MissRow) -> String {
    let cause = crate::analyze::Cause { key: m.cause.clone(), from: m.cause_from };
    match (cause.by_server(), m.server_missed_tokens) {
        (true, Some(n)) => format!("{} ({} tokens)", labels::cause(&cause), thousands(n)),
        _ => labels::cause(&cause),
    }
}

/// Who named a cause, in words.
pub fn named_by(from: crate::analyze::CauseFrom) -> &'static str {
    match from {
        crate::analyze::CauseFrom::Server => "the API",
        crate::analyze::CauseFrom::Inferred => "cachewise",
        crate::analyze::CauseFrom::Client => "Claude Code's record",
    }
}

/// The misses' columns: the time, session, cause and cost always; the
/// rest as the width allows.
const MISS_COLUMNS: [Col; 11] = [
    Col::text("Time", 0),
    Col::text("Session", 0),
    Col::text("Thread", 3),
    Col::text("Cause", 0),
    Col::text("Named by", 2),
    Col::num("Gap", 1),
    Col::num("TTL", 2),
    Col::num("Expected", 3),
    Col::num("Read", 3),
    Col::num("Rebuilt", 1),
    Col::num("Cost", 0),
];

/// The misses as a terminal table that fits `layout`, times in its zone.
pub fn render_misses(rows: &[MissRow], layout: Layout) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|m| {
            vec![
                m.time.with_timezone(&layout.tz).format("%Y-%m-%d %H:%M:%S").to_string(),
                short_id(&m.session_id).to_owned(),
                m.thread.clone(),
                cause_text(m),
                named_by(m.cause_from).to_owned(),
                m.gap_s.map_or_else(String::new, duration_words),
                duration_words(f64::from(m.ttl_s)),
                thousands(m.expected_prefix),
                thousands(m.cache_read),
                thousands(m.rebuilt_tokens),
                usd(m.miss_cost_usd),
            ]
        })
        .collect();
    format!("{}\nTimes in {}.\n", fit::table(&MISS_COLUMNS, &rows, layout), layout.tz.name())
}

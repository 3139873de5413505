//! Turns an `Advice` into a short paragraph a person can act on: the cache
//! state, the three totals, what compacting saves or costs, the break-even
//! and the history premium. Hands on a `String` for `Advice::explanation`.

use super::advice::{Advice, Recommendation, MAX_BREAK_EVEN_TURNS};

/// Dollars, sign-correct: the one dollar format (`model::money::usd`).
pub use crate::model::money::usd as fmt_usd;

/// Tokens rounded to thousands (`182k`), exact below 1000.
pub fn fmt_tokens(n: f64) -> String {
    if n.abs() < 1000.0 {
        format!("{n:.0}")
    } else {
        format!("{:.0}k", n / 1000.0)
    }
}

/// A duration in the largest sensible unit.
pub fn fmt_duration(secs: f64) -> String {
    let s = secs.abs();
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 90.0 * 60.0 {
        format!("{:.0} min", s / 60.0)
    } else if s < 48.0 * 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86400.0)
    }
}

/// The cache-state sentence.
fn cache_state(a: &Advice) -> String {
    let ttl = if a.ttl_s >= 3600 { "1 h" } else { "5 min" };
    let p = a.inputs.prompt_tokens as f64;
    if a.warm {
        let left = (a.expires_at - a.last).as_seconds_f64() - a.idle_s;
        format!(
            "The cache is warm for another {} ({ttl} TTL, expires {}); resuming reads the {} tokens of context from cache.",
            fmt_duration(left),
            a.expires_at.format("%Y-%m-%d %H:%M UTC"),
            fmt_tokens(p)
        )
    } else {
        let i = &a.inputs;
        let rewrite = p * (i.write_multiplier - i.read_multiplier) * i.input_usd_per_mtok / 1e6;
        format!(
            "The cache expired {} ago ({ttl} TTL); resuming re-writes {} tokens ({} more than a warm read).",
            fmt_duration(a.idle_s - f64::from(a.ttl_s)),
            fmt_tokens(p),
            fmt_usd(rewrite)
        )
    }
}

/// The comparison of resume and compact, with the break-even.
fn comparison(a: &Advice) -> String {
    let o = &a.options;
    let n = a.turns;
    let diff = (o.resume_usd - o.compact_usd).abs();
    let verdict = match a.recommendation {
        Recommendation::Compact => {
            format!("Compacting first saves {} over {n} turns.", fmt_usd(diff))
        }
        Recommendation::Resume => {
            format!("Resuming is {} cheaper than compacting first over {n} turns.", fmt_usd(diff))
        }
    };
    let be = match a.break_even_turns {
        Some(b) if b <= n => format!(" Compacting pays off from {b} turns on."),
        Some(b) => format!(" Compacting would pay off only after {b} turns."),
        None => format!(" Compacting does not pay off within {MAX_BREAK_EVEN_TURNS} turns."),
    };
    verdict + &be
}

/// The explanation paragraph of an advice.
pub fn explain(a: &Advice) -> String {
    let o = &a.options;
    let mut s = cache_state(a);
    s.push_str(&format!(
        " Over {} turns: resume {}, compact then continue {}, start fresh {}. ",
        a.turns,
        fmt_usd(o.resume_usd),
        fmt_usd(o.compact_usd),
        fmt_usd(o.restart_usd)
    ));
    s.push_str(&comparison(a));
    s.push_str(&format!(
        " Keeping the conversation costs {} more than starting fresh; weigh that against re-explaining the work.",
        fmt_usd(a.history_premium_usd)
    ));
    if !a.inputs.priced {
        s.push_str(&format!(" No price is known for model {}, so every dollar figure is 0.", a.inputs.model));
    }
    s
}

//! Turns an `Advice` into a short paragraph a person can act on: the cache
//! state, what Claude Code will do (its resume dialog, named in its own
//! words, and its idle compaction), the three totals, what compacting saves
//! or costs, the break-even and the history premium. Hands on a `String` for `Advice::explanation`.

use super::advice::{Advice, Recommendation, MAX_BREAK_EVEN_TURNS};
use super::stale::NotResumable;
use crate::model::format::{duration_words, plural, tokens_rounded, usd};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

/// `t` in `tz`, to the minute, with the zone's abbreviation.
fn minute(t: DateTime<Utc>, tz: Tz) -> String {
    t.with_timezone(&tz).format("%Y-%m-%d %H:%M %Z").to_string()
}

/// The cache-state sentence, times in `tz`.
fn cache_state(a: &Advice, tz: Tz) -> String {
    let ttl = if a.ttl_s >= 3600 { "1 h" } else { "5 min" };
    let p = a.inputs.prompt_tokens as f64;
    if a.claude_code.compacted_since {
        // The next message starts from the summary, not from this prompt.
        return match a.warm {
            true => format!("The cache is warm until {} ({ttl} TTL).", minute(a.expires_at, tz)),
            false => format!("The cache expired {} ago ({ttl} TTL).", duration_words(a.idle_s - f64::from(a.ttl_s))),
        };
    }
    if a.warm {
        let left = (a.expires_at - a.last).as_seconds_f64() - a.idle_s;
        format!(
            "The cache is warm for another {} ({ttl} TTL, expires {}); resuming reads the {} tokens of context from cache.",
            duration_words(left),
            minute(a.expires_at, tz),
            tokens_rounded(p)
        )
    } else {
        format!(
            "The cache expired {} ago ({ttl} TTL); resuming re-writes {} tokens ({} more than a warm read).",
            duration_words(a.idle_s - f64::from(a.ttl_s)),
            tokens_rounded(p - a.shared_prefix_tokens as f64),
            usd(a.cold_resume_usd)
        ) + &shared_prefix_text(a)
    }
}

/// The shared prefix a cold resume still reads (cache-model §8.2 v3).
fn shared_prefix_text(a: &Advice) -> String {
    match a.shared_prefix_tokens {
        0 => String::new(),
        rs => format!(
            " The first {} tokens (system prompt and tools) are still cached from recent use.",
            tokens_rounded(rs as f64)
        ),
    }
}

/// The keep-warm what-if of the last break (cache-model §8.4 v3).
fn keep_warm_text(a: &Advice) -> String {
    match &a.keep_warm {
        Some(k) => {
            let net = k.miss_cost_usd - k.cost_usd;
            let verdict = if net >= 0.0 { "saved" } else { "lost" };
            format!(
                " Keeping this session warm through its last break would have cost {} in pings and {verdict} {} net (the rebuild it avoided cost {}).",
                usd(k.cost_usd),
                usd(net.abs()),
                usd(k.miss_cost_usd)
            )
        }
        None => String::new(),
    }
}

/// Why a compacted conversation's cold-resume premium is small (§9 v4).
pub const COMPACTED_PREMIUM: &str = "Claude Code compacted this conversation after its last request: the next \
message sends the system prompt and tools, then the summary, and only the system prompt and tools are what a warm \
cache would have saved";

/// The dialog's name for resuming as-is (cache-model §7 v2).
pub const DIALOG_RESUME: &str = "Resume full session as-is";
/// The dialog's name for compacting first.
pub const DIALOG_COMPACT: &str = "Resume from summary";

/// Names of the resume and compact options: the resume dialog's own words
/// when Claude Code will show it.
pub fn option_names(a: &Advice) -> (String, String) {
    if a.claude_code.compacted_since {
        let from_summary = "continuing from the summary".to_owned();
        (from_summary.clone(), from_summary)
    } else if a.claude_code.resume_dialog {
        (format!("\"{DIALOG_RESUME}\""), format!("\"{DIALOG_COMPACT}\""))
    } else {
        ("resuming".to_owned(), "compacting first".to_owned())
    }
}

/// What Claude Code will do by itself or ask (cache-model §7 v2).
pub fn claude_code_text(a: &Advice, tz: Tz) -> String {
    let c = &a.claude_code;
    let mut s = String::new();
    if c.compacted_since {
        s.push_str(" Claude Code already compacted this conversation after its last request: the next message starts from the summary.");
    }
    if let Some(t) = c.idle_compaction_at {
        s.push_str(&format!(
            " If it stays idle, Claude Code will compact this session by itself at {} (before the 1-hour cache expires), unless idleCompaction is off.",
            minute(t, tz)
        ));
    }
    if c.resume_dialog {
        s.push_str(&format!(
            " Claude Code (Pro and Max) will ask before your first new message: \"{DIALOG_COMPACT}\" is the compact option, \"{DIALOG_RESUME}\" the resume option."
        ));
    }
    s
}

/// The comparison of resume and compact, with the break-even.
fn comparison(a: &Advice) -> String {
    let o = &a.options;
    let n = a.turns;
    let over = turns(n);
    let diff = (o.resume_usd - o.compact_usd).abs();
    let (resume, compact) = option_names(a);
    let verdict = match a.recommendation {
        Recommendation::Compact => {
            format!("{} saves {} over {over}.", capitalise(&compact), usd(diff))
        }
        Recommendation::Resume => {
            format!("{} is {} cheaper than {compact} over {over}.", capitalise(&resume), usd(diff))
        }
        Recommendation::Restart => return "Only a new session is possible.".to_owned(),
    };
    let be = match a.break_even_turns {
        Some(b) if b <= n => format!(" Compacting pays off from {} on.", turns(b)),
        Some(b) => format!(" Compacting would pay off only after {}.", turns(b)),
        None => format!(" Compacting does not pay off within {MAX_BREAK_EVEN_TURNS} turns."),
    };
    verdict + &be
}

/// `1 turn`, `10 turns`.
fn turns(n: u32) -> String {
    plural(u64::from(n), "turn", "turns")
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

/// The opening of the advice of a session that cannot be resumed (§8.3 v3).
pub(super) fn not_resumable_text(reason: NotResumable, cleanup_days: u64) -> String {
    let why = match reason {
        NotResumable::TranscriptDeleted => {
            "its transcript was deleted (Claude Code removes old transcripts)".to_owned()
        }
        NotResumable::PastCleanup => format!(
            "it has been idle {} or more, so Claude Code deletes its transcript (cleanupPeriodDays {cleanup_days})",
            plural(cleanup_days, "day", "days")
        ),
        NotResumable::NoMainThread | NotResumable::TeamMember => reason.sentence().to_owned(),
    };
    format!("This session cannot be resumed: {why}. Start a new session; the figures below are its history. ")
}

/// The explanation paragraph of an advice, times in `tz`.
pub(super) fn explain(a: &Advice, tz: Tz) -> String {
    let o = &a.options;
    let mut s = cache_state(a, tz);
    s.push_str(&claude_code_text(a, tz));
    if a.claude_code.compacted_since {
        s.push_str(&format!(
            " Over {}: continue from the summary {}, start fresh {}.",
            turns(a.turns),
            usd(o.resume_usd),
            usd(o.restart_usd)
        ));
    } else {
        s.push_str(&format!(
            " Over {}: resume {}, compact then continue {}, start fresh {}. ",
            turns(a.turns),
            usd(o.resume_usd),
            usd(o.compact_usd),
            usd(o.restart_usd)
        ));
        s.push_str(&comparison(a));
    }
    match a.history_premium_usd {
        _ if a.not_resumable.is_some() => {}
        p if p > 0.0 => s.push_str(&format!(
            " Keeping the conversation costs {} more than starting fresh; weigh that against re-explaining the work.",
            usd(p)
        )),
        p => s.push_str(&format!(" Keeping the conversation also costs {} less than starting fresh.", usd(-p))),
    }
    s.push_str(&keep_warm_text(a));
    if !a.inputs.priced {
        s.push_str(&format!(" No price is known for model {}, so every dollar figure is 0.", a.inputs.model));
    }
    s
}

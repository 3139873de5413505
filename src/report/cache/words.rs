//! The cache report's two judgements in words, for the terminal and the
//! pages alike: the TTL what-if (which single cache lifetime would have been
//! cheaper, comparing like with like: when every write already used one
//! lifetime, the two modelled policies are compared with each other, not a
//! model with what was billed) and the resume advice (the decision first,
//! then why, then what starting over costs and loses). Amounts are compared
//! in cents, the way they are shown, so a caption never contradicts its
//! figures.

use crate::analyze::{Advice, Recommendation, WhatIf, WriteMix};
use crate::model::format::usd;
use crate::report::labels::{decision, plural};

/// Cents, as shown.
fn cents(x: f64) -> i64 {
    (x * 100.0).round() as i64
}

/// The what-if's caption.
pub fn what_if_caption(w: &WhatIf, mix: &WriteMix) -> String {
    let (five, hour) = (cents(w.ttl_5m_usd), cents(w.ttl_1h_usd));
    let diff = |a: i64, b: i64| usd((a - b).abs() as f64 / 100.0);
    match (mix.write_5m_tokens, mix.write_1h_tokens) {
        (0, 0) => "No cache was written in this period: there is nothing to compare.".to_owned(),
        (0, _) | (_, 0) => {
            let (used, other, used_c, other_c) = if mix.write_5m_tokens == 0 {
                ("1-hour", "5-minute", hour, five)
            } else {
                ("5-minute", "1-hour", five, hour)
            };
            let both = format!(
                "both as the model prices them: {} and {}",
                usd(used_c as f64 / 100.0),
                usd(other_c as f64 / 100.0)
            );
            match other_c.cmp(&used_c) {
                std::cmp::Ordering::Less => format!(
                    "Every write already used the {used} cache; {other} writes would have cost {} less ({both}).",
                    diff(used_c, other_c)
                ),
                std::cmp::Ordering::Equal => format!(
                    "Every write already used the {used} cache; {other} writes would have cost the same ({both})."
                ),
                std::cmp::Ordering::Greater => format!(
                    "Every write already used the {used} cache, the cheaper choice: {other} writes would have cost {} more ({both}).",
                    diff(other_c, used_c)
                ),
            }
        }
        _ => {
            let actual = cents(w.actual_usd);
            let (best, name) = match five.cmp(&hour) {
                std::cmp::Ordering::Less => (five, "5-minute cache"),
                std::cmp::Ordering::Greater => (hour, "1-hour cache"),
                std::cmp::Ordering::Equal => (five, "either cache lifetime"),
            };
            match best.cmp(&actual) {
                std::cmp::Ordering::Less => format!(
                    "Writing every cache with the {name} would have cost {} less than your mix ({} instead of {}).",
                    diff(actual, best),
                    usd(best as f64 / 100.0),
                    usd(actual as f64 / 100.0)
                ),
                std::cmp::Ordering::Equal => format!(
                    "Your mix cost the same as the {name} everywhere would have, to the cent ({}).",
                    usd(actual as f64 / 100.0)
                ),
                std::cmp::Ordering::Greater => format!(
                    "Your mix of 5-minute and 1-hour caches cost less than either lifetime everywhere would have: {} against {} at best.",
                    usd(actual as f64 / 100.0),
                    usd(best as f64 / 100.0)
                ),
            }
        }
    }
}

/// The resume advice in words: what to do, why, and what starting over
/// costs and loses.
#[derive(Debug, Clone, PartialEq)]
pub struct AdviceWords {
    /// `Compact first, then continue.`
    pub decision: String,
    /// Why, in one or two sentences.
    pub why: String,
    /// What a new session costs and what it loses.
    pub restart: String,
}

/// The advice's words.
pub fn advice_words(a: &Advice) -> AdviceWords {
    if let Some(why) = a.not_resumable {
        return not_resumable_words(a, why);
    }
    let o = &a.options;
    let turns = plural(u64::from(a.turns), "turn", "turns");
    let state = if a.warm { "The cache is still warm" } else { "The cache has expired" };
    if a.claude_code.compacted_since {
        return compacted_words(a, state, &turns);
    }
    let mut d = decision(a.recommendation).to_owned();
    if let Some(first) = d.get(..1) {
        d = first.to_uppercase() + &d[1..];
    }
    let (chosen, other, other_name) = match a.recommendation {
        Recommendation::Compact => (o.compact_usd, o.resume_usd, "resuming as it is"),
        Recommendation::Resume | Recommendation::Restart => (o.resume_usd, o.compact_usd, "compacting first"),
    };
    let gap = usd((other - chosen).max(0.0));
    let mut why = format!(
        "{state}. Over the next {turns} this costs about {}, {gap} less than {other_name} ({}).",
        usd(chosen),
        usd(other)
    );
    match a.break_even_turns {
        Some(n) if a.recommendation == Recommendation::Compact => {
            why += &format!(" Compacting pays for itself from {} on.", plural(u64::from(n), "turn", "turns"));
        }
        Some(n) => {
            why += &format!(" Compacting would pay for itself only after {}.", plural(u64::from(n), "turn", "turns"))
        }
        None => {}
    }
    AdviceWords { decision: format!("{d}."), why, restart: restart_words(o, chosen, &turns) }
}

/// The words of a conversation Claude Code compacted after its last
/// request: continuing starts from its summary.
fn compacted_words(a: &Advice, state: &str, turns: &str) -> AdviceWords {
    let o = &a.options;
    AdviceWords {
        decision: "Continue: the conversation starts from the summary Claude Code made.".to_owned(),
        why: format!(
            "{state}. Claude Code compacted this conversation after its last request, so the next message \
starts from the summary: about {} over the next {turns}.",
            usd(o.resume_usd)
        ),
        restart: restart_words(o, o.resume_usd, turns),
    }
}

/// What starting over costs beside keeping the conversation at `chosen`.
fn restart_words(o: &crate::analyze::AdviceOptions, chosen: f64, turns: &str) -> String {
    if o.restart_usd < chosen {
        format!(
            "Starting a new session would cost {} over {turns}, {} less, but it loses the conversation: \
you explain the work again. That is the price of starting over, not a third way to keep going.",
            usd(o.restart_usd),
            usd(chosen - o.restart_usd)
        )
    } else {
        format!(
            "Starting a new session would cost {} over {turns}, no less than keeping this one, and it loses \
the conversation.",
            usd(o.restart_usd)
        )
    }
}

/// The words of a session that cannot be resumed: start a new one, and why.
fn not_resumable_words(a: &Advice, why: crate::analyze::NotResumable) -> AdviceWords {
    let turns = plural(u64::from(a.turns), "turn", "turns");
    AdviceWords {
        decision: "Start a new session.".to_owned(),
        why: format!("This session cannot be resumed: {}. What follows is its history.", why.sentence()),
        restart: format!("A new session would cost about {} over {turns}.", usd(a.options.restart_usd)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(actual: f64, five: f64, hour: f64) -> WhatIf {
        WhatIf {
            actual_usd: actual,
            ttl_5m_usd: five,
            ttl_1h_usd: hour,
            saving_5m_usd: actual - five,
            saving_1h_usd: actual - hour,
        }
    }

    const MIXED: WriteMix = WriteMix { write_5m_tokens: 10, write_1h_tokens: 10 };

    #[test]
    fn a_cheaper_lifetime_is_named_with_its_saving() {
        let s = what_if_caption(&w(12.0, 10.0, 11.0), &MIXED);
        assert_eq!(s, "Writing every cache with the 5-minute cache would have cost $2.00 less than your mix ($10.00 instead of $12.00).");
    }

    #[test]
    fn figures_equal_to_the_cent_are_a_tie_whatever_the_rounding_hides() {
        // $11.496 and $11.504 both show as $11.50.
        let s = what_if_caption(&w(11.504, 11.496, 13.0), &MIXED);
        assert!(s.contains("the same") && s.contains("$11.50"), "{s}");
        // $11.49 against $11.50: the 5-minute policy is a cent cheaper, not "already the cheaper one".
        let s = what_if_caption(&w(11.50, 11.49, 13.0), &MIXED);
        assert!(s.contains("$0.01 less"), "{s}");
        let s = what_if_caption(&w(11.49, 11.50, 11.50), &MIXED);
        assert!(s.contains("cost less than either lifetime everywhere would have"), "{s}");
        let s = what_if_caption(&w(12.0, 10.0, 10.0), &MIXED);
        assert!(s.contains("either cache lifetime"), "{s}");
    }

    #[test]
    fn all_writes_of_one_lifetime_compare_the_two_models() {
        let all_1h = WriteMix { write_5m_tokens: 0, write_1h_tokens: 100 };
        // The case: 100% 1-hour writes, modelled all-1h $51.01, billed $50.34.
        let s = what_if_caption(&w(50.34, 60.0, 51.01), &all_1h);
        assert!(s.starts_with("Every write already used the 1-hour cache, the cheaper choice"), "{s}");
        assert!(s.contains("$8.99 more") && !s.contains("$50.34"), "{s}");
        let s = what_if_caption(&w(50.34, 40.0, 51.01), &all_1h);
        assert!(s.contains("5-minute writes would have cost $11.01 less"), "{s}");
        let s = what_if_caption(&w(5.0, 5.0, 5.0), &WriteMix { write_5m_tokens: 7, write_1h_tokens: 0 });
        assert!(s.contains("would have cost the same"), "{s}");
        let s = what_if_caption(&w(0.0, 0.0, 0.0), &WriteMix::default());
        assert!(s.contains("nothing to compare"), "{s}");
    }
}

//! The status line as text (one line, colour optional) or JSON. Only
//! numbers and fixed words are printed, and the final line is stripped of
//! control characters besides the colour codes added here.

use super::input::strip_controls;
use super::Status;
use crate::model::format::{clock_span, usd};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RED: &str = "\x1b[31m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// Paints text when colour is on.
#[derive(Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn on(&self, colour: &str, text: &str) -> String {
        if self.0 {
            format!("{colour}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }
}

fn ttl_label(ttl_s: u32) -> &'static str {
    if ttl_s >= 3600 {
        "1h"
    } else {
        "5m"
    }
}

/// One line for a terminal.
pub fn line(st: &Status, now: DateTime<Utc>, tz: Tz, colour: bool) -> String {
    let p = Paint(colour);
    let mut parts = cache_parts(st, now, tz, p);
    if let Some(cause) = &st.last_miss_cause {
        parts.push(format!("last miss: {cause}"));
    }
    if let Some(c) = st.session_cost_usd.filter(|_| st.expires_at.is_some()) {
        parts.push(format!("session {}", usd(c)));
    }
    if let Some(c) = st.today_cost_usd {
        parts.push(format!("today {}", usd(c)));
    }
    parts.extend(limit_parts(st, tz, p));
    let text = parts.join(" · ");
    // Only the escape sequences added above survive.
    let clean: String = text
        .split('\x1b')
        .enumerate()
        .map(|(i, s)| if i == 0 { strip_controls(s) } else { format!("\x1b{}", strip_controls(s)) })
        .collect();
    clean.replace(['\n', '\r'], " ")
}

/// The cache's state (warm and for how long, or cold and since when) and
/// what a cold resume costs; the reason when there is no verdict.
fn cache_parts(st: &Status, now: DateTime<Utc>, tz: Tz, p: Paint) -> Vec<String> {
    let mut parts = Vec::new();
    let from_claude_code = st.verdict_from == Some("claude_code");
    match (st.expires_at, st.ttl_s) {
        (exp, Some(ttl)) if st.warm && (exp.is_some() || from_claude_code) => {
            let left = exp.map(|e| format!(" {} left", clock_span((e - now).num_seconds()))).unwrap_or_default();
            parts.push(p.on(GREEN, &format!("● warm{left} ({} TTL)", ttl_label(ttl))));
            if let Some(cost) = st.cold_resume_usd {
                parts.push(format!("cold resume +{}{}", usd(cost), limit_share(st)));
            }
        }
        (exp, Some(_)) if exp.is_some() || from_claude_code => {
            let since = exp.map(|exp| {
                let local = exp.with_timezone(&tz);
                let at = if now - exp < chrono::Duration::hours(24) {
                    local.format("%H:%M")
                } else {
                    local.format("%b %-d")
                };
                format!(" {} (since {at})", clock_span((now - exp).num_seconds()))
            });
            parts.push(p.on(YELLOW, &format!("○ cold{}", since.unwrap_or_default())));
            if let Some(cost) = st.cold_resume_usd {
                parts.push(p.on(RED, &format!("next message +{}{}", usd(cost), limit_share(st))));
            }
        }
        _ => parts.push(p.on(DIM, &format!("cachewise: {}", st.note.as_deref().unwrap_or("no data")))),
    }
    parts
}

/// The plan limits Claude Code reported: the 5-hour window and the spend
/// limit, each with when it resets.
fn limit_parts(st: &Status, tz: Tz, p: Paint) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(pct) = st.five_hour_used_pct {
        let resets = st
            .five_hour_resets_at
            .map(|t| format!(" (resets {})", t.with_timezone(&tz).format("%H:%M")))
            .unwrap_or_default();
        parts.push(p.on(usage_colour(pct), &format!("5h {pct:.0}%{resets}")));
    }
    if let Some(pct) = st.spend_limit_used_pct {
        let resets = st
            .spend_limit_resets_at
            .map(|t| format!(" (resets {})", t.with_timezone(&tz).format("%b %-d %H:%M")))
            .unwrap_or_default();
        parts.push(p.on(usage_colour(pct), &format!("spend {pct:.0}%{resets}")));
    }
    parts
}

/// Green under half a window, yellow from half, red from 80%.
fn usage_colour(pct: f64) -> &'static str {
    if pct >= 80.0 {
        RED
    } else if pct >= 50.0 {
        YELLOW
    } else {
        GREEN
    }
}

fn limit_share(st: &Status) -> String {
    match st.cold_resume_five_hour_pct {
        Some(pct) => format!(" (~{pct:.1}% of 5h)"),
        None => String::new(),
    }
}

/// One JSON object on one line.
pub fn json(st: &Status) -> String {
    serde_json::to_string(st).unwrap_or_else(|_| "{}".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, h, m, s).unwrap()
    }

    #[test]
    fn spans() {
        assert_eq!(clock_span(192), "3:12");
        assert_eq!(clock_span(-5), "0:00");
        assert_eq!(clock_span(1500), "25m");
        assert_eq!(clock_span(7500), "2h05m");
        assert_eq!(clock_span(3 * 86_400 + 5), "3d");
    }

    #[test]
    fn warm_and_cold_lines_without_colour() {
        let warm = Status {
            warm: true,
            expires_at: Some(at(14, 5, 0)),
            ttl_s: Some(300),
            cold_resume_usd: Some(0.8412),
            session_cost_usd: Some(12.4),
            today_cost_usd: Some(48.1),
            five_hour_used_pct: Some(42.0),
            five_hour_resets_at: Some(at(18, 0, 0)),
            ..Status::default()
        };
        assert_eq!(
            line(&warm, at(14, 1, 48), chrono_tz::UTC, false),
            "● warm 3:12 left (5m TTL) · cold resume +$0.84 · session $12.40 · today $48.10 · 5h 42% (resets 18:00)"
        );
        let cold = Status { warm: false, cold_resume_five_hour_pct: Some(2.04), ..warm };
        assert_eq!(
            line(&cold, at(14, 30, 0), chrono_tz::UTC, false),
            "○ cold 25m (since 14:05) · next message +$0.84 (~2.0% of 5h) · session $12.40 · today $48.10 · 5h 42% (resets 18:00)"
        );
        let coloured = line(&cold, at(14, 30, 0), chrono_tz::UTC, true);
        assert!(coloured.contains("\x1b[33m○ cold") && coloured.contains("\x1b[0m"));
    }

    #[test]
    fn claude_codes_verdict_with_a_miss_cause_and_a_spend_limit() {
        let cold = Status {
            warm: false,
            expires_at: None,
            ttl_s: Some(3600),
            cold_resume_usd: Some(0.75),
            verdict_from: Some("claude_code"),
            last_miss_cause: Some("the tools changed".into()),
            spend_limit_used_pct: Some(104.0),
            spend_limit_resets_at: Some(at(18, 0, 0)),
            ..Status::default()
        };
        assert_eq!(
            line(&cold, at(14, 30, 0), chrono_tz::UTC, false),
            "○ cold · next message +$0.75 · last miss: the tools changed · spend 104% (resets Nov 30 18:00)"
        );
        let warm = Status { warm: true, ..cold };
        assert!(line(&warm, at(14, 30, 0), chrono_tz::UTC, false).starts_with("● warm (1h TTL) · cold resume +$0.75"));
    }

    #[test]
    fn a_note_alone() {
        let st = Status { note: Some("input is not a JSON object".into()), ..Status::default() };
        assert_eq!(line(&st, at(0, 0, 0), chrono_tz::UTC, false), "cachewise: input is not a JSON object");
    }
}

//! Terminal output of the cache report and of resume advice. It leads with
//! what a user should do: the money lost to expired caches, which sessions,
//! and whether the other TTL would have been cheaper; then the v2 figures
//! (rewinds, compactions by trigger, idle compaction). Advice names its
//! options as Claude Code's resume dialog does when the dialog applies.

use super::cache::CacheReport;
use super::render::{dollars, thousands};
use crate::analyze::{fmt_duration, reason_words, Advice, CacheClass, ClassStats, DIALOG_COMPACT, DIALOG_RESUME};
use crate::pricing::Estimate;
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use std::fmt::Write;

const CLASSES: [(CacheClass, &str); 10] = [
    (CacheClass::Hit, "hit"),
    (CacheClass::First, "first request of a thread"),
    (CacheClass::Compaction, "after compaction"),
    (CacheClass::ModelSwitch, "model switch"),
    (CacheClass::Ttl5m, "expired: idle > 5 min TTL"),
    (CacheClass::Ttl1h, "expired: idle > 1 h TTL"),
    (CacheClass::VersionChange, "Claude Code upgrade"),
    (CacheClass::Microcompact, "after old tool results were cleared"),
    (CacheClass::ContextEdit, "context edited (head still cached)"),
    (CacheClass::FullRebuild, "rebuilt although warm"),
];

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

fn stats_table(header: [&str; 4], rows: &[(&str, &ClassStats)]) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header(header);
    for (name, s) in rows {
        let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            Cell::new(name),
            right(thousands(s.count)),
            right(thousands(s.rebuilt_tokens)),
            right(dollars(s.miss_cost_usd)),
        ]);
    }
    format!("{t}\n")
}

/// How the cache figures relate to `report daily`'s, in words.
pub fn reconcile_line(u: &crate::report::cache::Reconcile) -> String {
    let mut line = format!(
        "  {} requests, {} as `report daily` counts them; the cache model counts {} requests of conversation threads ({})",
        thousands(u.requests),
        dollars(u.cost_usd),
        thousands(u.thread_requests),
        dollars(u.thread_cost_usd)
    );
    if u.advisor_calls > 0 {
        line += &format!(
            ": {} advisor calls ({}) belong to no thread",
            thousands(u.advisor_calls),
            dollars(u.advisor_cost_usd)
        );
    }
    if u.other_usd.abs() >= 0.005 {
        line += &format!("; {} of responses with no call the cache model reads", dollars(u.other_usd));
    }
    line + ".\n"
}

/// The cache report as terminal text.
pub fn render_cache(r: &CacheReport) -> String {
    let s = &r.total;
    let mut out = String::new();
    let misses = s.classes.ttl_5m.count + s.classes.ttl_1h.count;
    let _ = writeln!(out, "Prompt cache over {} requests", thousands(s.requests));
    if let Some(u) = &r.usage {
        out.push_str(&reconcile_line(u));
    }
    let _ = writeln!(
        out,
        "  Lost to expired caches: {} ({} rebuilds after idle gaps)",
        dollars(s.idle_cost_usd),
        thousands(misses)
    );
    let w = &s.what_if;
    let (best, saving) =
        if w.saving_1h_usd >= w.saving_5m_usd { ("1 h", w.saving_1h_usd) } else { ("5 min", w.saving_5m_usd) };
    let _ = writeln!(
        out,
        "  What-if: actual {}, all writes 5 min {}, all writes 1 h {}",
        dollars(w.actual_usd),
        dollars(w.ttl_5m_usd),
        dollars(w.ttl_1h_usd)
    );
    if saving > 0.005 {
        let _ = writeln!(out, "  -> A {best} TTL everywhere would have saved {}.", dollars(saving));
    } else {
        let _ = writeln!(out, "  -> Your TTL mix was already the cheaper one.");
    }
    let mix = s.write_mix.write_5m_tokens + s.write_mix.write_1h_tokens;
    let share_1h = if mix > 0 { s.write_mix.write_1h_tokens as f64 / mix as f64 } else { 0.0 };
    let _ = writeln!(
        out,
        "  Hit ratio: {} of prompt tokens read from cache; {} of continuing requests hit; writes {:.0}% 1 h / {:.0}% 5 min\n",
        pct(s.hit_ratio_tokens),
        pct(s.hit_ratio_requests),
        share_1h * 100.0,
        (1.0 - share_1h) * 100.0
    );
    if !r.stale.is_empty() {
        out += "Stale sessions (what the next message pays because the cache expired):\n";
        for st in r.stale.iter().take(10) {
            let name = if st.title.is_empty() { st.session_id.clone() } else { st.title.chars().take(48).collect() };
            let _ = writeln!(
                out,
                "  {:>9}  {:>8} tokens  idle {:>8}  {name}",
                dollars(st.premium_usd),
                thousands(st.prompt_tokens),
                fmt_duration(st.idle_s)
            );
        }
        let _ = writeln!(out, "  `cachewise advise <session>` compares resuming, compacting first and restarting.\n");
    }
    let rows: Vec<(&str, &ClassStats)> = CLASSES.iter().map(|(c, n)| (*n, s.classes.get(*c))).collect();
    out += &stats_table(["Requests by cache outcome", "Count", "Rebuilt tokens", "Miss cost"], &rows);
    let b = &s.idle_buckets;
    out += &stats_table(
        ["Gap before the request", "Count", "Rebuilt tokens", "Miss cost"],
        &[("<= 5 min", &b.le_5m), ("5 min - 1 h", &b.from_5m_to_1h), ("> 1 h", &b.gt_1h)],
    );
    out += &v2_lines(r);
    let comps: usize = r.compaction.iter().map(|c| c.compactions.len()).sum();
    if comps > 0 {
        let cost: f64 = r.compaction.iter().map(|c| c.total_usd).sum();
        let _ = writeln!(
            out,
            "Compactions: {comps} seen, costing {} (the summarising request plus the rebuild after it).",
            dollars(cost)
        );
    }
    if let Some(note) = Estimate::note(&r.estimated_models) {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// The server's reason of one request in words, with the tokens it says
/// were missed when given; empty when it gave none.
pub fn server_reason_text(reason: &str, missed: Option<u64>) -> String {
    match (reason, missed) {
        ("", _) => String::new(),
        (r, Some(n)) => format!("{} ({} tokens)", reason_words(r), thousands(n)),
        (r, None) => reason_words(r),
    }
}

/// What the server said about its misses, beside the classes (cache-model
/// v3 section 8.1), as lines of words: the terminal and `/cache` show them.
pub fn server_lines(r: &CacheReport) -> Vec<String> {
    let a = &r.server.agreement;
    let carrying: u64 = r.server.by_class.values().map(|t| t.carrying).sum();
    if carrying == 0 {
        return vec!["Claude Code's own miss reasons: none in these transcripts (written by Claude Code 2.1.280 and later, Claude API only).".into()];
    }
    let mut out = vec![format!(
        "Claude Code's own miss reasons: {} requests carry one; {} agree with cachewise's cause, {} disagree ({} on requests cachewise counts as hits).",
        thousands(carrying),
        thousands(a.agree),
        thousands(a.disagree),
        thousands(a.hits_with_reason)
    )];
    for (class, name) in CLASSES {
        let Some(t) = r.server.by_class.get(class.as_str()).filter(|t| t.carrying > 0) else { continue };
        let types: Vec<String> =
            t.by_type.iter().map(|(k, n)| format!("{} {}", reason_words(k), thousands(*n))).collect();
        out.push(format!("{name}: {}", types.join(", ")));
    }
    out
}

/// Rewinds, compactions by trigger and the idle-compaction what-if (cache-model v2).
fn v2_lines(r: &CacheReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Rewinds: {} (hits after the prompt shrank: Esc Esc, or a cut back to a cached point)",
        thousands(r.total.rewinds)
    );
    let by: Vec<String> = r.compactions_by_trigger.iter().map(|(k, n)| format!("{k} {}", thousands(*n))).collect();
    let _ = writeln!(out, "Compactions by trigger: {}", by.join(", "));
    let i = &r.idle_compaction;
    if i.gaps > 0 {
        let _ = writeln!(
            out,
            "Idle compaction: {} rests over 1 h after 200k+ tokens cost {} in rebuilds; compacting before the cache expired (what Claude Code's idle compaction does) would have cost {}.",
            thousands(i.gaps),
            dollars(i.rebuild_usd),
            dollars(i.compact_usd)
        );
    } else {
        out += "Idle compaction: no rest over 1 h after a prompt of 200k+ tokens, so nothing for it to save.\n";
    }
    let _ = writeln!(out, "Idle compactions Claude Code already ran: {}", thousands(i.idle_compactions));
    for (i, line) in server_lines(r).iter().enumerate() {
        let _ = writeln!(out, "{}{line}", if i == 0 { "" } else { "  " });
    }
    out.push('\n');
    out
}

/// Resume advice as terminal text.
pub fn render_advice(a: &Advice) -> String {
    let mut out = String::new();
    let state = if a.warm {
        format!("warm, expires {}", a.expires_at.format("%Y-%m-%d %H:%M UTC"))
    } else {
        format!("cold since {}", a.expires_at.format("%Y-%m-%d %H:%M UTC"))
    };
    let _ = writeln!(out, "Session {} ({state})", a.session_id);
    let _ = writeln!(out, "Over the next {} turns:", a.turns);
    let (resume, compact) = if a.claude_code.resume_dialog {
        (format!("resume: \"{DIALOG_RESUME}\""), format!("compact: \"{DIALOG_COMPACT}\""))
    } else {
        ("resume".to_owned(), "compact, continue".to_owned())
    };
    let _ = writeln!(out, "  {resume:<40} {:>10}", dollars(a.options.resume_usd));
    let _ = writeln!(out, "  {compact:<40} {:>10}", dollars(a.options.compact_usd));
    let _ = writeln!(out, "  {:<40} {:>10}", "restart (floor)", dollars(a.options.restart_usd));
    let rec =
        serde_json::to_value(a.recommendation).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    let _ = writeln!(
        out,
        "Recommendation: {rec}; keeping the history costs {} more than restarting.",
        dollars(a.history_premium_usd)
    );
    match a.break_even_turns {
        Some(n) => {
            let _ = writeln!(out, "Compacting first pays off from {n} turn(s) on.");
        }
        None => out += "Compacting first does not pay off within 200 turns.\n",
    }
    let _ = writeln!(out, "\n{}", a.explanation);
    out
}

/// The misses as a terminal table.
pub fn render_misses(rows: &[super::cache::MissRow]) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY);
    t.set_header([
        "Time (UTC)",
        "Session",
        "Thread",
        "Cause",
        "Server's reason",
        "Gap",
        "TTL",
        "Expected",
        "Read",
        "Rebuilt",
        "Cost",
    ]);
    for m in rows {
        let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            Cell::new(m.time.format("%Y-%m-%d %H:%M:%S")),
            Cell::new(m.session_id.get(..8).unwrap_or(&m.session_id)),
            Cell::new(&m.thread),
            Cell::new(m.class.as_str()),
            Cell::new(server_reason_text(&m.server_reason, m.server_missed_tokens)),
            right(m.gap_s.map_or_else(String::new, fmt_duration)),
            right(fmt_duration(f64::from(m.ttl_s))),
            right(thousands(m.expected_prefix)),
            right(thousands(m.cache_read)),
            right(thousands(m.rebuilt_tokens)),
            right(dollars(m.miss_cost_usd)),
        ]);
    }
    format!("{t}\n")
}

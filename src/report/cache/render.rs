//! Terminal output of the cache report and of resume advice. It leads with
//! what a user should do: the money lost to expired caches, which sessions,
//! and whether the other TTL would have been cheaper; then the v2 figures
//! (rewinds, compactions by trigger, idle compaction). Advice names its
//! options as Claude Code's resume dialog does when the dialog applies.

use super::words::{advice_words, what_if_caption};
use super::CacheReport;
use crate::analyze::{reason_words, Advice, CacheClass, ClassStats, GapBucket, DIALOG_COMPACT, DIALOG_RESUME};
use crate::model::format::{duration_words, percent, thousands, usd};
use crate::pricing::Estimate;
use crate::report::cell;
use crate::report::fit::{self, Col, Layout};
use crate::report::labels::{self, plural};
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use std::collections::BTreeMap;
use std::fmt::Write;

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
            right(usd(s.miss_cost_usd)),
        ]);
    }
    format!("{t}\n")
}

/// How the cache figures relate to `report daily`'s, in words.
pub fn reconcile_line(u: &super::Reconcile) -> String {
    let several = match u.thread_requests > u.requests {
        true => "; a response can make several",
        false => "",
    };
    let mut line = format!(
        "  {}, {} as `report daily` counts them; the cache figures count {} in conversations ({}{several})",
        plural(u.requests, "request", "requests"),
        usd(u.cost_usd),
        plural(u.thread_requests, "request", "requests"),
        usd(u.thread_cost_usd)
    );
    if u.advisor_calls > 0 {
        line += &format!(
            ": {} ({}) belong to no conversation",
            plural(u.advisor_calls, "advisor call", "advisor calls"),
            usd(u.advisor_cost_usd)
        );
    }
    if u.unlogged_calls > 0 {
        line += &format!(
            "; {} ({}) Claude Code paid for but did not write down",
            plural(u.unlogged_calls, "call", "calls"),
            usd(u.unlogged_cost_usd)
        );
    }
    if u.other_usd.abs() >= 0.005 {
        line += &format!("; {} of responses with no call the cache figures read", usd(u.other_usd));
    }
    line + ".\n"
}

/// The cache report as terminal text: its sentences break at the layout's
/// width, as its tables fit it.
pub fn render_cache(r: &CacheReport, layout: Layout) -> String {
    fit::wrap(&cache_text(r, layout), layout)
}

/// `render_cache` before its sentences are broken.
fn cache_text(r: &CacheReport, layout: Layout) -> String {
    let s = &r.total;
    let mut out = String::new();
    for w in &r.warnings {
        let _ = writeln!(out, "Warning: {w}");
    }
    let span = match (r.by_day.first(), r.by_day.last()) {
        (Some(a), Some(b)) if a.day == b.day => format!(" on {}", a.day),
        (Some(a), Some(b)) => format!(", {} to {}", a.day, b.day),
        _ => String::new(),
    };
    let _ = writeln!(out, "Prompt cache over {}{span}", plural(s.requests, "request", "requests"));
    if let Some(u) = &r.usage {
        out.push_str(&reconcile_line(u));
    }
    out += &headline(r);
    if !r.stale.is_empty() {
        out += "Stale sessions (what the next message pays because the cache expired):\n";
        out += &stale_table(&r.stale, layout);
        let _ = writeln!(out, "`cachewise advise <session>` compares resuming, compacting first and restarting.\n");
    }
    out += &not_resumable_line(r);
    let rows: Vec<(&str, &ClassStats)> =
        CacheClass::ALL.iter().map(|c| (labels::class(*c), s.classes.get(*c))).collect();
    out += &stats_table(["Requests by cache outcome", "Count", "Rebuilt tokens", "Miss cost"], &rows);
    let b = &s.idle_buckets;
    out += &stats_table(
        ["Gap before the request", "Count", "Rebuilt tokens", "Miss cost"],
        &[
            (labels::bucket(GapBucket::Le5m), &b.le_5m),
            (labels::bucket(GapBucket::From5mTo1h), &b.from_5m_to_1h),
            (labels::bucket(GapBucket::Gt1h), &b.gt_1h),
        ],
    );
    out += &super::versions::render(&r.versions);
    out += &super::context::render(&r.context);
    out += &v2_lines(r);
    out += &v3_lines(r);
    let comps: usize = r.compaction.iter().map(|c| c.compactions.len()).sum();
    if comps > 0 {
        let cost: f64 = r.compaction.iter().map(|c| c.total_usd).sum();
        let _ = writeln!(
            out,
            "Compactions: {comps} seen, costing {} (the summarising request plus the rebuild after it).",
            usd(cost)
        );
    }
    if let Some(note) = Estimate::note(&r.estimated_models) {
        let _ = writeln!(out, "{}", cell::term(&note));
    }
    out
}

/// The headline: what expired caches lost, the TTL what-if and the hit
/// ratios.
fn headline(r: &CacheReport) -> String {
    let s = &r.total;
    let mut out = String::new();
    let misses: u64 = CacheClass::ALL.iter().filter(|c| c.is_idle()).map(|&c| s.classes.get(c).count).sum();
    let _ = writeln!(
        out,
        "  Lost to expired caches: {} ({} after {})",
        usd(s.idle_cost_usd),
        plural(misses, "rebuild", "rebuilds"),
        if misses == 1 { "an idle gap" } else { "idle gaps" }
    );
    let w = &s.what_if;
    let _ = writeln!(
        out,
        "  What-if over the conversations' requests (billed {}): all writes 5 min {}, all writes 1 h {}",
        usd(w.actual_usd),
        usd(w.ttl_5m_usd),
        usd(w.ttl_1h_usd)
    );
    let _ = writeln!(out, "  -> {}", what_if_caption(w, &s.write_mix));
    let mix = s.write_mix.write_5m_tokens + s.write_mix.write_1h_tokens;
    let writes = if mix > 0 {
        let share_1h = s.write_mix.write_1h_tokens as f64 / mix as f64;
        format!("writes {} 1 h / {} 5 min", percent(Some(share_1h)), percent(Some(1.0 - share_1h)))
    } else {
        "no cache writes".to_owned()
    };
    let _ = writeln!(
        out,
        "  Hit ratio: {} of prompt tokens read from cache; {} of continuing requests hit; {writes}\n",
        percent(s.hit_ratio_tokens),
        percent(s.hit_ratio_requests),
    );
    out
}

/// How many sessions can no longer be resumed, and why.
fn not_resumable_line(r: &CacheReport) -> String {
    let mut out = String::new();
    if !r.not_resumable.is_empty() {
        let mut why: BTreeMap<&str, usize> = BTreeMap::new();
        for n in &r.not_resumable {
            *why.entry(n.why.as_str()).or_default() += 1;
        }
        let why: Vec<String> = why.into_iter().map(|(w, n)| format!("{} {w}", thousands(n as u64))).collect();
        let _ = writeln!(
            out,
            "Not resumable (history kept, never stale): {}: {}.\n",
            plural(r.not_resumable.len() as u64, "session", "sessions"),
            why.join(", ")
        );
    }
    out
}

/// The keep-warm what-if and the backtest of the resume premium (cache-model v3).
fn v3_lines(r: &CacheReport) -> String {
    let mut out = String::new();
    let k = &r.total.keep_warm;
    if k.misses_avoided > 0 {
        let verdict = if k.saving_usd > 0.0 { "saved" } else { "lost" };
        let _ = writeln!(
            out,
            "Keep-warm: pinging the cache before it expired through {} ({}) would have cost {} and {verdict} {} net{}.",
            plural(k.misses_avoided, "break", "breaks"),
            plural(k.pings, "ping", "pings"),
            usd(k.cost_usd),
            usd(k.saving_usd.abs()),
            match k.left_out_gaps {
                0 => String::new(),
                n => format!("; {} over 8 h left out", plural(n, "break", "breaks")),
            }
        );
    }
    let b = &r.total.backtest;
    if b.misses > 0 {
        let _ = writeln!(
            out,
            "How well cachewise priced the {} that really happened: {} paid, predicted {} (off by {}; \
counting the whole prompt as rewritten, with no shared prefix still warm, predicted {}, off by {}).",
            plural(b.misses, "resume", "resumes"),
            usd(b.observed_usd),
            usd(b.predicted_usd),
            percent(b.mae_pct.map(|p| p / 100.0)),
            usd(b.v2_predicted_usd),
            percent(b.v2_mae_pct.map(|p| p / 100.0))
        );
    }
    out
}

/// What the server said about its misses, beside the classes (cache-model
/// section 19), as lines of words: the terminal and `/cache` show them.
pub fn server_lines(r: &CacheReport) -> Vec<String> {
    let a = &r.server.agreement;
    let carrying: u64 = r.server.by_class.values().map(|t| t.carrying).sum();
    if carrying == 0 {
        return vec!["Claude Code's own miss reasons: none in these transcripts (written by Claude Code 2.1.119 and later, Claude API only).".into()];
    }
    let unknown = match carrying.saturating_sub(a.agree + a.disagree) {
        0 => String::new(),
        n => format!("; {} no diagnosis or a reason of another kind", plural(n, "gives", "give")),
    };
    let mut out = vec![format!(
        "Claude Code's own miss reasons: {} {} one; {} with cachewise's cause, {} ({} on requests cachewise counts as hits){unknown}.",
        plural(carrying, "request", "requests"),
        if carrying == 1 { "carries" } else { "carry" },
        plural(a.agree, "agrees", "agree"),
        plural(a.disagree, "disagrees", "disagree"),
        thousands(a.hits_with_reason)
    )];
    for class in CacheClass::ALL {
        let name = labels::class(class);
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
    let by: Vec<String> = r
        .compactions_by_trigger
        .iter()
        .map(|(k, n)| format!("{} {}", cell::term(&labels::trigger(k)), thousands(*n)))
        .collect();
    let _ = writeln!(out, "Compactions by trigger: {}", by.join(", "));
    let i = &r.idle_compaction;
    if i.gaps > 0 {
        let _ = writeln!(
            out,
            "Idle compaction: {} idle over an hour after a prompt of 200k+ tokens cost {} in rebuilt caches; compacting before the cache expired (what Claude Code's idle compaction does) would have cost {}.",
            plural(i.gaps, "time a conversation sat", "times conversations sat"),
            usd(i.rebuild_usd),
            usd(i.compact_usd)
        );
    } else {
        out += "Idle compaction: no conversation of 200k+ tokens sat idle over an hour, so it had nothing to save.\n";
    }
    let _ = writeln!(out, "Idle compactions Claude Code already ran: {}", thousands(i.idle_compactions));
    for (i, line) in server_lines(r).iter().enumerate() {
        let _ = writeln!(out, "{}{line}", if i == 0 { "" } else { "  " });
    }
    out.push('\n');
    out
}

/// Resume advice as terminal text, times in the layout's zone, sentences
/// broken at its width.
pub fn render_advice(a: &Advice, layout: Layout) -> String {
    let tz = layout.tz;
    let mut out = String::new();
    let expiry = a.expires_at.with_timezone(&tz).format("%Y-%m-%d %H:%M %Z");
    let state = if a.warm { format!("warm, expires {expiry}") } else { format!("cold since {expiry}") };
    let _ = writeln!(out, "Session {} ({state})", cell::term(&a.session_id));
    let words = advice_words(a);
    let _ = writeln!(out, "Do this: {}", words.decision);
    let _ = writeln!(out, "{}\n", words.why);
    if a.not_resumable.is_some() {
        let _ = writeln!(out, "{}", words.restart);
        // The explanation opens with why it cannot be resumed, said above.
        let _ = writeln!(out, "\n{}", a.details(tz));
        return fit::wrap(&out, layout);
    }
    let _ = writeln!(out, "Over the next {}:", plural(u64::from(a.turns), "turn", "turns"));
    if a.claude_code.compacted_since {
        let _ = writeln!(out, "  {:<40} {:>10}", "continue from the summary", usd(a.options.resume_usd));
    } else {
        let (resume, compact) = if a.claude_code.resume_dialog {
            (format!("resume: \"{DIALOG_RESUME}\""), format!("compact: \"{DIALOG_COMPACT}\""))
        } else {
            ("resume".to_owned(), "compact, continue".to_owned())
        };
        let _ = writeln!(out, "  {resume:<40} {:>10}", usd(a.options.resume_usd));
        let _ = writeln!(out, "  {compact:<40} {:>10}", usd(a.options.compact_usd));
    }
    let _ = writeln!(out, "  {:<40} {:>10}", "start over (loses the conversation)", usd(a.options.restart_usd));
    let _ = writeln!(out, "{}", words.restart);
    if let Some(now) = &a.compact_now {
        let _ = writeln!(out, "{}", now.sentence());
    }
    let _ = writeln!(out, "\n{}", a.details(tz));
    fit::wrap(&out, layout)
}

/// The first 8 characters of a session id, what `advise` and the
/// dashboard's `/session/<prefix>` take.
pub(super) fn short_id(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// The stale sessions' columns: id, premium and idle time always.
const STALE_COLUMNS: [Col; 5] = [
    Col::text("Session", 0),
    Col::num("Resume premium", 0),
    Col::num("Idle", 0),
    Col::num("Prompt tokens", 2),
    Col::text("Title", 1),
];

/// A stale session's title cell: "(untitled)" without one, marked when
/// Claude Code compacted it after its last request (its premium is its
/// base context's, cache-model §8).
fn stale_title(st: &crate::analyze::StaleSession) -> String {
    let title = if st.title.is_empty() { "(untitled)" } else { &st.title };
    match st.compacted_since {
        true => format!("(compacted) {}", cell::shorten(title, 20)),
        false => cell::shorten(title, 32),
    }
}

/// The ten costliest stale sessions, each with the id `advise` takes (two
/// sessions can share a title).
fn stale_table(stale: &[crate::analyze::StaleSession], layout: Layout) -> String {
    let rows: Vec<Vec<String>> = stale
        .iter()
        .take(10)
        .map(|st| {
            vec![
                short_id(&st.session_id).to_owned(),
                usd(st.premium_usd),
                duration_words(st.idle_s),
                thousands(st.prompt_tokens),
                stale_title(st),
            ]
        })
        .collect();
    format!("{}\n", fit::table(&STALE_COLUMNS, &rows, layout))
}

//! Output of the team report: JSON (the documented contract), CSV (one row
//! per person and a total row), Markdown fit to paste into a pilot write-up,
//! and a terminal table. Formatting only; the numbers come from `team`.

use super::{Figures, TeamReport, TeamRow, BASELINE, DAYS_PER_MONTH, PILOT_DAYS};
use crate::model::format::{percent, thousands, usd};
use crate::pricing::Estimate;
use crate::report::cell::{self, CsvTable};
use crate::report::fit::{self, Col, Layout};
use std::fmt::Write;

/// How the team report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamFormat {
    /// Terminal tables that fit the layout's width.
    Table(Layout),
    Json,
    /// One row per person per active day, with the vendor's baseline.
    Csv,
    /// One row per person and a total row (`--csv-summary`).
    CsvSummary,
    Markdown,
}

/// Renders the report in the chosen format.
pub fn render(r: &TeamReport, format: TeamFormat) -> String {
    match format {
        TeamFormat::Json => match serde_json::to_value(r).and_then(|v| crate::report::term::json(&v)) {
            Ok(v) => v,
            Err(e) => format!("{{\"error\":\"{e}\"}}\n"),
        },
        TeamFormat::Csv => person_days_csv(r),
        TeamFormat::CsvSummary => csv(r),
        TeamFormat::Markdown => markdown(r),
        TeamFormat::Table(layout) => table(r, layout),
    }
}

/// A person's name for people to read (local rows have none).
pub fn who(user: &str) -> &str {
    if user.is_empty() {
        "(local)"
    } else {
        user
    }
}

/// The main columns (`HEADER`): person, active days, requests, spend, per
/// active day (mean, median, p90), cache hit ratio, lost to expired caches,
/// lost to prompt edits within the TTL (cache model v2), run-rate. The
/// terminal, Markdown and the Team page show these.
pub(super) fn cells(name: &str, f: &Figures, monthly: f64) -> [String; 11] {
    [
        name.to_owned(),
        thousands(f.active_days),
        thousands(f.requests),
        usd(f.cost_usd),
        usd(f.cost_per_active_day_mean_usd),
        usd(f.cost_per_active_day_median_usd),
        usd(f.cost_per_active_day_p90_usd),
        percent(f.cache_hit_ratio),
        usd(f.idle_cost_usd),
        usd(f.edit_cost_usd),
        usd(monthly),
    ]
}

/// The main columns' headings.
pub const HEADER: [&str; 11] = [
    "Person",
    "Active days",
    "Requests",
    "Spend",
    "Mean per active day",
    "Median",
    "p90",
    "Cache hit ratio",
    "Lost to expired caches",
    "Lost to prompt edits",
    "Monthly run-rate",
];

/// A person's main columns.
pub fn person_cells(row: &TeamRow) -> [String; 11] {
    cells(who(&row.user), &row.figures, row.monthly_projection_usd)
}

/// The total row's main columns: its run-rate is per seat.
pub fn total_cells(r: &TeamReport) -> [String; 11] {
    cells(&total_name(r), &r.total.figures, r.total.monthly_projection_per_seat_usd)
}

/// The model mix's headings.
pub const MIX_HEADER: [&str; 5] = ["Person", "Model", "Requests", "Spend", "Share of spend"];

/// The model mix: a row per person and model (fast mode apart, `MODEL
/// (fast)`), most spend first within each person.
pub fn mix_cells(r: &TeamReport) -> Vec<[String; 5]> {
    let mut out = Vec::new();
    for row in &r.rows {
        for m in &row.figures.models {
            let share = percent(Some(m.cost_share));
            out.push([who(&row.user).to_owned(), m.model.clone(), thousands(m.requests), usd(m.cost_usd), share]);
        }
    }
    out
}

/// The total row's name: `Team (2 people)`.
fn total_name(r: &TeamReport) -> String {
    let n = r.total.people;
    format!("Team ({n} {})", if n == 1 { "person" } else { "people" })
}

/// The window the report covers: `2026-02-11 to 2026-02-13 (3 days)`.
pub fn window_line(r: &TeamReport) -> String {
    let w = &r.window;
    match (w.first_day, w.last_day) {
        (Some(f), Some(l)) => format!("{f} to {l} ({} days)", w.days),
        _ => "no data".to_owned(),
    }
}

fn baseline_text(r: &TeamReport) -> String {
    let b = &BASELINE;
    let t = &r.total;
    format!(
        "Anthropic's Claude Code documentation puts the average at about ${:.0} per developer per active day, \
with 90% of users under ${:.0} per active day, and ${:.0}-{:.0} per developer per month ({}: {}). \
This team: {} per active day on average (median {}, p90 {} over person-days); {} of {} active people average under ${:.0} \
per active day; the run-rate is {} per seat per month.",
        b.mean_per_active_day_usd,
        b.p90_users_per_active_day_usd,
        b.monthly_low_usd,
        b.monthly_high_usd,
        b.source,
        b.url,
        usd(t.figures.cost_per_active_day_mean_usd),
        usd(t.figures.cost_per_active_day_median_usd),
        usd(t.figures.cost_per_active_day_p90_usd),
        t.people_under_baseline_p90,
        t.people_active,
        b.p90_users_per_active_day_usd,
        usd(t.monthly_projection_per_seat_usd),
    )
}

/// Adoption and the cost of a seat: `2 of 3 people active (67%); per seat
/// $41.20 over the 30 days, per active day $13.10`.
pub fn adoption_line(r: &TeamReport) -> String {
    let t = &r.total;
    let days = r.window.days;
    format!(
        "Adoption: {} of {} {} active ({:.0}%). Cost per seat over the {days} {}: {} (spend / {}); \
per active day: {}.",
        t.people_active,
        t.people,
        if t.people == 1 { "person" } else { "people" },
        t.adoption_pct,
        if days == 1 { "day" } else { "days" },
        usd(t.cost_per_seat_usd),
        if t.people == 1 { "1 person".to_owned() } else { format!("{} people", t.people) },
        usd(t.figures.cost_per_active_day_mean_usd),
    )
}

/// The warning of a report without --since/--until over more than
/// `PILOT_DAYS`; None otherwise.
pub fn window_warning(r: &TeamReport) -> Option<String> {
    all_history(r).then(|| {
        format!(
            "No --since or --until was given, so this covers all {} days of data. A pilot report usually covers the \
pilot's weeks: add --since and --until (for example --since {} --until {}).",
            r.window.days,
            day(r.window.last_day.and_then(|d| d.checked_sub_days(chrono::Days::new(PILOT_DAYS - 2)))),
            day(r.window.last_day)
        )
    })
}

/// The report covers every day of data (no dates given), and more of them
/// than a pilot: its run-rate is an average over all history.
pub fn all_history(r: &TeamReport) -> bool {
    !r.window.given && r.window.days > PILOT_DAYS
}

fn day(d: Option<chrono::NaiveDate>) -> String {
    d.map(|d| d.format("%Y%m%d").to_string()).unwrap_or_default()
}

/// What the figures mean, and what needs a second look.
pub fn notes(r: &TeamReport) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    out.extend([
        format!(
            "List-price estimates from Claude Code transcripts; output tokens can be under-counted, so spend is a lower bound. \
Run-rate = spend in the window / {} days x {DAYS_PER_MONTH:.2} days per month; the Team row's is per seat.",
            r.window.days
        ),
        "Lost to expired caches: what requests paid to re-write a prompt cache that had expired (5-minute or 1-hour TTL)."
            .to_owned(),
        "Stale sessions and resume advice are each person's own (cachewise cache, on their machine): \
a team store holds other people's sessions, which only they can resume."
            .to_owned(),
    ]);
    if r.flags.message_ids_under_several_users > 0 {
        out.push(format!(
            "{} under more than one person; each person's copy is counted (check for shared exports).",
            match r.flags.message_ids_under_several_users {
                1 => "1 message id appears".to_owned(),
                n => format!("{} message ids appear", thousands(n as u64)),
            }
        ));
    }
    if !r.unknown_models.is_empty() {
        out.push(format!("Unknown models (priced at $0, not guessed): {}.", r.unknown_models.join(", ")));
    }
    out.extend(Estimate::note(&r.estimated_models).map(|n| format!("{n}.")));
    out
}

/// A Markdown table row, every cell escaped (`cell::md`).
fn md_row(cells: &[String]) -> String {
    md_line(&cells.iter().map(|c| cell::md(c)).collect::<Vec<_>>())
}

/// A Markdown table row of cells already escaped.
fn md_line(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

fn markdown(r: &TeamReport) -> String {
    let mut out = format!("## Claude Code spend: team pilot, {}\n\n", window_line(r));
    out += &md_row(&HEADER.map(str::to_owned));
    out += &format!("|---|{}\n", "--:|".repeat(HEADER.len() - 1));
    for row in &r.rows {
        out += &md_row(&person_cells(row));
    }
    let mut total = total_cells(r).map(|c| cell::md(&c));
    total[0] = format!("**{}**", total[0]);
    out += &md_line(&total);
    out += &format!("\n{}\n", adoption_line(r));
    out += &format!("\n**Against the vendor's baseline.** {}\n", baseline_text(r));
    out += "\n### Model mix\n\n";
    out += &md_row(&MIX_HEADER.map(str::to_owned));
    out += "|---|---|--:|--:|--:|\n";
    for m in mix_cells(r) {
        out += &md_row(&m);
    }
    out += "\n";
    for n in window_warning(r).into_iter().chain(notes(r)) {
        let _ = writeln!(out, "- {}", cell::md(&n));
    }
    out
}

fn csv(r: &TeamReport) -> String {
    let mut w = CsvTable::new();
    w.row([
        "user",
        "machines",
        "active_days",
        "requests",
        "cost_usd",
        "cost_per_active_day_mean_usd",
        "cost_per_active_day_median_usd",
        "cost_per_active_day_p90_usd",
        "cache_hit_ratio",
        "idle_cost_usd",
        "edit_cost_usd",
        "monthly_projection_usd",
        "models",
    ]);
    let mut rec = |user: &str, machines: String, f: &Figures, monthly: f64| {
        let models: Vec<String> = f.models.iter().map(|m| format!("{}:{:.4}", m.model, m.cost_share)).collect();
        w.row([
            user.to_owned(),
            machines,
            f.active_days.to_string(),
            f.requests.to_string(),
            format!("{:.6}", f.cost_usd),
            format!("{:.6}", f.cost_per_active_day_mean_usd),
            format!("{:.6}", f.cost_per_active_day_median_usd),
            format!("{:.6}", f.cost_per_active_day_p90_usd),
            f.cache_hit_ratio.map_or_else(String::new, |v| format!("{v:.6}")),
            format!("{:.6}", f.idle_cost_usd),
            format!("{:.6}", f.edit_cost_usd),
            format!("{monthly:.6}"),
            models.join(";"),
        ]);
    };
    for row in &r.rows {
        rec(&row.user, row.machines.join(";"), &row.figures, row.monthly_projection_usd);
    }
    rec("(total)", String::new(), &r.total.figures, r.total.monthly_projection_per_seat_usd);
    w.finish()
}

/// One row per person per active day (the JSON's `person_days`), with the
/// vendor's published baseline per active day beside each.
fn person_days_csv(r: &TeamReport) -> String {
    let mut w = CsvTable::new();
    w.row(PERSON_DAY_COLUMNS);
    for d in &r.person_days {
        w.row([
            d.user.clone(),
            d.day.clone(),
            d.requests.to_string(),
            d.cost_usd.to_string(),
            BASELINE.mean_per_active_day_usd.to_string(),
            BASELINE.p90_users_per_active_day_usd.to_string(),
        ]);
    }
    w.finish()
}

/// The columns of the person-day CSV: the JSON's `person_days` keys, then
/// the baseline.
pub const PERSON_DAY_COLUMNS: [&str; 6] =
    ["user", "day", "requests", "cost_usd", "baseline_mean_per_active_day_usd", "baseline_p90_per_active_day_usd"];

/// The terminal's main columns (`HEADER`, headings on two lines): person,
/// spend and its mean per active day always, the rest as the width allows.
const TERMINAL_COLUMNS: [Col; 11] = [
    Col::text("Person", 0),
    Col::num("Active\ndays", 0),
    Col::num("Requests", 2),
    Col::num("Spend", 0),
    Col::num("Mean per\nactive day", 0),
    Col::num("Median", 1),
    Col::num("p90", 1),
    Col::num("Cache hit\nratio", 2),
    Col::num("Lost to\nexpired caches", 1),
    Col::num("Lost to\nprompt edits", 3),
    Col::num("Monthly\nrun-rate", 1),
];

/// The model mix's terminal columns (`MIX_HEADER`).
const MIX_COLUMNS: [Col; 5] = [
    Col::text("Person", 0),
    Col::text("Model", 0),
    Col::num("Requests", 1),
    Col::num("Spend", 0),
    Col::num("Share of spend", 0),
];

/// The model mix as a terminal table, after a blank line (none without rows).
fn mix_table(r: &TeamReport, layout: Layout) -> String {
    let rows: Vec<Vec<String>> = mix_cells(r).into_iter().map(Vec::from).collect();
    if rows.is_empty() {
        return String::new();
    }
    format!("\nModel mix\n{}\n", fit::table(&MIX_COLUMNS, &rows, layout))
}

fn table(r: &TeamReport, layout: Layout) -> String {
    let mut rows: Vec<Vec<String>> = r.rows.iter().map(|row| Vec::from(person_cells(row))).collect();
    rows.push(Vec::from(total_cells(r)));
    let t = fit::table(&TERMINAL_COLUMNS, &rows, layout);
    let mut out = format!("Team pilot, {}\n{t}\n{}\n\n{}\n", window_line(r), adoption_line(r), baseline_text(r));
    out += &mix_table(r, layout);
    for n in window_warning(r).into_iter().chain(notes(r)) {
        let _ = writeln!(out, "note: {}", cell::term(&n));
    }
    out
}

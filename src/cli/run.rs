//! One short function per subcommand: resolve the plan, ingest if asked,
//! call one `report::` or `analyze::` function, print.

use super::plan::Plan;
use super::policy::{local_ingest, Asked, IngestArgs};
use super::progress::Bar;
use super::team;
use super::team::ReportKind;
use super::{Cli, Command, OutputArgs, PricesArgs, ReportOpts};
use crate::ingest::{IngestError, Outcome};
use crate::model::format::thousands;
use crate::pricing::Estimate;
use crate::report::cache::rows::annotate_sessions;
use crate::report::labels::plural;
use crate::report::query::{Grouping, Query};
use crate::report::usage::render::{self, Format};
use crate::report::{prices, summary, usage};
use crate::store::lock::Waiting;
use crate::store::StoreError;

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // The status line must never fail on the plan (data directory, zone, prices).
    // Nor may Claude Code's hooks, and an install needs no plan.
    match &cli.command {
        Some(Command::Statusline(a)) => return super::statusline::run_statusline(&cli.global, a),
        Some(Command::Hook(a)) => return super::hook::run_hook(&cli.global, a),
        Some(Command::Hooks(a)) => return super::hook::run_hooks(a),
        _ => {}
    }
    match &cli.command {
        Some(
            Command::Report(super::ReportArgs { opts: o, .. })
            | Command::Daily(o)
            | Command::Weekly(o)
            | Command::Monthly(o)
            | Command::Session(o)
            | Command::Blocks(o),
        ) => o.filter.check()?,
        Some(Command::Cache(a)) => a.filter.check()?,
        _ => {}
    }
    let plan = Plan::resolve(&cli.global)?;
    match cli.command {
        None => run_summary(&plan),
        Some(Command::Report(a)) => run_report(&plan, a.kind, &a.opts),
        Some(Command::Daily(o)) => run_report(&plan, ReportKind::Usage(Grouping::Daily), &o),
        Some(Command::Weekly(o)) => run_report(&plan, ReportKind::Usage(Grouping::Weekly), &o),
        Some(Command::Monthly(o)) => run_report(&plan, ReportKind::Usage(Grouping::Monthly), &o),
        Some(Command::Session(o)) => run_report(&plan, ReportKind::Usage(Grouping::Session), &o),
        Some(Command::Blocks(o)) => run_report(&plan, ReportKind::Blocks, &o),
        Some(Command::Ingest(a)) => run_ingest(&plan, a),
        Some(Command::Cache(a)) => super::cache::run_cache(&plan, &a),
        Some(Command::Advise(a)) => super::cache::run_advise(&plan, &a),
        Some(Command::Serve(a)) => super::serve::run_serve(&plan, &a),
        Some(Command::Export(a)) => team::run_export(&plan, &a),
        Some(Command::Import(a)) => team::run_import(&plan, &a),
        Some(Command::Push(a)) => team::run_push(&plan, &a),
        Some(Command::Prices(a)) => run_prices(&plan, &a, cli.global.pricing.as_deref()),
        Some(Command::Statusline(a)) => super::statusline::run_statusline(&cli.global, &a),
        Some(Command::Hook(a)) => super::hook::run_hook(&cli.global, &a),
        Some(Command::Hooks(a)) => super::hook::run_hooks(&a),
    }
}

/// One warning per model priced as its family's newest version (stderr).
pub(super) fn warn_estimates(plan: &Plan, estimates: &[Estimate]) {
    if plan.quiet {
        return;
    }
    for e in estimates {
        eprintln!("{}", e.warning());
    }
}

fn run_prices(plan: &Plan, a: &PricesArgs, file: Option<&std::path::Path>) -> anyhow::Result<()> {
    let list = prices::price_list(&plan.prices, file.map(|f| f.display().to_string()), plan.now);
    match a.json {
        true => super::out(&prices::render_json(&list)),
        false => super::out(&prices::render_table(&list, a.layout.layout(plan))),
    }
    Ok(())
}

/// Ingests when the ingest policy (`policy::local_ingest`) allows it;
/// warnings go to stderr.
pub(super) fn refresh(plan: &Plan) -> anyhow::Result<Option<Outcome>> {
    if !local_ingest(plan, Asked::Implicitly)? {
        plan.reprice_if_stale()?;
        return Ok(None);
    }
    ingest_now(plan, Waiting::No)
}

/// Ingests now (the policy has allowed it). When another writer holds the
/// store's lock, `cachewise ingest` waits (saying who holds it); a report
/// (`Waiting::No`) reads the last committed store, and says so.
fn ingest_now(plan: &Plan, waiting: Waiting) -> anyhow::Result<Option<Outcome>> {
    let bar = Bar::new(plan.quiet);
    let store = plan.store.waiting(waiting);
    match crate::update::ingest(&plan.roots, &store, &plan.prices, &bar, plan.now) {
        Ok(mut o) => {
            warn(plan, &o);
            *plan.ingested.borrow_mut() = Some(std::mem::take(&mut o.seen));
            Ok(Some(o))
        }
        Err(IngestError::NoRoots { looked }) if plan.store.path(crate::store::Table::Requests).exists() => {
            if !plan.quiet {
                super::note(&format!("warning: {}; showing stored data", IngestError::NoRoots { looked }));
            }
            Ok(None)
        }
        Err(IngestError::Store(StoreError::Locked { holder, .. })) => {
            if !plan.quiet {
                super::note(&format!(
                    "note: not reading new transcript lines now: the data directory's lock is taken ({holder}); \
showing the data as last written"
                ));
            }
            Ok(None)
        }
        Err(e @ IngestError::NoRoots { .. }) => Err(anyhow::anyhow!(
            "{e}\nPoint cachewise at your transcripts with --claude-dir DIR or CLAUDE_CONFIG_DIR=DIR \
(the directory that holds projects/), or run `cachewise serve --demo` to see the dashboard on demo data."
        )),
        Err(e) => Err(e.into()),
    }
}

/// What an update did to the store besides adding rows, said after it.
fn store_notes(o: &Outcome) {
    if o.analysis_recomputed {
        super::note("note: the cache analysis tables did not read as current; computed them again");
    }
    if o.kept_from_rewritten > 0 {
        super::note(&format!(
            "note: {} kept from transcripts rewritten without them (paid for, so still counted)",
            plural(o.kept_from_rewritten as u64, "request", "requests")
        ));
    }
}

fn warn(plan: &Plan, o: &Outcome) {
    if plan.quiet {
        return;
    }
    // A default root that is not there (most machines have one of the two)
    // is no news; one the user named is.
    for r in o.missing_roots.iter().filter(|_| plan.roots_named) {
        super::note(&format!("note: no transcripts under {}/projects", r.display()));
    }
    if o.problems.bad > 0 {
        super::note(&format!(
            "warning: skipped {} of {} read; first:",
            plural(o.problems.bad, "malformed line", "malformed lines"),
            thousands(o.problems.lines)
        ));
        for s in &o.problems.samples {
            super::note(&format!("  {s}"));
        }
    }
    store_notes(o);
    if let Some(r) = &o.rebuilt {
        super::note(&format!(
            "note: the store was damaged and has been rebuilt from the transcripts\n{}",
            r.describe()
        ));
    }
}

fn format(o: OutputArgs) -> Format {
    match (o.json, o.csv) {
        (true, _) if o.ccusage() => Format::CcusageJson,
        (true, _) => Format::Json,
        (_, true) => Format::Csv,
        _ => Format::Table,
    }
}

/// Why `--json-format ccusage` was refused.
pub(super) const CCUSAGE_SHAPES: &str =
    "--json-format ccusage is for the daily, monthly and session reports (ccusage's JSON shapes)";

/// `cachewise report KIND` and its aliases (`cachewise daily`, ...).
fn run_report(plan: &Plan, kind: ReportKind, a: &ReportOpts) -> anyhow::Result<()> {
    let kind = match kind {
        ReportKind::Team => return team::run_team_report(plan, a),
        ReportKind::Blocks => return super::blocks::run_blocks(plan, a),
        ReportKind::Usage(g) => g,
    };
    team::check_usage_flags(a)?;
    if a.output.ccusage() && !crate::report::usage::ccusage_json::supported(kind) {
        return Err(super::UsageError(CCUSAGE_SHAPES.into()).into());
    }
    refresh(plan)?;
    // ccusage's shape breaks every row down by model.
    let q = Query { breakdown: a.breakdown || a.output.ccusage(), ..a.query(plan.tz) };
    let view = plan.view()?;
    let mut r = usage::usage(&view, kind, &q)?;
    if kind == Grouping::Session {
        annotate_sessions(&mut r, &view, q.user.as_deref())?;
    }
    if let Some(order) = a.order {
        r.order_by_time(order);
    }
    warn_estimates(plan, &r.estimated_models);
    super::out(&render::usage(&r, format(a.output), a.layout(plan)));
    Ok(())
}

fn run_ingest(plan: &Plan, a: IngestArgs) -> anyhow::Result<()> {
    if a.rebuild {
        return run_rebuild(plan, a);
    }
    local_ingest(plan, Asked::ByName(a))?;
    if let Some(o) = ingest_now(plan, Waiting::Yes)? {
        println!(
            "{}, {} read ({:.1} MB), {}, {} malformed; {}",
            plural(o.files as u64, "file", "files"),
            o.files_read,
            o.bytes_read as f64 / 1e6,
            plural(o.problems.lines, "line", "lines"),
            o.problems.bad,
            o.requests.map_or_else(
                || "requests unchanged".to_owned(),
                |n| plural(n as u64, "request", "requests") + " stored"
            )
        );
    }
    Ok(())
}

/// `cachewise ingest --rebuild`: every table again from the transcripts; a
/// team directory's rows all come from bundles, so unless `--into-team`
/// says to read local transcripts into it, its rows are priced again a
/// person at a time (`update::reprice_team`).
fn run_rebuild(plan: &Plan, a: IngestArgs) -> anyhow::Result<()> {
    if plan.store.holds_bundles() && !a.into_team {
        let r = crate::update::reprice_team(&plan.store, &plan.prices, &Bar::new(plan.quiet))?;
        super::out(&format!(
            "priced the team directory again with this price table: {} of {}\n",
            plural(r.requests as u64, "request", "requests"),
            plural(r.people as u64, "person", "people")
        ));
        return Ok(());
    }
    let roots = plan.roots.clone();
    let o = crate::update::rebuild(&roots, &plan.store, &plan.prices, &Bar::new(plan.quiet), plan.now)?;
    super::out(&format!(
        "rebuilt the store from {} ({:.1} MB, {}): {} stored\n",
        plural(o.files as u64, "transcript", "transcripts"),
        o.bytes_read as f64 / 1e6,
        plural(o.problems.bad, "malformed line", "malformed lines"),
        plural(o.requests.unwrap_or(0) as u64, "request", "requests")
    ));
    store_notes(&o);
    if let Some(r) = &o.rebuilt {
        super::out(&r.describe());
    }
    Ok(())
}

fn run_summary(plan: &Plan) -> anyhow::Result<()> {
    refresh(plan)?;
    let s = summary::summary(&plan.view()?, &Query::new(plan.tz))?;
    warn_estimates(plan, &s.estimated_models);
    super::out(&summary::render(&s));
    Ok(())
}

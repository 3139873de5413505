//! The team commands: `export` (a bundle; `--otlp` is `cli::otlp`),
//! `import`, `push` and `report team`: their
//! clap arguments and one thin `run_*` each, calling `team::` and
//! `report::team`. Also the `report` positional (`ReportKind`: a usage
//! grouping or `team`). Whether local transcripts are read first is
//! `policy::local_ingest`'s decision.

use super::plan::Plan;
use super::run::refresh;
use super::{ReportOpts, UsageError};
use crate::model::NameFault;
use crate::report::labels::plural;
use crate::report::query::Grouping;
use crate::report::team::{self as team_report, window_warning, TeamFormat};
use crate::team::export::{default_machine, write_file};
use crate::team::file::Written;
use crate::team::hash::PathHasher;
use crate::team::limits::{self, BundleLimits};
use crate::team::{self, push, ExportSpec};
use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// What `cachewise report` shows: a usage grouping, or the team report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    Usage(Grouping),
    Team,
    /// 5-hour windows (`report blocks`).
    Blocks,
}

impl ValueEnum for ReportKind {
    fn value_variants<'a>() -> &'a [Self] {
        use Grouping::*;
        &[
            ReportKind::Usage(Daily),
            ReportKind::Usage(Weekly),
            ReportKind::Usage(Monthly),
            ReportKind::Usage(Session),
            ReportKind::Usage(Project),
            ReportKind::Usage(Model),
            ReportKind::Usage(Source),
            ReportKind::Team,
            ReportKind::Blocks,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        match self {
            ReportKind::Usage(g) => g.to_possible_value(),
            ReportKind::Team => Some(PossibleValue::new("team").help("spend per person and active day (team pilots)")),
            ReportKind::Blocks => {
                Some(PossibleValue::new("blocks").help("5-hour windows: cost, burn rate, projection"))
            }
        }
    }
}

/// Flags only `report team` reads.
#[derive(Debug, Args, Clone, Copy)]
pub struct TeamReportFlags {
    /// Print Markdown fit to paste into a pilot write-up (report team only).
    #[arg(long, conflicts_with_all = ["json", "csv"])]
    pub md: bool,
    /// With --csv: one row per person (and a total row) instead of one row
    /// per person per active day (report team only).
    #[arg(long, requires = "csv")]
    pub csv_summary: bool,
}

/// `--hash-paths` and its key.
#[derive(Debug, Args, Clone)]
pub struct HashArgs {
    /// Replace project paths, cwd, branch names and source paths with stable
    /// keyed hashes.
    #[arg(long)]
    pub hash_paths: bool,
    /// Key for --hash-paths (a team may share one so projects hash alike).
    /// Default: a random per-user key kept in the data directory.
    #[arg(long, value_name = "KEY", env = "CACHEWISE_HASH_KEY", hide_env_values = true)]
    pub hash_key: Option<String>,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
cachewise export --user ana --out ana.parquet            a bundle for the team lead\n  \
cachewise export --user ana --otlp http://localhost:4318  to an OpenTelemetry collector\n  \
OTEL_EXPORTER_OTLP_ENDPOINT=https://otel.example \\\n    \
OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20TOKEN cachewise export --user ana --otlp")]
pub struct ExportArgs {
    /// Whose rows these are: the name the team report shows. Default: your
    /// login name ($USER).
    #[arg(long, value_name = "NAME", value_parser = non_empty)]
    pub user: Option<String>,
    /// This machine's name. Default: the host name.
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Only requests on or after this day (YYYY-MM-DD or YYYYMMDD, in --tz).
    #[arg(long, short = 's', value_name = "DATE", value_parser = crate::config::parse_date)]
    pub since: Option<NaiveDate>,
    /// Only requests on or before this day (YYYY-MM-DD or YYYYMMDD, in --tz).
    #[arg(long, short = 'u', value_name = "DATE", value_parser = crate::config::parse_date)]
    pub until: Option<NaiveDate>,
    #[command(flatten)]
    pub hash: HashArgs,
    /// The bundle to write (one Parquet file; see docs/bundle-schema.md).
    /// `-` writes it to stdout. A symbolic link is followed and its target
    /// replaced (the link is kept); a device node, FIFO or directory is
    /// refused.
    #[arg(
        long,
        value_name = "FILE",
        allow_hyphen_values = true,
        required_unless_present = "otlp",
        conflicts_with = "otlp"
    )]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Bundle files, or directories of them (*.parquet).
    #[arg(value_name = "FILE|DIR", required = true)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Caps on what one bundle may expand to (import, and pushes to serve --team).
#[derive(Debug, Args, Clone, Copy)]
pub struct LimitArgs {
    /// Refuse a bundle of more rows than this.
    #[arg(long, value_name = "N", default_value_t = limits::DEFAULT_MAX_ROWS)]
    pub max_bundle_rows: u64,
    /// Refuse a bundle that decompresses to more bytes than this.
    #[arg(long, value_name = "BYTES", default_value_t = limits::DEFAULT_MAX_DECOMPRESSED)]
    pub max_bundle_bytes: u64,
}

impl LimitArgs {
    pub fn limits(self) -> BundleLimits {
        BundleLimits { rows: self.max_bundle_rows, decompressed: self.max_bundle_bytes, ..BundleLimits::default() }
    }
}

#[derive(Debug, Args)]
pub struct PushArgs {
    /// The team server's base URL (https://... in production).
    #[arg(long, value_name = "URL")]
    pub server: String,
    /// Your bearer token, from the team lead's tokens file.
    #[arg(long, value_name = "TOKEN", env = "CACHEWISE_TOKEN", hide_env_values = true)]
    pub token: String,
    /// Your name in the bundle (the server files rows under the token's user).
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// This machine's name. Default: the host name.
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    #[command(flatten)]
    pub hash: HashArgs,
    /// Send every row, not only those since the last push (still counted once).
    #[arg(long)]
    pub all: bool,
}

/// The name rows go under: `--user` when given, else the login name
/// (`$USER`, then `$LOGNAME`).
pub(super) fn login_name(given: Option<&str>) -> Result<String, UsageError> {
    let login = || ["USER", "LOGNAME"].iter().find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()));
    match given.map(str::to_owned).or_else(login) {
        Some(name) => Ok(name.trim().to_owned()),
        None => Err(UsageError("give --user NAME: no login name in $USER or $LOGNAME".into())),
    }
}

fn non_empty(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        Err("must not be empty".into())
    } else {
        Ok(s.trim().to_owned())
    }
}

/// A user or machine name for a bundle: a name (`model::name`, the rule
/// import holds a bundle's names to) on one line, as it starts every row of
/// the team tables (a newline would end a Markdown row).
fn check_name(flag: &str, name: &str) -> Result<(), UsageError> {
    match crate::model::line_name_fault(name) {
        None => Ok(()),
        Some(f @ NameFault::Char(_)) => Err(UsageError(format!(
            "{flag} \"{}\" {f}; the name is shown in team reports, so use printable characters only",
            name.escape_debug()
        ))),
        Some(f @ NameFault::TooLong(_)) => Err(UsageError(format!("{flag} {f}"))),
    }
}

/// The days an export covers: first and last, local days in the plan's zone.
type Days = (Option<NaiveDate>, Option<NaiveDate>);

fn spec(plan: &Plan, user: String, machine: Option<&str>, days: Days, h: &HashArgs) -> anyhow::Result<ExportSpec> {
    let machine = machine.map_or_else(default_machine, str::to_owned);
    check_name("--user", &user)?;
    check_name("--machine", &machine)?;
    let hasher = match (h.hash_paths, &h.hash_key) {
        (false, _) => None,
        (true, Some(k)) => Some(PathHasher::from_key(k)),
        (true, None) => Some(PathHasher::from_data_dir(plan.store.dir())?),
    };
    let since = days.0.map(|d| start_of_day(plan, d));
    // Before the start of the day after the last: the whole last day.
    let until = days.1.map(|d| d.succ_opt().map_or(DateTime::<Utc>::MAX_UTC, |next| start_of_day(plan, next)));
    Ok(ExportSpec { user, machine, since, until, hasher, created: Utc::now() })
}

fn start_of_day(plan: &Plan, d: NaiveDate) -> DateTime<Utc> {
    let local = d.and_time(NaiveTime::MIN);
    plan.tz.from_local_datetime(&local).earliest().map_or_else(|| local.and_utc(), |t| t.with_timezone(&Utc))
}

/// `cachewise export`.
pub(super) fn run_export(plan: &Plan, a: &ExportArgs) -> anyhow::Result<()> {
    if let Some(endpoint) = &a.otlp.otlp {
        return super::otlp::run_otlp(plan, a, endpoint);
    }
    let Some(out) = &a.out else { return Err(UsageError("give --out FILE or --otlp URL".into()).into()) };
    refresh(plan)?;
    let spec = spec(plan, login_name(a.user.as_deref())?, a.machine.as_deref(), (a.since, a.until), &a.hash)?;
    let team::export::Exported { bundle, renamed } =
        team::export::export_with_analysis(&plan.store, &spec, &plan.prices)?;
    if let Some(note) = renamed.describe() {
        super::note(&format!("export: {note}"));
    }
    let written = write_file(&bundle, out)?;
    let hashed = if spec.hasher.is_some() { ", paths hashed" } else { "" };
    let line = |to: &str| {
        let (requests, compactions) = (bundle.requests.len() as u64, bundle.compactions.len() as u64);
        format!(
            "wrote {} and {} of {}@{} to {to}{hashed}",
            plural(requests, "request", "requests"),
            plural(compactions, "compaction", "compactions"),
            spec.user,
            spec.machine
        )
    };
    match written {
        // The bundle went to stdout: the summary goes to stderr.
        Written::Stdout => super::note(&line("stdout")),
        Written::File(f) if f == *out => super::out(&format!("{}\n", line(&out.display().to_string()))),
        Written::File(f) => {
            super::out(&format!("{}\n", line(&format!("{} (the target of {})", f.display(), out.display()))));
        }
    }
    Ok(())
}

/// `cachewise import`: never ingests local transcripts.
pub(super) fn run_import(plan: &Plan, a: &ImportArgs) -> anyhow::Result<()> {
    let bar = super::progress::Bar::bundles(plan.quiet);
    let o = team::import_files(&plan.store, &a.paths, &a.limits.limits(), &plan.prices, Utc::now(), &bar)?;
    super::out(&super::imported::describe_import(&o, &plan.store.dir().display().to_string()));
    Ok(())
}

/// `cachewise push`.
pub(super) fn run_push(plan: &Plan, a: &PushArgs) -> anyhow::Result<()> {
    refresh(plan)?;
    if let Some(w) = push::plain_http_warning(&a.server) {
        if !plan.quiet {
            eprintln!("warning: {w}");
        }
    }
    // The server files the rows under the token's user: a bundle's own name
    // is a label, so a machine without a login name still pushes.
    let user = login_name(a.user.as_deref()).unwrap_or_else(|_| "unknown".to_owned());
    let spec = spec(plan, user, a.machine.as_deref(), (None, None), &a.hash)?;
    let o = push::push(&plan.store, &a.server, &a.token, spec, a.all)?;
    if let (Some(note), Some(_)) = (&o.renamed, &o.server) {
        super::note(&format!("push: {note}"));
    }
    match &o.server {
        None => println!("nothing new to push to {}", a.server),
        Some(s) => println!(
            "pushed {} and {} ({} bytes) to {}: {} new, {} already there; the team store holds {}",
            plural(o.requests as u64, "request", "requests"),
            plural(o.compactions as u64, "compaction", "compactions"),
            o.bytes,
            a.server,
            s.added,
            s.already_present,
            plural(s.requests_after as u64, "request", "requests")
        ),
    }
    Ok(())
}

/// `cachewise report team`.
pub(super) fn run_team_report(plan: &Plan, a: &ReportOpts) -> anyhow::Result<()> {
    if a.output.ccusage() {
        return Err(UsageError(super::run::CCUSAGE_SHAPES.into()).into());
    }
    refresh(plan)?;
    let q = a.filter.query(plan.tz, false);
    let r = team_report::team(&plan.view()?, &q)?;
    super::run::warn_estimates(plan, &r.estimated_models);
    let format = match (a.team.md, a.output.json, a.output.csv, a.team.csv_summary) {
        (true, ..) => TeamFormat::Markdown,
        (_, true, ..) => TeamFormat::Json,
        (_, _, true, true) => TeamFormat::CsvSummary,
        (_, _, true, false) => TeamFormat::Csv,
        _ => TeamFormat::Table(a.layout(plan)),
    };
    // The table and the Markdown carry the warning among their notes.
    if let (false, Some(w)) =
        (plan.quiet || matches!(format, TeamFormat::Table(_) | TeamFormat::Markdown), window_warning(&r))
    {
        super::note(&format!("warning: {w}"));
    }
    super::out(&team_report::render(&r, format));
    Ok(())
}

/// `--md` and `--csv-summary` belong to `report team`.
pub(super) fn check_usage_flags(a: &ReportOpts) -> Result<(), UsageError> {
    for (given, flag) in [(a.team.md, "--md"), (a.team.csv_summary, "--csv-summary")] {
        if given {
            return Err(UsageError(format!("{flag} is only for `cachewise report team`")));
        }
    }
    Ok(())
}

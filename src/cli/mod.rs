//! The command line: clap definitions, the resolved `Plan`, and one short
//! `run_*` per subcommand that calls into `update` (ingest, rebuild), `team`
//! (export, import, push), `materialize::view` and `report`, or into
//! `statusline`, `hook`, `otlp` and `web`.

mod blocks;
mod cache;
mod hook;
mod imported;
mod otlp;
mod plan;
mod policy;
mod progress;
mod run;
mod serve;
mod statusline;
mod team;

pub use plan::{Plan, UsageError};
pub use run::run;

use crate::report::fit::Layout;
use crate::report::order::Order;
use crate::report::query::Query;
use chrono_tz::Tz;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Prints `text` to stdout, stripped of terminal controls (`report::term`).
/// A reader that stopped early (`cachewise cache --json | head`) ends the
/// program quietly, as Unix tools do, instead of a panic.
pub(crate) fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(crate::report::term::clean(text).as_bytes()).and_then(|()| stdout.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }
}

/// Prints `value` to stdout as `report::term::json` would, written as it
/// is serialised (a report of a team's sessions is tens of megabytes).
pub(crate) fn out_json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match crate::report::term::write_json(value, stdout) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        // A value serde cannot write (not the terminal's fault).
        Err(e) if e.get_ref().is_some_and(|i| i.is::<serde_json::Error>()) => Err(e.into()),
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }
}

/// Prints one line to stderr, stripped of terminal controls (`report::term`).
pub(crate) fn note(text: &str) {
    eprintln!("{}", crate::report::term::clean(text));
}

/// Exit code for bad command-line usage.
pub const EXIT_USAGE: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "cachewise",
    version,
    about = "Claude Code cost and prompt-cache dashboard",
    long_about = "cachewise reads the usage metadata of your Claude Code transcripts \
(~/.claude/projects/**.jsonl), keeps it as Parquet tables, and reports what you spent, \
what the prompt cache saved, and what expired caches cost you.\n\n\
Run without a command for a short summary. Every report first ingests what changed \
since the last run (use --no-ingest to skip). Message content is never read into the store. \
cachewise never goes online: prices are built in (--pricing FILE adds your own), so \
--offline is accepted and changes nothing.\n\n\
ccusage habits work: `cachewise daily|weekly|monthly|session|blocks` are `cachewise report ...`, \
with -s/--since, -u/--until, -j/--json, -z/--tz, -b/--breakdown, -o/--order, --compact, \
--start-of-week and dates as YYYYMMDD or YYYY-MM-DD.",
    after_help = "Examples:\n  cachewise                          summary: today, 7 and 30 days, top sessions\n  \
cachewise report daily --since 2026-11-01\n  cachewise daily -s 20261101 -o desc    the same report, ccusage style\n  \
cachewise report session --json\n  \
cachewise report model --breakdown --csv\n  cachewise prices --json\n  \
cachewise --claude-dir ~/backup/.claude report monthly"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options accepted before or after any subcommand.
#[derive(Debug, Args, Clone)]
pub struct Global {
    /// A Claude config directory holding projects/ (repeatable). Default:
    /// $CLAUDE_CONFIG_DIR (comma-separated), else ~/.config/claude and ~/.claude.
    #[arg(long = "claude-dir", value_name = "DIR", global = true)]
    pub claude_dir: Vec<PathBuf>,
    /// Where cachewise keeps its tables. Default: $CACHEWISE_DATA_DIR, else the
    /// XDG data directory's cachewise/.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Time zone for days, weeks and months, and for the times the terminal
    /// prints (IANA name; JSON times stay UTC). Default: local.
    #[arg(long, short = 'z', value_name = "IANA", global = true)]
    pub tz: Option<String>,
    /// Accepted for ccusage's habit: cachewise never goes online (its
    /// prices are built in), so this changes nothing.
    #[arg(long, global = true)]
    pub offline: bool,
    /// Report on the stored tables without reading transcripts first.
    #[arg(long, global = true)]
    pub no_ingest: bool,
    /// Print no progress or warnings, only results and errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// A TOML price file that overrides or extends the built-in prices.
    #[arg(long, value_name = "FILE", global = true)]
    pub pricing: Option<PathBuf>,
    /// The clock every figure of this run is computed at (RFC 3339): stale
    /// sessions, warm or cold, "today", the active block (a dashboard
    /// keeps that time while it runs). Default: now.
    #[arg(long, value_name = "RFC3339", global = true, value_parser = cache::parse_now)]
    pub now: Option<chrono::DateTime<chrono::Utc>>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Prompt-cache analysis: misses and their causes, idle gaps against the
    /// 5-minute and 1-hour TTLs, what the other TTL would have cost, stale
    /// sessions ranked by what resuming them costs.
    Cache(cache::CacheArgs),
    /// For one session, now: the cost of resuming, compacting first or
    /// restarting over the next N turns, and which to choose.
    Advise(cache::AdviseArgs),
    /// Usage and cost per day, week, month, session, project or model, or
    /// per person and active day (`report team`, for team pilots).
    Report(ReportArgs),
    /// Same as `report daily` (ccusage's name).
    Daily(ReportOpts),
    /// Same as `report weekly` (ccusage's name).
    Weekly(ReportOpts),
    /// Same as `report monthly` (ccusage's name).
    Monthly(ReportOpts),
    /// Same as `report session` (ccusage's name).
    Session(ReportOpts),
    /// Same as `report blocks` (ccusage's name).
    Blocks(ReportOpts),
    /// Read new transcript lines into the store, and print what was read.
    Ingest(policy::IngestArgs),
    /// Serve the dashboard (cost per day and session, cache timelines, stale
    /// sessions, resume advice) and keep ingesting as transcripts change.
    Serve(serve::ServeArgs),
    /// Write your requests and compactions as a team bundle (Parquet, no
    /// message content) for a lead to import, or send them to an
    /// OpenTelemetry collector (--otlp URL).
    Export(team::ExportArgs),
    /// Merge team bundles into a data directory (--data-dir TEAM_DIR),
    /// counting each request once.
    Import(team::ImportArgs),
    /// Send your rows since the last push to a team server.
    Push(team::PushArgs),
    /// For Claude Code's status line: reads its JSON on stdin and prints one
    /// line (cache warm or cold, cold-resume premium, session and today's
    /// spend, 5-hour limit use); --install adds it to Claude Code's settings.
    Statusline(statusline::StatuslineArgs),
    /// For Claude Code's hooks: `hook session-start` answers a resume or
    /// fork with the advice for you (never for the model).
    Hook(hook::HookArgs),
    /// Add cachewise's hooks to Claude Code's settings.json (--install) or
    /// print them (--print-config): the advice on resume, and a quiet ingest
    /// when a session ends so its history outlives Claude Code's cleanup.
    Hooks(hook::HooksArgs),
    /// List the price table this run uses (built in, plus --pricing FILE):
    /// prices, fast and read multipliers, long-context rule, source and date.
    Prices(PricesArgs),
}

#[derive(Debug, Args)]
pub struct PricesArgs {
    /// Print JSON (keys in docs/reports.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub layout: LayoutArgs,
}

/// Output format flags shared by commands that print tables.
#[derive(Debug, Args, Clone, Copy)]
pub struct OutputArgs {
    /// Print JSON (keys in docs/reports.md).
    #[arg(long, short = 'j', conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV: the JSON rows' columns, one row per JSON row.
    #[arg(long)]
    pub csv: bool,
    /// With --json: `ccusage` prints daily, monthly and session reports in
    /// ccusage 20's JSON shape, for scripts written for it (cachewise's
    /// figures; docs/ccusage.md says where they differ).
    #[arg(long, value_enum, value_name = "SHAPE", requires = "json")]
    pub json_format: Option<JsonShape>,
}

/// The shape of `--json` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum JsonShape {
    /// cachewise's own keys (docs/reports.md).
    Cachewise,
    /// ccusage 20's keys (daily, monthly and session reports).
    Ccusage,
}

impl OutputArgs {
    /// ccusage's JSON shape was asked for.
    pub fn ccusage(&self) -> bool {
        self.json_format == Some(JsonShape::Ccusage)
    }
}

/// How terminal tables are laid out.
#[derive(Debug, Args, Clone, Copy)]
pub struct LayoutArgs {
    /// Every column and unbroken sentences, whatever the terminal's width
    /// (tables otherwise fit $COLUMNS or the terminal, leaving out the less
    /// used columns, and sentences break between words).
    #[arg(long, conflicts_with = "compact")]
    pub wide: bool,
    /// Only the essential columns (ccusage's --compact).
    #[arg(long)]
    pub compact: bool,
}

impl LayoutArgs {
    /// The table layout: the plan's width unless --wide; --compact.
    pub fn layout(&self, plan: &Plan) -> Layout {
        let width = if self.wide { None } else { plan.width };
        Layout { width, compact: self.compact, tz: plan.tz }
    }
}

/// Filters shared by reports.
#[derive(Debug, Args, Clone)]
pub struct FilterArgs {
    /// First day included (YYYY-MM-DD or YYYYMMDD, in --tz).
    #[arg(long, short = 's', value_name = "DATE", value_parser = crate::config::parse_date)]
    pub since: Option<chrono::NaiveDate>,
    /// Last day included (YYYY-MM-DD or YYYYMMDD, in --tz).
    #[arg(long, short = 'u', value_name = "DATE", value_parser = crate::config::parse_date)]
    pub until: Option<chrono::NaiveDate>,
    /// Only projects whose directory or cwd contains this text.
    #[arg(long, value_name = "TEXT")]
    pub project: Option<String>,
    /// Only this person's requests (a team data directory's user name).
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
}

impl FilterArgs {
    /// An empty range is a mistake, not an empty report.
    pub fn check(&self) -> Result<(), plan::UsageError> {
        match (self.since, self.until) {
            (Some(s), Some(u)) if s > u => {
                Err(plan::UsageError(format!("--since {s} is after --until {u}, so no day would be shown; swap them")))
            }
            _ => Ok(()),
        }
    }

    /// The report query these flags select, days in `tz`.
    pub fn query(&self, tz: Tz, breakdown: bool) -> Query {
        Query {
            since: self.since,
            until: self.until,
            tz,
            project: self.project.clone(),
            breakdown,
            user: self.user.clone(),
            week_start: chrono::Weekday::Mon,
        }
    }
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// What to group by, or `team` for the team report.
    #[arg(value_enum)]
    pub kind: team::ReportKind,
    #[command(flatten)]
    pub opts: ReportOpts,
}

/// `--start-of-week`, one flag for `report` and `serve`.
#[derive(Debug, Args)]
pub struct WeekArgs {
    /// The day weeks start on (monday, tuesday, ... sunday): the weekly
    /// report's weeks, and the dashboard's "per week" unless a page asks.
    #[arg(long, value_name = "DAY", default_value = "monday", value_parser = crate::config::parse_weekday)]
    pub start_of_week: chrono::Weekday,
}

/// The flags of `report` (and of its aliases `daily`, `weekly`, ...).
#[derive(Debug, Args)]
pub struct ReportOpts {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// One sub-row per model (fast mode apart: `claude-opus-4-8 (fast)`).
    #[arg(long, short = 'b')]
    pub breakdown: bool,
    /// Rows by time: asc (oldest first, the default for days, weeks,
    /// months and blocks) or desc (newest first). Sessions, projects and
    /// models are by cost, highest first, unless --order is given; then by
    /// their last request.
    #[arg(long, short = 'o', value_enum, value_name = "ORDER")]
    pub order: Option<Order>,
    #[command(flatten)]
    pub week: WeekArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub team: team::TeamReportFlags,
}

impl ReportOpts {
    /// The report query these flags select, days in `tz`.
    pub fn query(&self, tz: Tz) -> Query {
        Query { week_start: self.week.start_of_week, ..self.filter.query(tz, self.breakdown) }
    }

    /// The table layout: the plan's width unless --wide; --compact.
    pub fn layout(&self, plan: &Plan) -> Layout {
        self.layout.layout(plan)
    }
}

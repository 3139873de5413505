//! A report query: raw CLI or web parameters become a `Query` once, and the
//! query turns the stored `requests` table into a filtered lazy frame with
//! the grouping `key` and `sub` columns the usage sums are per
//! (`report::usage::sums`, `sql/usage_by_key.sql`).
//! `Query::accepts_parts` is the same filter over one row's user, project,
//! cwd and time (the compactions a cache report counts).

use crate::model::columns as c;
use chrono::{DateTime, NaiveDate, Utc, Weekday};
use chrono_tz::Tz;
use polars::prelude::*;

/// What a usage report groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grouping {
    Daily,
    Weekly,
    Monthly,
    Session,
    Project,
    Model,
    /// What made each call, as Claude Code (2.1.33x) records it
    /// (`querySource`): the main conversation, sub-agents, compactions,
    /// side calls; older transcripts' calls are "(not recorded)".
    Source,
}

impl Grouping {
    /// The JSON key naming a row's group.
    pub fn key_name(self) -> &'static str {
        match self {
            Grouping::Daily | Grouping::Weekly | Grouping::Monthly => "period",
            Grouping::Session => "session_id",
            Grouping::Project => "project",
            Grouping::Model => "model",
            Grouping::Source => "source",
        }
    }

    /// Periods sort by time; the others by cost, highest first.
    pub fn is_period(self) -> bool {
        matches!(self, Grouping::Daily | Grouping::Weekly | Grouping::Monthly)
    }

    /// A grouped result with its period `key` as text: `2026-02-11` (a day,
    /// or a week's Monday) or `2026-02` (a month). Other keys are text already.
    pub fn key_text(self, df: DataFrame) -> PolarsResult<DataFrame> {
        let format = match self {
            Grouping::Daily | Grouping::Weekly => "%Y-%m-%d",
            Grouping::Monthly => "%Y-%m",
            _ => return Ok(df),
        };
        df.lazy().with_column(col(c::KEY).dt().strftime(format)).collect()
    }
}

/// What a request's model is called in reports: its id, and ` (fast)`
/// after it when the request ran in fast mode (`usage.speed`), so fast
/// and standard spend of one model are told apart.
pub fn model_label() -> Expr {
    when(col(c::SPEED).eq(lit(FAST))).then(col(c::MODEL) + lit(FAST_SUFFIX)).otherwise(col(c::MODEL))
}

/// The row's `query_source`, or `NOT_RECORDED` where Claude Code wrote
/// none (`StoreView::requests` always has the column).
fn source_label() -> Expr {
    when(col(c::QUERY_SOURCE).eq(lit(""))).then(lit(NOT_RECORDED)).otherwise(col(c::QUERY_SOURCE))
}

/// The source of a call Claude Code wrote no record of.
const NOT_RECORDED: &str = "(not recorded)";

/// `model_label` over one row's model and speed.
pub fn label(model: &str, speed: &str) -> String {
    if speed == FAST {
        format!("{model}{FAST_SUFFIX}")
    } else {
        model.to_owned()
    }
}

/// The model id of a label (`model_label`'s inverse).
pub fn model_id(label: &str) -> &str {
    label.strip_suffix(FAST_SUFFIX).unwrap_or(label)
}

/// The `usage.speed` of fast mode.
pub const FAST: &str = "fast";
/// What `model_label` appends to a fast-mode request's model.
pub const FAST_SUFFIX: &str = " (fast)";

/// Filters shared by every report.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Query {
    /// First local day included.
    pub since: Option<NaiveDate>,
    /// Last local day included.
    pub until: Option<NaiveDate>,
    pub tz: Tz,
    /// Substring of the project directory or cwd.
    pub project: Option<String>,
    /// One sub-row per model.
    pub breakdown: bool,
    /// Exactly this person (the `user` column of imported team bundles).
    pub user: Option<String>,
    /// The day weeks start on (weekly reports; ccusage's `--start-of-week`).
    pub week_start: Weekday,
}

impl Query {
    pub fn new(tz: Tz) -> Query {
        Query { since: None, until: None, tz, project: None, breakdown: false, user: None, week_start: Weekday::Mon }
    }

    /// True when the query selects every request of the people it selects
    /// (no days, no project).
    pub fn whole_history(&self) -> bool {
        self.since.is_none() && self.until.is_none() && self.project.is_none()
    }

    /// True when `prepare` would keep a row of this user, project, cwd and
    /// time: the same day, project and user filters in memory.
    pub fn accepts_parts(&self, user: &str, project: &str, cwd: &str, time: DateTime<Utc>) -> bool {
        if self.user.as_ref().is_some_and(|u| user != u) {
            return false;
        }
        if let Some(p) = &self.project {
            if !project.contains(p.as_str()) && !cwd.contains(p.as_str()) {
                return false;
            }
        }
        if self.since.is_none() && self.until.is_none() {
            return true;
        }
        let day = time.with_timezone(&self.tz).date_naive();
        self.since.is_none_or(|s| day >= s) && self.until.is_none_or(|u| day <= u)
    }

    /// A row's local day. Dates, not text: formatting every row was a fifth
    /// of a report's time (`key_text` formats the few grouped keys after).
    /// In UTC a day is the instant's own date: a cast, without a zone
    /// lookup per row.
    fn day(&self) -> PolarsResult<Expr> {
        Ok(match self.tz {
            Tz::UTC | Tz::Etc__UTC => {
                col(c::TIME).cast(DataType::Datetime(TimeUnit::Milliseconds, None)).cast(DataType::Date)
            }
            _ => self.local_time()?.dt().date(),
        })
    }

    fn local_time(&self) -> PolarsResult<Expr> {
        let tz = TimeZone::opt_try_new(Some(self.tz.name()))?.unwrap_or(TimeZone::UTC);
        Ok(col(c::TIME).dt().convert_time_zone(tz))
    }

    /// The requests this query selects, with `key` and `sub` added.
    pub fn prepare(&self, requests: LazyFrame, grouping: Grouping) -> PolarsResult<LazyFrame> {
        self.keyed(self.filter(requests)?, grouping)
    }

    /// `requests` with `key` and `sub` added, none left out (`prepare`
    /// without the filter, for rows a filter has already selected).
    pub fn keyed(&self, requests: LazyFrame, grouping: Grouping) -> PolarsResult<LazyFrame> {
        let local = self.local_time()?;
        let day = self.day()?;
        let key = match grouping {
            Grouping::Daily => day,
            Grouping::Weekly => self.week(day.clone()),
            Grouping::Monthly => local.dt().truncate(lit("1mo")).dt().date(),
            Grouping::Session => col(c::SESSION_ID),
            Grouping::Project => col(c::PROJECT),
            Grouping::Model => model_label(),
            Grouping::Source => source_label(),
        };
        let sub = if self.breakdown { model_label() } else { lit("") };
        Ok(requests.with_columns([key.alias(c::KEY), sub.alias(c::SUB)]))
    }

    /// The first day of the week of a local day, in days since 1970-01-01
    /// (a Thursday, so a Monday's number plus 3 is a multiple of 7): the
    /// day less its distance from the week's first day.
    fn week(&self, day: Expr) -> Expr {
        let shift = i32::try_from(self.week_start.num_days_from_monday()).unwrap_or(0);
        let n = day.cast(DataType::Int32);
        (n.clone() - (n + lit(10 - shift)) % lit(7)).cast(DataType::Date)
    }

    /// The requests this query selects (days, project, user).
    pub fn filter(&self, requests: LazyFrame) -> PolarsResult<LazyFrame> {
        let day = self.day()?;
        let mut lf = requests;
        if let Some(s) = self.since {
            lf = lf.filter(day.clone().gt_eq(lit(s)));
        }
        if let Some(u) = self.until {
            lf = lf.filter(day.clone().lt_eq(lit(u)));
        }
        if let Some(p) = &self.project {
            let hit = |name: &str| col(name).str().contains_literal(lit(p.clone()));
            lf = lf.filter(hit(c::PROJECT).or(hit(c::CWD)));
        }
        if let Some(u) = &self.user {
            lf = lf.filter(col(c::USER).eq(lit(u.clone())));
        }
        Ok(lf)
    }
}

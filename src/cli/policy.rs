//! The one ingest policy every writer obeys (`ingest`, `serve`, `report`,
//! `cache`, `advise`, the summary, `export`, `push`; `import` is the other
//! direction and refuses a store of local transcripts itself): may this
//! machine's transcripts be read into the data directory now?
//!
//! - `--no-ingest`: no.
//! - A team data directory (it holds imported or pushed bundles, or
//!   `serve --team` runs on it): not unless asked by name with
//!   `cachewise ingest --into-team`; reports and `serve` say so and go on
//!   with the stored rows, a bare `cachewise ingest` refuses.
//! - Otherwise: yes.
//!
//! Even when asked, the rows read are the local user's (`""`): a transcript
//! read again whole replaces only its own earlier local rows, never a
//! team member's rows that name the same file (`ingest::touched`), so no
//! writer relabels another user's rows.

use super::plan::{Plan, UsageError};
use clap::Args;

/// Flags of `cachewise ingest`.
#[derive(Debug, Args, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngestArgs {
    /// Read this machine's transcripts into a team data directory too (as
    /// rows of no user, beside the team's).
    #[arg(long)]
    pub into_team: bool,
    /// Rebuild every table from the transcripts (after damage: a report
    /// says when). Rows of transcripts deleted since are kept from the tables
    /// that still read, and what could not be kept is listed. In a team
    /// directory: price every person's rows again with this price table
    /// (after an upgrade, when reports warn of another table).
    #[arg(long)]
    pub rebuild: bool,
}

/// Who wants the transcripts read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asked {
    /// A report, `serve`, `export` or `push` reading first, as they do.
    Implicitly,
    /// `cachewise ingest`, with its flags.
    ByName(IngestArgs),
}

/// True when the local transcripts are read into `plan`'s store now; a
/// note on stderr when a team directory is left alone, an error when
/// `cachewise ingest` was asked without `--into-team`.
pub(super) fn local_ingest(plan: &Plan, asked: Asked) -> Result<bool, UsageError> {
    let team_dir = plan.store.holds_bundles();
    match asked {
        Asked::ByName(_) | Asked::Implicitly if !team_dir => Ok(asked != Asked::Implicitly || plan.ingest),
        Asked::ByName(a) if a.into_team => Ok(true),
        Asked::ByName(_) => Err(UsageError(format!(
            "{} is a team data directory (it holds imported or pushed bundles); reading this machine's \
transcripts into it would mix them with the team's rows. Export them instead (`cachewise export --user NAME`) \
and import the bundle, or pass --into-team to read them in as rows of no user.",
            plan.store.dir().display()
        ))),
        Asked::Implicitly => {
            if plan.ingest && !plan.quiet {
                super::note(&format!(
                    "note: {} holds imported team bundles; not reading local transcripts into it (`cachewise ingest --into-team` would)\n",
                    plan.store.dir().display()
                ));
            }
            Ok(false)
        }
    }
}

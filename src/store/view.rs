//! `StoreView`: the one reader of a data directory. A report, a page build
//! or a status-line call opens one view, and everything it shows comes
//! from it, as of one version of the store and one clock:
//!
//! - scans of the two-part tables (requests and analysis, `store::parts`),
//!   over the files opened when the view was opened, so a writer that
//!   replaces them meanwhile changes nothing the view reads;
//! - the small tables (titles, calls, compactions, refusals, session totals,
//!   the analysis side tables), each opened with the others and decoded at
//!   most once, when first asked for;
//! - the manifest, the plan-limit samples, the price table of this run,
//!   `now`, and what Claude Code's settings and transcripts said
//!   (`ClaudeState`, for which sessions can still be resumed).
//!
//! A view is cheap to clone (its tables are shared), and `at` gives the
//! same data at another clock. `materialize::view` opens one, computing in
//! memory what is not stored current (an analysis of other prices, costs
//! of another price table); reports take `&StoreView` and never open a file.

mod pinned;

use super::claude::ClaudeState;
use super::files;
use super::frames;
use super::manifest::Manifest;
use super::{samples, Store, StoreError, Table};
use crate::model::columns as c;
use crate::model::limits::{LiveCache, Sample};
use crate::model::{Call, Compaction, Refusal};
use crate::pricing::PriceTable;
use chrono::{DateTime, Utc};
use pinned::{Decoded, Pinned};
use polars::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::sync::{Arc, OnceLock};

/// What identifies one state of a data directory: a fingerprint of every
/// table file's and the manifest's identity (inode, size, modification
/// time). Every write replaces a file by a rename, so any write changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Version(pub u64);

impl Store {
    /// The directory's current `Version` (a few `stat`s).
    pub fn version(&self) -> Version {
        use std::os::unix::fs::MetadataExt;
        let mut key = Vec::with_capacity(512);
        let names = Table::ALL.iter().map(|t| t.file_name()).chain([files::MANIFEST, files::LEDGER]);
        for name in names {
            key.extend_from_slice(name.as_bytes());
            if let Ok(m) = std::fs::metadata(self.dir.join(name)) {
                for n in [m.ino(), m.size(), m.mtime() as u64, m.mtime_nsec() as u64] {
                    key.extend_from_slice(&n.to_le_bytes());
                }
            }
        }
        Version(super::manifest::fingerprint(&key))
    }
}

/// The analysis tables as a view reads them.
#[derive(Clone)]
pub struct AnalysisFrames {
    /// One row per thread request (`analysis.parquet` and its recent part).
    pub rows: LazyFrame,
    /// Compaction labels (`analysis-compactions.parquet`).
    pub labels: DataFrame,
    /// Per session its last main-thread request and compaction report
    /// (`Table::SessionAnalysis`, `analysis-sessions.parquet`).
    pub session_analysis: DataFrame,
}

/// Computes the analysis tables now (not stored), when a view that has no
/// current stored analysis is first asked for them.
pub type ComputeAnalysis = Box<dyn Fn() -> Result<AnalysisFrames, StoreError> + Send + Sync>;

/// Where a view's analysis comes from.
pub enum AnalysisSource {
    /// The stored tables: a scan of the parts opened, and the side tables'
    /// files, opened, decoded when first asked for.
    Stored { rows: Box<LazyFrame>, labels: File, session_analysis: File },
    // (`StoreView::new` turns the files into `Pinned` ones.)
    /// No current stored analysis (other prices, missing, damaged).
    Computed(ComputeAnalysis),
}

/// What `materialize::view` hands a new view: the tables as they are to be
/// read (stored, or computed now).
pub struct Sources {
    /// The requests and how many there are.
    pub requests: Option<(LazyFrame, usize)>,
    /// The calls inside responses when they were priced again in memory
    /// (None: the stored table, read when first asked for).
    pub calls: Option<Vec<Call>>,
    /// The calls Claude Code did not write down, alone (they are among
    /// `requests` too).
    pub unlogged: Option<LazyFrame>,
    pub analysis: AnalysisSource,
}

/// Where a view's analysis comes from, once opened.
enum Source {
    Stored { rows: Box<LazyFrame>, labels: Pinned, session_analysis: Pinned },
    Computed(ComputeAnalysis),
}

struct Inner {
    store: Store,
    prices: PriceTable,
    manifest: Manifest,
    version: Version,
    requests: Option<LazyFrame>,
    unlogged: Option<LazyFrame>,
    /// Rows of `requests` (from the parts' footers).
    request_rows: usize,
    /// Rows of the analysis, counted when first asked for.
    analysis_rows: OnceLock<usize>,
    analysis_source: Source,
    analysis: OnceLock<AnalysisFrames>,
    titles: OnceLock<HashMap<String, String>>,
    project_cwds: OnceLock<HashMap<String, Vec<String>>>,
    calls: Decoded<Vec<Call>>,
    compactions: Decoded<Vec<Compaction>>,
    refusals: Decoded<Vec<Refusal>>,
    session_totals: Decoded<DataFrame>,
    samples: OnceLock<Vec<Sample>>,
    live: OnceLock<Vec<LiveCache>>,
}

/// One version of a data directory as every view reads it; see the module
/// header.
#[derive(Clone)]
pub struct StoreView {
    inner: Arc<Inner>,
    now: DateTime<Utc>,
    claude: Arc<ClaudeState>,
}

impl StoreView {
    /// The view of `store` over `sources` (opened or computed by the
    /// caller just before), with the small tables opened now, as of `now`.
    pub fn new(
        store: &Store,
        prices: &PriceTable,
        manifest: Manifest,
        version: Version,
        sources: Sources,
        now: DateTime<Utc>,
    ) -> Result<StoreView, StoreError> {
        let inner = Inner {
            store: store.clone(),
            prices: prices.clone(),
            manifest,
            version,
            request_rows: sources.requests.as_ref().map_or(0, |(_, n)| *n),
            requests: sources.requests.map(|(lf, _)| with_client_columns(lf)),
            unlogged: sources.unlogged,
            analysis_rows: OnceLock::new(),
            analysis_source: match sources.analysis {
                AnalysisSource::Stored { rows, labels, session_analysis } => {
                    Source::Stored { rows, labels: Pinned::of(labels), session_analysis: Pinned::of(session_analysis) }
                }
                AnalysisSource::Computed(compute) => Source::Computed(compute),
            },
            analysis: OnceLock::new(),
            titles: OnceLock::new(),
            project_cwds: OnceLock::new(),
            calls: Decoded::open(store, Table::Calls)?,
            compactions: Decoded::open(store, Table::Compactions)?,
            refusals: Decoded::open(store, Table::Refusals)?,
            session_totals: Decoded::open(store, Table::SessionTotals)?,
            samples: OnceLock::new(),
            live: OnceLock::new(),
        };
        if let Some(calls) = sources.calls {
            let _ = inner.calls.value.set(calls);
        }
        Ok(StoreView { inner: Arc::new(inner), now, claude: Arc::default() })
    }

    /// The same data as of `now`.
    pub fn at(&self, now: DateTime<Utc>) -> StoreView {
        StoreView { inner: Arc::clone(&self.inner), now, claude: Arc::clone(&self.claude) }
    }

    /// The same view, knowing what Claude Code's side says (`ClaudeState`:
    /// its cleanup period, which transcripts are gone); without it, a view
    /// assumes the default cleanup period and no transcript deleted.
    pub fn with_claude(mut self, claude: ClaudeState) -> StoreView {
        self.claude = Arc::new(claude);
        self
    }

    /// What Claude Code's side said when the view was opened.
    pub fn claude(&self) -> &ClaudeState {
        &self.claude
    }

    /// The clock every figure of this view is computed at.
    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// The price table of this run.
    pub fn prices(&self) -> &PriceTable {
        &self.inner.prices
    }

    /// The manifest as of the view.
    pub fn manifest(&self) -> &Manifest {
        &self.inner.manifest
    }

    /// The store's version the view was opened at.
    pub fn version(&self) -> Version {
        self.inner.version
    }

    /// The data directory (for messages; views read no file by path).
    pub fn dir(&self) -> &std::path::Path {
        self.inner.store.dir()
    }

    /// The requests (None when nothing was stored): a lazy frame, so a
    /// query reads only the columns it uses.
    pub fn requests(&self) -> Option<LazyFrame> {
        self.inner.requests.clone()
    }

    /// The calls Claude Code paid for without writing them down
    /// (`ingest::unlogged`), priced as `requests` has them; None when
    /// there are none. They are among `requests` too.
    pub fn unlogged(&self) -> Option<LazyFrame> {
        self.inner.unlogged.clone()
    }

    /// How many requests `requests` holds (0 without any).
    pub fn request_rows(&self) -> usize {
        self.inner.request_rows
    }

    /// How many rows `analysis` holds, counted once per view (a column's
    /// height: polars 0.55 cannot sum the row counts of a union of scans,
    /// the table's base and recent parts).
    pub fn analysis_rows(&self) -> Result<usize, StoreError> {
        if let Some(n) = self.inner.analysis_rows.get() {
            return Ok(*n);
        }
        let at = |source| StoreError::Polars { path: self.inner.store.path(Table::Analysis), source };
        let n = self.analysis()?.select([col(c::USER)]).collect().map_err(at)?.height();
        Ok(*self.inner.analysis_rows.get_or_init(|| n))
    }

    /// The analysis tables, stored or computed now, the first time only
    /// (no lock is held while they are decoded or computed: see `Pinned`).
    fn analysis_frames(&self) -> Result<&AnalysisFrames, StoreError> {
        let i = &self.inner;
        if let Some(a) = i.analysis.get() {
            return Ok(a);
        }
        let frames = match &i.analysis_source {
            Source::Stored { rows, labels, session_analysis } => {
                let decode = |p: &Pinned, t: Table| {
                    p.frame(&i.store, t)?.ok_or_else(|| StoreError::Missing { path: i.store.path(t), files: 0 })
                };
                let labels = decode(labels, Table::AnalysisCompactions)?;
                let session_analysis = decode(session_analysis, Table::SessionAnalysis)?;
                AnalysisFrames { rows: (**rows).clone(), labels, session_analysis }
            }
            Source::Computed(compute) => compute()?,
        };
        Ok(i.analysis.get_or_init(|| frames))
    }

    /// The cache model's verdicts, one row per thread request.
    pub fn analysis(&self) -> Result<LazyFrame, StoreError> {
        Ok(self.analysis_frames()?.rows.clone())
    }

    /// Each compaction boundary's label and anchor request.
    pub fn compaction_labels(&self) -> Result<LazyFrame, StoreError> {
        Ok(self.analysis_frames()?.labels.clone().lazy())
    }

    /// The session analysis (`Table::SessionAnalysis`): one row per `(user,
    /// session)`, its last main-thread request, models
    /// and compaction report.
    pub fn session_analysis(&self) -> Result<LazyFrame, StoreError> {
        Ok(self.analysis_frames()?.session_analysis.clone().lazy())
    }

    /// Session id -> title (sessions with a title only).
    pub fn titles(&self) -> Result<&HashMap<String, String>, StoreError> {
        if let Some(t) = self.inner.titles.get() {
            return Ok(t);
        }
        let titles = titles_of(self.session_totals()?)
            .map_err(|e| StoreError::damaged(self.inner.store.path(Table::SessionTotals), &e))?;
        Ok(self.inner.titles.get_or_init(|| titles))
    }

    /// Project directory -> the working directories its requests ran in
    /// (empty ones left out), read from the requests once per view: a
    /// scan of every stored request, which each report naming projects
    /// made again.
    pub fn project_cwds(&self) -> Result<&HashMap<String, Vec<String>>, StoreError> {
        if let Some(p) = self.inner.project_cwds.get() {
            return Ok(p);
        }
        let cwds = match &self.inner.requests {
            Some(lf) => frames::project_cwds(lf.clone(), self.inner.request_rows)
                .map_err(|e| StoreError::damaged(self.inner.store.path(Table::Requests), &e))?,
            None => HashMap::new(),
        };
        Ok(self.inner.project_cwds.get_or_init(|| cwds))
    }

    /// The API calls inside responses, in stored order.
    pub fn calls(&self) -> Result<&[Call], StoreError> {
        let i = &self.inner;
        i.calls.get(&i.store, Table::Calls, frames::calls_from, Vec::new).map(Vec::as_slice)
    }

    /// Compaction and microcompact boundaries, in stored order.
    pub fn compactions(&self) -> Result<&[Compaction], StoreError> {
        let i = &self.inner;
        i.compactions.get(&i.store, Table::Compactions, frames::compactions_from, Vec::new).map(Vec::as_slice)
    }

    /// Model-refusal fallbacks, in stored order.
    pub fn refusals(&self) -> Result<&[Refusal], StoreError> {
        let i = &self.inner;
        i.refusals.get(&i.store, Table::Refusals, frames::refusals_from, Vec::new).map(Vec::as_slice)
    }

    /// The session totals (`Table::SessionTotals`: first, last, title,
    /// totals per session).
    pub fn session_totals(&self) -> Result<&DataFrame, StoreError> {
        let i = &self.inner;
        i.session_totals.get(&i.store, Table::SessionTotals, |df| Ok(df.clone()), DataFrame::empty)
    }

    /// The plan-limit samples the status line recorded.
    pub fn samples(&self) -> &[Sample] {
        self.inner.samples.get_or_init(|| samples::read(&files::rate_limits(self.inner.store.dir())))
    }

    /// Claude Code's `prompt_cache` readings the status line recorded.
    pub fn live_cache(&self) -> &[LiveCache] {
        self.inner.live.get_or_init(|| samples::read_live(&files::prompt_cache(self.inner.store.dir())))
    }
}

/// `requests` with Claude Code's record of each call: a table of a layout
/// before it (read with `--no-ingest`, not yet upgraded) reads as carrying
/// none.
fn with_client_columns(requests: LazyFrame) -> LazyFrame {
    use crate::model::columns as c;
    let Ok(schema) = requests.clone().collect_schema() else { return requests };
    let missing: Vec<Expr> =
        c::CLIENT_COLUMNS.iter().filter(|n| !schema.contains(n)).map(|n| lit("").alias(*n)).collect();
    match missing.is_empty() {
        true => requests,
        false => requests.with_columns(missing),
    }
}

/// Session id -> title from the session totals (empty titles left out).
fn titles_of(df: &DataFrame) -> PolarsResult<HashMap<String, String>> {
    use crate::model::columns as c;
    if df.width() == 0 {
        return Ok(HashMap::new());
    }
    let k = frames::Cols(df);
    let (ids, titles) = (k.str(c::SESSION_ID)?, k.str(c::TITLE)?);
    Ok(ids
        .iter()
        .zip(&titles)
        .filter(|(_, t)| !t.is_empty())
        .map(|(i, t)| ((*i).to_owned(), (*t).to_owned()))
        .collect())
}

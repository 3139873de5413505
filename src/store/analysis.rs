//! The analysis table's two parts (`parts::ANALYSIS`, the protocol in
//! `store::parts`): the cache model's verdict per thread request, which
//! `materialize` computes and writes here, and every view reads through a
//! `StoreView`. The parts carry the stamp they were computed with; parts of
//! another stamp are not current (`open_analysis` gives None). They are
//! derived, so they are replaced without waiting for the disk: a crash that
//! leaves one torn fails its footer check, and the next ingest computes
//! the table again.

use super::parts::{footer_meta, footer_pairs, Footer, Opened, ANALYSIS};
use super::{Store, StoreError, Table};
use crate::model::columns as c;
use polars::prelude::*;
use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;

impl Store {
    /// The analysis parts of one generation computed with `stamp`; None
    /// when there is no base or it was computed otherwise. A damaged part is
    /// an error.
    pub fn open_analysis(&self, stamp: &str) -> Result<Option<Opened>, StoreError> {
        self.open_parts(&ANALYSIS, Some(stamp))
    }

    /// The generation a new analysis base gets.
    pub fn next_analysis_generation(&self) -> u64 {
        self.next_generation_of(&ANALYSIS).unwrap_or(1)
    }

    /// The footer pairs of an analysis base of `generation` computed with
    /// `stamp` (a base joined from files gets these).
    pub fn analysis_base_pairs(&self, stamp: &str, generation: u64) -> Result<Vec<(String, String)>, StoreError> {
        let footer = Footer { stamp: Some(stamp.to_owned()), generation, ..Footer::default() };
        footer_pairs(&ANALYSIS, &footer)
            .map_err(|e| StoreError::Damaged { path: self.path(Table::Analysis), cause: e.to_string() })
    }

    /// A Parquet writer of an analysis part with the footer of a base of
    /// `generation` computed with `stamp`.
    pub fn analysis_writer<W: std::io::Write>(
        &self,
        w: W,
        stamp: &str,
        generation: u64,
    ) -> Result<ParquetWriter<W>, StoreError> {
        let footer = Footer { stamp: Some(stamp.to_owned()), generation, ..Footer::default() };
        let meta = footer_meta(&ANALYSIS, &footer, &self.path(Table::Analysis))?;
        Ok(self.parquet_writer(w).with_key_value_metadata(Some(meta)))
    }

    /// The whole analysis table of `opened`: the base without the replaced
    /// sessions, then the recent part.
    pub fn read_analysis(&self, opened: Opened) -> Result<DataFrame, StoreError> {
        let base = self.decode(Table::Analysis, opened.base)?;
        let Some(recent) = opened.recent else { return Ok(base) };
        let recent = self.decode(Table::RecentAnalysis, recent)?;
        let damaged = |t: Table| move |e: PolarsError| StoreError::damaged(self.path(t), &e);
        let mut out = without(&base, &opened.replaces).map_err(damaged(Table::Analysis))?;
        out.vstack_mut_owned(recent).map_err(damaged(Table::RecentAnalysis))?;
        Ok(out)
    }

    /// The recent part's rows of `opened` (None without one).
    pub fn read_analysis_recent(&self, opened: &mut Opened) -> Result<Option<DataFrame>, StoreError> {
        opened.recent.take().map(|f| self.decode(Table::RecentAnalysis, f)).transpose()
    }

    /// The analysis of `opened` as a lazy frame: a scan of the base (a query
    /// reads only the columns it uses) without the replaced sessions, then
    /// the recent part; both read whole while the recent part replaces many
    /// sessions (a filter of that many terms costs more than it saves).
    pub fn scan_analysis(&self, opened: Opened) -> Result<LazyFrame, StoreError> {
        let at = |source| StoreError::Polars { path: self.path(Table::Analysis), source };
        if opened.recent.is_some() && opened.replaces.len() > SCAN_REPLACED {
            return Ok(self.read_analysis(opened)?.lazy());
        }
        let scan = |f: File| -> Result<LazyFrame, StoreError> {
            let args = ScanArgsParquet { hive_options: HiveOptions::new_disabled(), ..ScanArgsParquet::default() };
            LazyFrame::scan_parquet_sources(ScanSources::Files(vec![f].into()), args).map_err(at)
        };
        let base = scan(opened.base)?;
        let Some(recent) = opened.recent else { return Ok(base) };
        let kept = opened.replaces.iter().map(|id| col(c::SESSION_ID).neq(lit(id.clone()))).reduce(Expr::and);
        let base = base.filter(kept.unwrap_or(lit(true)));
        concat([base, scan(recent)?], UnionArgs::default()).map_err(at)
    }

    /// A part file decoded whole.
    fn decode(&self, t: Table, f: File) -> Result<DataFrame, StoreError> {
        ParquetReader::new(BufReader::new(f)).finish().map_err(|e| StoreError::damaged(self.path(t), &e))
    }
}

impl super::Commit<'_> {
    /// Writes `df` as a new analysis base of `generation`, and removes the
    /// recent part.
    pub fn write_analysis_base(&self, df: &mut DataFrame, stamp: &str, generation: u64) -> Result<(), StoreError> {
        let footer = Footer { stamp: Some(stamp.to_owned()), generation, ..Footer::default() };
        self.write_part(&ANALYSIS, Table::Analysis, df, &footer, false)?;
        self.remove(Table::RecentAnalysis)
    }

    /// Writes `df` as the recent analysis part extending base `generation`,
    /// replacing the base's rows of `replaces`.
    pub fn write_analysis_recent(
        &self,
        df: &mut DataFrame,
        stamp: &str,
        generation: u64,
        replaces: &HashSet<String>,
    ) -> Result<(), StoreError> {
        let footer = Footer { stamp: Some(stamp.to_owned()), generation, replaces: replaces.clone() };
        self.write_part(&ANALYSIS, Table::RecentAnalysis, df, &footer, false)
    }
}

/// Up to this many replaced sessions, views scan the base without them.
const SCAN_REPLACED: usize = 256;

/// `df` without the rows of `sessions`.
pub fn without(df: &DataFrame, sessions: &HashSet<String>) -> PolarsResult<DataFrame> {
    df.filter(&!&of_sessions(df, sessions)?)
}

/// Up to this many sessions, their rows are read by a pushed-down filter
/// (an append's); past it, every row is read and masked.
const FILTER_SESSIONS: usize = 64;

/// The rows of `lf` that belong to `sessions`, collected.
pub fn collect_sessions(lf: LazyFrame, sessions: &HashSet<String>) -> PolarsResult<DataFrame> {
    if sessions.len() <= FILTER_SESSIONS {
        let any = sessions.iter().map(|s| col(c::SESSION_ID).eq(lit(s.clone()))).reduce(Expr::or);
        return lf.filter(any.unwrap_or(lit(false))).collect();
    }
    let all = lf.collect()?;
    all.filter(&of_sessions(&all, sessions)?)
}

/// Which rows of `df` belong to `sessions`.
pub fn of_sessions(df: &DataFrame, sessions: &HashSet<String>) -> PolarsResult<BooleanChunked> {
    // A whole table's ids are tested against a few sessions: a fast hash,
    // and no copy of the column.
    let wanted: foldhash::HashSet<&str> = sessions.iter().map(String::as_str).collect();
    let ids = df.column(c::SESSION_ID)?.str()?;
    Ok(BooleanChunked::from_iter_values("of".into(), ids.iter().map(|s| wanted.contains(s.unwrap_or("")))))
}

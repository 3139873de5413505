//! The project medians of resume advice and of the idle-compaction what-if
//! (cache-model §7, §5 v2), from the stored analysis columns: the median
//! prompt of main-thread first requests and of requests after a
//! compaction, per project and over every session; and the what-if itself
//! over the selected gap rows, priced `fixed + summary * per_token` from
//! the columns `materialize` stored.

use super::CacheQuery;
use crate::analyze::{median, CacheClass, IdleCompaction, InputSource, ProjectMedians};
use crate::model::columns as c;
use crate::model::MAIN_THREAD;
use crate::report::ReportError;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use polars::prelude::*;
use std::collections::HashMap;

/// Median prompt of main-thread rows of `class`, per project and over all.
#[derive(Debug, Clone, Default)]
struct Medians {
    by_project: HashMap<String, f64>,
    all: Option<f64>,
}

impl Medians {
    fn of(view: &StoreView, class: CacheClass) -> Result<Medians, ReportError> {
        let cols = [c::PROJECT, c::INPUT, c::CACHE_WRITE_5M, c::CACHE_WRITE_1H, c::CACHE_READ];
        let main = col(c::THREAD).eq(lit(MAIN_THREAD)).and(col(c::CLASS).eq(lit(class.as_str())));
        let df = view.analysis()?.filter(main).select(cols.map(col)).collect()?;
        let k = Cols(&df);
        let (project, prompts) = (k.str(c::PROJECT)?, k.prompts()?);
        let mut by: HashMap<String, Vec<f64>> = HashMap::new();
        for (p, t) in project.iter().zip(&prompts) {
            by.entry((*p).to_owned()).or_default().push(*t as f64);
        }
        let all = median(prompts.iter().map(|t| *t as f64).collect());
        Ok(Medians { by_project: by.into_iter().filter_map(|(p, v)| Some((p, median(v)?))).collect(), all })
    }

    /// The project's median, else (when `or_all`) the one over all sessions.
    fn get(&self, project: &str, or_all: bool) -> Option<(f64, InputSource)> {
        match self.by_project.get(project) {
            Some(m) => Some((*m, InputSource::Project)),
            None => self.all.filter(|_| or_all).map(|m| (m, InputSource::AllSessions)),
        }
    }
}

/// The medians resume advice and the idle-compaction what-if read (§7),
/// for every project.
#[derive(Debug, Clone, Default)]
pub struct MedianTable {
    first: Medians,
    compaction: Medians,
}

impl MedianTable {
    /// The medians of `project`.
    pub fn project(&self, project: &str) -> ProjectMedians {
        // `S` comes from the project's own compactions only (§7 v3).
        ProjectMedians { first: self.first.get(project, true), compaction: self.compaction.get(project, false) }
    }
}

impl StoreView {
    /// The project medians over every stored row.
    pub fn medians(&self) -> Result<MedianTable, ReportError> {
        Ok(MedianTable {
            first: Medians::of(self, CacheClass::First)?,
            compaction: Medians::of(self, CacheClass::Compaction)?,
        })
    }
}

/// The idle-compaction what-if (§5 v2) over the selected gap rows.
pub(super) fn idle_compaction(view: &StoreView, q: &CacheQuery, idle: u64) -> Result<IdleCompaction, ReportError> {
    let mut out = IdleCompaction { idle_compactions: idle, ..IdleCompaction::default() };
    let gaps = view.analysis()?.filter(col(c::IDLE_COMPACT_FIXED_USD).is_not_null());
    let cols =
        [c::PROJECT, c::EXPECTED_PREFIX, c::MISS_COST_USD, c::IDLE_COMPACT_FIXED_USD, c::IDLE_COMPACT_PER_TOKEN_USD];
    let df = super::view::selected(gaps, q, &cols)?;
    if df.height() == 0 {
        return Ok(out);
    }
    let medians = view.medians()?;
    let k = Cols(&df);
    let (project, prev, miss) = (k.str(c::PROJECT)?, k.u64(c::EXPECTED_PREFIX)?, k.f64(c::MISS_COST_USD)?);
    let (fixed, per) = (k.f64(c::IDLE_COMPACT_FIXED_USD)?, k.f64(c::IDLE_COMPACT_PER_TOKEN_USD)?);
    let mut by_project: HashMap<&str, ProjectMedians> = HashMap::new();
    for i in 0..df.height() {
        let m = by_project.entry(project[i]).or_insert_with(|| medians.project(project[i]));
        let (s, _) = m.summary_tokens(prev[i]);
        out.gaps += 1;
        out.rebuild_usd += miss[i];
        out.compact_usd += fixed[i] + s * per[i];
    }
    Ok(out)
}

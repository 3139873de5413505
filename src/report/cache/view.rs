//! The cache report as queries over the stored analysis columns of a
//! `StoreView`: the query's rows are selected by polars (days, project,
//! user, session), then summed in one pass over their columns, overall,
//! per day and per session. Stale sessions read the session analysis' last
//! main-thread rows, the compaction figures the analysis side tables, the
//! idle-compaction what-if its gap rows and the project medians. Nothing
//! walks request objects and nothing is classified here. Also the view's
//! small lookups every report shares (sessions by id, prefix or title,
//! people, models).

use super::medians::idle_compaction;
use super::rows::DailyClassCosts;
use super::splits::Splits;
use super::tallies::Tallies;
use super::{find_session, CacheQuery, CacheReport, Reconcile};
use crate::analyze::{
    count_by_trigger, CompactionParams, ServerReasons, SessionCompaction, SessionStats, StaleSession, IDLE,
    MODEL_VERSION,
};
use crate::model::columns as c;
use crate::model::Compaction;
use crate::pricing::Estimate;
use crate::report::analysis_cols::{LocalDays, FIGURES};
use crate::report::calls::CallTotals;
use crate::report::query::Grouping;
use crate::report::resume::resume_states;
use crate::report::resume::NotResumableSession;
use crate::report::slices::for_each_frame;
use crate::report::usage::Totals;
use crate::report::ReportError;
use crate::store::frames::Cols;
use crate::store::view::StoreView;
use chrono::DateTime;
use polars::prelude::*;
use std::collections::{HashMap, HashSet};

impl StoreView {
    /// Finds a session by full id, unique id prefix or title
    /// (`cache::find_session`).
    pub fn resolve_session(&self, text: &str) -> Result<String, ReportError> {
        let ids = self.session_ids()?;
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        find_session(&ids, self.titles()?, text)
    }

    /// The stored models priced as their family's newest version.
    pub fn estimated_models(&self) -> Result<Vec<Estimate>, ReportError> {
        let df = self.analysis()?.select([col(c::MODEL)]).unique(None, UniqueKeepStrategy::Any).collect()?;
        Ok(self.prices().estimated_models(Cols(&df).str(c::MODEL)?))
    }

    /// Runs `f` over the rows `q` selects, with `columns`, a slice of the
    /// table at a time (the next read while `f` runs), so a report holds two
    /// batches at most. A slice's number columns are one chunk each (they
    /// are read in place); its text stays in the row groups' chunks (read a
    /// chunk at a time: joining them copied every string of the slice).
    pub fn for_each_batch(
        &self,
        q: &CacheQuery,
        columns: &[&str],
        f: impl FnMut(&DataFrame) -> PolarsResult<()>,
    ) -> Result<(), ReportError> {
        let make = |rows: LazyFrame| -> PolarsResult<DataFrame> {
            let mut df = selected(rows, q, columns)?;
            numbers_in_one_chunk(&mut df)?;
            Ok(df)
        };
        for_each_frame(&self.analysis()?, self.analysis_rows()?, &q.query, make, f)?;
        Ok(())
    }

    /// The analysis rows `q` selects, with `columns`.
    pub fn selected(&self, q: &CacheQuery, columns: &[&str]) -> Result<DataFrame, ReportError> {
        Ok(selected(self.analysis()?, q, columns)?)
    }

    /// How many rows the analysis holds.
    pub fn count(&self) -> Result<usize, ReportError> {
        Ok(self.analysis_rows()?)
    }

    /// The people of a team store, sorted (local rows name nobody).
    pub fn users(&self) -> Result<Vec<String>, ReportError> {
        let df = self.session_analysis()?.select([col(c::USER)]).unique(None, UniqueKeepStrategy::Any).collect()?;
        let mut users: Vec<String> =
            Cols(&df).str(c::USER)?.into_iter().filter(|u| !u.is_empty()).map(str::to_owned).collect();
        users.sort_unstable();
        Ok(users)
    }

    /// Each session's models, most requests first (every person's copy
    /// counted), from the session analysis.
    pub fn session_models(&self) -> Result<HashMap<String, Vec<String>>, ReportError> {
        let df = self.session_analysis()?.select([col(c::SESSION_ID), col(c::MODELS)]).collect()?;
        let k = Cols(&df);
        let (sid, models) = (k.str(c::SESSION_ID)?, k.str(c::MODELS)?);
        let mut counts: HashMap<&str, HashMap<String, u64>> = HashMap::new();
        for (id, json) in sid.iter().zip(&models) {
            let list: Vec<(String, u64)> = serde_json::from_str(json).map_err(|e| {
                ReportError::Polars(PolarsError::ComputeError(format!("analysis-sessions.parquet: {e}").into()))
            })?;
            let m = counts.entry(id).or_default();
            for (model, n) in list {
                *m.entry(model).or_default() += n;
            }
        }
        Ok(counts
            .into_iter()
            .map(|(id, m)| {
                let mut v: Vec<(String, u64)> = m.into_iter().collect();
                v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                (id.to_owned(), v.into_iter().map(|(m, _)| m).collect())
            })
            .collect())
    }

    /// Every session id, sorted.
    pub fn session_ids(&self) -> Result<Vec<String>, ReportError> {
        let df = self.analysis()?.select([col(c::SESSION_ID)]).unique(None, UniqueKeepStrategy::Any).collect()?;
        let mut ids: Vec<String> = Cols(&df).str(c::SESSION_ID)?.into_iter().map(str::to_owned).collect();
        ids.sort_unstable();
        Ok(ids)
    }
}

/// Makes each column of `df` that is not text one chunk.
fn numbers_in_one_chunk(df: &mut DataFrame) -> PolarsResult<()> {
    let names: Vec<PlSmallStr> = df
        .columns()
        .iter()
        .filter(|c| c.dtype() != &DataType::String && c.n_chunks() > 1)
        .map(|c| c.name().clone())
        .collect();
    for name in names {
        df.apply(&name, Column::rechunk)?;
    }
    Ok(())
}

/// The rows of `rows` (analysis rows) that `q` selects, with `columns`.
pub(super) fn selected(rows: LazyFrame, q: &CacheQuery, columns: &[&str]) -> PolarsResult<DataFrame> {
    let mut lf = q.query.filter(rows)?;
    if let Some(s) = &q.session {
        lf = lf.filter(col(c::SESSION_ID).eq(lit(s.clone())));
    }
    lf.select(columns.iter().map(|n| col(*n)).collect::<Vec<Expr>>()).collect()
}

/// The `cache` report of the rows `q` selects, as of the view's clock,
/// reconciled with the usage reports (`Reconcile`). The usage side reads
/// the requests, the report the analysis: they run side by side, as the
/// dashboard's do.
pub fn cache_report(view: &StoreView, q: &CacheQuery) -> Result<CacheReport, ReportError> {
    let (report, usage) = rayon::join(|| cache_report_with(view, q, None), || usage_of(view, q));
    let (mut report, (totals, calls)) = (report?, usage?);
    report.usage = Some(Reconcile::of(&report.total, totals, calls));
    Ok(report)
}

/// `cache_report` without `usage`, for a caller with a usage report of
/// the same selection to reconcile with (`Reconcile::of`: the dashboard
/// makes both at once); `class_costs`, when given, is summed in the same
/// pass over the rows.
pub fn cache_report_with(
    view: &StoreView,
    q: &CacheQuery,
    class_costs: Option<&mut DailyClassCosts>,
) -> Result<CacheReport, ReportError> {
    let Pass { tallies, splits, server } = pass(view, q, class_costs)?;
    let (total, by_day, by_session, models) = tallies.finish(view.titles()?);
    let (stale, not_resumable) = resume_lists(view, q.query.user.as_deref(), &by_session)?;
    let ids: HashSet<(&str, &str)> = by_session.iter().map(|s| (s.user.as_str(), s.session_id.as_str())).collect();
    let compaction = compaction_reports(view, |user, session| ids.contains(&(user, session)))?;
    let by_trigger = by_trigger(view, q)?;
    let idle = by_trigger.get(IDLE).copied().unwrap_or(0);
    let idle_compaction = idle_compaction(view, q, idle)?;
    Ok(CacheReport {
        model: MODEL_VERSION,
        total,
        compactions_by_trigger: by_trigger,
        idle_compaction,
        server,
        live_agreement: crate::analyze::LiveAgreement::of(view.live_cache(), q.session.as_deref()),
        stale,
        not_resumable,
        warnings: view.claude().warnings(),
        by_day,
        versions: splits.versions.finish(),
        context: splits.context.finish(&compaction),
        by_session,
        compaction,
        now: view.now(),
        estimated_models: view.prices().estimated_models(models.iter().map(String::as_str)),
        usage: None,
        lists: None,
    })
}

/// What the pass over a report's rows sums.
struct Pass {
    tallies: Tallies,
    splits: Splits,
    server: ServerReasons,
}

/// The one pass over the rows `q` selects: the tallies, the version and
/// context splits, the server's reasons (and `class_costs`, when given).
fn pass(view: &StoreView, q: &CacheQuery, mut class_costs: Option<&mut DailyClassCosts>) -> Result<Pass, ReportError> {
    let mut days = LocalDays::new(q.query.tz);
    let mut columns = FIGURES.to_vec();
    if class_costs.is_some() {
        columns.extend(DailyClassCosts::COLUMNS.iter().filter(|n| !FIGURES.contains(n)));
    }
    let more = super::splits::COLUMNS.iter().chain(&super::rows::SERVER_COLUMNS);
    columns.extend(more.filter(|n| !columns.contains(n)).collect::<Vec<_>>());
    let mut p = Pass { tallies: Tallies::default(), splits: Splits::default(), server: ServerReasons::default() };
    view.for_each_batch(q, &columns, |df| {
        if let Some(costs) = class_costs.as_deref_mut() {
            costs.add(df)?;
        }
        p.splits.add(df)?;
        super::rows::add_server_reasons(&mut p.server, df)?;
        p.tallies.add(df, &mut days)
    })?;
    Ok(p)
}

/// The stale sessions of `by_session` (dearest premium first) and those
/// that can no longer be resumed; of one person when `user` says so.
fn resume_lists(
    view: &StoreView,
    user: Option<&str>,
    by_session: &[SessionStats],
) -> Result<(Vec<StaleSession>, Vec<NotResumableSession>), ReportError> {
    let selected = |session_id: &str, user: &str| {
        by_session.binary_search_by(|s| (s.session_id.as_str(), s.user.as_str()).cmp(&(session_id, user))).is_ok()
    };
    let states: Vec<_> =
        resume_states(view, user)?.into_iter().filter(|st| selected(&st.session_id, &st.user)).collect();
    let mut stale: Vec<_> = states.iter().filter(|s| !s.warm && s.not_resumable.is_none()).cloned().collect();
    stale.sort_by(|a, b| {
        b.premium_usd.total_cmp(&a.premium_usd).then_with(|| (&a.session_id, &a.user).cmp(&(&b.session_id, &b.user)))
    });
    let with_main: HashSet<(&str, &str)> = states.iter().map(|s| (s.session_id.as_str(), s.user.as_str())).collect();
    let without_main = by_session
        .iter()
        .filter(|s| !with_main.contains(&(s.session_id.as_str(), s.user.as_str())))
        .map(|s| (s.user.clone(), s.session_id.clone(), s.title.clone(), s.project.clone()));
    let not_resumable =
        crate::report::resume::not_resumable(&states, without_main, view.claude().settings.cleanup_days());
    Ok((stale, not_resumable))
}

/// The selection as the usage reports count it: its totals and calls, for
/// `Reconcile` against the thread requests the cache model counted. Over
/// every session, any grouping has the same totals: a daily report (fewer
/// rows than a session report, and no models per session to find).
fn usage_of(view: &StoreView, q: &CacheQuery) -> Result<(Totals, CallTotals), ReportError> {
    Ok(match &q.session {
        None => {
            let u = crate::report::usage::usage(view, Grouping::Daily, &q.query)?;
            (u.total, u.calls)
        }
        Some(id) => {
            let sessions = crate::report::usage::usage(view, Grouping::Session, &q.query)?;
            match sessions.rows.iter().find(|r| r.key == *id) {
                Some(r) => (r.totals, r.calls.unwrap_or_default()),
                None => Default::default(),
            }
        }
    })
}

/// The compaction reports of the sessions `selected` takes (by user and
/// session id: a person's copy of a session is theirs), by user and session.
pub(crate) fn compaction_reports(
    view: &StoreView,
    selected: impl Fn(&str, &str) -> bool,
) -> Result<Vec<SessionCompaction>, ReportError> {
    let df =
        view.session_analysis()?.select([col(c::USER), col(c::SESSION_ID), col(c::COMPACTION_REPORT)]).collect()?;
    let k = Cols(&df);
    let (user, sid, json) = (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::COMPACTION_REPORT)?);
    let mut order: Vec<usize> = (0..df.height()).filter(|&i| selected(user[i], sid[i])).collect();
    order.sort_by(|&a, &b| (user[a], sid[a]).cmp(&(user[b], sid[b])));
    order
        .into_iter()
        .map(|i| {
            let mut r: SessionCompaction = serde_json::from_str(json[i]).map_err(|e| {
                ReportError::Polars(PolarsError::ComputeError(format!("analysis-sessions.parquet: {e}").into()))
            })?;
            r.user = user[i].to_owned();
            r.set_window(&CompactionParams::default());
            Ok(r)
        })
        .collect()
}

/// Compactions by trigger, each counted with its anchor request's day,
/// project and user (and session).
fn by_trigger(view: &StoreView, q: &CacheQuery) -> Result<std::collections::BTreeMap<String, u64>, ReportError> {
    let mut labels = view.compaction_labels()?;
    if let Some(u) = &q.query.user {
        labels = labels.filter(col(c::USER).eq(lit(u.clone())));
    }
    let df = labels.collect()?;
    let k = Cols(&df);
    let (user, sid, uuid, trigger, label) =
        (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::UUID)?, k.str(c::TRIGGER)?, k.str(c::LABEL)?);
    let (time, project, cwd) = (k.time(c::TIME)?, k.str(c::ANCHOR_PROJECT)?, k.str(c::ANCHOR_CWD)?);
    let anchor: Vec<Option<i64>> = df.column(c::ANCHOR_TIME)?.cast(&DataType::Int64)?.i64()?.iter().collect();
    let mut order: Vec<usize> = (0..df.height()).collect();
    order.sort_by(|&a, &b| (user[a], sid[a], time[a], uuid[a]).cmp(&(user[b], sid[b], time[b], uuid[b])));
    let comps: Vec<Compaction> = order
        .iter()
        .map(|&i| Compaction {
            session_id: sid[i].to_owned(),
            time: time[i],
            trigger: trigger[i].to_owned(),
            user: user[i].to_owned(),
            uuid: uuid[i].to_owned(),
            ..Compaction::default()
        })
        .collect();
    let counted = |i: usize| {
        anchor[i].and_then(DateTime::from_timestamp_millis).is_some_and(|t| {
            q.session.as_ref().is_none_or(|s| s == sid[i]) && q.query.accepts_parts(user[i], project[i], cwd[i], t)
        })
    };
    Ok(count_by_trigger(order.iter().zip(&comps).map(|(&i, c)| (c, label[i], counted(i)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_keeps_its_text_in_chunks_and_makes_its_numbers_one() {
        let mut df = df!("s" => ["a", "b"], "n" => [1u64, 2], "f" => [Some(0.5), None]).unwrap();
        df.vstack_mut(&df!("s" => ["c"], "n" => [3u64], "f" => [Some(1.5)]).unwrap()).unwrap();
        numbers_in_one_chunk(&mut df).unwrap();
        let chunks = |name: &str| df.column(name).unwrap().n_chunks();
        assert_eq!((chunks("s"), chunks("n"), chunks("f")), (2, 1, 1));
        let k = Cols(&df);
        assert_eq!(k.str("s").unwrap(), vec!["a", "b", "c"]);
        assert_eq!(k.slice::<UInt64Type>("n").unwrap(), &[1, 2, 3]);
        assert_eq!(k.floats("f").unwrap().get(1), None);
    }
}

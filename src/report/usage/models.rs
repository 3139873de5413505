//! Each session's models as reports name them (`query::model_label`: a
//! fast-mode request's model with ` (fast)` after it), most requests
//! first, and how many of its requests ran in fast mode: the models column
//! of `report session`, over the requests a query selects; and the model
//! ids of a by-model report (fast mode folded in), for model filters.

use super::ReportError;
use super::UsageReport;
use crate::model::columns as c;
use crate::report::query::{label, model_id, FAST};
use crate::store::frames::Cols;
use polars::prelude::*;
use std::collections::HashMap;

/// One session's models.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionModels {
    /// Model labels, most requests first (ties by name).
    pub names: Vec<String>,
    /// Requests that ran in fast mode.
    pub fast_requests: u64,
}

/// Requests per session, model and speed among `rows` (with those
/// columns): what `session_models_of` reads, one frame per slice.
pub(super) fn model_counts(rows: LazyFrame) -> LazyFrame {
    rows.group_by([col(c::SESSION_ID), col(c::MODEL), col(c::SPEED)])
        .agg([len().cast(DataType::UInt64).alias(c::REQUESTS)])
}

/// The models of every session from the `model_counts` of some slices of
/// the requests.
pub(super) fn session_models_of(mut counts: Vec<LazyFrame>) -> Result<HashMap<String, SessionModels>, ReportError> {
    let keys = [col(c::SESSION_ID), col(c::MODEL), col(c::SPEED)];
    let df = match counts.len() {
        0 => return Ok(HashMap::new()),
        1 => counts.remove(0).collect()?,
        _ => concat(counts, UnionArgs::default())?.group_by(keys).agg([col(c::REQUESTS).sum()]).collect()?,
    };
    let k = Cols(&df);
    let (sid, model, speed, n) = (k.str(c::SESSION_ID)?, k.str(c::MODEL)?, k.str(c::SPEED)?, k.u64(c::REQUESTS)?);
    let mut counts: HashMap<&str, (HashMap<String, u64>, u64)> = HashMap::new();
    for i in 0..df.height() {
        let e = counts.entry(sid[i]).or_default();
        *e.0.entry(label(model[i], speed[i])).or_default() += n[i];
        if speed[i] == FAST {
            e.1 += n[i];
        }
    }
    Ok(counts
        .into_iter()
        .map(|(id, (by, fast_requests))| {
            let mut v: Vec<(String, u64)> = by.into_iter().collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            (id.to_owned(), SessionModels { names: v.into_iter().map(|(m, _)| m).collect(), fast_requests })
        })
        .collect())
}

impl UsageReport {
    /// The model ids of a by-model report's rows, in its order, fast mode
    /// folded into its model (`query::model_id`): what a model filter takes.
    pub fn model_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rows {
            let id = model_id(&r.key);
            if !out.iter().any(|m| m == id) {
                out.push(id.to_owned());
            }
        }
        out
    }
}

//! The bundle's one table: its column order (kind, who, the requests
//! table's columns, then the columns of compaction, call and analysis
//! rows) and the frame a bundle's rows make, which writing, the checksum
//! and the reader's column check share.

use super::analysis;
use super::bundle::{Bundle, BundleMeta, KIND_ANALYSIS, KIND_CALL, KIND_COMPACTION, KIND_REQUEST, V2_COLUMNS};
use crate::model::columns as c;
use crate::store::frames;
use polars::prelude::*;

/// Column order of a bundle: kind, who, then the requests table, then the
/// compaction-only columns, then the call-only ones.
pub(super) fn column_order() -> Vec<&'static str> {
    let mut names = vec![c::KIND, c::USER, c::MACHINE];
    names.extend([
        c::TIME,
        c::SESSION_ID,
        c::THREAD,
        c::PROJECT,
        c::CWD,
        c::GIT_BRANCH,
        c::VERSION,
        c::MODEL,
        c::INPUT,
        c::CACHE_WRITE_5M,
        c::CACHE_WRITE_1H,
        c::CACHE_READ,
        c::OUTPUT,
        c::WEB_SEARCH,
        c::SPEED,
        c::INFERENCE_GEO,
        c::SERVER_REASON,
        c::SERVER_MISSED_TOKENS,
        c::QUERY_SOURCE,
        c::SHAPE_HASH,
        c::TTL_ASKED,
        c::IS_SIDECHAIN,
        c::COST_USD,
        c::SOURCE,
        c::LINE,
        c::MESSAGE_ID,
        c::REQUEST_ID,
    ]);
    names.extend([c::TRIGGER, c::PRE_TOKENS]);
    names.extend(V2_COLUMNS);
    names.extend(CALL_COLUMNS);
    names.extend(analysis::own_columns().into_iter().map(|(n, _)| n));
    names
}

/// Columns of call rows only; schema 1 bundles lack them.
pub(super) const CALL_COLUMNS: [&str; 2] = [c::ITERATION, c::ITERATION_TYPE];

/// Requests rows, then compaction rows and call rows, each with the
/// columns of the other kinds null.
pub(super) fn bundle_frame(b: &Bundle) -> PolarsResult<DataFrame> {
    let mut req = frames::requests_frame(&b.requests)?;
    let n = req.height();
    req.with_column(Column::new(c::KIND.into(), vec![KIND_REQUEST; n]))?;
    req.with_column(Column::full_null(c::TRIGGER.into(), n, &DataType::String))?;
    req.with_column(Column::full_null(c::PRE_TOKENS.into(), n, &DataType::UInt64))?;
    req.with_column(Column::full_null(c::ITERATION.into(), n, &DataType::UInt64))?;
    req.with_column(Column::full_null(c::ITERATION_TYPE.into(), n, &DataType::String))?;
    for (name, dtype) in
        V2_COLUMNS.iter().zip([DataType::String, DataType::String, DataType::Boolean, DataType::UInt64])
    {
        req.with_column(Column::full_null((*name).into(), n, &dtype))?;
    }
    for (name, dtype) in analysis::own_columns() {
        req.with_column(Column::full_null(name.into(), n, &dtype))?;
    }
    let req = req.select(column_order())?;
    let comp = part(&frames::compactions_frame(&b.compactions)?, KIND_COMPACTION, &b.meta, &req)?;
    let calls = part(&frames::calls_frame(&b.calls)?, KIND_CALL, &b.meta, &req)?;
    let mut all = req;
    all.vstack_mut(&comp)?;
    all.vstack_mut(&calls)?;
    if let Some(a) = &b.analysis {
        all.vstack_mut(&part(&a.rows, KIND_ANALYSIS, &b.meta, &all)?)?;
    }
    all.rechunk_mut();
    Ok(all)
}

/// Rows of another kind laid out `like` the request rows; `user` is the
/// row's own when it has one, else the bundle's.
fn part(rows: &DataFrame, kind: &str, meta: &BundleMeta, like: &DataFrame) -> PolarsResult<DataFrame> {
    let n = rows.height();
    let columns = like
        .columns()
        .iter()
        .map(|col| {
            let (name, dtype) = (col.name().as_str(), col.dtype());
            Ok(match rows.column(name) {
                _ if name == c::KIND => Column::new(name.into(), vec![kind; n]),
                _ if name == c::MACHINE => Column::new(name.into(), vec![meta.machine.as_str(); n]),
                // A bundle is one person's: every row is the bundle's user.
                _ if name == c::USER => Column::new(name.into(), vec![meta.user.as_str(); n]),
                Ok(v) => v.cast(dtype)?,
                Err(_) => Column::full_null(name.into(), n, dtype),
            })
        })
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(n, columns)
}

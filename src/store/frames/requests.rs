//! The `requests` table and the requests analysis rows are rebuilt from:
//! one reader for both (`Held` says which columns a frame has).

use super::{bool_column, f64_column, opt_u64_column, text_column, time_column, u64_column, Cols};
use crate::model::columns as c;
use crate::model::{ColumnInterner, Request, TokenCounts};
use polars::prelude::*;
use rayon::prelude::*;
use std::borrow::Borrow;

/// The `requests` table. Columns are built in parallel; a text value equal
/// to the row before's shares its bytes (`text_column`).
pub fn requests_frame<R: Borrow<Request> + Sync>(rows: &[R]) -> PolarsResult<DataFrame> {
    let rows: Vec<&Request> = rows.iter().map(Borrow::borrow).collect();
    let rows = rows.as_slice();
    let s = |name: &'static str, f: fn(&Request) -> &str| move || text_column(name, rows.iter().map(|r| f(r)));
    let t = |name: &'static str, f: fn(&TokenCounts) -> u64| {
        move || Ok(u64_column(name, rows.iter().map(|r| f(&r.tokens))))
    };
    let builders: [&(dyn Fn() -> PolarsResult<Column> + Sync); 29] = [
        &|| Ok(time_column(c::TIME, rows.iter().map(|r| r.time))),
        &s(c::SESSION_ID, |r| &r.session_id),
        &s(c::THREAD, |r| &r.thread),
        &s(c::PROJECT, |r| &r.project),
        &s(c::CWD, |r| &r.cwd),
        &s(c::GIT_BRANCH, |r| &r.git_branch),
        &s(c::VERSION, |r| &r.version),
        &s(c::MODEL, |r| &r.model),
        &t(c::INPUT, |k| k.input),
        &t(c::CACHE_WRITE_5M, |k| k.cache_write_5m),
        &t(c::CACHE_WRITE_1H, |k| k.cache_write_1h),
        &t(c::CACHE_READ, |k| k.cache_read),
        &t(c::OUTPUT, |k| k.output),
        &|| Ok(u64_column(c::WEB_SEARCH, rows.iter().map(|r| r.web_search))),
        &s(c::SPEED, |r| &r.speed),
        &s(c::INFERENCE_GEO, |r| &r.inference_geo),
        &s(c::SERVER_REASON, |r| &r.server_reason),
        &|| Ok(opt_u64_column(c::SERVER_MISSED_TOKENS, rows.iter().map(|r| r.server_missed_tokens))),
        &s(c::QUERY_SOURCE, |r| &r.client.query_source),
        &s(c::SHAPE_HASH, |r| &r.client.shape_hash),
        &s(c::TTL_ASKED, |r| &r.client.ttl_asked),
        &|| Ok(bool_column(c::IS_SIDECHAIN, rows.iter().map(|r| r.is_sidechain))),
        &|| Ok(f64_column(c::COST_USD, rows.iter().map(|r| r.cost_usd))),
        &s(c::SOURCE, |r| &r.source),
        &|| Ok(u64_column(c::LINE, rows.iter().map(|r| r.line))),
        &s(c::MESSAGE_ID, |r| &r.message_id),
        &s(c::REQUEST_ID, |r| &r.request_id),
        &s(c::USER, |r| &r.user),
        &s(c::MACHINE, |r| &r.machine),
    ];
    DataFrame::new(rows.len(), builders.par_iter().map(|b| b()).collect::<PolarsResult<_>>()?)
}

/// `df` (requests or spares as stored) in this layout's columns: as it is
/// when it has them all, else read as rows and framed again (an older
/// layout's table lacks the columns added since, which read as empty), so
/// it stacks with the rows a merge adds.
pub fn in_current_layout(df: DataFrame) -> PolarsResult<DataFrame> {
    let want = requests_frame::<Request>(&[])?;
    match want.get_column_names().iter().all(|n| df.column(n.as_str()).is_ok()) {
        true => Ok(df),
        false => requests_frame(&requests_from(&df)?),
    }
}

/// Which columns a frame of requests holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// Every column of the `requests` table.
    All,
    /// The `columns::ANALYSIS_REQUEST` columns of analysis rows: no branch,
    /// source, line, request id or machine, and only thread requests (no
    /// sidechain replays).
    Analysis,
}

/// Reads the `requests` table back into rows.
pub fn requests_from(df: &DataFrame) -> PolarsResult<Vec<Request>> {
    read(df, Held::All)
}

/// Analysis rows (with the `columns::ANALYSIS_REQUEST` columns) as the
/// thread requests they were computed from: classifying them again gives
/// the stored verdicts, since a session's threads are whole.
pub fn requests_of(df: &DataFrame) -> PolarsResult<Vec<Request>> {
    read(df, Held::Analysis)
}

fn read(df: &DataFrame, held: Held) -> PolarsResult<Vec<Request>> {
    let (k, height, all) = (Cols(df), df.height(), held == Held::All);
    let text = |name: &str| if all { k.str(name) } else { Ok(vec![""; height]) };
    let (time, session, thread, project) =
        (k.time(c::TIME)?, k.str(c::SESSION_ID)?, k.str(c::THREAD)?, k.str(c::PROJECT)?);
    let (cwd, branch, version, model) = (k.str(c::CWD)?, text(c::GIT_BRANCH)?, k.str(c::VERSION)?, k.str(c::MODEL)?);
    let tokens = k.tokens()?;
    let (web, speed, geo, cost) =
        (k.u64(c::WEB_SEARCH)?, k.str(c::SPEED)?, k.str(c::INFERENCE_GEO)?, k.f64(c::COST_USD)?);
    let side = if all { k.bool(c::IS_SIDECHAIN)? } else { vec![false; height] };
    let line = if all { k.u64(c::LINE)? } else { vec![0; height] };
    let (source, msg, req) = (text(c::SOURCE)?, k.str(c::MESSAGE_ID)?, text(c::REQUEST_ID)?);
    let (user, machine) = (k.str(c::USER)?, text(c::MACHINE)?);
    let (reason, missed) = (k.str_or_empty(c::SERVER_REASON)?, k.opt_u64_or_none(c::SERVER_MISSED_TOKENS)?);
    let (source_q, shape, ttl) =
        (k.str_or_empty(c::QUERY_SOURCE)?, k.str_or_empty(c::SHAPE_HASH)?, k.str_or_empty(c::TTL_ASKED)?);
    // Repeated values (a session's id, its project, the models) share one
    // allocation; one slot per text column, in the order below.
    let mut n: ColumnInterner<'_, 16> = ColumnInterner::default();
    Ok((0..height)
        .map(|i| Request {
            time: time[i],
            session_id: n.get(0, session[i]),
            thread: n.get(1, thread[i]),
            project: n.get(2, project[i]),
            cwd: n.get(3, cwd[i]),
            git_branch: n.get(4, branch[i]),
            version: n.get(5, version[i]),
            model: n.get(6, model[i]),
            tokens: tokens[i],
            web_search: web[i],
            speed: n.get(7, speed[i]),
            inference_geo: n.get(8, geo[i]),
            server_reason: n.get_as(9, reason[i], crate::model::server_reason),
            server_missed_tokens: missed[i],
            is_sidechain: side[i],
            cost_usd: cost[i],
            source: n.get(10, source[i]),
            line: line[i],
            message_id: msg[i].to_owned(),
            request_id: req[i].to_owned(),
            user: n.get(11, user[i]),
            machine: n.get(12, machine[i]),
            client: crate::model::ClientRecord {
                query_source: n.get(13, source_q[i]),
                shape_hash: n.get(14, shape[i]),
                ttl_asked: n.get(15, ttl[i]),
            },
        })
        .collect())
}

//! The small tables: the calls inside responses, model-refusal fallbacks,
//! compaction boundaries, session title lines and Claude Code's own
//! running totals (`cost-state` readings).

use super::{bool_column, f64_column, opt_u64_column, str_column, time_column, u64_column, Cols};
use crate::model::columns as c;
use crate::model::{
    Boundary, Call, Compaction, CostReading, Interner, Refusal, SessionTitle, TitleKind, TokenCounts, DEFAULT_TRIGGER,
};
use polars::prelude::*;

/// The calls table (stored as `iterations`, after the transcript's field).
pub fn calls_frame(rows: &[Call]) -> PolarsResult<DataFrame> {
    let s = |name: &str, f: fn(&Call) -> &str| str_column(name, rows.iter().map(f));
    let mut columns = vec![
        s(c::USER, |r| &r.user),
        s(c::MESSAGE_ID, |r| &r.message_id),
        s(c::REQUEST_ID, |r| &r.request_id),
        s(c::SOURCE, |r| &r.source),
        u64_column(c::LINE, rows.iter().map(|r| r.line)),
        u64_column(c::ITERATION, rows.iter().map(|r| u64::from(r.index))),
        s(c::ITERATION_TYPE, |r| &r.kind),
        s(c::MODEL, |r| &r.model),
    ];
    columns.extend(token_columns(rows, |r| &r.tokens));
    columns.push(f64_column(c::COST_USD, rows.iter().map(|r| r.cost_usd)));
    DataFrame::new(rows.len(), columns)
}

/// The five token columns of `rows`, in the tables' order.
fn token_columns<T>(rows: &[T], tokens: fn(&T) -> &TokenCounts) -> [Column; 5] {
    let t = |name: &str, f: fn(&TokenCounts) -> u64| u64_column(name, rows.iter().map(|r| f(tokens(r))));
    [
        t(c::INPUT, |k| k.input),
        t(c::CACHE_WRITE_5M, |k| k.cache_write_5m),
        t(c::CACHE_WRITE_1H, |k| k.cache_write_1h),
        t(c::CACHE_READ, |k| k.cache_read),
        t(c::OUTPUT, |k| k.output),
    ]
}

/// Reads the calls table back into rows.
pub fn calls_from(df: &DataFrame) -> PolarsResult<Vec<Call>> {
    let k = Cols(df);
    let (user, msg, req, source) = (k.str(c::USER)?, k.str(c::MESSAGE_ID)?, k.str(c::REQUEST_ID)?, k.str(c::SOURCE)?);
    let (line, index, kind, model) =
        (k.u64(c::LINE)?, k.u64(c::ITERATION)?, k.str(c::ITERATION_TYPE)?, k.str(c::MODEL)?);
    let (tokens, cost) = (k.tokens()?, k.f64(c::COST_USD)?);
    let mut n = Interner::default();
    Ok((0..df.height())
        .map(|i| Call {
            user: n.get(user[i]),
            message_id: msg[i].to_owned(),
            request_id: req[i].to_owned(),
            source: n.get(source[i]),
            line: line[i],
            index: u32::try_from(index[i]).unwrap_or(u32::MAX),
            kind: n.get(kind[i]),
            model: n.get(model[i]),
            tokens: tokens[i],
            cost_usd: cost[i],
        })
        .collect())
}

/// The `refusals` table.
pub fn refusals_frame(rows: &[Refusal]) -> PolarsResult<DataFrame> {
    let s = |name: &str, f: fn(&Refusal) -> &str| str_column(name, rows.iter().map(f));
    DataFrame::new(
        rows.len(),
        vec![
            s(c::SESSION_ID, |r| &r.session_id),
            time_column(c::TIME, rows.iter().map(|r| r.time)),
            s(c::ORIGINAL_MODEL, |r| &r.original_model),
            s(c::FALLBACK_MODEL, |r| &r.fallback_model),
            s(c::TRIGGER, |r| &r.trigger),
            s(c::SOURCE, |r| &r.source),
        ],
    )
}

/// Reads the `refusals` table back into rows.
pub fn refusals_from(df: &DataFrame) -> PolarsResult<Vec<Refusal>> {
    let k = Cols(df);
    let (session, time, from, to) =
        (k.str(c::SESSION_ID)?, k.time(c::TIME)?, k.str(c::ORIGINAL_MODEL)?, k.str(c::FALLBACK_MODEL)?);
    let (trigger, source) = (k.str(c::TRIGGER)?, k.str(c::SOURCE)?);
    Ok((0..df.height())
        .map(|i| Refusal {
            session_id: session[i].to_owned(),
            time: time[i],
            original_model: from[i].to_owned(),
            fallback_model: to[i].to_owned(),
            trigger: trigger[i].to_owned(),
            source: source[i].to_owned(),
        })
        .collect())
}

/// The `compactions` table (compactions and microcompactions).
pub fn compactions_frame(rows: &[Compaction]) -> PolarsResult<DataFrame> {
    let opt = |name: &str, f: fn(&Compaction) -> Option<u64>| opt_u64_column(name, rows.iter().map(f));
    DataFrame::new(
        rows.len(),
        vec![
            str_column(c::SESSION_ID, rows.iter().map(|r| r.session_id.as_str())),
            time_column(c::TIME, rows.iter().map(|r| r.time)),
            str_column(c::TRIGGER, rows.iter().map(|r| r.trigger.as_str())),
            opt(c::PRE_TOKENS, |r| r.pre_tokens),
            str_column(c::SOURCE, rows.iter().map(|r| r.source.as_str())),
            str_column(c::USER, rows.iter().map(|r| r.user.as_str())),
            str_column(c::UUID, rows.iter().map(|r| r.uuid.as_str())),
            str_column(c::BOUNDARY, rows.iter().map(|r| r.boundary.as_str())),
            bool_column(c::TRIGGER_WRITTEN, rows.iter().map(|r| r.trigger_written)),
            opt(c::TOKENS_SAVED, |r| r.tokens_saved),
        ],
    )
}

/// Trigger an older store wrote for a compaction without one.
const OLD_DEFAULT_TRIGGER: &str = "unknown";

/// Reads the `compactions` table back into rows. A table of an older store
/// (no v2 columns) reads as compactions of no user and no uuid, whose
/// `unknown` trigger was the defaulted one (now `auto`, not written).
pub fn compactions_from(df: &DataFrame) -> PolarsResult<Vec<Compaction>> {
    let k = Cols(df);
    let (session, time, trigger, pre, source) =
        (k.str(c::SESSION_ID)?, k.time(c::TIME)?, k.str(c::TRIGGER)?, k.opt_u64(c::PRE_TOKENS)?, k.str(c::SOURCE)?);
    let n = df.height();
    let has = |name: &str| df.column(name).is_ok();
    let or_empty = |name: &str| if has(name) { k.str(name) } else { Ok(vec![""; n]) };
    let (user, uuid, boundary) = (or_empty(c::USER)?, or_empty(c::UUID)?, or_empty(c::BOUNDARY)?);
    let written = if has(c::TRIGGER_WRITTEN) {
        k.bool(c::TRIGGER_WRITTEN)?
    } else {
        trigger.iter().map(|t| *t != OLD_DEFAULT_TRIGGER).collect()
    };
    let saved = if has(c::TOKENS_SAVED) { k.opt_u64(c::TOKENS_SAVED)? } else { vec![None; n] };
    Ok((0..n)
        .map(|i| Compaction {
            session_id: session[i].to_owned(),
            time: time[i],
            trigger: if written[i] { trigger[i] } else { DEFAULT_TRIGGER }.to_owned(),
            pre_tokens: pre[i],
            source: source[i].to_owned(),
            user: user[i].to_owned(),
            uuid: uuid[i].to_owned(),
            boundary: Boundary::parse(boundary[i]),
            trigger_written: written[i],
            tokens_saved: saved[i],
        })
        .collect())
}

/// The `titles` table (every title line seen; the session totals pick one).
pub fn titles_frame(rows: &[SessionTitle]) -> PolarsResult<DataFrame> {
    DataFrame::new(
        rows.len(),
        vec![
            str_column(c::SESSION_ID, rows.iter().map(|r| r.session_id.as_str())),
            u64_column(c::KIND, rows.iter().map(|r| r.kind as u64)),
            u64_column(c::SEQ, rows.iter().map(|r| r.seq)),
            str_column(c::TITLE, rows.iter().map(|r| r.title.as_str())),
            str_column(c::SOURCE, rows.iter().map(|r| r.source.as_str())),
        ],
    )
}

/// Reads the `titles` table back into rows.
pub fn titles_from(df: &DataFrame) -> PolarsResult<Vec<SessionTitle>> {
    let k = Cols(df);
    let (session, kind, seq, title, source) =
        (k.str(c::SESSION_ID)?, k.u64(c::KIND)?, k.u64(c::SEQ)?, k.str(c::TITLE)?, k.str(c::SOURCE)?);
    Ok((0..df.height())
        .map(|i| SessionTitle {
            session_id: session[i].to_owned(),
            kind: match kind[i] {
                2 => TitleKind::Custom,
                1 => TitleKind::AiTitle,
                _ => TitleKind::Summary,
            },
            seq: seq[i],
            title: title[i].to_owned(),
            source: source[i].to_owned(),
        })
        .collect())
}

/// The `cost-readings` table.
pub fn readings_frame(rows: &[CostReading]) -> PolarsResult<DataFrame> {
    let s = |name: &str, f: fn(&CostReading) -> &str| str_column(name, rows.iter().map(f));
    let mut columns = vec![
        s(c::USER, |r| &r.user),
        s(c::SESSION_ID, |r| &r.session_id),
        s(c::SOURCE, |r| &r.source),
        u64_column(c::LINE, rows.iter().map(|r| r.line)),
        time_column(c::TIME, rows.iter().map(|r| r.time)),
        u64_column(c::START_MS, rows.iter().map(|r| r.start_ms)),
        s(c::MODEL, |r| &r.model),
    ];
    columns.extend(token_columns(rows, |r| &r.tokens));
    columns.extend([
        u64_column(c::WEB_SEARCH, rows.iter().map(|r| r.web_search)),
        f64_column(c::CLAUDE_COST_USD, rows.iter().map(|r| r.claude_cost_usd)),
        bool_column(c::COMPACTED, rows.iter().map(|r| r.compacted)),
    ]);
    DataFrame::new(rows.len(), columns)
}

/// Reads the `cost-readings` table back into rows.
pub fn readings_from(df: &DataFrame) -> PolarsResult<Vec<CostReading>> {
    let k = Cols(df);
    let (user, session, source, line) = (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::SOURCE)?, k.u64(c::LINE)?);
    let (time, start, model, tokens) = (k.time(c::TIME)?, k.u64(c::START_MS)?, k.str(c::MODEL)?, k.tokens()?);
    let (web, cost) = (k.u64(c::WEB_SEARCH)?, k.f64(c::CLAUDE_COST_USD)?);
    let compacted = df.column(c::COMPACTED)?.bool()?;
    Ok((0..df.height())
        .map(|i| CostReading {
            user: user[i].to_owned(),
            session_id: session[i].to_owned(),
            source: source[i].to_owned(),
            line: line[i],
            time: time[i],
            start_ms: start[i],
            model: model[i].to_owned(),
            tokens: tokens[i],
            web_search: web[i],
            claude_cost_usd: cost[i],
            compacted: compacted.get(i).unwrap_or(false),
        })
        .collect())
}

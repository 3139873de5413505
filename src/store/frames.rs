//! Typed rows <-> polars DataFrames, with the column names from
//! `model::columns`. The only place that knows how each table is laid out.

use crate::model::columns as c;
use crate::model::{
    Boundary, Compaction, Interner, Call, Refusal, Request, SessionTitle, TitleKind, TokenCounts, DEFAULT_TRIGGER,
};
use chrono::{DateTime, Utc};
use polars::prelude::*;
use rayon::prelude::*;
use std::borrow::Borrow;

pub(crate) fn time_column(name: &str, times: impl Iterator<Item = DateTime<Utc>>) -> Column {
    let ms: Vec<i64> = times.map(|t| t.timestamp_millis()).collect();
    Int64Chunked::from_vec(name.into(), ms).into_datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC)).into_column()
}

// The column builders below fill the column's own buffer: `Column::new`
// over a Vec copies it (polars builds from a slice), and a Vec of `&str`
// or `Option`s is one more buffer the size of the column.

pub(crate) fn str_column<'a>(name: &str, v: impl Iterator<Item = &'a str>) -> Column {
    StringChunked::from_iter_values(name.into(), v).into_column()
}

pub(crate) fn u64_column(name: &str, v: impl Iterator<Item = u64>) -> Column {
    UInt64Chunked::from_vec(name.into(), v.collect()).into_column()
}

pub(crate) fn opt_u64_column(name: &str, v: impl Iterator<Item = Option<u64>>) -> Column {
    UInt64Chunked::from_iter_options(name.into(), v).into_column()
}

pub(crate) fn f64_column(name: &str, v: impl Iterator<Item = f64>) -> Column {
    Float64Chunked::from_vec(name.into(), v.collect()).into_column()
}

pub(crate) fn opt_f64_column(name: &str, v: impl Iterator<Item = Option<f64>>) -> Column {
    Float64Chunked::from_iter_options(name.into(), v).into_column()
}

pub(crate) fn bool_column(name: &str, v: impl Iterator<Item = bool>) -> Column {
    BooleanChunked::from_iter_values(name.into(), v).into_column()
}

/// The `requests` table. Columns are built in parallel.
pub fn requests_frame<R: Borrow<Request> + Sync>(rows: &[R]) -> PolarsResult<DataFrame> {
    let rows: Vec<&Request> = rows.iter().map(Borrow::borrow).collect();
    let rows = rows.as_slice();
    let s = |name: &'static str, f: fn(&Request) -> &str| move || str_column(name, rows.iter().map(|r| f(r)));
    let t =
        |name: &'static str, f: fn(&TokenCounts) -> u64| move || u64_column(name, rows.iter().map(|r| f(&r.tokens)));
    let builders: [&(dyn Fn() -> Column + Sync); 26] = [
        &|| time_column(c::TIME, rows.iter().map(|r| r.time)),
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
        &|| u64_column(c::WEB_SEARCH, rows.iter().map(|r| r.web_search)),
        &s(c::SPEED, |r| &r.speed),
        &s(c::INFERENCE_GEO, |r| &r.inference_geo),
        &s(c::SERVER_REASON, |r| &r.server_reason),
        &|| opt_u64_column(c::SERVER_MISSED_TOKENS, rows.iter().map(|r| r.server_missed_tokens)),
        &|| bool_column(c::IS_SIDECHAIN, rows.iter().map(|r| r.is_sidechain)),
        &|| f64_column(c::COST_USD, rows.iter().map(|r| r.cost_usd)),
        &s(c::SOURCE, |r| &r.source),
        &|| u64_column(c::LINE, rows.iter().map(|r| r.line)),
        &s(c::MESSAGE_ID, |r| &r.message_id),
        &s(c::REQUEST_ID, |r| &r.request_id),
        &s(c::USER, |r| &r.user),
        &s(c::MACHINE, |r| &r.machine),
    ];
    DataFrame::new(rows.len(), builders.par_iter().map(|b| b()).collect())
}

/// Column accessors over a DataFrame: each reads one column into a Vec
/// (nulls as empty/zero) and names the column in its error. Shared by every
/// table and query result that becomes typed rows.
pub struct Cols<'a>(pub &'a DataFrame);

impl<'a> Cols<'a> {
    pub fn str(&self, name: &str) -> PolarsResult<Vec<&'a str>> {
        Ok(self.0.column(name)?.str()?.iter().map(|v| v.unwrap_or("")).collect())
    }
    pub fn u64(&self, name: &str) -> PolarsResult<Vec<u64>> {
        let col = self.0.column(name)?.cast(&DataType::UInt64)?;
        Ok(col.u64()?.iter().map(|v| v.unwrap_or(0)).collect())
    }
    pub fn opt_u64(&self, name: &str) -> PolarsResult<Vec<Option<u64>>> {
        let col = self.0.column(name)?.cast(&DataType::UInt64)?;
        Ok(col.u64()?.iter().collect())
    }
    pub fn f64(&self, name: &str) -> PolarsResult<Vec<f64>> {
        let col = self.0.column(name)?.cast(&DataType::Float64)?;
        Ok(col.f64()?.iter().map(|v| v.unwrap_or(0.0)).collect())
    }
    /// A text column that older layouts lack: empty strings when absent.
    pub fn str_or_empty(&self, name: &str) -> PolarsResult<Vec<&'a str>> {
        match self.0.column(name) {
            Ok(_) => self.str(name),
            Err(_) => Ok(vec![""; self.0.height()]),
        }
    }
    /// A count column that older layouts lack: nulls when absent.
    pub fn opt_u64_or_none(&self, name: &str) -> PolarsResult<Vec<Option<u64>>> {
        match self.0.column(name) {
            Ok(_) => self.opt_u64(name),
            Err(_) => Ok(vec![None; self.0.height()]),
        }
    }
    pub fn bool(&self, name: &str) -> PolarsResult<Vec<bool>> {
        Ok(self.0.column(name)?.bool()?.iter().map(|v| v.unwrap_or(false)).collect())
    }
    /// The five token columns as counts per row.
    pub fn tokens(&self) -> PolarsResult<Vec<TokenCounts>> {
        let (input, w5, w1h) = (self.u64(c::INPUT)?, self.u64(c::CACHE_WRITE_5M)?, self.u64(c::CACHE_WRITE_1H)?);
        let (read, output) = (self.u64(c::CACHE_READ)?, self.u64(c::OUTPUT)?);
        Ok((0..input.len())
            .map(|i| TokenCounts {
                input: input[i],
                cache_write_5m: w5[i],
                cache_write_1h: w1h[i],
                cache_read: read[i],
                output: output[i],
            })
            .collect())
    }
    /// The prompt of each row: input, cache writes and cache read (no output).
    pub fn prompts(&self) -> PolarsResult<Vec<u64>> {
        let (input, w5, w1h) = (self.u64(c::INPUT)?, self.u64(c::CACHE_WRITE_5M)?, self.u64(c::CACHE_WRITE_1H)?);
        let read = self.u64(c::CACHE_READ)?;
        Ok((0..input.len()).map(|i| input[i] + w5[i] + w1h[i] + read[i]).collect())
    }
    pub fn time(&self, name: &str) -> PolarsResult<Vec<DateTime<Utc>>> {
        let col = self.0.column(name)?.cast(&DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC)))?;
        let ms = col.datetime()?.physical().clone();
        Ok(ms.iter().map(|v| DateTime::from_timestamp_millis(v.unwrap_or(0)).unwrap_or_default()).collect())
    }
}

/// Reads the `requests` table back into rows.
pub fn requests_from(df: &DataFrame) -> PolarsResult<Vec<Request>> {
    let k = Cols(df);
    let (time, session, thread, project) =
        (k.time(c::TIME)?, k.str(c::SESSION_ID)?, k.str(c::THREAD)?, k.str(c::PROJECT)?);
    let (cwd, branch, version, model) = (k.str(c::CWD)?, k.str(c::GIT_BRANCH)?, k.str(c::VERSION)?, k.str(c::MODEL)?);
    let tokens = k.tokens()?;
    let (web, speed, geo, side, cost) = (
        k.u64(c::WEB_SEARCH)?,
        k.str(c::SPEED)?,
        k.str(c::INFERENCE_GEO)?,
        k.bool(c::IS_SIDECHAIN)?,
        k.f64(c::COST_USD)?,
    );
    let (source, line, msg, req) = (k.str(c::SOURCE)?, k.u64(c::LINE)?, k.str(c::MESSAGE_ID)?, k.str(c::REQUEST_ID)?);
    let (user, machine) = (k.str(c::USER)?, k.str(c::MACHINE)?);
    let (reason, missed) = (k.str_or_empty(c::SERVER_REASON)?, k.opt_u64_or_none(c::SERVER_MISSED_TOKENS)?);
    let mut n = Interner::default();
    Ok((0..df.height())
        .map(|i| Request {
            time: time[i],
            session_id: n.get(session[i]),
            thread: n.get(thread[i]),
            project: n.get(project[i]),
            cwd: n.get(cwd[i]),
            git_branch: n.get(branch[i]),
            version: n.get(version[i]),
            model: n.get(model[i]),
            tokens: tokens[i],
            web_search: web[i],
            speed: n.get(speed[i]),
            inference_geo: n.get(geo[i]),
            server_reason: n.get(&crate::model::server_reason(reason[i])),
            server_missed_tokens: missed[i],
            is_sidechain: side[i],
            cost_usd: cost[i],
            source: n.get(source[i]),
            line: line[i],
            message_id: msg[i].to_owned(),
            request_id: req[i].to_owned(),
            user: n.get(user[i]),
            machine: n.get(machine[i]),
        })
        .collect())
}

/// The calls table (stored as `iterations`, after the transcript's field).
pub fn calls_frame(rows: &[Call]) -> PolarsResult<DataFrame> {
    let s = |name: &str, f: fn(&Call) -> &str| str_column(name, rows.iter().map(f));
    let t = |name: &str, f: fn(&TokenCounts) -> u64| u64_column(name, rows.iter().map(|r| f(&r.tokens)));
    DataFrame::new(
        rows.len(),
        vec![
            s(c::USER, |r| &r.user),
            s(c::MESSAGE_ID, |r| &r.message_id),
            s(c::REQUEST_ID, |r| &r.request_id),
            s(c::SOURCE, |r| &r.source),
            u64_column(c::LINE, rows.iter().map(|r| r.line)),
            u64_column(c::ITERATION, rows.iter().map(|r| u64::from(r.index))),
            s(c::ITERATION_TYPE, |r| &r.kind),
            s(c::MODEL, |r| &r.model),
            t(c::INPUT, |k| k.input),
            t(c::CACHE_WRITE_5M, |k| k.cache_write_5m),
            t(c::CACHE_WRITE_1H, |k| k.cache_write_1h),
            t(c::CACHE_READ, |k| k.cache_read),
            t(c::OUTPUT, |k| k.output),
            f64_column(c::COST_USD, rows.iter().map(|r| r.cost_usd)),
        ],
    )
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

/// Analysis rows (with the `columns::ANALYSIS_REQUEST` columns) as the
/// thread requests they were computed from: classifying them again gives
/// the stored verdicts, since a session's threads are whole.
pub fn requests_of(df: &DataFrame) -> PolarsResult<Vec<Request>> {
    let k = Cols(df);
    let (user, sid, thread, project, cwd) =
        (k.str(c::USER)?, k.str(c::SESSION_ID)?, k.str(c::THREAD)?, k.str(c::PROJECT)?, k.str(c::CWD)?);
    let (time, model, version, message) =
        (k.time(c::TIME)?, k.str(c::MODEL)?, k.str(c::VERSION)?, k.str(c::MESSAGE_ID)?);
    let (tokens, web, cost) = (k.tokens()?, k.u64(c::WEB_SEARCH)?, k.f64(c::COST_USD)?);
    let (speed, geo) = (k.str(c::SPEED)?, k.str(c::INFERENCE_GEO)?);
    let (reason, missed) = (k.str_or_empty(c::SERVER_REASON)?, k.opt_u64_or_none(c::SERVER_MISSED_TOKENS)?);
    // Repeated values (a session's id, its project, the models) share one
    // allocation, as the stored requests' do.
    let mut n = Interner::default();
    Ok((0..df.height())
        .map(|i| Request {
            time: time[i],
            session_id: n.get(sid[i]),
            thread: n.get(thread[i]),
            project: n.get(project[i]),
            cwd: n.get(cwd[i]),
            git_branch: n.get(""),
            version: n.get(version[i]),
            model: n.get(model[i]),
            tokens: tokens[i],
            web_search: web[i],
            speed: n.get(speed[i]),
            inference_geo: n.get(geo[i]),
            server_reason: n.get(&crate::model::server_reason(reason[i])),
            server_missed_tokens: missed[i],
            is_sidechain: false,
            cost_usd: cost[i],
            source: n.get(""),
            line: 0,
            message_id: message[i].to_owned(),
            request_id: String::new(),
            user: n.get(user[i]),
            machine: n.get(""),
        })
        .collect())
}

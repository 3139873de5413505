//! What a bundle's rows must satisfy beyond their schema: the checksum the
//! bundle carries (SHA-256 over the rows' canonical JSON, schema-1 rows as
//! schema 1 hashed them) and the token bounds the transcript parser holds
//! lines to, so no sum over imported rows can wrap. Schema-3 bundles carry
//! a checksum over their columns instead (`frame_checksum`). `bundle` writes the
//! checksum and calls both when it reads.

use crate::ingest::parse::MAX_WEB_SEARCHES;
use crate::model::{Boundary, Call, Compaction, Request, MAX_TOKENS};
use chrono::{DateTime, Utc};
use polars::prelude::*;
use sha2::{Digest, Sha256};
use std::io::Write;

/// SHA-256 over the rows' canonical JSON (any change to a value shows):
/// over requests and compactions alone when the bundle holds no call rows
/// (so schema-1 bundles still verify), else over all three kinds.
pub fn checksum_all(requests: &[Request], compactions: &[Compaction], calls: &[Call]) -> String {
    let rows: Vec<SumRow<'_>> = compactions.iter().map(SumRow::of).collect();
    match calls.is_empty() {
        true => digest(&(requests, rows)),
        false => digest(&(requests, rows, calls)),
    }
}

/// A compaction row as the checksum sees it: schema-1 fields as schema 1
/// wrote them (a defaulted trigger was `unknown`), and the v2 fields only
/// when they say something, so a schema-1 bundle's checksum still holds.
#[derive(serde::Serialize)]
struct SumRow<'a> {
    session_id: &'a str,
    time: chrono::DateTime<chrono::Utc>,
    trigger: &'a str,
    pre_tokens: Option<u64>,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    v2: Option<(&'a str, &'static str, Option<u64>)>,
}

impl<'a> SumRow<'a> {
    fn of(c: &'a Compaction) -> SumRow<'a> {
        let plain = c.uuid.is_empty() && c.boundary == Boundary::Compact && c.tokens_saved.is_none();
        SumRow {
            session_id: &c.session_id,
            time: c.time,
            trigger: if c.trigger_written { &c.trigger } else { "unknown" },
            pre_tokens: c.pre_tokens,
            source: &c.source,
            v2: (!plain).then_some((c.uuid.as_str(), c.boundary.as_str(), c.tokens_saved)),
        }
    }
}

fn digest(rows: &impl serde::Serialize) -> String {
    struct HashWriter(Sha256);
    impl Write for HashWriter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = HashWriter(Sha256::new());
    // Serialising plain rows into a hasher cannot fail.
    let _ = serde_json::to_writer(&mut h, rows);
    format!("sha256:{}", hex(&h.0.finalize()))
}

/// The checksum of a schema-3 bundle: SHA-256 over every value of the
/// bundle's frame, column by column in `columns` order (name, then each
/// value with a null marker; text length-prefixed, numbers as their 8
/// bytes): any change to a value, a null or the row order shows, and it
/// costs one pass over the columns instead of a JSON rendering of the rows.
pub fn frame_checksum(df: &DataFrame, columns: &[&str]) -> PolarsResult<String> {
    // ring's SHA-256 (the same digest as `sha2`'s) runs at twice the speed
    // here, and a bundle's frame is a hundred megabytes of values.
    let mut h = ring::digest::Context::new(&ring::digest::SHA256);
    // Values are gathered into one buffer per column: hashing a few bytes
    // at a time costs more than the hash itself.
    let mut buf: Vec<u8> = Vec::new();
    for name in columns {
        let col = df.column(name)?.as_materialized_series().rechunk();
        buf.clear();
        buf.extend_from_slice(name.as_bytes());
        // Most of a bundle's cells are the nulls of other kinds' columns: a
        // column of nulls alone is its markers, without a pass over values.
        let nulls = col.null_count() == col.len();
        match col.dtype() {
            DataType::String if nulls => buf.resize(buf.len() + 8 * col.len(), 0xff),
            DataType::String => {
                let ca = col.str()?;
                buf.reserve(ca.downcast_iter().map(|a| a.total_bytes_len()).sum::<usize>() + 8 * ca.len());
                for arr in ca.downcast_iter() {
                    arr.iter().for_each(|v| match v {
                        Some(s) => {
                            buf.extend_from_slice(&(s.len() as u64).to_le_bytes());
                            buf.extend_from_slice(s.as_bytes());
                        }
                        None => buf.extend_from_slice(&[0xff; 8]),
                    });
                }
            }
            DataType::Boolean if nulls => buf.resize(buf.len() + col.len(), 2),
            DataType::Boolean => col.bool()?.iter().for_each(|v| buf.push(v.map_or(2, u8::from))),
            _ if nulls => buf.resize(buf.len() + 9 * col.len(), 0xff),
            DataType::Float64 => put_tagged(&mut buf, col.len(), col.f64()?.iter().map(|v| v.map(f64::to_bits))),
            _ => {
                let ints = col.to_physical_repr().cast(&DataType::Int64)?;
                let ints = ints.i64()?;
                match ints.cont_slice() {
                    // No nulls: the values alone, each after its tag.
                    Ok(values) => put_tagged(&mut buf, values.len(), values.iter().map(|&x| Some(x as u64))),
                    Err(_) => put_tagged(&mut buf, ints.len(), ints.iter().map(|v| v.map(|x| x as u64))),
                }
            }
        }
        h.update(&buf);
    }
    Ok(format!("sha256:{}", hex(h.finish().as_ref())))
}

/// Appends `n` values, each as its 8 bytes after a tag byte (0), or as the
/// null marker (nine 0xff bytes): the buffer grows once, nulls are its fill.
fn put_tagged(buf: &mut Vec<u8>, n: usize, values: impl Iterator<Item = Option<u64>>) {
    let start = buf.len();
    buf.resize(start + 9 * n, 0xff);
    for (slot, v) in buf[start..].chunks_exact_mut(9).zip(values) {
        if let Some(v) = v {
            slot[0] = 0;
            slot[1..].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The refusal of the `i`th row of `what` (0-based), stamped `t`.
pub(super) fn after_the_clock(what: &str, i: usize, t: DateTime<Utc>) -> String {
    format!("{what} row {}: time {} is more than a day after the clock", i + 1, t.to_rfc3339())
}

/// Every token count is within `MAX_TOKENS` (10^9 per field per request),
/// as the transcript parser requires, so no sum over imported rows can
/// wrap; and no row is stamped after `latest`.
pub(super) fn check_bounds(
    requests: &[Request],
    compactions: &[Compaction],
    calls: &[Call],
    latest: DateTime<Utc>,
) -> Result<(), String> {
    let late = |what: &str, times: &mut dyn Iterator<Item = DateTime<Utc>>| {
        times.enumerate().find(|(_, t)| *t > latest).map(|(i, t)| after_the_clock(what, i, t))
    };
    if let Some(why) = late("request", &mut requests.iter().map(|r| r.time))
        .or_else(|| late("compaction", &mut compactions.iter().map(|c| c.time)))
    {
        return Err(why);
    }
    if let Some((i, (field, v))) = calls.iter().enumerate().find_map(|(i, c)| c.tokens.above_bound().map(|b| (i, b))) {
        return Err(format!("call row {}: {field} {v} is above the bound of {MAX_TOKENS} tokens per request", i + 1));
    }
    for (i, r) in requests.iter().enumerate() {
        if let Some((field, v)) = r.tokens.above_bound() {
            let id: String = r.message_id.chars().take(40).collect();
            return Err(format!(
                "request row {} (message {id:?}): {field} {v} is above the bound of {MAX_TOKENS} tokens per request",
                i + 1
            ));
        }
        if r.server_missed_tokens.is_some_and(|n| n > MAX_TOKENS) {
            return Err(format!("request row {}: server_missed_tokens is above the bound of {MAX_TOKENS}", i + 1));
        }
        if r.web_search > MAX_WEB_SEARCHES {
            return Err(format!(
                "request row {}: {} web searches is above the bound of {MAX_WEB_SEARCHES}",
                i + 1,
                r.web_search
            ));
        }
    }
    match compactions.iter().position(|c| c.pre_tokens.is_some_and(|p| p > MAX_TOKENS)) {
        Some(i) => Err(format!("compaction row {}: pre_tokens is above the bound of {MAX_TOKENS} tokens", i + 1)),
        None => Ok(()),
    }
}

//! A bundle's footer: the key-value metadata a bundle says about itself
//! (`BundleMeta`, row counts, checksum) as written and as read back, and the
//! footer's size claims checked against `limits` before any page is
//! decompressed. `bundle` writes and reads the rows.

use super::bundle::{
    Bundle, BundleMeta, BUNDLE_SCHEMA, META_CALLS, META_CHECKSUM, META_COMPACTIONS, META_CREATED, META_HASHED,
    META_MACHINE, META_REQUESTS, META_SCHEMA, META_USER, META_VERSION,
};
use super::integrity::checksum_all;
use super::limits::{self, BundleLimits, Chunk, Group, Verdict};
use super::TeamError;
use polars::io::parquet::read::FileMetadata;
use polars::prelude::*;
use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The footer's pairs of `b` (the checksum empty from schema 3, where it
/// is over the frame and set by the writer).
pub(super) fn meta_pairs(b: &Bundle) -> Vec<(String, String)> {
    let m = &b.meta;
    [
        (META_SCHEMA, m.schema.to_string()),
        (META_VERSION, m.version.clone()),
        (META_USER, m.user.clone()),
        (META_MACHINE, m.machine.clone()),
        (META_CREATED, m.created.clone()),
        (META_HASHED, m.hashed_paths.to_string()),
        (META_REQUESTS, b.requests.len().to_string()),
        (META_COMPACTIONS, b.compactions.len().to_string()),
        (META_CALLS, b.calls.len().to_string()),
        (
            META_CHECKSUM,
            match m.schema >= 3 {
                true => String::new(),
                false => checksum_all(&b.requests, &b.compactions, &b.calls),
            },
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// What a bundle says about itself, from its footer alone (no page is
/// decompressed): refused as `decode` would refuse it for its footer, its
/// size against `limits` or its metadata. An import groups its files by
/// person with it before decoding any.
pub(super) fn read_meta(bytes: &[u8], origin: &str, limits: &BundleLimits) -> Result<BundleMeta, TeamError> {
    footer(bytes, origin, limits).map(|(_, meta, _)| meta)
}

pub(super) type Footer<'b> = (ParquetReader<Cursor<&'b [u8]>>, BundleMeta, Vec<(String, String)>);

/// The bundle's reader, its meta and its footer's pairs, within `limits`.
pub(super) fn footer<'b>(bytes: &'b [u8], origin: &str, limits: &BundleLimits) -> Result<Footer<'b>, TeamError> {
    let damaged = |why: String| TeamError::Damaged { origin: origin.to_owned(), why };
    if !bytes.starts_with(b"PAR1") {
        return Err(TeamError::NotParquet { origin: origin.to_owned() });
    }
    if bytes.len() < 12 || !bytes.ends_with(b"PAR1") {
        return Err(damaged("the file is truncated (no Parquet footer)".into()));
    }
    let footer_len = u32::from_le_bytes([
        bytes[bytes.len() - 8],
        bytes[bytes.len() - 7],
        bytes[bytes.len() - 6],
        bytes[bytes.len() - 5],
    ]);
    if u64::from(footer_len) > limits::MAX_FOOTER {
        let (what, found, limit) = ("bytes of Parquet footer", u64::from(footer_len), limits::MAX_FOOTER);
        return Err(TeamError::OverLimit { origin: origin.to_owned(), what, found, limit });
    }
    let mut reader = ParquetReader::new(Cursor::new(bytes));
    let (kv, rows, groups) = guarded(|| {
        let m = reader.get_metadata()?;
        Ok((m.key_value_metadata.clone(), m.num_rows as u64, groups_of(m)))
    })
    .map_err(damaged)?;
    match limits::check(bytes, rows, &groups, limits) {
        Ok(()) => {}
        Err(Verdict::Over { what, found, limit }) => {
            return Err(TeamError::OverLimit { origin: origin.to_owned(), what, found, limit })
        }
        Err(Verdict::Malformed(why)) => return Err(damaged(why)),
    }
    let pairs: Vec<(String, String)> =
        kv.unwrap_or_default().into_iter().map(|p| (p.key, p.value.unwrap_or_default())).collect();
    let meta = parse_meta(&pairs, origin)?;
    Ok((reader, meta, pairs))
}

/// What decoding `bytes` would cost in memory, from its footer's claims:
/// `limits::ROW_BYTES` per row plus twice the bytes its columns expand to
/// (the decoded columns, then the typed rows). 0 when there is no
/// readable footer: decoding then refuses the file before it costs.
pub(super) fn decode_cost(bytes: &[u8]) -> u64 {
    if !bytes.starts_with(b"PAR1") || bytes.len() < 12 || !bytes.ends_with(b"PAR1") {
        return 0;
    }
    let mut reader = ParquetReader::new(Cursor::new(bytes));
    let Ok((rows, groups)) = guarded(|| reader.get_metadata().map(|m| (m.num_rows as u64, groups_of(m)))) else {
        return 0;
    };
    let rows = rows.max(groups.iter().map(|g| g.rows).sum());
    let expanded: u64 = groups.iter().flat_map(|g| &g.chunks).map(|c| c.uncompressed.max(0) as u64).sum();
    rows.saturating_mul(limits::ROW_BYTES).saturating_add(expanded.saturating_mul(2))
}

/// The footer's claims per row group, for `limits::check`.
fn groups_of(m: &FileMetadata) -> Vec<Group> {
    m.row_groups
        .iter()
        .map(|g| {
            let chunks = g.parquet_columns().iter().map(|c| {
                let r = c.byte_range();
                Chunk { start: r.start, end: r.end, values: c.num_values(), uncompressed: c.uncompressed_size() }
            });
            Group { rows: g.num_rows() as u64, chunks: chunks.collect() }
        })
        .collect()
}

/// Runs a decoder step; a decoder that panics on hostile bytes counts as a
/// damaged file, not a crash of the server.
pub(super) fn guarded<T>(f: impl FnOnce() -> PolarsResult<T>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the Parquet decoder could not read it".into()),
    }
}

pub(super) fn get<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn parse_meta(pairs: &[(String, String)], origin: &str) -> Result<BundleMeta, TeamError> {
    let not = |why: &str| TeamError::NotABundle { origin: origin.to_owned(), why: why.to_owned() };
    let schema = get(pairs, META_SCHEMA).ok_or_else(|| not("it has no cachewise.bundle_schema metadata"))?;
    let schema: u32 = schema.trim().parse().map_err(|_| not("its cachewise.bundle_schema is not a number"))?;
    if schema == 0 {
        return Err(not("its cachewise.bundle_schema is 0"));
    }
    if schema > BUNDLE_SCHEMA {
        return Err(TeamError::NewerSchema { origin: origin.to_owned(), found: schema, supported: BUNDLE_SCHEMA });
    }
    let s = |k: &str| get(pairs, k).unwrap_or_default().to_owned();
    Ok(BundleMeta {
        schema,
        version: s(META_VERSION),
        user: s(META_USER),
        machine: s(META_MACHINE),
        created: s(META_CREATED),
        hashed_paths: s(META_HASHED) == "true",
    })
}

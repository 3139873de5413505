//! The bundle: one Parquet file holding a person's requests, compactions,
//! the API calls inside their responses and the cache model's verdicts
//! (`kind` = `request` | `compaction` | `iteration` | `analysis`), each row
//! with `user` and `machine`,
//! and file metadata naming the bundle schema, the cachewise version and a
//! checksum of the rows. `docs/bundle-schema.md` documents it for other tools.
//! `bundle_bytes` writes one; `read_bundle` validates one (not Parquet, not a
//! bundle, over the `limits`, damaged, newer schema) and hands on typed rows.
//! The footer's metadata is read and written in `bundle_footer`.

use super::analysis;
pub use super::analysis::BundleAnalysis;
pub(super) use super::bundle_footer::read_meta;
use super::bundle_footer::{footer, get, guarded, meta_pairs};
use super::bundle_layout::{bundle_frame, column_order, CALL_COLUMNS};
use super::frame_checks;
use super::integrity::check_bounds;
pub use super::integrity::{checksum_all, frame_checksum, hex};
use super::limits::BundleLimits;
use super::TeamError;
use crate::model::columns as c;
use crate::model::{Call, Compaction, Request};
use crate::store::frames;
use chrono::{DateTime, Utc};
use polars::prelude::*;

/// Version of the bundle layout. Readers refuse bundles of a newer schema.
/// 2: compaction rows carry `uuid`, `boundary` (`compact` |
/// `microcompact`), `trigger_written` and `tokens_saved` (cache model v2),
/// and a request's API calls are rows of kind `iteration`. 3: the cache
/// model's verdicts travel as rows of kind `analysis` (`team::analysis`).
/// 4: request and analysis rows carry the server's miss reason
/// (`columns::REASON_COLUMNS`). 5: and Claude Code's record of each call
/// (`columns::CLIENT_COLUMNS`). Bundles of schema 1 to 4 (without those
/// columns and rows) are still read; a missing column reads as empty.
pub const BUNDLE_SCHEMA: u32 = 5;

/// Compaction columns added by bundle schema 2 (absent from schema 1).
pub(super) const V2_COLUMNS: [&str; 4] = [c::UUID, c::BOUNDARY, c::TRIGGER_WRITTEN, c::TOKENS_SAVED];

/// `kind` of a request row.
pub const KIND_REQUEST: &str = "request";
/// `kind` of a compaction row.
pub const KIND_COMPACTION: &str = "compaction";
/// `kind` of a call row (one API call inside a request, schema 2), after
/// the transcript's `usage.iterations`.
pub const KIND_CALL: &str = "iteration";
/// `kind` of an analysis row (one thread request's cache verdict, schema 3).
pub const KIND_ANALYSIS: &str = "analysis";

/// File metadata keys.
pub const META_SCHEMA: &str = "cachewise.bundle_schema";
pub const META_VERSION: &str = "cachewise.version";
pub const META_USER: &str = "cachewise.user";
pub const META_MACHINE: &str = "cachewise.machine";
pub const META_CREATED: &str = "cachewise.created";
pub const META_HASHED: &str = "cachewise.hashed_paths";
pub const META_REQUESTS: &str = "cachewise.requests";
pub const META_COMPACTIONS: &str = "cachewise.compactions";
pub const META_CALLS: &str = "cachewise.iterations";
pub const META_CHECKSUM: &str = "cachewise.checksum";
/// Analysis rows (schema 3): how many, and the stamp of the cache model
/// and prices that computed them (`materialize::stamp`).
pub const META_ANALYSIS: &str = "cachewise.analysis";
pub const META_ANALYSIS_STAMP: &str = "cachewise.analysis_stamp";

/// What a bundle says about itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BundleMeta {
    pub schema: u32,
    /// The cachewise version that wrote it.
    pub version: String,
    pub user: String,
    pub machine: String,
    /// RFC 3339 time of the export.
    pub created: String,
    /// Project paths, cwd, branches and sources are keyed hashes.
    pub hashed_paths: bool,
}

/// A bundle's rows. Requests and calls carry `user` (and requests
/// `machine`); compactions belong to the bundle's user.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub meta: BundleMeta,
    pub requests: Vec<Request>,
    pub compactions: Vec<Compaction>,
    /// The calls of the requests' lines (`model::calls`); empty in
    /// schema 1 bundles.
    pub calls: Vec<Call>,
    /// The cache model's rows (schema 3; None in older bundles and when
    /// the exporter had no analysis).
    pub analysis: Option<BundleAnalysis>,
}

/// The bundle as Parquet bytes.
pub fn bundle_bytes(b: &Bundle) -> Result<Vec<u8>, TeamError> {
    let polars = |source| TeamError::Polars { what: "writing the bundle", source };
    let mut df = bundle_frame(b).map_err(polars)?;
    let mut pairs = meta_pairs(b);
    if b.meta.schema >= 3 {
        let sum = frame_checksum(&df, &checksum_columns(b.meta.schema, &df)).map_err(polars)?;
        pairs.retain(|(k, _)| k != META_CHECKSUM);
        pairs.push((META_CHECKSUM.to_owned(), sum));
    }
    if let Some(a) = &b.analysis {
        pairs.push((META_ANALYSIS.to_owned(), a.rows.height().to_string()));
        pairs.push((META_ANALYSIS_STAMP.to_owned(), a.stamp.clone()));
    }
    let meta = KeyValueMetadata::from_static(pairs);
    let mut out = Vec::new();
    ParquetWriter::new(&mut out).with_key_value_metadata(Some(meta)).finish(&mut df).map_err(polars)?;
    Ok(out)
}

/// Validates and reads a bundle under the default `BundleLimits`; `origin`
/// names it in errors.
pub fn read_bundle(bytes: &[u8], origin: &str) -> Result<Bundle, TeamError> {
    read_bundle_limited(bytes, origin, &BundleLimits::default())
}

/// Validates and reads a bundle; one that would expand past `limits` is
/// refused (`TeamError::OverLimit`) before a page is decompressed.
pub fn read_bundle_limited(bytes: &[u8], origin: &str, limits: &BundleLimits) -> Result<Bundle, TeamError> {
    read(bytes, origin, limits, true)
}

/// Decodes bytes `read_bundle_limited` already accepted, without checking
/// the checksum and bounds again (an import's second pass).
pub(super) fn read_bundle_again(bytes: &[u8], origin: &str, limits: &BundleLimits) -> Result<Bundle, TeamError> {
    read(bytes, origin, limits, false)
}

fn read(bytes: &[u8], origin: &str, limits: &BundleLimits, verify: bool) -> Result<Bundle, TeamError> {
    rows_of(decode(bytes, origin, limits)?, origin, verify.then_some(limits.latest))
}

/// A decoded bundle's typed rows (`verify`: checked against its checksum
/// and bounds, no row stamped after the time it gives).
fn rows_of(decoded: Decoded, origin: &str, verify: Option<DateTime<Utc>>) -> Result<Bundle, TeamError> {
    let latest = verify.unwrap_or(DateTime::<Utc>::MAX_UTC);
    let verify = verify.is_some();
    let damaged = |why: String| TeamError::Damaged { origin: origin.to_owned(), why };
    let Decoded { meta, pairs, df } = decoded;
    let expected = get(&pairs, META_CHECKSUM).unwrap_or_default();
    if verify && meta.schema >= 3 {
        verify_checksum(&df, expected, meta.schema).map_err(damaged)?;
    }
    let (requests, compactions, calls) = guarded(|| split(&df)).map_err(damaged)?;
    let rows = guarded(|| analysis::rows_of(&df)).map_err(damaged)?;
    let analyzed = rows.as_ref().map_or(0, DataFrame::height);
    let unknown = df.height() - requests.len() - compactions.len() - calls.len() - analyzed;
    if unknown > 0 {
        return Err(damaged(format!("{unknown} row(s) of unknown kind")));
    }
    if verify && meta.schema < 3 && expected != checksum_all(&requests, &compactions, &calls) {
        return Err(damaged("the rows do not match the bundle's checksum".into()));
    }
    if verify {
        check_bounds(&requests, &compactions, &calls, latest).map_err(damaged)?;
    }
    let analysis = match rows {
        None => None,
        Some(rows) => {
            if verify {
                analysis::check(&rows, &meta.user).map_err(damaged)?;
            }
            Some(BundleAnalysis { stamp: get(&pairs, META_ANALYSIS_STAMP).unwrap_or_default().to_owned(), rows })
        }
    };
    Ok(Bundle { meta, requests, compactions, calls, analysis })
}

/// What a bundle says about itself and what it holds, counted.
#[derive(Debug, Clone)]
pub(super) struct Checked {
    pub meta: BundleMeta,
    pub requests: usize,
    pub compactions: usize,
}

/// Validates a bundle as `read_bundle_limited` does, owner included
/// (`frame_checks::check_owner`), without keeping its rows: a schema-3
/// bundle is checked on its decoded columns (no typed rows are built);
/// older ones, whose checksum is over typed rows, are read whole.
pub(super) fn check_limited(bytes: &[u8], origin: &str, limits: &BundleLimits) -> Result<Checked, TeamError> {
    let damaged = |why: String| TeamError::Damaged { origin: origin.to_owned(), why };
    let decoded = decode(bytes, origin, limits)?;
    if decoded.meta.schema < 3 {
        let b = rows_of(decoded, origin, Some(limits.latest))?;
        frame_checks::check_owner(&b, origin)?;
        return Ok(Checked { requests: b.requests.len(), compactions: b.compactions.len(), meta: b.meta });
    }
    let Decoded { meta, pairs, df } = decoded;
    verify_checksum(&df, get(&pairs, META_CHECKSUM).unwrap_or_default(), meta.schema).map_err(damaged)?;
    let (requests, compactions) =
        guarded(|| frame_checks::check(&df, &meta.user, limits.latest)).map_err(damaged)?.map_err(|e| match e {
            frame_checks::Failed::Damaged(why) => damaged(why),
            frame_checks::Failed::NotOwned(why) => TeamError::NotABundle { origin: origin.to_owned(), why },
        })?;
    Ok(Checked { meta, requests, compactions })
}

/// A decoded bundle: its meta, its footer's pairs and its one frame.
struct Decoded {
    meta: BundleMeta,
    pairs: Vec<(String, String)>,
    df: DataFrame,
}

/// Decodes a bundle within `limits` (refused before a page is
/// decompressed when over them) and checks its columns' names and types.
fn decode(bytes: &[u8], origin: &str, limits: &BundleLimits) -> Result<Decoded, TeamError> {
    let damaged = |why: String| TeamError::Damaged { origin: origin.to_owned(), why };
    let (reader, meta, pairs) = footer(bytes, origin, limits)?;
    let mut df = guarded(move || reader.finish()).map_err(damaged)?;
    check_columns(&df).map_err(damaged)?;
    text_bounds(&df, origin, limits)?;
    add_missing_reasons(&mut df).map_err(|e| damaged(e.to_string()))?;
    Ok(Decoded { meta, pairs, df })
}

/// The longest text value a bundle may carry (ids, paths, names and
/// models are far shorter).
pub const MAX_TEXT_BYTES: usize = 16 << 10;

/// Every text value within `MAX_TEXT_BYTES`, and all of them together
/// (each counted at its length however many rows share it) within the
/// decompressed cap: a dictionary page repeats one value on every row at
/// no cost in bytes, and the checks after decoding would build it once per
/// row (a 569 KB file that would be 38 GB). Reads only the values' lengths.
fn text_bounds(df: &DataFrame, origin: &str, limits: &BundleLimits) -> Result<(), TeamError> {
    let mut total: u64 = 0;
    for col in df.columns() {
        let Ok(text) = col.str() else { continue };
        for (row, value) in text.iter().enumerate() {
            let len = value.map_or(0, str::len);
            if len > MAX_TEXT_BYTES {
                let why = format!("row {}: a {} value of {len} bytes (at most {MAX_TEXT_BYTES})", row + 1, col.name());
                return Err(TeamError::Damaged { origin: origin.to_owned(), why });
            }
            total += len as u64;
        }
        if total > limits.decompressed {
            let (found, limit) = (total, limits.decompressed);
            return Err(TeamError::OverLimit { origin: origin.to_owned(), what: "bytes of text", found, limit });
        }
    }
    Ok(())
}

/// The columns a bundle of `schema` checksums: today's columns in their
/// order, those the bundle holds (a release before a column was added wrote
/// none of it, and checksummed the others in the same order), without the
/// reason columns in schema 3 (which had none; `add_missing_reasons` has
/// added them as nulls by now).
fn checksum_columns(schema: u32, df: &DataFrame) -> Vec<&'static str> {
    let held = |n: &&str| df.column(n).is_ok();
    let all = column_order().into_iter().filter(held);
    match schema {
        3 => all.filter(|n| !c::REASON_COLUMNS.contains(n)).collect(),
        _ => all.collect(),
    }
}

/// An older bundle's frame with the reason columns it lacks, null.
fn add_missing_reasons(df: &mut DataFrame) -> PolarsResult<()> {
    let n = df.height();
    for (name, dtype) in c::REASON_COLUMNS.iter().zip([DataType::String, DataType::UInt64]) {
        if df.column(name).is_err() {
            df.with_column(Column::full_null((*name).into(), n, &dtype))?;
        }
    }
    Ok(())
}

/// A schema-3 (or later) bundle's rows against the checksum it carries.
fn verify_checksum(df: &DataFrame, expected: &str, schema: u32) -> Result<(), String> {
    match frame_checksum(df, &checksum_columns(schema, df)).map_err(|e| e.to_string())? == expected {
        true => Ok(()),
        false => Err("the rows do not match the bundle's checksum".into()),
    }
}

/// Every bundle column is present with its type (the call columns
/// only when there are call rows: schema 1 bundles lack them).
fn check_columns(df: &DataFrame) -> Result<(), String> {
    let empty =
        Bundle { meta: empty_meta(), requests: Vec::new(), compactions: Vec::new(), calls: Vec::new(), analysis: None };
    let expected = bundle_frame(&empty).map_err(|e| e.to_string())?;
    for col in expected.columns() {
        match df.column(col.name().as_str()) {
            Err(_) if CALL_COLUMNS.contains(&col.name().as_str()) => {}
            Err(_) if V2_COLUMNS.contains(&col.name().as_str()) => {}
            Err(_) if c::REASON_COLUMNS.contains(&col.name().as_str()) => {}
            Err(_) if c::CLIENT_COLUMNS.contains(&col.name().as_str()) => {}
            Err(_) if analysis::own_columns().iter().any(|(n, _)| *n == col.name().as_str()) => {}
            Err(_) => return Err(format!("column {} is missing", col.name())),
            Ok(got) if got.dtype() != col.dtype() => {
                return Err(format!("column {} is {} (expected {})", col.name(), got.dtype(), col.dtype()))
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

fn empty_meta() -> BundleMeta {
    BundleMeta {
        schema: BUNDLE_SCHEMA,
        version: String::new(),
        user: String::new(),
        machine: String::new(),
        created: String::new(),
        hashed_paths: false,
    }
}

/// A bundle's rows by kind.
type Rows = (Vec<Request>, Vec<Compaction>, Vec<Call>);

fn split(df: &DataFrame) -> PolarsResult<Rows> {
    let kind = df.column(c::KIND)?.str()?;
    let requests = frames::requests_from(&df.filter(&kind.equal(KIND_REQUEST))?)?;
    let compactions = frames::compactions_from(&df.filter(&kind.equal(KIND_COMPACTION))?)?;
    let call_rows = df.filter(&kind.equal(KIND_CALL))?;
    let calls = match call_rows.height() {
        0 => Vec::new(),
        _ => frames::calls_from(&call_rows)?,
    };
    Ok((requests, compactions, calls))
}

//! The analysis table's two parts, as the requests table keeps its own
//! (`store::requests`). The base (`analysis.parquet`) carries the stamp
//! (cache model, layout, prices) and a generation number, incremented by
//! every rewrite of the base. The recent part (`analysis-recent.parquet`)
//! names the generation of the base it extends, and the session ids whose
//! rows it replaces: the whole table is the base without the rows of those
//! sessions, plus the recent part (which may hold no row of a replaced
//! session: its rows are gone). An append rewrites the recent part alone;
//! the base is rewritten (a fold) when the recent part grows, or when the
//! whole table is computed again. A recent part of an older generation is
//! what a fold cut short left behind: the base already holds its rows, and
//! it is ignored. Readers open the base, then the recent part, and start
//! over when a fold replaced the base between the two opens. The parts are
//! derived, so they are replaced without waiting for the disk: a crash
//! that leaves one torn fails its footer check, and the next ingest
//! computes the table again.

use super::STAMP;
use crate::model::columns as c;
use crate::store::frames::Cols;
use crate::store::{Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;

/// Parquet metadata key: the base's generation (in the recent part: the
/// generation of the base it extends).
const GENERATION: &str = "cachewise.analysis_generation";
/// Parquet metadata key of the recent part: the session ids it replaces (JSON).
const REPLACES: &str = "cachewise.analysis_replaces";
/// How many times a reader starts over while writers keep folding.
const TRIES: usize = 20;

type Reader = ParquetReader<BufReader<File>>;

/// What a part's footer says.
struct Footer {
    stamp: Option<String>,
    generation: u64,
    replaces: HashSet<String>,
}

/// The two parts, opened together, of one generation and one stamp.
pub(super) struct Parts {
    base: Reader,
    pub generation: u64,
    recent: Option<Reader>,
    /// Sessions whose base rows the recent part replaces (none without one).
    pub replaces: HashSet<String>,
}

/// One part opened, with its footer; None when there is no such file.
fn open(store: &Store, t: Table) -> Result<Option<(Reader, Footer)>, StoreError> {
    let path = store.path(t);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(StoreError::Io { path, source }),
    };
    let mut reader = ParquetReader::new(BufReader::new(file));
    let meta = reader.get_metadata().map_err(|e| StoreError::damaged(path.clone(), &e))?.clone();
    let value = |key: &str| {
        let kv = meta.key_value_metadata.iter().flatten().find(|kv| kv.key == key);
        kv.and_then(|kv| kv.value.clone())
    };
    let replaces = match value(REPLACES) {
        Some(text) => serde_json::from_str(&text).map_err(|e| StoreError::Damaged { path, cause: e.to_string() })?,
        None => HashSet::new(),
    };
    let generation = value(GENERATION).and_then(|g| g.parse().ok()).unwrap_or(0);
    Ok(Some((reader, Footer { stamp: value(STAMP), generation, replaces })))
}

impl Parts {
    /// The stored parts when the base carries `stamp`; None when there is
    /// no base or it was computed otherwise. A damaged part is an error.
    pub fn open(store: &Store, stamp: &str) -> Result<Option<Parts>, StoreError> {
        for _ in 0..TRIES {
            let Some((base, footer)) = open(store, Table::Analysis)? else { return Ok(None) };
            if footer.stamp.as_deref() != Some(stamp) {
                return Ok(None);
            }
            let generation = footer.generation;
            match open(store, Table::RecentAnalysis)? {
                Some((recent, f)) if f.generation == generation => {
                    if f.stamp.as_deref() != Some(stamp) {
                        return Ok(None);
                    }
                    return Ok(Some(Parts { base, generation, recent: Some(recent), replaces: f.replaces }));
                }
                _ if open(store, Table::Analysis)?.map(|(_, f)| f.generation) == Some(generation) => {
                    return Ok(Some(Parts { base, generation, recent: None, replaces: HashSet::new() }));
                }
                _ => tracing::debug!("analysis generation {generation} was replaced while opening; again"),
            }
        }
        Err(StoreError::Busy { dir: store.dir().to_path_buf(), tries: TRIES })
    }

    /// The whole table: the base without the replaced sessions, then the
    /// recent part.
    pub fn read(self, store: &Store) -> Result<DataFrame, StoreError> {
        let damaged = |t: Table| move |e: PolarsError| StoreError::damaged(store.path(t), &e);
        let base = self.base.finish().map_err(damaged(Table::Analysis))?;
        let Some(recent) = self.recent else { return Ok(base) };
        let recent = recent.finish().map_err(damaged(Table::RecentAnalysis))?;
        let mut out = without(&base, &self.replaces).map_err(damaged(Table::Analysis))?;
        out.vstack_mut_owned(recent).map_err(damaged(Table::RecentAnalysis))?;
        Ok(out)
    }

    /// True when a recent part replaces some of the base's sessions.
    pub fn has_recent(&self) -> bool {
        self.recent.is_some()
    }

    /// The recent part's rows (none without one).
    pub fn recent(&mut self, store: &Store) -> Result<Option<DataFrame>, StoreError> {
        let path = store.path(Table::RecentAnalysis);
        self.recent.take().map(|r| r.finish().map_err(|e| StoreError::damaged(path, &e))).transpose()
    }
}

/// `df` without the rows of `sessions`.
pub(super) fn without(df: &DataFrame, sessions: &HashSet<String>) -> PolarsResult<DataFrame> {
    df.filter(&!&of_sessions(df, sessions)?)
}

/// Up to this many sessions, their rows are read by a pushed-down filter
/// (an append's); past it, every row is read and masked.
const FILTER_SESSIONS: usize = 64;

/// The rows of `lf` that belong to `sessions`, collected.
pub fn collect_sessions(lf: LazyFrame, sessions: &HashSet<String>) -> PolarsResult<DataFrame> {
    if sessions.len() <= FILTER_SESSIONS {
        let any = sessions.iter().map(|s| col(c::SESSION_ID).eq(lit(s.clone()))).reduce(Expr::or);
        return lf.filter(any.unwrap_or(lit(false))).collect();
    }
    let all = lf.collect()?;
    all.filter(&of_sessions(&all, sessions)?)
}

/// Which rows of `df` belong to `sessions`.
pub(super) fn of_sessions(df: &DataFrame, sessions: &HashSet<String>) -> PolarsResult<BooleanChunked> {
    let ids = Cols(df).str(c::SESSION_ID)?;
    Ok(BooleanChunked::from_iter_values("of".into(), ids.iter().map(|s| sessions.contains(*s))))
}

/// A writer of an analysis part: LZ4, which writes several times faster
/// than the default zstd, for a file that is rewritten on every merge.
pub(super) fn writer<W: std::io::Write>(w: W, meta: KeyValueMetadata) -> ParquetWriter<W> {
    ParquetWriter::new(w).with_compression(ParquetCompression::Lz4Raw).with_key_value_metadata(Some(meta))
}

fn meta(pairs: Vec<(&str, String)>) -> KeyValueMetadata {
    KeyValueMetadata::from_static(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// The footer of a base of `generation` computed with `stamp`.
pub(super) fn base_meta(stamp: &str, generation: u64) -> KeyValueMetadata {
    meta(base_pairs(stamp, generation))
}

/// The footer pairs of a base of `generation` computed with `stamp`.
pub(super) fn base_pairs(stamp: &str, generation: u64) -> Vec<(&'static str, String)> {
    vec![(STAMP, stamp.to_owned()), (GENERATION, generation.to_string())]
}

/// Writes `df` as a new base of `generation`, and removes the recent part.
pub(super) fn write_base(store: &Store, df: &mut DataFrame, stamp: &str, generation: u64) -> Result<(), StoreError> {
    let meta = base_meta(stamp, generation);
    store.atomic_write_derived(&store.path(Table::Analysis), |w| writer(w, meta).finish(df).map(|_| ()))?;
    store.remove(Table::RecentAnalysis)
}

/// Writes `df` as the recent part extending base `generation`, replacing
/// the base's rows of `replaces`.
pub(super) fn write_recent(
    store: &Store,
    df: &mut DataFrame,
    stamp: &str,
    generation: u64,
    replaces: &HashSet<String>,
) -> Result<(), StoreError> {
    let path = store.path(Table::RecentAnalysis);
    let mut ids: Vec<&String> = replaces.iter().collect();
    ids.sort();
    let ids =
        serde_json::to_string(&ids).map_err(|e| StoreError::Damaged { path: path.clone(), cause: e.to_string() })?;
    let meta = meta(vec![(STAMP, stamp.to_owned()), (GENERATION, generation.to_string()), (REPLACES, ids)]);
    store.atomic_write_derived(&path, |w| writer(w, meta).finish(df).map(|_| ()))
}

/// The generation a new base gets: one past the current (readable) base.
pub(super) fn next_generation(store: &Store) -> u64 {
    match open(store, Table::Analysis) {
        Ok(Some((_, f))) => f.generation + 1,
        _ => 1,
    }
}

//! The two tables kept in two parts, requests and analysis, and the one
//! protocol both follow.
//!
//! A table is a **base** file and, sometimes, a **recent** part. The base
//! carries a generation number in its Parquet footer, incremented by every
//! rewrite of the base (a fold); the recent part names the generation of
//! the base it extends. An append rewrites the small recent part alone; a
//! fold writes a new base holding everything and removes the recent part.
//! The analysis parts also carry a stamp (the cache model, its layout and
//! the price table they were computed with: a part of another stamp is not
//! current), and the recent analysis part names the sessions whose base
//! rows it replaces (the whole table is the base without those sessions'
//! rows, then the recent part; the requests' recent part only adds rows).
//!
//! Writers hold the store's lock; readers do not. A reader opens the base,
//! then the recent part, and checks that they belong together: a recent
//! part of the base's generation always does; without one, the base must
//! still be the current one (else a fold replaced it, and removed or
//! rewrote the recent part, between the two opens) and the reader starts
//! over. A recent part of an older generation is what a fold cut short
//! left behind: its rows are already in the base, and it is ignored. The
//! files a reader opened stay readable as they were however often a writer
//! replaces them (every write is a rename over the old name), so a
//! `StoreView` that holds them reads one generation for as long as it lives.

use super::{Store, StoreError, Table};
use polars::prelude::*;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Seek};

/// One two-part table: its files and its footer's generation key.
#[derive(Debug, Clone, Copy)]
pub struct TwoParts {
    pub base: Table,
    pub recent: Table,
    generation_key: &'static str,
}

/// The requests: `requests.parquet` and `requests-recent.parquet`.
pub const REQUESTS: TwoParts =
    TwoParts { base: Table::Requests, recent: Table::RecentRequests, generation_key: "cachewise.requests_generation" };

/// The cache model's verdicts: `analysis.parquet` and `analysis-recent.parquet`.
pub const ANALYSIS: TwoParts =
    TwoParts { base: Table::Analysis, recent: Table::RecentAnalysis, generation_key: "cachewise.analysis_generation" };

/// Parquet footer key of the analysis parts' stamp.
pub const STAMP_KEY: &str = "cachewise.analysis";
/// Parquet footer key of the recent analysis part: the sessions it replaces (JSON).
const REPLACES_KEY: &str = "cachewise.analysis_replaces";

/// How many times a reader starts over while writers keep folding.
pub(super) const TRIES: usize = 20;

/// What a part's footer says.
#[derive(Debug, Clone, Default)]
pub struct Footer {
    pub stamp: Option<String>,
    pub generation: u64,
    pub replaces: HashSet<String>,
}

/// The parts of one generation, opened (each file at its start).
#[derive(Debug)]
pub struct Opened {
    pub base: File,
    pub generation: u64,
    pub recent: Option<File>,
    /// Sessions whose base rows the recent part replaces (none without one).
    pub replaces: HashSet<String>,
    /// Rows in the two files, from their footers (the table's rows when
    /// the recent part replaces none).
    pub rows: u64,
}

/// One part as `open_part` opened it.
pub(crate) struct Part {
    pub file: File,
    pub footer: Footer,
    /// Rows, from the footer.
    pub rows: u64,
}

impl Opened {
    /// The files, base first, with their tables.
    pub fn files(self, parts: &TwoParts) -> Vec<(Table, File)> {
        let mut out = vec![(parts.base, self.base)];
        out.extend(self.recent.map(|f| (parts.recent, f)));
        out
    }
}

impl Store {
    /// One part, opened at its start, with its footer; None when there is
    /// no such file.
    pub(crate) fn open_part(&self, parts: &TwoParts, t: Table) -> Result<Option<Part>, StoreError> {
        let path = self.path(t);
        let io = |source| StoreError::Io { path: path.clone(), source };
        let mut file = match super::files::open_regular(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        let mut probe = ParquetReader::new(BufReader::new(file.try_clone().map_err(io)?));
        let meta = probe.get_metadata().map_err(|e| StoreError::damaged(path.clone(), &e))?;
        let value = |key: &str| {
            let kv = meta.key_value_metadata.iter().flatten().find(|kv| kv.key == key);
            kv.and_then(|kv| kv.value.clone())
        };
        let replaces = match value(REPLACES_KEY) {
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| StoreError::Damaged { path: path.clone(), cause: e.to_string() })?,
            None => HashSet::new(),
        };
        let generation = value(parts.generation_key).and_then(|g| g.parse().ok()).unwrap_or(0);
        let footer = Footer { stamp: value(STAMP_KEY), generation, replaces };
        let rows = u64::try_from(meta.num_rows).unwrap_or(0);
        file.rewind().map_err(io)?;
        Ok(Some(Part { file, footer, rows }))
    }

    /// The generation of a table's base (None without one).
    pub(crate) fn generation_of(&self, parts: &TwoParts) -> Result<Option<u64>, StoreError> {
        Ok(self.open_part(parts, parts.base)?.map(|p| p.footer.generation))
    }

    /// The generation a new base gets: one past the current (readable)
    /// base; a base written over a damaged one starts a new count.
    pub(crate) fn next_generation_of(&self, parts: &TwoParts) -> Result<u64, StoreError> {
        match self.generation_of(parts) {
            Ok(g) => Ok(g.map_or(1, |g| g + 1)),
            Err(StoreError::Damaged { .. }) => Ok(1),
            Err(e) => Err(e),
        }
    }

    /// The parts of one generation, opened together; None without a base.
    /// With `stamp`, parts computed otherwise are not current: None.
    /// `between` runs after the base is opened (tests change the store there).
    pub(crate) fn open_parts_with(
        &self,
        parts: &TwoParts,
        stamp: Option<&str>,
        mut between: impl FnMut(),
    ) -> Result<Option<Opened>, StoreError> {
        let current = |f: &Footer| stamp.is_none_or(|s| f.stamp.as_deref() == Some(s));
        for _ in 0..TRIES {
            let Some(base) = self.open_part(parts, parts.base)? else { return Ok(None) };
            if !current(&base.footer) {
                return Ok(None);
            }
            let generation = base.footer.generation;
            between();
            match self.open_part(parts, parts.recent)? {
                Some(recent) if recent.footer.generation == generation => {
                    if !current(&recent.footer) {
                        return Ok(None);
                    }
                    return Ok(Some(Opened {
                        base: base.file,
                        generation,
                        recent: Some(recent.file),
                        replaces: recent.footer.replaces,
                        rows: base.rows + recent.rows,
                    }));
                }
                _ if self.generation_of(parts)? == Some(generation) => {
                    let replaces = HashSet::new();
                    return Ok(Some(Opened { base: base.file, generation, recent: None, replaces, rows: base.rows }));
                }
                _ => tracing::debug!(
                    "{} generation {generation} was replaced while opening; again",
                    parts.base.file_name()
                ),
            }
        }
        Err(StoreError::Busy { dir: self.dir.clone(), tries: TRIES })
    }

    /// `open_parts_with`, nothing run between the opens.
    pub(crate) fn open_parts(&self, parts: &TwoParts, stamp: Option<&str>) -> Result<Option<Opened>, StoreError> {
        self.open_parts_with(parts, stamp, || {})
    }
}

impl super::Commit<'_> {
    /// Writes `df` as part `t` of `parts` with the footer `footer`.
    pub(crate) fn write_part(
        &self,
        parts: &TwoParts,
        t: Table,
        df: &mut DataFrame,
        footer: &Footer,
        sync: bool,
    ) -> Result<(), StoreError> {
        let meta = footer_meta(parts, footer, &self.path(t))?;
        let body = |w: &mut std::io::BufWriter<&File>| {
            self.parquet_writer(w).with_key_value_metadata(Some(meta)).finish(df).map(|_| ())
        };
        match sync {
            true => self.atomic_write(&self.path(t), body),
            false => self.atomic_write_derived(&self.path(t), body),
        }
    }
}

/// The footer pairs of a part.
pub(crate) fn footer_pairs(parts: &TwoParts, footer: &Footer) -> Result<Vec<(String, String)>, serde_json::Error> {
    let mut pairs = vec![(parts.generation_key.to_owned(), footer.generation.to_string())];
    if let Some(stamp) = &footer.stamp {
        pairs.push((STAMP_KEY.to_owned(), stamp.clone()));
    }
    if !footer.replaces.is_empty() {
        let mut ids: Vec<&String> = footer.replaces.iter().collect();
        ids.sort();
        pairs.push((REPLACES_KEY.to_owned(), serde_json::to_string(&ids)?));
    }
    Ok(pairs)
}

/// The footer of a part as Parquet key-value metadata.
pub(crate) fn footer_meta(
    parts: &TwoParts,
    footer: &Footer,
    path: &std::path::Path,
) -> Result<KeyValueMetadata, StoreError> {
    let pairs = footer_pairs(parts, footer)
        .map_err(|e| StoreError::Damaged { path: path.to_path_buf(), cause: e.to_string() })?;
    Ok(KeyValueMetadata::from_static(pairs))
}

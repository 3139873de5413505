//! The analysis table stored from parts encoded side by side: the
//! shared-prefix flags are found over every part first (three columns),
//! then each part gets its what-if columns and is encoded into a file of
//! its own in one of two lanes (`crate::lanes`), and the files are joined
//! without decoding (`Store::join_files`) into a new base. A team import
//! so writes its 1.7M analysis rows on both cores where one writer encoded
//! them a batch at a time (`write_parts`, which stays for parts whose
//! schemas differ). Hands `team::append` the rows written.

use super::{finish_with, parts, stamp, warm_of};
use crate::lanes;
use crate::model::columns as c;
use crate::pricing::PriceTable;
use crate::store::{Store, StoreError, Table};
use polars::prelude::*;
use std::fs::File;
use std::path::PathBuf;

/// Stores the analysis table of `n` parts (each without the what-if
/// columns): `load(i, columns)` reads part `i`, only `columns` when given.
/// Returns the rows written, or None, with the table as it was, when the
/// parts' schemas differ.
pub fn write_parts_joined<L>(store: &Store, prices: &PriceTable, n: usize, load: L) -> Result<Option<usize>, StoreError>
where
    L: Fn(usize, Option<&[&str]>) -> Result<DataFrame, StoreError> + Sync,
{
    let path = store.path(Table::Analysis);
    let at = |source| StoreError::Polars { path: path.clone(), source };
    let key_columns = [c::MODEL, c::VERSION, c::TIME];
    let (mut keys, mut starts, mut rows) = (Vec::with_capacity(n), Vec::with_capacity(n), 0);
    for i in 0..n {
        let df = load(i, Some(&key_columns))?;
        starts.push(rows);
        rows += df.height();
        keys.push(df.select(key_columns).map_err(at)?);
    }
    let (w5, w1) = warm_of(&keys.iter().collect::<Vec<_>>()).map_err(at)?;
    drop(keys);
    let io = |source| StoreError::Io { path: store.dir().to_path_buf(), source };
    let dir = tempfile::Builder::new().prefix(".analysis-").tempdir_in(store.dir()).map_err(io)?;
    let items: Vec<usize> = (0..n).collect();
    let encoded = lanes::run(&items, lanes::LANES, |&i| -> Result<(PathBuf, File), StoreError> {
        let df = load(i, None)?;
        let (from, to) = (starts[i], starts[i] + df.height());
        let mut df = finish_with(df, w5[from..to].to_vec(), w1[from..to].to_vec()).map_err(at)?;
        df.rechunk_mut();
        let file = dir.path().join(format!("{i}.parquet"));
        let mut out = File::create(&file).map_err(|source| StoreError::Io { path: file.clone(), source })?;
        parts::writer(&mut out, parts::base_meta("", 0)).finish(&mut df).map_err(at)?;
        let out = File::open(&file).map_err(|source| StoreError::Io { path: file.clone(), source })?;
        Ok((file, out))
    });
    let files = encoded.into_iter().collect::<Result<Vec<_>, _>>()?;
    let set = parts::base_pairs(&stamp(prices), parts::next_generation(store));
    let Some(written) = store.join_files(&path, files, &set, false)? else { return Ok(None) };
    store.remove(Table::RecentAnalysis)?;
    Ok(Some(usize::try_from(written).unwrap_or(usize::MAX)))
}

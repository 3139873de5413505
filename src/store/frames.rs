//! Typed rows <-> polars DataFrames, with the column names from
//! `model::columns`. The only place that knows how each table is laid out:
//! the column builders and `Cols` here, the requests in `requests`, the
//! small tables (calls, refusals, compactions, titles) in `small`.

use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::pricing::Rates;
use chrono::{DateTime, Utc};
use polars::prelude::*;
use polars_arrow::array::Array;
use std::collections::HashMap;

mod requests;
mod small;
mod text_column;

pub use requests::{in_current_layout, requests_frame, requests_from, requests_of};
pub use small::{
    calls_frame, calls_from, compactions_frame, compactions_from, readings_frame, readings_from, refusals_frame,
    refusals_from, titles_frame, titles_from,
};

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

pub(crate) use text_column::text_column;

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

/// Column accessors over a DataFrame: each reads one column into a Vec
/// (nulls as empty/zero) and names the column in its error. Shared by every
/// table and query result that becomes typed rows.
pub struct Cols<'a>(pub &'a DataFrame);

/// A float column read in place (`Cols::floats`).
#[derive(Clone, Copy)]
pub struct Floats<'a>(Option<&'a polars_arrow::array::PrimitiveArray<f64>>);

impl Floats<'_> {
    /// Row `i`'s value; None for a null.
    pub fn get(&self, i: usize) -> Option<f64> {
        let a = self.0?;
        a.is_valid(i).then(|| a.value(i))
    }
}

impl<'a> Cols<'a> {
    /// Column `name`; None when the frame has no rows. A stored table of
    /// no rows is read as columns of null scalars, and reading one makes
    /// polars 0.55 build its shared 8 MiB buffer of zeros by writing every
    /// page of it (5 ms and 2,048 page faults of a warm report, for a calls
    /// table of no rows).
    fn rows(&self, name: &str) -> PolarsResult<Option<&'a Column>> {
        let col = self.0.column(name)?;
        Ok((self.0.height() > 0).then_some(col))
    }
    pub fn str(&self, name: &str) -> PolarsResult<Vec<&'a str>> {
        let Some(col) = self.rows(name)? else {
            polars_ensure!(self.0.column(name)?.dtype() == &DataType::String, SchemaMismatch: "column {name} is not text");
            return Ok(Vec::new());
        };
        let ca = col.str()?;
        let mut out = Vec::with_capacity(ca.len());
        for arr in ca.downcast_iter() {
            out.extend(arr.iter().map(|v| v.unwrap_or("")));
        }
        Ok(out)
    }
    pub fn u64(&self, name: &str) -> PolarsResult<Vec<u64>> {
        let Some(col) = self.rows(name)? else { return Ok(Vec::new()) };
        Ok(values(col.cast(&DataType::UInt64)?.u64()?, 0))
    }
    pub fn opt_u64(&self, name: &str) -> PolarsResult<Vec<Option<u64>>> {
        let Some(col) = self.rows(name)? else { return Ok(Vec::new()) };
        Ok(options(col.cast(&DataType::UInt64)?.u64()?))
    }
    pub fn f64(&self, name: &str) -> PolarsResult<Vec<f64>> {
        let Some(col) = self.rows(name)? else { return Ok(Vec::new()) };
        Ok(values(col.cast(&DataType::Float64)?.f64()?, 0.0))
    }
    /// A float column with its nulls (a gap, a rate, a what-if of no value).
    pub fn opt_f64(&self, name: &str) -> PolarsResult<Vec<Option<f64>>> {
        Ok(options(self.0.column(name)?.f64()?))
    }
    /// A float column of one chunk, read in place, with its nulls.
    pub fn floats(&self, name: &str) -> PolarsResult<Floats<'a>> {
        let ca = self.0.column(name)?.as_materialized_series().f64()?;
        polars_ensure!(ca.chunks().len() <= 1, ComputeError: "column {name} is more than one chunk");
        Ok(Floats(ca.downcast_iter().next()))
    }
    /// A number column of one chunk without nulls, read in place.
    pub fn slice<T: PolarsNumericType>(&self, name: &str) -> PolarsResult<&'a [T::Native]> {
        let s = self.0.column(name)?.as_materialized_series();
        s.unpack::<T>()?.cont_slice()
    }
    /// A time column of one chunk, as UTC milliseconds read in place.
    pub fn millis_slice(&self, name: &str) -> PolarsResult<&'a [i64]> {
        self.0.column(name)?.as_materialized_series().datetime()?.physical().cont_slice()
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
        let Some(col) = self.rows(name)? else { return Ok(Vec::new()) };
        let ca = col.bool()?;
        let mut out = Vec::with_capacity(ca.len());
        for arr in ca.downcast_iter() {
            out.extend(arr.iter().map(|v| v.unwrap_or(false)));
        }
        Ok(out)
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
    /// The rates each analysis row paid, from its three rate columns (None
    /// for a model without a price, whose columns are null).
    pub fn rates(&self) -> PolarsResult<Vec<Option<Rates>>> {
        let (pin, pout) = (self.opt_f64(c::RATE_INPUT)?, self.opt_f64(c::RATE_OUTPUT)?);
        let prm = self.opt_f64(c::RATE_READ_MULTIPLIER)?;
        Ok((0..self.0.height()).map(|i| Rates::stored(pin[i], pout[i], prm[i])).collect())
    }
    /// The prompt of each row: input, cache writes and cache read (no output).
    pub fn prompts(&self) -> PolarsResult<Vec<u64>> {
        let (input, w5, w1h) = (self.u64(c::INPUT)?, self.u64(c::CACHE_WRITE_5M)?, self.u64(c::CACHE_WRITE_1H)?);
        let read = self.u64(c::CACHE_READ)?;
        Ok((0..input.len()).map(|i| input[i] + w5[i] + w1h[i] + read[i]).collect())
    }
    pub fn time(&self, name: &str) -> PolarsResult<Vec<DateTime<Utc>>> {
        let ms = self.millis(name)?;
        Ok(ms.into_iter().map(|v| DateTime::from_timestamp_millis(v).unwrap_or_default()).collect())
    }
    /// A time column as milliseconds since the epoch (UTC).
    pub fn millis(&self, name: &str) -> PolarsResult<Vec<i64>> {
        let Some(col) = self.rows(name)? else { return Ok(Vec::new()) };
        let col = col.cast(&DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC)))?;
        Ok(values(col.datetime()?.physical(), 0))
    }
}

// Column readers a chunk at a time (polars' iterator over every chunk
// cost a report over every analysis row about a second); a chunk's own
// iterator skips its validity when it has no nulls, and a numeric chunk
// without nulls is copied whole.

/// A numeric column's values, nulls as `null`.
fn values<T: PolarsNumericType>(ca: &ChunkedArray<T>, null: T::Native) -> Vec<T::Native> {
    let mut out = Vec::with_capacity(ca.len());
    for arr in ca.downcast_iter() {
        match arr.null_count() {
            0 => out.extend_from_slice(arr.values()),
            _ => out.extend(arr.iter().map(|v| v.copied().unwrap_or(null))),
        }
    }
    out
}

/// A numeric column's values with their nulls.
fn options<T: PolarsNumericType>(ca: &ChunkedArray<T>) -> Vec<Option<T::Native>> {
    let mut out = Vec::with_capacity(ca.len());
    for arr in ca.downcast_iter() {
        out.extend(arr.iter().map(|v| v.copied()));
    }
    out
}

/// Project -> its distinct non-empty cwds, in the order the requests
/// first name them, read a slice of the `rows` requests at a time (the
/// pairs of every request read at once held 1.2 GB on a 100-person store).
pub(super) fn project_cwds(requests: LazyFrame, rows: usize) -> PolarsResult<HashMap<String, Vec<String>>> {
    const SLICE: usize = 1 << 20;
    let mut by: HashMap<String, Vec<String>> = HashMap::new();
    for at in (0..rows).step_by(SLICE) {
        let slice = requests.clone().slice(i64::try_from(at).unwrap_or(i64::MAX), SLICE as IdxSize);
        let df = slice.select([col(c::PROJECT), col(c::CWD)]).collect()?;
        let k = Cols(&df);
        let mut last = ("", "");
        // Rows come grouped by session: a pair is looked up when it changes.
        for pair in k.str(c::PROJECT)?.into_iter().zip(k.str(c::CWD)?) {
            if pair == last || pair.1.is_empty() {
                continue;
            }
            last = pair;
            let cwds = by.entry(pair.0.to_owned()).or_default();
            if !cwds.iter().any(|w| w == pair.1) {
                cwds.push(pair.1.to_owned());
            }
        }
    }
    Ok(by)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_of_no_rows_reads_as_empty_columns_and_a_wrong_type_is_still_named() {
        let mut df = DataFrame::new(
            0,
            vec![
                str_column("s", std::iter::empty::<&str>()),
                Column::new("n".into(), Vec::<u64>::new()),
                Column::new("f".into(), Vec::<f64>::new()),
            ],
        )
        .unwrap();
        let mut bytes = Vec::new();
        ParquetWriter::new(&mut bytes).finish(&mut df).unwrap();
        let read = ParquetReader::new(std::io::Cursor::new(bytes)).finish().unwrap();
        let k = Cols(&read);
        assert_eq!(k.str("s").unwrap(), Vec::<&str>::new());
        assert_eq!((k.u64("n").unwrap(), k.f64("f").unwrap()), (vec![], vec![]));
        assert_eq!(k.opt_u64("n").unwrap(), vec![]);
        let err = k.str("n").unwrap_err().to_string();
        assert!(err.contains("column n is not text"), "{err}");
        assert!(k.str("missing").is_err(), "an absent column is an error");
    }

    #[test]
    fn columns_of_several_chunks_with_and_without_nulls_read_in_row_order() {
        let mut a = df!("s" => [Some("a"), None], "n" => [Some(1u64), None], "f" => [Some(0.5), None], "b" => [Some(true), None])
            .unwrap();
        let b = df!("s" => ["c", "d"], "n" => [3u64, 4], "f" => [1.5, 2.5], "b" => [false, true]).unwrap();
        a.vstack_mut(&b).unwrap();
        assert_eq!(a.column("n").unwrap().as_materialized_series().n_chunks(), 2);
        let k = Cols(&a);
        assert_eq!(k.str("s").unwrap(), vec!["a", "", "c", "d"]);
        assert_eq!(k.u64("n").unwrap(), vec![1, 0, 3, 4]);
        assert_eq!(k.opt_u64("n").unwrap(), vec![Some(1), None, Some(3), Some(4)]);
        assert_eq!(k.f64("f").unwrap(), vec![0.5, 0.0, 1.5, 2.5]);
        assert_eq!(k.opt_f64("f").unwrap(), vec![Some(0.5), None, Some(1.5), Some(2.5)]);
        assert_eq!(k.bool("b").unwrap(), vec![true, false, false, true]);
    }

    #[test]
    fn a_column_of_one_chunk_reads_in_place_and_one_of_several_is_refused() {
        let mut a = df!("f" => [Some(0.5), None], "n" => [1u64, 2]).unwrap();
        a.vstack_mut(&df!("f" => [Some(1.5)], "n" => [3u64]).unwrap()).unwrap();
        let err = Cols(&a).floats("f").err().unwrap().to_string();
        assert!(err.contains("column f is more than one chunk"), "{err}");
        assert!(Cols(&a).slice::<UInt64Type>("n").is_err());
        a.rechunk_mut();
        let k = Cols(&a);
        let f = k.floats("f").unwrap();
        assert_eq!((0..3).map(|i| f.get(i)).collect::<Vec<_>>(), vec![Some(0.5), None, Some(1.5)]);
        assert_eq!(k.slice::<UInt64Type>("n").unwrap(), &[1, 2, 3]);
        let t = df!("t" => [1_000i64, 2_000]).unwrap();
        let t = t.lazy().select([col("t").cast(DataType::Datetime(TimeUnit::Milliseconds, None))]).collect().unwrap();
        assert_eq!(Cols(&t).millis_slice("t").unwrap(), &[1_000, 2_000]);
    }

    #[test]
    fn each_project_lists_its_cwds_once_in_the_order_first_named() {
        let df = df!(
            c::PROJECT => ["-a", "-a", "-b", "-a", "-a", "-b"],
            c::CWD => ["/a", "/a", "", "/a/x", "/a", "/b"]
        )
        .unwrap();
        let by = project_cwds(df.lazy(), 6).unwrap();
        assert_eq!(by["-a"], ["/a", "/a/x"]);
        assert_eq!(by["-b"], ["/b"], "an empty cwd is no cwd");
        assert!(project_cwds(df!(c::PROJECT => [""; 0], c::CWD => [""; 0]).unwrap().lazy(), 0).unwrap().is_empty());
    }
}

//! Parquet files of one schema joined into one without decoding a page: the
//! bodies (column chunks, page indexes) are copied as they are, one after
//! the other, and a new footer lists every file's row groups with their
//! offsets moved by where the body landed. Statistics, encodings and the
//! codec stay each row group's own. A team import appends new people's
//! requests so (`Commit::concat_requests_base`): their scratch stores wrote
//! them in this store's codec, so the team's table is copied, not encoded
//! again. A large analysis table is written so too, as parts encoded side
//! by side (`materialize::joined`). Files whose schemas or Arrow schemas
//! differ are refused (`Mismatch`), and the caller encodes the rows instead.

use super::StoreError;
use polars::prelude::PolarsError;
use polars_parquet_format::thrift::protocol::{TCompactInputProtocol, TCompactOutputProtocol, TOutputProtocol};
use polars_parquet_format::{FileMetaData, KeyValue, RowGroup};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"PAR1";
/// The largest footer read (a file's footer is a few hundred kilobytes).
const MAX_FOOTER: usize = 64 << 20;
/// The key under which Arrow writers keep the Arrow schema.
const ARROW_SCHEMA: &str = "ARROW:schema";

/// Why files were not joined.
#[derive(Debug, thiserror::Error)]
pub(super) enum ConcatError {
    #[error("not a Parquet file: {0}")]
    Malformed(String),
    #[error("the files' schemas differ")]
    Mismatch,
    #[error("writing: {0}")]
    Io(#[from] std::io::Error),
}

/// One file: its bytes and its parsed footer.
pub(super) struct Part {
    bytes: Vec<u8>,
    meta: FileMetaData,
    body_end: usize,
}

impl Part {
    /// Reads a Parquet file's footer (its pages are left as they are).
    pub(super) fn new(bytes: Vec<u8>) -> Result<Part, ConcatError> {
        let bad = |why: &str| ConcatError::Malformed(why.to_owned());
        let n = bytes.len();
        if n < 12 || !bytes.starts_with(MAGIC) || !bytes.ends_with(MAGIC) {
            return Err(bad("no Parquet magic at both ends"));
        }
        let mut len = [0u8; 4];
        len.copy_from_slice(&bytes[n - 8..n - 4]);
        let len = u32::from_le_bytes(len) as usize;
        let body_end = n.checked_sub(8 + len).filter(|&e| e >= 4).ok_or_else(|| bad("footer length"))?;
        let mut footer = &bytes[body_end..n - 8];
        let meta = FileMetaData::read_from_in_protocol(&mut TCompactInputProtocol::new(&mut footer, MAX_FOOTER))
            .map_err(|e| ConcatError::Malformed(e.to_string()))?;
        Ok(Part { bytes, meta, body_end })
    }
}

/// Writes `parts` as one Parquet file to `out`, their rows in order, one
/// part in memory at a time; the footer keeps the first part's metadata
/// pairs, with `set` replacing (or adding) its keys. Returns the rows
/// written. On an error `out` holds a torn file.
pub(super) fn concat(
    parts: impl IntoIterator<Item = Result<Part, ConcatError>>,
    set: &[(String, String)],
    out: &mut impl Write,
) -> Result<u64, ConcatError> {
    out.write_all(MAGIC)?;
    let mut at = MAGIC.len() as i64;
    let mut first: Option<FileMetaData> = None;
    let mut row_groups = Vec::new();
    let mut num_rows = 0;
    for p in parts {
        let p = p?;
        let arrow = |m: &FileMetaData| key(m, ARROW_SCHEMA).map(str::to_owned);
        match &first {
            Some(f) if f.schema != p.meta.schema || arrow(f) != arrow(&p.meta) => return Err(ConcatError::Mismatch),
            Some(_) => {}
            None => first = Some(p.meta.clone()),
        }
        let body = &p.bytes[MAGIC.len()..p.body_end];
        // An offset in the part is from its start, where its own magic is.
        let shift = at - MAGIC.len() as i64;
        row_groups.extend(p.meta.row_groups.into_iter().map(|g| moved(g, shift)));
        num_rows += p.meta.num_rows;
        out.write_all(body)?;
        at += body.len() as i64;
    }
    let Some(first) = first else { return Err(ConcatError::Malformed("no file to join".into())) };
    let mut pairs: Vec<KeyValue> = first.key_value_metadata.clone().unwrap_or_default();
    for (key, value) in set {
        pairs.retain(|kv| kv.key != *key);
        pairs.push(KeyValue { key: key.clone(), value: Some(value.clone()) });
    }
    let meta = FileMetaData { num_rows, row_groups, key_value_metadata: Some(pairs), ..first };
    let mut footer = Vec::new();
    let mut prot = TCompactOutputProtocol::new(&mut footer);
    meta.write_to_out_protocol(&mut prot).map_err(|e| ConcatError::Malformed(e.to_string()))?;
    prot.flush().map_err(|e| ConcatError::Malformed(e.to_string()))?;
    let len = u32::try_from(footer.len()).map_err(|_| ConcatError::Malformed("footer too large".into()))?;
    out.write_all(&footer)?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(MAGIC)?;
    Ok(u64::try_from(num_rows).unwrap_or(0))
}

fn key<'m>(m: &'m FileMetaData, key: &str) -> Option<&'m str> {
    m.key_value_metadata.iter().flatten().find(|kv| kv.key == key).and_then(|kv| kv.value.as_deref())
}

impl super::Commit<'_> {
    /// Replaces `target` with `files` joined (`concat`), whose footer pairs
    /// `set` replaces; `sync` waits for the disk (a derived table need not).
    /// Returns the rows written, or None, with `target` as it was, when a
    /// file's schema differs.
    pub(crate) fn join_files(
        &self,
        target: &Path,
        mut files: Vec<(PathBuf, File)>,
        set: &[(String, String)],
        sync: bool,
    ) -> Result<Option<u64>, StoreError> {
        let (mut reading, mut failed) = (target.to_path_buf(), None);
        let mut rows = 0;
        let body = |w: &mut std::io::BufWriter<&File>| {
            let parts = files.iter_mut().map(|(path, f)| {
                reading.clone_from(path);
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes)?;
                Part::new(bytes)
            });
            match concat(parts, set, w) {
                Ok(n) => {
                    rows = n;
                    Ok(())
                }
                Err(e) => {
                    failed = Some(e);
                    Err(PolarsError::ComputeError("the files were not joined".into()))
                }
            }
        };
        let written = match sync {
            true => self.atomic_write(target, body),
            false => self.atomic_write_derived(target, body),
        };
        match (written, failed) {
            (_, Some(ConcatError::Mismatch)) => Ok(None),
            (_, Some(e)) => Err(StoreError::Damaged { path: reading, cause: e.to_string() }),
            (Err(e), None) => Err(e),
            (Ok(()), None) => Ok(Some(rows)),
        }
    }
}

/// A row group whose bytes moved by `shift`: every offset into the file.
fn moved(mut g: RowGroup, shift: i64) -> RowGroup {
    let by = |o: &mut Option<i64>| *o = o.map(|v| v + shift);
    by(&mut g.file_offset);
    g.ordinal = None;
    for c in &mut g.columns {
        c.file_offset += shift;
        by(&mut c.offset_index_offset);
        by(&mut c.column_index_offset);
        if let Some(m) = &mut c.meta_data {
            m.data_page_offset += shift;
            by(&mut m.index_page_offset);
            by(&mut m.dictionary_page_offset);
            by(&mut m.bloom_filter_offset);
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::{concat, ConcatError, Part};
    use polars::prelude::*;
    use std::io::Cursor;
    use std::io::Write;

    fn file(df: &mut DataFrame, kv: &str, rows_per_group: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let meta = KeyValueMetadata::from_static(vec![("gen".to_owned(), kv.to_owned())]);
        ParquetWriter::new(&mut out)
            .with_compression(ParquetCompression::Lz4Raw)
            .with_row_group_size(Some(rows_per_group))
            .with_key_value_metadata(Some(meta))
            .finish(df)
            .unwrap();
        out
    }

    fn frame(from: i64, n: i64) -> DataFrame {
        let ids: Vec<String> = (from..from + n).map(|i| format!("msg_{i}")).collect();
        let opt: Vec<Option<i64>> = (from..from + n).map(|i| (i % 3 != 0).then_some(i * 7)).collect();
        df!("id" => ids, "n" => (from..from + n).collect::<Vec<i64>>(), "opt" => opt).unwrap()
    }

    #[test]
    fn joined_files_read_as_their_rows_in_order_with_the_new_pairs() {
        let (mut a, mut b, mut c) = (frame(0, 1000), frame(1000, 10), frame(1010, 0));
        let files = [file(&mut a, "1", 300), file(&mut b, "2", 4), file(&mut c, "3", 5)];
        let groups = |f: &Vec<u8>| ParquetReader::new(Cursor::new(f)).get_metadata().unwrap().row_groups.len();
        let written: Vec<usize> = files.iter().map(groups).collect();
        assert!(written[0] > 1 && written[1] > 1, "{written:?}");
        let parts: Vec<Part> = files.into_iter().map(|f| Part::new(f).unwrap()).collect();
        let mut out = Vec::new();
        assert_eq!(concat(parts.into_iter().map(Ok), &[("gen".to_owned(), "7".to_owned())], &mut out).unwrap(), 1010);
        let mut reader = ParquetReader::new(Cursor::new(&out));
        let meta = reader.get_metadata().unwrap().clone();
        assert_eq!(meta.row_groups.len(), written.iter().sum::<usize>(), "every row group is kept as it was written");
        let pairs = meta.key_value_metadata.clone().unwrap();
        assert_eq!(
            pairs.iter().filter(|kv| kv.key == "gen").map(|kv| kv.value.clone().unwrap()).collect::<Vec<_>>(),
            ["7"]
        );
        let joined = reader.finish().unwrap();
        let mut expected = frame(0, 1010);
        expected.rechunk_mut();
        assert!(joined.equals_missing(&expected), "{joined:?}");
        // Row-group statistics travel: a filter on a later file's value reads it.
        let tmp = write_tmp(&out);
        let files = ScanSources::Files(vec![std::fs::File::open(tmp.path()).unwrap()].into());
        let args = ScanArgsParquet { hive_options: HiveOptions::new_disabled(), ..ScanArgsParquet::default() };
        let found =
            LazyFrame::scan_parquet_sources(files, args).unwrap().filter(col("n").eq(lit(1005i64))).collect().unwrap();
        assert_eq!(found.height(), 1);
    }

    fn write_tmp(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    #[test]
    fn files_of_other_schemas_or_no_footer_are_refused() {
        let mut a = frame(0, 5);
        let mut b = df!("id" => ["x"]).unwrap();
        let parts = [Part::new(file(&mut a, "1", 5)), Part::new(file(&mut b, "1", 5))];
        assert!(matches!(concat(parts, &[], &mut Vec::new()), Err(ConcatError::Mismatch)));
        let mut bytes = file(&mut a, "1", 5);
        bytes.truncate(bytes.len() - 3);
        assert!(matches!(Part::new(bytes), Err(ConcatError::Malformed(_))));
        let mut lying = file(&mut a, "1", 5);
        let n = lying.len();
        lying[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Part::new(lying), Err(ConcatError::Malformed(_))));
    }
}

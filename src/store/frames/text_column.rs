//! A text column whose repeated values share their bytes. Rows in a
//! table's order repeat their neighbour's session, project, directory,
//! model and version; polars' builder copies every value longer than a
//! view's 12 inline bytes, so the analysis frame of the 1 GiB tree held
//! 17 MB of copies. Here a value equal to the row before reuses that row's
//! view (the same bytes of one buffer); the column reads and writes as any
//! other (`Utf8View`).

use polars::prelude::*;
use polars_arrow::array::{BinaryViewArray, View};
use polars_arrow::datatypes::ArrowDataType;
use polars_buffer::Buffer;

/// Bytes per buffer: views address a buffer with a `u32` offset.
const BUFFER_LIMIT: usize = u32::MAX as usize;

/// The column `name` of `values`, a value equal to the one before it
/// sharing its bytes.
pub(crate) fn text_column<'a>(name: &str, values: impl Iterator<Item = &'a str>) -> PolarsResult<Column> {
    let mut views: Vec<View> = Vec::with_capacity(values.size_hint().0);
    let mut buffers: Vec<Buffer<u8>> = Vec::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut last: Option<(&str, View)> = None;
    for value in values {
        // The same interned value (one pointer) is common and skips the comparison.
        if let Some((v, view)) = last.filter(|(v, _)| std::ptr::eq(*v, value) || *v == value) {
            views.push(view);
            last = Some((v, view));
            continue;
        }
        let view = if value.len() <= View::MAX_INLINE_SIZE as usize {
            View::new_inline(value.as_bytes())
        } else {
            if bytes.len() + value.len() > BUFFER_LIMIT {
                buffers.push(std::mem::take(&mut bytes).into());
            }
            let offset = u32::try_from(bytes.len()).map_err(|_| polars_err!(ComputeError: "text column too long"))?;
            let index = u32::try_from(buffers.len()).map_err(|_| polars_err!(ComputeError: "text column too long"))?;
            bytes.extend_from_slice(value.as_bytes());
            View::new_from_bytes(value.as_bytes(), index, offset)
        };
        views.push(view);
        last = Some((value, view));
    }
    if !bytes.is_empty() {
        buffers.push(bytes.into());
    }
    // Checked as bytes, then as UTF-8 a buffer at a time: `Utf8ViewArray::try_new`
    // checks each view's bytes, so a value shared by many rows was checked
    // once per row.
    let array =
        BinaryViewArray::try_new(ArrowDataType::BinaryView, views.into(), buffers.into(), None)?.to_utf8view()?;
    Ok(StringChunked::with_chunk(name.into(), array).into_column())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn values(c: &Column) -> PolarsResult<Vec<String>> {
        Ok(c.str()?.iter().map(|v| v.unwrap_or_default().to_owned()).collect())
    }

    #[test]
    fn repeated_neighbours_share_one_copy_of_their_bytes() -> PolarsResult<()> {
        let long = "a-project-directory-name-longer-than-twelve-bytes";
        let rows = [long, long, long, "short", long, "another value over twelve bytes"];
        let c = text_column("p", rows.iter().copied())?;
        assert_eq!(values(&c)?, rows);
        let buffers: usize = c.str()?.downcast_iter().map(|a| a.total_buffer_len()).sum();
        // The long value twice (it came back after "short"), the other once.
        assert_eq!(buffers, 2 * long.len() + rows[5].len());
        Ok(())
    }

    /// The patched writer (vendor/polars-parquet/PATCHED.md) encodes a
    /// column of repeated neighbours as a dictionary in one pass; a column
    /// of other shapes takes polars' own way, and a float column is plain
    /// as polars writes it. Every column reads back as written.
    #[test]
    fn repeated_neighbours_are_written_as_a_dictionary() -> PolarsResult<()> {
        let n = 4_000;
        let session = |i: usize| format!("session-{:08}-with-a-long-id", i / 500);
        let grouped: Vec<String> = (0..n).map(session).collect();
        let unique: Vec<String> = (0..n).map(|i| format!("msg_{i:020}")).collect();
        let alternating: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "claude-opus-4-6" } else { "x" }).collect();
        let mut df = DataFrame::new(
            n,
            vec![
                text_column("grouped", grouped.iter().map(String::as_str))?,
                text_column("unique", unique.iter().map(String::as_str))?,
                text_column("alternating", alternating.iter().copied())?,
                Column::new("rate".into(), (0..n).map(|i| if i < n / 2 { 3.0 } else { 15.0 }).collect::<Vec<f64>>()),
            ],
        )?;
        let dir = tempfile::tempdir().map_err(|e| polars_err!(ComputeError: "{e}"))?;
        let store = crate::store::Store::open(dir.path()).map_err(|e| polars_err!(ComputeError: "{e}"))?;
        let mut bytes = Vec::new();
        store.parquet_writer(&mut bytes).finish(&mut df)?;
        let mut reader = ParquetReader::new(std::io::Cursor::new(bytes.clone()));
        let meta = reader.get_metadata()?.clone();
        let dictionary = |name: &str| {
            let group = &meta.row_groups[0];
            group
                .parquet_columns()
                .iter()
                .find(|c| c.descriptor().path_in_schema[0] == name)
                .map(|c| c.dictionary_page_offset().is_some())
        };
        assert_eq!(dictionary("grouped"), Some(true));
        assert_eq!(dictionary("alternating"), Some(true));
        assert_eq!(dictionary("unique"), Some(false));
        // Floats are written plain, the estimate of their cardinality skipped.
        assert_eq!(dictionary("rate"), Some(false));
        let back = ParquetReader::new(std::io::Cursor::new(bytes)).finish()?;
        assert!(back.equals(&df));
        assert_eq!(values(back.column("grouped")?)?, grouped);
        Ok(())
    }

    proptest! {
        /// Any values read back as polars' own builder makes them.
        #[test]
        fn reads_as_polars_builds_it(rows in proptest::collection::vec("[a-c]{0,3}|[a-z ]{10,20}|ü{7}", 0..60)) {
            let failed = |e: PolarsError| TestCaseError::fail(e.to_string());
            let ours = text_column("t", rows.iter().map(String::as_str)).map_err(failed)?;
            let theirs = StringChunked::from_iter_values("t".into(), rows.iter().map(String::as_str)).into_column();
            prop_assert_eq!(values(&ours).map_err(failed)?, values(&theirs).map_err(failed)?);
            prop_assert!(ours.as_materialized_series().equals(theirs.as_materialized_series()));
        }
    }
}

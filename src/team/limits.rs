//! Caps on what one bundle may make the reader build: rows, and bytes after
//! decompression. A Parquet file says how much it will expand to in its
//! footer (rows per row group, uncompressed bytes per column chunk) and in
//! each page header (uncompressed bytes, values); `check` walks those claims
//! before any page is decompressed, so a small file that would expand to
//! gigabytes is refused up front. The decoder never allocates more than a
//! page header claims (a page that decompresses to more is an error), so
//! bounding the claims bounds the memory. Hands `read_bundle` a verdict.

use polars_parquet_format::thrift::protocol::TCompactInputProtocol;
use polars_parquet_format::PageHeader;

/// Default cap on a bundle's rows (requests, compactions, calls and, from
/// schema 3, about one analysis row per request): several years of one
/// heavy user.
pub const DEFAULT_MAX_ROWS: u64 = 2_000_000;

/// Default cap on a bundle's bytes after decompression (all pages).
pub const DEFAULT_MAX_DECOMPRESSED: u64 = 512 << 20;

/// Memory one decoded row takes until it is in the store (its columns,
/// the typed request and the checksum pass), measured on a 1.2M-row
/// bundle: 1.58 GB at the peak, about 1.3 KB a row.
pub const ROW_BYTES: u64 = 1_400;

/// Largest footer read: a bundle's footer is a few KB per row group, and
/// a file of a million one-row groups has one of 84 MB, which would cost
/// seconds and most of a gigabyte to parse before any other check.
pub const MAX_FOOTER: u64 = 8 << 20;

/// Longest page header read (a header is a few dozen bytes; statistics can
/// add a few more).
const MAX_HEADER: usize = 64 << 10;

/// How much one bundle may expand to, and the latest time its rows may
/// carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleLimits {
    /// Rows, as the footer and the pages claim them.
    pub rows: u64,
    /// Bytes after decompression, summed over every page.
    pub decompressed: u64,
    /// No row may be stamped later (`at`: a day after the reader's clock,
    /// as ingest bounds a transcript line; none without a clock).
    pub latest: chrono::DateTime<chrono::Utc>,
}

impl Default for BundleLimits {
    fn default() -> BundleLimits {
        BundleLimits {
            rows: DEFAULT_MAX_ROWS,
            decompressed: DEFAULT_MAX_DECOMPRESSED,
            latest: chrono::DateTime::<chrono::Utc>::MAX_UTC,
        }
    }
}

impl BundleLimits {
    /// These caps, with rows stamped more than `MAX_AHEAD` after `now`
    /// refused (a year-9999 request would stretch a team's window to
    /// millions of days).
    pub fn at(self, now: chrono::DateTime<chrono::Utc>) -> BundleLimits {
        let latest = now.checked_add_signed(crate::ingest::parse::MAX_AHEAD).unwrap_or(self.latest);
        BundleLimits { latest, ..self }
    }
}

/// Why a bundle was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Over a cap: what, how much it claims, the cap.
    Over { what: &'static str, found: u64, limit: u64 },
    /// The claims contradict each other or the file.
    Malformed(String),
}

/// What a row group holds, as `check` needs it (from the footer).
#[derive(Debug, Clone)]
pub struct Group {
    pub rows: u64,
    /// Per column chunk: byte range in the file, values, uncompressed bytes.
    pub chunks: Vec<Chunk>,
}

/// One column chunk's footer claims.
#[derive(Debug, Clone)]
pub struct Chunk {
    pub start: u64,
    pub end: u64,
    pub values: i64,
    pub uncompressed: i64,
}

/// Checks the footer's and every page header's claims against `limits`.
pub fn check(file: &[u8], file_rows: u64, groups: &[Group], limits: &BundleLimits) -> Result<(), Verdict> {
    let group_rows = groups.iter().fold(0u64, |a, g| a.saturating_add(g.rows));
    let rows = file_rows.max(group_rows);
    if rows > limits.rows {
        return Err(Verdict::Over { what: "rows", found: rows, limit: limits.rows });
    }
    let mut footer_bytes = 0u64;
    let mut page_bytes = 0u64;
    for g in groups {
        for c in &g.chunks {
            if c.values < 0 || c.values as u64 > g.rows || c.uncompressed < 0 {
                return Err(Verdict::Malformed("a column chunk claims more values than its row group has rows".into()));
            }
            footer_bytes = footer_bytes.saturating_add(c.uncompressed as u64);
            page_bytes = page_bytes.saturating_add(pages(file, c, g.rows, limits)?);
            let claimed = footer_bytes.max(page_bytes);
            if claimed > limits.decompressed {
                let what = "bytes after decompression";
                return Err(Verdict::Over { what, found: claimed, limit: limits.decompressed });
            }
        }
    }
    Ok(())
}

/// Walks a column chunk's page headers (as the decoder will): the bytes
/// they claim after decompression. Values past the row group's rows, or a
/// header outside the chunk, are malformed.
fn pages(file: &[u8], c: &Chunk, rows: u64, limits: &BundleLimits) -> Result<u64, Verdict> {
    let bad = |why: &str| Verdict::Malformed(why.to_owned());
    let end = usize::try_from(c.end).map_err(|_| bad("a column chunk lies outside the file"))?;
    let mut pos = usize::try_from(c.start).map_err(|_| bad("a column chunk lies outside the file"))?;
    if pos > end || end > file.len() {
        return Err(bad("a column chunk lies outside the file"));
    }
    let (mut seen, mut bytes) = (0u64, 0u64);
    while seen < c.values as u64 {
        let mut rest = &file[pos..end];
        let before = rest.len();
        let header = {
            let mut prot = TCompactInputProtocol::new(&mut rest, MAX_HEADER);
            PageHeader::read_from_in_protocol(&mut prot).map_err(|_| bad("a page header cannot be read"))?
        };
        let header_len = before - rest.len();
        let (size, compressed) = (header.uncompressed_page_size, header.compressed_page_size);
        let (Ok(size), Ok(compressed)) = (u64::try_from(size), usize::try_from(compressed)) else {
            return Err(bad("a page header claims a negative size"));
        };
        bytes = bytes.saturating_add(size);
        if bytes > limits.decompressed {
            return Ok(bytes);
        }
        let values = page_values(&header);
        if values < 0 || values as u64 > rows {
            return Err(bad("a page claims more values than its row group has rows"));
        }
        if header.dictionary_page_header.is_none() {
            seen += values as u64;
        }
        pos = pos.saturating_add(header_len).saturating_add(compressed);
        if pos > end {
            return Err(bad("a page runs past its column chunk"));
        }
    }
    Ok(bytes)
}

fn page_values(h: &PageHeader) -> i64 {
    if let Some(d) = &h.data_page_header {
        i64::from(d.num_values)
    } else if let Some(d) = &h.data_page_header_v2 {
        i64::from(d.num_values)
    } else if let Some(d) = &h.dictionary_page_header {
        i64::from(d.num_values)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn over(what: &'static str, found: u64, limit: u64) -> Result<(), Verdict> {
        Err(Verdict::Over { what, found, limit })
    }

    #[test]
    fn footer_claims_past_the_caps_are_refused_before_any_page_is_read() {
        let l = BundleLimits::default();
        // The reported bomb: 4M rows in a 365 KB file.
        assert_eq!(check(&[], 4_000_000, &[], &l), over("rows", 4_000_000, DEFAULT_MAX_ROWS));
        // Row groups claiming more rows than the footer's total count too.
        let g = |rows| Group { rows, chunks: Vec::new() };
        assert_eq!(check(&[], 10, &[g(1_100_000), g(1_100_000)], &l), over("rows", 2_200_000, DEFAULT_MAX_ROWS));
        let huge = Group { rows: 10, chunks: vec![Chunk { start: 0, end: 0, values: 0, uncompressed: 1 << 40 }] };
        assert_eq!(check(&[], 10, &[huge], &l), over("bytes after decompression", 1 << 40, DEFAULT_MAX_DECOMPRESSED));
        let liar = Group { rows: 10, chunks: vec![Chunk { start: 0, end: 0, values: 11, uncompressed: 0 }] };
        assert!(matches!(check(&[], 10, &[liar], &l), Err(Verdict::Malformed(_))));
        let outside = Group { rows: 10, chunks: vec![Chunk { start: 0, end: 99, values: 10, uncompressed: 0 }] };
        assert!(matches!(check(&[0; 10], 10, &[outside], &l), Err(Verdict::Malformed(_))));
    }
}

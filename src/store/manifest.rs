//! The ingest manifest: one entry per source file (size, mtime, offset of the
//! last complete line, a fingerprint of its head), so unchanged files are not
//! opened, grown files are read from where the last read stopped, and
//! rewritten files are read again.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the store layout; a store of another version is rebuilt
/// (every transcript read again, rows of deleted transcripts kept from the
/// old tables), except one of `UPGRADABLE_SCHEMAS`, which is upgraded in
/// place (`ingest::upgrade`). 4: the `iterations` and `refusals` tables, a
/// response priced by its calls; and (cache model v2) the compactions table
/// holds microcompacts too, with `user`, `uuid`, `boundary`,
/// `trigger_written` and `tokens_saved`; a defaulted trigger is `auto`, no
/// longer `unknown`. 5: the requests table's `server_reason` and
/// `server_missed_tokens` (cache model section 19); a table without
/// them reads as carrying no reason. 6: the requests table's
/// `query_source`, `shape_hash` and `ttl_asked` (Claude Code's record of
/// each call, cache model v4 section 16); a table without them reads as
/// carrying none.
pub const STORE_SCHEMA: u32 = 6;

/// Layout 3: the requests table of layout 4 without its v2 neighbours.
pub const PREVIOUS_SCHEMA: u32 = 3;

/// The layouts upgraded in place (every other one is rebuilt).
pub const UPGRADABLE_SCHEMAS: [u32; 3] = [3, 4, 5];

/// How many leading bytes identify a file across appends.
pub const HEAD_LEN: u64 = 4096;

/// What the last ingest knew about one source file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    pub size: u64,
    pub mtime_ns: i64,
    /// Byte offset just past the last complete line read.
    pub offset: u64,
    /// Lines before `offset`, so line numbers continue across reads.
    pub lines: u64,
    /// Bytes covered by `head_hash` (`min(HEAD_LEN, offset)`).
    pub head_len: u64,
    pub head_hash: u64,
    /// The last sidechain lines of an old inline sub-agent and the roots of
    /// their threads (`ingest::sidechain`), so an append names threads as a
    /// whole read would. Empty for nearly every file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sidechains: Vec<(u64, String)>,
    /// Claude Code's records of the file's last calls (2.1.33x: `api-request`
    /// id, source, shape), so a reply an append reads finds the call an
    /// earlier read took (`ingest::parse::client`): calls without a reply
    /// yet, and the last one; at most 8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<(String, String, String)>,
}

/// The manifest of a data directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: u32,
    /// Fingerprint of the price table `cost_usd` was computed with.
    pub pricing: u64,
    pub files: BTreeMap<String, FileState>,
    /// RFC 3339 time of the last ingest that changed anything.
    #[serde(default)]
    pub updated: Option<String>,
}

/// FNV-1a, 64 bit: a stable fingerprint (std's hasher may change between
/// Rust releases, which would make every file look rewritten).
pub fn fingerprint(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// True when the `len` bytes of `f` at `start` have `fingerprint` `hash`;
/// false when the file ends before them.
pub fn bytes_match(f: &mut std::fs::File, start: u64, len: u64, hash: u64) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut bytes = vec![0u8; usize::try_from(len).unwrap_or(0)];
    f.seek(SeekFrom::Start(start))?;
    match f.read_exact(&mut bytes) {
        Ok(()) => Ok(fingerprint(&bytes) == hash),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_stable() {
        assert_eq!(fingerprint(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}

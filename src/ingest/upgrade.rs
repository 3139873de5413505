//! Upgrading a store of an older layout (3, 4 or 5) in place on the next
//! ingest. Layout 6 adds Claude Code's record of each call to the requests
//! table: files whose assistant lines point to one (`requestRef`) or name
//! the TTL asked for (`promptCacheRequested`) are read again.
//! Layout 5 adds the server's miss reason to the requests table: files that
//! logged one (`cache_miss_reason`) are read again; every other row reads
//! as carrying none, and the ingest rewrites the requests table whole.
//! Layout 4 adds the `iterations` table and prices a response by its calls,
//! and keeps what cache model v2 needs of compaction lines (written trigger,
//! uuid, microcompacts); the requests table is unchanged. So only the files
//! whose lines logged a non-empty `usage.iterations` or a compaction or
//! microcompact boundary need reading again: their manifest entries are
//! dropped, which makes the ingest read them whole and replace their rows.
//! Every other row, those of deleted transcripts included, stays as it is (a
//! deleted transcript cannot be read again, so its requests keep their
//! top-level figures and its compactions read as defaulted `auto`).

use crate::store::manifest::{Manifest, PREVIOUS_SCHEMA, STORE_SCHEMA};
use memchr::memmem;
use std::io::Read;
use std::path::Path;

/// Forgets the files of an older manifest whose lines hold what the older
/// layout did not keep (layout 3: calls or boundaries; 3 and 4: miss
/// reasons; 3 to 5: Claude Code's records of calls); returns how many. A
/// file that cannot be read is forgotten too (it is read again, or its rows
/// stay when it is gone).
pub fn forget_files_with_calls(manifest: &mut Manifest) -> usize {
    if manifest.schema == STORE_SCHEMA || manifest.files.is_empty() {
        return 0;
    }
    let (before, schema) = (manifest.files.len(), manifest.schema);
    manifest.files.retain(|path, state| match file_logs_calls(Path::new(path), state.offset, schema) {
        Ok(calls) => !calls,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    });
    before - manifest.files.len()
}

/// Bytes read at once while looking for calls.
const CHUNK: usize = 8 << 20;
/// Bytes carried over from one chunk to the next, so a list split between
/// two reads is still seen.
const CARRY: usize = 64;

/// True when the first `limit` bytes of the file log calls, read a chunk
/// at a time so a large transcript never sits in memory whole.
/// `schema` is the manifest's layout: what to look for follows from it.
fn file_logs_calls(path: &Path, limit: u64, schema: u32) -> std::io::Result<bool> {
    let mut f = crate::store::files::open_regular(path)?.take(limit);
    let mut buf = vec![0u8; CHUNK];
    let mut window: Vec<u8> = Vec::with_capacity(CHUNK + CARRY);
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(false);
        }
        window.extend_from_slice(&buf[..n]);
        let layout3 = schema == PREVIOUS_SCHEMA && (logs_calls(&window) || logs_boundaries(&window));
        if layout3 || (schema < 5 && logs_reasons(&window)) || logs_client(&window) {
            return Ok(true);
        }
        window.drain(..window.len().saturating_sub(CARRY));
    }
}

/// The markers of lines whose v2 fields a layout-3 store did not keep.
const BOUNDARY_MARKERS: [&[u8]; 3] = [b"compact_boundary", b"\"isCompactSummary\"", b"microcompactMetadata"];

/// True when `bytes` hold a compaction or microcompact boundary (or an old
/// root summary); `compact_boundary` also matches `microcompact_boundary`.
pub fn logs_boundaries(bytes: &[u8]) -> bool {
    BOUNDARY_MARKERS.iter().any(|m| memmem::find(bytes, m).is_some())
}

/// True when `bytes` hold the server's miss reason (layout 5).
pub fn logs_reasons(bytes: &[u8]) -> bool {
    memmem::find(bytes, b"\"cache_miss_reason\"").is_some()
}

/// True when `bytes` hold Claude Code's record of a call (layout 6).
pub fn logs_client(bytes: &[u8]) -> bool {
    memmem::find(bytes, b"\"requestRef\"").is_some() || memmem::find(bytes, b"\"promptCacheRequested\"").is_some()
}

/// True when `bytes` hold a non-empty `"iterations":[...]` list.
pub fn logs_calls(bytes: &[u8]) -> bool {
    let key = b"\"iterations\":";
    memmem::find_iter(bytes, key).any(|at| {
        let mut rest = bytes[at + key.len()..].iter().filter(|b| !b.is_ascii_whitespace());
        rest.next() == Some(&b'[') && rest.next() == Some(&b'{')
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_list_split_between_chunks_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut body = vec![b'x'; CHUNK - 10];
        body.extend_from_slice(br#""iterations":[{"type":"message"}]"#);
        std::fs::write(&path, &body).unwrap();
        assert!(file_logs_calls(&path, body.len() as u64, PREVIOUS_SCHEMA).unwrap());
        assert!(!file_logs_calls(&path, body.len() as u64, 4).unwrap(), "layout 4 kept calls");
        assert!(
            !file_logs_calls(&path, (CHUNK - 10) as u64, PREVIOUS_SCHEMA).unwrap(),
            "only the bytes already read count"
        );
    }

    #[test]
    fn only_non_empty_lists_count() {
        assert!(!logs_calls(br#"{"usage":{"iterations":[]}}"#));
        assert!(!logs_calls(br#"{"usage":{"iterations": [ ] }}"#));
        assert!(logs_calls(br#"{"usage":{"iterations":[{"type":"message"}]}}"#));
        assert!(logs_calls(br#"{"usage":{"iterations": [ {"type":"message"}]}}"#));
        assert!(!logs_calls(b"no usage here"));
    }

    #[test]
    fn a_layout_4_store_reads_again_only_files_with_miss_reasons() {
        let dir = tempfile::tempdir().unwrap();
        let (with, without) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        std::fs::write(&with, br#"{"message":{"diagnostics":{"cache_miss_reason":{"type":"unavailable"}}}}"#).unwrap();
        std::fs::write(&without, br#"{"message":{"usage":{"iterations":[{"type":"message"}]}}}"#).unwrap();
        let mut m = Manifest { schema: 4, ..Manifest::default() };
        for p in [&with, &without] {
            let state = crate::store::manifest::FileState { offset: 200, ..Default::default() };
            m.files.insert(p.to_string_lossy().into_owned(), state);
        }
        assert_eq!(forget_files_with_calls(&mut m), 1);
        assert!(m.files.contains_key(without.to_string_lossy().as_ref()), "layout 4 kept the calls");
        m.schema = STORE_SCHEMA;
        assert_eq!(forget_files_with_calls(&mut m), 0, "the current layout forgets nothing");
    }

    #[test]
    fn boundaries_of_every_kind_count() {
        assert!(logs_boundaries(br#"{"type":"system","subtype":"compact_boundary"}"#));
        assert!(logs_boundaries(br#"{"type":"system","subtype":"microcompact_boundary"}"#));
        assert!(logs_boundaries(br#"{"isCompactSummary":true,"parentUuid":null}"#));
        assert!(!logs_boundaries(br#"{"type":"assistant","message":{"usage":{}}}"#));
    }
}

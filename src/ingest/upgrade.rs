//! Upgrading a store of the previous layout (3) in place on the next ingest.
//! Layout 4 adds the `iterations` table and prices a response by its calls;
//! the requests table is unchanged. So only the files whose lines logged a
//! non-empty `usage.iterations` need reading again: their manifest entries
//! are dropped, which makes the ingest read them whole and replace their
//! rows. Every other row, those of deleted transcripts included, stays as
//! it is (a deleted transcript cannot be read again, so its requests keep
//! their top-level figures).

use crate::store::manifest::{Manifest, PREVIOUS_SCHEMA};
use memchr::memmem;
use std::io::Read;

/// Forgets the files of a layout-3 manifest that logged calls; returns how
/// many. A file that cannot be read is forgotten too (it is read again, or
/// its rows stay when it is gone).
pub fn forget_files_with_calls(manifest: &mut Manifest) -> usize {
    if manifest.schema != PREVIOUS_SCHEMA {
        return 0;
    }
    let before = manifest.files.len();
    manifest.files.retain(|path, state| {
        let mut bytes = Vec::new();
        let read = std::fs::File::open(path).and_then(|f| f.take(state.offset).read_to_end(&mut bytes));
        match read {
            Ok(_) => !logs_calls(&bytes),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        }
    });
    before - manifest.files.len()
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
mod tests {
    use super::*;

    #[test]
    fn only_non_empty_lists_count() {
        assert!(!logs_calls(br#"{"usage":{"iterations":[]}}"#));
        assert!(!logs_calls(br#"{"usage":{"iterations": [ ] }}"#));
        assert!(logs_calls(br#"{"usage":{"iterations":[{"type":"message"}]}}"#));
        assert!(logs_calls(br#"{"usage":{"iterations": [ {"type":"message"}]}}"#));
        assert!(!logs_calls(b"no usage here"));
    }
}

//! The requests base's keys: a sorted list of hashes of every base row's
//! `(user, message id)`, written beside the base (`files::REQUESTS_KEYS`)
//! under a nonce the base's footer names. An append learns from it whether
//! its new requests touch the base without decoding the base's key columns
//! (85,000 rows on the 1 GiB tree: 7-10 ms).
//!
//! A hash found is a "maybe": two keys with one hash only make the append
//! rewrite the whole table, which deduplicates everything again; a key that
//! is in the base is always found. The hash is XXH3 (a fixed, published
//! function) with a seed drawn for each file, so no crafted id collides
//! with every store's keys; the file also holds the hash of a fixed text,
//! so a different function can never be taken for this one. The file is
//! derived: missing, damaged, of another hash or of another base (a nonce
//! the base's footer does not name, as after a crash between the two
//! writes, or a base joined by `concat_requests_base`, which writes none),
//! it is not used, and the base's key columns are read instead.

use super::{files, Store, StoreError};
use crate::model::columns as c;
use polars::prelude::*;
use std::io::Write;
use xxhash_rust::xxh3::xxh3_64_with_seed;

const MAGIC: &[u8; 8] = b"cwkeys01";
/// Magic, nonce, seed, check, count: the header's bytes.
const HEADER: usize = 40;
/// Hashed with the seed into the check.
const CHECK_TEXT: &[u8] = b"cachewise requests keys";

/// A base's key hashes, read back (`Store::requests_base_keys`).
#[derive(Debug)]
pub struct BaseKeys {
    seed: u64,
    hashes: Vec<u64>,
}

/// One key's hash; `buf` is reused between keys. `0xff` never occurs in
/// UTF-8, so no two pairs give one input.
fn hash(seed: u64, buf: &mut Vec<u8>, user: &str, message_id: &str) -> u64 {
    buf.clear();
    buf.extend_from_slice(user.as_bytes());
    buf.push(0xff);
    buf.extend_from_slice(message_id.as_bytes());
    xxh3_64_with_seed(buf, seed)
}

impl BaseKeys {
    /// The base's rows.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// A [`KeyProbe`] for looking keys up one after another.
    pub fn probe(&self) -> KeyProbe<'_> {
        KeyProbe { keys: self, buf: Vec::new() }
    }

    /// The keys of a file's bytes when it is one written under `nonce`
    /// for a base of `rows` rows; None otherwise.
    fn parse(bytes: &[u8], nonce: u64, rows: u64) -> Option<BaseKeys> {
        let word = |i: usize| -> Option<u64> { Some(u64::from_le_bytes(bytes.get(i..i + 8)?.try_into().ok()?)) };
        if bytes.get(..8)? != MAGIC || word(8)? != nonce {
            return None;
        }
        let (seed, check, count) = (word(16)?, word(24)?, word(32)?);
        let fits = usize::try_from(count).ok()?.checked_mul(8)?.checked_add(HEADER)? == bytes.len();
        if check != xxh3_64_with_seed(CHECK_TEXT, seed) || count != rows || !fits {
            return None;
        }
        let hashes: Vec<u64> = (HEADER..bytes.len()).step_by(8).map(word).collect::<Option<_>>()?;
        hashes.is_sorted().then_some(BaseKeys { seed, hashes })
    }
}

/// Looks keys up in a [`BaseKeys`].
pub struct KeyProbe<'a> {
    keys: &'a BaseKeys,
    buf: Vec<u8>,
}

impl KeyProbe<'_> {
    /// False when no base row has this key; true when one may.
    pub fn may_hold(&mut self, user: &str, message_id: &str) -> bool {
        let h = hash(self.keys.seed, &mut self.buf, user, message_id);
        self.keys.hashes.binary_search(&h).is_ok()
    }
}

/// The keys of a base being written, frame by frame.
pub(super) struct KeysWriter {
    pub nonce: u64,
    seed: u64,
    hashes: Vec<u64>,
    buf: Vec<u8>,
}

impl KeysWriter {
    pub fn new() -> KeysWriter {
        KeysWriter { nonce: rand::random(), seed: rand::random(), hashes: Vec::new(), buf: Vec::new() }
    }

    /// Adds the keys of a frame of the requests table.
    pub fn add(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let (user, message_id) = (df.column(c::USER)?.str()?, df.column(c::MESSAGE_ID)?.str()?);
        self.hashes.reserve(df.height());
        for (u, m) in user.iter().zip(message_id.iter()) {
            self.hashes.push(hash(self.seed, &mut self.buf, u.unwrap_or(""), m.unwrap_or("")));
        }
        Ok(())
    }

    /// Writes the file (after the base, whose footer names `nonce`).
    pub fn write(mut self, store: &Store) -> Result<(), StoreError> {
        self.hashes.sort_unstable();
        let path = files::requests_keys(store.dir());
        store.atomic_write_derived(&path, |w| {
            let count = self.hashes.len() as u64;
            let check = xxh3_64_with_seed(CHECK_TEXT, self.seed);
            w.write_all(MAGIC)?;
            for word in [self.nonce, self.seed, check, count].into_iter().chain(self.hashes.iter().copied()) {
                w.write_all(&word.to_le_bytes())?;
            }
            Ok(())
        })
    }
}

impl Store {
    /// The requests base's keys, when the file beside it belongs to it;
    /// None without a base, without the file, or with another's.
    pub fn requests_base_keys(&self) -> Result<Option<BaseKeys>, StoreError> {
        let Some(base) = self.open_part(&super::parts::REQUESTS, super::Table::Requests)? else { return Ok(None) };
        let Some(nonce) = base.footer.keys else { return Ok(None) };
        let path = files::requests_keys(self.dir());
        let keys = std::fs::read(&path).ok().and_then(|bytes| BaseKeys::parse(&bytes, nonce, base.rows));
        if keys.is_none() {
            tracing::debug!("{}: missing or not the keys of this base; reading its key columns", path.display());
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(users: &[&str], ids: &[&str]) -> DataFrame {
        df!(c::USER => users, c::MESSAGE_ID => ids).unwrap()
    }

    fn bytes_of(w: KeysWriter) -> (u64, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let nonce = w.nonce;
        w.write(&store).unwrap();
        (nonce, std::fs::read(files::requests_keys(dir.path())).unwrap())
    }

    #[test]
    fn every_written_key_is_found_and_strangers_are_not() {
        let mut w = KeysWriter::new();
        let ids: Vec<String> = (0..1000).map(|i| format!("msg_{i}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        w.add(&frame(&vec![""; 1000], &refs)).unwrap();
        w.add(&frame(&["ana"], &["msg_x"])).unwrap();
        let (nonce, bytes) = bytes_of(w);
        assert_eq!(bytes.len(), HEADER + 8 * 1001);
        let keys = BaseKeys::parse(&bytes, nonce, 1001).unwrap();
        assert_eq!(keys.len(), 1001);
        let mut probe = keys.probe();
        assert!(refs.iter().all(|id| probe.may_hold("", id)));
        assert!(probe.may_hold("ana", "msg_x"));
        // The user is part of the key, and the boundary between the two is kept.
        assert!(!probe.may_hold("", "msg_x"));
        assert!(!probe.may_hold("ana", "msg_0"));
        assert!(!probe.may_hold("an", "amsg_x"));
        let strangers = (0..1000).filter(|i| probe.may_hold("", &format!("other_{i}"))).count();
        assert_eq!(strangers, 0);
    }

    #[test]
    fn a_file_of_another_base_or_damaged_is_not_used() {
        let mut w = KeysWriter::new();
        w.add(&frame(&["", ""], &["a", "b"])).unwrap();
        let (nonce, bytes) = bytes_of(w);
        assert!(BaseKeys::parse(&bytes, nonce, 2).is_some());
        assert!(BaseKeys::parse(&bytes, nonce ^ 1, 2).is_none(), "another base's nonce");
        assert!(BaseKeys::parse(&bytes, nonce, 3).is_none(), "another row count");
        assert!(BaseKeys::parse(&bytes[..bytes.len() - 1], nonce, 2).is_none(), "cut short");
        let mut check = bytes.clone();
        check[24] ^= 1;
        assert!(BaseKeys::parse(&check, nonce, 2).is_none(), "another hash function");
        let mut order = bytes.clone();
        let (first, second) = order[HEADER..].split_at_mut(8);
        first.swap_with_slice(second);
        assert!(BaseKeys::parse(&order, nonce, 2).is_none(), "hashes out of order");
        assert!(BaseKeys::parse(b"cwkeys01", nonce, 0).is_none());
        assert!(BaseKeys::parse(&[], nonce, 0).is_none());
    }
}

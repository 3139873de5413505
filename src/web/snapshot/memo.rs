//! Values a snapshot computes on demand (filtered reports, per-person
//! report sets, team reports) and remembers until the next snapshot
//! replaces it. Bounded: when full, it starts over.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// How many values one memo remembers.
const LIMIT: usize = 256;

/// A map from a query to its computed value.
pub struct Memo<K, V> {
    map: Mutex<HashMap<K, Arc<V>>>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Memo<K, V> {
        Memo { map: Mutex::new(HashMap::new()) }
    }
}

impl<K: Hash + Eq, V> Memo<K, V> {
    /// The value of `key`, computed by `make` the first time. The lock is
    /// not held while computing, so two requests may both compute it once.
    pub fn get_or<E>(&self, key: K, make: impl FnOnce() -> Result<V, E>) -> Result<Arc<V>, E> {
        if let Some(v) = self.map.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(v);
        }
        let v = Arc::new(make()?);
        if let Ok(mut m) = self.map.lock() {
            if m.len() >= LIMIT {
                m.clear();
            }
            m.insert(key, Arc::clone(&v));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;

    #[test]
    fn computes_once_per_key() {
        let memo: Memo<u32, String> = Memo::default();
        let mut calls = 0;
        for _ in 0..3 {
            let v = memo.get_or(7, || {
                calls += 1;
                Ok::<_, ()>("seven".to_owned())
            });
            assert_eq!(v.as_deref().map(String::as_str), Ok("seven"));
        }
        assert_eq!(calls, 1);
        assert_eq!(memo.get_or(8, || Err::<String, _>("no")).err(), Some("no"));
    }
}

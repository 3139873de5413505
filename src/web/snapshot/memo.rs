//! Values a snapshot computes on demand (filtered reports, per-person
//! report sets, team reports) and remembers until the next snapshot
//! replaces it. Bounded in memory (when full, it starts over) and in CPU:
//! one value is computed at a time per memo, so a client cycling through
//! distinct `?since=` or `?user=` values queues behind itself instead of
//! taking every core, and two requests for one value compute it once.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};

/// How many values one memo remembers.
const LIMIT: usize = 256;

/// A map from a query to its computed value.
pub struct Memo<K, V> {
    map: Mutex<HashMap<K, Arc<V>>>,
    /// How many values it remembers (`LIMIT` unless set).
    limit: usize,
    /// Held while a value is computed.
    building: Mutex<()>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Memo<K, V> {
        Memo::with_limit(LIMIT)
    }
}

impl<K, V> Memo<K, V> {
    /// A memo of at most `limit` values (for large ones).
    pub fn with_limit(limit: usize) -> Memo<K, V> {
        Memo { map: Mutex::new(HashMap::new()), limit, building: Mutex::new(()) }
    }
}

impl<K: Hash + Eq, V> Memo<K, V> {
    /// The value of `key`, computed by `make` the first time, one
    /// computation at a time. Reads of remembered values never wait.
    pub fn get_or<E>(&self, key: K, make: impl FnOnce() -> Result<V, E>) -> Result<Arc<V>, E> {
        if let Some(v) = self.cached(&key) {
            return Ok(v);
        }
        let _turn = self.building.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = self.cached(&key) {
            return Ok(v);
        }
        let v = Arc::new(make()?);
        if let Ok(mut m) = self.map.lock() {
            if m.len() >= self.limit {
                m.clear();
            }
            m.insert(key, Arc::clone(&v));
        }
        Ok(v)
    }

    /// True when the value of `key` is remembered.
    pub fn holds(&self, key: &K) -> bool {
        self.cached(key).is_some()
    }

    fn cached(&self, key: &K) -> Option<Arc<V>> {
        self.map.lock().ok().and_then(|m| m.get(key).cloned())
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

    #[test]
    fn distinct_values_are_built_one_at_a_time() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let memo: Memo<u32, u32> = Memo::default();
        let (now, peak) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for k in 0..8 {
                let (memo, now, peak) = (&memo, &now, &peak);
                s.spawn(move || {
                    let v = memo.get_or(k, || {
                        peak.fetch_max(now.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        now.fetch_sub(1, Ordering::SeqCst);
                        Ok::<_, ()>(k * 2)
                    });
                    assert_eq!(v.map(|v| *v), Ok(k * 2));
                });
            }
        });
        assert_eq!(peak.load(Ordering::SeqCst), 1, "builds ran concurrently");
    }
}

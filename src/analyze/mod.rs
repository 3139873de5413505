//! Pure functions over the request and compaction tables: the cache model
//! (hits, misses, causes), idle gaps, what-if TTL, stale sessions, advice.

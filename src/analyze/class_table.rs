//! The class table (issue item 1): per cache class, how many requests, how
//! many tokens they rebuilt and what the misses cost. Every class is always
//! present (zeros included), so the JSON keys are a stable contract. Hands on
//! `ClassTable` to the summary and its per-day / per-session breakdowns.

use super::cache_class::{CacheClass, CLASSES};
use super::classify::RequestCache;
use serde::{Serialize, Serializer};
use std::ops::AddAssign;

/// Count, rebuilt tokens and miss cost of a set of requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ClassStats {
    pub count: u64,
    pub rebuilt_tokens: u64,
    pub miss_cost_usd: f64,
}

impl ClassStats {
    /// Adds one classified request.
    pub fn add(&mut self, c: &RequestCache) {
        self.add_parts(1, c.rebuilt_tokens, c.miss_cost_usd);
    }

    /// Adds `count` requests that rebuilt `rebuilt` tokens at `miss_cost`.
    pub fn add_parts(&mut self, count: u64, rebuilt: u64, miss_cost: f64) {
        self.count += count;
        self.rebuilt_tokens += rebuilt;
        self.miss_cost_usd += miss_cost;
    }
}

impl AddAssign for ClassStats {
    fn add_assign(&mut self, o: ClassStats) {
        self.count += o.count;
        self.rebuilt_tokens += o.rebuilt_tokens;
        self.miss_cost_usd += o.miss_cost_usd;
    }
}

/// One `ClassStats` per cache class, indexed by class; serialises as a map
/// with every class's name (cache-model v2: no `unexplained`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClassTable([ClassStats; CLASSES.len()]);

impl Serialize for ClassTable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(CLASSES.iter().map(|c| (c.name, self.get(c.class))))
    }
}

impl ClassTable {
    /// The stats of one class.
    pub fn get(&self, class: CacheClass) -> &ClassStats {
        &self.0[class as usize]
    }

    /// The stats of one class, to add to.
    pub fn get_mut(&mut self, class: CacheClass) -> &mut ClassStats {
        &mut self.0[class as usize]
    }

    /// Adds one classified request to its class.
    pub fn add(&mut self, c: &RequestCache) {
        self.get_mut(c.class).add(c);
    }

    /// Adds `count` requests of `class` (as `add` does for one `RequestCache`).
    pub fn add_parts(&mut self, class: CacheClass, count: u64, rebuilt: u64, miss_cost: f64) {
        self.get_mut(class).add_parts(count, rebuilt, miss_cost);
    }

    /// Total requests over all classes.
    pub fn requests(&self) -> u64 {
        CacheClass::ALL.iter().map(|&k| self.get(k).count).sum()
    }

    /// Requests that were lineage starts.
    pub fn starts(&self) -> u64 {
        CacheClass::ALL.iter().filter(|k| k.is_start()).map(|&k| self.get(k).count).sum()
    }

    /// Requests that were misses (any cause).
    pub fn misses(&self) -> u64 {
        CacheClass::ALL.iter().filter(|k| k.is_miss()).map(|&k| self.get(k).count).sum()
    }

    /// Miss cost within the TTL (v2: `microcompact`, `context_edit`,
    /// `full_rebuild`): the cache was warm but the prompt changed.
    pub fn edit_cost_usd(&self) -> f64 {
        CacheClass::ALL.iter().filter(|c| c.is_edit()).map(|&c| self.get(c).miss_cost_usd).sum()
    }

    /// The headline idle cost (§3): miss cost of `ttl_5m` and `ttl_1h`.
    pub fn idle_cost_usd(&self) -> f64 {
        CacheClass::ALL.iter().filter(|c| c.is_idle()).map(|&c| self.get(c).miss_cost_usd).sum()
    }
}

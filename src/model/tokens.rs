//! Token counts of one request or of any aggregate of requests.
//!
//! Counts are `u64` and merge with `+`, so rayon folds and report totals use
//! the same arithmetic.

use serde::{Deserialize, Serialize};
use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// The five billable token classes Claude Code logs per API response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCounts {
    /// Uncached input after the last cache breakpoint (`input_tokens`).
    pub input: u64,
    /// Cache writes with a 5-minute TTL.
    pub cache_write_5m: u64,
    /// Cache writes with a 1-hour TTL.
    pub cache_write_1h: u64,
    /// Cache reads (`cache_read_input_tokens`).
    pub cache_read: u64,
    /// Generated tokens, thinking included, as logged.
    pub output: u64,
}

impl TokenCounts {
    /// All cache writes, whatever their TTL.
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m + self.cache_write_1h
    }

    /// Prompt size `P = in + w + r`: what the request sent.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_write() + self.cache_read
    }
}

impl Add for TokenCounts {
    type Output = TokenCounts;
    fn add(self, o: TokenCounts) -> TokenCounts {
        TokenCounts {
            input: self.input + o.input,
            cache_write_5m: self.cache_write_5m + o.cache_write_5m,
            cache_write_1h: self.cache_write_1h + o.cache_write_1h,
            cache_read: self.cache_read + o.cache_read,
            output: self.output + o.output,
        }
    }
}

impl AddAssign for TokenCounts {
    fn add_assign(&mut self, o: TokenCounts) {
        *self = *self + o;
    }
}

impl Sum for TokenCounts {
    fn sum<I: Iterator<Item = TokenCounts>>(iter: I) -> TokenCounts {
        iter.fold(TokenCounts::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_and_prompt() {
        let a = TokenCounts { input: 1, cache_write_5m: 2, cache_write_1h: 3, cache_read: 4, output: 5 };
        let s: TokenCounts = [a, a].into_iter().sum();
        assert_eq!(s.input, 2);
        assert_eq!(s.cache_write(), 10);
        assert_eq!(a.prompt(), 10);
        assert_eq!(s.output, 10);
    }
}

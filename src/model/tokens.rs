//! Token counts of one request or of any aggregate of requests.
//!
//! Counts are `u64` and merge with `+`, so rayon folds and report totals use
//! the same arithmetic. Every count that enters the store (a transcript
//! line, a bundle row) is at most `MAX_TOKENS` per field, so a sum of up to
//! 18 billion requests fits in a `u64`; `+` saturates anyway, so a sum can
//! never wrap round to a small number.

use serde::{Deserialize, Serialize};
use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// The largest token count one field of one request may carry: 10^9. The
/// largest context window is 10^6 tokens, so a real request stays three
/// orders of magnitude below it; anything above is a damaged or hostile
/// line. At this bound `u64::MAX / MAX_TOKENS` (1.8 * 10^10) requests can
/// be summed exactly, more than any store holds.
pub const MAX_TOKENS: u64 = 1_000_000_000;

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
        self.cache_write_5m.saturating_add(self.cache_write_1h)
    }

    /// Prompt size `P = in + w + r`: what the request sent.
    pub fn prompt(&self) -> u64 {
        self.input.saturating_add(self.cache_write()).saturating_add(self.cache_read)
    }

    /// The fields of one request by name, for messages.
    pub fn fields(&self) -> [(&'static str, u64); 5] {
        [
            ("input_tokens", self.input),
            ("cache_write_5m_tokens", self.cache_write_5m),
            ("cache_write_1h_tokens", self.cache_write_1h),
            ("cache_read_tokens", self.cache_read),
            ("output_tokens", self.output),
        ]
    }

    /// The first field of one request above `MAX_TOKENS`, with its value.
    pub fn above_bound(&self) -> Option<(&'static str, u64)> {
        self.fields().into_iter().find(|(_, v)| *v > MAX_TOKENS)
    }
}

impl Add for TokenCounts {
    type Output = TokenCounts;
    /// Saturating: bounded inputs never reach `u64::MAX`, and should they,
    /// a total pinned at the maximum is wrong visibly, not by wrapping round.
    fn add(self, o: TokenCounts) -> TokenCounts {
        TokenCounts {
            input: self.input.saturating_add(o.input),
            cache_write_5m: self.cache_write_5m.saturating_add(o.cache_write_5m),
            cache_write_1h: self.cache_write_1h.saturating_add(o.cache_write_1h),
            cache_read: self.cache_read.saturating_add(o.cache_read),
            output: self.output.saturating_add(o.output),
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

    #[test]
    fn token_sums_never_wrap() {
        let big = TokenCounts { input: 1 << 63, cache_write_5m: u64::MAX, ..TokenCounts::default() };
        let s: TokenCounts = [big, big, TokenCounts { input: 11, ..TokenCounts::default() }].into_iter().sum();
        assert_eq!(s.input, u64::MAX, "2^63 + 2^63 + 11 saturates instead of wrapping to 11");
        assert_eq!(s.cache_write_5m, u64::MAX);
        assert_eq!(big.prompt(), u64::MAX);
    }

    #[test]
    fn above_bound_names_the_field() {
        let ok = TokenCounts { output: MAX_TOKENS, ..TokenCounts::default() };
        assert_eq!(ok.above_bound(), None);
        let bad = TokenCounts { cache_read: MAX_TOKENS + 1, ..TokenCounts::default() };
        assert_eq!(bad.above_bound(), Some(("cache_read_tokens", MAX_TOKENS + 1)));
    }
}

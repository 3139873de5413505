//! Money, in one place: the per-token rates a request pays (`Rates`), which
//! rates a figure uses (`Basis`), and what tokens cost at those rates, split
//! by token class (`Rates::split`, `ClassCost`), summed (`Rates::cost`), or
//! as the premium of writing a cache over reading it
//! (`Rates::rewrite_premium`). Every dollar cachewise shows (usage, miss
//! costs, the what-if policies, the stale premium, the advice, the status
//! line, the team report) is one of these three, so two views of one figure
//! agree. Nothing is rounded.

use crate::model::TokenCounts;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::ops::AddAssign;

/// Web search price per request ($10 per 1000).
pub const WEB_SEARCH_USD: f64 = 0.01;
/// TTL of a 5-minute cache write, in seconds.
pub const TTL_5M_S: u32 = 300;
/// TTL of a 1-hour cache write, in seconds.
pub const TTL_1H_S: u32 = 3600;

/// Per-token USD rates one request pays, after every multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// Base input price per token.
    pub input: f64,
    /// Output price per token.
    pub output: f64,
    /// Cache read price as a fraction of `input` (0.1 for most models).
    pub read_multiplier: f64,
}

/// Which rates a money figure uses (cache-model §4). A miss cost, a
/// what-if cost, a stale premium, a keep-warm ping and an idle gap's rebuild
/// are what *that request* paid (`Request`: long-context premium, fast mode
/// and data residency included). The advice prices future turns of a
/// session at the model's list prices at a time times the session's own
/// fast-mode and data-residency multipliers (`Session`, §7 v3: the advice
/// and the stale premium of one session agree). The compaction side of the
/// idle-compaction what-if uses the plain list prices (`Base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The rates the request paid.
    Request,
    /// The model's list prices at a time, no premium or multiplier.
    Base(DateTime<Utc>),
    /// The model's list prices at a time times the request's fast-mode and
    /// data-residency multipliers, no long-context premium.
    Session(DateTime<Utc>),
}

/// Write multiplier of a TTL: 2 for 1h, 1.25 for 5m.
pub fn write_multiplier(ttl_s: u32) -> f64 {
    if ttl_s >= TTL_1H_S {
        2.0
    } else {
        1.25
    }
}

impl Rates {
    /// The rates stored on an analysis row's three rate columns (None for
    /// an unknown model, whose columns are null).
    pub fn stored(input: Option<f64>, output: Option<f64>, read_multiplier: Option<f64>) -> Option<Rates> {
        Some(Rates { input: input?, output: output?, read_multiplier: read_multiplier? })
    }

    /// 5-minute cache write price per token.
    pub fn write_5m(&self) -> f64 {
        self.input * 1.25
    }
    /// 1-hour cache write price per token.
    pub fn write_1h(&self) -> f64 {
        self.input * 2.0
    }
    /// Cache write price per token at `ttl_s`.
    pub fn write(&self, ttl_s: u32) -> f64 {
        self.input * write_multiplier(ttl_s)
    }
    /// Cache read price per token.
    pub fn read(&self) -> f64 {
        self.input * self.read_multiplier
    }

    /// What `t` and `web_search` searches cost at these rates, per token class.
    pub fn split(&self, t: &TokenCounts, web_search: u64) -> ClassCost {
        ClassCost {
            input: t.input as f64 * self.input,
            write_5m: t.cache_write_5m as f64 * self.write_5m(),
            write_1h: t.cache_write_1h as f64 * self.write_1h(),
            read: t.cache_read as f64 * self.read(),
            output: t.output as f64 * self.output,
            web_search: web_search as f64 * WEB_SEARCH_USD,
        }
    }

    /// What `t` and `web_search` searches cost at these rates (reference §4).
    pub fn cost(&self, t: &TokenCounts, web_search: u64) -> f64 {
        self.split(t, web_search).total()
    }

    /// What writing `tokens` into a `ttl_s` cache costs over reading them,
    /// `tokens * (write price at ttl_s - read price)`: a miss cost (§2), a
    /// cold-resume premium (§6) and the advice's cold starts (§7).
    pub fn rewrite_premium(&self, tokens: f64, ttl_s: u32) -> f64 {
        if tokens == 0.0 {
            return 0.0;
        }
        tokens * (self.write(ttl_s) - self.read())
    }

    /// What projected tokens cost at these rates: `read` tokens read from
    /// the cache, `write` written into a `ttl_s` cache and `output`
    /// produced. The advice's future turns (§7) are averages, so the
    /// counts are fractional; `cost` is the same sum over whole counts.
    pub fn projected(&self, read: f64, write: f64, ttl_s: u32, output: f64) -> f64 {
        read * self.read() + write * self.write(ttl_s) + output * self.output
    }
}

/// `Rates::cost`, 0 for an unknown model (None rates).
pub fn cost(rates: Option<&Rates>, t: &TokenCounts, web_search: u64) -> f64 {
    rates.map_or(0.0, |p| p.cost(t, web_search))
}

/// `Rates::split`, all zero for an unknown model (None rates).
pub fn split(rates: Option<&Rates>, t: &TokenCounts, web_search: u64) -> ClassCost {
    rates.map_or_else(ClassCost::default, |p| p.split(t, web_search))
}

/// `Rates::projected`, 0 for an unknown model (None rates).
pub fn projected(rates: Option<&Rates>, read: f64, write: f64, ttl_s: u32, output: f64) -> f64 {
    rates.map_or(0.0, |p| p.projected(read, write, ttl_s, output))
}

/// `Rates::rewrite_premium`, 0 for an unknown model (None rates).
pub fn rewrite_premium(rates: Option<&Rates>, tokens: f64, ttl_s: u32) -> f64 {
    rates.map_or(0.0, |p| p.rewrite_premium(tokens, ttl_s))
}

/// USD per token class; merges with `+=`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ClassCost {
    pub input: f64,
    pub write_5m: f64,
    pub write_1h: f64,
    pub read: f64,
    pub output: f64,
    pub web_search: f64,
}

impl ClassCost {
    /// The sum of the parts.
    pub fn total(&self) -> f64 {
        self.input + self.write_5m + self.write_1h + self.read + self.output + self.web_search
    }

    /// The parts in chart order, with their names.
    pub fn parts(&self) -> [(&'static str, f64); 6] {
        [
            ("input", self.input),
            ("write 5m", self.write_5m),
            ("write 1h", self.write_1h),
            ("cache read", self.read),
            ("output", self.output),
            ("web search", self.web_search),
        ]
    }
}

impl AddAssign for ClassCost {
    fn add_assign(&mut self, o: ClassCost) {
        self.input += o.input;
        self.write_5m += o.write_5m;
        self.write_1h += o.write_1h;
        self.read += o.read;
        self.output += o.output;
        self.web_search += o.web_search;
    }
}

//! Cost split by token class (input, 5m write, 1h write, cache read, output,
//! web search) per local day and model: the stacked bars of the dashboard's
//! daily cost chart. Each request's split uses the rates it paid (from the
//! cache model's `RequestCache::rates`), so the parts of a day add up to
//! `analyze::request_cost`, the same reference cost the usage reports sum.

use crate::analyze::RequestCache;
use crate::model::{Request, TokenCounts};
use crate::pricing::{Rates, WEB_SEARCH_USD};
use chrono_tz::Tz;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::AddAssign;

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
    /// The split of one request's cost (all zero for an unknown model).
    pub fn of(rates: Option<&Rates>, t: &TokenCounts, web_search: u64) -> ClassCost {
        let Some(p) = rates else { return ClassCost::default() };
        ClassCost {
            input: t.input as f64 * p.input,
            write_5m: t.cache_write_5m as f64 * p.write_5m(),
            write_1h: t.cache_write_1h as f64 * p.write_1h(),
            read: t.cache_read as f64 * p.read(),
            output: t.output as f64 * p.output,
            web_search: web_search as f64 * WEB_SEARCH_USD,
        }
    }

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

/// One local day's split, per model.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DayClassCost {
    /// `YYYY-MM-DD` in the report's zone.
    pub day: String,
    pub by_model: BTreeMap<String, ClassCost>,
}

impl DayClassCost {
    /// The day's split over the models `keep` accepts.
    pub fn sum(&self, keep: impl Fn(&str) -> bool) -> ClassCost {
        let mut out = ClassCost::default();
        for (m, c) in &self.by_model {
            if keep(m) {
                out += *c;
            }
        }
        out
    }
}

/// Splits every request's cost by class and sums per local day and model,
/// in day order. Each request comes with its cache model output.
pub fn daily_class_costs<'a>(
    rows: impl IntoIterator<Item = (&'a Request, &'a RequestCache)>,
    tz: Tz,
) -> Vec<DayClassCost> {
    let mut days: BTreeMap<String, BTreeMap<String, ClassCost>> = BTreeMap::new();
    for (r, c) in rows {
        let day = r.time.with_timezone(&tz).format("%Y-%m-%d").to_string();
        let models = days.entry(day).or_default();
        let cost = ClassCost::of(c.rates.as_ref(), &r.tokens, r.web_search);
        match models.get_mut(r.model.as_str()) {
            Some(sum) => *sum += cost,
            None => {
                models.insert(r.model.to_string(), cost);
            }
        }
    }
    days.into_iter().map(|(day, by_model)| DayClassCost { day, by_model }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_add_up_to_the_reference_cost() {
        let p = Rates { input: 3e-6, output: 15e-6, read_multiplier: 0.1 };
        let t = TokenCounts { input: 10, cache_write_5m: 1000, cache_write_1h: 500, cache_read: 20_000, output: 300 };
        let c = ClassCost::of(Some(&p), &t, 2);
        let reference = crate::analyze::request_cost(Some(&p), &t, 2);
        assert!((c.total() - reference).abs() < 1e-12);
        assert_eq!(ClassCost::of(None, &t, 2), ClassCost::default());
    }
}

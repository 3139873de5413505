//! Cost split by token class (input, 5m write, 1h write, cache read, output,
//! web search) per local day and model: the stacked bars of the dashboard's
//! daily cost chart (summed by `report::cache::rows::DailyClassCosts`).
//! Each request's split uses the rates it paid, so the parts of a day add
//! up to `analyze::request_cost`, the same reference cost the usage reports
//! sum.

pub use crate::pricing::ClassCost;
use serde::Serialize;
use std::collections::BTreeMap;

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

#[cfg(test)]
mod tests {
    use crate::model::TokenCounts;
    use crate::pricing::{cost, split, ClassCost, Rates};

    #[test]
    fn parts_add_up_to_the_reference_cost() {
        let p = Rates { input: 3e-6, output: 15e-6, read_multiplier: 0.1 };
        let t = TokenCounts { input: 10, cache_write_5m: 1000, cache_write_1h: 500, cache_read: 20_000, output: 300 };
        let c = split(Some(&p), &t, 2);
        let reference = 10.0 * 3e-6 + 1000.0 * 3.75e-6 + 500.0 * 6e-6 + 20_000.0 * 0.3e-6 + 300.0 * 15e-6 + 0.02;
        assert!((c.total() - reference).abs() < 1e-12);
        assert_eq!(c.total(), cost(Some(&p), &t, 2));
        assert_eq!(split(None, &t, 2), ClassCost::default());
    }
}

//! The order of a usage report's rows by time (`--order asc|desc`):
//! periods by their start, sessions, projects and models by their last
//! request, instead of by cost.

use super::usage::UsageReport;

/// Which rows come first when a report is ordered by time (`--order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// Oldest first.
    Asc,
    /// Newest first.
    Desc,
}

impl UsageReport {
    /// Rows by time: periods by their start, other rows by their last
    /// request (ties by key), oldest or newest first.
    pub fn order_by_time(&mut self, order: Order) {
        let period = self.grouping.is_period();
        self.rows.sort_by(|a, b| {
            let o = if period { a.key.cmp(&b.key) } else { a.last.cmp(&b.last).then_with(|| a.key.cmp(&b.key)) };
            if order == Order::Desc {
                o.reverse()
            } else {
                o
            }
        });
    }
}

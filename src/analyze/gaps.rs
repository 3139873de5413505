//! Idle-gap buckets (cache-model §3): every gap between two requests of a
//! thread, lineage starts included, falls in `<=5m`, `5m-1h` or `>1h`; each
//! bucket reports the count, rebuilt tokens and miss cost of the requests
//! ending those gaps. Hands on `IdleBuckets` to the summary.

use super::class_table::ClassStats;
use serde::Serialize;

/// Upper edge of the short bucket, inclusive (seconds).
pub const BUCKET_5M_S: f64 = 300.0;
/// Upper edge of the middle bucket, inclusive (seconds).
pub const BUCKET_1H_S: f64 = 3600.0;

/// Which idle bucket a gap falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum GapBucket {
    /// `g <= 300 s`.
    #[serde(rename = "le_5m")]
    Le5m,
    /// `300 s < g <= 3600 s`.
    #[serde(rename = "5m_1h")]
    From5mTo1h,
    /// `g > 3600 s`.
    #[serde(rename = "gt_1h")]
    Gt1h,
}

impl GapBucket {
    /// The bucket of a gap in seconds.
    pub fn of(gap_s: f64) -> GapBucket {
        if gap_s <= BUCKET_5M_S {
            GapBucket::Le5m
        } else if gap_s <= BUCKET_1H_S {
            GapBucket::From5mTo1h
        } else {
            GapBucket::Gt1h
        }
    }

    /// The JSON / column name of the bucket.
    pub fn as_str(self) -> &'static str {
        match self {
            GapBucket::Le5m => "le_5m",
            GapBucket::From5mTo1h => "5m_1h",
            GapBucket::Gt1h => "gt_1h",
        }
    }
}

/// The three idle buckets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct IdleBuckets {
    #[serde(rename = "le_5m")]
    pub le_5m: ClassStats,
    #[serde(rename = "5m_1h")]
    pub from_5m_to_1h: ClassStats,
    #[serde(rename = "gt_1h")]
    pub gt_1h: ClassStats,
}

impl IdleBuckets {
    /// Adds `count` requests ending gaps of bucket `b`.
    pub fn add_parts(&mut self, b: GapBucket, count: u64, rebuilt: u64, miss_cost: f64) {
        let bucket = match b {
            GapBucket::Le5m => &mut self.le_5m,
            GapBucket::From5mTo1h => &mut self.from_5m_to_1h,
            GapBucket::Gt1h => &mut self.gt_1h,
        };
        bucket.add_parts(count, rebuilt, miss_cost);
    }

    /// The stats of one bucket.
    pub fn get(&self, b: GapBucket) -> &ClassStats {
        match b {
            GapBucket::Le5m => &self.le_5m,
            GapBucket::From5mTo1h => &self.from_5m_to_1h,
            GapBucket::Gt1h => &self.gt_1h,
        }
    }
}

//! Soft errors: malformed lines are counted, the first few kept with their
//! file and line, and reported once at the end; they never stop an ingest.

use std::fmt;
use std::ops::AddAssign;
use std::path::PathBuf;

/// How many bad lines are kept with their location.
pub const KEEP_SAMPLES: usize = 5;

/// One line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub path: PathBuf,
    pub line: u64,
    pub reason: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.reason)
    }
}

/// Counts of lines read and lines skipped as bad, with the first few bad ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    pub lines: u64,
    pub bad: u64,
    pub samples: Vec<BadLine>,
}

impl Problems {
    pub fn push(&mut self, b: BadLine) {
        self.bad += 1;
        if self.samples.len() < KEEP_SAMPLES {
            self.samples.push(b);
        }
    }
}

impl AddAssign for Problems {
    fn add_assign(&mut self, o: Problems) {
        self.lines += o.lines;
        self.bad += o.bad;
        for s in o.samples {
            if self.samples.len() >= KEEP_SAMPLES {
                break;
            }
            self.samples.push(s);
        }
    }
}

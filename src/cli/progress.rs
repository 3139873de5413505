//! The ingest progress bar: indicatif on stderr, only on a terminal, and
//! only once there is enough to read that it would be noticed.

use crate::ingest::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Below this many bytes an ingest is quick enough not to need a bar.
const MIN_BYTES: u64 = 64 << 20;

pub(super) struct Bar(ProgressBar);

impl Bar {
    pub(super) fn new(quiet: bool) -> Bar {
        let bar = ProgressBar::hidden();
        if !quiet && std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        Bar(bar)
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        if total < MIN_BYTES {
            self.0.set_draw_target(ProgressDrawTarget::hidden());
        }
        // The style first: a length set before it draws the default bar
        // once, with a raw byte count ("0/2147720372").
        if let Ok(style) =
            ProgressStyle::with_template("reading transcripts {bar:30} {binary_bytes}/{binary_total_bytes} ({eta})")
        {
            self.0.set_style(style);
        }
        self.0.set_length(total);
    }
    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

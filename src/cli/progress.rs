//! The progress bars: indicatif on stderr, only on a terminal. An ingest's
//! shows once there is enough to read that it would be noticed; an
//! import's counts the bundles merged, then names the last step.

use crate::ingest::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Below this many bytes an ingest is quick enough not to need a bar.
const MIN_BYTES: u64 = 64 << 20;

pub(super) struct Bar {
    bar: ProgressBar,
    /// The bar's template: what it counts.
    template: &'static str,
    /// The least total worth a bar.
    least: u64,
}

impl Bar {
    /// The bar of an ingest: bytes of transcripts read.
    pub(super) fn new(quiet: bool) -> Bar {
        let template = "reading transcripts {bar:30} {binary_bytes}/{binary_total_bytes} ({eta})";
        Bar::with(quiet, template, MIN_BYTES)
    }

    /// The bar of an import: bundles merged, then the step under way.
    pub(super) fn bundles(quiet: bool) -> Bar {
        Bar::with(quiet, "{msg} {bar:30} {pos}/{len} bundles ({eta})", 0)
    }

    fn with(quiet: bool, template: &'static str, least: u64) -> Bar {
        let bar = ProgressBar::hidden();
        if !quiet && std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        Bar { bar, template, least }
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        if total < self.least {
            self.bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        // The style first: a length set before it draws the default bar
        // once, with a raw byte count ("0/2147720372").
        if let Ok(style) = ProgressStyle::with_template(self.template) {
            self.bar.set_style(style);
        }
        self.bar.set_length(total);
    }
    fn advance(&self, done: u64) {
        self.bar.inc(done);
    }
    fn step(&self, what: &'static str) {
        self.bar.set_message(what);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

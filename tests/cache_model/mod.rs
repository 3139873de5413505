//! Hand-computed tests of every rule of the reference cache model, plus
//! property tests. `fixtures` holds the fake prices and request builders.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod advice_tests;
mod classify_tests;
mod claude_code_tests;
mod compaction_tests;
mod fixtures;
mod miss_edges_tests;
mod prop_tests;
mod shared_prefix_tests;
mod stale_tests;
mod summary_tests;
mod what_if_tests;

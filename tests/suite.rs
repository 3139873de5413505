//! Every integration test, in one binary (`autotests = false` in
//! Cargo.toml): each file of `tests/` is a module here, sharing `common`.
//! One test file: `cargo test --test suite -- browser::`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
/// The team tests' helpers (`tests/team/support.rs`), shared by several files.
#[path = "team/support.rs"]
mod team_support;

mod analysis_table;
mod appends;
mod blocks;
mod browser;
mod bundle_compactions;
mod bundle_files;
mod bundle_fuzz;
mod bundle_limits;
mod cache_cli;
mod cache_model;
mod cache_pages;
mod ccusage_habits;
mod claude_code;
mod cli;
mod compaction_boundaries;
mod damaged_store;
mod dollars;
mod fuzz_parser;
mod hooks;
mod hostile_names;
mod hostile_numbers;
mod ingest;
mod iterations;
mod iterations_cache;
mod materialized;
mod never_hangs;
mod old_releases;
mod one_number;
mod otlp;
mod parse_blocks;
mod prices;
mod properties;
mod real_corpus;
mod real_corpus_classes;
mod resumable;
mod resume_backtest;
mod serve_log;
mod server_reasons;
mod settings_file;
mod sidechain_appends;
mod soak;
mod statusline;
mod statusline_prompt_cache;
mod team;
mod team_serve;
mod team_server_safety;
mod terminal_escapes;
mod web;
mod web_now;
mod web_range;
mod web_team;

//! cachewise: Claude Code transcripts -> cost and prompt-cache dashboard.
//!
//! The pipeline, bottom up: `model` (typed rows, column names), `pricing`
//! (prices and the one money function), `store` (the data directory: its
//! tables, their generations, `Commit`, the one writer, and `StoreView`,
//! the one reader), `ingest`
//! (transcripts -> deduplicated, priced rows, merged into the store),
//! `analyze` (the cache model, pure), `materialize` (the cache model as the
//! stage after a merge, stored as columns), `team` (bundles: export, import),
//! `update` (the writes that run the stages in order), `report` (figures and their
//! output, over a `StoreView`), `otlp` (a store's figures sent to an
//! OpenTelemetry collector), `settings_file` (Claude Code's settings.json,
//! read and written in one place), `statusline`, `hook` (Claude Code's
//! hooks), `web` (the dashboard and the
//! push server) and `cli`. Data flows down this list, never back up.
//! `docs/architecture.md` has the whole design.

pub mod analyze;
pub mod cli;
pub mod config;
pub mod hook;
pub mod ingest;
mod lanes;
pub mod materialize;
pub mod model;
pub mod otlp;
pub mod pricing;
pub mod report;
pub mod settings_file;
pub mod statusline;
pub mod store;
pub mod synth;
pub mod team;
pub mod update;
pub mod web;

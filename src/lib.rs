//! cachewise: Claude Code transcripts -> cost and prompt-cache dashboard.
//!
//! The pipeline: `ingest` discovers transcript files, parses only usage
//! metadata, deduplicates requests and hands typed rows to `store`, which
//! keeps them as Parquet tables; `pricing` prices each request; `analyze`
//! is the cache model, which `materialize` runs after every merge and
//! stores as columns; `report` and `web` aggregate the stored columns.

pub mod analyze;
pub mod cli;
pub mod config;
pub mod ingest;
mod lanes;
pub mod materialize;
pub mod model;
pub mod pricing;
pub mod report;
pub mod statusline;
pub mod store;
pub mod synth;
pub mod team;
pub mod web;

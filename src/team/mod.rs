//! Team pilots: one person's store -> a content-free bundle (`export`, with
//! `hash` for people who may not share paths) -> a team data directory
//! (`import`, deduplicated on (user, message id, request id)) -> the team
//! report (`report::team`). Bundles travel as files or over HTTP (`push`
//! client; `accept`, reached through `web::push`, behind a bearer `tokens`
//! map). Hands on typed `Bundle`s and `ImportOutcome`s; every failure is a
//! `TeamError` naming the file or upload it concerns.

pub mod accept;
pub mod analysis;
mod append;
pub mod batch;
pub mod bundle;
mod bundle_footer;
mod bundle_layout;
pub mod export;
pub mod file;
mod frame_checks;
pub mod hash;
pub mod import;
pub mod integrity;
pub mod limits;
pub mod names;
mod pending;
pub mod people;
pub mod push;
mod shared;
pub mod tokens;

pub use bundle::{bundle_bytes, read_bundle, read_bundle_limited, Bundle, BundleAnalysis, BundleMeta, BUNDLE_SCHEMA};
pub use export::{export, ExportSpec};
pub use import::{holds_bundles, import, import_files, ImportOutcome};

use crate::ingest::IngestError;
use crate::store::StoreError;
use std::path::PathBuf;

/// Errors of team export, import, push and the push server. `origin` is a
/// file path or `upload`.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("{origin}: not a Parquet file, so not a cachewise bundle")]
    NotParquet { origin: String },
    #[error("{origin}: a Parquet file but not a cachewise bundle: {why}")]
    NotABundle { origin: String, why: String },
    #[error("{origin}: damaged bundle: {why}")]
    Damaged { origin: String, why: String },
    #[error(
        "{origin}: bundle schema {found} is newer than this cachewise supports ({supported}); upgrade cachewise to import it"
    )]
    NewerSchema { origin: String, found: u32, supported: u32 },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(
        "{path}: {kind}, not a regular file; give a bundle file (or a directory of them), or `--out -` for stdout"
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path}: a symbolic link to a file that does not exist; give the path to write, or remove the link")]
    DanglingLink { path: PathBuf },
    #[error(
        "{path}: {size} bytes, over the limit of {limit} bytes for a bundle file (twice --max-bundle-bytes plus 16 MiB)"
    )]
    FileTooLarge { path: PathBuf, size: u64, limit: u64 },
    #[error("cannot write the bundle to stdout: {source}")]
    Stdout { source: std::io::Error },
    #[error("{path}: no bundles (*.parquet) in this directory")]
    NoBundles { path: PathBuf },
    #[error(
        "{dir}: this data directory holds local transcripts; import bundles into a directory of their own (--data-dir TEAM_DIR)"
    )]
    LocalStore { dir: PathBuf },
    #[error(
        "{dir}: this data directory holds imported bundles; export from your own data directory (the one `cachewise ingest` fills)"
    )]
    TeamStore { dir: PathBuf },
    #[error("{path}: invalid tokens file: {why}")]
    Tokens { path: PathBuf, why: String },
    #[error("missing or unknown bearer token")]
    Unauthorized,
    #[error("upload of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge { size: usize, limit: usize },
    #[error(
        "{origin}: the bundle would expand to {found} {what}, over the limit of {limit}; send it in parts (export --since DATE) or raise the limit"
    )]
    OverLimit { origin: String, what: &'static str, found: u64, limit: u64 },
    #[error("import failed: {0}")]
    ImportFailed(String),
    #[error("push to {url} failed: {why}")]
    Push { url: String, why: String },
    #[error("{what}: {source}")]
    Polars { what: &'static str, source: polars::prelude::PolarsError },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Ingest(#[from] IngestError),
}

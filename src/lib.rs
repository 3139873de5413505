//! cachewise: Claude Code transcripts -> cost and prompt-cache dashboard.
//!
//! The pipeline, bottom up: `model` (typed rows, column names), `pricing`
//! (prices and the one money function), `store` (the data directory: its
//! tables, their generations, and `StoreView`, the one reader), `ingest`
//! (transcripts -> deduplicated, priced rows, merged into the store),
//! `analyze` (the cache model, pure), `materialize` (the cache model as the
//! stage after a merge, stored as columns), `team` (bundles: export, import),
//! `update` (every write, stage after stage), `report` (figures and their
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

/// The one patched dependency (`vendor/polars-buffer`, `[patch.crates-io]`)
/// is the one built: cargo leaves a patch unused, with a warning alone,
/// once polars asks for another version, so a polars upgrade would drop
/// the patch silently. This fails instead, so the patch is moved to the
/// new version or removed (when upstream allocates the buffer zeroed).
#[cfg(test)]
mod patched {
    #[test]
    fn the_vendored_polars_buffer_is_the_one_built_and_still_holds_its_patch() {
        let root = env!("CARGO_MANIFEST_DIR");
        let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap_or_default();
        let version = |toml: &str| {
            let line = toml.lines().find(|l| l.starts_with("version = ")).unwrap_or_default();
            line.trim_start_matches("version = ").trim_matches('"').to_owned()
        };
        let vendored = version(&read("vendor/polars-buffer/Cargo.toml"));
        let lock = read("Cargo.lock");
        let entry = lock.split("[[package]]").find(|p| p.contains("name = \"polars-buffer\"")).unwrap_or_default();
        assert_eq!(version(entry.trim_start()), vendored, "Cargo.lock builds another polars-buffer than vendor/'s");
        assert!(!entry.contains("source ="), "polars-buffer comes from a registry, not vendor/: the patch is unused");
        assert!(
            read("vendor/polars-buffer/src/buffer.rs").contains("bytemuck::zeroed_vec(chunks)"),
            "the patch is gone"
        );
    }
}

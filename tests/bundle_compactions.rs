//! Team bundles and cache model v2: compaction rows carry the boundary kind
//! (microcompacts travel), uuid, whether the trigger was written and the
//! tokens a microcompact saved (bundle schema 2); a bundle of schema 1
//! (without those columns) still reads, its checksum still holding (bundle
//! schema 3's analysis rows: `team/columns.rs`); and the
//! rows are the bundle's user's (thread identity is `(user, session, thread)`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cachewise::model::{Boundary, Compaction};
use cachewise::team::{bundle_bytes, read_bundle, Bundle, BundleMeta, BUNDLE_SCHEMA};
use chrono::{TimeZone, Utc};
use polars::prelude::*;
use std::io::Cursor;

fn meta() -> BundleMeta {
    BundleMeta {
        schema: BUNDLE_SCHEMA,
        version: "test".into(),
        user: "alice".into(),
        machine: "laptop".into(),
        created: "2026-02-20T00:00:00Z".into(),
        hashed_paths: false,
    }
}

fn rows() -> Vec<Compaction> {
    let time = Utc.with_ymd_and_hms(2026, 2, 11, 20, 0, 0).unwrap();
    let base = Compaction {
        session_id: "s1".into(),
        time,
        trigger: "manual".into(),
        pre_tokens: Some(90_000),
        source: "x".into(),
        user: "alice".into(),
        trigger_written: true,
        ..Compaction::default()
    };
    vec![
        base.clone(),
        Compaction {
            uuid: "mc-1".into(),
            boundary: Boundary::Microcompact,
            trigger: "auto".into(),
            tokens_saved: Some(30_000),
            ..base.clone()
        },
        Compaction { uuid: "cb-2".into(), trigger: "auto".into(), trigger_written: false, ..base },
    ]
}

#[test]
fn microcompacts_and_v2_fields_travel_in_a_bundle() {
    assert_eq!(BUNDLE_SCHEMA, 5);
    let b = Bundle { meta: meta(), requests: Vec::new(), compactions: rows(), calls: Vec::new(), analysis: None };
    let back = read_bundle(&bundle_bytes(&b).unwrap(), "test").unwrap();
    assert_eq!(back.compactions, rows());
}

/// Rewrites a bundle as schema 1 wrote it: no v2 columns, schema `1`.
fn as_schema_1(bytes: &[u8]) -> Vec<u8> {
    let mut reader = ParquetReader::new(Cursor::new(bytes));
    let kv = reader.get_metadata().unwrap().key_value_metadata.clone().unwrap();
    let mut df = reader.finish().unwrap().drop_many(["uuid", "boundary", "trigger_written", "tokens_saved"]);
    df = df.drop_many(cachewise::team::analysis::own_columns().into_iter().map(|(n, _)| n));
    let pairs: Vec<(String, String)> = kv
        .into_iter()
        .filter(|p| p.key.starts_with("cachewise."))
        .map(|p| {
            let v = if p.key == "cachewise.bundle_schema" { "1".to_owned() } else { p.value.unwrap_or_default() };
            (p.key, v)
        })
        .collect();
    let mut out = Vec::new();
    ParquetWriter::new(&mut out)
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(pairs)))
        .finish(&mut df)
        .unwrap();
    out
}

#[test]
fn a_schema_1_bundle_still_reads_and_its_checksum_holds() {
    let plain = vec![rows()[0].clone()];
    // Schema 1 and 2 bundles carry the JSON checksum of their rows.
    let b = Bundle {
        meta: BundleMeta { schema: 1, ..meta() },
        requests: Vec::new(),
        compactions: plain.clone(),
        calls: Vec::new(),
        analysis: None,
    };
    let old = as_schema_1(&bundle_bytes(&b).unwrap());
    let back = read_bundle(&old, "old").unwrap();
    assert_eq!(back.meta.schema, 1);
    assert_eq!(back.compactions, plain);
}

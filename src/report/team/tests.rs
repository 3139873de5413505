//! Unit tests of `report::team`: the model mix's fast-mode label and
//! `quantile`.

use super::quantile;
use crate::report::query::{FAST, FAST_SUFFIX};

#[test]
fn the_model_mix_names_fast_mode_as_every_report_does() {
    let label = format!("CASE WHEN speed = '{FAST}' THEN model || '{FAST_SUFFIX}' ELSE model END");
    assert!(super::MODEL_MIX_SQL.contains(&label), "sql/team_model_mix.sql labels as query::model_label");
}

#[test]
fn quantiles_interpolate() {
    assert_eq!(quantile(&[], 0.5), 0.0);
    assert_eq!(quantile(&[4.0, 1.0, 3.0, 2.0], 0.5), 2.5);
    assert_eq!(quantile(&[7.0], 0.9), 7.0);
    let ten: Vec<f64> = (1..=10).map(f64::from).collect();
    assert!((quantile(&ten, 0.9) - 9.1).abs() < 1e-12);
}

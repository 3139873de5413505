//! Tests of `report::usage`: slices merged, groupings read together.
use super::rows::rows_from;
use super::*;
use crate::model::calls::tests::request;
use crate::store::frames;
use chrono::TimeDelta;

/// 40 requests over 12 days, 4 sessions, 5 projects and 2 models.
fn rows() -> Vec<crate::model::Request> {
    (0..40u64)
        .map(|i| {
            let model = if i % 3 == 0 { "claude-opus-4-1" } else { "claude-sonnet-4-5" };
            let tokens = TokenCounts { input: i, output: 2 * i, cache_read: 100 + i, ..TokenCounts::default() };
            let mut r = request(model, tokens);
            r.time += TimeDelta::hours(7 * i as i64);
            r.session_id = format!("s{}", i % 4).into();
            r.project = format!("p{}", i % 5).into();
            r.message_id = format!("m{i}");
            r.cost_usd = 0.1 * i as f64 + 0.013;
            r
        })
        .collect()
}

/// The rows and models of one grouping's usage SQL over slices of `rows`.
fn grouped(
    lf: &LazyFrame,
    n: usize,
    q: &Query,
    rows: IdxSize,
    g: Grouping,
) -> Result<(Vec<UsageRow>, Vec<String>), ReportError> {
    let (frames, mut models, used) = by_slices(lf, n, q, rows, &[g])?;
    let df = frames.into_iter().next().ok_or_else(|| polars_err!(ComputeError: "no frame for {g:?}"))?;
    assert_eq!(used.is_empty(), g != Grouping::Session, "{g:?}: each session's models with a session report only");
    models.sort_unstable();
    models.dedup();
    Ok((rows_from(&g.key_text(df)?)?, models))
}

/// The same rows, costs to the last bit (each sum is taken in the rows'
/// order, however the rows are sliced).
fn assert_same_rows(a: &[UsageRow], b: &[UsageRow], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (a, b) in a.iter().zip(b) {
        assert_eq!((&a.key, &a.project, a.first, a.last), (&b.key, &b.project, b.first, b.last), "{what}");
        assert_eq!((a.totals.requests, a.totals.tokens), (b.totals.requests, b.totals.tokens), "{what}");
        assert_eq!(a.totals.cost_usd.to_bits(), b.totals.cost_usd.to_bits(), "{what}");
        assert_eq!(a.models.len(), b.models.len(), "{what}");
    }
}

#[test]
fn a_window_that_selects_no_request_is_an_empty_report_of_its_periods() -> Result<(), ReportError> {
    let (lf, n) = (frames::requests_frame(&rows())?.lazy(), rows().len());
    let mut q = Query::new(chrono_tz::America::New_York);
    q.since = chrono::NaiveDate::from_ymd_opt(2001, 1, 1);
    q.until = chrono::NaiveDate::from_ymd_opt(2001, 1, 31);
    for g in [Grouping::Daily, Grouping::Weekly, Grouping::Monthly] {
        let (rows, models) = grouped(&lf, n, &q, 3, g)?;
        assert!(rows.is_empty() && models.is_empty(), "{g:?}");
    }
    Ok(())
}

#[test]
fn slices_merge_to_the_rows_of_one_pass() -> Result<(), ReportError> {
    let (lf, n) = (frames::requests_frame(&rows())?.lazy(), rows().len());
    for (g, breakdown) in [(Grouping::Daily, false), (Grouping::Session, true), (Grouping::Project, false)]
        .into_iter()
        .chain([(Grouping::Model, false), (Grouping::Weekly, true)])
    {
        let mut q = Query::new(chrono_tz::UTC);
        q.breakdown = breakdown;
        let ((one, models), (sliced, models_sliced)) = (grouped(&lf, n, &q, 1_000, g)?, grouped(&lf, n, &q, 3, g)?);
        assert_eq!(models, models_sliced);
        assert_eq!(models, ["claude-opus-4-1", "claude-sonnet-4-5"]);
        assert!(one.len() > 1, "{g:?}: several keys");
        assert_same_rows(&one, &sliced, &format!("{g:?}"));
        let requests: u64 = sliced.iter().map(|r| r.totals.requests).sum();
        assert_eq!(requests, 40, "{g:?}");
    }
    Ok(())
}

#[test]
fn several_groupings_in_one_read_are_each_grouping_alone() -> Result<(), ReportError> {
    let (lf, n) = (frames::requests_frame(&rows())?.lazy(), rows().len());
    let all = [Grouping::Daily, Grouping::Session, Grouping::Project, Grouping::Model, Grouping::Weekly];
    for breakdown in [false, true] {
        let mut q = Query::new(chrono_tz::UTC);
        q.breakdown = breakdown;
        q.project = Some("p".into());
        let (together, mut models, _) = by_slices(&lf, n, &q, 7, &all)?;
        models.sort_unstable();
        models.dedup();
        assert_eq!(together.len(), all.len());
        for (g, df) in all.iter().zip(together) {
            assert!(df.height() > 1, "{g:?}: several keys");
            let (alone, alone_models) = grouped(&lf, n, &q, 7, *g)?;
            assert_same_rows(&rows_from(&g.key_text(df)?)?, &alone, &format!("{g:?}, breakdown {breakdown}"));
            assert_eq!(models, alone_models);
        }
    }
    Ok(())
}

#[test]
fn each_sessions_models_are_counted_over_every_slice() -> Result<(), ReportError> {
    let (lf, n) = (frames::requests_frame(&rows())?.lazy(), rows().len());
    let q = Query::new(chrono_tz::UTC);
    let (_, _, one) = by_slices(&lf, n, &q, 1_000, &[Grouping::Session])?;
    let (_, _, sliced) = by_slices(&lf, n, &q, 3, &[Grouping::Daily, Grouping::Session])?;
    assert_eq!(one, sliced);
    assert_eq!(one.len(), 4);
    // s0: requests 0, 4, ..., 36; every third of all requests is Opus (0, 12, 24, 36).
    let s0 = &one["s0"];
    assert_eq!(s0.names, ["claude-sonnet-4-5", "claude-opus-4-1"]);
    assert_eq!(s0.fast_requests, 0);
    Ok(())
}

#[test]
fn distinct_models_are_each_model_once_in_order_without_nulls() {
    let models = [Some("b"), Some("b"), None, Some("a"), Some("b"), Some("a")];
    let df = DataFrame::new_infer_height(vec![Column::new(c::MODEL.into(), models)]).unwrap();
    assert_eq!(distinct_models(&df).unwrap(), ["a", "b"]);
}

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

/// The same rows; costs to the last digits (a merge of slices sums in the
/// order polars' threads finish).
fn assert_same_rows(a: &[UsageRow], b: &[UsageRow], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (a, b) in a.iter().zip(b) {
        assert_eq!((&a.key, &a.project, a.first, a.last), (&b.key, &b.project, b.first, b.last), "{what}");
        assert_eq!((a.totals.requests, a.totals.tokens), (b.totals.requests, b.totals.tokens), "{what}");
        assert!((a.totals.cost_usd - b.totals.cost_usd).abs() < 1e-9, "{what}");
        assert_eq!(a.models.len(), b.models.len(), "{what}");
    }
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
fn slices_merged_give_the_same_sum_on_every_run() {
    // 400 slices' costs, whose sum depends on the order they are added in.
    let costs: Vec<f64> = (0..400).map(|i| [1e16, 1.0, -1e16, 0.1, 3.0][i % 5] * (1.0 + i as f64 / 7.0)).collect();
    let part = |cost: f64| {
        let ints = |n: &str| Column::new(n.into(), [1u64]);
        let mut cols = vec![Column::new(c::KEY.into(), ["w1"]), Column::new(c::SUB.into(), [None::<&str>])];
        let summed = ["requests", "input_tokens", "output_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens"];
        cols.extend(summed.into_iter().chain(["cache_read_tokens"]).map(ints));
        cols.push(Column::new(c::COST_USD.into(), [cost]));
        cols.extend([ints(c::FIRST), ints(c::LAST), Column::new(c::PROJECT.into(), ["p"])]);
        DataFrame::new_infer_height(cols).unwrap().lazy()
    };
    let cost = || {
        let df = merged(costs.iter().map(|x| part(*x)).collect()).unwrap();
        assert_eq!((df.height(), df.column("requests").unwrap().u64().unwrap().get(0)), (1, Some(400)));
        df.column(c::COST_USD).unwrap().f64().unwrap().get(0).unwrap()
    };
    let first = cost();
    let in_order = costs.iter().fold(0.0, |sum, x| sum + x);
    assert!((first - in_order).abs() <= 1e-12 * in_order.abs(), "{first} against {in_order}");
    for _ in 0..20 {
        assert_eq!(cost().to_bits(), first.to_bits());
    }
}

#[test]
fn distinct_models_are_each_model_once_in_order_without_nulls() {
    let models = [Some("b"), Some("b"), None, Some("a"), Some("b"), Some("a")];
    let df = DataFrame::new_infer_height(vec![Column::new(c::MODEL.into(), models)]).unwrap();
    assert_eq!(distinct_models(&df).unwrap(), ["a", "b"]);
}

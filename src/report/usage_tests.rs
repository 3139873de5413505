//! Tests of `report::usage`: slices merged, groupings read together.
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

#[test]
fn slices_merge_to_the_rows_of_one_pass() {
    let (lf, n) = (frames::requests_frame(&rows()).unwrap().lazy(), rows().len());
    for (g, breakdown) in [(Grouping::Daily, false), (Grouping::Session, true), (Grouping::Project, false)]
        .into_iter()
        .chain([(Grouping::Model, false), (Grouping::Weekly, true)])
    {
        let mut q = Query::new(chrono_tz::UTC);
        q.breakdown = breakdown;
        let run = |rows: IdxSize| {
            let (mut frames, mut models) = by_slices(&lf, n, &q, rows, &[g]).unwrap();
            let df = frames.pop().unwrap();
            models.sort_unstable();
            models.dedup();
            (rows_from(&g.key_text(df).unwrap()).unwrap(), models)
        };
        let ((one, models), (sliced, models_sliced)) = (run(1_000), run(3));
        assert_eq!(models, models_sliced);
        assert_eq!(models, ["claude-opus-4-1", "claude-sonnet-4-5"]);
        assert_eq!(one.len(), sliced.len(), "{g:?}");
        assert!(one.len() > 1, "{g:?}: several keys");
        for (a, b) in one.iter().zip(&sliced) {
            assert_eq!((&a.key, &a.project, a.first, a.last), (&b.key, &b.project, b.first, b.last), "{g:?}");
            assert_eq!((a.totals.requests, a.totals.tokens), (b.totals.requests, b.totals.tokens), "{g:?}");
            assert!((a.totals.cost_usd - b.totals.cost_usd).abs() < 1e-9, "{g:?}");
            assert_eq!(a.models.len(), b.models.len(), "{g:?}");
        }
        let requests: u64 = sliced.iter().map(|r| r.totals.requests).sum();
        assert_eq!(requests, 40, "{g:?}");
    }
}

#[test]
fn several_groupings_in_one_read_are_each_grouping_alone() {
    let (lf, n) = (frames::requests_frame(&rows()).unwrap().lazy(), rows().len());
    let all = [Grouping::Daily, Grouping::Session, Grouping::Project, Grouping::Model, Grouping::Weekly];
    for breakdown in [false, true] {
        let mut q = Query::new(chrono_tz::UTC);
        q.breakdown = breakdown;
        q.project = Some("p".into());
        let sorted = |mut m: Vec<String>| {
            m.sort_unstable();
            m
        };
        let (together, models) = by_slices(&lf, n, &q, 7, &all).unwrap();
        let models = sorted(models);
        assert_eq!(together.len(), all.len());
        for (g, df) in all.iter().zip(&together) {
            let (mut alone, alone_models) = by_slices(&lf, n, &q, 7, &[*g]).unwrap();
            // The same rows; costs to the last digits (a merge of slices
            // sums in the order polars' threads finish).
            let (a, b) = (
                rows_from(&g.key_text(df.clone()).unwrap()).unwrap(),
                rows_from(&g.key_text(alone.pop().unwrap()).unwrap()).unwrap(),
            );
            assert_eq!(a.len(), b.len(), "{g:?}");
            for (a, b) in a.iter().zip(&b) {
                assert_eq!((&a.key, &a.project, a.first, a.last), (&b.key, &b.project, b.first, b.last), "{g:?}");
                assert_eq!(
                    (a.totals.requests, a.totals.tokens, &a.models.len()),
                    (b.totals.requests, b.totals.tokens, &b.models.len())
                );
                assert!((a.totals.cost_usd - b.totals.cost_usd).abs() < 1e-9, "{g:?}, breakdown {breakdown}");
            }
            assert_eq!(models, sorted(alone_models));
            assert!(df.height() > 1, "{g:?}: several keys");
        }
    }
}

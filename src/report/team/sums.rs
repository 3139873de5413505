//! The team report's sums: the selected requests summed per person, local
//! day, model, speed and machine, the message ids shared by several
//! people, and the analysis rows' miss cost per person and class (a few
//! thousand rows). Every query of the person days, model mix, tokens and
//! lost cost (`sql/team_*.sql`) is a sum over `requests` and `analysis`,
//! so over these sums it gives the figures it gives over the rows. The
//! tables are read a slice at a time (`report::slices`). With API calls
//! stored, the model mix's rows are the requests split into their calls.

use crate::model::columns as c;
use crate::model::{Call, SharedIds};
use crate::report::analysis_cols::LocalDays;
use crate::report::calls;
use crate::report::query::Query;
use crate::report::slices::{for_each_slice_of, BATCH_ROWS};
use crate::store::frames::Cols;
use foldhash::HashMap;
use polars::prelude::*;

/// What the sums add up, per person, day, model and machine: `counted`,
/// the cost and `c::TOKENS`.
const SUMMED: [&str; 2] = [c::COUNTED, c::COST_USD];

/// What the request sums are per: person, local day, model, speed (fast
/// mode apart) and machine.
const REQUEST_KEYS: [&str; 5] = [c::USER, c::KEY, c::MODEL, c::SPEED, c::MACHINE];

/// `lf` (requests with `key` and `counted`) summed per `REQUEST_KEYS`.
fn group(lf: LazyFrame) -> LazyFrame {
    lf.group_by(REQUEST_KEYS.map(col)).agg(SUMMED.iter().chain(&c::TOKENS).map(|n| col(*n).sum()).collect::<Vec<_>>())
}

/// `lf` sorted by `keys`. A group-by gives its groups in no fixed order, and
/// the queries over the sums add them up in the order they come: sorted,
/// the same rows give the same figures to the last bit on every run.
fn in_order(lf: LazyFrame, keys: &[&str]) -> LazyFrame {
    lf.sort(keys.iter().copied(), SortMultipleOptions::default())
}

fn counted(lf: LazyFrame) -> LazyFrame {
    lf.with_column(lit(1u64).cast(DataType::UInt64).alias(c::COUNTED))
}

/// The requests of `scan` (the stored requests table, `n` rows) that `q`
/// selects, summed (in memory), a slice of the table at a time.
pub(super) fn requests(scan: &LazyFrame, n: usize, q: &Query) -> PolarsResult<LazyFrame> {
    requests_sliced(scan, n, q, BATCH_ROWS)
}

fn requests_sliced(scan: &LazyFrame, n: usize, q: &Query, rows: IdxSize) -> PolarsResult<LazyFrame> {
    let read: Vec<Expr> = [c::USER, c::TIME, c::MODEL, c::SPEED, c::MACHINE, c::COST_USD]
        .iter()
        .chain(&c::TOKENS)
        .map(|n| col(*n))
        .collect();
    let mut sums = RequestSums::new(q.tz);
    for_each_slice_of(scan, n, q, rows, |slice| sums.add(&q.filter(slice)?.select(read.clone()).collect()?))?;
    Ok(in_order(sums.frame()?.lazy(), &REQUEST_KEYS).collect()?.lazy())
}

/// A row's `REQUEST_KEYS`: person, local day, model, speed and machine
/// (the text ones as their index in `RequestSums::names`).
type RequestKey = (u32, i32, u32, u32, u32);

/// The selected requests summed per `REQUEST_KEYS`, each sum taken in the
/// rows' order (a polars group-by adds a group's parts in whichever order
/// its threads finish). Rows come grouped by person and session, so a row
/// looks its key up only when it differs from the row before.
struct RequestSums {
    days: LocalDays,
    /// The texts of the keys, each once; a key holds their indexes.
    names: Vec<String>,
    ids: HashMap<String, u32>,
    index: HashMap<RequestKey, usize>,
    /// Per key: requests, cost and `c::TOKENS`.
    sums: Vec<(RequestKey, u64, f64, [u64; 5])>,
}

impl RequestSums {
    fn new(tz: chrono_tz::Tz) -> RequestSums {
        let (names, ids, index, sums) = Default::default();
        RequestSums { days: LocalDays::new(tz), names, ids, index, sums }
    }

    fn add(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let k = Cols(df);
        let (user, model, speed, machine) = (k.str(c::USER)?, k.str(c::MODEL)?, k.str(c::SPEED)?, k.str(c::MACHINE)?);
        let (time, cost) = (k.millis(c::TIME)?, k.f64(c::COST_USD)?);
        let tokens = c::TOKENS.map(|n| k.u64(n)).into_iter().collect::<PolarsResult<Vec<_>>>()?;
        let (mut last, mut at) = (None, 0);
        for i in 0..df.height() {
            let row = (user[i], self.days.day(time[i]), model[i], speed[i], machine[i]);
            if last != Some(row) {
                at = self.slot(row);
                last = Some(row);
            }
            let sum = &mut self.sums[at];
            sum.1 += 1;
            sum.2 += cost[i];
            sum.3.iter_mut().zip(&tokens).for_each(|(t, column)| *t += column[i]);
        }
        Ok(())
    }

    /// The index in `sums` of a row's key, added when new.
    fn slot(&mut self, (user, day, model, speed, machine): (&str, i32, &str, &str, &str)) -> usize {
        let key = (self.id(user), day, self.id(model), self.id(speed), self.id(machine));
        *self.index.entry(key).or_insert_with(|| {
            self.sums.push((key, 0, 0.0, [0; 5]));
            self.sums.len() - 1
        })
    }

    fn id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(text.to_owned());
        self.ids.insert(text.to_owned(), id);
        id
    }

    /// The sums as a frame: `REQUEST_KEYS`, `SUMMED` and `c::TOKENS`.
    fn frame(&self) -> PolarsResult<DataFrame> {
        let text = |name: &str, of: fn(&RequestKey) -> u32| {
            Column::new(
                name.into(),
                self.sums.iter().map(|s| self.names[of(&s.0) as usize].as_str()).collect::<Vec<_>>(),
            )
        };
        let days: Vec<i32> = self.sums.iter().map(|s| s.0 .1).collect();
        let mut columns = vec![
            text(c::USER, |k| k.0),
            Column::new(c::KEY.into(), days).cast(&DataType::Date)?,
            text(c::MODEL, |k| k.2),
            text(c::SPEED, |k| k.3),
            text(c::MACHINE, |k| k.4),
            Column::new(c::COUNTED.into(), self.sums.iter().map(|s| s.1).collect::<Vec<_>>()),
            Column::new(c::COST_USD.into(), self.sums.iter().map(|s| s.2).collect::<Vec<_>>()),
        ];
        for (t, name) in c::TOKENS.iter().enumerate() {
            columns.push(Column::new((*name).into(), self.sums.iter().map(|s| s.3[t]).collect::<Vec<_>>()));
        }
        DataFrame::new_infer_height(columns)
    }
}

/// Message ids stored under more than one person among the requests of
/// `scan` (`n` rows) that `q` selects (each copy is kept under its own
/// user: the team report's flag; `sql/team_shared_message_ids.sql` is the
/// same count as a query), a slice at a time (`model::SharedIds`).
pub(super) fn shared_message_ids(scan: &LazyFrame, n: usize, q: &Query) -> PolarsResult<usize> {
    shared_sliced(scan, n, q, BATCH_ROWS)
}

fn shared_sliced(scan: &LazyFrame, n: usize, q: &Query, rows: IdxSize) -> PolarsResult<usize> {
    let mut shared = SharedIds::default();
    for_each_slice_of(scan, n, q, rows, |slice| {
        let df = q.filter(slice)?.select([col(c::USER), col(c::MESSAGE_ID)]).collect()?;
        let k = Cols(&df);
        shared.add(&k.str(c::USER)?, &k.str(c::MESSAGE_ID)?);
        Ok(())
    })?;
    Ok(shared.count())
}

/// The miss cost of the analysis rows of `scan` (the stored analysis
/// table) that `q` selects, summed per person and class (what
/// `sql/team_person_cache.sql` reads of them), sorted by both; in memory.
/// Summed here in the rows' order, not by a polars group-by: with one or
/// two keys polars sums each group in parallel parts and adds the parts in
/// whichever order its threads finish, so the same rows could give figures
/// that differ in the last bit from one run to the next.
pub(super) fn analysis(scan: &LazyFrame, n: usize, q: &Query) -> PolarsResult<LazyFrame> {
    let mut sums = MissSums::default();
    for_each_slice_of(scan, n, q, BATCH_ROWS, |slice| {
        let df = q.filter(slice)?.select([col(c::USER), col(c::CLASS), col(c::MISS_COST_USD)]).collect()?;
        let k = Cols(&df);
        sums.add(&k.str(c::USER)?, &k.str(c::CLASS)?, &k.opt_f64(c::MISS_COST_USD)?);
        Ok(())
    })?;
    let mut rows: Vec<(&str, &str, f64)> = sums
        .people
        .iter()
        .flat_map(|(user, classes)| classes.iter().map(move |(class, sum)| (user.as_str(), class.as_str(), *sum)))
        .collect();
    rows.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let df = DataFrame::new_infer_height(vec![
        Column::new(c::USER.into(), rows.iter().map(|r| r.0).collect::<Vec<_>>()),
        Column::new(c::CLASS.into(), rows.iter().map(|r| r.1).collect::<Vec<_>>()),
        Column::new(c::MISS_COST_USD.into(), rows.iter().map(|r| r.2).collect::<Vec<_>>()),
    ])?;
    Ok(df.lazy())
}

/// The miss cost per person and class, each sum taken in the rows' order.
/// Rows come grouped by person and are mostly of one class, so a row looks
/// a person or class up only when it differs from the row before.
#[derive(Default)]
struct MissSums {
    people: Vec<(String, Vec<(String, f64)>)>,
    index: HashMap<String, usize>,
}

impl MissSums {
    fn add(&mut self, users: &[&str], classes: &[&str], costs: &[Option<f64>]) {
        let (mut last_user, mut last_class, mut at) = (None, None, (0, 0));
        for ((&user, &class), cost) in users.iter().zip(classes).zip(costs) {
            if last_user != Some(user) {
                at.0 = self.person(user);
                (last_user, last_class) = (Some(user), None);
            }
            if last_class != Some(class) {
                at.1 = self.class(at.0, class);
                last_class = Some(class);
            }
            self.people[at.0].1[at.1].1 += cost.unwrap_or(0.0);
        }
    }

    fn person(&mut self, user: &str) -> usize {
        if let Some(&i) = self.index.get(user) {
            return i;
        }
        self.people.push((user.to_owned(), Vec::new()));
        self.index.insert(user.to_owned(), self.people.len() - 1);
        self.people.len() - 1
    }

    fn class(&mut self, person: usize, class: &str) -> usize {
        let classes = &mut self.people[person].1;
        match classes.iter().position(|(name, _)| name == class) {
            Some(i) => i,
            None => {
                classes.push((class.to_owned(), 0.0));
                classes.len() - 1
            }
        }
    }
}

/// The selected requests (`lf`) with each response made of API calls split
/// into one row per call (`calls::split_by_model`), summed: the model mix
/// then puts each call's cost under its own model, as `report model` does,
/// and every other total is unchanged.
pub(super) fn split(lf: LazyFrame, stored: &[Call]) -> PolarsResult<LazyFrame> {
    let keys = [c::KEY, c::MODEL, c::SPEED, c::MACHINE];
    let cols: Vec<Expr> =
        keys.iter().chain(&SUMMED).chain(&c::TOKENS).chain(&calls::KEY_COLUMNS).map(|n| col(*n)).collect();
    let df = counted(lf).select(cols).collect()?;
    let matched = calls::match_rows(&df, stored)?;
    let split = calls::split_by_model(df, stored, &matched, false, false)?.lazy();
    Ok(in_order(group(split), &REQUEST_KEYS).collect()?.lazy())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::calls::tests::request;
    use crate::model::TokenCounts;
    use crate::store::frames;
    use chrono::TimeDelta;

    #[test]
    fn miss_sums_per_person_and_class_add_in_the_rows_order() {
        let mut sums = MissSums::default();
        let (users, classes) = (["ana", "ana", "ana", "bo", "ana"], ["hit", "ttl_5m", "ttl_5m", "ttl_5m", "ttl_5m"]);
        sums.add(&users, &classes, &[None, Some(0.1), Some(0.2), Some(5.0), Some(0.3)]);
        sums.add(&["bo", "ana"], &["ttl_1h", "hit"], &[Some(1.5), Some(0.0)]);
        let of = |user: &str, class: &str| {
            let person = sums.people.iter().find(|(u, _)| u == user).unwrap();
            person.1.iter().find(|(c, _)| c == class).unwrap().1
        };
        assert_eq!(of("ana", "ttl_5m").to_bits(), ((0.1f64 + 0.2) + 0.3).to_bits());
        assert_eq!((of("ana", "hit"), of("bo", "ttl_5m"), of("bo", "ttl_1h")), (0.0, 5.0, 1.5));
        assert_eq!(sums.people.len(), 2);
        assert_eq!(sums.people[0].1.len(), 2, "ana: hit and ttl_5m, each once");
    }

    #[test]
    fn request_sums_add_in_the_rows_order_per_local_day_model_speed_and_machine() {
        // 03:30 UTC on the 2nd is the 1st in New York: two days in UTC, one there.
        let at = ["2026-03-01T20:00:00Z", "2026-03-02T03:30:00Z", "2026-03-02T03:31:00Z", "2026-03-02T03:32:00Z"];
        let rows: Vec<crate::model::Request> = at
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut r = request("claude-sonnet-4-5", TokenCounts { input: 1 << i, ..TokenCounts::default() });
                r.time = chrono::DateTime::parse_from_rfc3339(t).unwrap().to_utc();
                (r.user, r.machine, r.cost_usd) = ("ana".into(), "desk".into(), [0.1, 0.2, 0.3, 0.4][i]);
                r.speed = if i == 3 { "fast" } else { "" }.into();
                r
            })
            .collect();
        let df = frames::requests_frame(&rows).unwrap();
        let sums = |tz| {
            let mut sums = RequestSums::new(tz);
            sums.add(&df).unwrap();
            sums.sums.iter().map(|s| (s.0 .1, s.1, s.2.to_bits(), s.3[0])).collect::<Vec<_>>()
        };
        let (day, next) = (20_513, 20_514);
        assert_eq!(
            sums(chrono_tz::UTC),
            [(day, 1, 0.1f64.to_bits(), 1), (next, 2, (0.2f64 + 0.3).to_bits(), 6), (next, 1, 0.4f64.to_bits(), 8)]
        );
        let ny = sums(chrono_tz::America::New_York);
        assert_eq!(ny, [(day, 3, ((0.1f64 + 0.2) + 0.3).to_bits(), 7), (day, 1, 0.4f64.to_bits(), 8)]);
    }

    #[test]
    fn sums_over_slices_equal_sums_over_the_rows() {
        let rows: Vec<crate::model::Request> = (0..30u64)
            .map(|i| {
                let model = if i % 4 == 0 { "claude-opus-4-1" } else { "claude-sonnet-4-5" };
                let mut r = request(model, TokenCounts { input: i, output: 3 * i, ..TokenCounts::default() });
                r.time += TimeDelta::hours(9 * i as i64);
                r.user = ["ana", "bo", "cy"][(i % 3) as usize].into();
                r.machine = if i % 5 == 0 { "desk" } else { "laptop" }.into();
                r.cost_usd = 0.25 * i as f64;
                r
            })
            .collect();
        let (lf, n) = (frames::requests_frame(&rows).unwrap().lazy(), rows.len());
        let q = Query::new(chrono_tz::UTC);
        let sorted = |rows: IdxSize| requests_sliced(&lf, n, &q, rows).unwrap().collect().unwrap();
        let (one, sliced) = (sorted(1_000), sorted(4));
        assert_eq!(one, sliced);
        assert!(one.height() > 10, "several people, days, models and machines");
        let counted: u64 = one.column(c::COUNTED).unwrap().u64().unwrap().sum().unwrap();
        assert_eq!(counted, 30);
        let cost = one.column(c::COST_USD).unwrap().f64().unwrap().sum().unwrap();
        assert!((cost - 0.25 * 435.0).abs() < 1e-9);
    }

    #[test]
    fn a_message_id_under_two_people_counts_once() {
        // ana m1 m2, bo m2 m3 m3 (a replayed copy of his own), cy m3 m4.
        let held = [("ana", "m1"), ("ana", "m2"), ("bo", "m2"), ("bo", "m3"), ("bo", "m3"), ("cy", "m3"), ("cy", "m4")];
        let rows: Vec<crate::model::Request> = held
            .iter()
            .map(|(user, id)| {
                let mut r = request("claude-sonnet-4-5", TokenCounts::default());
                (r.user, r.message_id) = ((*user).into(), (*id).into());
                r
            })
            .collect();
        let (lf, n) = (frames::requests_frame(&rows).unwrap().lazy(), rows.len());
        let mut q = Query::new(chrono_tz::UTC);
        let shared = |q: &Query| [1_000, 2].map(|rows| shared_sliced(&lf, n, q, rows).unwrap());
        assert_eq!(shared(&q), [2, 2], "m2 and m3, in one slice or several");
        q.user = Some("bo".into());
        assert_eq!(shared(&q), [0, 0], "one person shares with nobody");
    }
}

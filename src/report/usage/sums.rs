//! The usage reports' sums per `key` and `sub`: what `sql/usage_by_key.sql`
//! computes (requests, tokens and cost summed, the first and last request,
//! the least project name), added up in a loop in the rows' order across
//! every slice of the table, so the same rows give the same figures to the
//! last bit on every run. Rows come grouped by session, mostly of one day
//! and model in a row: a row looks its key up only when it differs from the
//! row before. The team engines' test holds the SQL and these sums equal.

use crate::model::columns as c;
use crate::model::TokenCounts;
use crate::store::frames::{time_column, Cols};
use chrono::DateTime;
use polars::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// A row's `key`: a period's first day (days since 1970-01-01), or a text
/// (session id, project, model, source).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Day(i32),
    Text(String),
}

/// One key's figures.
#[derive(Debug, Clone)]
struct Sum {
    requests: u64,
    tokens: TokenCounts,
    cost_usd: f64,
    /// Milliseconds since the epoch.
    first: i64,
    last: i64,
    project: String,
}

/// The sums of every frame `add` was given, per key and sub.
#[derive(Debug, Default)]
pub(super) struct KeySums {
    index: HashMap<(Key, String), usize>,
    sums: Vec<((Key, String), Sum)>,
    /// Whether the keys are days (a period report).
    days: bool,
}

/// A text column: a literal's one value, or each row's.
enum Texts<'a> {
    One(String),
    Each(Vec<&'a str>),
}

impl<'a> Texts<'a> {
    fn of(df: &'a DataFrame, name: &str) -> PolarsResult<Texts<'a>> {
        Ok(match df.column(name)? {
            Column::Scalar(s) => Texts::One(s.scalar().value().get_str().unwrap_or_default().to_owned()),
            _ => Texts::Each(Cols(df).str(name)?),
        })
    }

    fn get(&self, i: usize) -> &str {
        match self {
            Texts::One(s) => s,
            Texts::Each(v) => v[i],
        }
    }

    /// Whether row `i` differs from the row before (a literal never does).
    fn changes_at(&self, i: usize) -> bool {
        match self {
            Texts::One(_) => false,
            Texts::Each(v) => v[i] != v[i - 1],
        }
    }
}

impl KeySums {
    /// Adds the rows of `df`: `key`, `sub`, `counted`, `c::TOKENS`, the cost,
    /// the time and the project.
    pub(super) fn add(&mut self, df: &DataFrame) -> PolarsResult<()> {
        let key = df.column(c::KEY)?.as_materialized_series();
        // A slice may select no row: its key's type still says the report's.
        self.days = key.dtype() == &DataType::Date;
        if df.height() == 0 {
            return Ok(());
        }
        let (days, texts) = match self.days {
            true => (Some(slice(key.date()?.physical())?), Vec::new()),
            false => (None, Cols(df).str(c::KEY)?),
        };
        let key = |i: usize| match &days {
            Some(d) => Key::Day(d[i]),
            None => Key::Text(texts[i].to_owned()),
        };
        let same = |i: usize| match &days {
            Some(d) => d[i] == d[i - 1],
            None => texts[i] == texts[i - 1],
        };
        let (sub, project) = (Texts::of(df, c::SUB)?, Texts::of(df, c::PROJECT)?);
        let number = |name: &str| Ok::<_, PolarsError>(df.column(name)?.as_materialized_series().clone());
        let (counted, cost) = (number(c::COUNTED)?, number(c::COST_USD)?);
        let (counted, cost) = (slice(counted.u64()?)?, slice(cost.f64()?)?);
        let time = number(c::TIME)?;
        let time = slice(time.datetime()?.physical())?;
        let tokens: Vec<Series> = c::TOKENS.iter().map(|n| number(n)).collect::<PolarsResult<_>>()?;
        let tokens = tokens.iter().map(|t| slice(t.u64()?)).collect::<PolarsResult<Vec<_>>>()?;
        let mut at = 0;
        for i in 0..df.height() {
            if i == 0 || !same(i) || sub.changes_at(i) {
                at = self.slot(key(i), sub.get(i), time[i], project.get(i));
            }
            let s = &mut self.sums[at].1;
            s.requests += counted[i];
            let t = &mut s.tokens;
            for (sum, column) in
                [&mut t.input, &mut t.cache_write_5m, &mut t.cache_write_1h, &mut t.cache_read, &mut t.output]
                    .into_iter()
                    .zip(&tokens)
            {
                *sum += column[i];
            }
            s.cost_usd += cost[i];
            s.first = s.first.min(time[i]);
            s.last = s.last.max(time[i]);
            if let Texts::Each(p) = &project {
                if p[i] < s.project.as_str() {
                    p[i].clone_into(&mut s.project);
                }
            }
        }
        Ok(())
    }

    /// The index in `sums` of a key and sub, added (at `time`, in
    /// `project`) when new.
    fn slot(&mut self, key: Key, sub: &str, time: i64, project: &str) -> usize {
        let sums = &mut self.sums;
        *self.index.entry((key, sub.to_owned())).or_insert_with_key(|k| {
            let sum = Sum {
                requests: 0,
                tokens: TokenCounts::default(),
                cost_usd: 0.0,
                first: time,
                last: time,
                project: project.to_owned(),
            };
            sums.push((k.clone(), sum));
            sums.len() - 1
        })
    }

    /// The sums as the SQL's rows, by key and sub: `key` (a date for a
    /// period report), `sub`, `requests`, the token columns, `cost_usd`,
    /// `first`, `last` and `project`.
    pub(super) fn frame(mut self) -> PolarsResult<DataFrame> {
        self.sums.sort_by(|a, b| a.0.cmp(&b.0));
        let rows = &self.sums;
        let key = match self.days {
            true => {
                let days: Vec<i32> = rows.iter().map(|r| if let Key::Day(d) = r.0 .0 { d } else { 0 }).collect();
                Column::new(c::KEY.into(), days).cast(&DataType::Date)?
            }
            false => Column::new(
                c::KEY.into(),
                rows.iter().map(|r| if let Key::Text(t) = &r.0 .0 { t.as_str() } else { "" }).collect::<Vec<_>>(),
            ),
        };
        let u =
            |name: &str, f: fn(&Sum) -> u64| Column::new(name.into(), rows.iter().map(|r| f(&r.1)).collect::<Vec<_>>());
        let time = |name: &str, f: fn(&Sum) -> i64| {
            time_column(name, rows.iter().map(|r| DateTime::from_timestamp_millis(f(&r.1)).unwrap_or_default()))
        };
        DataFrame::new_infer_height(vec![
            key,
            Column::new(c::SUB.into(), rows.iter().map(|r| r.0 .1.as_str()).collect::<Vec<_>>()),
            u("requests", |s| s.requests),
            u("input_tokens", |s| s.tokens.input),
            u("output_tokens", |s| s.tokens.output),
            u("cache_write_5m_tokens", |s| s.tokens.cache_write_5m),
            u("cache_write_1h_tokens", |s| s.tokens.cache_write_1h),
            u("cache_read_tokens", |s| s.tokens.cache_read),
            Column::new(c::COST_USD.into(), rows.iter().map(|r| r.1.cost_usd).collect::<Vec<_>>()),
            time(c::FIRST, |s| s.first),
            time(c::LAST, |s| s.last),
            Column::new(c::PROJECT.into(), rows.iter().map(|r| r.1.project.as_str()).collect::<Vec<_>>()),
        ])
    }
}

/// A numeric column's values: borrowed when they are one chunk without
/// nulls (a selected slice's columns are), else copied (nulls as zero).
fn slice<T: PolarsNumericType>(ca: &ChunkedArray<T>) -> PolarsResult<Cow<'_, [T::Native]>> {
    Ok(match ca.cont_slice() {
        Ok(v) => Cow::Borrowed(v),
        Err(_) => Cow::Owned(ca.iter().map(Option::unwrap_or_default).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row: `(key, sub, cost, time ms, project)`.
    type Row<'a> = (&'a str, &'a str, f64, i64, &'a str);

    fn frame(rows: &[Row<'_>]) -> DataFrame {
        let col = |name: &str, f: for<'a> fn(&Row<'a>) -> &'a str| {
            Column::new(name.into(), rows.iter().map(f).collect::<Vec<_>>())
        };
        let mut cols = vec![col(c::KEY, |r| r.0), col(c::SUB, |r| r.1), col(c::PROJECT, |r| r.4)];
        cols.push(Column::new(c::COUNTED.into(), vec![1u64; rows.len()]));
        cols.extend(c::TOKENS.iter().map(|n| Column::new((*n).into(), vec![2u64; rows.len()])));
        cols.push(Column::new(c::COST_USD.into(), rows.iter().map(|r| r.2).collect::<Vec<_>>()));
        cols.push(time_column(c::TIME, rows.iter().map(|r| DateTime::from_timestamp_millis(r.3).unwrap())));
        DataFrame::new_infer_height(cols).unwrap()
    }

    #[test]
    fn sums_over_slices_are_taken_in_the_rows_order_with_the_first_last_and_least_project() {
        // Costs whose sum depends on the order they are added in, over 40 slices.
        let costs: Vec<f64> = (0..400).map(|i| [1e16, 1.0, -1e16, 0.1, 3.0][i % 5] * (1.0 + i as f64 / 7.0)).collect();
        let rows: Vec<Row<'_>> = costs
            .iter()
            .enumerate()
            .map(|(i, x)| (if i % 3 == 0 { "s2" } else { "s1" }, "", *x, 1000 - i as i64, ["q", "p", "r"][i % 3]))
            .collect();
        let mut sums = KeySums::default();
        for slice in rows.chunks(10) {
            sums.add(&frame(slice)).unwrap();
        }
        let df = sums.frame().unwrap();
        let k = Cols(&df);
        assert_eq!(k.str(c::KEY).unwrap(), ["s1", "s2"]);
        assert_eq!(k.u64("requests").unwrap(), [266, 134]);
        assert_eq!(k.u64("cache_read_tokens").unwrap(), [532, 268]);
        let s1 = rows.iter().filter(|r| r.0 == "s1").fold(0.0, |sum, r| sum + r.2);
        assert_eq!(k.f64(c::COST_USD).unwrap()[0].to_bits(), s1.to_bits());
        assert_eq!(k.millis(c::FIRST).unwrap(), [1000 - 398, 1000 - 399]);
        assert_eq!(k.millis(c::LAST).unwrap(), [1000 - 1, 1000]);
        assert_eq!(k.str(c::PROJECT).unwrap(), ["p", "q"], "s1 holds p and r, s2 only q");
    }

    #[test]
    fn day_keys_stay_dates_in_order_and_each_sub_is_its_own_row() {
        let day = 86_400_000;
        let rows = [("", "opus", 1.0, 3 * day, ""), ("", "haiku", 2.0, day, ""), ("", "opus", 4.0, day + 5, "")];
        let mut df = frame(&rows);
        let days = Column::new(c::KEY.into(), [3i32, 1, 1]).cast(&DataType::Date).unwrap();
        df.with_column(days).unwrap();
        let mut sums = KeySums::default();
        sums.add(&df).unwrap();
        let out = sums.frame().unwrap();
        assert_eq!(out.column(c::KEY).unwrap().dtype(), &DataType::Date);
        let k = Cols(&out);
        assert_eq!(k.millis(c::KEY).unwrap(), [day, day, 3 * day]);
        assert_eq!(k.str(c::SUB).unwrap(), ["haiku", "opus", "opus"]);
        assert_eq!(k.f64(c::COST_USD).unwrap(), [2.0, 4.0, 1.0]);
    }
}

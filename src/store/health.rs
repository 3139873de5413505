//! A store's health: which table files do not open as Parquet, and which
//! are missing although the manifest says the store was written. Reading a
//! file's footer costs a few small reads, so an ingest checks every table
//! before it trusts them; hands on `TableProblem`s, which the ingest turns
//! into an error (the requests) or a rebuild (the tables derived from them).

use super::{Store, StoreError, Table};
use polars::prelude::*;
use std::io::BufReader;

/// Every table a written store holds (the recent part comes and goes).
pub(super) const REQUIRED: [Table; 5] =
    [Table::Requests, Table::Spares, Table::Compactions, Table::Titles, Table::SessionTotals];

/// One table that cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableProblem {
    /// The file exists but its footer does not read: the decoder's cause.
    Damaged(Table, String),
    /// The manifest says the store was written, but the file is gone.
    Missing(Table),
}

impl TableProblem {
    pub fn table(&self) -> Table {
        match self {
            TableProblem::Damaged(t, _) | TableProblem::Missing(t) => *t,
        }
    }

    /// As an error naming the file, the cause and the rebuild command.
    pub fn error(&self, store: &Store, files: usize) -> StoreError {
        match self {
            TableProblem::Damaged(t, cause) => StoreError::Damaged { path: store.path(*t), cause: cause.clone() },
            TableProblem::Missing(t) => StoreError::Missing { path: store.path(*t), files },
        }
    }
}

impl Store {
    /// True when table `t`'s file exists and its Parquet footer reads (a
    /// torn file's does not).
    pub fn footer_reads(&self, t: Table) -> bool {
        super::files::open_regular(&self.path(t))
            .is_ok_and(|f| ParquetReader::new(BufReader::new(f)).get_metadata().is_ok())
    }

    /// The tables that cannot be trusted; `written` says whether the
    /// manifest records an earlier write (so a missing table is a problem).
    pub fn problems(&self, written: bool) -> Vec<TableProblem> {
        let mut out = Vec::new();
        for t in REQUIRED.into_iter().chain([Table::RecentRequests]) {
            let path = self.path(t);
            let file = match super::files::open_regular(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if written && t != Table::RecentRequests {
                        out.push(TableProblem::Missing(t));
                    }
                    continue;
                }
                Err(e) => {
                    out.push(TableProblem::Damaged(t, e.to_string()));
                    continue;
                }
            };
            if let Err(e) = ParquetReader::new(BufReader::new(file)).get_metadata() {
                if let StoreError::Damaged { cause, .. } = StoreError::damaged(path, &e) {
                    out.push(TableProblem::Damaged(t, cause));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn garbage_and_missing_tables_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.problems(false).is_empty(), "a store never written has no problems");
        let mut df = DataFrame::new(1, vec![Column::new("x".into(), [1u64])]).unwrap();
        for t in REQUIRED {
            store.begin().unwrap().write(t, &mut df).unwrap();
        }
        assert!(store.problems(true).is_empty());
        fs::write(store.path(Table::Spares), b"not parquet at all").unwrap();
        fs::remove_file(store.path(Table::SessionTotals)).unwrap();
        let p = store.problems(true);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(matches!(&p[0], TableProblem::Damaged(Table::Spares, cause) if !cause.is_empty()), "{p:?}");
        assert_eq!(p[1], TableProblem::Missing(Table::SessionTotals));
    }

    #[test]
    fn every_truncation_of_a_table_is_damage_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let mut df =
            DataFrame::new(3, vec![Column::new("x".into(), [1u64, 2, 3]), Column::new("y".into(), ["a", "b", "c"])])
                .unwrap();
        store.begin().unwrap().write(Table::SessionTotals, &mut df).unwrap();
        let good = fs::read(store.path(Table::SessionTotals)).unwrap();
        for cut in (0..good.len()).step_by(3) {
            fs::write(store.path(Table::SessionTotals), &good[..cut]).unwrap();
            let p = store.problems(false);
            assert!(matches!(&p[..], [TableProblem::Damaged(Table::SessionTotals, _)]), "cut at {cut}: {p:?}");
            let err = store.read(Table::SessionTotals).unwrap_err();
            assert!(matches!(err, StoreError::Damaged { .. }), "cut at {cut}: {err}");
        }
    }
}

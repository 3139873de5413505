//! Which stored rows a merge deduplicates again: the `(user, message id)`
//! groups the new rows touch, plus those of rows from files read again whole
//! (or every group, when the whole store is rebuilt or repriced).

use super::dedup::Chunks;
use super::merge::Base;
use crate::model::columns as c;
use crate::model::Request;
use crate::store::frames::{self, Cols};
use foldhash::HashSet as FoldSet;
use polars::prelude::*;
use std::collections::HashSet;

/// The `(user, message id)` groups a merge deduplicates again (hashed with
/// foldhash: an append looks up every stored request's key, 85,000 on the
/// 1 GiB tree; seeded per run, so crafted ids cannot be made to collide).
pub(super) struct Touched<'a> {
    all: bool,
    groups: FoldSet<(&'a str, &'a str)>,
}

impl<'a> Touched<'a> {
    pub(super) fn of(
        base: Base,
        rows: &'a Chunks,
        replaced: &HashSet<String>,
        stored: &[&'a DataFrame],
    ) -> PolarsResult<Touched<'a>> {
        if base != Base::Touched {
            return Ok(Touched { all: true, groups: FoldSet::default() });
        }
        let mut groups: FoldSet<(&str, &str)> =
            rows.0.iter().flatten().map(|r| (r.user.as_str(), r.message_id.as_str())).collect();
        if !replaced.is_empty() {
            for df in stored.iter().copied() {
                let k = Cols(df);
                let (user, msg, source) = (k.str(c::USER)?, k.str(c::MESSAGE_ID)?, k.str(c::SOURCE)?);
                let local_replaced = |&i: &usize| user[i].is_empty() && replaced.contains(source[i]);
                groups.extend((0..df.height()).filter(local_replaced).map(|i| (user[i], msg[i])));
            }
        }
        Ok(Touched { all: false, groups })
    }

    /// True when any row of `df` is in a touched group (the first found
    /// ends the search).
    pub(super) fn any(&self, df: &DataFrame) -> PolarsResult<bool> {
        if self.all {
            return Ok(df.height() > 0);
        }
        Ok(self.hits(df)?.any(|hit| hit))
    }

    pub(super) fn mask(&self, df: &DataFrame) -> PolarsResult<BooleanChunked> {
        if self.all {
            return Ok(BooleanChunked::full("touched".into(), true, df.height()));
        }
        Ok(BooleanChunked::from_iter_values("touched".into(), self.hits(df)?))
    }

    /// Whether each row of `df` is in a touched group, read from the
    /// columns as they are (a base's every row: no copy of them).
    fn hits<'d>(&'d self, df: &'d DataFrame) -> PolarsResult<impl Iterator<Item = bool> + 'd> {
        let (user, msg) = (df.column(c::USER)?.str()?, df.column(c::MESSAGE_ID)?.str()?);
        let pair = |(u, m): (Option<&str>, Option<&str>)| self.groups.contains(&(u.unwrap_or(""), m.unwrap_or("")));
        Ok(user.iter().zip(msg.iter()).map(pair))
    }
}

/// The stored tables split into rows kept as they are and candidates that
/// are deduplicated again.
pub(super) struct Split {
    /// Stored requests kept as they are.
    pub requests: DataFrame,
    /// Stored spare rows kept as they are.
    pub spares: DataFrame,
    /// Stored candidates deduplicated again.
    pub old: Vec<Request>,
    /// Sessions of the touched stored requests.
    pub sessions: HashSet<String>,
    /// Requests of files read again whole that the new read no longer
    /// holds (a transcript rewritten shorter): kept, and counted.
    pub kept_from_rewritten: usize,
}

pub(super) fn split(
    base: Base,
    rows: &Chunks,
    replaced: &HashSet<String>,
    requests: &DataFrame,
    spares: &DataFrame,
) -> PolarsResult<Split> {
    let touched = Touched::of(base, rows, replaced, &[requests, spares])?;
    let (r_mask, d_mask) = (touched.mask(requests)?, touched.mask(spares)?);
    let touched_requests = requests.filter(&r_mask)?;
    let sessions = Cols(&touched_requests).str(c::SESSION_ID)?.into_iter().map(str::to_owned).collect();
    let (old, kept_from_rewritten) = old_candidates(&touched_requests, &spares.filter(&d_mask)?, replaced, rows)?;
    Ok(Split {
        old,
        requests: requests.filter(&!&r_mask)?,
        spares: spares.filter(&!&d_mask)?,
        sessions,
        kept_from_rewritten,
    })
}

/// The stored candidates of the touched groups: their spare rows, plus the
/// requests seen once (not among the spares; unpriced again, as candidates
/// are). A file read again whole (rewritten, cut short, emptied) leaves its
/// earlier rows candidates beside the new read's, which come first: a line
/// it holds again merges with its earlier copy (deduplication), and a
/// request it no longer holds was paid for, so it is kept, as a deleted
/// file's are, and counted (the second value: no other file holds a copy).
fn old_candidates(
    requests: &DataFrame,
    spares: &DataFrame,
    replaced: &HashSet<String>,
    new: &Chunks,
) -> PolarsResult<(Vec<Request>, usize)> {
    let mut out = frames::requests_from(spares)?;
    let repeated: HashSet<(&str, &str, &str)> =
        out.iter().map(|r| (r.user.as_str(), r.message_id.as_str(), r.request_id.as_str())).collect();
    let once: Vec<Request> = frames::requests_from(requests)?
        .into_iter()
        .filter(|r| !repeated.contains(&(r.user.as_str(), r.message_id.as_str(), r.request_id.as_str())))
        .map(|r| Request { cost_usd: 0.0, ..r })
        .collect();
    out.extend(once);
    if replaced.is_empty() {
        return Ok((out, 0));
    }
    // By message id: a sidechain replay (another request id) is no request
    // of its own; only local rows (user ""), never a team member's.
    let held: FoldSet<&str> = new.0.iter().flatten().map(|r| r.message_id.as_str()).collect();
    let (mut kept, mut elsewhere) = (HashSet::new(), HashSet::new());
    for r in &out {
        match r.user.is_empty() && replaced.contains(r.source.as_str()) {
            true if !held.contains(r.message_id.as_str()) => kept.insert(r.message_id.as_str()),
            true => false,
            false => elsewhere.insert(r.message_id.as_str()),
        };
    }
    let n = kept.difference(&elsewhere).count();
    Ok((out, n))
}

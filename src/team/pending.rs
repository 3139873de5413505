//! Bundles waiting for their person's turn in an import. An import checks
//! every bundle before it writes anything to the team store, but holds only
//! one person's rows at a time (two people's, in two lanes). A file's
//! footer is read first (`footers`: who sent it, within the limits). A file
//! of someone the store already holds is then checked on its columns up
//! front (`check_known`), its bytes kept and decoded again when that person
//! is merged, since that merge writes the store. A file of someone new is
//! read, checked and decoded once, in its person's lane (`Pending::bundle`):
//! those lanes write only scratch stores, which a bad file leaves unused.
//! Uploads arrive decoded and stay so. Hands `import` a `Pending` per bundle.

use super::bundle::{check_limited, read_bundle_again, read_bundle_limited, read_meta, Bundle, BundleMeta, Checked};
use super::frame_checks::check_owner;
use super::import::Incoming;
use super::limits::BundleLimits;
use super::TeamError;
use crate::lanes;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One bundle of an import.
pub(super) struct Pending<'a> {
    pub origin: String,
    pub meta: BundleMeta,
    /// Its requests and compactions, counted once it is checked.
    counts: OnceLock<(usize, usize)>,
    held: Held<'a>,
}

enum Held<'a> {
    Decoded(&'a Bundle),
    /// Checked on its columns; its bytes are the ones checked.
    Checked {
        bytes: Vec<u8>,
        limits: BundleLimits,
    },
    /// Only its footer read: checked in full when decoded.
    Footer {
        path: PathBuf,
        limits: BundleLimits,
    },
}

impl<'a> Pending<'a> {
    /// A bundle already decoded (an upload); its owner is checked here.
    pub(super) fn decoded(i: &'a Incoming) -> Result<Pending<'a>, TeamError> {
        check_owner(&i.bundle, &i.origin)?;
        Ok(Pending {
            origin: i.origin.clone(),
            meta: i.bundle.meta.clone(),
            counts: OnceLock::from((i.bundle.requests.len(), i.bundle.compactions.len())),
            held: Held::Decoded(&i.bundle),
        })
    }

    /// Request rows the bundle holds (0 before it is checked).
    pub(super) fn requests(&self) -> usize {
        self.counts.get().map_or(0, |c| c.0)
    }

    /// Compaction rows the bundle holds (0 before it is checked).
    pub(super) fn compactions(&self) -> usize {
        self.counts.get().map_or(0, |c| c.1)
    }

    /// The bundle's rows. A checked file is decoded again (it was valid, and
    /// its bytes are the ones checked); a file whose footer alone was read
    /// is read, checked in full (as an upload is) and decoded here.
    pub(super) fn bundle(&self) -> Result<Cow<'a, Bundle>, TeamError> {
        match &self.held {
            Held::Decoded(b) => Ok(Cow::Borrowed(*b)),
            Held::Checked { bytes, limits } => Ok(Cow::Owned(read_bundle_again(bytes, &self.origin, limits)?)),
            Held::Footer { path, limits } => {
                let bytes = super::file::read(path, limits)?;
                let b = read_bundle_limited(&bytes, &self.origin, limits)?;
                check_owner(&b, &self.origin)?;
                if b.meta != self.meta {
                    return Err(changed(&self.origin));
                }
                let _ = self.counts.set((b.requests.len(), b.compactions.len()));
                Ok(Cow::Owned(b))
            }
        }
    }
}

/// A file whose footer said otherwise when it was first read.
fn changed(origin: &str) -> TeamError {
    TeamError::Damaged { origin: origin.to_owned(), why: "the file changed while it was imported".to_owned() }
}

/// Reads every file's footer, in order (the first bad one stops it): who
/// sent it, within `limits`. No page is decompressed.
pub(super) fn footers(files: Vec<PathBuf>, limits: &BundleLimits) -> Result<Vec<Pending<'static>>, TeamError> {
    files
        .into_iter()
        .map(|path| {
            let bytes = super::file::read(&path, limits)?;
            let origin = path.display().to_string();
            let meta = read_meta(&bytes, &origin, limits)?;
            Ok(Pending { origin, meta, counts: OnceLock::new(), held: Held::Footer { path, limits: *limits } })
        })
        .collect()
}

/// Checks, two at a time, the files of `people` (the store's, with their
/// request counts) whose footer alone was
/// read, keeping their bytes; the first bad one in `pending` order stops it.
pub(super) fn check_known(pending: &mut [Pending<'_>], people: &BTreeMap<String, usize>) -> Result<(), TeamError> {
    let todo: Vec<(usize, PathBuf, BundleLimits)> = pending
        .iter()
        .enumerate()
        .filter(|(_, p)| people.contains_key(&p.meta.user))
        .filter_map(|(k, p)| match &p.held {
            Held::Footer { path, limits } => Some((k, path.clone(), *limits)),
            _ => None,
        })
        .collect();
    let checked = lanes::run(&todo, lanes::LANES, |(_, path, limits)| {
        check_file(path, limits).map(|(c, bytes)| (c, Held::Checked { bytes, limits: *limits }))
    });
    for ((k, _, _), r) in todo.into_iter().zip(checked) {
        let (c, held) = r?;
        if c.meta != pending[k].meta {
            return Err(changed(&pending[k].origin));
        }
        let _ = pending[k].counts.set((c.requests, c.compactions));
        pending[k].held = held;
    }
    Ok(())
}

/// A file checked on its columns, and its bytes.
fn check_file(path: &Path, limits: &BundleLimits) -> Result<(Checked, Vec<u8>), TeamError> {
    let bytes = super::file::read(path, limits)?;
    let checked = check_limited(&bytes, &path.display().to_string(), limits)?;
    Ok((checked, bytes))
}

/// Checks every file on its columns, two at a time, and drops them: the
/// first bad file in `files` order, when an import stopped on a bad one
/// (lanes of people meet them in another order).
pub(super) fn first_bad(files: &[PathBuf], limits: &BundleLimits) -> Result<(), TeamError> {
    let checked = lanes::run(files, lanes::LANES, |f| check_file(f, limits).map(|_| ()));
    checked.into_iter().collect()
}

/// Whether `e` is a verdict on one bundle file (bad, over a limit,
/// unreadable), which `first_bad` reports in file order.
pub(super) fn is_verdict(e: &TeamError) -> bool {
    matches!(
        e,
        TeamError::NotParquet { .. }
            | TeamError::NotABundle { .. }
            | TeamError::Damaged { .. }
            | TeamError::NewerSchema { .. }
            | TeamError::OverLimit { .. }
            | TeamError::Io { .. }
    )
}

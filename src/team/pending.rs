//! Bundles waiting for their person's turn in an import. An import checks
//! every bundle before it writes anything, but holds only one person's rows
//! at a time: a file is read and validated once up front (then only its
//! bytes and what it says about itself are kept) and decoded again when its
//! person is merged. Uploads arrive decoded and stay so. Hands `import` a
//! `Pending` per bundle.

use super::bundle::{read_bundle_again, read_bundle_limited, Bundle, BundleMeta};
use super::import::Incoming;
use super::limits::BundleLimits;
use super::TeamError;
use crate::model::is_unsafe;
use std::borrow::Cow;
use std::fs;
use std::path::PathBuf;

/// One validated bundle of an import.
pub struct Pending<'a> {
    pub origin: String,
    pub meta: BundleMeta,
    pub requests: usize,
    pub compactions: usize,
    held: Held<'a>,
}

enum Held<'a> {
    Decoded(&'a Bundle),
    File { bytes: Vec<u8>, limits: BundleLimits },
}

impl<'a> Pending<'a> {
    /// A bundle already decoded (an upload); its owner is checked here.
    pub fn decoded(i: &'a Incoming) -> Result<Pending<'a>, TeamError> {
        check_owner(&i.bundle, &i.origin)?;
        Ok(Pending {
            origin: i.origin.clone(),
            meta: i.bundle.meta.clone(),
            requests: i.bundle.requests.len(),
            compactions: i.bundle.compactions.len(),
            held: Held::Decoded(&i.bundle),
        })
    }

    /// The bundle's rows (a file is decoded again; it was valid, and its
    /// bytes are the ones checked).
    pub fn bundle(&self) -> Result<Cow<'a, Bundle>, TeamError> {
        match &self.held {
            Held::Decoded(b) => Ok(Cow::Borrowed(*b)),
            Held::File { bytes, limits } => Ok(Cow::Owned(read_bundle_again(bytes, &self.origin, limits)?)),
        }
    }
}

/// Reads and validates every file, one at a time (a bundle's decoder
/// already uses every core; several at once only multiply the memory);
/// keeps their bytes.
pub fn read_files(files: Vec<PathBuf>, limits: &BundleLimits) -> Result<Vec<Pending<'static>>, TeamError> {
    files
        .into_iter()
        .map(|f| {
            let bytes = fs::read(&f).map_err(|source| TeamError::Io { path: f.clone(), source })?;
            let origin = f.display().to_string();
            let b = read_bundle_limited(&bytes, &origin, limits)?;
            check_owner(&b, &origin)?;
            let (requests, compactions) = (b.requests.len(), b.compactions.len());
            let held = Held::File { bytes, limits: *limits };
            Ok(Pending { origin, meta: b.meta, requests, compactions, held })
        })
        .collect()
}

/// A bundle is one person's: its meta names a user, and every request and
/// call row names that user (analysis rows are checked when read).
fn check_owner(b: &Bundle, origin: &str) -> Result<(), TeamError> {
    let not = |why: String| Err(TeamError::NotABundle { origin: origin.to_owned(), why });
    let user = b.meta.user.as_str();
    if user.is_empty() || b.requests.iter().any(|r| r.user.is_empty()) || b.iterations.iter().any(|c| c.user.is_empty())
    {
        return not("its rows name no user (export with --user NAME)".to_owned());
    }
    let rows = b.requests.iter().map(|r| r.user.as_str()).chain(b.iterations.iter().map(|c| c.user.as_str()));
    if let Some(o) = rows.into_iter().find(|u| *u != user) {
        let o: String = o.chars().filter(|c| !is_unsafe(*c)).take(40).collect();
        return not(format!("a row names user {o:?}, but the bundle is {user:?}'s (a bundle holds one person's rows)"));
    }
    Ok(())
}

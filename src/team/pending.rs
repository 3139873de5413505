//! Bundles waiting for their person's turn in an import. An import checks
//! every bundle before it writes anything, but holds only one person's rows
//! at a time (two people's, in two lanes): a file is read and validated
//! once up front, on its columns (then only its bytes and what it says
//! about itself are kept), and decoded again when its person is merged.
//! Uploads arrive decoded and stay so. Hands `import` a `Pending` per bundle.

use super::bundle::{check_limited, read_bundle_again, Bundle, BundleMeta, Checked};
use super::frame_checks::check_owner;
use super::import::Incoming;
use super::lanes;
use super::limits::BundleLimits;
use super::TeamError;
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

/// Reads and validates every file, two at a time (a schema-3 bundle is
/// checked on its columns: the frame and the checksum's buffer, not typed
/// rows, so two fit where one bundle's rows did); keeps their bytes. The
/// first bad file in `files` order stops it.
pub fn read_files(files: Vec<PathBuf>, limits: &BundleLimits) -> Result<Vec<Pending<'static>>, TeamError> {
    let checked = lanes::run(&files, lanes::LANES, |f| {
        let bytes = fs::read(f).map_err(|source| TeamError::Io { path: f.clone(), source })?;
        let origin = f.display().to_string();
        let Checked { meta, requests, compactions } = check_limited(&bytes, &origin, limits)?;
        let held = Held::File { bytes, limits: *limits };
        Ok(Pending { origin, meta, requests, compactions, held })
    });
    checked.into_iter().collect()
}

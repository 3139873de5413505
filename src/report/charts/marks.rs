//! The timeline's marks over a request's bar (cache model v2): misses after
//! an expiry or an upgrade, each cause of a miss within the TTL
//! (system prompt or tools changed, microcompact, context edit, full
//! rebuild) and rewinds, each in its own
//! colour and legend entry. Hands on `MARKS` and `mark_of` to `timeline`.

use super::palette;
use crate::analyze::CacheClass as C;
use crate::report::session::timeline::TimelineRow;
use plotters::style::RGBColor;

/// Marks over a bar: TTL and version misses, each cause of a miss within
/// the TTL (cache model v2), and rewinds, each in its own colour.
/// A class's mark says the class table's words (`analyze::CLASSES`).
pub(super) const MARKS: [(RGBColor, &str); 6] = [
    (palette::MISS, "miss (expired or upgrade)"),
    (palette::MICROCOMPACT, C::Microcompact.words()),
    (palette::CONTEXT_EDIT, C::ContextEdit.words()),
    (palette::FULL_REBUILD, C::FullRebuild.words()),
    (palette::REWIND, "rewind"),
    (palette::SHAPE_CHANGE, C::ShapeChange.words()),
];

/// The mark of one request, if any.
pub(super) fn mark_of(r: &TimelineRow) -> Option<(RGBColor, &'static str)> {
    match r.class {
        C::Microcompact => Some(MARKS[1]),
        C::ContextEdit => Some(MARKS[2]),
        C::FullRebuild => Some(MARKS[3]),
        C::ShapeChange => Some(MARKS[5]),
        c if c.is_miss() => Some(MARKS[0]),
        _ if r.rewind => Some(MARKS[4]),
        _ => None,
    }
}

//! Colours of the token classes, shared by every chart and the legend CSS,
//! and a cycle of colours for series that are not token classes (people).

use plotters::style::RGBColor;

pub const INPUT: RGBColor = RGBColor(0xd6, 0x27, 0x28);
pub const WRITE_5M: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
pub const WRITE_1H: RGBColor = RGBColor(0x94, 0x67, 0xbd);
pub const READ: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
pub const OUTPUT: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
pub const WEB: RGBColor = RGBColor(0x7f, 0x7f, 0x7f);
pub const GRID: RGBColor = RGBColor(0xe8, 0xe8, 0xe8);
pub const AXIS: RGBColor = RGBColor(0x55, 0x55, 0x55);
pub const MUTED: RGBColor = RGBColor(0xb0, 0xb0, 0xb0);
pub const MISS: RGBColor = RGBColor(0xd6, 0x27, 0x28);
pub const COMPACTION: RGBColor = RGBColor(0x17, 0xbe, 0xcf);
pub const SWITCH: RGBColor = RGBColor(0xbc, 0xbd, 0x22);
/// Cache model v2 marks: misses within the TTL, by cause, and rewinds.
pub const MICROCOMPACT: RGBColor = RGBColor(0xe3, 0x77, 0xc2);
pub const CONTEXT_EDIT: RGBColor = RGBColor(0x6a, 0x3d, 0x9a);
/// A miss after the system prompt or tools changed (`shape_change`).
pub const SHAPE_CHANGE: RGBColor = RGBColor(0x39, 0x3b, 0x79);
pub const FULL_REBUILD: RGBColor = RGBColor(0x8c, 0x56, 0x4b);
pub const REWIND: RGBColor = RGBColor(0x00, 0x80, 0x80);

/// Colours of series that are not token classes (people), in turn.
pub const CYCLE: [RGBColor; 10] = [
    READ,
    WRITE_5M,
    OUTPUT,
    INPUT,
    WRITE_1H,
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    WEB,
    SWITCH,
    COMPACTION,
];

/// The `i`-th colour of `CYCLE`, starting over after the last.
pub fn nth(i: usize) -> RGBColor {
    CYCLE[i % CYCLE.len()]
}

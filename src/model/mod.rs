//! Typed rows shared by every stage: requests, compactions, session titles,
//! and the column names that store them (defined once, in `columns`).

pub mod columns;
pub mod money;
mod rows;
mod text;
mod tokens;

pub use rows::{Compaction, Request, SessionTitle, TitleKind, MAIN_THREAD};
pub use text::{Interner, Text};
pub use tokens::{TokenCounts, MAX_TOKENS};

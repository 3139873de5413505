//! Typed rows shared by every stage: requests, compactions, session titles,
//! and the column names that store them (defined once, in `columns`).

pub mod columns;
mod rows;
mod text;
mod tokens;

pub use rows::{Boundary, Compaction, Request, SessionTitle, TitleKind, DEFAULT_TRIGGER, MAIN_THREAD};
pub use text::{Interner, Text};
pub use tokens::TokenCounts;

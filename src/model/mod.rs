//! Typed rows shared by every stage: requests, the API calls inside them
//! (`calls`), compactions, session titles, Claude Code's own totals
//! (`readings`),
//! and the column names that store them (defined once, in `columns`).

pub mod calls;
pub mod columns;
pub mod format;
pub mod limits;
pub mod money;
pub mod name;
mod readings;
pub mod reason;
mod rows;
mod shared_ids;
pub mod stdin;
mod text;
mod tokens;

pub use calls::{Call, Refusal};
pub use name::{line_name_fault, name_fault, safe_name, NameFault, MAX_NAME};
pub use readings::{is_unlogged, unlogged_thread, CostReading, Lineage, UNLOGGED_COMPACTION, UNLOGGED_OTHER};
pub use reason::server_reason;
pub use rows::{Boundary, ClientRecord, Compaction, Request, SessionTitle, TitleKind, DEFAULT_TRIGGER, MAIN_THREAD};
pub use shared_ids::SharedIds;
pub use text::{is_unsafe, one_line, printable, ColumnInterner, Interner, Text};
pub use tokens::{TokenCounts, MAX_TOKENS};

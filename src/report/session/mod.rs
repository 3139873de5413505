//! One session and the list of them, as the dashboard shows them: a
//! session's cache timeline (`timeline`) and the session list with its
//! filters, sorting and paging (`list`).

pub mod list;
pub mod timeline;

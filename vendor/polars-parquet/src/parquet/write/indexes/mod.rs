mod serialize;
mod write;

pub use write::*;

pub use super::thrift_format::SchemaElement;
pub use crate::parquet::parquet_bridge::Repetition;

pub mod io_message;
pub mod io_thrift;

pub mod types;

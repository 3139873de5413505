mod spec;

mod physical_type;
pub use physical_type::*;

mod basic_type;
pub use basic_type::*;

mod converted_type;
pub use converted_type::*;

mod parquet_type;
pub use parquet_type::*;

pub use crate::parquet::parquet_bridge::{
    GroupLogicalType, IntegerType, PrimitiveLogicalType, TimeUnit,
};

mod column_chunk_metadata;
mod column_descriptor;
mod column_order;
mod compact;
mod file_metadata;
#[cfg(feature = "serde")]
mod file_metadata_serde;
mod row_metadata;
mod schema_descriptor;
mod sort;

pub use column_chunk_metadata::ColumnChunkMetadata;
pub use column_descriptor::{ColumnDescriptor, Descriptor};
pub use column_order::ColumnOrder;
pub(crate) use column_order::ColumnOrderTag;
pub(crate) use compact::{
    ByteRange, CompactColumnChunk, CompactColumnMetaData, CompactFileMetaData, CompactRowGroup,
    CompactStatistics,
};
pub use file_metadata::{FileMetadata, KeyValue};
pub use row_metadata::RowGroupMetadata;
pub use schema_descriptor::SchemaDescriptor;
pub use sort::*;

pub use crate::parquet::thrift_format::FileMetaData as ThriftFileMetadata;

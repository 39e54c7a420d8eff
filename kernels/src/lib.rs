//! Arrow join kernels for tenon.
//!
//! This crate depends on Arrow, rayon and ahash only, so it can be embedded
//! without the SQL planner. It holds:
//!
//! * [`HashJoin`]: the hash join in its broadcast and partitioned
//!   ("shuffle hash") modes, for every [`JoinType`], single or composite
//!   keys of any comparable Arrow type, NULL-equal keys, a residual
//!   [`JoinFilter`], bounded output batches, a [`MemoryBudget`], and rayon
//!   parallelism.
//!
//! The kernels follow one shape: keys are normalized once per batch
//! ([`keys`](crate::keys) module docs), matching produces index pairs,
//! join-type semantics are applied to those pairs in one place, and output
//! columns are gathered once with Arrow's `take`.
#![deny(missing_docs)]

mod bitmap;
mod concat;
mod condition;
mod error;
mod filter;
pub mod hash;
mod hugepage;
mod join;
mod join_type;
mod keys;
mod memory;
pub mod merge;
pub mod nested;
mod output;
mod pool;
mod rows;
mod stream;
mod validate;

pub use concat::compact_views;
pub use condition::{CmpOp, RangeCondition, ordered_values, range_type_supported};
pub use error::{KernelError, Result};
pub use filter::JoinFilter;
pub use hash::{BatchSink, HashJoin, HashJoinMode, JoinInput, ProbeFeed};
pub use join::{Join, Strategy};
pub use join_type::{JoinSide, JoinType};
pub use keys::canonical_floats;
pub use memory::{HeldBuffers, MemoryBudget, MemoryReservation, batch_bytes};
pub use merge::SortMergeJoin;
pub use nested::NestedLoopJoin;
pub use output::join_schema;
pub use stream::JoinStream;

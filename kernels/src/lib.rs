//! Arrow join kernels for tenon.
//!
//! This crate depends on Arrow, rayon and ahash only, so it can be embedded
//! without the SQL planner. It holds three kernels, one per module, for
//! every [`JoinType`] and the four strategies ([`Strategy`]):
//!
//! * [`HashJoin`] (`hash`): the hash join in its broadcast and partitioned
//!   ("shuffle hash") modes ([`HashJoinMode`]), on single or composite keys
//!   of any comparable Arrow type, NULL-equal keys, with the probe side
//!   taken whole or batch by batch ([`FedProbe`]), and the
//!   [`RuntimeFilter`] its complete build side gives the operators before
//!   its probe ([`FedProbe::runtime_filter_keys`]).
//! * [`SortMergeJoin`] (`merge`): sort both sides on the keys and merge,
//!   with presorted inputs and [`RangeCondition`]s beside the keys.
//! * [`NestedLoopJoin`] (`nested`): any predicate over pairs of rows
//!   ([`RangeCondition`]s and a [`JoinFilter`]), CROSS JOIN without one.
//! * [`AsofJoin`] (`asof`): as-of and temporal joins: each left row takes
//!   the one right version of its key closest in time under a
//!   [`RangeCondition`] (or the latest), with tombstones and the filter
//!   applied before or after the choice ([`FilterTiming`]), broadcast or
//!   partitioned ([`AsofMode`]).
//!
//! They are built on one core that depends on no kernel: [`JoinInput`], the
//! shared [`JoinOptions`] (batch size, threads, a [`MemoryBudget`],
//! projection, a residual [`JoinFilter`]), the [`JoinKernel`] trait every
//! kernel implements (`for_each` required; `execute` as a [`JoinStream`],
//! `collect`, `output_schema` and the builder methods provided), the
//! [`BatchSink`] that output goes to (an error of the sink's own travels
//! through a kernel as [`KernelError::External`]), the emitter that turns
//! candidate pairs into output and emits unmatched rows, the output layout
//! ([`join_schema`]) and the checks. [`Join`] holds any kernel.
//!
//! The kernels follow one shape: keys are normalized once per batch (floats
//! with `-0.0 = 0.0` and NaN = NaN: [`canonical_floats`]), matching
//! produces index pairs, join-type semantics are applied to those pairs in
//! one place, and output columns are gathered once with Arrow's `take`.
//!
//! **A new kernel** is one module beside `hash`, `merge` and `nested`: a
//! struct holding its own settings and a [`JoinOptions`], one
//! `impl JoinKernel`, `impl From<NewJoin> for Join`, and a re-export here.
//!
//! **The CPU**: the hot loops of the hash join (hashing, probing, the key
//! filter, partitioning) are compiled for the baseline x86-64 and for
//! x86-64-v3 and -v4, and run at the best level the CPU has, found at run
//! time ([`cpu_level`]); the environment variable `TENON_CPU=baseline`
//! (or `x86-64-v3`) caps it. One binary runs on any x86-64 CPU.
//!
//! Every public item is imported from the crate root
//! (`tenon_kernels::HashJoin`); the modules are private.
#![deny(missing_docs)]

mod asof;
mod bitmap;
mod condition;
mod cpu;
mod error;
mod filter;
mod hash;
mod hugepage;
mod join_type;
mod kernel;
mod keys;
mod memory;
mod merge;
mod nested;
mod pool;
mod rows;

pub use asof::{AsofJoin, AsofMode, FilterTiming};
pub use condition::{CmpOp, RangeCondition, ordered_values, range_type_supported};
pub use cpu::cpu_level;
pub use error::{KernelError, Result};
pub use filter::JoinFilter;
pub use hash::{HashJoin, HashJoinMode, RuntimeFilter};
pub use join_type::{JoinSide, JoinType};
pub use kernel::{
    BatchSink, CloneKernel, FedProbe, Join, JoinInput, JoinKernel, JoinOptions, JoinStream,
    PairChunk, PairJoin, PairSink, PairWorker, ProbeFeed, Strategy, compact_views, join_schema,
};
pub use keys::canonical_floats;
pub use memory::{HeldBuffers, MemoryBudget, MemoryReservation, batch_bytes};
pub use merge::SortMergeJoin;
pub use nested::NestedLoopJoin;

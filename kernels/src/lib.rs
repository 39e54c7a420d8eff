//! Arrow join kernels for tenon.
//!
//! This crate depends on Arrow, rayon, ahash and thiserror only, so it can
//! be embedded without the SQL planner. It holds four kernels, one per
//! module: three that run every [`JoinType`] under the four strategies
//! ([`Strategy`]), and the as-of join:
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
//! * [`AsofJoin`] (`asof`): as-of and temporal joins, INNER or LEFT: each
//!   left row takes the one right version of its key closest in time under
//!   a [`RangeCondition`] (or the latest), with tombstones and the filter
//!   applied before or after the choice ([`FilterTiming`]), broadcast or
//!   partitioned ([`AsofMode`]).
//!
//! They are built on one core that depends on no kernel (`kernel`):
//! [`JoinInput`], the shared [`JoinOptions`] (batch size, threads, a
//! [`MemoryBudget`], projection, a residual [`JoinFilter`]), the
//! [`JoinKernel`] trait every kernel implements (`for_each`, its options,
//! join type and strategy required; `execute` as a [`JoinStream`],
//! `collect`, `output_schema` and the builder methods provided), the
//! [`BatchSink`] that output goes to (an error of the sink's own travels
//! through a kernel as [`KernelError::External`]), the emitter that turns
//! candidate pairs into output and emits unmatched rows, the output layout
//! ([`join_schema`]) and the checks. [`Join`] holds any kernel. A kernel
//! may have two more capabilities: taking the probe side batch by batch
//! ([`FedProbe`]), and handing its matched pairs to a [`PairSink`] instead
//! of output batches ([`PairJoin`]; the planner's aggregate fused into a
//! join is such a sink). Beside the core, the kernels share key
//! normalization (`keys`), range conditions (`condition`), the residual
//! filter (`filter`), the memory budget (`memory`), match bitmaps
//! (`bitmap`), the rows output is gathered from (`rows`), the pool a
//! kernel runs on (`pool`), huge-page buffers (`hugepage`) and CPU dispatch
//! (`cpu`).
//!
//! The kernels follow one shape: keys are normalized once per batch (floats
//! with `-0.0 = 0.0` and NaN = NaN: [`canonical_floats`]), matching
//! produces index pairs, join-type semantics are applied to those pairs in
//! one place (the emitter), and output columns are gathered once, by the
//! output layout. The as-of join, which keeps at most one version per left
//! row, applies its INNER or LEFT itself, without the emitter.
//!
//! **A new kernel** is one module beside `hash`, `merge`, `nested` and
//! `asof`: a `Clone` struct holding its own settings and a
//! [`JoinOptions`], one `impl JoinKernel` (plus `impl FedProbe` or
//! `impl PairJoin`, returned by its `fed` or `paired`, for those
//! capabilities), `impl From<NewJoin> for Join`, and a re-export here; its
//! own oracle in `kernels/tests/`.
//!
//! **The CPU**: the hot loops of the hash join (the probe, the direct-index
//! probe, the key filter's selection and build, the partitioner) are
//! compiled for the baseline x86-64 and for x86-64-v3 and -v4, and run at
//! the best level the CPU has, found at run time ([`cpu_level`]); the
//! environment variable `TENON_CPU=baseline` (or `x86-64-v3`) caps it. One
//! binary runs on any x86-64 CPU.
//!
//! Every public item is imported from the crate root
//! (`tenon_kernels::HashJoin`); the modules are private.
#![deny(missing_docs)]

mod asof;
mod bitmap;
mod compare;
mod condition;
mod cpu;
mod error;
mod expand;
mod filter;
mod group_sums;
mod hash;
mod hugepage;
mod join_type;
mod kernel;
mod keys;
mod memory;
mod merge;
mod multi;
mod nested;
mod pool;
mod rows;

pub use asof::{AsofJoin, AsofMode, FilterTiming};
pub use compare::{ComparedNative, ScalarCmp, compare_scalar};
pub use condition::{CmpOp, RangeCondition, ordered_values, range_type_supported};
pub use cpu::cpu_level;
pub use error::{KernelError, Result};
pub use expand::{Collection, Expand, MULTISET_COUNT, MULTISET_ELEMENT, multiset_type};
pub use filter::JoinFilter;
pub use group_sums::{group_counts, group_sums};
pub use hash::{HashJoin, HashJoinMode, RuntimeFilter, key_hashes};
pub use join_type::{JoinSide, JoinType};
pub use kernel::{
    BatchSink, CloneKernel, FedProbe, Join, JoinInput, JoinKernel, JoinOptions, JoinStream,
    PairChunk, PairJoin, PairSink, PairWorker, ProbeFeed, Strategy, compact_views, join_schema,
};
pub use keys::{canonical_floats, hash_u64};
pub use memory::{HeldBuffers, MemoryBudget, MemoryReservation, MemoryTracker, batch_bytes};
pub use merge::SortMergeJoin;
pub use multi::{MultiJoin, MultiJoinStep, MultiJoinTables};
pub use nested::NestedLoopJoin;

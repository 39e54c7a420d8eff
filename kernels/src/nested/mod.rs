//! The nested-loop join: any predicate over pairs of rows, every join type.
//!
//! A [`NestedLoopJoin`] pairs every build row (the inner loop, the side a
//! `NEST_LOOP(t)` hint names) with every probe row and keeps the pairs that
//! satisfy its predicate: the [`RangeCondition`]s (`left.c <op> right.c`,
//! ANDed) and the opaque [`JoinFilter`]. With neither, it is a CROSS JOIN.
//!
//! # Two algorithms
//!
//! ```text
//!  plain loop (the reference, `fast_path(false)`, or no range condition):
//!
//!    probe morsels (parallel) ─┬─ build block 0 ┐
//!                              ├─ build block 1 ├─ candidate index vectors
//!                              └─ ...           ┘   │ ranges, filter (once per block pair)
//!                                                   ▼
//!                                     visited / marks ─ gather ─► sink
//!
//!  sorted build (the fast path, when there is a range condition):
//!
//!    build ─ sort on one build column of the conditions (i64 images)
//!    probe morsels (parallel): per probe row, binary search the window
//!    [lo, hi) of sorted build rows that satisfy every condition on that
//!    column (a band `b.t BETWEEN a.lo AND a.hi` bounds both ends)
//!      exact window (no other condition, no filter): mark/count ranges
//!      otherwise: the window's pairs are candidates for the residual
//! ```
//!
//! * **Plain loop** (`plain`): the build side is cut into blocks of 1024
//!   rows, each probe morsel into sub-blocks so that a block pair holds
//!   about 16K candidates (two `u32` index vectors of 64 KiB each, which
//!   stay in L2 with the build block's images). For each block pair the
//!   candidate index vectors are built and the predicate is evaluated once
//!   over them (range conditions on `i64` images, then the filter on the
//!   survivors), never per row.
//! * **Sorted build** (`sorted`): sorting costs `O(n log n)` once; each
//!   probe row then costs two binary searches plus its output. When the
//!   window is exact (every condition is on the sort column and there is no
//!   filter) pairs are never tested at all: probe rows are marked by whether
//!   their window is empty, build rows by the union of the windows, and when
//!   the output has no columns (a `COUNT(*)`) the pairs are not even
//!   materialized: output batches carry only a row count.
//!
//! Both are parallel over probe morsels on rayon. Build rows remember their
//! matches in a shared bitmap (the sorted build's exact windows: in a list
//! of row intervals); unmatched build rows of outer, semi and anti joins are
//! emitted once, after every probe morsel is done. Every output batch holds
//! at most `batch_size` rows.
//!
//! # Memory
//!
//! Charged to the [`MemoryBudget`]: a copy of a build side given as several
//! batches, the sort (16 bytes a row while sorting) and the sorted build
//! batch with its keys, the `i64` images of the build columns the residual
//! tests, and the match bitmap. Not charged: per-worker scratch (at most
//! 16K candidate pairs, a morsel's images) and the list of matched build
//! intervals (merged whenever it outgrows half the build rows).
//!

pub(crate) mod emit;
pub(crate) mod plain;
pub(crate) mod predicate;
pub(crate) mod prepare;
pub(crate) mod sorted;

use crate::condition::RangeCondition;
use crate::error::Result;
use crate::join_type::{JoinSide, JoinType};
use crate::kernel::join_kernel::options_and_join_type;
use crate::kernel::{BatchSink, Join, JoinInput, JoinKernel, JoinOptions, Strategy};

/// A nested-loop join: its type, predicate and options. Build it with the
/// methods (the shared ones of [`JoinKernel`]: batch size, threads,
/// memory, projection, filter), then run it with [`JoinKernel::execute`]
/// (a stream of batches), [`JoinKernel::for_each`] (push batches into a
/// callback from the worker threads) or [`JoinKernel::collect`].
///
/// The predicate is the AND of the [range conditions](Self::ranges) and the
/// [filter](JoinKernel::filter); with neither, every pair matches (CROSS
/// JOIN).
/// The algorithms are described in `kernels/src/nested/mod.rs`.
///
/// NULLs: for every join type but [`JoinType::LeftAntiNullAware`] a pair matches
/// when every range condition holds (a NULL value never satisfies one) and
/// the filter is TRUE. For `LeftAntiNullAware` the predicate is the whole
/// `NOT IN` comparison in three-valued logic: a left row is kept when no
/// right row makes it TRUE *or unknown* (a NULL filter result, or a NULL
/// value in a range condition's column, unless another condition is FALSE).
///
/// Defaults: build (inner loop over) the right side, the sorted-build fast
/// path on, no predicate, and the [`JoinOptions`] defaults. With
/// `projection(Some(vec![]), Some(vec![]))` the output batches carry only a
/// row count (a `COUNT(*)`), which the fast path produces without
/// materializing pairs.
///
/// # Examples
///
/// A band join, `a.t BETWEEN b.lo AND b.hi`, keeping unmatched left rows:
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_kernels::{CmpOp, JoinInput, JoinKernel, JoinType, NestedLoopJoin, RangeCondition};
///
/// let a = RecordBatch::try_from_iter([
///     ("t", Arc::new(Int64Array::from(vec![1, 5, 9])) as _),
/// ]).unwrap();
/// let b = RecordBatch::try_from_iter([
///     ("lo", Arc::new(Int64Array::from(vec![0, 4])) as _),
///     ("hi", Arc::new(Int64Array::from(vec![2, 6])) as _),
/// ]).unwrap();
///
/// let join = NestedLoopJoin::new(JoinType::Left).ranges(vec![
///     RangeCondition::new(0, CmpOp::Ge, 0), // a.t >= b.lo
///     RangeCondition::new(0, CmpOp::Le, 1), // a.t <= b.hi
/// ]);
/// let out = join
///     .collect(JoinInput::from_batch(a), JoinInput::from_batch(b))
///     .unwrap();
/// let rows: usize = out.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, 3); // 1-[0,2], 5-[4,6], 9-NULL
/// ```
#[derive(Debug, Clone)]
pub struct NestedLoopJoin {
    pub(crate) join_type: JoinType,
    pub(crate) ranges: Vec<RangeCondition>,
    pub(crate) build_side: JoinSide,
    pub(crate) fast_path: bool,
    pub(crate) options: JoinOptions,
}

impl NestedLoopJoin {
    /// A join of `join_type` with no predicate yet (a CROSS JOIN until
    /// [`filter`](JoinKernel::filter) or [`ranges`](Self::ranges) adds one).
    pub fn new(join_type: JoinType) -> Self {
        NestedLoopJoin {
            join_type,
            ranges: Vec::new(),
            build_side: JoinSide::Right,
            fast_path: true,
            options: JoinOptions::default(),
        }
    }

    /// Comparisons between a column of each side, ANDed with each other and
    /// with the filter. The fast path sorts the build side on one of their
    /// build columns (preferring one that both a `<`/`<=` and a `>`/`>=`
    /// condition bound, such as a band or an equality written as `a.k <=
    /// b.k AND a.k >= b.k`) and finds each probe row's matches by binary
    /// search; the other conditions are tested pair by pair.
    pub fn ranges(mut self, ranges: Vec<RangeCondition>) -> Self {
        self.ranges = ranges;
        self
    }

    /// Which input is the build (inner loop) side: the side a `NEST_LOOP`
    /// hint names.
    pub fn build_side(mut self, side: JoinSide) -> Self {
        self.build_side = side;
        self
    }

    /// Whether range conditions use the sorted-build fast path (default) or
    /// are tested pair by pair like a filter (the plain loop, kept as the
    /// reference and for benchmarks).
    pub fn fast_path(mut self, yes: bool) -> Self {
        self.fast_path = yes;
        self
    }
}

impl From<NestedLoopJoin> for Join {
    fn from(j: NestedLoopJoin) -> Join {
        Join::new(j)
    }
}

impl JoinKernel for NestedLoopJoin {
    options_and_join_type!();

    fn held_side(&self) -> Option<JoinSide> {
        Some(self.build_side)
    }

    fn retyped(&self, join_type: JoinType) -> Option<Join> {
        let mut j = self.clone();
        j.join_type = join_type;
        Some(j.into())
    }

    /// Every reservation at once, each at its largest, over the build
    /// side (the probe side passes in morsels): the build side in one
    /// batch and sorted on a range column (its copy, the sort's pairs,
    /// images, permutation and keys), the range conditions' images, the
    /// match bitmap.
    fn memory_bound(&self, left: (usize, usize), right: (usize, usize)) -> Option<usize> {
        let (rows, bytes) = match self.build_side {
            JoinSide::Left => left,
            JoinSide::Right => right,
        };
        let per_row = 16 + 9 + 4 + 8 // sorting on a range column
            + 9 * self.ranges.len() // the range conditions' images
            + 1; // the match bitmap
        Some(
            rows.saturating_mul(per_row)
                .saturating_add(bytes.saturating_mul(2))
                .saturating_add(64),
        )
    }

    fn strategy(&self) -> Strategy {
        Strategy::NestLoop
    }

    fn range_conditions(&self) -> &[RangeCondition] {
        &self.ranges
    }

    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()> {
        let prepared = prepare::Prepared::new(self, left, right)?;
        crate::pool::install(self.options.threads, || prepared.run(sink))
    }

    fn check(&self, left: &JoinInput, right: &JoinInput) -> Result<()> {
        prepare::Prepared::new(self, left, right).map(|_| ())
    }
}

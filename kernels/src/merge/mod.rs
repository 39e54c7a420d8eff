//! The sort-merge join (the SHUFFLE_MERGE hint).
//!
//! Both inputs are sorted on the join keys and merged; every run of equal
//! keys present on both sides produces its cross product, streamed out in
//! batches of at most `batch_size` rows whatever its size.
//!
//! # Phases
//!
//! ```text
//!  left  ─ encode keys ─ check presorted ─┐
//!                                         ├─ range-partition by the top bits of the sort key
//!  right ─ encode keys ─ check presorted ─┘       (sink, combine, scatter)
//!        per partition, in parallel: sort each side (unless presorted) ─ merge ─ runs
//!        runs ─ cross product (or range windows) ─ filter ─ mark ─ gather ─► sink
//!        NULL keys (null-equal) and NOT IN's extra candidates ─ the same ─► sink
//!        match bitmaps ─────────────────────── source ─► sink   (after every merge)
//! ```
//!
//! * *Partition.* Every key becomes a sort key that orders like it (an
//!   order-preserving 64-bit image for fixed-width keys, a prefix or hash of
//!   byte keys: `order.rs`). Both sides are scattered into `(sort key, row)`
//!   entries by the same top bits of their sort keys (`bucket.rs`): equal
//!   keys meet in one partition, and partitions follow each other in key
//!   order. Partitions hold about 16K entries of both sides together (16
//!   bytes each: 256 KiB, half of a 512 KiB L2 cache), so each one sorts in
//!   cache; at most 2^10 of them. The scatter is
//!   stable: a presorted side is still sorted within every partition and
//!   is merged where it lies, without a copy. When both sides are presorted
//!   (and no partition count is forced) there is one partition and no
//!   sorting at all.
//! * *Key filter.* When the larger side has at least twice the rows of the
//!   other (and 64K or more), a Bloom-style filter of the smaller side's
//!   sort keys (`bucket.rs`, 16 bits a key) is tested on a sample of the
//!   larger side; if at least half the sample has no equal key, the larger
//!   side's filtered-out rows never enter the partitions (a semi-join
//!   reduction). They are still output where unmatched rows are (outer,
//!   anti): that output comes from the match bitmaps over all rows.
//! * *Small side.* When the smaller side has at most 16K rows and a quarter
//!   of a chunk (a chunk: max(32K, 4 x the smaller side) rows), it is sorted
//!   whole, and the larger side is not partitioned: each chunk of its
//!   consecutive rows is sorted and merged with the whole smaller side
//!   (`chunked.rs`), its fixed-width columns read in order first. The
//!   output rows of a chunk then come from cache instead of anywhere in
//!   the larger side.
//! * *Sort.* An MSD radix sort of the entries (`sort.rs`), with the key
//!   bytes as tie-break for byte keys.
//! * *Merge.* A linear merge finds the runs of equal keys (`runs.rs`); each
//!   run pair's cross product goes through the same emitter as the hash
//!   join's (residual filter, then outer/semi/anti bookkeeping, then
//!   gather). Semi and anti joins without a filter mark the rows of both
//!   runs without forming their cross product.
//! * *Ranges.* With [`SortMergeJoin::ranges`], each run pair is joined on
//!   its range conditions by binary search over its sorted left rows
//!   instead of testing its whole cross product (see `ranges.rs`).
//! * *Skew.* A partition with more than 64K entries and twice the average
//!   (a hot key, keys crowded in a narrow range, or the single partition of
//!   presorted inputs) is sorted with a parallel radix sort and cut at run
//!   boundaries into pieces merged in parallel; a run whose cross product
//!   exceeds 64K pairs is itself emitted by several workers. (Debug builds
//!   use far smaller thresholds, so that the tests' small inputs take these
//!   paths too.)
//!
//! Output batches come out in no fixed order (the workers race); the
//! multiset of rows does not depend on the thread count, batch size or
//! partition count.
//!
//! # Where it wins
//!
//! The sort-merge join is the faster strategy for many-to-many joins,
//! presorted inputs and band joins (range conditions beside the keys). On
//! foreign-key joins it loses to the broadcast hash join, whose output
//! follows the probe side's row order: the merge emits in key order, so
//! gathering the probe side's columns is a random access per output row.
//! Carrying the projected fixed-width columns through the partition scatter
//! would remove that; it is not done yet. Measured figures:
//! `benches/README.md`, "Kernel design notes (history)".
//!

mod bucket;
mod chunked;
mod emit;
mod exec;
mod gather;
mod prepare;
mod ranges;

pub(crate) mod order;
pub(crate) mod runs;
pub(crate) mod sort;

use crate::condition::RangeCondition;
use crate::error::Result;
use crate::join_type::JoinType;
use crate::kernel::join_kernel::options_and_join_type;
use crate::kernel::validate::EquiKeys;
use crate::kernel::{BatchSink, Join, JoinInput, JoinKernel, JoinOptions, Strategy};

/// A sort-merge join: its type, keys and options. Build it with the
/// methods (the shared ones of [`JoinKernel`]: batch size, threads,
/// memory, projection, filter), then run it with [`JoinKernel::execute`]
/// (a stream of batches), [`JoinKernel::for_each`] (push batches into a
/// callback from the worker threads) or [`JoinKernel::collect`].
///
/// Instead of a hash join's build side and mode it takes
/// [`SortMergeJoin::presorted`]; a residual filter is evaluated per chunk
/// of pairs before the outer/semi/anti bookkeeping.
///
/// Defaults: NULL keys never match, neither side presorted, partition
/// count chosen from the input sizes, and the [`JoinOptions`] defaults.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, StringArray};
/// use tenon_kernels::{JoinInput, JoinKernel, JoinType, SortMergeJoin};
///
/// let orders = RecordBatch::try_from_iter([
///     ("cust", Arc::new(Int64Array::from(vec![1, 2, 2, 9])) as _),
/// ]).unwrap();
/// let customers = RecordBatch::try_from_iter([
///     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
///     ("name", Arc::new(StringArray::from(vec!["ann", "bob", "cy"])) as _),
/// ]).unwrap();
///
/// // customers is sorted on id already: only orders is sorted.
/// let join = SortMergeJoin::new(JoinType::Left, vec![(0, 0)]).presorted(false, true);
/// let out = join
///     .collect(JoinInput::from_batch(orders), JoinInput::from_batch(customers))
///     .unwrap();
/// let rows: usize = out.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, 4); // 1-ann, 2-bob, 2-bob, 9-NULL
/// ```
#[derive(Debug, Clone)]
pub struct SortMergeJoin {
    pub(crate) join_type: JoinType,
    pub(crate) keys: EquiKeys,
    pub(crate) presorted: (bool, bool),
    pub(crate) ranges: Vec<RangeCondition>,
    pub(crate) options: JoinOptions,
}

impl SortMergeJoin {
    /// A join of `join_type` on key pairs `on`: `(left column, right column)`
    /// indices, compared with SQL `=` (all pairs must be equal).
    pub fn new(join_type: JoinType, on: Vec<(usize, usize)>) -> Self {
        SortMergeJoin {
            join_type,
            keys: EquiKeys::new(on),
            presorted: (false, false),
            ranges: Vec::new(),
            options: JoinOptions::default(),
        }
    }

    /// Compare keys with `IS NOT DISTINCT FROM`: NULL matches NULL.
    pub fn null_equal(mut self, yes: bool) -> Self {
        self.keys.null_equal = yes;
        self
    }

    /// Declares that the left and/or right input is already sorted on its
    /// key columns, in the order below; that side is not sorted again.
    ///
    /// The order, ascending:
    ///
    /// * one key column: SQL ascending order of the values. Integers, decimals,
    ///   dates, times, timestamps and durations by value; floats with `-0.0 =
    ///   0.0` and NaN equal to NaN and above `+inf`; booleans `false <
    ///   true`; strings and binaries by their bytes (code point order for
    ///   UTF-8); `IntervalDayTime` by days, then milliseconds. Rows whose key
    ///   is NULL may be anywhere (first, last or in between): they never take
    ///   part in the merge;
    /// * several key columns: lexicographic, each column ascending as above.
    ///   Rows in which any key column is NULL may be anywhere, except in
    ///   null-equal mode, where NULL is a value that sorts before every other
    ///   value of its column (`ASC NULLS FIRST`);
    /// * other single key types (structs, lists, dictionaries...): arrow-row's
    ///   ascending order.
    ///
    /// The declaration is checked in one linear pass; a side that is not in
    /// this order fails the join with [`KernelError::InvalidOptions`](crate::KernelError::InvalidOptions) naming the
    /// side and its first row out of order.
    pub fn presorted(mut self, left: bool, right: bool) -> Self {
        self.presorted = (left, right);
        self
    }

    /// Range conditions ANDed with the key equality (a band join such as
    /// `a.k = b.k AND a.t BETWEEN b.lo AND b.hi`). Within each run of equal
    /// keys the left rows are sorted on the first condition's left column;
    /// every condition on that column bounds a window of them per right row
    /// (binary search), and the other conditions are tested on the window's
    /// pairs only. Like the filter, they decide matches before the
    /// outer/semi/anti bookkeeping. See [`crate::RangeCondition`] for the
    /// types and NULL rules.
    pub fn ranges(mut self, conditions: Vec<RangeCondition>) -> Self {
        self.ranges = conditions;
        self
    }

    /// The number of hash partitions both sides are split into (a power of
    /// two from 1 to 65536); by default chosen from the input sizes (about
    /// 16K entries of both sides per partition).
    pub fn partitions(mut self, n: usize) -> Self {
        self.keys.partitions = Some(n);
        self
    }
}

impl From<SortMergeJoin> for Join {
    fn from(j: SortMergeJoin) -> Join {
        Join::new(j)
    }
}

impl JoinKernel for SortMergeJoin {
    options_and_join_type!();

    fn equi_keys(&self) -> Option<(&[(usize, usize)], bool)> {
        Some((&self.keys.on, self.keys.null_equal))
    }

    fn retyped(&self, join_type: JoinType) -> Option<Join> {
        let mut j = self.clone();
        j.join_type = join_type;
        Some(j.into())
    }

    /// Every reservation at once, each at its largest: the sort entries
    /// (a chunked merge's workers hold two chunks each, a chunk at most
    /// half the larger side), the sort buffers (two per worker), a large
    /// partition's sorted copies, the match bitmaps, the key filter, NOT
    /// IN's candidates, the range values, and the copy of the smaller
    /// input in one batch (counted as both inputs', to stay linear).
    fn memory_bound(&self, left: (usize, usize), right: (usize, usize)) -> Option<usize> {
        // The largest entry: a 16-byte key image and a row.
        const ENTRY: usize = 32;
        let threads = crate::pool::threads_of(self.options.threads);
        let rows = left.0 + right.0;
        let per_row = ENTRY * (1 + threads) // entries
            + ENTRY * 2 * threads // sort buffers
            + ENTRY * 2 // a large partition's copies
            + 1 // match bitmaps
            + 2 // key filter
            + 4 // NOT IN candidates
            + 9 * (self.ranges.len() + 1); // range values
        Some(
            rows.saturating_mul(per_row)
                .saturating_add(left.1.saturating_add(right.1))
                .saturating_add(64),
        )
    }

    fn strategy(&self) -> Strategy {
        Strategy::ShuffleMerge
    }

    fn range_conditions(&self) -> &[RangeCondition] {
        &self.ranges
    }

    /// Also fails on a presorted declaration that does not hold.
    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()> {
        let prepared = prepare::Prepared::new(self, left, right)?;
        crate::pool::install(self.options.threads, || prepared.run(sink))
    }

    fn check(&self, left: &JoinInput, right: &JoinInput) -> Result<()> {
        prepare::Prepared::new(self, left, right).map(|_| ())
    }
}

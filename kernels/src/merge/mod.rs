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
//!   order. Partitions hold about [`PARTITION_ENTRIES`] entries of both
//!   sides together (16 bytes each: 256 KiB, half of this machine class's
//!   L2), so each one sorts in cache; at most 2^10 of them. The scatter is
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
//!   low_match (1% of 10M probe rows match): 0.163 s -> 0.08 s.
//! * *Small side.* When the smaller side has at most 16K rows and a quarter
//!   of a chunk (a chunk: max(32K, 4 x the smaller side) rows), it is sorted
//!   whole, and the larger side is not partitioned: each chunk of its
//!   consecutive rows is sorted and merged with the whole smaller side
//!   (`chunked.rs`), its fixed-width columns read in order first. The
//!   output rows of a chunk then come from cache instead of anywhere in
//!   the larger side. fk_small (10M x 1K): 0.22 s -> 0.076 s.
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
//! * *Skew.* A partition with more than [`HOT_ENTRIES`] entries and twice
//!   the average (a hot key, keys crowded in a narrow range, or the single
//!   partition of presorted inputs) is sorted with a parallel radix sort
//!   and cut at run boundaries into pieces merged in parallel; a run whose
//!   cross product exceeds [`BIG_RUN`] pairs is itself emitted by several
//!   workers.
//!
//! Output batches come out in no fixed order (the workers race); the
//! multiset of rows does not depend on the thread count, batch size or
//! partition count.
//!
//! # Figures
//!
//! Criterion, 2 threads on this 2-core machine class, full-size workloads
//! (count + sum of one payload per side; `cargo bench --bench sort_merge`
//! with `TENON_BENCH_THREADS=2`), medians in seconds; the hash join's best
//! mode measured in the same sitting (`cargo bench --bench hash_join`).
//! The machine is shared and noisy (±20% between sittings):
//!
//! | workload                      | sort-merge | hash join (best mode) | ratio |
//! |-------------------------------|------------|-----------------------|-------|
//! | fk_small (10M x 1K)           | 0.269      | 0.084                 | 3.2   |
//! | fk_medium (10M x 1M)          | 0.390      | 0.222                 | 1.8   |
//! | zipf (10M x 1M)               | 0.302      | 0.153                 | 2.0   |
//! | m2n (1M x 1M, 10M out)        | 0.081      | 0.117                 | 0.69  |
//! | fk_large (10M x 10M)          | 0.538      |                       |       |
//! | low_match (10M x 1M, 1%)      | 0.178      |                       |       |
//! | presorted (fk_medium, sorted) | 0.123      |                       |       |
//! | band (100K x 100K, ranges)    | 0.0070     |                       |       |
//!
//! The sort-merge join is the faster strategy for many-to-many joins
//! (m2n), presorted inputs and band joins (`band`: 10M equi-join
//! candidates, 99,709 results; the best peer, Polars `join_where`, takes
//! about 0.05 s). On foreign-key joins it loses to the broadcast hash join,
//! whose output follows the probe side's row order: the merge emits in key
//! order, so gathering the probe side's columns is a random access per
//! output row (about half of fk_small's time, measured with `perf`).
//! Carrying the projected fixed-width columns through the partition
//! scatter would remove that; it is not done yet.
//!
//! # Order of a presorted input
//!
//! [`SortMergeJoin::presorted`] declares that an input is sorted ascending
//! on its join key columns, in this order:
//!
//! * one key column: SQL ascending order of the values. Integers, decimals,
//!   dates, times, timestamps and durations by value; floats with `-0.0 =
//!   0.0` and NaN equal to NaN and above `+inf`; booleans `false <
//!   true`; strings and binaries by their bytes (code point order for
//!   UTF-8); `IntervalDayTime` by days, then milliseconds. Rows whose key
//!   is NULL may be anywhere (first, last or in between): they never take
//!   part in the merge;
//! * several key columns: lexicographic, each column ascending as above.
//!   Rows in which any key column is NULL may be anywhere, except in
//!   null-equal mode, where NULL is a value that sorts before every other
//!   value of its column (`ASC NULLS FIRST`);
//! * other single key types (structs, lists, dictionaries...): arrow-row's
//!   ascending order.
//!
//! The declaration is checked in one linear pass; a side that is not in
//! this order fails the join with [`KernelError::InvalidOptions`] naming the
//! side and its first row out of order.
//!
//! [`KernelError::InvalidOptions`]: crate::KernelError::InvalidOptions

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

pub use exec::{BIG_RUN, HOT_ENTRIES, PARTITION_ENTRIES};

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::condition::RangeCondition;
use crate::error::Result;
use crate::filter::JoinFilter;
use crate::hash::{BatchSink, JoinInput};
use crate::join_type::JoinType;
use crate::memory::MemoryBudget;
use crate::stream::JoinStream;

/// A sort-merge join: its type, keys and options. Build it with the
/// methods, then run it with [`SortMergeJoin::execute`] (a stream of
/// batches), [`SortMergeJoin::for_each`] (push batches into a callback from
/// the worker threads) or [`SortMergeJoin::collect`].
///
/// The options mirror [`crate::HashJoin`]'s, so a planner can swap one for
/// the other; instead of a build side and a mode it takes
/// [`SortMergeJoin::presorted`].
///
/// Defaults: NULL keys never match, no filter, neither side presorted,
/// partition count chosen from the input sizes, batches of 8192 rows, the
/// global rayon pool, no memory limit, every column of each output side.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, StringArray};
/// use tenon_kernels::{JoinInput, JoinType, SortMergeJoin};
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
#[derive(Clone)]
pub struct SortMergeJoin {
    pub(crate) join_type: JoinType,
    pub(crate) on: Vec<(usize, usize)>,
    pub(crate) null_equal: bool,
    pub(crate) filter: Option<Arc<dyn JoinFilter>>,
    pub(crate) presorted: (bool, bool),
    pub(crate) ranges: Vec<RangeCondition>,
    pub(crate) partitions: Option<usize>,
    pub(crate) batch_size: usize,
    pub(crate) threads: usize,
    pub(crate) memory: MemoryBudget,
    pub(crate) left_projection: Option<Vec<usize>>,
    pub(crate) right_projection: Option<Vec<usize>>,
}

impl std::fmt::Debug for SortMergeJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SortMergeJoin")
            .field("join_type", &self.join_type)
            .field("on", &self.on)
            .field("null_equal", &self.null_equal)
            .field("filter", &self.filter.is_some())
            .field("presorted", &self.presorted)
            .field("ranges", &self.ranges)
            .field("partitions", &self.partitions)
            .field("batch_size", &self.batch_size)
            .field("threads", &self.threads)
            .finish()
    }
}

impl SortMergeJoin {
    /// A join of `join_type` on key pairs `on`: `(left column, right column)`
    /// indices, compared with SQL `=` (all pairs must be equal).
    pub fn new(join_type: JoinType, on: Vec<(usize, usize)>) -> Self {
        SortMergeJoin {
            join_type,
            on,
            null_equal: false,
            filter: None,
            presorted: (false, false),
            ranges: Vec::new(),
            partitions: None,
            batch_size: 8192,
            threads: 0,
            memory: MemoryBudget::unlimited(),
            left_projection: None,
            right_projection: None,
        }
    }

    /// The join type.
    pub fn join_type(&self) -> JoinType {
        self.join_type
    }

    /// Compare keys with `IS NOT DISTINCT FROM`: NULL matches NULL.
    pub fn null_equal(mut self, yes: bool) -> Self {
        self.null_equal = yes;
        self
    }

    /// A residual condition over candidate pairs (the rest of an ON clause),
    /// evaluated per chunk of pairs before the outer/semi/anti bookkeeping.
    pub fn filter(mut self, filter: Arc<dyn JoinFilter>) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Declares that the left and/or right input is already sorted on its
    /// key columns, in the order the [module docs](self) define; that side
    /// is not sorted again. The declaration is checked (one linear pass).
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
    /// two from 1 to 65536); by default chosen from the input sizes (see
    /// [`PARTITION_ENTRIES`]).
    pub fn partitions(mut self, n: usize) -> Self {
        self.partitions = Some(n);
        self
    }

    /// At most this many rows per output batch (at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n;
        self
    }

    /// Worker threads: 0 runs [`SortMergeJoin::for_each`] and
    /// [`SortMergeJoin::collect`] on the current rayon pool (the global one
    /// by default) and [`SortMergeJoin::execute`] on a pool of its own as
    /// large as the current one; `n > 0` runs on a pool of its own with `n`
    /// threads.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// The memory budget charged by partition buffers, sort entries, match
    /// bitmaps and input copies.
    pub fn memory(mut self, budget: MemoryBudget) -> Self {
        self.memory = budget;
        self
    }

    /// Output only these columns of each side (`None`: all), in this order.
    pub fn projection(mut self, left: Option<Vec<usize>>, right: Option<Vec<usize>>) -> Self {
        self.left_projection = left;
        self.right_projection = right;
        self
    }

    /// The schema of the output for inputs of these schemas.
    ///
    /// # Errors
    ///
    /// A projection index out of range.
    pub fn output_schema(&self, left: &SchemaRef, right: &SchemaRef) -> Result<SchemaRef> {
        crate::output::join_schema(
            left,
            right,
            self.join_type,
            self.left_projection.as_deref(),
            self.right_projection.as_deref(),
        )
    }

    /// Runs the join on worker threads, pushing every output batch into
    /// `sink` (called concurrently from the workers). Returns once the join
    /// is done; the first error (the sink's included) stops it.
    ///
    /// # Errors
    ///
    /// Invalid keys or options, mismatched key types, a presorted
    /// declaration that does not hold, the memory limit, an error of the
    /// filter or of the sink.
    pub fn for_each(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        sink: &BatchSink<'_>,
    ) -> Result<()> {
        let prepared = prepare::Prepared::new(self, left, right)?;
        crate::pool::install(self.threads, || prepared.run(sink))
    }

    /// Runs the join and returns its output as a stream of batches, produced
    /// by worker threads while the caller reads (at most a few batches per
    /// thread are held). Dropping the stream stops the join.
    ///
    /// # Errors
    ///
    /// Invalid keys or options are reported here; errors found while
    /// running (a false presorted declaration among them) come out of the
    /// stream.
    pub fn execute(&self, left: JoinInput, right: JoinInput) -> Result<JoinStream> {
        prepare::Prepared::new(self, &left, &right)?;
        let schema = self.output_schema(left.schema(), right.schema())?;
        let join = self.clone().threads(0);
        JoinStream::spawn(self.threads, schema, move |sink| {
            join.for_each(&left, &right, sink)
        })
    }

    /// Runs the join and collects every output batch.
    ///
    /// # Errors
    ///
    /// As [`SortMergeJoin::for_each`].
    pub fn collect(&self, left: JoinInput, right: JoinInput) -> Result<Vec<RecordBatch>> {
        crate::stream::collect_batches(|sink| self.for_each(&left, &right, sink))
    }
}

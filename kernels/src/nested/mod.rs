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
//! # NULLs and `NOT IN`
//!
//! For every join type but [`JoinType::LeftAntiNullAware`] a pair matches
//! when every range condition holds (a NULL value never satisfies one) and
//! the filter is TRUE. For `LeftAntiNullAware` the predicate is the whole
//! `NOT IN` comparison in three-valued logic: a left row is kept when no
//! right row makes it TRUE *or unknown* (a NULL filter result, or a NULL
//! value in a range condition's column, unless another condition is FALSE).
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
//! # Figures
//!
//! `TENON_BENCH_THREADS=2 cargo bench --bench nested_loop -- --warm-up-time 1
//! --measurement-time 3`, release build, medians of two sittings on this
//! shared 2-core machine (other jobs were running: the same binary moved by
//! up to 2x between sittings). Output counted only (no columns).
//!
//! | workload                                         | sorted build   | plain loop      |
//! |--------------------------------------------------|----------------|-----------------|
//! | nlj 20K x 20K, `a.v < b.v` (200M pairs)          | 3.0 / 3.2 ms   | 324 / 644 ms    |
//! | band 100K x 100K, band ranges + key filter       | 89 / 173 ms    | (10^10 pairs)   |
//! | band 10K x 10K, the same                         | 1.9 / 3.0 ms   | 112 / 224 ms    |
//! | band 100K x 100K, key and band all as ranges     | 26 / 51 ms     |                 |
//!
//! The nlj count is about 200M pairs; the sorted build finds it with 20K
//! binary searches and never materializes a pair (the 3 ms are the sort,
//! the searches and 24K row-count batches of 8192 rows). DataFusion's piecewise merge join
//! takes about 0.28 s on 2 threads. With the key equality as a filter, the
//! band join tests the ~1000 rows of each probe row's band window (10^8
//! filter calls, which dominate); written as ranges (`a.k <= b.k AND a.k >=
//! b.k`) the sort column is the key and the band is tested on the ~100 rows
//! of equal key (Polars' `join_where`: about 0.10 s).

pub(crate) mod emit;
pub(crate) mod plain;
pub(crate) mod predicate;
pub(crate) mod prepare;
pub(crate) mod sorted;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::condition::RangeCondition;
use crate::error::Result;
use crate::filter::JoinFilter;
use crate::hash::{BatchSink, JoinInput};
use crate::join_type::{JoinSide, JoinType};
use crate::memory::MemoryBudget;
use crate::stream::JoinStream;

/// A nested-loop join: its type, predicate and options. Build it with the
/// methods, then run it with [`NestedLoopJoin::execute`] (a stream of
/// batches), [`NestedLoopJoin::for_each`] (push batches into a callback from
/// the worker threads) or [`NestedLoopJoin::collect`].
///
/// The predicate is the AND of the [range conditions](Self::ranges) and the
/// [filter](Self::filter); with neither, every pair matches (CROSS JOIN).
/// See the [module docs](self) for the algorithms and the NULL rules.
///
/// Defaults: build (inner loop over) the right side, the sorted-build fast
/// path on, no predicate, batches of 8192 rows, the global rayon pool, no
/// memory limit, every column of each output side.
///
/// # Examples
///
/// A band join, `a.t BETWEEN b.lo AND b.hi`, keeping unmatched left rows:
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_kernels::{CmpOp, JoinInput, JoinType, NestedLoopJoin, RangeCondition};
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
#[derive(Clone)]
pub struct NestedLoopJoin {
    pub(crate) join_type: JoinType,
    pub(crate) filter: Option<Arc<dyn JoinFilter>>,
    pub(crate) ranges: Vec<RangeCondition>,
    pub(crate) build_side: JoinSide,
    pub(crate) fast_path: bool,
    pub(crate) batch_size: usize,
    pub(crate) threads: usize,
    pub(crate) memory: MemoryBudget,
    pub(crate) left_projection: Option<Vec<usize>>,
    pub(crate) right_projection: Option<Vec<usize>>,
}

impl std::fmt::Debug for NestedLoopJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NestedLoopJoin")
            .field("join_type", &self.join_type)
            .field("filter", &self.filter.is_some())
            .field("ranges", &self.ranges)
            .field("build_side", &self.build_side)
            .field("fast_path", &self.fast_path)
            .field("batch_size", &self.batch_size)
            .field("threads", &self.threads)
            .finish()
    }
}

impl NestedLoopJoin {
    /// A join of `join_type` with no predicate yet (a CROSS JOIN until
    /// [`filter`](Self::filter) or [`ranges`](Self::ranges) adds one).
    pub fn new(join_type: JoinType) -> Self {
        NestedLoopJoin {
            join_type,
            filter: None,
            ranges: Vec::new(),
            build_side: JoinSide::Right,
            fast_path: true,
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

    /// A predicate over pairs of rows, ANDed with the range conditions.
    pub fn filter(mut self, filter: Arc<dyn JoinFilter>) -> Self {
        self.filter = Some(filter);
        self
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

    /// At most this many rows per output batch (at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n;
        self
    }

    /// Worker threads: 0 runs [`for_each`](Self::for_each) and
    /// [`collect`](Self::collect) on the current rayon pool and
    /// [`execute`](Self::execute) on a pool of its own as large as the
    /// current one; `n > 0` runs on a pool of its own with `n` threads.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// The memory budget charged by the sorted build side, the condition
    /// images and the match bitmap.
    pub fn memory(mut self, budget: MemoryBudget) -> Self {
        self.memory = budget;
        self
    }

    /// Output only these columns of each side (`None`: all), in this order.
    /// `Some(vec![])` on both sides gives batches without columns that
    /// carry a row count (a `COUNT(*)`), which the fast path produces
    /// without materializing pairs.
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
    /// Invalid options or range conditions (a column out of range,
    /// mismatched or unsupported types), the memory limit, an error of the
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
    /// Invalid options are reported here; errors found while running come
    /// out of the stream.
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
    /// As [`NestedLoopJoin::for_each`].
    pub fn collect(&self, left: JoinInput, right: JoinInput) -> Result<Vec<RecordBatch>> {
        crate::stream::collect_batches(|sink| self.for_each(&left, &right, sink))
    }
}

//! The hash join, in two modes.
//!
//! * [`HashJoinMode::Broadcast`] builds one table over the whole build side
//!   (in parallel: regions of the table are built independently), then
//!   probes morsels of the probe side's batches in parallel against it. A
//!   shared bitmap remembers matched build rows for outer, semi and anti
//!   joins; those rows are emitted once, after every probe has finished.
//!   Unique integer keys of a dense range skip the hash table: the key
//!   minus the smallest key indexes the build rows directly, and a sparse
//!   range gets exact key bits in front of the table (see `dense`).
//! * [`HashJoinMode::Partitioned`] ("shuffle hash") radix-partitions both
//!   sides by the top bits of the key hash, then builds and probes each
//!   partition as its own task, with a table small enough to stay in the
//!   core's cache (see [`exec`] for the figures). Skewed partitions are split.
//!
//! Both produce index pairs first and gather the output columns from them
//! afterwards; both bound every output batch to `batch_size` rows, so a
//! many-to-many join streams.
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch, StringArray};
//! use tenon_kernels::{HashJoin, HashJoinMode, JoinInput, JoinSide, JoinType};
//!
//! let orders = RecordBatch::try_from_iter([
//!     ("cust", Arc::new(Int64Array::from(vec![1, 2, 2, 9])) as _),
//! ]).unwrap();
//! let customers = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
//!     ("name", Arc::new(StringArray::from(vec!["ann", "bob", "cy"])) as _),
//! ]).unwrap();
//!
//! let join = HashJoin::new(JoinType::Left, vec![(0, 0)])
//!     .build_side(JoinSide::Right)
//!     .mode(HashJoinMode::Broadcast);
//! let out = join
//!     .collect(JoinInput::from_batch(orders), JoinInput::from_batch(customers))
//!     .unwrap();
//! let rows: usize = out.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 4); // 1-ann, 2-bob, 2-bob, 9-NULL
//! ```

mod bloom;
mod dense;
pub(crate) mod emit;
pub(crate) mod exec;
pub(crate) mod partition;
mod partitioned;
pub(crate) mod probe;
pub(crate) mod table;

pub use emit::BatchSink;
pub use exec::{ProbeFeed, UNPARTITIONED_ROWS};

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::{KernelError, Result};
use crate::filter::JoinFilter;
use crate::join_type::{JoinSide, JoinType};
use crate::memory::MemoryBudget;
use crate::stream::JoinStream;

/// How a [`HashJoin`] spreads its work over threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashJoinMode {
    /// One shared table over the whole build side (the BROADCAST hint).
    Broadcast,
    /// Both sides radix-partitioned by hash; one small table per partition
    /// (the SHUFFLE_HASH hint). When one partition is enough (a build side
    /// of at most 8192 rows, or `partitions(1)`) this runs the broadcast
    /// code, which is the same algorithm without the scatter.
    Partitioned,
}

/// One input of a join: a schema and its batches (possibly none).
#[derive(Debug, Clone)]
pub struct JoinInput {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl JoinInput {
    /// An input of `batches`, each of which must have `schema`'s column types.
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        JoinInput { schema, batches }
    }

    /// An input of one batch.
    pub fn from_batch(batch: RecordBatch) -> Self {
        JoinInput {
            schema: batch.schema(),
            batches: vec![batch],
        }
    }

    /// The input's schema.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The input's batches.
    pub fn batches(&self) -> &[RecordBatch] {
        &self.batches
    }

    /// Total rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}

/// A hash join: its type, keys and options. Build it with the methods, then
/// run it with [`HashJoin::execute`] (a stream of batches),
/// [`HashJoin::for_each`] (push batches into a callback from the worker
/// threads) or [`HashJoin::collect`].
///
/// Defaults: build the right side, [`HashJoinMode::Partitioned`], NULL keys
/// never match, no filter, batches of 8192 rows, the global rayon pool, no
/// memory limit, every column of each output side.
#[derive(Clone)]
pub struct HashJoin {
    pub(crate) join_type: JoinType,
    pub(crate) on: Vec<(usize, usize)>,
    pub(crate) null_equal: bool,
    pub(crate) filter: Option<Arc<dyn JoinFilter>>,
    pub(crate) build_side: JoinSide,
    pub(crate) mode: HashJoinMode,
    pub(crate) partitions: Option<usize>,
    pub(crate) batch_size: usize,
    pub(crate) threads: usize,
    pub(crate) memory: MemoryBudget,
    pub(crate) left_projection: Option<Vec<usize>>,
    pub(crate) right_projection: Option<Vec<usize>>,
}

impl std::fmt::Debug for HashJoin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashJoin")
            .field("join_type", &self.join_type)
            .field("on", &self.on)
            .field("null_equal", &self.null_equal)
            .field("filter", &self.filter.is_some())
            .field("build_side", &self.build_side)
            .field("mode", &self.mode)
            .field("partitions", &self.partitions)
            .field("batch_size", &self.batch_size)
            .field("threads", &self.threads)
            .finish()
    }
}

impl HashJoin {
    /// A join of `join_type` on key pairs `on`: `(left column, right column)`
    /// indices, compared with SQL `=` (all pairs must be equal).
    pub fn new(join_type: JoinType, on: Vec<(usize, usize)>) -> Self {
        HashJoin {
            join_type,
            on,
            null_equal: false,
            filter: None,
            build_side: JoinSide::Right,
            mode: HashJoinMode::Partitioned,
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

    /// The side the table is built from.
    pub fn built_side(&self) -> JoinSide {
        self.build_side
    }

    /// Compare keys with `IS NOT DISTINCT FROM`: NULL matches NULL.
    pub fn null_equal(mut self, yes: bool) -> Self {
        self.null_equal = yes;
        self
    }

    /// A residual condition over candidate pairs (the rest of an ON clause).
    pub fn filter(mut self, filter: Arc<dyn JoinFilter>) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Which input the hash table is built on.
    pub fn build_side(mut self, side: JoinSide) -> Self {
        self.build_side = side;
        self
    }

    /// Broadcast or partitioned.
    pub fn mode(mut self, mode: HashJoinMode) -> Self {
        self.mode = mode;
        self
    }

    /// The partition count of the partitioned mode (a power of two from 1
    /// to 65536); by default chosen from the build side's size.
    pub fn partitions(mut self, n: usize) -> Self {
        self.partitions = Some(n);
        self
    }

    /// At most this many rows per output batch (at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n;
        self
    }

    /// Worker threads: 0 runs [`HashJoin::for_each`] and [`HashJoin::collect`]
    /// on the current rayon pool (the global one by default) and
    /// [`HashJoin::execute`] on a pool of its own as large as the current
    /// one; `n > 0` runs on a pool of its own with `n` threads.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n;
        self
    }

    /// The memory budget charged by build tables and partition buffers.
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
    /// Invalid keys or options, mismatched key types, the memory limit, an
    /// error of the filter or of the sink.
    pub fn for_each(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        sink: &BatchSink<'_>,
    ) -> Result<()> {
        let prepared = exec::Prepared::new(self, left, right)?;
        crate::pool::install(self.threads, || prepared.run(sink, None))
    }

    /// Runs the join with its probe side pushed in batch by batch: builds
    /// from the build input, then calls `feed` once with a function that
    /// probes one batch (callable from several threads at once, as a
    /// parallel pipeline produces batches), then outputs the build rows
    /// that outer, semi or anti joins decide at the end. The probe side's
    /// [`JoinInput`] gives only its schema and must hold no batches.
    ///
    /// In the broadcast mode each pushed batch is probed at once, so the
    /// probe side is never held whole: the point of a broadcast join. So it
    /// is in the partitioned mode when the build side is small enough not
    /// to be partitioned ([`UNPARTITIONED_ROWS`]); otherwise that
    /// mode needs every probe row before it can partition, so it collects
    /// the pushed batches and then runs as [`HashJoin::for_each`].
    ///
    /// # Errors
    ///
    /// As [`HashJoin::for_each`]; a probe input that holds batches, or a
    /// pushed batch whose column types differ from the probe side's; the
    /// first error of `feed` (the probe function's errors pass through it).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Int64Array, RecordBatch};
    /// use arrow_schema::{DataType, Field, Schema};
    /// use tenon_kernels::hash::{HashJoin, HashJoinMode, JoinInput};
    /// use tenon_kernels::{JoinSide, JoinType};
    ///
    /// let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    /// let batch = |v: Vec<i64>| {
    ///     RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(v))]).unwrap()
    /// };
    /// let build = JoinInput::new(schema.clone(), vec![batch(vec![1, 2, 3])]);
    /// let probe = JoinInput::new(schema.clone(), vec![]);
    /// let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
    ///     .mode(HashJoinMode::Broadcast)
    ///     .build_side(JoinSide::Left);
    /// let rows = std::sync::atomic::AtomicUsize::new(0);
    /// join.for_each_fed(
    ///     &build,
    ///     &probe,
    ///     &|push| {
    ///         push(batch(vec![2, 3, 4]))?;
    ///         push(batch(vec![3]))
    ///     },
    ///     &|out| {
    ///         rows.fetch_add(out.num_rows(), std::sync::atomic::Ordering::Relaxed);
    ///         Ok(())
    ///     },
    /// )
    /// .unwrap();
    /// assert_eq!(rows.into_inner(), 3);
    /// ```
    pub fn for_each_fed(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        feed: &ProbeFeed<'_>,
        sink: &BatchSink<'_>,
    ) -> Result<()> {
        let probe = match self.build_side {
            JoinSide::Left => right,
            JoinSide::Right => left,
        };
        if !probe.batches.is_empty() {
            return Err(KernelError::InvalidOptions(
                "the probe input of a fed join must hold no batches: they are pushed by the feed"
                    .into(),
            ));
        }
        let build = match self.build_side {
            JoinSide::Left => left,
            JoinSide::Right => right,
        };
        let unpartitioned =
            self.partitions.is_none() && exec::partition_bits(build.num_rows()) == 0;
        if self.mode == HashJoinMode::Broadcast || unpartitioned {
            let prepared = exec::Prepared::new(self, left, right)?;
            return crate::pool::install(self.threads, || prepared.run(sink, Some(feed)));
        }
        let fed = std::sync::Mutex::new(Vec::new());
        crate::pool::install(self.threads, || {
            feed(&|b| {
                fed.lock().unwrap_or_else(|e| e.into_inner()).push(b);
                Ok(())
            })
        })?;
        let probe = JoinInput::new(
            probe.schema.clone(),
            fed.into_inner().unwrap_or_else(|e| e.into_inner()),
        );
        match self.build_side {
            JoinSide::Left => self.for_each(left, &probe, sink),
            JoinSide::Right => self.for_each(&probe, right, sink),
        }
    }

    /// Runs the join and returns its output as a stream of batches, produced
    /// by worker threads while the caller reads (at most a few batches per
    /// thread are held). Dropping the stream stops the join.
    ///
    /// # Errors
    ///
    /// Invalid keys or options are reported here; errors found while
    /// running come out of the stream.
    pub fn execute(&self, left: JoinInput, right: JoinInput) -> Result<JoinStream> {
        exec::Prepared::new(self, &left, &right)?;
        let schema = self.output_schema(&left.schema, &right.schema)?;
        let join = self.clone().threads(0);
        JoinStream::spawn(self.threads, schema, move |sink| {
            join.for_each(&left, &right, sink)
        })
    }

    /// Runs the join and collects every output batch.
    ///
    /// # Errors
    ///
    /// As [`HashJoin::for_each`].
    pub fn collect(&self, left: JoinInput, right: JoinInput) -> Result<Vec<RecordBatch>> {
        crate::stream::collect_batches(|sink| self.for_each(&left, &right, sink))
    }
}

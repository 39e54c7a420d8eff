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
//!   core's cache (see `exec` for how the partition count is chosen).
//!   Skewed partitions are split.
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
//! use tenon_kernels::{HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType};
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
pub(crate) mod exec;
pub(crate) mod partition;
mod partitioned;
pub(crate) mod probe;
mod runtime_filter;
pub(crate) mod table;

pub use runtime_filter::RuntimeFilter;

use crate::error::{KernelError, Result};
use crate::join_type::{JoinSide, JoinType, Roles};
use crate::kernel::join_kernel::options_and_join_type;
use crate::kernel::validate::EquiKeys;
use crate::kernel::{
    BatchSink, FedProbe, Join, JoinInput, JoinKernel, JoinOptions, ProbeFeed, Strategy,
};

/// How a [`HashJoin`] spreads its work over threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashJoinMode {
    /// One shared table over the whole build side (the BROADCAST hint).
    Broadcast,
    /// Both sides radix-partitioned by hash; one small table per partition
    /// (the SHUFFLE_HASH hint). When one partition is enough (a build side
    /// the kernel does not partition, [`HashJoin::unpartitioned_rows`], or
    /// `partitions(1)`) this runs the broadcast code, which is the same
    /// algorithm without the scatter.
    Partitioned,
}

/// A hash join: its type, keys and options. Build it with the methods
/// (the shared ones of [`JoinKernel`]: batch size, threads, memory,
/// projection, filter), then run it with [`JoinKernel::execute`] (a
/// stream of batches), [`JoinKernel::for_each`] (push batches into a
/// callback from the worker threads), [`JoinKernel::collect`], or
/// [`FedProbe::for_each_fed`] (the probe side pushed batch by batch).
///
/// Defaults: build the right side, [`HashJoinMode::Partitioned`], NULL keys
/// never match, and the [`JoinOptions`] defaults.
#[derive(Debug, Clone)]
pub struct HashJoin {
    pub(crate) join_type: JoinType,
    pub(crate) keys: EquiKeys,
    pub(crate) build_side: JoinSide,
    pub(crate) mode: HashJoinMode,
    pub(crate) options: JoinOptions,
}

impl HashJoin {
    /// A join of `join_type` on key pairs `on`: `(left column, right column)`
    /// indices, compared with SQL `=` (all pairs must be equal).
    pub fn new(join_type: JoinType, on: Vec<(usize, usize)>) -> Self {
        HashJoin {
            join_type,
            keys: EquiKeys::new(on),
            build_side: JoinSide::Right,
            mode: HashJoinMode::Partitioned,
            options: JoinOptions::default(),
        }
    }

    /// The side the table is built from.
    pub fn built_side(&self) -> JoinSide {
        self.build_side
    }

    /// Compare keys with `IS NOT DISTINCT FROM`: NULL matches NULL.
    pub fn null_equal(mut self, yes: bool) -> Self {
        self.keys.null_equal = yes;
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
        self.keys.partitions = Some(n);
        self
    }

    /// The largest build side the partitioned mode leaves unpartitioned
    /// when it chooses the partition count: such a build side's table is
    /// shared by the probe threads and probed batch by batch as in the
    /// broadcast mode (so a fed probe side streams); a larger one is
    /// partitioned, and its probe side held whole.
    pub fn unpartitioned_rows() -> usize {
        exec::UNPARTITIONED_ROWS
    }

    /// The input the table is built on, and the other one.
    fn sides<'a>(
        &self,
        left: &'a JoinInput,
        right: &'a JoinInput,
    ) -> (&'a JoinInput, &'a JoinInput) {
        match self.build_side {
            JoinSide::Left => (left, right),
            JoinSide::Right => (right, left),
        }
    }
}

impl From<HashJoin> for Join {
    fn from(j: HashJoin) -> Join {
        Join::new(j)
    }
}

impl JoinKernel for HashJoin {
    options_and_join_type!();

    fn strategy(&self) -> Strategy {
        match self.mode {
            HashJoinMode::Broadcast => Strategy::Broadcast,
            HashJoinMode::Partitioned => Strategy::ShuffleHash,
        }
    }

    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()> {
        let prepared = exec::Prepared::new(self, left, right)?;
        crate::pool::install(self.options.threads, || prepared.run(sink, None))
    }

    fn check(&self, left: &JoinInput, right: &JoinInput) -> Result<()> {
        exec::Prepared::new(self, left, right).map(|_| ())
    }

    fn fed(&self) -> Option<&dyn FedProbe> {
        Some(self)
    }
}

impl FedProbe for HashJoin {
    fn build_side(&self) -> JoinSide {
        self.build_side
    }

    fn partitions_build(&self, build_rows: usize) -> bool {
        exec::partition_bits(build_rows) != 0
    }

    /// In the broadcast mode each pushed batch is probed at once, so the
    /// probe side is never held whole: the point of a broadcast join. So it
    /// is in the partitioned mode when the build side is small enough not
    /// to be partitioned ([`HashJoin::unpartitioned_rows`]); otherwise that
    /// mode needs every probe row before it can partition, so it collects
    /// the pushed batches and then runs as [`JoinKernel::for_each`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Int64Array, RecordBatch};
    /// use arrow_schema::{DataType, Field, Schema};
    /// use tenon_kernels::{FedProbe, HashJoin, HashJoinMode, JoinInput, JoinSide, JoinType};
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
    fn for_each_fed(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        feed: &ProbeFeed<'_>,
        sink: &BatchSink<'_>,
    ) -> Result<()> {
        let (build, probe) = self.sides(left, right);
        if !probe.batches().is_empty() {
            return Err(KernelError::InvalidOptions(
                "the probe input of a fed join must hold no batches: they are pushed by the feed"
                    .into(),
            ));
        }
        let unpartitioned =
            self.keys.partitions.is_none() && !self.partitions_build(build.num_rows());
        let threads = self.options.threads;
        if self.mode == HashJoinMode::Broadcast || unpartitioned {
            let prepared = exec::Prepared::new(self, left, right)?;
            return crate::pool::install(threads, || prepared.run(sink, Some(feed)));
        }
        let fed = std::sync::Mutex::new(Vec::new());
        crate::pool::install(threads, || {
            feed(&|b| {
                fed.lock().unwrap_or_else(|e| e.into_inner()).push(b);
                Ok(())
            })
        })?;
        let probe = JoinInput::new(
            probe.schema().clone(),
            fed.into_inner().unwrap_or_else(|e| e.into_inner()),
        );
        match self.build_side {
            JoinSide::Left => self.for_each(left, &probe, sink),
            JoinSide::Right => self.for_each(&probe, right, sink),
        }
    }

    /// Probe rows without a match are dropped unless the join outputs them
    /// (a probe side preserved by an outer join, the kept side of an anti
    /// join); NULL-equal keys and NOT IN (where a NULL on the subquery's
    /// side matters) get no filter.
    ///
    /// ```
    /// use tenon_kernels::{FedProbe, HashJoin, JoinSide, JoinType};
    ///
    /// let keys = |t, side| HashJoin::new(t, vec![(0, 1)]).build_side(side).runtime_filter_keys();
    /// assert_eq!(keys(JoinType::Inner, JoinSide::Right), [(1, 0)]);
    /// assert_eq!(keys(JoinType::Left, JoinSide::Left), [(0, 1)]); // probe: the NULL-extended side
    /// assert!(keys(JoinType::Left, JoinSide::Right).is_empty()); // probe: the preserved side
    /// assert_eq!(keys(JoinType::LeftAnti, JoinSide::Left), [(0, 1)]);
    /// assert!(keys(JoinType::LeftAnti, JoinSide::Right).is_empty());
    /// assert!(keys(JoinType::LeftAntiNullAware, JoinSide::Left).is_empty());
    /// ```
    fn runtime_filter_keys(&self) -> Vec<(usize, usize)> {
        let roles = Roles::new(self.join_type, self.build_side);
        if self.keys.null_equal || roles.null_aware || roles.probe_unmatched || roles.probe_anti {
            return Vec::new();
        }
        self.keys
            .on
            .iter()
            .map(|&(l, r)| match self.build_side {
                JoinSide::Left => (l, r),
                JoinSide::Right => (r, l),
            })
            .collect()
    }

    fn building(&self, side: JoinSide, strategy: Strategy) -> Join {
        let mut join = self.clone().build_side(side);
        match strategy {
            Strategy::Broadcast => join.mode = HashJoinMode::Broadcast,
            Strategy::ShuffleHash => join.mode = HashJoinMode::Partitioned,
            Strategy::ShuffleMerge | Strategy::NestLoop => {}
        }
        join.into()
    }
}

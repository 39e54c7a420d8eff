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
//! # The CPU
//!
//! The hot loops (the probe, the direct-index probe, the key filter's
//! selection and build, the partitioner's sink and scatter) are compiled
//! for the baseline x86-64 and for x86-64-v3 and -v4, and run at the best
//! level the CPU has (`crate::cpu`; `TENON_CPU=baseline` forces the
//! baseline copy). The tight-loop limits a probe is compared with (a
//! dependent read inside L2, independent probes into tables of 1K, 1M and
//! 16M keys, sequential bandwidth) are measured by
//! `cargo run --release -p tenon-kernels --example machine_limits`.
//!
//! What the probe reaches beside those limits, on one machine (Intel Xeon,
//! `lscpu` family 6 model 167, AVX-512, 2 MiB of L2 a core, 2 cores;
//! 2026-12-03), per probe row and thread: the limits from the example
//! above, the kernel from `benches/peers/peers.py --threads 2` (BROADCAST,
//! unique build keys, every probe row matching, the count and two sums
//! taken from the join's pairs; median of 5 runs, so wall time x 2 threads
//! / 10M rows):
//!
//! | build keys | limit: independent probes, plain / prefetched | the kernel |
//! |---|---|---|
//! | 1K (32 KiB table, in L1) | 5.4 / 5.4 ns | 6.0 ns (fk_small) |
//! | 1M (32 MiB table, L3) | 13.0 / 12.2 ns | 20.5 ns (fk_medium) |
//! | 16M (512 MiB, DRAM) | 35.2 / 33.9 ns | 89 ns (fk_large, 10M keys, build included) |
//!
//! A dependent read inside L2 took 4.9 ns and a sequential read ran at
//! 11.7 GB/s. On 1K keys the kernel is near the limit: a run of 64 probe
//! rows is hashed in a loop of its own (vectorized), then each row is one
//! bucket test whose pair is written without a branch (`probe`). On 1M
//! keys the gap is the build side's payload, read at random a second time
//! by the consumer, unfetched. `benches/issue17.md` has the sitting this
//! comes from (the Zen 5 one before it is in `benches/issue17-12-02.md`).
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
#[cfg(test)]
mod cpu_levels;
mod dense;
pub(crate) mod exec;
mod key_hash;
pub(crate) mod partition;
mod partitioned;
pub(crate) mod probe;
mod runtime_filter;
pub(crate) mod table;

pub use key_hash::key_hashes;
pub use runtime_filter::RuntimeFilter;

use crate::error::{KernelError, Result};
use crate::join_type::{JoinSide, JoinType, Roles};
use crate::kernel::join_kernel::options_and_join_type;
use crate::kernel::pairs::PairOutput;
use crate::kernel::validate::EquiKeys;
use crate::kernel::{
    BatchSink, FedProbe, Join, JoinInput, JoinKernel, JoinOptions, PairJoin, PairSink, ProbeFeed,
    Strategy,
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

    /// The key pairs, `(left column, right column)`.
    pub fn on(&self) -> &[(usize, usize)] {
        &self.keys.on
    }

    /// Whether NULL keys match each other (`IS NOT DISTINCT FROM`).
    pub fn is_null_equal(&self) -> bool {
        self.keys.null_equal
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

    fn equi_keys(&self) -> Option<(&[(usize, usize)], bool)> {
        Some((&self.keys.on, self.keys.null_equal))
    }

    fn held_side(&self) -> Option<JoinSide> {
        Some(self.build_side)
    }

    fn retyped(&self, join_type: JoinType) -> Option<Join> {
        let mut j = self.clone();
        j.join_type = join_type;
        Some(j.into())
    }

    fn strategy(&self) -> Strategy {
        match self.mode {
            HashJoinMode::Broadcast => Strategy::Broadcast,
            HashJoinMode::Partitioned => Strategy::ShuffleHash,
        }
    }

    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()> {
        let prepared = exec::Prepared::new(self, left, right)?;
        crate::pool::install(self.options.threads, || prepared.run(sink, None, None))
    }

    fn check(&self, left: &JoinInput, right: &JoinInput) -> Result<()> {
        exec::Prepared::new(self, left, right).map(|_| ())
    }

    fn fed(&self) -> Option<&dyn FedProbe> {
        Some(self)
    }

    fn paired(&self) -> Option<&dyn PairJoin> {
        (self.join_type == JoinType::Inner).then_some(self as &dyn PairJoin)
    }
}

impl HashJoin {
    /// Whether a fed probe side is probed batch by batch as it comes (the
    /// broadcast mode, or a build side the partitioned mode leaves whole);
    /// otherwise it is collected first.
    fn streams_fed(&self, build: &JoinInput) -> bool {
        let unpartitioned =
            self.keys.partitions.is_none() && !self.partitions_build(build.num_rows());
        self.mode == HashJoinMode::Broadcast || unpartitioned
    }

    /// Checks that a fed probe input holds no batches.
    fn check_fed_probe(probe: &JoinInput) -> Result<()> {
        if probe.batches().is_empty() {
            return Ok(());
        }
        Err(KernelError::InvalidOptions(
            "the probe input of a fed join must hold no batches: they are pushed by the feed"
                .into(),
        ))
    }

    /// The probe side of `probe`'s schema with every batch `feed` pushes.
    fn collect_fed(&self, probe: &JoinInput, feed: &ProbeFeed<'_>) -> Result<JoinInput> {
        let fed = std::sync::Mutex::new(Vec::new());
        crate::pool::install(self.options.threads, || {
            feed(&|b| {
                fed.lock().unwrap_or_else(|e| e.into_inner()).push(b);
                Ok(())
            })
        })?;
        Ok(JoinInput::new(
            probe.schema().clone(),
            fed.into_inner().unwrap_or_else(|e| e.into_inner()),
        ))
    }
}

/// Only for INNER joins ([`JoinKernel::paired`] says so), in both modes:
/// the pairs of a broadcast (or unpartitioned) join come per probe morsel,
/// with the probe rows of one batch; those of a partitioned one per
/// partition, with global rows of the probe side's batches
/// ([`PairChunk::locate_probe`](crate::PairChunk::locate_probe)). A fed
/// probe side is probed as it comes when [`FedProbe::for_each_fed`] would,
/// else collected first.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_kernels::{HashJoin, JoinInput, JoinKernel, JoinType, PairChunk, PairSink, PairWorker, Result};
///
/// /// Counts pairs per worker, adds them up at the end.
/// struct Count(AtomicU64);
/// struct Worker<'a>(&'a Count, u64);
/// impl PairSink for Count {
///     fn worker(&self) -> Result<Box<dyn PairWorker + '_>> {
///         Ok(Box::new(Worker(self, 0)))
///     }
/// }
/// impl PairWorker for Worker<'_> {
///     fn consume(&mut self, chunk: &PairChunk<'_>) -> Result<()> {
///         self.1 += chunk.build_rows.len() as u64;
///         Ok(())
///     }
///     fn finish(self: Box<Self>) -> Result<()> {
///         self.0.0.fetch_add(self.1, Ordering::Relaxed);
///         Ok(())
///     }
/// }
///
/// let t = RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(vec![1, 2, 2])) as _)])
///     .unwrap();
/// let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]);
/// let count = Count(AtomicU64::new(0));
/// let input = || JoinInput::from_batch(t.clone());
/// join.paired().unwrap().for_each_pair(&input(), &input(), None, &count).unwrap();
/// assert_eq!(count.0.into_inner(), 5);
/// assert!(HashJoin::new(JoinType::Left, vec![(0, 0)]).paired().is_none());
/// ```
impl PairJoin for HashJoin {
    fn build_side(&self) -> JoinSide {
        self.build_side
    }

    fn for_each_pair(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        feed: Option<&ProbeFeed<'_>>,
        sink: &dyn PairSink,
    ) -> Result<()> {
        if self.join_type != JoinType::Inner {
            return Err(KernelError::InvalidOptions(format!(
                "a {} join has output besides its pairs: only an INNER join hands its pairs to \
                 a consumer",
                self.join_type
            )));
        }
        let out = PairOutput::new(sink);
        let no_batches = |_: arrow_array::RecordBatch| -> Result<()> {
            Err(KernelError::Internal(
                "an output batch from a join run with a pair consumer".into(),
            ))
        };
        let threads = self.options.threads;
        let (build, probe) = self.sides(left, right);
        match feed {
            None => {
                let prepared = exec::Prepared::new(self, left, right)?;
                crate::pool::install(threads, || prepared.run(&no_batches, None, Some(&out)))?;
            }
            Some(feed) => {
                Self::check_fed_probe(probe)?;
                if self.streams_fed(build) {
                    let prepared = exec::Prepared::new(self, left, right)?;
                    crate::pool::install(threads, || {
                        prepared.run(&no_batches, Some(feed), Some(&out))
                    })?;
                } else {
                    let probe = self.collect_fed(probe, feed)?;
                    let (l, r) = match self.build_side {
                        JoinSide::Left => (left, &probe),
                        JoinSide::Right => (&probe, right),
                    };
                    let prepared = exec::Prepared::new(self, l, r)?;
                    crate::pool::install(threads, || prepared.run(&no_batches, None, Some(&out)))?;
                }
            }
        }
        out.finish()
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
        Self::check_fed_probe(probe)?;
        let threads = self.options.threads;
        if self.streams_fed(build) {
            let prepared = exec::Prepared::new(self, left, right)?;
            return crate::pool::install(threads, || prepared.run(sink, Some(feed), None));
        }
        let probe = self.collect_fed(probe, feed)?;
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

    fn hash_join(&self) -> Option<&HashJoin> {
        Some(self)
    }
}

//! The trait every join kernel implements, and the optional capability of
//! taking the probe side batch by batch.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::emit::BatchSink;
use super::input::JoinInput;
use super::join::{Join, Strategy};
use super::options::JoinOptions;
use super::pairs::PairJoin;
use super::stream::{JoinStream, collect_batches};
use crate::error::Result;
use crate::filter::JoinFilter;
use crate::join_type::{JoinSide, JoinType};
use crate::memory::MemoryBudget;

/// A configured join kernel: what every strategy implements, and what a
/// [`Join`] holds.
///
/// A kernel implements [`options`](Self::options) and
/// [`options_mut`](Self::options_mut) (its [`JoinOptions`]),
/// [`join_type`](Self::join_type), [`strategy`](Self::strategy) and
/// [`for_each`](Self::for_each), which runs the join and pushes its output
/// into a sink; it overrides [`check`](Self::check) to report bad options
/// before [`execute`](Self::execute) starts threads, and
/// [`fed`](Self::fed) when it can take its probe side batch by batch, and
/// [`paired`](Self::paired) when it can hand its pairs to a consumer. The
/// rest is provided: the builder methods of the shared options,
/// [`output_schema`](Self::output_schema), [`execute`](Self::execute) (a
/// stream of batches) and [`collect`](Self::collect). The kernel must be
/// `Clone` (a `Join` copies it through [`CloneKernel`], implemented for
/// every `Clone` kernel).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_kernels::{HashJoin, JoinInput, JoinKernel, JoinType, SortMergeJoin, Strategy};
///
/// let t = RecordBatch::try_from_iter([
///     ("k", Arc::new(Int64Array::from(vec![1, 2, 2])) as _),
/// ]).unwrap();
/// let input = || JoinInput::from_batch(t.clone());
/// // The shared options are set the same way on every kernel.
/// let hash = HashJoin::new(JoinType::Inner, vec![(0, 0)]).batch_size(2).threads(1);
/// let merge = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).batch_size(2).threads(1);
/// assert_eq!(hash.strategy(), Strategy::ShuffleHash);
/// assert_eq!(merge.strategy(), Strategy::ShuffleMerge);
/// for kernel in [&hash as &dyn JoinKernel, &merge] {
///     let out = kernel.collect(input(), input()).unwrap();
///     assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 5);
///     assert!(out.iter().all(|b| b.num_rows() <= 2));
///     let streamed: usize = kernel
///         .execute(input(), input())
///         .unwrap()
///         .map(|b| b.unwrap().num_rows())
///         .sum();
///     assert_eq!(streamed, 5);
/// }
/// // Only the hash join takes its probe side batch by batch, and hands
/// // its pairs to a consumer (an INNER join's).
/// assert!(hash.fed().is_some() && merge.fed().is_none());
/// assert!(hash.paired().is_some() && merge.paired().is_none());
/// ```
pub trait JoinKernel: CloneKernel + std::fmt::Debug + Send + Sync {
    /// The options shared by every kernel.
    fn options(&self) -> &JoinOptions;

    /// The options, to change them.
    fn options_mut(&mut self) -> &mut JoinOptions;

    /// The join type.
    fn join_type(&self) -> JoinType;

    /// The strategy this kernel runs (by its hint name).
    fn strategy(&self) -> Strategy;

    /// Runs the join on worker threads, pushing every output batch into
    /// `sink` (called concurrently from the workers). Returns once the join
    /// is done; the first error (the sink's included) stops it.
    ///
    /// # Errors
    ///
    /// Invalid keys, conditions or options, the memory limit, an error of
    /// the filter or of the sink.
    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()>;

    /// Checks the join against inputs of these schemas and batches without
    /// running it, so that [`execute`](Self::execute) reports bad options
    /// at once. The default checks nothing (`for_each` still does).
    ///
    /// # Errors
    ///
    /// What [`for_each`](Self::for_each) would report before it starts.
    fn check(&self, _left: &JoinInput, _right: &JoinInput) -> Result<()> {
        Ok(())
    }

    /// The range conditions the kernel searches, offsets included (for
    /// EXPLAIN: what reached the kernel). The default: none.
    fn range_conditions(&self) -> &[crate::condition::RangeCondition] {
        &[]
    }

    /// The key pairs `(left column, right column)` the kernel joins on by
    /// equality, and whether NULL matches NULL: what a caller that splits
    /// both inputs by key (the planner's spilling joins) splits them by.
    /// The default (a kernel without equality keys): none.
    fn equi_keys(&self) -> Option<(&[(usize, usize)], bool)> {
        None
    }

    /// The same join (keys, conditions, options) as a join of
    /// `join_type`, when the kernel runs that type: a caller that joins
    /// parts of the inputs itself (the planner's block joins, which take
    /// every pair of an INNER join and decide outer and semi rows
    /// themselves). The default: none.
    fn retyped(&self, _join_type: JoinType) -> Option<Join> {
        None
    }

    /// The side the kernel holds whole while the other passes it, when it
    /// holds one (hash join: its build side; nested loop: its build
    /// side); none when it holds both (sort-merge). The default: none.
    fn held_side(&self) -> Option<JoinSide> {
        None
    }

    /// An upper bound of the memory the kernel reserves from its budget
    /// to join inputs of `left` and `right` = `(rows, bytes of their
    /// buffers)`, on the current thread pool: what a caller that chooses
    /// how much of its inputs to join at once (the planner's spilling
    /// joins) must leave free. Subadditive: the bound of two parts of an
    /// input together is at most the sum of their bounds. The default (a
    /// kernel that does not say): none.
    fn memory_bound(&self, _left: (usize, usize), _right: (usize, usize)) -> Option<usize> {
        None
    }

    /// The capability of taking the probe side batch by batch, if the
    /// kernel has it (see [`FedProbe`]). The default: it has not.
    fn fed(&self) -> Option<&dyn FedProbe> {
        None
    }

    /// The capability of handing matched pairs to a consumer instead of
    /// gathering output batches, if the kernel has it for its join type
    /// (see [`PairJoin`]). The default: it has not.
    fn paired(&self) -> Option<&dyn PairJoin> {
        None
    }

    /// The schema of the output for inputs of these schemas.
    ///
    /// # Errors
    ///
    /// A projection index out of range.
    fn output_schema(&self, left: &SchemaRef, right: &SchemaRef) -> Result<SchemaRef> {
        self.options().output_schema(self.join_type(), left, right)
    }

    /// Runs the join and returns its output as a stream of batches,
    /// produced by worker threads while the caller reads (at most a few
    /// batches per thread are held). Dropping the stream stops the join.
    ///
    /// # Errors
    ///
    /// What [`check`](Self::check) finds is reported here; errors found
    /// while running come out of the stream.
    fn execute(&self, left: JoinInput, right: JoinInput) -> Result<JoinStream> {
        self.check(&left, &right)?;
        let schema = self.output_schema(left.schema(), right.schema())?;
        let mut join = self.clone_kernel();
        join.options_mut().threads = 0; // the stream's own pool
        JoinStream::spawn(self.options().threads, schema, move |sink| {
            join.for_each(&left, &right, sink)
        })
    }

    /// Runs the join and collects every output batch.
    ///
    /// # Errors
    ///
    /// As [`for_each`](Self::for_each).
    fn collect(&self, left: JoinInput, right: JoinInput) -> Result<Vec<RecordBatch>> {
        collect_batches(|sink| self.for_each(&left, &right, sink))
    }

    /// At most this many rows per output batch (at least 1).
    fn batch_size(mut self, n: usize) -> Self
    where
        Self: Sized,
    {
        self.options_mut().batch_size = n;
        self
    }

    /// Worker threads: 0 runs [`for_each`](Self::for_each) and
    /// [`collect`](Self::collect) on the current rayon pool (the global one
    /// by default) and [`execute`](Self::execute) on a pool of its own as
    /// large as the current one; `n > 0` runs on a pool of its own with `n`
    /// threads.
    fn threads(mut self, n: usize) -> Self
    where
        Self: Sized,
    {
        self.options_mut().threads = n;
        self
    }

    /// The memory budget the kernel reserves its tables and copies from.
    fn memory(mut self, budget: MemoryBudget) -> Self
    where
        Self: Sized,
    {
        self.options_mut().memory = budget;
        self
    }

    /// Output only these columns of each side (`None`: all), in this order.
    /// `Some(vec![])` on both sides gives batches without columns that
    /// carry a row count (a `COUNT(*)`).
    fn projection(mut self, left: Option<Vec<usize>>, right: Option<Vec<usize>>) -> Self
    where
        Self: Sized,
    {
        let options = self.options_mut();
        options.left_projection = left;
        options.right_projection = right;
        self
    }

    /// A residual condition over candidate pairs (the rest of an ON
    /// clause), ANDed with the kernel's own conditions.
    fn filter(mut self, filter: Arc<dyn JoinFilter>) -> Self
    where
        Self: Sized,
    {
        self.options_mut().filter = Some(filter);
        self
    }
}

/// Implements [`JoinKernel::options`], [`JoinKernel::options_mut`] and
/// [`JoinKernel::join_type`] inside a kernel's `impl JoinKernel` block, for
/// a kernel whose fields `options` and `join_type` hold them (every kernel
/// of this crate).
macro_rules! options_and_join_type {
    () => {
        fn options(&self) -> &$crate::JoinOptions {
            &self.options
        }

        fn options_mut(&mut self) -> &mut $crate::JoinOptions {
            &mut self.options
        }

        fn join_type(&self) -> $crate::JoinType {
            self.join_type
        }
    };
}

pub(crate) use options_and_join_type;

/// Copies a kernel behind a `dyn JoinKernel`; implemented for every
/// kernel that is `Clone`.
pub trait CloneKernel {
    /// A boxed copy of this kernel.
    fn clone_kernel(&self) -> Box<dyn JoinKernel>;
}

impl<K: JoinKernel + Clone + 'static> CloneKernel for K {
    fn clone_kernel(&self) -> Box<dyn JoinKernel> {
        Box::new(self.clone())
    }
}

/// Pushes probe batches into a running join: called once, with the
/// function that probes one batch (from any thread, concurrently).
pub type ProbeFeed<'a> =
    dyn Fn(&(dyn Fn(RecordBatch) -> Result<()> + Sync)) -> Result<()> + Sync + 'a;

/// A kernel that builds one side whole and can take the other (the probe
/// side) batch by batch, as a pipeline produces it: the capability
/// [`JoinKernel::fed`] gives.
pub trait FedProbe: Sync {
    /// The side the kernel builds (holds whole).
    fn build_side(&self) -> JoinSide;

    /// Whether a build side of `build_rows` rows is large enough for the
    /// kernel to partition it (when its partitioned mode chooses the
    /// partition count). Then [`for_each_fed`](Self::for_each_fed) holds
    /// the probe side whole before it starts; a smaller build side lets
    /// every pushed batch be probed at once.
    fn partitions_build(&self, build_rows: usize) -> bool;

    /// Runs the join with its probe side pushed in batch by batch: builds
    /// from the build input, then calls `feed` once with a function that
    /// probes one batch (callable from several threads at once), then
    /// outputs the build rows that outer, semi or anti joins decide at the
    /// end. The probe side's [`JoinInput`] gives only its schema and must
    /// hold no batches.
    ///
    /// # Errors
    ///
    /// As [`JoinKernel::for_each`]; a probe input that holds batches, or a
    /// pushed batch whose column types differ from the probe side's; the
    /// first error of `feed` (the probe function's errors pass through it).
    fn for_each_fed(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        feed: &ProbeFeed<'_>,
        sink: &BatchSink<'_>,
    ) -> Result<()>;

    /// The key pairs a runtime filter may be made from, as `(build column,
    /// probe column)`: every pair when a probe row whose key is not among
    /// the build side's keys is never output and changes nothing else, so
    /// that the operators before the probe may drop it
    /// ([`RuntimeFilter`](crate::RuntimeFilter)); none otherwise (the
    /// probe side is preserved, the join is null-equal or NOT IN). The
    /// default: none.
    fn runtime_filter_keys(&self) -> Vec<(usize, usize)> {
        Vec::new()
    }

    /// The same join building `side` instead, with the strategy
    /// `strategy` when the kernel runs it (for a hash join: `BROADCAST`
    /// or `SHUFFLE_HASH`; any other keeps the kernel's mode).
    fn building(&self, side: JoinSide, strategy: Strategy) -> Join;

    /// The kernel as a [`HashJoin`](crate::HashJoin), when it is one: its
    /// keys and options, for a caller that partitions the inputs itself
    /// (the planner's spilling hash join). The default: none.
    fn hash_join(&self) -> Option<&crate::HashJoin> {
        None
    }
}

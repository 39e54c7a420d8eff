//! One type for a join whatever its strategy, so that a planner, a
//! benchmark or a test can hold and run any of them, and the strategies by
//! their hint names.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::emit::BatchSink;
use super::input::JoinInput;
use super::join_kernel::{FedProbe, JoinKernel};
use super::options::JoinOptions;
use super::pairs::PairJoin;
use super::stream::JoinStream;
use crate::error::Result;
use crate::join_type::{JoinSide, JoinType};

/// The four join strategies, by their hint names (docs/hints.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// A hash join with one shared build table
    /// ([`HashJoinMode::Broadcast`](crate::HashJoinMode::Broadcast)).
    Broadcast,
    /// A radix-partitioned hash join
    /// ([`HashJoinMode::Partitioned`](crate::HashJoinMode::Partitioned)).
    ShuffleHash,
    /// A sort-merge join ([`SortMergeJoin`](crate::SortMergeJoin)).
    ShuffleMerge,
    /// A nested-loop join ([`NestedLoopJoin`](crate::NestedLoopJoin)).
    NestLoop,
}

impl Strategy {
    /// Every strategy, in the hints document's order.
    pub const ALL: [Strategy; 4] = [
        Strategy::Broadcast,
        Strategy::ShuffleHash,
        Strategy::ShuffleMerge,
        Strategy::NestLoop,
    ];

    /// The hint name: `BROADCAST`, `SHUFFLE_HASH`, `SHUFFLE_MERGE`,
    /// `NEST_LOOP`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Broadcast => "BROADCAST",
            Strategy::ShuffleHash => "SHUFFLE_HASH",
            Strategy::ShuffleMerge => "SHUFFLE_MERGE",
            Strategy::NestLoop => "NEST_LOOP",
        }
    }

    /// The strategy of a hint name, case-insensitively.
    ///
    /// ```
    /// use tenon_kernels::Strategy;
    /// assert_eq!(Strategy::from_name("shuffle_merge"), Some(Strategy::ShuffleMerge));
    /// assert_eq!(Strategy::from_name("HASH"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A configured join of any strategy: a [`JoinKernel`] behind a box,
/// itself a [`JoinKernel`] (every method goes to the kernel it holds).
/// Every kernel of this crate converts into one with `into()`; any other
/// with [`Join::new`].
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_kernels::{HashJoin, Join, JoinInput, JoinKernel, JoinType, SortMergeJoin};
///
/// let t = RecordBatch::try_from_iter([
///     ("k", Arc::new(Int64Array::from(vec![1, 2, 2])) as _),
/// ]).unwrap();
/// let joins: Vec<Join> = vec![
///     HashJoin::new(JoinType::Inner, vec![(0, 0)]).into(),
///     SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).into(),
/// ];
/// for j in &joins {
///     let out = j.collect(JoinInput::from_batch(t.clone()), JoinInput::from_batch(t.clone()))
///         .unwrap();
///     assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 5, "{}", j.strategy());
/// }
/// ```
#[derive(Debug)]
pub struct Join(Box<dyn JoinKernel>);

impl Join {
    /// A join running `kernel`.
    pub fn new(kernel: impl JoinKernel + 'static) -> Self {
        Join(Box::new(kernel))
    }
}

impl Clone for Join {
    fn clone(&self) -> Self {
        Join(self.0.clone_kernel())
    }
}

impl JoinKernel for Join {
    fn options(&self) -> &JoinOptions {
        self.0.options()
    }

    fn options_mut(&mut self) -> &mut JoinOptions {
        self.0.options_mut()
    }

    fn join_type(&self) -> JoinType {
        self.0.join_type()
    }

    fn strategy(&self) -> Strategy {
        self.0.strategy()
    }

    fn for_each(&self, left: &JoinInput, right: &JoinInput, sink: &BatchSink<'_>) -> Result<()> {
        self.0.for_each(left, right, sink)
    }

    fn check(&self, left: &JoinInput, right: &JoinInput) -> Result<()> {
        self.0.check(left, right)
    }

    fn fed(&self) -> Option<&dyn FedProbe> {
        self.0.fed()
    }

    fn equi_keys(&self) -> Option<(&[(usize, usize)], bool)> {
        self.0.equi_keys()
    }

    fn retyped(&self, join_type: JoinType) -> Option<Join> {
        self.0.retyped(join_type)
    }

    fn memory_bound(&self, left: (usize, usize), right: (usize, usize)) -> Option<usize> {
        self.0.memory_bound(left, right)
    }

    fn held_side(&self) -> Option<JoinSide> {
        self.0.held_side()
    }

    fn paired(&self) -> Option<&dyn PairJoin> {
        self.0.paired()
    }

    fn range_conditions(&self) -> &[crate::condition::RangeCondition] {
        self.0.range_conditions()
    }

    fn output_schema(&self, left: &SchemaRef, right: &SchemaRef) -> Result<SchemaRef> {
        self.0.output_schema(left, right)
    }

    fn execute(&self, left: JoinInput, right: JoinInput) -> Result<JoinStream> {
        self.0.execute(left, right)
    }

    fn collect(&self, left: JoinInput, right: JoinInput) -> Result<Vec<RecordBatch>> {
        self.0.collect(left, right)
    }
}

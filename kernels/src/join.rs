//! One type for a join whatever its strategy, so that a planner, a
//! benchmark or a test can hold and run any of them.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::Result;
use crate::hash::{BatchSink, HashJoin, HashJoinMode, JoinInput};
use crate::join_type::JoinType;
use crate::merge::SortMergeJoin;
use crate::nested::NestedLoopJoin;
use crate::stream::JoinStream;

/// The four join strategies, by their hint names (HINTS.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// A hash join with one shared build table ([`HashJoinMode::Broadcast`]).
    Broadcast,
    /// A radix-partitioned hash join ([`HashJoinMode::Partitioned`]).
    ShuffleHash,
    /// A sort-merge join ([`SortMergeJoin`]).
    ShuffleMerge,
    /// A nested-loop join ([`NestedLoopJoin`]).
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

/// A configured join of any of the four strategies.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon_kernels::{HashJoin, Join, JoinInput, JoinType, SortMergeJoin};
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
#[derive(Debug, Clone)]
pub enum Join {
    /// A hash join, broadcast or partitioned.
    Hash(HashJoin),
    /// A sort-merge join.
    SortMerge(SortMergeJoin),
    /// A nested-loop join.
    NestedLoop(NestedLoopJoin),
}

impl From<HashJoin> for Join {
    fn from(j: HashJoin) -> Self {
        Join::Hash(j)
    }
}

impl From<SortMergeJoin> for Join {
    fn from(j: SortMergeJoin) -> Self {
        Join::SortMerge(j)
    }
}

impl From<NestedLoopJoin> for Join {
    fn from(j: NestedLoopJoin) -> Self {
        Join::NestedLoop(j)
    }
}

impl Join {
    /// The join's strategy.
    pub fn strategy(&self) -> Strategy {
        match self {
            Join::Hash(j) if j.mode == HashJoinMode::Broadcast => Strategy::Broadcast,
            Join::Hash(_) => Strategy::ShuffleHash,
            Join::SortMerge(_) => Strategy::ShuffleMerge,
            Join::NestedLoop(_) => Strategy::NestLoop,
        }
    }

    /// The join type.
    pub fn join_type(&self) -> JoinType {
        match self {
            Join::Hash(j) => j.join_type(),
            Join::SortMerge(j) => j.join_type(),
            Join::NestedLoop(j) => j.join_type(),
        }
    }

    /// The memory budget the kernel reserves its tables and copies from.
    pub fn memory(self, budget: crate::memory::MemoryBudget) -> Self {
        match self {
            Join::Hash(j) => Join::Hash(j.memory(budget)),
            Join::SortMerge(j) => Join::SortMerge(j.memory(budget)),
            Join::NestedLoop(j) => Join::NestedLoop(j.memory(budget)),
        }
    }

    /// Output only these columns of each side (`None`: all), in this order.
    pub fn projection(self, left: Option<Vec<usize>>, right: Option<Vec<usize>>) -> Self {
        match self {
            Join::Hash(j) => Join::Hash(j.projection(left, right)),
            Join::SortMerge(j) => Join::SortMerge(j.projection(left, right)),
            Join::NestedLoop(j) => Join::NestedLoop(j.projection(left, right)),
        }
    }

    /// The schema of the output for inputs of these schemas.
    ///
    /// # Errors
    ///
    /// A projection index out of range.
    pub fn output_schema(&self, left: &SchemaRef, right: &SchemaRef) -> Result<SchemaRef> {
        match self {
            Join::Hash(j) => j.output_schema(left, right),
            Join::SortMerge(j) => j.output_schema(left, right),
            Join::NestedLoop(j) => j.output_schema(left, right),
        }
    }

    /// Runs the join, pushing output batches into `sink` from the workers.
    ///
    /// # Errors
    ///
    /// As the strategy's own `for_each`.
    pub fn for_each(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        sink: &BatchSink<'_>,
    ) -> Result<()> {
        match self {
            Join::Hash(j) => j.for_each(left, right, sink),
            Join::SortMerge(j) => j.for_each(left, right, sink),
            Join::NestedLoop(j) => j.for_each(left, right, sink),
        }
    }

    /// Runs the join as a stream of output batches.
    ///
    /// # Errors
    ///
    /// As the strategy's own `execute`.
    pub fn execute(&self, left: JoinInput, right: JoinInput) -> Result<JoinStream> {
        match self {
            Join::Hash(j) => j.execute(left, right),
            Join::SortMerge(j) => j.execute(left, right),
            Join::NestedLoop(j) => j.execute(left, right),
        }
    }

    /// Runs the join and collects its output.
    ///
    /// # Errors
    ///
    /// As the strategy's own `collect`.
    pub fn collect(&self, left: JoinInput, right: JoinInput) -> Result<Vec<RecordBatch>> {
        match self {
            Join::Hash(j) => j.collect(left, right),
            Join::SortMerge(j) => j.collect(left, right),
            Join::NestedLoop(j) => j.collect(left, right),
        }
    }
}

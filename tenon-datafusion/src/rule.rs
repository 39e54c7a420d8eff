//! [`TenonJoinRule`]: the physical optimizer rule that puts
//! [`TenonJoinExec`] in place of DataFusion's hash, sort-merge and
//! nested-loop joins.
//!
//! It runs after DataFusion's `JoinSelection` (which has chosen each hash
//! join's mode and build side from statistics) and before
//! `EnsureRequirements` (which then gives each tenon join the distribution
//! its strategy asks for: [`crate::exec`]). Without a strategy of its own
//! for a join, the rule keeps DataFusion's choice: a `CollectLeft` hash
//! join is a BROADCAST of its left input, a partitioned one SHUFFLE_HASH,
//! a sort-merge join SHUFFLE_MERGE, a nested-loop join NEST_LOOP. A join
//! no kernel runs (a mark join, keys that are expressions, a hash join
//! with an embedded projection) stays DataFusion's.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{NullEquality, Result};
use datafusion::config::ConfigOptions;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::joins::{
    HashJoinExec, NestedLoopJoinExec, PartitionMode, SortMergeJoinExec,
};
use tenon_kernels::{JoinSide, Strategy};

use crate::exec::{TenonJoinExec, broadcast_side, kernel_join_type};

/// Replaces DataFusion's joins with tenon's (module docs).
///
/// ```
/// use tenon_datafusion::TenonJoinRule;
/// use tenon_kernels::Strategy;
///
/// // every equi-join as SHUFFLE_MERGE (a benchmark's choice)
/// let rule = TenonJoinRule::new().with_strategy(Strategy::ShuffleMerge);
/// assert_eq!(rule.strategy(), Some(Strategy::ShuffleMerge));
/// ```
#[derive(Debug, Clone, Default)]
pub struct TenonJoinRule {
    strategy: Option<Strategy>,
}

impl TenonJoinRule {
    /// The rule keeping DataFusion's choice of strategy for each join.
    pub fn new() -> Self {
        TenonJoinRule::default()
    }

    /// The rule running every equi-join as `strategy` where its join type
    /// allows (a BROADCAST builds the side the join type does not
    /// preserve; a FULL join falls back to SHUFFLE_HASH). Joins without
    /// keys stay NEST_LOOP.
    pub fn with_strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// The strategy asked for every equi-join, if any.
    pub fn strategy(&self) -> Option<Strategy> {
        self.strategy
    }

    /// The strategy and build side for an equi-join of `join_type`, given
    /// DataFusion's own choice (`collect_left`: a broadcast of the left).
    fn choose(
        &self,
        join_type: tenon_kernels::JoinType,
        collect_left: bool,
    ) -> (Strategy, Option<JoinSide>) {
        let (strategy, preferred) = match self.strategy {
            Some(s) => (s, JoinSide::Right),
            None if collect_left => (Strategy::Broadcast, JoinSide::Left),
            None => (Strategy::ShuffleHash, JoinSide::Left),
        };
        match strategy {
            Strategy::Broadcast => match broadcast_side(join_type, preferred) {
                Some(side) => (Strategy::Broadcast, Some(side)),
                None => (Strategy::ShuffleHash, Some(preferred)),
            },
            Strategy::ShuffleHash => (strategy, Some(preferred)),
            Strategy::ShuffleMerge => (strategy, None),
            Strategy::NestLoop => (Strategy::ShuffleHash, Some(preferred)),
        }
    }

    fn replace(&self, plan: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        if let Some(h) = plan.downcast_ref::<HashJoinExec>() {
            let Some(t) = kernel_join_type(h.join_type()) else {
                return Ok(None);
            };
            if h.projection.is_some() {
                return Ok(None);
            }
            let (strategy, side) =
                self.choose(t, *h.partition_mode() == PartitionMode::CollectLeft);
            return Ok(TenonJoinExec::try_new(
                Arc::clone(h.left()),
                Arc::clone(h.right()),
                h.on().to_vec(),
                h.filter().cloned(),
                h.join_type(),
                h.null_equality() == NullEquality::NullEqualsNull,
                strategy,
                side,
            )
            .ok()
            .map(|j| Arc::new(j) as Arc<dyn ExecutionPlan>));
        }
        if let Some(m) = plan.downcast_ref::<SortMergeJoinExec>() {
            let Some(t) = kernel_join_type(&m.join_type()) else {
                return Ok(None);
            };
            let (strategy, side) = match self.strategy {
                Some(_) => self.choose(t, false),
                None => (Strategy::ShuffleMerge, None),
            };
            return Ok(TenonJoinExec::try_new(
                Arc::clone(m.left()),
                Arc::clone(m.right()),
                m.on().to_vec(),
                m.filter().clone(),
                &m.join_type(),
                m.null_equality() == NullEquality::NullEqualsNull,
                strategy,
                side,
            )
            .ok()
            .map(|j| Arc::new(j) as Arc<dyn ExecutionPlan>));
        }
        if let Some(n) = plan.downcast_ref::<NestedLoopJoinExec>() {
            if n.projection().is_some() || kernel_join_type(n.join_type()).is_none() {
                return Ok(None);
            }
            return Ok(TenonJoinExec::try_new(
                Arc::clone(n.left()),
                Arc::clone(n.right()),
                Vec::new(),
                n.filter().cloned(),
                n.join_type(),
                false,
                Strategy::NestLoop,
                None,
            )
            .ok()
            .map(|j| Arc::new(j) as Arc<dyn ExecutionPlan>));
        }
        Ok(None)
    }
}

impl PhysicalOptimizerRule for TenonJoinRule {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            Ok(match self.replace(&node)? {
                Some(new) => Transformed::yes(new),
                None => Transformed::no(node),
            })
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "TenonJoins"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

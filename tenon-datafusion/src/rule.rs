//! [`TenonJoinRule`]: the physical optimizer rule that puts
//! [`TenonJoinExec`] in place of DataFusion's hash, sort-merge and
//! nested-loop joins.
//!
//! It runs after DataFusion's `JoinSelection` (which has chosen each hash
//! join's mode and build side from statistics) and before
//! `EnsureRequirements` (which then gives each tenon join the distribution
//! its strategy asks for: [`crate::exec`]). Without a strategy of its own
//! for a join, the rule keeps DataFusion's choice: a `CollectLeft` hash
//! join is a BROADCAST of its left input (SHUFFLE_HASH building the left
//! input when the join outputs it, as a left semi or anti join does: a
//! broadcast may build only a side the join does not output, and the
//! right one is the large one), a partitioned one SHUFFLE_HASH,
//! a sort-merge join SHUFFLE_MERGE, a nested-loop join NEST_LOOP. A join
//! no kernel runs (a mark join, keys that are expressions, a hash join
//! with an embedded projection) stays DataFusion's.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{DataFusionError, NullEquality, Result};
use datafusion::config::ConfigOptions;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::joins::{
    HashJoinExec, NestedLoopJoinExec, PartitionMode, SortMergeJoinExec,
};
use tenon_kernels::{JoinSide, Strategy};

use datafusion::physical_expr::PhysicalExprRef;
use datafusion::physical_expr::expressions::Column;

use crate::JoinDecision;
use crate::exec::{TenonJoinExec, broadcast_side, kernel_join_type};

/// A plan wrapper that ships a BROADCAST's whole build side to every task
/// of a distributed plan (see [`TenonJoinRule::with_broadcast_exchange`]).
#[derive(Clone)]
pub struct BroadcastExchange(
    /// Wraps the build side.
    pub Arc<WrapPlan>,
);

/// A function from a plan to the plan wrapped in other operators.
pub type WrapPlan = dyn Fn(Arc<dyn ExecutionPlan>) -> Arc<dyn ExecutionPlan> + Send + Sync;

impl std::fmt::Debug for BroadcastExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BroadcastExchange")
    }
}

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
    /// What a BROADCAST's build side is wrapped in: a distributed
    /// engine's broadcast exchange ([`TenonJoinRule::with_broadcast_exchange`]).
    broadcast_exchange: Option<BroadcastExchange>,
    /// tenon's decisions for the joins in plan order
    /// ([`crate::hinted_sql`]); applied before `JoinSelection`.
    decisions: Vec<JoinDecision>,
}

impl TenonJoinRule {
    /// The rule keeping DataFusion's choice of strategy for each join.
    pub fn new() -> Self {
        TenonJoinRule::default()
    }

    /// The rule running every equi-join as `strategy` where its join type
    /// allows (a BROADCAST builds the side the join type does not
    /// preserve; a FULL join falls back to SHUFFLE_HASH; NEST_LOOP tests
    /// the keys with the rest of the condition). Joins without keys stay
    /// NEST_LOOP.
    pub fn with_strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// The strategy asked for every equi-join, if any.
    pub fn strategy(&self) -> Option<Strategy> {
        self.strategy
    }

    /// The rule applying tenon's `decisions`, in the order DataFusion
    /// plans the joins (inputs first, left before right): a decision
    /// applies to the next join whose key columns are its keys; the
    /// others keep DataFusion's choice (module `hinted`).
    pub fn with_decisions(mut self, decisions: Vec<JoinDecision>) -> Self {
        self.decisions = decisions;
        self
    }

    /// The decisions it applies.
    pub fn decisions(&self) -> &[JoinDecision] {
        &self.decisions
    }

    /// The same rule without its decisions (the default for the joins
    /// no decision matched).
    pub(crate) fn without_decisions(&self) -> Self {
        TenonJoinRule {
            decisions: Vec::new(),
            ..self.clone()
        }
    }

    /// The rule wrapping every BROADCAST's build side in `exchange`: a
    /// distributed engine splits a scan into tasks, so a join that asks
    /// for its build side as one partition would get one task's share of
    /// it; the engine's broadcast exchange ships all of it to every task
    /// instead.
    pub fn with_broadcast_exchange(mut self, exchange: BroadcastExchange) -> Self {
        self.broadcast_exchange = Some(exchange);
        self
    }

    /// Whether it has a broadcast exchange
    /// ([`TenonJoinRule::with_broadcast_exchange`]).
    pub fn has_broadcast_exchange(&self) -> bool {
        self.broadcast_exchange.is_some()
    }

    /// `plan` (a join this rule made) with its broadcast side in the
    /// broadcast exchange, when the rule has one.
    fn with_exchange(&self, plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        let (Some(exchange), Some(join)) = (
            &self.broadcast_exchange,
            plan.downcast_ref::<TenonJoinExec>(),
        ) else {
            return Ok(plan);
        };
        let side = match (join.strategy(), join.build_side()) {
            (Strategy::Broadcast, Some(JoinSide::Left)) => 0,
            (Strategy::Broadcast, Some(JoinSide::Right)) => 1,
            _ => return Ok(plan),
        };
        let mut children: Vec<Arc<dyn ExecutionPlan>> =
            plan.children().into_iter().cloned().collect();
        children[side] = (exchange.0)(Arc::clone(&children[side]));
        #[allow(deprecated)] // TenonJoinExec implements the deprecated method
        plan.with_new_children(children)
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
            // DataFusion's broadcast of a side the join type outputs
            // (CollectLeft of a left semi or anti join: the small side):
            // tenon's broadcast may not build it, and broadcasting the other
            // (large) side instead would copy it to every task; shuffling
            // both sides by key builds the small side.
            Strategy::Broadcast
                if self.strategy.is_none()
                    && broadcast_side(join_type, preferred) != Some(preferred) =>
            {
                (Strategy::ShuffleHash, Some(preferred))
            }
            Strategy::Broadcast => match broadcast_side(join_type, preferred) {
                Some(side) => (Strategy::Broadcast, Some(side)),
                None => (Strategy::ShuffleHash, Some(preferred)),
            },
            Strategy::ShuffleHash => (strategy, Some(preferred)),
            Strategy::ShuffleMerge => (strategy, None),
            // the keys are tested with the rest of the condition
            Strategy::NestLoop => (Strategy::NestLoop, None),
        }
    }

    /// `plan` as decided by `decision`, when it is a join with the
    /// decision's keys (`Ok(None)`: it is not).
    ///
    /// # Errors
    ///
    /// The decision's strategy cannot run this join (a plan error naming
    /// the decision and why: a hint is never dropped silently).
    fn decided(
        plan: &Arc<dyn ExecutionPlan>,
        decision: &JoinDecision,
    ) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        let names = |on: &[(PhysicalExprRef, PhysicalExprRef)]| -> Option<Vec<(String, String)>> {
            on.iter()
                .map(|(l, r)| {
                    let n = |e: &PhysicalExprRef| {
                        e.downcast_ref::<Column>().map(|c| c.name().to_string())
                    };
                    Some((n(l)?, n(r)?))
                })
                .collect()
        };
        let (left, right, on, filter, join_type, null_equal) =
            if let Some(h) = plan.downcast_ref::<HashJoinExec>() {
                // NOT IN's null-aware anti join: no decision applies (it runs
                // as a broadcast of its right side, the default below)
                if h.projection.is_some() || h.null_aware {
                    return Ok(None);
                }
                (
                    h.left(),
                    h.right(),
                    h.on().to_vec(),
                    h.filter().cloned(),
                    *h.join_type(),
                    h.null_equality(),
                )
            } else if let Some(m) = plan.downcast_ref::<SortMergeJoinExec>() {
                (
                    m.left(),
                    m.right(),
                    m.on().to_vec(),
                    m.filter().clone(),
                    m.join_type(),
                    m.null_equality(),
                )
            } else if let Some(n) = plan.downcast_ref::<NestedLoopJoinExec>() {
                if n.projection().is_some() {
                    return Ok(None);
                }
                (
                    n.left(),
                    n.right(),
                    Vec::new(),
                    n.filter().cloned(),
                    *n.join_type(),
                    NullEquality::NullEqualsNothing,
                )
            } else {
                return Ok(None);
            };
        if names(&on).as_ref() != Some(&decision.keys) {
            return Ok(None);
        }
        TenonJoinExec::try_new(
            Arc::clone(left),
            Arc::clone(right),
            on,
            filter,
            &join_type,
            null_equal == NullEquality::NullEqualsNull,
            decision.strategy,
            decision.build_side,
        )
        .map(|j| Some(Arc::new(j) as Arc<dyn ExecutionPlan>))
        .map_err(|e| {
            DataFusionError::Plan(format!(
                "tenon decided {} for the join on {:?} ({}), which DataFusion's plan of it cannot run: {e}",
                decision.strategy, decision.keys, decision.reason
            ))
        })
    }

    fn is_join(plan: &Arc<dyn ExecutionPlan>) -> bool {
        plan.is::<HashJoinExec>()
            || plan.is::<SortMergeJoinExec>()
            || plan.is::<NestedLoopJoinExec>()
    }

    fn replace(&self, plan: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        if let Some(h) = plan.downcast_ref::<HashJoinExec>() {
            let Some(t) = kernel_join_type(h.join_type()) else {
                return Ok(None);
            };
            if h.projection.is_some() {
                return Ok(None);
            }
            // NOT IN's null-aware anti join (a NULL on the right removes
            // every row): a broadcast of the right side
            if h.null_aware {
                if h.filter().is_some() {
                    return Ok(None);
                }
                return Ok(TenonJoinExec::try_new_not_in(
                    Arc::clone(h.left()),
                    Arc::clone(h.right()),
                    h.on().to_vec(),
                )
                .ok()
                .map(|j| Arc::new(j) as Arc<dyn ExecutionPlan>));
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
        if !self.decisions.is_empty() {
            // tenon's decisions, in plan order: each physical join takes
            // the next decision with its keys; a hinted decision passed
            // over, or left when the plan is done, is an error
            let mut next = 0;
            let passed_hint = |d: &JoinDecision| {
                DataFusionError::Plan(format!(
                    "tenon decided {} for the join on {:?} ({}), and DataFusion's plan has no \
                     such join where tenon planned it",
                    d.strategy, d.keys, d.reason
                ))
            };
            let plan = plan
                .transform_up(|node| {
                    if !Self::is_join(&node) {
                        return Ok(Transformed::no(node));
                    }
                    let from = next;
                    for at in from..self.decisions.len() {
                        if let Some(new) = Self::decided(&node, &self.decisions[at])? {
                            if let Some(d) = self.decisions[from..at].iter().find(|d| d.hinted) {
                                return Err(passed_hint(d));
                            }
                            next = at + 1;
                            return Ok(Transformed::yes(self.with_exchange(new)?));
                        }
                    }
                    Ok(Transformed::no(node))
                })
                .map(|t| t.data)?;
            if let Some(d) = self.decisions[next..].iter().find(|d| d.hinted) {
                return Err(passed_hint(d));
            }
            return Ok(plan);
        }
        plan.transform_up(|node| {
            Ok(match self.replace(&node)? {
                Some(new) => Transformed::yes(self.with_exchange(new)?),
                None => Transformed::no(node),
            })
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        if self.decisions.is_empty() {
            "TenonJoins"
        } else {
            "TenonJoinDecisions"
        }
    }

    fn schema_check(&self) -> bool {
        true
    }
}

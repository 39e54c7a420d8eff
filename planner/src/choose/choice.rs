//! What runs for one join: the part of a decision that lowering and the
//! executor read, and the decision for the joins that belong to no query
//! block.
//!
//! [`JoinChoice`] is what [`Operator::Join`](crate::exec::Operator::Join)
//! carries: the strategy (kernel and hash mode), the build side, where the
//! decision came from and why, the text EXPLAIN prints, and which run-time
//! adaptation the executor may make.
//!
//! # Run-time adaptation
//!
//! Everything is decided here, before execution, on size *estimates*. The
//! executor may change the decision only where the choice allows it
//! ([`JoinChoice::adaptive_build_side`]): the build side of a hash join
//! whose strategy the default chose (not a hint), once both inputs' real
//! sizes are known. (Its other adaptation, skipping a probe side that
//! cannot match, changes no decision: the join runs as decided on an empty
//! probe side.) Both are steps of `exec/adapt.rs`; EXPLAIN ANALYZE shows
//! them where they happened
//! ([`OperatorMetrics::adapted`](crate::exec::OperatorMetrics::adapted)).

use datafusion_expr::Join;

use super::{PlannedJoin, kernel_join_type, key_texts};
use crate::config::Config;
use crate::hints::DecisionSource;
use crate::sql::{PlanPath, SqlError};
use tenon_kernels::{JoinSide, JoinType, Strategy};

/// The strategy, build side and reason of one join, as the physical plan
/// carries it ([`Operator::Join`](crate::exec::Operator::Join)).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use tenon_planner::choose::{JoinChoice, plan_joins};
/// use tenon_planner::config::Config;
/// use tenon_kernels::{JoinSide, Strategy};
/// use tenon_planner::sql::Catalog;
///
/// let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
/// let mut catalog = Catalog::new();
/// catalog.register_table("t1", schema.clone());
/// catalog.register_table("t2", schema);
/// let sql = "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id";
/// let plan = plan_joins(sql, &catalog, &Config::default())?;
/// let choice = JoinChoice::from(&plan.joins[0]);
/// assert_eq!(choice.strategy, Strategy::ShuffleHash);
/// assert_eq!(choice.build_side, Some(JoinSide::Left));
/// // a hint decided it: the executor keeps the build side it names
/// assert!(!choice.adaptive_build_side);
/// # Ok::<(), tenon_planner::choose::PlanError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinChoice {
    /// The kernel that runs the join ([`JoinKind::of`]).
    pub kernel: JoinKind,
    /// The strategy: for a regular join, its kernel and a hash join's
    /// mode; for a time join, the as-of kernel's mode (H53).
    pub strategy: Strategy,
    /// The join type (NOT IN: [`JoinType::LeftAntiNullAware`]).
    pub join_type: JoinType,
    /// The build (broadcast, hash table, inner loop) side; `None` for
    /// SHUFFLE_MERGE.
    pub build_side: Option<JoinSide>,
    /// A hint or the default.
    pub source: DecisionSource,
    /// Why this strategy (EXPLAIN's reason).
    pub reason: String,
    /// Whether the executor may build the other input instead, once both
    /// inputs' sizes are known: exactly for BROADCAST and SHUFFLE_HASH
    /// joins the default chose ([`allows_adaptive_build_side`]).
    pub adaptive_build_side: bool,
    /// The build side's name, for EXPLAIN (`None`: a join subtree, or no
    /// build side).
    pub build: Option<String>,
    /// The equi keys as text, for EXPLAIN.
    pub keys: Vec<String>,
    /// The rest of the join condition as text, for EXPLAIN.
    pub filter: Option<String>,
    /// What a temporal or as-of join does, for EXPLAIN.
    pub time_join: Option<String>,
    /// For a lookup join: how its requests run (its `LOOKUP` hint over the
    /// session's defaults; `None`: the defaults).
    pub lookup: Option<crate::lookup::LookupOptions>,
}

/// Which kernel runs a join: what lowering builds for a [`JoinChoice`].
///
/// ```
/// use tenon_planner::choose::JoinKind;
/// use tenon_kernels::Strategy;
///
/// assert_eq!(JoinKind::of(Strategy::Broadcast, false), JoinKind::Hash);
/// assert_eq!(JoinKind::of(Strategy::ShuffleMerge, false), JoinKind::SortMerge);
/// // a temporal or as-of join runs on the as-of kernel in either mode
/// assert_eq!(JoinKind::of(Strategy::ShuffleMerge, true), JoinKind::Asof);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    /// `HashJoin` (BROADCAST, SHUFFLE_HASH).
    Hash,
    /// `SortMergeJoin` (SHUFFLE_MERGE).
    SortMerge,
    /// `NestedLoopJoin` (NEST_LOOP).
    NestedLoop,
    /// `AsofJoin`: temporal and as-of joins, broadcast or partitioned.
    Asof,
}

impl JoinKind {
    /// The kernel of a join decided as `strategy`; `time_join` for a
    /// temporal or as-of join.
    pub fn of(strategy: Strategy, time_join: bool) -> JoinKind {
        match (time_join, strategy) {
            (true, _) => JoinKind::Asof,
            (false, Strategy::Broadcast | Strategy::ShuffleHash) => JoinKind::Hash,
            (false, Strategy::ShuffleMerge) => JoinKind::SortMerge,
            (false, Strategy::NestLoop) => JoinKind::NestedLoop,
        }
    }
}

impl From<&PlannedJoin> for JoinChoice {
    fn from(join: &PlannedJoin) -> Self {
        JoinChoice {
            kernel: JoinKind::of(join.strategy, join.time_join.is_some()),
            strategy: join.strategy,
            join_type: join.join_type,
            build_side: join.build_side,
            source: join.source.clone(),
            reason: join.reason.clone(),
            adaptive_build_side: join.adaptive_build_side,
            build: join.build.clone(),
            keys: join.keys.clone(),
            filter: join.filter.clone(),
            time_join: join.time_join.clone(),
            lookup: join.lookup,
        }
    }
}

/// Whether a decision lets the executor change the build side at run time:
/// a hash join (BROADCAST or SHUFFLE_HASH, either of which can build either
/// side, a BROADCAST of an outer join then running as SHUFFLE_HASH: H13,
/// H15) whose strategy the default chose from estimates. A hint's build
/// side is kept as written.
pub fn allows_adaptive_build_side(source: &DecisionSource, strategy: Strategy) -> bool {
    *source == DecisionSource::Default
        && matches!(strategy, Strategy::ShuffleHash | Strategy::Broadcast)
}

/// The decision for a join that belongs to no query block: the joins
/// DataFusion makes of INTERSECT and EXCEPT. They take no hints; the
/// strategy is the first of SHUFFLE_HASH, BROADCAST, SHUFFLE_MERGE that is
/// not disabled (NEST_LOOP without keys or when all are), building the
/// right input.
pub(super) fn set_operation_join(
    join: &Join,
    path: PlanPath,
    config: &Config,
) -> Result<PlannedJoin, SqlError> {
    let disabled = &config.disabled_strategies;
    let strategy = if join.on.is_empty() {
        Strategy::NestLoop
    } else {
        [
            Strategy::ShuffleHash,
            Strategy::Broadcast,
            Strategy::ShuffleMerge,
        ]
        .into_iter()
        .find(|s| !disabled.contains(s))
        .unwrap_or(Strategy::NestLoop)
    };
    let source = DecisionSource::Default;
    Ok(PlannedJoin {
        block: usize::MAX,
        path,
        strategy,
        join_type: kernel_join_type(join)?,
        build_side: (strategy != Strategy::ShuffleMerge).then_some(JoinSide::Right),
        build: None,
        left: None,
        right: None,
        keys: key_texts(join),
        filter: join
            .filter
            .as_ref()
            .map(|f| crate::expr::readable_intervals(&f.to_string())),
        time_join: None,
        lookup: None,
        reason: format!("a set operation's join (INTERSECT / EXCEPT) takes no hints: {strategy}"),
        adaptive_build_side: allows_adaptive_build_side(&source, strategy),
        source,
        ignored_hints: Vec::new(),
        estimates: super::JoinEstimates::default(),
        multi_join: None,
    })
}

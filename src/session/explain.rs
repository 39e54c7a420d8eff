//! EXPLAIN as tenon's own serializable types: [`Explain::report`] gives a
//! [`PlanReport`] that a program can inspect, or serialize with serde
//! (`serde_json::to_string(&report)`), without the planner's types.

use serde::Serialize;
use tenon_kernels::JoinSide;
use tenon_planner::choose::PlannedJoin;
use tenon_planner::exec::RuntimeFilterInfo;
use tenon_planner::hints::DecisionSource;

use super::output::Explain;

/// A query's plan: each join's decision, the runtime join filters and the
/// operator tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanReport {
    /// Every join, in docs/cli.md's order (innermost first, in FROM order).
    pub joins: Vec<JoinReport>,
    /// Every runtime join filter, in the order of their names (`rf1`,
    /// `rf2`, ...).
    pub runtime_filters: Vec<RuntimeFilterReport>,
    /// The operator tree, one operator per line (with each operator's
    /// figures after EXPLAIN ANALYZE).
    pub tree: String,
}

/// The decision for one join.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JoinReport {
    /// The query block the join belongs to.
    pub block: usize,
    /// The strategy: `BROADCAST`, `SHUFFLE_HASH`, `SHUFFLE_MERGE` or
    /// `NEST_LOOP`; `MULTI_JOIN` for a join a MULTI_JOIN group's
    /// multi-way join runs (docs/hints.md H50).
    pub strategy: String,
    /// The join type as SQL writes it, e.g. `LEFT`, `LEFT SEMI`.
    pub join_type: String,
    /// Which input is built on: `left`, `right`, or `None` (SHUFFLE_MERGE).
    pub build_side: Option<String>,
    /// The build side's table, view or alias name, when it has one.
    pub build: Option<String>,
    /// The left input's name, when it has one.
    pub left: Option<String>,
    /// The right input's name, when it has one.
    pub right: Option<String>,
    /// The equality keys, e.g. `a.k = b.k`.
    pub keys: Vec<String>,
    /// The rest of the join condition.
    pub filter: Option<String>,
    /// For a temporal or as-of join, what it does (docs/time.md), e.g.
    /// `as-of join MATCH_CONDITION (t.ts >= q.ts): ...`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_join: Option<String>,
    /// Why this strategy, e.g. `hint BROADCAST(b) applied`.
    pub reason: String,
    /// Whether a hint decided (`true`) or the default choice.
    pub hinted: bool,
    /// Hints that named an input of this join but did not decide it, each
    /// with why, e.g. `hint BROADCAST(b) ignored: ...`.
    pub ignored_hints: Vec<String>,
}

/// A runtime join filter: made by a hash join from its complete build
/// side's keys, tested by operators below its probe side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeFilterReport {
    /// `rf1`, `rf2`, ... (as the operator tree names it).
    pub name: String,
    /// The join type of the join that makes it, as in [`JoinReport`].
    pub join_type: String,
    /// That join's equality keys, as in [`JoinReport`].
    pub join_keys: Vec<String>,
    /// That join's build side's name, when it has one.
    pub build: Option<String>,
    /// The probe input's key column it tests.
    pub column: String,
    /// The operators that test it, e.g. `Scan lineitem`.
    pub applied_at: Vec<String>,
}

impl From<&RuntimeFilterInfo> for RuntimeFilterReport {
    fn from(i: &RuntimeFilterInfo) -> Self {
        RuntimeFilterReport {
            name: i.name.clone(),
            join_type: i.join_type.clone(),
            join_keys: i.join_keys.clone(),
            build: i.build.clone(),
            column: i.column.clone(),
            applied_at: i.applied_at.clone(),
        }
    }
}

impl From<&PlannedJoin> for JoinReport {
    fn from(j: &PlannedJoin) -> Self {
        JoinReport {
            block: j.block,
            strategy: match j.multi_join {
                Some(_) => "MULTI_JOIN".to_string(),
                None => j.strategy.name().to_string(),
            },
            join_type: j.join_type.to_string(),
            build_side: j.build_side.map(|s| {
                match s {
                    JoinSide::Left => "left",
                    JoinSide::Right => "right",
                }
                .to_string()
            }),
            build: j.build.clone(),
            left: j.left.clone(),
            right: j.right.clone(),
            keys: j.keys.clone(),
            filter: j.filter.clone(),
            time_join: j.time_join.clone(),
            reason: match &j.multi_join {
                Some(m) => format!("hint {m} applied: one multi-way join on the common key"),
                None => j.reason.clone(),
            },
            hinted: j.multi_join.is_some() || matches!(j.source, DecisionSource::Hint(_)),
            ignored_hints: j.ignored_hints.iter().map(|h| h.to_string()).collect(),
        }
    }
}

impl Explain {
    /// The plan as tenon's own serializable types.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Int64Array, RecordBatch};
    /// use tenon::{Config, Session};
    ///
    /// let mut session = Session::new(Config::default())?;
    /// let t = RecordBatch::try_from_iter([("k", Arc::new(Int64Array::from(vec![1, 2])) as _)])?;
    /// session.register_batch("a", t.clone())?;
    /// session.register_batch("b", t)?;
    /// let report = session
    ///     .explain("SELECT /*+ BROADCAST(b) */ count(*) FROM a JOIN b ON a.k = b.k")?
    ///     .report();
    /// assert_eq!(report.joins[0].strategy, "BROADCAST");
    /// assert!(report.joins[0].hinted);
    /// let json = serde_json::to_string(&report)?;
    /// assert!(json.contains(r#""build":"b""#), "{json}");
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    pub fn report(&self) -> PlanReport {
        PlanReport {
            joins: self.joins.iter().map(JoinReport::from).collect(),
            runtime_filters: self
                .runtime_filters
                .iter()
                .map(RuntimeFilterReport::from)
                .collect(),
            tree: self.tree().to_string(),
        }
    }
}

//! From SQL to a decision for every join (docs/hints.md §1–§4, docs/cli.md
//! `--explain --format json`), without running anything yet.
//!
//! This module is the one place that decides what runs before execution:
//! the strategy and build side of every join, by its block's hints or the
//! default choice (`crate::hints`), and of the joins that belong to no
//! block (INTERSECT, EXCEPT: `choice.rs`). Lowering reads the decisions
//! (and places runtime join filters from them, `exec/runtime_filter.rs`);
//! the executor may adapt a decision only in the named steps of
//! `exec/adapt.rs`, where the plan allows them
//! ([`JoinChoice::adaptive_build_side`]).
//!
//! ```text
//! SQL ──plan_sql──► PlannedQuery { plan, blocks, unattached_hints }
//!     ──per block: parse its RawHintBlocks (positions kept) ──► [Hint]     block_hints.rs
//!     ──per block: JoinRefs + Join nodes + Catalog stats ──► BlockJoins    sites.rs
//!     ──resolve_block (Config as ResolveConfig)──► decisions
//!     ──order: blocks in post-order of their nesting, joins bottom-up──► JoinPlan::joins
//!     ──every Join node numbered with its decision──► JoinPlan::query      join_numbers.rs
//! ```
//!
//! # Choices made here
//!
//! - **Hint comments** come from the SQL front end, which finds them with
//!   the one tokenizer of hint comments and claims each for a `SELECT` or a
//!   table name ([`RawHintBlock`](crate::sql::RawHintBlock)); [`HintComment::parse`](crate::hints::HintComment::parse) checks that each
//!   hint fits its place (OPTIONS after a table, other hints after SELECT).
//! - **Unattached hint comments** (neither after `SELECT` nor after a table
//!   name) are errors ([`HintError::Misplaced`], with line and column).
//! - **Table hints** (`t /*+ OPTIONS(..) */`) are parsed, checked for
//!   placement and form (`'key' = 'value'` pairs, after a table: not after
//!   a view or a WITH query), and merged per scan (H25) into
//!   [`JoinPlan::scan_options`]. Which keys a table takes depends on where
//!   its rows come from, which the planner does not know: the session
//!   checks the keys and values (H41) and applies them (H40).
//! - **Join order** (docs/cli.md): blocks in post-order of their syntactic
//!   nesting (a subquery's or CTE's joins before those of the block that
//!   uses it, sibling blocks such as UNION branches in source order; a
//!   view's joins right before those of the block that reads it: the front
//!   end's [`PlannedQuery::block_order`]); within a block, joins bottom-up
//!   in FROM order. [`JoinSite::id`](crate::hints::JoinSite::id) and the "join N" of error messages are
//!   the join's index in [`JoinPlan::joins`].
//! - **Decisions on the plan.** Each `LogicalPlan::Join` of
//!   [`JoinPlan::query`] carries the number of its decision
//!   (`join_numbers.rs`), so lowering finds it from the node, whatever
//!   order it walks in. The front end's [`PlanPath`]s are read only here,
//!   to find each block's join nodes.
//! - **Semi/anti joins from `IN` / `NOT IN`** take no join hints (H14):
//!   they are recognised by the front end's subquery alias prefix
//!   (`__sq_`); their subquery side has no name (`null`), but keeps the
//!   size estimate of the table it reads, if it is one.
//! - **Size estimates** come from the catalog's [`TableStats`](crate::sql::TableStats) for tables,
//!   and through filters, projections, aggregates and joins by the simple
//!   rules of `estimate.rs` (a filter keeps a quarter, a join as many rows
//!   as its larger input). With only rows or only bytes known for a table,
//!   the other is derived from the schema's row width (fixed widths, 16
//!   bytes for variable-width columns).
//! - **Sorted inputs** (H15): an input is sorted on the join keys when it
//!   is a table (or alias) whose [`TableStats::sorted_on`](crate::sql::TableStats::sorted_on) starts with the
//!   join's key columns on that side, in order.

mod block_hints;
mod choice;
mod estimate;
mod explain;
mod join_numbers;
mod lookup_choice;
mod lookup_hints;
mod multi_join;
pub use multi_join::MultiJoinGroup;
mod selectivity;
mod sites;
mod state_ttl;

pub use choice::{JoinChoice, JoinKind, allows_adaptive_build_side};
pub(crate) use join_numbers::decision_number;

pub(crate) use sites::kernel_join_type;

use block_hints::{block_scan_options, parse_raw};
use choice::set_operation_join;
pub(crate) use estimate::Estimator;
use join_numbers::number_joins;
use sites::{describe_block, key_texts};

use std::collections::HashMap;

use datafusion_common::tree_node::TreeNodeRecursion;
use datafusion_common::{TableReference, plan_err};
use datafusion_expr::{Join, LogicalPlan};

use crate::config::Config;
use crate::hints::{
    DecisionSource, HintError, HintPlacement, IgnoreReason, IgnoredHint, Position, SizeEstimate,
    resolve_block,
};
use crate::sql::{
    Catalog, PlanPath, PlannedQuery, SqlError, node_at, plan_sql_with, replace_node_at,
};
use tenon_kernels::{JoinSide, JoinType, Strategy};

/// Everything that can go wrong between SQL text and a [`JoinPlan`].
///
/// Both variants display as their inner error, so syntax errors keep
/// their line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The SQL does not parse or plan (including two hint blocks, H04).
    #[error(transparent)]
    Sql(#[from] SqlError),
    /// A hint does not parse, is misplaced, or cannot be resolved.
    #[error(transparent)]
    Hint(#[from] HintError),
}

impl PlanError {
    /// The line and column (1-based) of the problem in the SQL text, when
    /// the error has one place.
    pub fn position(&self) -> Option<Position> {
        match self {
            PlanError::Sql(SqlError::Syntax { line, column, .. }) if *line > 0 => {
                Some(Position::new(*line, *column))
            }
            PlanError::Sql(_) => None,
            PlanError::Hint(e) => e.position(),
        }
    }
}

/// The size estimates a join's decision was made with (none for an input
/// or output nothing could be estimated for: a VALUES list, a table
/// without statistics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JoinEstimates {
    /// The left input's rows and bytes (of the columns the query reads).
    pub left: Option<SizeEstimate>,
    /// The right input's.
    pub right: Option<SizeEstimate>,
    /// The join's output.
    pub output: Option<SizeEstimate>,
}

/// The decision for one join of the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedJoin {
    /// The query block the join belongs to ([`QueryBlock::id`]).
    pub block: usize,
    /// Where the join is in [`JoinPlan::query`]'s plan.
    pub path: PlanPath,
    /// The strategy chosen.
    pub strategy: Strategy,
    /// The join type (NOT IN: [`JoinType::LeftAntiNullAware`]).
    pub join_type: JoinType,
    /// The build (broadcast, hash table, inner loop) side; `None` for
    /// SHUFFLE_MERGE.
    pub build_side: Option<JoinSide>,
    /// The build side's table, view or alias name; `None` when it is a
    /// join subtree or the strategy has no build side.
    pub build: Option<String>,
    /// The left input's name (`None`: a join subtree or unnamed input).
    pub left: Option<String>,
    /// The right input's name.
    pub right: Option<String>,
    /// The equi keys as text, e.g. `t1.id = t2.id` (`IS NOT DISTINCT
    /// FROM` for null-equal keys).
    pub keys: Vec<String>,
    /// The rest of the join condition, as text.
    pub filter: Option<String>,
    /// For a temporal or as-of join, what it does (its clause and
    /// semantics, docs/time.md).
    pub time_join: Option<String>,
    /// For a lookup join: its `LOOKUP` hint's options over the session's
    /// defaults (`None`: no hint names it).
    pub lookup: Option<crate::lookup::LookupOptions>,
    /// Why this strategy: `hint BROADCAST(t1) applied` or the default's
    /// reason.
    pub reason: String,
    /// A hint or the default.
    pub source: DecisionSource,
    /// Whether the executor may build the other input once both inputs'
    /// sizes are known ([`allows_adaptive_build_side`]).
    pub adaptive_build_side: bool,
    /// Hints that named an input of this join but did not decide it.
    pub ignored_hints: Vec<IgnoredHint>,
    /// The size estimates the decision was made with (EXPLAIN shows
    /// them).
    pub estimates: JoinEstimates,
    /// The MULTI_JOIN hint whose multi-way join runs this join (with the
    /// others of its group, [`JoinPlan::multi_joins`]); the strategy and
    /// build side above are then not used.
    pub multi_join: Option<String>,
}

/// A join hint of a block that applied to no join of that block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusedHint {
    /// The block whose hint it is.
    pub block: usize,
    /// The hint and why.
    pub hint: IgnoredHint,
}

/// The dynamic table options of one table scan
/// (`t /*+ OPTIONS('k'='v') */`, docs/hints.md H06, H40), merged by H25.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOptions {
    /// The query block of the scan.
    pub block: usize,
    /// Where the `LogicalPlan::TableScan` is in [`JoinPlan::query`]'s plan.
    pub path: PlanPath,
    /// The table scanned.
    pub table: String,
    /// Its alias in the block, if any.
    pub alias: Option<String>,
    /// The options, each key once: within one OPTIONS hint the last value
    /// of a key wins, across hints the first (H25); in written order.
    pub options: Vec<(String, String)>,
    /// Where the first OPTIONS hint is (for messages).
    pub position: Position,
}

/// A decision for every join of a query, in docs/cli.md's order.
#[derive(Debug, Clone)]
pub struct JoinPlan {
    /// Every join: innermost first, in FROM order; joins of subqueries
    /// (and CTEs, and views) before those of the block that uses them.
    pub joins: Vec<PlannedJoin>,
    /// Join hints that matched no join of their block (lenient mode).
    pub unused_hints: Vec<UnusedHint>,
    /// The joins DataFusion makes of `INTERSECT` and `EXCEPT`, which
    /// belong to no query block and take no hints, in plan order (inputs
    /// first). EXPLAIN's list of joins leaves them out; the operator tree
    /// shows them. Their [`PlannedJoin::block`] is `usize::MAX`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_schema::{DataType, Field, Schema};
    /// use tenon_planner::choose::plan_joins;
    /// use tenon_planner::config::Config;
    /// use tenon_kernels::{JoinSide, Strategy};
    /// use tenon_planner::sql::Catalog;
    ///
    /// let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    /// let mut catalog = Catalog::new();
    /// catalog.register_table("t1", schema.clone());
    /// catalog.register_table("t2", schema);
    /// let sql = "SELECT id FROM t1 INTERSECT SELECT id FROM t2";
    /// let plan = plan_joins(sql, &catalog, &Config::default())?;
    /// assert!(plan.joins.is_empty());
    /// let join = &plan.set_operation_joins[0];
    /// assert_eq!((join.strategy, join.build_side), (Strategy::ShuffleHash, Some(JoinSide::Right)));
    /// # Ok::<(), tenon_planner::choose::PlanError>(())
    /// ```
    pub set_operation_joins: Vec<PlannedJoin>,
    /// The MULTI_JOIN groups that run as one multi-way join each
    /// (docs/hints.md H50).
    pub multi_joins: Vec<MultiJoinGroup>,
    /// Every scan with OPTIONS, in block order, scans of a block in plan
    /// order.
    pub scan_options: Vec<ScanOptions>,
    /// The planned query the decisions refer to; each of its joins carries
    /// the number of its decision (`join_numbers.rs`).
    pub query: PlannedQuery,
}

/// Plans `sql` against `catalog` and decides a strategy and build side for
/// each of its joins, by its block's hints or by the default choice.
///
/// # Errors
///
/// - [`PlanError::Sql`]: the SQL does not parse or plan (line and column
///   for syntax errors, two hint blocks after one SELECT);
/// - [`PlanError::Hint`]: a malformed hint or unknown hint name (line and
///   column), a misplaced hint, a join hint naming tables that are not
///   inputs of its block or naming an aliased table by its table name, an
///   ambiguous name, every runnable strategy disabled, (strict mode) an
///   inapplicable hint, or OPTIONS without `'key' = 'value'` pairs or
///   after a name that is not a table ([`HintError::TableHint`]; the keys
///   themselves are the caller's to check, see [`JoinPlan::scan_options`]).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use tenon_planner::choose::plan_joins;
/// use tenon_planner::config::Config;
/// use tenon_kernels::Strategy;
/// use tenon_planner::sql::Catalog;
///
/// let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
/// let mut catalog = Catalog::new();
/// catalog.register_table("t1", schema.clone());
/// catalog.register_table("t2", schema);
/// let plan = plan_joins(
///     "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
///     &catalog,
///     &Config::default(),
/// )
/// .unwrap();
/// assert_eq!(plan.joins[0].strategy, Strategy::Broadcast);
/// assert_eq!(plan.joins[0].build.as_deref(), Some("t1"));
/// assert_eq!(
///     plan.to_json(),
///     r#"{"joins": [{"strategy": "BROADCAST", "join_type": "INNER", "build": "t1", "left": "t1", "right": "t2", "keys": ["t1.id = t2.id"], "reason": "hint BROADCAST(t1) applied", "estimates": {"left": null, "right": null, "output": null}, "ignored_hints": []}]}"#
/// );
/// ```
pub fn plan_joins(sql: &str, catalog: &Catalog, config: &Config) -> Result<JoinPlan, PlanError> {
    let query = plan_sql_with(catalog, sql, config.join_reorder)?;
    if let Some(raw) = query.unattached_hints.first() {
        parse_raw(raw, HintPlacement::Elsewhere)?;
    }
    let mut scan_options = Vec::new();
    for &b in &query.block_order {
        if let Some(block) = query.blocks.get(b) {
            scan_options.extend(block_scan_options(block)?);
        }
    }
    let order = join_order(&query);
    let resolve_config = config.resolve_config();
    let estimator = Estimator::new(&query.plan, catalog);
    let shared = if config.shared_subplans {
        crate::exec::shared::repeated_aggregates(&query.plan)
    } else {
        Default::default()
    };
    let mut slots: Vec<Option<PlannedJoin>> = vec![None; order.len()];
    let mut unused_hints = Vec::new();
    let mut multi_joins = Vec::new();
    for block in &query.blocks {
        let global_id = |j: usize| order.iter().position(|&x| x == (block.id, j)).unwrap_or(0);
        let decided = describe_block(block, &query.plan, &global_id, catalog, &estimator, &shared)?;
        block_hints::check_hints_name_no_expansion(block, &decided.hints)?;
        let resolution = resolve_block(&decided.joins, &decided.hints, &resolve_config)?;
        let mut planned: Vec<PlannedJoin> = resolution
            .joins
            .into_iter()
            .enumerate()
            .map(|(j, decision)| decided.planned(j, decision))
            .collect();
        state_ttl::check_state_ttl_hints(&decided, &mut unused_hints, block.id)?;
        lookup_hints::apply_lookup_hints(
            &decided,
            &mut planned.iter_mut().collect::<Vec<_>>(),
            (config, catalog),
            &mut unused_hints,
            block.id,
        )?;
        let global = |j: usize| decided.joins.joins[j].id;
        multi_joins.extend(multi_join::check_multi_join_hints(
            &decided,
            config,
            &mut planned,
            &global,
            &mut unused_hints,
            block.id,
        )?);
        for (j, p) in planned.into_iter().enumerate() {
            slots[decided.joins.joins[j].id] = Some(p);
        }
        unused_hints.extend(resolution.unused.into_iter().map(|hint| UnusedHint {
            block: block.id,
            hint,
        }));
    }
    let joins: Vec<PlannedJoin> = slots.into_iter().flatten().collect();
    let (query, set_operation_joins) = number_decisions(query, &joins, config)?;
    Ok(JoinPlan {
        joins,
        set_operation_joins,
        multi_joins,
        unused_hints,
        scan_options,
        query,
    })
}

/// A hint of block `block` that cannot be applied as written (`reason`):
/// an error in strict mode (H17), else listed in `unused` with its reason
/// (lenient).
fn ignore_hint(
    config: &Config,
    unused: &mut Vec<UnusedHint>,
    block: usize,
    hint: String,
    reason: IgnoreReason,
) -> Result<(), HintError> {
    if config.hint_mode == crate::hints::HintMode::Strict {
        return Err(HintError::StrictHint {
            hint,
            join: None,
            reason: reason.to_string(),
        });
    }
    unused.push(UnusedHint {
        block,
        hint: IgnoredHint { hint, reason },
    });
    Ok(())
}

/// The global order of the joins (docs/cli.md): blocks in post-order of their
/// nesting, each block's joins bottom-up; `(block, join of the block)`.
fn join_order(query: &PlannedQuery) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = query
        .block_order
        .iter()
        .filter(|&&b| b < query.blocks.len())
        .flat_map(|&b| (0..query.blocks[b].joins.len()).map(move |j| (b, j)))
        .collect();
    // defensive: a block missing from the order goes last
    for block in &query.blocks {
        if !query.block_order.contains(&block.id) {
            order.extend((0..block.joins.len()).map(|j| (block.id, j)));
        }
    }
    order
}

/// Writes each join's decision number on its node (`join_numbers.rs`):
/// the block joins' numbers are their indices in `joins`; a join of no
/// block (INTERSECT, EXCEPT) is decided here and numbered after them.
fn number_decisions(
    mut query: PlannedQuery,
    joins: &[PlannedJoin],
    config: &Config,
) -> Result<(PlannedQuery, Vec<PlannedJoin>), PlanError> {
    let by_path: HashMap<&PlanPath, usize> = joins
        .iter()
        .enumerate()
        .map(|(i, j)| (&j.path, i))
        .collect();
    let mut set_operation_joins = Vec::new();
    let mut failure = None;
    let plan = std::mem::take(&mut query.plan);
    let numbered = number_joins(plan, &mut |path, join| {
        if let Some(&i) = by_path.get(path) {
            return Ok(i);
        }
        match set_operation_join(join, path.clone(), config) {
            Ok(decision) => {
                set_operation_joins.push(decision);
                Ok(joins.len() + set_operation_joins.len() - 1)
            }
            Err(e) => {
                let message = e.to_string();
                failure = Some(e);
                plan_err!("{message}")
            }
        }
    });
    query.plan = match (numbered, failure) {
        (Ok(plan), _) => plan,
        (Err(_), Some(e)) => return Err(e.into()),
        (Err(e), None) => {
            return Err(SqlError::Plan(format!("internal: numbering the joins: {e}")).into());
        }
    };
    Ok((query, set_operation_joins))
}

impl JoinPlan {
    /// The decision for a join of [`JoinPlan::query`]'s plan, found by the
    /// number the join node carries; `None` for a join that carries none
    /// (one that is not from this plan).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_schema::{DataType, Field, Schema};
    /// use datafusion_expr::LogicalPlan;
    /// use tenon_planner::choose::plan_joins;
    /// use tenon_planner::config::Config;
    /// use tenon_planner::sql::{Catalog, node_at};
    ///
    /// let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    /// let mut catalog = Catalog::new();
    /// catalog.register_table("t1", schema.clone());
    /// catalog.register_table("t2", schema);
    /// let sql = "SELECT /*+ NEST_LOOP(t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id";
    /// let plan = plan_joins(sql, &catalog, &Config::default())?;
    /// let Some(LogicalPlan::Join(join)) = node_at(&plan.query.plan, &plan.joins[0].path) else {
    ///     panic!("no join at the planned join's path");
    /// };
    /// assert_eq!(plan.decision_of(&join), Some(&plan.joins[0]));
    /// # Ok::<(), tenon_planner::choose::PlanError>(())
    /// ```
    pub fn decision_of(&self, join: &Join) -> Option<&PlannedJoin> {
        let n = decision_number(join)?;
        self.joins.get(n).or_else(|| {
            self.set_operation_joins
                .get(n.checked_sub(self.joins.len())?)
        })
    }

    /// The MULTI_JOIN group whose top join is `join` (the group runs as
    /// one multi-way join in its place), found as
    /// [`JoinPlan::decision_of`] finds a decision.
    pub fn multi_join_of(&self, join: &Join) -> Option<&MultiJoinGroup> {
        let n = decision_number(join)?;
        self.multi_joins.iter().find(|g| g.joins.last() == Some(&n))
    }

    /// Renames the table the `TableScan` at `path` reads, in
    /// [`JoinPlan::query`]'s plan: the executor then looks the scan's rows
    /// up under `name` (a scan with its own options, H40). Its schema, its
    /// columns' qualifiers and the decisions stay as planned.
    ///
    /// # Errors
    ///
    /// [`SqlError::Plan`] when there is no table scan at `path`.
    pub fn rename_scan(&mut self, path: &PlanPath, name: &str) -> Result<(), SqlError> {
        if !matches!(
            node_at(&self.query.plan, path),
            Some(LogicalPlan::TableScan(_))
        ) {
            return Err(SqlError::Plan(format!(
                "internal: no table scan at {path:?} to rename to {name}"
            )));
        }
        let plan = std::mem::take(&mut self.query.plan);
        self.query.plan = replace_node_at(plan, path, &mut |node| match node {
            LogicalPlan::TableScan(mut scan) => {
                scan.table_name = TableReference::bare(name);
                Ok(LogicalPlan::TableScan(scan))
            }
            other => Ok(other),
        })?;
        Ok(())
    }

    /// The names of the tables the plan scans, each once, in plan order.
    pub fn scanned_tables(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let _ = self.query.plan.apply_with_subqueries(|node| {
            if let LogicalPlan::TableScan(scan) = node {
                let name = scan.table_name.table().to_string();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            Ok(TreeNodeRecursion::Continue)
        });
        names
    }
}

//! From SQL to a decision for every join (HINTS.md §1–§4, CLI.md
//! `--explain --format json`), without running anything yet.
//!
//! ```text
//! SQL ──plan_sql──► PlannedQuery { plan, blocks, unattached_hints }
//!     ──per block: parse its RawHintBlock (positions kept) ──► [Hint]
//!     ──per block: JoinRefs + Join nodes + Catalog stats ──► BlockJoins
//!     ──resolve_block (Config as ResolveConfig)──► decisions
//!     ──order: blocks in post-order of their nesting, joins bottom-up──► JoinPlan
//! ```
//!
//! # Choices made here
//!
//! - **Comment finder.** The hint comments come from the SQL front end's
//!   finder ([`RawHintBlock`], claimed per `SELECT` and per table name
//!   while blocks are marked). [`HintComment::parse`] is reused only for its
//!   placement checks (OPTIONS after SELECT, a join hint after a table, a
//!   hint anywhere else: [`HintError::Misplaced`]). Follow-up: the sql
//!   module's finder and [`crate::hints::find_hint_comments`] tokenize the
//!   same text for the same purpose; one of them should go.
//! - **Unattached hint comments** (neither after `SELECT` nor after a table
//!   name) are errors ([`HintError::Misplaced`], with line and column).
//! - **Table hints** (`t /*+ OPTIONS(..) */`) are parsed, checked for
//!   placement and form (`'key' = 'value'` pairs, after a table: not after
//!   a view or a WITH query), and merged per scan (H25) into
//!   [`JoinPlan::scan_options`]. Which keys a table takes depends on where
//!   its rows come from, which the planner does not know: the session
//!   checks the keys and values (H41) and applies them (H40).
//! - **Join order** (CLI.md): blocks in post-order of their syntactic
//!   nesting (a subquery's or CTE's joins before those of the block that
//!   uses it, sibling blocks such as UNION branches in source order; a
//!   view's joins right before those of the block that reads it: the front
//!   end's [`PlannedQuery::block_order`]); within a block, joins bottom-up
//!   in FROM order. [`JoinSite::id`] and the "join N" of error messages are
//!   the join's index in [`JoinPlan::joins`].
//! - **Semi/anti joins from `IN` / `NOT IN`** take no join hints (H14):
//!   they are recognised by the front end's subquery alias prefix
//!   (`__sq_`); their subquery side has no name (`null`), but keeps the
//!   size estimate of the table it reads, if it is one. Follow-up: a flag
//!   on [`JoinRef`] would be sturdier than the prefix.
//! - **Size estimates** come from the catalog's [`TableStats`] for tables,
//!   and through filters, projections, aggregates and joins by the simple
//!   rules of `estimate.rs` (a filter keeps a quarter, a join as many rows
//!   as its larger input). With only rows or only bytes known for a table,
//!   the other is derived from the schema's row width (fixed widths, 16
//!   bytes for variable-width columns).
//! - **Sorted inputs** (H15): an input is sorted on the join keys when it
//!   is a table (or alias) whose [`TableStats::sorted_on`] starts with the
//!   join's key columns on that side, in order.

mod choice;
mod estimate;
mod explain;
mod join_numbers;

pub use choice::{JoinChoice, allows_adaptive_build_side};
pub(crate) use join_numbers::decision_number;

use choice::set_operation_join;
use estimate::Estimator;
use join_numbers::number_joins;

use std::collections::HashMap;

use datafusion_common::tree_node::TreeNodeRecursion;
use datafusion_common::{NullEquality, TableReference, plan_err};
use datafusion_expr::{Expr, Join, JoinType as DfJoinType, LogicalPlan};

use crate::config::Config;
use crate::hints::{
    BlockInput, BlockJoins, DecisionSource, Hint, HintArgs, HintComment, HintError, HintName,
    HintPlacement, IgnoredHint, JoinDecision, JoinSite, Position, SiteInput, key_values,
    resolve_block,
};
use crate::kernels::{JoinSide, JoinType, Strategy};
use crate::sql::{
    Catalog, InputKind, JoinInput, JoinRef, PlanPath, PlannedQuery, QueryBlock, RawHintBlock,
    SqlError, TableStats, node_at, plan_sql, replace_node_at,
};

/// Prefix of the aliases the front end gives `IN` / `NOT IN` subqueries it
/// plans as semi / anti joins (`crate::sql::in_subqueries_to_joins`).
const SUBQUERY_ALIAS_PREFIX: &str = "__sq_";

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
/// (`t /*+ OPTIONS('k'='v') */`, HINTS.md H06, H40), merged by H25.
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

/// A decision for every join of a query, in CLI.md's order.
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
    /// use tenon_planner::kernels::{JoinSide, Strategy};
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
/// use tenon_planner::kernels::Strategy;
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
///     r#"{"joins": [{"strategy": "BROADCAST", "join_type": "INNER", "build": "t1", "left": "t1", "right": "t2", "keys": ["t1.id = t2.id"], "reason": "hint BROADCAST(t1) applied", "ignored_hints": []}]}"#
/// );
/// ```
pub fn plan_joins(sql: &str, catalog: &Catalog, config: &Config) -> Result<JoinPlan, PlanError> {
    let query = plan_sql(catalog, sql)?;
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
    let mut slots: Vec<Option<PlannedJoin>> = vec![None; order.len()];
    let mut unused_hints = Vec::new();
    for block in &query.blocks {
        let global_id = |j: usize| order.iter().position(|&x| x == (block.id, j)).unwrap_or(0);
        let decided = decide_block(block, &query.plan, &global_id, catalog, &estimator)?;
        let resolution = resolve_block(&decided.joins, &decided.hints, &resolve_config)?;
        for (site, decision) in decided.joins.joins.iter().zip(resolution.joins) {
            slots[site.id] = Some(decided.planned(site, decision));
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
        unused_hints,
        scan_options,
        query,
    })
}

/// The global order of the joins (CLI.md): blocks in post-order of their
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

/// One block's joins as hint resolution sees them, with their logical
/// nodes, ready to be resolved.
struct BlockToDecide<'a> {
    block: &'a QueryBlock,
    hints: Vec<Hint>,
    joins: BlockJoins,
    nodes: Vec<Join>,
}

/// Collects a block's hints and describes each of its joins ([`JoinSite`],
/// numbered by `global_id`).
fn decide_block<'a>(
    block: &'a QueryBlock,
    plan: &LogicalPlan,
    global_id: &dyn Fn(usize) -> usize,
    catalog: &Catalog,
    estimator: &Estimator<'_>,
) -> Result<BlockToDecide<'a>, PlanError> {
    let hints = block_hints(block)?;
    let mut sites = Vec::with_capacity(block.joins.len());
    let mut nodes = Vec::with_capacity(block.joins.len());
    for (j, jref) in block.joins.iter().enumerate() {
        let join = match node_at(plan, &jref.path) {
            Some(LogicalPlan::Join(join)) => join,
            _ => {
                return Err(SqlError::Plan(format!(
                    "internal: no join at {:?} of block {}",
                    jref.path, block.id
                ))
                .into());
            }
        };
        sites.push(join_site(global_id(j), jref, &join, catalog, estimator)?);
        nodes.push(join);
    }
    Ok(BlockToDecide {
        block,
        hints,
        joins: BlockJoins {
            inputs: block_inputs(block),
            joins: sites,
        },
        nodes,
    })
}

impl BlockToDecide<'_> {
    /// The planned join for `site` of this block, decided by `decision`.
    fn planned(&self, site: &JoinSite, decision: JoinDecision) -> PlannedJoin {
        let j = self
            .joins
            .joins
            .iter()
            .position(|s| s.id == site.id)
            .unwrap_or(0);
        let (jref, join) = (&self.block.joins[j], &self.nodes[j]);
        let build = decision
            .build_side
            .and_then(|side| site.input(side).name.clone());
        PlannedJoin {
            block: self.block.id,
            path: jref.path.clone(),
            strategy: decision.strategy,
            join_type: site.join_type,
            build_side: decision.build_side,
            build,
            left: site.left.name.clone(),
            right: site.right.name.clone(),
            keys: key_texts(join),
            filter: join.filter.as_ref().map(ToString::to_string),
            reason: or_note(decision.reason, decision.strategy, join),
            adaptive_build_side: allows_adaptive_build_side(&decision.source, decision.strategy),
            source: decision.source,
            ignored_hints: decision.ignored,
        }
    }
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

/// Parses one raw hint comment as placed.
fn parse_raw(raw: &RawHintBlock, placement: HintPlacement) -> Result<Vec<Hint>, HintError> {
    let position = Position::new(raw.line, raw.col);
    HintComment {
        placement,
        text: raw.text.clone(),
        position,
        // Not read by `parse`: only placement, text and position are.
        anchor: position,
        span: 0..0,
    }
    .parse()
}

/// The block's query hints, parsed.
fn block_hints(block: &QueryBlock) -> Result<Vec<Hint>, HintError> {
    let mut hints = Vec::new();
    for raw in &block.hints {
        hints.extend(parse_raw(raw, HintPlacement::QueryBlock)?);
    }
    Ok(hints)
}

/// The block's table hints, parsed and checked (H05, H06), merged per scan
/// (H25).
fn block_scan_options(block: &QueryBlock) -> Result<Vec<ScanOptions>, HintError> {
    let mut parsed = Vec::with_capacity(block.table_hints.len());
    for th in &block.table_hints {
        let hints = parse_raw(
            &th.hint,
            HintPlacement::Table {
                table: th.table.clone(),
            },
        )?;
        for h in &hints {
            let pairs = match &h.args {
                HintArgs::KeyValues(kvs) => kvs.len(),
                _ => 0,
            };
            if pairs == 0 {
                return Err(HintError::TableHint {
                    hint: h.to_string(),
                    position: h.position,
                    message: "OPTIONS takes 'key' = 'value' pairs, e.g.                               `t /*+ OPTIONS('scan.batch-size' = '1024') */`"
                        .into(),
                });
            }
        }
        parsed.push((th, hints));
    }
    // a block that was planned has relations; an unused WITH query's has none
    let planned = !block.relations.is_empty() || !block.scans.is_empty();
    if planned {
        for (th, hints) in &parsed {
            let scanned = block
                .scans
                .iter()
                .any(|s| s.table == th.table && s.alias == th.alias);
            if !scanned && let Some(h) = hints.first() {
                return Err(HintError::TableHint {
                    hint: h.to_string(),
                    position: h.position,
                    message: format!(
                        "`{}` is not a table of this query block (a view or a WITH query?):                          OPTIONS apply to tables only; write them inside the view or WITH query,                          after its table",
                        th.table
                    ),
                });
            }
        }
    }
    let mut out = Vec::new();
    for scan in &block.scans {
        if scan.hints.is_empty() {
            continue;
        }
        let mut hints = Vec::new();
        for raw in &scan.hints {
            hints.extend(parse_raw(
                raw,
                HintPlacement::Table {
                    table: scan.table.clone(),
                },
            )?);
        }
        let Some(first) = hints.first() else {
            continue;
        };
        out.push(ScanOptions {
            block: block.id,
            path: scan.path.clone(),
            table: scan.table.clone(),
            alias: scan.alias.clone(),
            options: key_values(&hints, HintName::Options),
            position: first.position,
        });
    }
    Ok(out)
}

/// The names a hint of this block may use (H11, H32).
fn block_inputs(block: &QueryBlock) -> Vec<BlockInput> {
    let mut inputs: Vec<BlockInput> = Vec::new();
    for rel in &block.relations {
        let Some(name) = hintable_name(rel) else {
            continue;
        };
        let input = match (rel.kind, &rel.table) {
            (InputKind::Alias, Some(table)) => BlockInput::aliased(table.clone(), name),
            _ => BlockInput::table(name),
        };
        if !inputs.contains(&input) {
            inputs.push(input);
        }
    }
    inputs
}

/// The name hints use for an input; `None` for subtrees, unnamed inputs and
/// the front end's `IN`-subquery aliases.
fn hintable_name(input: &JoinInput) -> Option<String> {
    input
        .name
        .clone()
        .filter(|n| !n.starts_with(SUBQUERY_ALIAS_PREFIX))
}

/// The kernels' join type of a logical join (`NOT IN`:
/// [`JoinType::LeftAntiNullAware`]).
pub(crate) fn kernel_join_type(join: &Join) -> Result<JoinType, SqlError> {
    Ok(match (join.join_type, join.null_aware) {
        (DfJoinType::Inner, _) => JoinType::Inner,
        (DfJoinType::Left, _) => JoinType::Left,
        (DfJoinType::Right, _) => JoinType::Right,
        (DfJoinType::Full, _) => JoinType::Full,
        (DfJoinType::LeftSemi, _) => JoinType::LeftSemi,
        (DfJoinType::LeftAnti, false) => JoinType::LeftAnti,
        (DfJoinType::LeftAnti, true) => JoinType::LeftAntiNullAware,
        (DfJoinType::RightSemi, _) => JoinType::RightSemi,
        (DfJoinType::RightAnti, _) => JoinType::RightAnti,
        (other, _) => return Err(SqlError::Unsupported(format!("{other} join"))),
    })
}

/// One join as hint resolution sees it.
fn join_site(
    id: usize,
    jref: &JoinRef,
    join: &Join,
    catalog: &Catalog,
    estimator: &Estimator<'_>,
) -> Result<JoinSite, PlanError> {
    let join_type = kernel_join_type(join)?;
    let from_subquery = matches!(
        join_type,
        JoinType::LeftSemi | JoinType::LeftAnti | JoinType::LeftAntiNullAware
    ) && jref
        .right
        .name
        .as_deref()
        .is_some_and(|n| n.starts_with(SUBQUERY_ALIAS_PREFIX));
    let left_keys: Vec<&Expr> = join.on.iter().map(|(l, _)| l).collect();
    let right_keys: Vec<&Expr> = join.on.iter().map(|(_, r)| r).collect();
    let mut site = JoinSite::new(
        id,
        join_type,
        site_input(&jref.left, catalog, estimator, &left_keys, &join.left),
        site_input(&jref.right, catalog, estimator, &right_keys, &join.right),
    );
    if join.on.is_empty() {
        site = site.non_equi();
    }
    if from_subquery {
        site = site.from_subquery();
    }
    Ok(site)
}

/// One input: its name, size estimate and sortedness.
fn site_input(
    input: &JoinInput,
    catalog: &Catalog,
    estimator: &Estimator<'_>,
    keys: &[&Expr],
    plan: &LogicalPlan,
) -> SiteInput {
    let mut site = SiteInput {
        name: hintable_name(input),
        ..SiteInput::default()
    };
    let table = match input.kind {
        InputKind::Table => input.name.as_deref(),
        InputKind::Alias => input.table.as_deref(),
        _ => None,
    };
    if let Some(table) = table.and_then(|t| catalog.table(t)) {
        site.sorted_on_keys = sorted_on_keys(&table.stats, keys);
    }
    site.estimate = estimator.estimate(plan);
    site
}

/// Whether `sorted_on` starts with the key columns, in order.
fn sorted_on_keys(stats: &TableStats, keys: &[&Expr]) -> bool {
    if keys.is_empty() || keys.len() > stats.sorted_on.len() {
        return false;
    }
    keys.iter().zip(&stats.sorted_on).all(|(key, sorted)| {
        let mut e = *key;
        while let Expr::Cast(c) = e {
            e = &c.expr;
        }
        matches!(e, Expr::Column(c) if &c.name == sorted)
    })
}

/// `reason`, with a note when a NEST_LOOP join's condition is an OR whose
/// every branch has an equality of the two sides (`a.x = b.x OR a.y =
/// b.y`): each branch would be a hash join on its own, but tenon does not
/// split an OR into a union of joins, so every pair of rows is tested.
fn or_note(reason: String, strategy: Strategy, join: &Join) -> String {
    use datafusion_expr::utils::{find_valid_equijoin_key_pair, split_conjunction};
    let Some(filter) = join
        .filter
        .as_ref()
        .filter(|_| strategy == Strategy::NestLoop)
    else {
        return reason;
    };
    if !join.on.is_empty() {
        return reason;
    }
    let (left, right) = (join.left.schema(), join.right.schema());
    let mut branches = Vec::new();
    let mut stack = vec![filter];
    while let Some(e) = stack.pop() {
        match e {
            Expr::BinaryExpr(b) if b.op == datafusion_expr::Operator::Or => {
                stack.push(&b.left);
                stack.push(&b.right);
            }
            other => branches.push(other),
        }
    }
    let has_key = |branch: &Expr| {
        split_conjunction(branch).into_iter().any(|c| match c {
            Expr::BinaryExpr(b) if b.op == datafusion_expr::Operator::Eq => {
                matches!(
                    find_valid_equijoin_key_pair(&b.left, &b.right, left, right),
                    Ok(Some(_))
                )
            }
            _ => false,
        })
    };
    if branches.len() < 2 || !branches.iter().all(|b| has_key(b)) {
        return reason;
    }
    format!(
        "{reason}; the ON condition is an OR of {} branches with a different equi key each: \
         tenon does not split an OR into one hash join per branch, so every pair of rows is \
         tested",
        branches.len()
    )
}

/// The equi keys as text (`IS NOT DISTINCT FROM` for null-equal keys).
fn key_texts(join: &Join) -> Vec<String> {
    let op = match join.null_equality {
        NullEquality::NullEqualsNothing => "=",
        NullEquality::NullEqualsNull => "IS NOT DISTINCT FROM",
    };
    join.on
        .iter()
        .map(|(l, r)| format!("{l} {op} {r}"))
        .collect()
}

impl JoinPlan {
    /// The decision for a join of [`JoinPlan::query`]'s plan, found by the
    /// number the join carries.
    pub(crate) fn decision_of(&self, join: &Join) -> Option<&PlannedJoin> {
        let n = decision_number(join)?;
        self.joins.get(n).or_else(|| {
            self.set_operation_joins
                .get(n.checked_sub(self.joins.len())?)
        })
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

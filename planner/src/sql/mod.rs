//! The SQL front end: SQL text to a DataFusion [`LogicalPlan`], with each
//! query block's hints kept raw and each join attributed to its block.
//!
//! ```text
//! SQL ──tokenize──► hint comments with positions (hint_comments)
//!     ──parse (TenonDialect: J06 precedence)──► AST
//!     ──refuse what cannot be planned, check the size limits (unsupported)──► AST
//!     ──long UNION chains balanced (rebalance)──► AST
//!     ──interval ranges as unit lists (interval_fields)──► AST
//!     ──mark blocks (blocks)──► AST with one marker per SELECT
//!     ──SEMI / ANTI, USING / NATURAL joins as SQL means them (join_syntax)──► AST
//!     ──mark the statement's own `SELECT *` (wildcard)──► AST
//!     ──SqlToRel (views::Expansion over the Catalog as ContextProvider:
//!        each view read is marked and planned from its own text),
//!        `*` markers expanded (wildcard)──► LogicalPlan
//!     ──INTERSECT ALL / EXCEPT ALL (set_ops)──► SetOperation nodes
//!     ──UNION column types (set_ops)──► branches cast to one type
//!     ──implicit joins (implicit_join)──► WHERE join predicates in inner joins
//!     ──IN / NOT IN (subquery)──► semi / null-aware anti joins
//!     ──EXISTS, correlated IN (exists)──► semi / anti joins, decorrelated
//!     ──scalar subqueries (scalar)──► left joins, decorrelated
//!     ──filter pushdown (pushdown)──► conjuncts near the scans / in joins
//!     ──equi keys (join_condition)──► Join.on / filter / null_equality set
//!     ──attribute (blocks)──► PlannedQuery { plan, blocks }
//! ```
//!
//! Hint *text* is not parsed here: each [`QueryBlock`] carries the raw
//! [`RawHintBlock`] after its `SELECT` and the table hints of its FROM
//! clause; `crate::hints` parses and resolves them against the block's joins
//! ([`JoinRef`], inputs named as in docs/hints.md H12/H32).
//!
//! Views ([`ViewDef`] in the [`Catalog`]) are planned where they are read,
//! as derived tables with their own query blocks (`views`).
//!
//! Types are coerced here only for join keys and for the inputs of
//! `INTERSECT ALL` / `EXCEPT ALL` (`set_ops`): expressions are coerced when
//! they are compiled (`crate::expr`), UNION branches of different types
//! when the plan is lowered (`crate::exec`).

mod blocks;
mod catalog;
mod dialect;
mod error;
mod exists;
mod expand;
mod flink_calls;
mod hint_comments;
mod implicit_join;
mod interval_fields;
mod join_condition;
mod join_reorder;
mod join_syntax;
mod limit_literal;
mod nested_types;
mod pushdown;
mod quantified;
mod rebalance;
mod scalar;
mod session_statements;
mod set_ops;
mod statement;
mod subquery;
mod table_ddl;
mod temporal_ddl;
mod time_join;
mod unsupported;
mod views;
mod wildcard;

use datafusion_expr::LogicalPlan;

pub use blocks::{
    InputKind, JoinInput, JoinRef, PlanPath, QueryBlock, ScanRef, TableHint, node_at,
    replace_node_at,
};
pub use catalog::{
    Catalog, CatalogTable, DELETED_COLUMN, EventTime, TableStats, TableTime, TemporalFunction,
    ViewDef,
};
pub use dialect::{NESTING_LIMIT, TenonDialect};
pub use error::SqlError;
pub(crate) use error::{edit_distance, planner_words};
pub use exists::decorrelate_subqueries;
pub use expand::{Expand, ExpandKind, as_expand, plan_expansions};
pub use hint_comments::RawHintBlock;
pub(crate) use hint_comments::{hint_text, sql_tokens};
pub use implicit_join::{TINY_ROWS, push_where_into_inner_joins, push_where_into_inner_joins_with};
pub use join_condition::{
    EquiKey, JoinCondition, KeyCast, extract_join_keys, join_condition, split_join_condition,
};
pub use pushdown::push_down_filters;
pub use scalar::scalar_subqueries_to_joins;
pub use set_ops::{
    SetOperation, SetOperator, as_set_operation, plan_set_operations_all, union_common_types,
};
pub use statement::{
    CreateTable, CreateView, DropObjects, ScriptStatement, SqlStatement, parse_statement,
    split_statements,
};
pub use subquery::in_subqueries_to_joins;
pub use table_ddl::proc_time_type;
pub use temporal_ddl::CreateTemporalFunction;
pub(crate) use time_join::time_type as time_join_type;
pub use time_join::{TimeJoin, TimeJoinKind, is_time_join, time_like};
pub use unsupported::{
    ARITHMETIC_DEPTH_LIMIT, EXPRESSION_DEPTH_LIMIT, FROM_TABLES_LIMIT, SET_OPERATION_LIMIT,
    WITH_CLAUSES_LIMIT,
};
pub use views::VIEW_NESTING_LIMIT;

/// A planned query: the logical plan and its query blocks.
///
/// In `plan` every join has its equi keys in `Join.on` (cast to a common
/// type), the rest of its condition in `Join.filter`, and `null_equality`
/// set (see [`extract_join_keys`]); implicit joins are inner joins with
/// their WHERE join predicates as condition.
///
/// `IN` / `NOT IN` / `EXISTS` / `NOT EXISTS` conjuncts of a WHERE clause
/// are semi / anti joins (null-aware for `NOT IN`) on the subquery under a
/// `__sq_N` alias: uncorrelated `IN` by [`in_subqueries_to_joins`], the
/// others, with their correlation as join keys and filter, by
/// [`decorrelate_subqueries`]. Such a predicate anywhere else (under `OR`,
/// in the SELECT list, ...) is [`SqlError::Unsupported`]. Scalar subqueries
/// are what `SqlToRel` makes of them: `Expr::ScalarSubquery` inside the
/// `Filter`/`Projection`, whose `Subquery.subquery` plan refers to outer
/// columns as `Expr::OuterReferenceColumn`. Either way the subquery's own
/// joins are attributed to the subquery's own block.
///
/// Filters are pushed down ([`push_down_filters`]): a WHERE conjunct sits
/// right above the scan (or join input) it is about, or in the inner join
/// whose two sides it relates.
#[derive(Debug, Clone)]
pub struct PlannedQuery {
    /// The logical plan, markers removed.
    pub plan: LogicalPlan,
    /// The query blocks, indexed by [`QueryBlock::id`]: the query's own
    /// (numbered in pre-order over its SELECTs), then those of the views
    /// it reads (one set per reference to a view).
    pub blocks: Vec<QueryBlock>,
    /// Block ids in the order EXPLAIN lists their joins (docs/cli.md): each
    /// block after the blocks nested in it (subqueries, CTEs, UNION
    /// branches in source order), a view's blocks right before the block
    /// that reads the view.
    pub block_order: Vec<usize>,
    /// `/*+ ... */` comments that follow neither a `SELECT` nor a table
    /// name: misplaced hints, for the hint resolver to report (those of a
    /// view's text at their positions in that text).
    pub unattached_hints: Vec<RawHintBlock>,
}

impl PlannedQuery {
    /// The block and join recorded for the join at `path`, if any.
    pub fn join_ref(&self, path: &PlanPath) -> Option<(&QueryBlock, &JoinRef)> {
        self.blocks.iter().find_map(|block| {
            block
                .joins
                .iter()
                .find(|j| &j.path == path)
                .map(|j| (block, j))
        })
    }

    /// Every join of the query with its block, blocks in id order.
    pub fn joins(&self) -> impl Iterator<Item = (&QueryBlock, &JoinRef)> {
        self.blocks
            .iter()
            .flat_map(|block| block.joins.iter().map(move |j| (block, j)))
    }
}

/// Plans one SQL query against `catalog`.
///
/// # Errors
/// - [`SqlError::Syntax`] (with line and column) for text that does not
///   parse, and for two hint blocks after one `SELECT` (H04);
/// - [`SqlError::UnknownTable`] / [`SqlError::UnknownColumn`] naming what
///   is unknown;
/// - [`SqlError::Unsupported`] for anything but one query (SELECT, UNION,
///   WITH ...), or SQL `SqlToRel` does not plan;
/// - [`SqlError::Plan`] for other planning errors (types, ambiguity).
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use tenon_planner::sql::{plan_sql, Catalog, InputKind};
///
/// let schema = |c: &str| Arc::new(Schema::new(vec![Field::new(c, DataType::Int64, true)]));
/// let mut catalog = Catalog::new();
/// catalog.register_table("orders", schema("cust"));
/// catalog.register_table("customers", schema("id"));
///
/// let planned = plan_sql(
///     &catalog,
///     "SELECT /*+ BROADCAST(c) */ count(*) FROM orders o JOIN customers c ON o.cust = c.id",
/// )
/// .unwrap();
/// let block = &planned.blocks[0];
/// assert_eq!(block.hints[0].text.trim(), "BROADCAST(c)");
/// let join = &block.joins[0];
/// assert_eq!(join.left.name.as_deref(), Some("o"));
/// assert_eq!(join.right.name.as_deref(), Some("c"));
/// assert_eq!(join.right.kind, InputKind::Alias);
/// assert_eq!(join.right.table.as_deref(), Some("customers"));
/// ```
pub fn plan_sql(catalog: &Catalog, sql: &str) -> Result<PlannedQuery, SqlError> {
    plan_sql_with(catalog, sql, false)
}

/// [`plan_sql`], with the INNER join chains reordered by estimates when
/// `join_reorder` (the setting of that name; `join_reorder.rs`).
///
/// # Errors
///
/// As [`plan_sql`].
pub fn plan_sql_with(
    catalog: &Catalog,
    sql: &str,
    join_reorder: bool,
) -> Result<PlannedQuery, SqlError> {
    let mut comments = hint_comments::HintComments::tokenize(sql)?;
    let statement = views::parse_query(sql, catalog)?;
    let (plan, expansion) = views::Expansion::plan(catalog, statement, &mut comments)?;
    let plan = plan_expansions(plan)?;
    let plan = plan_set_operations_all(plan)?;
    let plan = union_common_types(plan)?;
    let table_rows = |name: &str| catalog.table(name).and_then(|t| t.stats.row_count);
    let plan = push_where_into_inner_joins_with(plan, &table_rows)?;
    let plan = in_subqueries_to_joins(plan)?;
    let plan = decorrelate_subqueries(plan)?;
    let plan = scalar_subqueries_to_joins(plan)?;
    let plan = push_down_filters(plan)?;
    let plan = extract_join_keys(plan)?;
    let plan = if join_reorder {
        join_reorder::reorder_inner_joins(plan, catalog)?
    } else {
        plan
    };
    time_join::check_time_joins(&plan, catalog)?;
    let views::Finished {
        plan,
        blocks,
        order: block_order,
        unclaimed: view_hints,
    } = expansion.finish(plan)?;
    let plan = time_join::hide_tombstones(plan)?;
    if blocks::has_marker(&plan) {
        return Err(SqlError::Plan(
            "internal: a query block marker survived planning".into(),
        ));
    }
    let mut unattached_hints = comments.unclaimed();
    unattached_hints.extend(view_hints);
    Ok(PlannedQuery {
        plan,
        blocks,
        block_order,
        unattached_hints,
    })
}

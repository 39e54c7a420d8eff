//! The SQL front end: SQL text to a DataFusion [`LogicalPlan`], with each
//! query block's hints kept raw and each join attributed to its block.
//!
//! ```text
//! SQL ──tokenize──► hint comments with positions (hint_comments)
//!     ──parse (TenonDialect: J06 precedence)──► AST
//!     ──mark blocks (blocks)──► AST with one marker per SELECT
//!     ──SqlToRel (Catalog as ContextProvider)──► LogicalPlan
//!     ──implicit joins (implicit_join)──► WHERE join predicates in inner joins
//!     ──IN / NOT IN (subquery)──► semi / null-aware anti joins
//!     ──EXISTS, correlated IN (exists)──► semi / anti joins, decorrelated
//!     ──filter pushdown (pushdown)──► conjuncts near the scans / in joins
//!     ──equi keys (join_condition)──► Join.on / filter / null_equality set
//!     ──attribute (blocks)──► PlannedQuery { plan, blocks }
//! ```
//!
//! Hint *text* is not parsed here: each [`QueryBlock`] carries the raw
//! [`RawHintBlock`] after its `SELECT` and the table hints of its FROM
//! clause; `crate::hints` parses and resolves them against the block's joins
//! ([`JoinRef`], inputs named as in HINTS.md H12/H32).
//!
//! Not done here (yet): scalar subqueries stay subquery expressions (see
//! [`PlannedQuery`]); no type coercion outside join keys; no views.

mod blocks;
mod catalog;
mod dialect;
mod error;
mod exists;
mod hint_comments;
mod implicit_join;
mod join_condition;
mod pushdown;
mod subquery;

use datafusion_expr::LogicalPlan;
use datafusion_sql::planner::SqlToRel;
use sqlparser::ast::Statement;
use sqlparser::parser::Parser;

pub use blocks::{
    InputKind, JoinInput, JoinRef, PlanPath, QueryBlock, ScanRef, TableHint, node_at,
};
pub use catalog::{Catalog, CatalogTable, TableStats};
pub use dialect::TenonDialect;
pub use error::SqlError;
pub use exists::decorrelate_subqueries;
pub use hint_comments::RawHintBlock;
pub use implicit_join::push_where_into_inner_joins;
pub use join_condition::{
    EquiKey, JoinCondition, KeyCast, extract_join_keys, join_condition, split_join_condition,
};
pub use pushdown::push_down_filters;
pub use subquery::in_subqueries_to_joins;

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
    /// The query blocks, indexed by [`QueryBlock::id`].
    pub blocks: Vec<QueryBlock>,
    /// `/*+ ... */` comments that follow neither a `SELECT` nor a table
    /// name: misplaced hints, for the hint resolver to report.
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
    let mut comments = hint_comments::HintComments::tokenize(sql)?;
    let mut statements = Parser::new(&TenonDialect::default())
        .try_with_sql(sql)?
        .parse_statements()?;
    let mut statement = match statements.len() {
        0 => {
            return Err(SqlError::Unsupported(
                "empty statement: nothing to plan".into(),
            ));
        }
        1 => statements.remove(0),
        n => {
            return Err(SqlError::Unsupported(format!(
                "{n} statements: plan one query at a time"
            )));
        }
    };
    if !matches!(statement, Statement::Query(_)) {
        let text = statement.to_string();
        let kind: String = text
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        return Err(SqlError::Unsupported(format!(
            "statement `{kind} ...`: only queries (SELECT, UNION, WITH) are planned"
        )));
    }
    let ast_blocks = blocks::mark_blocks(&mut statement, &mut comments)?;
    let plan = SqlToRel::new(catalog).sql_statement_to_plan(statement)?;
    let plan = push_where_into_inner_joins(plan)?;
    let plan = in_subqueries_to_joins(plan)?;
    let plan = decorrelate_subqueries(plan)?;
    let plan = push_down_filters(plan)?;
    let plan = extract_join_keys(plan)?;
    let (plan, blocks) = blocks::attribute(plan, ast_blocks)?;
    if blocks::has_marker(&plan) {
        return Err(SqlError::Plan(
            "internal: a query block marker survived planning".into(),
        ));
    }
    Ok(PlannedQuery {
        plan,
        blocks,
        unattached_hints: comments.unclaimed(),
    })
}

//! Views: each reference to a view is planned from the view's own text, as
//! its own query block(s) (docs/hints.md H30, H31).
//!
//! # Design
//!
//! Hint comments are matched to SELECTs by their position in a text, so a
//! view body, which is its own text, is tokenized and marked on its own:
//!
//! 1. The query's statement is marked as usual (blocks `0..n`).
//! 2. `SqlToRel` plans it against an [`Expansion`], a `ContextProvider`
//!    that answers for the catalog's tables and, for a view, plans the
//!    view: its text is tokenized (its hint comments, with positions in the
//!    view's text), parsed, marked with the next free block numbers
//!    (`n..`), and planned by a nested `SqlToRel` over the same
//!    `Expansion` (so views read views). The result goes back to `SqlToRel`
//!    as a `TableSource` whose `get_logical_plan` is that plan, which
//!    `SqlToRel` inlines under the view's name: the reference becomes
//!    `SubqueryAlias(v, <body>)`, exactly what a derived table
//!    `(body) AS v` gives. The body is planned with a fresh planner context,
//!    so the outer query's CTE names do not leak into it; and a CTE of the
//!    outer query shadows a view of the same name (`SqlToRel` asks for the
//!    table source before it looks at its CTEs: that expansion is planned
//!    and dropped, see 4).
//! 3. The usual rewrites run over the whole plan; attribution (`blocks`)
//!    finds every marker, each block's joins and scans, and which block
//!    each marker sits in.
//! 4. [`Expansion::finish`] drops the blocks of expansions whose plan was
//!    not used (no marker of theirs in the plan), renumbers the rest, and
//!    orders the blocks for EXPLAIN: the query's own blocks in post-order
//!    of their nesting, each view's blocks (in their own post-order) right
//!    before the block that reads the view.
//!
//! A view that names itself, directly or through other views, is an error
//! naming the cycle; an error inside a view's body says which view.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use arrow_schema::{DataType, SchemaRef};
use datafusion_common::config::ConfigOptions;
use datafusion_common::{DataFusionError, Result as DfResult, TableReference};
use datafusion_expr::planner::{ContextProvider, ExprPlanner};
use datafusion_expr::{
    AggregateUDF, Expr as DfExpr, HigherOrderUDF, LogicalPlan, LogicalPlanBuilder, ScalarUDF,
    TableSource, TableType, WindowUDF,
};
use datafusion_sql::planner::SqlToRel;
use sqlparser::ast::Statement;

use super::blocks::{self, AstBlock, QueryBlock};
use super::catalog::{Catalog, ViewDef};
use super::error::SqlError;
use super::hint_comments::{HintComments, RawHintBlock};
use super::wildcard;

/// How deep views may read views (a view reading a view is one level).
pub const VIEW_NESTING_LIMIT: usize = 256;

/// One marked text: the query itself (unit 0) or one expansion of a view.
#[derive(Debug)]
struct Unit {
    /// The view, or `None` for the query.
    view: Option<String>,
    /// Its blocks' ids.
    blocks: Range<usize>,
    /// Its blocks in post-order of their nesting.
    post_order: Vec<usize>,
    /// Hint comments of its text that follow neither a SELECT nor a table.
    unclaimed: Vec<RawHintBlock>,
}

#[derive(Debug, Default)]
struct State {
    blocks: Vec<AstBlock>,
    units: Vec<Unit>,
    /// The views being expanded, outermost first (cycle detection).
    stack: Vec<String>,
}

/// The planning of one statement with its view expansions: a
/// `ContextProvider` over a [`Catalog`] that plans views (see the module
/// docs).
pub(crate) struct Expansion<'a> {
    catalog: &'a Catalog,
    state: RefCell<State>,
}

/// What [`Expansion::finish`] returns.
pub(crate) struct Finished {
    /// The plan, markers removed.
    pub(crate) plan: LogicalPlan,
    /// The blocks, indexed by id.
    pub(crate) blocks: Vec<QueryBlock>,
    /// Block ids in EXPLAIN order.
    pub(crate) order: Vec<usize>,
    /// Unattached hint comments of the views used.
    pub(crate) unclaimed: Vec<RawHintBlock>,
}

/// A view as a table source: its plan, which `SqlToRel` inlines.
#[derive(Debug)]
struct ViewSource {
    plan: LogicalPlan,
    schema: SchemaRef,
}

impl TableSource for ViewSource {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    fn get_logical_plan(&self) -> Option<Cow<'_, LogicalPlan>> {
        Some(Cow::Borrowed(&self.plan))
    }
}

/// Plans one marked statement with `SqlToRel`, a plain `*` of its own
/// SELECT expanded by tenon (`super::wildcard`: linear in the columns);
/// when that does not apply or fails, the statement as it is.
fn plan_statement(expansion: &Expansion<'_>, mut statement: Statement) -> DfResult<LogicalPlan> {
    super::expand::rewrite_expansions(&mut statement, expansion.catalog).map_err(external)?;
    super::join_syntax::rewrite_join_syntax(&mut statement, expansion).map_err(external)?;
    if let Some(marked) = wildcard::mark_wildcards(&statement) {
        let planned = SqlToRel::new(expansion)
            .sql_statement_to_plan(marked.statement.clone())
            .and_then(|plan| wildcard::expand_wildcards(plan, &marked));
        if let Ok(plan) = planned {
            return Ok(plan);
        }
    }
    SqlToRel::new(expansion).sql_statement_to_plan(statement)
}

/// Parses `sql` as exactly one query.
pub(crate) fn parse_query(sql: &str, catalog: &Catalog) -> Result<Statement, SqlError> {
    let mut statements = super::dialect::parser()
        .try_with_sql(sql)?
        .parse_statements()
        .map_err(|e| super::time_join::version_after_subquery(sql).unwrap_or_else(|| e.into()))?;
    match statements.len() {
        0 => Err(SqlError::Unsupported(
            "empty statement: nothing to plan".into(),
        )),
        1 => {
            let statement = statements.remove(0);
            if matches!(statement, Statement::Query(_)) {
                let mut statement = super::unsupported::refuse_unsupported(statement)?;
                super::time_join::rewrite_time_joins(&mut statement, catalog)?;
                super::rebalance::rebalance_set_operations(&mut statement);
                super::interval_fields::rewrite_interval_ranges(&mut statement)?;
                super::limit_literal::clamp_limits(&mut statement);
                super::flink_calls::rewrite_flink_calls(&mut statement)?;
                Ok(statement)
            } else {
                Err(SqlError::Unsupported(format!(
                    "statement `{} ...`: only queries (SELECT, UNION, WITH) are planned",
                    statement_kind(&statement)
                )))
            }
        }
        n => Err(SqlError::Unsupported(format!(
            "{n} statements: plan one query at a time"
        ))),
    }
}

/// The first two words of a statement, for messages.
fn statement_kind(statement: &Statement) -> String {
    statement
        .to_string()
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

fn external(e: SqlError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl<'a> Expansion<'a> {
    /// Marks `statement` (the query, blocks from 0) and plans it, expanding
    /// the views it reads.
    ///
    /// # Errors
    /// As [`plan_sql`](super::plan_sql): H04, unknown tables and columns
    /// (inside a view: [`SqlError::InView`]), a cycle of views.
    pub(crate) fn plan(
        catalog: &'a Catalog,
        mut statement: Statement,
        comments: &mut HintComments,
    ) -> Result<(LogicalPlan, Expansion<'a>), SqlError> {
        let marked = blocks::mark_blocks(&mut statement, comments, 0)?;
        let expansion = Expansion {
            catalog,
            state: RefCell::new(State::default()),
        };
        {
            let mut state = expansion.state.borrow_mut();
            state.units.push(Unit {
                view: None,
                blocks: 0..marked.blocks.len(),
                post_order: marked.post_order,
                unclaimed: Vec::new(),
            });
            state.blocks = marked.blocks;
        }
        let plan = plan_statement(&expansion, statement)?;
        Ok((plan, expansion))
    }

    /// Plans one reference to `view`.
    fn expand(&self, view: &ViewDef) -> Result<LogicalPlan, SqlError> {
        let (start, unit_index) = {
            let mut state = self.state.borrow_mut();
            if state.stack.contains(&view.name) {
                let mut cycle = state.stack.clone();
                cycle.push(view.name.clone());
                let from = cycle.iter().position(|v| v == &view.name).unwrap_or(0);
                return Err(SqlError::Plan(format!(
                    "views refer to each other in a cycle: {}; replace or drop one of them",
                    cycle[from..].join(" -> ")
                )));
            }
            if state.stack.len() >= VIEW_NESTING_LIMIT {
                return Err(SqlError::Limit(format!(
                    "view `{}` reads views {VIEW_NESTING_LIMIT} deep (`{}` reads `{}` ...); \
                     tenon plans views nested at most {VIEW_NESTING_LIMIT} deep: define a \
                     view on the tables an inner view reads",
                    view.name,
                    state.stack[0],
                    state.stack.get(1).unwrap_or(&view.name)
                )));
            }
            state.stack.push(view.name.clone());
            (state.blocks.len(), state.units.len())
        };
        let result = self.expand_body(view, start);
        let mut state = self.state.borrow_mut();
        state.stack.pop();
        if result.is_err() {
            // forget the blocks of this expansion and of those inside it
            state.blocks.truncate(start);
            state.units.truncate(unit_index);
        }
        result
    }

    fn expand_body(&self, view: &ViewDef, start: usize) -> Result<LogicalPlan, SqlError> {
        let mut comments = HintComments::tokenize(&view.sql)?;
        let mut statement = parse_query(&view.sql, self.catalog)?;
        let marked = blocks::mark_blocks(&mut statement, &mut comments, start)?;
        {
            let mut state = self.state.borrow_mut();
            state.units.push(Unit {
                view: Some(view.name.clone()),
                blocks: start..start + marked.blocks.len(),
                post_order: marked.post_order,
                unclaimed: comments.unclaimed(),
            });
            state.blocks.extend(marked.blocks);
        }
        let plan = plan_statement(self, statement)?;
        let plan = rename_columns(plan, &view.columns)?;
        let mut names = std::collections::HashSet::new();
        if let Some(name) = plan
            .schema()
            .fields()
            .iter()
            .map(|f| f.name())
            .find(|n| !names.insert(*n))
        {
            return Err(SqlError::Plan(format!(
                "two columns of the view are named `{name}`: give them distinct names \
                 (`t.{name} AS t_{name}`, or CREATE VIEW {} (col, ...) AS ...)",
                view.name
            )));
        }
        Ok(plan)
    }

    /// Attributes the rewritten `plan` to the blocks, drops the blocks of
    /// unused expansions and orders the rest (module docs, step 4).
    ///
    /// # Errors
    /// Internal errors of attribution.
    pub(crate) fn finish(self, plan: LogicalPlan) -> Result<Finished, SqlError> {
        let state = self.state.into_inner();
        let attributed = blocks::attribute(plan, state.blocks)?;
        let units = state.units;
        let n = attributed.blocks.len();
        let mut unit_of = vec![0; n];
        for (u, unit) in units.iter().enumerate() {
            for b in unit.blocks.clone() {
                if b < n {
                    unit_of[b] = u;
                }
            }
        }
        // a view's expansion is kept when some block of it reached the plan
        let kept_unit: Vec<bool> = units
            .iter()
            .enumerate()
            .map(|(u, unit)| u == 0 || unit.blocks.clone().any(|b| b < n && attributed.seen[b]))
            .collect();
        // each kept expansion hangs under the block that reads the view
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (u, unit) in units.iter().enumerate().skip(1) {
            if !kept_unit[u] {
                continue;
            }
            let parent = unit
                .post_order
                .iter()
                .filter_map(|&b| attributed.parents.get(b).copied().flatten())
                .find(|p| !unit.blocks.contains(p));
            match parent {
                Some(p) => children[p].push(u),
                None => roots.push(u),
            }
        }
        let mut order = Vec::with_capacity(n);
        for &u in &roots {
            visit(u, &units, &children, &mut order);
        }
        visit(0, &units, &children, &mut order);
        // defensive: a kept block the walk did not reach goes last
        for (b, &u) in unit_of.iter().enumerate() {
            if kept_unit[u] && !order.contains(&b) {
                order.push(b);
            }
        }

        // renumber the kept blocks
        let mut new_id = vec![usize::MAX; n];
        let mut blocks = Vec::new();
        for (old, mut block) in attributed.blocks.into_iter().enumerate() {
            if !kept_unit[unit_of[old]] {
                continue;
            }
            new_id[old] = blocks.len();
            block.id = blocks.len();
            block.view = units[unit_of[old]].view.clone();
            blocks.push(block);
        }
        let order = order
            .into_iter()
            .filter(|&b| new_id[b] != usize::MAX)
            .map(|b| new_id[b])
            .collect();
        let unclaimed = units
            .into_iter()
            .zip(&kept_unit)
            .filter(|(_, kept)| **kept)
            .flat_map(|(unit, _)| unit.unclaimed)
            .collect();
        Ok(Finished {
            plan: attributed.plan,
            blocks,
            order,
            unclaimed,
        })
    }
}

/// Appends unit `u`'s blocks to `order`: each block after the expansions
/// it reads.
fn visit(u: usize, units: &[Unit], children: &[Vec<usize>], order: &mut Vec<usize>) {
    for &b in &units[u].post_order {
        if let Some(kids) = children.get(b) {
            for &c in kids {
                visit(c, units, children, order);
            }
        }
        order.push(b);
    }
}

/// Gives the view's columns the names of `CREATE VIEW v (a, b)`.
fn rename_columns(plan: LogicalPlan, names: &[String]) -> Result<LogicalPlan, SqlError> {
    if names.is_empty() {
        return Ok(plan);
    }
    let columns = plan.schema().columns();
    if columns.len() != names.len() {
        return Err(SqlError::Plan(format!(
            "the view names {} columns ({}) but its query has {}",
            names.len(),
            names.join(", "),
            columns.len()
        )));
    }
    let exprs: Vec<DfExpr> = columns
        .into_iter()
        .zip(names)
        .map(|(c, name)| DfExpr::Column(c).alias(name))
        .collect();
    Ok(LogicalPlanBuilder::from(plan).project(exprs)?.build()?)
}

impl ContextProvider for Expansion<'_> {
    fn get_table_source(&self, name: TableReference) -> DfResult<Arc<dyn TableSource>> {
        if let TableReference::Bare { table } = &name
            && self.catalog.table(table).is_none()
            && let Some(view) = self.catalog.view(table)
        {
            let plan = self.expand(view).map_err(|e| {
                external(match e {
                    // named once: by the innermost view, where it went wrong
                    e @ SqlError::InView { .. } => e,
                    e => SqlError::InView {
                        view: view.name.clone(),
                        error: Box::new(e),
                    },
                })
            })?;
            let schema = Arc::clone(plan.schema().inner());
            return Ok(Arc::new(ViewSource { plan, schema }));
        }
        self.catalog.get_table_source(name)
    }

    fn get_expr_planners(&self) -> &[Arc<dyn ExprPlanner>] {
        self.catalog.get_expr_planners()
    }

    fn get_table_function_source(
        &self,
        name: &str,
        args: Vec<datafusion_expr::Expr>,
    ) -> DfResult<Arc<dyn TableSource>> {
        if name == super::expand::EXPAND_MARKER {
            return super::expand::expand_source(self.catalog, args);
        }
        Err(external(SqlError::Unsupported(format!(
            "`{name}(...)` in FROM: call a table function as `LATERAL TABLE({name}(...))` \
             (known: {})",
            self.catalog.table_function_names().join(", ")
        ))))
    }

    fn get_function_meta(&self, name: &str) -> Option<Arc<ScalarUDF>> {
        self.catalog.get_function_meta(name)
    }

    fn get_higher_order_meta(&self, name: &str) -> Option<Arc<HigherOrderUDF>> {
        self.catalog.get_higher_order_meta(name)
    }

    fn get_aggregate_meta(&self, name: &str) -> Option<Arc<AggregateUDF>> {
        self.catalog.get_aggregate_meta(name)
    }

    fn get_window_meta(&self, name: &str) -> Option<Arc<WindowUDF>> {
        self.catalog.get_window_meta(name)
    }

    fn get_variable_type(&self, variable_names: &[String]) -> Option<DataType> {
        self.catalog.get_variable_type(variable_names)
    }

    fn options(&self) -> &ConfigOptions {
        self.catalog.options()
    }

    fn udf_names(&self) -> Vec<String> {
        self.catalog.udf_names()
    }

    fn higher_order_function_names(&self) -> Vec<String> {
        self.catalog.higher_order_function_names()
    }

    fn udaf_names(&self) -> Vec<String> {
        self.catalog.udaf_names()
    }

    fn udwf_names(&self) -> Vec<String> {
        self.catalog.udwf_names()
    }
}

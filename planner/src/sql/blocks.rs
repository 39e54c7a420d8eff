//! Query blocks: which `SELECT` each join of the plan belongs to, and which
//! named relation each join input is (docs/hints.md H12, H30–H32).
//!
//! # Design
//!
//! datafusion-sql's `SqlToRel` drops hints and knows nothing of query blocks,
//! so the block identity is carried *through* it:
//!
//! 1. **Mark** (AST, before `SqlToRel`): every `Select` of the statement —
//!    the outer query, each subquery in FROM, WHERE or the select list, each
//!    UNION branch, each CTE body — gets a number, in the order sqlparser's
//!    visitor meets them (pre-order), and its WHERE clause gets one more
//!    conjunct, a call of the marker function `__tenon_query_block(<id>)`
//!    (`WHERE p` becomes `WHERE p AND __tenon_query_block(7)`; no WHERE
//!    becomes `WHERE __tenon_query_block(7)`). The block's hint comment and
//!    the table hints of its FROM clause are collected at the same time.
//! 2. **Plan**: `SqlToRel` plans a SELECT's WHERE as a `Filter` directly on
//!    top of the plan of its FROM clause, so each block's marker lands in a
//!    `Filter` right above that block's joins. Joins come from FROM clauses
//!    only, so *the nearest marker above a join names its block*; a join
//!    inside a derived table, a CTE or a WHERE subquery has its own block's
//!    marker in between. Rewrites between planning and attribution (implicit
//!    joins, key extraction) keep the marker conjunct where it is.
//! 3. **Attribute** (plan, after the rewrites): one walk over the plan and
//!    the plans of its subquery expressions removes each marker (and the
//!    `Filter` when the marker was its only conjunct) and records, per block,
//!    each join with its [`PlanPath`] in the *final* plan and the names of
//!    its two inputs ([`JoinInput`]), each table scan with its alias and
//!    table hints ([`ScanRef`]), and the named relations in scope.
//!
//! A CTE referenced twice is inlined twice by `SqlToRel`: its joins appear
//! twice, at two paths, both in the CTE's block.
//!
//! Views (`super::views`) are marked the same way, from their own text: each
//! view reference is planned from the view's body, whose SELECTs are marked
//! with the next free numbers. Attribution also records which block each
//! marker sits in (its *parent*), so that a view's blocks can be ordered
//! before the block that reads the view.

use std::ops::ControlFlow;
use std::sync::Arc;

use arrow_schema::DataType;
use datafusion_common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion_common::{Result as DfResult, ScalarValue, internal_err};
use datafusion_expr::utils::{conjunction, split_conjunction_owned};
use datafusion_expr::{
    ColumnarValue, Expr as DfExpr, Filter, JoinType, LogicalPlan, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};
use sqlparser::ast::{
    BinaryOperator, Expr, Ident, ObjectName, ObjectNamePart, Select, Statement, TableFactor,
    VisitMut, VisitorMut,
};
use sqlparser::parser::Parser;

use super::dialect::TenonDialect;
use super::error::SqlError;
use super::hint_comments::{HintComments, RawHintBlock};

/// Name of the marker function that carries a block number through `SqlToRel`.
pub(crate) const BLOCK_MARKER: &str = "__tenon_query_block";

/// The marker function: planned, never run (it is removed before the plan
/// leaves the front end).
#[derive(Debug, PartialEq, Eq, Hash)]
struct BlockMarker {
    signature: Signature,
}

impl ScalarUDFImpl for BlockMarker {
    fn name(&self) -> &str {
        BLOCK_MARKER
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        internal_err!("{BLOCK_MARKER} is removed by the SQL front end and never runs")
    }
}

/// The marker as a UDF, for the catalog's function registry.
pub(crate) fn block_marker_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(BlockMarker {
        // volatile: nothing may fold or move it
        signature: Signature::exact(vec![DataType::Int64], Volatility::Volatile),
    })
}

/// A path from the root of a plan to one node: at each step, the index of
/// the child to go to.
///
/// The children of a node are its inputs (`LogicalPlan::inputs`, in order)
/// followed by the subquery plans of its expressions
/// (`LogicalPlan::apply_subqueries` order, each a `LogicalPlan::Subquery`
/// node). [`node_at`] follows a path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct PlanPath(pub Vec<usize>);

/// The node of `plan` at `path` (a cheap clone: plans share their inputs),
/// or `None` when the path leads nowhere.
pub fn node_at(plan: &LogicalPlan, path: &PlanPath) -> Option<LogicalPlan> {
    let mut node = plan.clone();
    for &step in &path.0 {
        let inputs = node.inputs();
        let next = if step < inputs.len() {
            inputs[step].clone()
        } else {
            let mut subqueries = Vec::new();
            node.apply_subqueries(|sub| {
                subqueries.push(sub.clone());
                Ok(TreeNodeRecursion::Continue)
            })
            .ok()?;
            subqueries.into_iter().nth(step - inputs.len())?
        };
        node = next;
    }
    Some(node)
}

/// `plan` with the node at `path` (as [`node_at`] follows it) replaced by
/// `f(node)`; the plan unchanged when the path leads nowhere.
///
/// # Errors
/// What `f` returns, and errors of rebuilding the nodes above it.
pub fn replace_node_at(
    plan: LogicalPlan,
    path: &PlanPath,
    f: &mut dyn FnMut(LogicalPlan) -> DfResult<LogicalPlan>,
) -> DfResult<LogicalPlan> {
    fn go(
        plan: LogicalPlan,
        steps: &[usize],
        f: &mut dyn FnMut(LogicalPlan) -> DfResult<LogicalPlan>,
    ) -> DfResult<LogicalPlan> {
        let Some((&step, rest)) = steps.split_first() else {
            return f(plan);
        };
        let n_inputs = plan.inputs().len();
        let mut index = if step < n_inputs { 0 } else { n_inputs };
        let mut visit = |child: LogicalPlan| {
            let here = index == step;
            index += 1;
            if here {
                go(child, rest, f).map(Transformed::yes)
            } else {
                Ok(Transformed::no(child))
            }
        };
        let rebuilt = if step < n_inputs {
            plan.map_children(&mut visit)?
        } else {
            plan.map_subqueries(&mut visit)?
        };
        Ok(rebuilt.data)
    }
    go(plan, &path.0, f)
}

/// What kind of relation a join input (or a relation in scope) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A catalog table without alias: the name is the table's.
    Table,
    /// A catalog table with an alias: the name is the alias, `table` the
    /// table's name (H32: the alias is the name hints must use).
    Alias,
    /// A derived table, CTE or parenthesized join under an alias: the name
    /// is the alias (or the CTE's name).
    Derived,
    /// A join subtree: no name, never matches a hint (H12).
    Join,
    /// Anything else without a name (VALUES, an empty relation, ...).
    Other,
    /// An `UNNEST` or `LATERAL TABLE` under its alias (the name; `table`
    /// is its SQL text): in scope, but not a table a join hint may name.
    Expansion,
}

/// One input of a join (or one relation of a block's FROM clause), named as
/// hints must name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinInput {
    /// The name a hint matches: alias, table or CTE name; `None` for a join
    /// subtree or an unnamed relation.
    pub name: Option<String>,
    /// The catalog table under an alias ([`InputKind::Alias`]), to suggest
    /// the alias when a hint names the table (H32).
    pub table: Option<String>,
    /// What the input is.
    pub kind: InputKind,
}

impl JoinInput {
    /// Names the relation `plan` is, looking through filters and
    /// projections (H12).
    pub fn of(plan: &LogicalPlan) -> JoinInput {
        match plan {
            LogicalPlan::Filter(f) => JoinInput::of(&f.input),
            LogicalPlan::Projection(p) => JoinInput::of(&p.input),
            LogicalPlan::TableScan(scan) => JoinInput {
                name: Some(scan.table_name.table().to_string()),
                table: None,
                kind: InputKind::Table,
            },
            LogicalPlan::SubqueryAlias(sa) => {
                let name = Some(sa.alias.table().to_string());
                match JoinInput::of(&sa.input) {
                    JoinInput {
                        kind: InputKind::Table,
                        name: table,
                        ..
                    } => JoinInput {
                        name,
                        table,
                        kind: InputKind::Alias,
                    },
                    _ => JoinInput {
                        name,
                        table: None,
                        kind: InputKind::Derived,
                    },
                }
            }
            LogicalPlan::Join(_) => JoinInput {
                name: None,
                table: None,
                kind: InputKind::Join,
            },
            _ => JoinInput {
                name: None,
                table: None,
                kind: InputKind::Other,
            },
        }
    }
}

/// One join of a query block.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinRef {
    /// Where the `LogicalPlan::Join` is in [`PlannedQuery::plan`](super::PlannedQuery::plan).
    pub path: PlanPath,
    /// The join's type as planned.
    pub join_type: JoinType,
    /// The left input, named.
    pub left: JoinInput,
    /// The right input, named.
    pub right: JoinInput,
}

/// A table hint (`t /*+ OPTIONS(...) */ [AS a]`, H06) as written after a
/// table name in a block's FROM clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableHint {
    /// The table name as written, identifiers folded (unquoted to lower case).
    pub table: String,
    /// The alias that follows, if any, folded.
    pub alias: Option<String>,
    /// The hint comment.
    pub hint: RawHintBlock,
}

/// One table scan of a query block, with the table hints written after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanRef {
    /// Where the `LogicalPlan::TableScan` is in the final plan.
    pub path: PlanPath,
    /// The catalog table scanned.
    pub table: String,
    /// The alias it is known by in the block, if any.
    pub alias: Option<String>,
    /// Its table hints (H06, H40): they apply to this scan only.
    pub hints: Vec<RawHintBlock>,
}

/// One query block: a `SELECT` with its hints, its joins and its inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryBlock {
    /// The block's number (pre-order over the statement's SELECTs; 0 is
    /// the first SELECT of the outer query).
    pub id: usize,
    /// The hint comment after the block's `SELECT`, if any (at most one: two
    /// are rejected as H04).
    pub hints: Vec<RawHintBlock>,
    /// Table hints written in this block's FROM clause.
    pub table_hints: Vec<TableHint>,
    /// The block's joins, in plan post-order (inner joins before the joins
    /// above them).
    pub joins: Vec<JoinRef>,
    /// The named relations of the block's FROM clause: what a hint of this
    /// block may name (H11).
    pub relations: Vec<JoinInput>,
    /// The block's table scans.
    pub scans: Vec<ScanRef>,
    /// The view whose body holds this block (the innermost one, for views
    /// reading views); `None` for the blocks of the query itself.
    pub view: Option<String>,
}

/// What the AST pass found for one block.
#[derive(Debug, Default)]
pub(crate) struct AstBlock {
    hints: Vec<RawHintBlock>,
    table_hints: Vec<TableHint>,
}

/// The blocks [`mark_blocks`] found in one statement.
#[derive(Debug, Default)]
pub(crate) struct MarkedBlocks {
    /// The blocks, numbered from the `first` id given to [`mark_blocks`].
    pub(crate) blocks: Vec<AstBlock>,
    /// Their ids in post-order of their syntactic nesting (each block
    /// after the blocks inside it, siblings in source order).
    pub(crate) post_order: Vec<usize>,
}

/// Folds an identifier as SQL does: unquoted to lower case, quoted kept.
pub(crate) fn fold_ident(ident: &Ident) -> String {
    match ident.quote_style {
        None => ident.value.to_lowercase(),
        Some(_) => ident.value.clone(),
    }
}

fn fold_name(name: &ObjectName) -> String {
    name.0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => fold_ident(ident),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

struct BlockMarking<'a> {
    comments: &'a mut HintComments,
    /// The id of `blocks[0]`.
    first: usize,
    blocks: Vec<AstBlock>,
    stack: Vec<usize>,
    post_order: Vec<usize>,
}

impl VisitorMut for BlockMarking<'_> {
    type Break = SqlError;

    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<SqlError> {
        let id = self.first + self.blocks.len();
        let hints = self.comments.claim_after(select.select_token.0.span.start);
        if let Some(second) = hints.get(1) {
            return ControlFlow::Break(SqlError::syntax(
                "more than one hint block after SELECT (H04): write all hints in one /*+ ... */",
                second.line,
                second.col,
            ));
        }
        let marker = match Parser::new(&TenonDialect::default())
            .try_with_sql(&format!("{BLOCK_MARKER}({id})"))
            .and_then(|mut p| p.parse_expr())
        {
            Ok(marker) => marker,
            Err(e) => return ControlFlow::Break(e.into()),
        };
        select.selection = Some(match select.selection.take() {
            Some(user) => Expr::BinaryOp {
                left: Box::new(user),
                op: BinaryOperator::And,
                right: Box::new(marker),
            },
            None => marker,
        });
        self.blocks.push(AstBlock {
            hints,
            table_hints: Vec::new(),
        });
        self.stack.push(id);
        ControlFlow::Continue(())
    }

    fn post_visit_select(&mut self, _select: &mut Select) -> ControlFlow<SqlError> {
        if let Some(id) = self.stack.pop() {
            self.post_order.push(id);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<SqlError> {
        let TableFactor::Table {
            name,
            alias,
            args: None,
            ..
        } = factor
        else {
            return ControlFlow::Continue(());
        };
        let Some(ObjectNamePart::Identifier(last)) = name.0.last() else {
            return ControlFlow::Continue(());
        };
        let hints = self.comments.claim_after(last.span.start);
        if let Some(&block) = self.stack.last() {
            let table = fold_name(name);
            let alias = alias.as_ref().map(|a| fold_ident(&a.name));
            self.blocks[block - self.first]
                .table_hints
                .extend(hints.into_iter().map(|hint| TableHint {
                    table: table.clone(),
                    alias: alias.clone(),
                    hint,
                }));
        }
        ControlFlow::Continue(())
    }
}

/// Numbers the SELECTs of `statement` from `first` on, adds their markers
/// and collects their hint comments and table hints.
///
/// # Errors
/// Two hint blocks after one SELECT (H04), as a syntax error at the second.
pub(crate) fn mark_blocks(
    statement: &mut Statement,
    comments: &mut HintComments,
    first: usize,
) -> Result<MarkedBlocks, SqlError> {
    let mut marking = BlockMarking {
        comments,
        first,
        blocks: Vec::new(),
        stack: Vec::new(),
        post_order: Vec::new(),
    };
    if let ControlFlow::Break(e) = statement.visit(&mut marking) {
        return Err(e);
    }
    Ok(MarkedBlocks {
        blocks: marking.blocks,
        post_order: marking.post_order,
    })
}

/// Splits the marker off a filter predicate: `(block id, rest of predicate)`.
fn take_marker(predicate: &DfExpr) -> Option<(usize, Option<DfExpr>)> {
    let mut id = None;
    let rest: Vec<DfExpr> = split_conjunction_owned(predicate.clone())
        .into_iter()
        .filter(|c| match marker_id(c) {
            Some(found) => {
                id = Some(found);
                false
            }
            None => true,
        })
        .collect();
    id.map(|id| (id, conjunction(rest)))
}

fn marker_id(expr: &DfExpr) -> Option<usize> {
    let DfExpr::ScalarFunction(call) = expr else {
        return None;
    };
    if call.func.name() != BLOCK_MARKER {
        return None;
    }
    match call.args.first() {
        Some(DfExpr::Literal(ScalarValue::Int64(Some(id)), _)) => usize::try_from(*id).ok(),
        _ => None,
    }
}

/// Whether a plan still holds a block marker (a bug if it does after
/// [`attribute`]).
pub(crate) fn has_marker(plan: &LogicalPlan) -> bool {
    let mut found = false;
    let _ = plan.apply_with_subqueries(|node| {
        let _ = node.apply_expressions(|e| {
            e.apply(|e| {
                found |= marker_id(e).is_some();
                Ok(TreeNodeRecursion::Continue)
            })
        });
        Ok(TreeNodeRecursion::Continue)
    });
    found
}

struct Attribution {
    blocks: Vec<QueryBlock>,
    path: Vec<usize>,
    /// Per block: the block its marker sits in, if any.
    parents: Vec<Option<usize>>,
    /// Per block: whether its marker was found in the plan.
    seen: Vec<bool>,
}

/// The plan without markers, and what attribution found per block.
pub(crate) struct Attributed {
    /// The plan, markers removed.
    pub(crate) plan: LogicalPlan,
    /// Every block, indexed by id (also those whose marker never reached
    /// the plan: an unused CTE, a view reference a CTE shadowed).
    pub(crate) blocks: Vec<QueryBlock>,
    /// Per block: the block its marker sits in (the one whose FROM clause,
    /// WHERE clause or select list holds it), `None` at the top.
    pub(crate) parents: Vec<Option<usize>>,
    /// Per block: whether its marker was in the plan.
    pub(crate) seen: Vec<bool>,
}

/// Whether `plan` is a join, possibly under filters.
fn is_join_under_filters(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Filter(f) => is_join_under_filters(&f.input),
        LogicalPlan::Join(_) => true,
        other => super::as_expand(other).is_some(),
    }
}

/// Removes the block markers from `plan` and attributes its joins and
/// scans to the blocks found by [`mark_blocks`] (all of them, numbered
/// from 0 without gaps).
pub(crate) fn attribute(
    plan: LogicalPlan,
    ast_blocks: Vec<AstBlock>,
) -> Result<Attributed, SqlError> {
    let n = ast_blocks.len();
    let mut attribution = Attribution {
        blocks: ast_blocks
            .into_iter()
            .enumerate()
            .map(|(id, b)| QueryBlock {
                id,
                hints: b.hints,
                table_hints: b.table_hints,
                joins: Vec::new(),
                relations: Vec::new(),
                scans: Vec::new(),
                view: None,
            })
            .collect(),
        path: Vec::new(),
        parents: vec![None; n],
        seen: vec![false; n],
    };
    let plan = attribution.rebuild(plan, None, None)?;
    Ok(Attributed {
        plan,
        blocks: attribution.blocks,
        parents: attribution.parents,
        seen: attribution.seen,
    })
}

impl Attribution {
    fn rebuild(
        &mut self,
        plan: LogicalPlan,
        block: Option<usize>,
        alias: Option<&str>,
    ) -> DfResult<LogicalPlan> {
        // A block's marker filter: strip the marker, note the block.
        let outer = block;
        let (plan, block, marked) = match plan {
            LogicalPlan::Filter(filter) => match take_marker(&filter.predicate) {
                Some((id, Some(rest))) => {
                    self.note_block(id, outer)?;
                    (
                        LogicalPlan::Filter(Filter::try_new(rest, filter.input)?),
                        Some(id),
                        true,
                    )
                }
                Some((id, None)) => {
                    self.note_block(id, outer)?;
                    // the filter disappears: its input takes its place
                    let input =
                        self.rebuild(Arc::unwrap_or_clone(filter.input), Some(id), alias)?;
                    self.note_relations(id, &input);
                    return Ok(input);
                }
                None => (LogicalPlan::Filter(filter), block, false),
            },
            other => (other, block, false),
        };

        let child_alias = match &plan {
            LogicalPlan::SubqueryAlias(sa) => Some(sa.alias.table().to_string()),
            // a pushed-down filter between an alias and its scan
            LogicalPlan::Filter(_) => alias.map(str::to_string),
            _ => None,
        };
        let n_inputs = plan.inputs().len();
        let mut index = 0;
        let plan = plan
            .map_children(|child| {
                self.path.push(index);
                index += 1;
                let rebuilt = self.rebuild(child, block, child_alias.as_deref());
                self.path.pop();
                rebuilt.map(Transformed::yes)
            })?
            .data;
        let mut index = n_inputs;
        let plan = plan
            .map_subqueries(|sub| {
                self.path.push(index);
                index += 1;
                let rebuilt = self.rebuild(sub, block, None);
                self.path.pop();
                rebuilt.map(Transformed::yes)
            })?
            .data;

        if let (true, Some(id), LogicalPlan::Filter(f)) = (marked, block, &plan) {
            self.note_relations(id, &f.input);
        }
        let Some(id) = block else {
            return Ok(plan);
        };
        match &plan {
            LogicalPlan::Join(join) => self.blocks[id].joins.push(JoinRef {
                path: PlanPath(self.path.clone()),
                join_type: join.join_type,
                left: JoinInput::of(&join.left),
                right: JoinInput::of(&join.right),
            }),
            LogicalPlan::TableScan(scan) => {
                let table = scan.table_name.table().to_string();
                let alias = alias.map(str::to_string);
                let hints = self.blocks[id]
                    .table_hints
                    .iter()
                    .filter(|h| h.table == table && h.alias == alias)
                    .map(|h| h.hint.clone())
                    .collect();
                self.blocks[id].scans.push(ScanRef {
                    path: PlanPath(self.path.clone()),
                    table,
                    alias,
                    hints,
                });
            }
            _ => {}
        }
        Ok(plan)
    }

    /// Records that block `id`'s marker was found inside block `outer`.
    fn note_block(&mut self, id: usize, outer: Option<usize>) -> DfResult<()> {
        if id >= self.blocks.len() {
            return internal_err!("query block marker {id} without a block");
        }
        self.seen[id] = true;
        if outer != Some(id) {
            self.parents[id] = outer;
        }
        Ok(())
    }

    /// Records the named leaves of a block's FROM plan.
    fn note_relations(&mut self, id: usize, from: &LogicalPlan) {
        match from {
            LogicalPlan::Join(join) => {
                self.note_relations(id, &join.left);
                self.note_relations(id, &join.right);
            }
            // a filter pushed down onto a join input that is a join
            LogicalPlan::Filter(f) if is_join_under_filters(&f.input) => {
                self.note_relations(id, &f.input);
            }
            // the columns of a reordered join chain put back in their
            // written order (`join_reorder.rs`)
            LogicalPlan::Projection(p)
                if matches!(p.input.as_ref(), LogicalPlan::Join(_))
                    && p.expr
                        .iter()
                        .all(|e| matches!(e, datafusion_expr::Expr::Column(_))) =>
            {
                self.note_relations(id, &p.input);
            }
            // the rows an expansion joins, then the expansion itself
            LogicalPlan::Extension(_) if super::as_expand(from).is_some() => {
                if let Some(e) = super::as_expand(from) {
                    self.note_relations(id, &e.input);
                    self.blocks[id].relations.push(JoinInput {
                        name: Some(e.alias.clone()),
                        table: Some(e.text.clone()),
                        kind: InputKind::Expansion,
                    });
                }
            }
            other => {
                let input = JoinInput::of(other);
                if input.name.is_some() {
                    self.blocks[id].relations.push(input);
                }
            }
        }
    }
}

//! Expansions: `UNNEST(...)` (with `WITH ORDINALITY`) and `LATERAL
//! TABLE(f(...))` table functions, joined with the rows before them in FROM
//! by CROSS JOIN, a comma, INNER JOIN or `LEFT JOIN ... ON TRUE`.
//!
//! datafusion-sql refuses `WITH ORDINALITY`, unnests a map not at all and a
//! list of rows into one struct column, and plans a table function's
//! arguments without their types. So tenon carries an expansion through
//! `SqlToRel` as a lateral call of a marker table function whose source it
//! builds itself ([`ExpandSource`], with the exact output columns):
//!
//! ```text
//! orders CROSS JOIN UNNEST(orders.tags) WITH ORDINALITY AS u(tag, pos)
//!   ──rewrite (AST)──► orders CROSS JOIN LATERAL __tenon_expand(
//!                        'unnest', true, 'UNNEST(orders.tags)', 2, 'tag', 'pos',
//!                        (SELECT orders.tags)) AS u
//!   ──SqlToRel──► Join(orders, SubqueryAlias(u, TableScan(ExpandSource)))
//!   ──plan_expansions──► Expand(orders, [orders.tags], unnest with ordinality)
//! ```
//!
//! Each argument travels as a scalar subquery `(SELECT arg)`: `SqlToRel`
//! plans it with the columns before it in FROM as outer references, which
//! carry their types, so the source knows the argument types when it is
//! made. [`plan_expansions`] then turns each such join into an [`Expand`]
//! node over the join's left input (an INNER join's ON condition becomes a
//! filter above it) and a factor first in FROM into one over a single empty
//! row.
//!
//! What an `UNNEST` argument gives ([`tenon_kernels::Collection`]): an
//! array its elements (an array of rows one column per field), a map its
//! keys and values, a multiset each element repeated by its count; several
//! arguments are zipped, the shorter padded with NULLs. Columns are named
//! by the alias list, else `unnest` (`unnest2`, ... for later arguments),
//! `key` / `value`, the fields' names, `ordinality`.

mod node;
mod rewrite;

use std::collections::HashSet;
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};
use datafusion_common::tree_node::{Transformed, TreeNode};
use datafusion_common::{DFSchema, ScalarValue};
use datafusion_expr::logical_plan::builder::build_join_schema;
use datafusion_expr::logical_plan::{EmptyRelation, Extension, Filter};
use datafusion_expr::utils::conjunction;
use datafusion_expr::{Expr, JoinType, LogicalPlan, LogicalPlanBuilder, TableSource, TableType};

pub use node::{Expand, ExpandKind};
pub(crate) use rewrite::rewrite_expansions;

use crate::sql::catalog::Catalog;
use crate::sql::error::SqlError;
use tenon_kernels::Collection;

/// The name of the marker table function (module docs).
pub(crate) const EXPAND_MARKER: &str = "__tenon_expand";

/// The table source of a marker call: the expansion's output columns, and
/// what [`plan_expansions`] needs to make the [`Expand`] node.
#[derive(Debug)]
pub(crate) struct ExpandSource {
    kind: ExpandKind,
    text: String,
    /// The arguments: each the expression of its `(SELECT arg)`, outer
    /// references turned back into columns.
    args: Vec<Expr>,
    schema: SchemaRef,
}

impl TableSource for ExpandSource {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Temporary
    }
}

fn plan_err(message: String) -> datafusion_common::DataFusionError {
    datafusion_common::DataFusionError::External(Box::new(SqlError::Unsupported(message)))
}

/// The source of a marker call `__tenon_expand(kind, ordinality, text, n,
/// names..., (SELECT arg)...)` (module docs).
///
/// # Errors
/// An argument that is not a collection (for UNNEST), argument types the
/// table function does not take, an alias list of the wrong length, two
/// columns of the same name.
pub(crate) fn expand_source(
    catalog: &Catalog,
    args: Vec<Expr>,
) -> datafusion_common::Result<Arc<dyn TableSource>> {
    let literal = |e: Option<&Expr>| match e {
        Some(Expr::Literal(v, _)) => Some(v.clone()),
        _ => None,
    };
    let string = |e: Option<&Expr>| match literal(e) {
        Some(ScalarValue::Utf8(Some(s))) => Ok(s),
        _ => Err(plan_err(format!(
            "internal: a malformed {EXPAND_MARKER} call"
        ))),
    };
    let kind_name = string(args.first())?;
    let ordinality = matches!(literal(args.get(1)), Some(ScalarValue::Boolean(Some(true))));
    let text = string(args.get(2))?;
    let n = match literal(args.get(3)) {
        Some(ScalarValue::Int64(Some(n))) => usize::try_from(n).unwrap_or(0),
        _ => 0,
    };
    let names = (0..n)
        .map(|i| string(args.get(4 + i)))
        .collect::<datafusion_common::Result<Vec<_>>>()?;
    let (exprs, types): (Vec<Expr>, Vec<DataType>) = args
        .iter()
        .skip(4 + n)
        .map(argument)
        .collect::<datafusion_common::Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let (kind, mut fields) = match kind_name.strip_prefix("function:") {
        Some(f) => {
            let function = catalog
                .table_function(f)
                .ok_or_else(|| plan_err(format!("there is no table function `{f}`")))?;
            let fields = function
                .columns(&types)
                .map_err(|e| plan_err(format!("`{text}`: {e}")))?;
            (ExpandKind::Function(Arc::clone(function)), fields)
        }
        None => {
            let mut fields: Vec<FieldRef> = Vec::new();
            for (i, (e, t)) in exprs.iter().zip(&types).enumerate() {
                let columns = Collection::columns(t).map_err(|_| {
                    plan_err(format!(
                        "`{text}`: `{e}` is {t}, not an array, a map or a multiset: only a \
                         collection can be unnested"
                    ))
                })?;
                let single =
                    columns.len() == 1 && !matches!(element_of(t), Some(DataType::Struct(_)));
                for c in columns {
                    fields.push(if single {
                        let name = if i == 0 {
                            "unnest".to_string()
                        } else {
                            format!("unnest{}", i + 1)
                        };
                        Arc::new(c.as_ref().clone().with_name(name))
                    } else {
                        c
                    });
                }
            }
            if ordinality {
                fields.push(Arc::new(Field::new("ordinality", DataType::Int64, true)));
            }
            (ExpandKind::Unnest { ordinality }, fields)
        }
    };
    if !names.is_empty() {
        if names.len() != fields.len() {
            let listing: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            return Err(plan_err(format!(
                "`{text}` gives {} column{} ({}), but the alias names {}: name each of them",
                fields.len(),
                if fields.len() == 1 { "" } else { "s" },
                listing.join(", "),
                names.len()
            )));
        }
        fields = fields
            .iter()
            .zip(&names)
            .map(|(f, n)| Arc::new(f.as_ref().clone().with_name(n)))
            .collect();
    }
    let mut seen = HashSet::new();
    for f in &fields {
        if !seen.insert(f.name().to_lowercase()) {
            return Err(plan_err(format!(
                "`{text}`: two of its columns are named `{}`: give them different names in the \
                 alias list, `AS t(a, b{})`",
                f.name(),
                if ordinality { ", position" } else { "" }
            )));
        }
    }
    Ok(Arc::new(ExpandSource {
        kind,
        text,
        args: exprs,
        schema: Arc::new(Schema::new(fields)),
    }))
}

/// The element type of a list type.
fn element_of(t: &DataType) -> Option<&DataType> {
    match t {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            Some(f.data_type())
        }
        _ => None,
    }
}

/// One `(SELECT arg)`: the argument, outer references as columns, and its
/// type.
fn argument(e: &Expr) -> datafusion_common::Result<(Expr, DataType)> {
    let Expr::ScalarSubquery(sq) = e else {
        return Err(plan_err(format!(
            "internal: a malformed {EXPAND_MARKER} argument"
        )));
    };
    let t = sq.subquery.schema().field(0).data_type().clone();
    let LogicalPlan::Projection(p) = sq.subquery.as_ref() else {
        return Err(plan_err(format!(
            "an argument of an expansion that is not a plain expression: {e}"
        )));
    };
    let [arg] = p.expr.as_slice() else {
        return Err(plan_err(
            "internal: an expansion argument of several columns".into(),
        ));
    };
    let arg = arg.clone().unalias();
    let arg = arg
        .transform(|e| match e {
            Expr::OuterReferenceColumn(_, c) => Ok(Transformed::yes(Expr::Column(c))),
            Expr::ScalarSubquery(_) | Expr::Exists(_) | Expr::InSubquery(_) => Err(plan_err(
                "a subquery inside the argument of UNNEST or a table function: compute it in a \
                 FROM item before"
                    .into(),
            )),
            other => Ok(Transformed::no(other)),
        })?
        .data;
    Ok((arg, t))
}

/// The expansion source under a join's right input, with its alias.
fn expand_scan(plan: &LogicalPlan) -> Option<(String, &ExpandSource)> {
    match plan {
        LogicalPlan::SubqueryAlias(a) => {
            expand_scan(&a.input).map(|(_, s)| (a.alias.table().to_string(), s))
        }
        LogicalPlan::TableScan(scan) => scan
            .source
            .downcast_ref::<ExpandSource>()
            .map(|s| (scan.table_name.table().to_string(), s)),
        _ => None,
    }
}

/// Turns the joins with marker calls into [`Expand`] nodes (module docs),
/// also inside subqueries (`x IN (SELECT ... FROM UNNEST(...))`).
///
/// # Errors
/// An argument that reads a column of an enclosing query.
pub fn plan_expansions(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    let rewritten = plan.transform_down_with_subqueries(|node| {
        // `FROM t, LATERAL TABLE(f(t.x)) AS g CROSS JOIN UNNEST(g.y)` is
        // planned t × (g ⋈ u): the expansion that starts the right side
        // reads `t`, so it joins `t` first, ((t × g) ⋈ u)
        if let LogicalPlan::Join(join) = &node
            && join.join_type == JoinType::Inner
            && join.on.is_empty()
            && join.filter.is_none()
            && let LogicalPlan::Join(_) = join.right.as_ref()
            && starts_with_expansion(&join.right)
        {
            let rotated = rotate((*join.left).clone(), (*join.right).clone())?;
            return Ok(Transformed::yes(convert(rotated)?.data));
        }
        convert(node)
    });
    match rewritten {
        Ok(t) => Ok(t.data),
        Err(e) => Err(SqlError::from(e)),
    }
}

/// One node: a join with an expansion on its right becomes an [`Expand`],
/// an expansion first in FROM one over a single empty row.
fn convert(node: LogicalPlan) -> datafusion_common::Result<Transformed<LogicalPlan>> {
    {
        if let LogicalPlan::Join(join) = &node
            && let Some((alias, source)) = expand_scan(&join.right)
        {
            let expand = make_node(
                source,
                alias,
                (*join.left).clone(),
                join.join_type == JoinType::Left,
                &join.schema,
            )?;
            let mut conditions: Vec<Expr> = join
                .on
                .iter()
                .map(|(l, r)| l.clone().eq(r.clone()))
                .collect();
            conditions.extend(join.filter.clone());
            conditions.retain(|c| !matches!(c, Expr::Literal(ScalarValue::Boolean(Some(true)), _)));
            let plan = match conjunction(conditions) {
                Some(predicate) if join.join_type == JoinType::Inner => {
                    LogicalPlan::Filter(Filter::try_new(predicate, Arc::new(expand))?)
                }
                Some(_) => {
                    return Err(plan_err(format!(
                        "`LEFT JOIN {}` with a condition: write `ON TRUE`",
                        source.text
                    )));
                }
                None => expand,
            };
            return Ok(Transformed::yes(plan));
        }
        if let Some((alias, source)) = expand_scan(&node) {
            // first in FROM: over one empty row
            let one = LogicalPlan::EmptyRelation(EmptyRelation {
                produce_one_row: true,
                schema: Arc::new(DFSchema::empty()),
            });
            let schema = Arc::clone(node.schema());
            return Ok(Transformed::yes(make_node(
                source, alias, one, false, &schema,
            )?));
        }
        Ok(Transformed::no(node))
    }
}

/// Whether the leftmost leaf of a join tree is an expansion.
fn starts_with_expansion(plan: &LogicalPlan) -> bool {
    match plan {
        LogicalPlan::Join(j) => starts_with_expansion(&j.left),
        other => expand_scan(other).is_some(),
    }
}

/// `left × right` with `left` joined to the leftmost leaf of `right`
/// instead: the same columns in the same order.
fn rotate(left: LogicalPlan, right: LogicalPlan) -> datafusion_common::Result<LogicalPlan> {
    match right {
        LogicalPlan::Join(j) => {
            let new_left = rotate(left, (*j.left).clone())?;
            let schema = build_join_schema(new_left.schema(), j.right.schema(), &j.join_type)?;
            Ok(LogicalPlan::Join(datafusion_expr::logical_plan::Join {
                left: Arc::new(new_left),
                schema: Arc::new(schema),
                ..j
            }))
        }
        leaf => LogicalPlanBuilder::from(left).cross_join(leaf)?.build(),
    }
}

fn make_node(
    source: &ExpandSource,
    alias: String,
    input: LogicalPlan,
    outer: bool,
    schema: &datafusion_common::DFSchemaRef,
) -> datafusion_common::Result<LogicalPlan> {
    for a in &source.args {
        for c in a.column_refs() {
            if !input.schema().has_column(c) {
                return Err(plan_err(format!(
                    "`{}` reads `{c}`, which is not a column of the tables before it in FROM \
                     (an expansion's arguments read the rows it joins)",
                    source.text
                )));
            }
        }
    }
    Ok(LogicalPlan::Extension(Extension {
        node: Arc::new(Expand {
            input,
            args: source.args.clone(),
            kind: source.kind.clone(),
            outer,
            text: source.text.clone(),
            alias,
            schema: Arc::clone(schema),
        }),
    }))
}

/// The [`Expand`] of an extension node, if it is one.
pub fn as_expand(plan: &LogicalPlan) -> Option<&Expand> {
    match plan {
        LogicalPlan::Extension(e) => e.node.as_any().downcast_ref::<Expand>(),
        _ => None,
    }
}

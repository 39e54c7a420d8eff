//! `SELECT *` in time linear in the number of columns.
//!
//! datafusion-sql plans a SELECT list in several passes that each compare
//! every item with every other (`push_projection_dedupl` formats each
//! expression's name and compares it with the names of all items before
//! it) or look each column up by name in a linear scan of the schema
//! (`Projection::try_new` -> `exprlist_to_fields`). For a SELECT list of
//! a few columns that is nothing; a `*` over a file of tens of thousands
//! of columns expands to as many items, and those passes grow with the
//! square of the width.
//!
//! So tenon hides the width from `SqlToRel` and expands `*` itself:
//!
//! 1. **Mark** ([`mark_wildcards`], AST): in the statement's own SELECT
//!    (the query's body, not a subquery, a CTE or a branch of a set
//!    operation, whose output other SQL refers to by name), each plain `*`
//!    or `t.*` becomes a call of the marker function `__tenon_wildcard(<n>)`,
//!    a single item that `SqlToRel` plans in constant time.
//! 2. **Plan**: `SqlToRel` plans the marked statement. Its projection holds
//!    the marker in the `*`'s place, over the plan of FROM and WHERE.
//! 3. **Expand** ([`expand_wildcards`], plan): the projection's marker is
//!    replaced by the columns `*` stands for, from
//!    `datafusion_expr::utils::expand_wildcard` (`expand_qualified_wildcard`
//!    for `t.*`: the functions `SqlToRel` itself uses: the same columns in the same order, a `USING` column
//!    once), and the projection is rebuilt with a schema made from its
//!    input's fields (a map from column to field, no search by name).
//!
//! Marking applies only where the result is the same as `SqlToRel`'s:
//! a SELECT without GROUP BY, HAVING, QUALIFY, windows, DISTINCT ON or
//! function calls in its list (no aggregate or window can sit between the
//! FROM clause and the projection), with a FROM clause, and with ORDER BY
//! only when the list is nothing but `*` (its names then mean the same
//! columns with or without the list), without DISTINCT, and no ORDER BY
//! item is a position.
//! Anything else, and any error while planning the marked statement, is
//! planned from the unmarked statement as before (so error messages are
//! `SqlToRel`'s own).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_schema::{DataType, FieldRef};
use datafusion_common::{
    Column, DFSchema, FunctionalDependencies, Result as DfResult, TableReference, internal_err,
    plan_err,
};
use datafusion_expr::utils::{expand_qualified_wildcard, expand_wildcard};
use datafusion_expr::{
    ColumnarValue, Expr as DfExpr, LogicalPlan, Projection, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};
use datafusion_sql::planner::object_name_to_table_reference;
use sqlparser::ast::{
    Distinct, Expr, GroupByExpr, OrderByKind, Query, SelectFlavor, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Statement, Value, Visit, Visitor,
    WildcardAdditionalOptions,
};
use sqlparser::parser::Parser;

use super::dialect::TenonDialect;

/// Name of the marker function that stands for a `*` through `SqlToRel`.
pub(crate) const WILDCARD_MARKER: &str = "__tenon_wildcard";

/// The marker function: planned, never run (expanded before the plan
/// leaves the front end).
#[derive(Debug, PartialEq, Eq, Hash)]
struct WildcardMarker {
    signature: Signature,
}

impl ScalarUDFImpl for WildcardMarker {
    fn name(&self) -> &str {
        WILDCARD_MARKER
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        internal_err!("{WILDCARD_MARKER} is expanded by the SQL front end and never runs")
    }
}

/// The marker as a UDF, for the catalog's function registry.
pub(crate) fn wildcard_marker_udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(WildcardMarker {
        // volatile: nothing may fold or move it
        signature: Signature::exact(vec![DataType::Int64], Volatility::Volatile),
    })
}

/// A statement whose `*`s were marked, and how to expand them.
pub(crate) struct Marked {
    /// The statement with each marked `*` replaced by a marker call.
    pub(crate) statement: Statement,
    /// Whether the query has an ORDER BY (then the list is only `*`s, and
    /// `SqlToRel` adds the ORDER BY columns to the projection, which the
    /// expansion already holds).
    ordered: bool,
    /// The qualifier of marker `n` (`t.*`), or `None` for a plain `*`.
    qualifiers: Vec<Option<TableReference>>,
}

/// `statement` with each plain `*` (or `t.*`) of its own SELECT list replaced by a
/// marker call (module docs), or `None` when marking does not apply.
pub(crate) fn mark_wildcards(statement: &Statement) -> Option<Marked> {
    let Statement::Query(query) = statement else {
        return None;
    };
    let ordered = markable_query(query)?;
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    let markable_select = matches!(select.distinct, None | Some(Distinct::Distinct))
        && select.top.is_none()
        && select.exclude.is_none()
        && select.into.is_none()
        && !select.from.is_empty()
        && select.lateral_views.is_empty()
        && select.prewhere.is_none()
        && select.connect_by.is_empty()
        && matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
        && select.cluster_by.is_empty()
        && select.distribute_by.is_empty()
        && select.sort_by.is_empty()
        && select.having.is_none()
        && select.named_window.is_empty()
        && select.qualify.is_none()
        && select.value_table_mode.is_none()
        && matches!(select.flavor, SelectFlavor::Standard);
    // DISTINCT with ORDER BY: SqlToRel checks the ORDER BY against the
    // list, which the marker would hide
    if !markable_select || (ordered && select.distinct.is_some()) {
        return None;
    }
    let mut wildcards = 0;
    for item in &select.projection {
        match item {
            SelectItem::Wildcard(options) if plain(options) => wildcards += 1,
            SelectItem::QualifiedWildcard(
                SelectItemQualifiedWildcardKind::ObjectName(_),
                options,
            ) if plain(options) => wildcards += 1,
            _ if ordered => return None,
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                if calls_function(e) {
                    return None;
                }
            }
            _ => return None,
        }
    }
    if wildcards == 0 {
        return None;
    }
    let mut statement = statement.clone();
    let Statement::Query(query) = &mut statement else {
        return None;
    };
    let SetExpr::Select(select) = query.body.as_mut() else {
        return None;
    };
    let mut qualifiers = Vec::new();
    for item in &mut select.projection {
        let qualifier = match item {
            SelectItem::Wildcard(_) => None,
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(name), _) => {
                Some(object_name_to_table_reference(name.clone(), true).ok()?)
            }
            _ => continue,
        };
        let marker = Parser::new(&TenonDialect::default())
            .try_with_sql(&format!("{WILDCARD_MARKER}({})", qualifiers.len()))
            .and_then(|mut p| p.parse_expr())
            .ok()?;
        *item = SelectItem::UnnamedExpr(marker);
        qualifiers.push(qualifier);
    }
    Some(Marked {
        statement,
        ordered,
        qualifiers,
    })
}

/// Whether the query around the SELECT allows marking: `Some(ordered)`.
fn markable_query(query: &Query) -> Option<bool> {
    let plain_query = query.fetch.is_none()
        && query.locks.is_empty()
        && query.for_clause.is_none()
        && query.settings.is_none()
        && query.format_clause.is_none()
        && query.pipe_operators.is_empty();
    if !plain_query {
        return None;
    }
    let Some(order_by) = &query.order_by else {
        return Some(false);
    };
    let OrderByKind::Expressions(items) = &order_by.kind else {
        return None;
    };
    let by_position =
        |e: &Expr| matches!(e, Expr::Value(v) if matches!(v.value, Value::Number(..)));
    if order_by.interpolate.is_some()
        || items
            .iter()
            .any(|i| i.with_fill.is_some() || by_position(&i.expr))
    {
        return None;
    }
    Some(true)
}

/// A `*` without EXCLUDE, EXCEPT, REPLACE, RENAME, ILIKE or alias.
fn plain(options: &WildcardAdditionalOptions) -> bool {
    options.opt_ilike.is_none()
        && options.opt_exclude.is_none()
        && options.opt_except.is_none()
        && options.opt_replace.is_none()
        && options.opt_rename.is_none()
        && options.opt_alias.is_none()
}

/// Whether `expr` calls a function anywhere (an aggregate or a window
/// would put a node between FROM and the projection).
fn calls_function(expr: &Expr) -> bool {
    struct Calls;
    impl Visitor for Calls {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> std::ops::ControlFlow<()> {
            if matches!(expr, Expr::Function(_)) {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        }
    }
    expr.visit(&mut Calls).is_break()
}

/// A qualified output field of a projection.
type QualifiedField = (Option<TableReference>, FieldRef);

/// Replaces the markers in the projection of the plan `SqlToRel` made of
/// a statement marked by [`mark_wildcards`] by the columns they stand for.
///
/// The projection is on the plan's spine (the chain of single-input nodes
/// from its root: DISTINCT, LIMIT, and for ORDER BY a projection of the
/// sorted columns over a sort); the nodes above it are rebuilt on the new
/// projection.
///
/// # Errors
/// A plan error when the marker is not where marking put it, or the
/// expanded columns' names clash (the caller then plans the statement
/// unmarked, for `SqlToRel`'s own message).
pub(crate) fn expand_wildcards(plan: LogicalPlan, marked: &Marked) -> DfResult<LogicalPlan> {
    let mut expansions: HashMap<String, Vec<QualifiedField>> = HashMap::new();
    let plan = expand_spine(plan, marked, &mut expansions)?;
    if expansions.is_empty() {
        return plan_err!("internal: no {WILDCARD_MARKER} on the plan's spine");
    }
    Ok(plan)
}

fn expand_spine(
    plan: LogicalPlan,
    marked: &Marked,
    expansions: &mut HashMap<String, Vec<QualifiedField>>,
) -> DfResult<LogicalPlan> {
    match plan {
        LogicalPlan::Projection(projection) => {
            let input = Arc::unwrap_or_clone(projection.input);
            let input = if holds_marker(&projection.expr) {
                input
            } else {
                expand_spine(input, marked, expansions)?
            };
            rebuild_projection(
                projection.expr,
                Arc::new(input),
                &projection.schema,
                marked,
                expansions,
            )
            .map(LogicalPlan::Projection)
        }
        LogicalPlan::Sort(_) | LogicalPlan::Limit(_) | LogicalPlan::Distinct(_) => {
            let [input] = plan.inputs()[..] else {
                return plan_err!("internal: a spine node without one input");
            };
            let input = expand_spine(input.clone(), marked, expansions)?;
            plan.with_new_exprs(plan.expressions(), vec![input])
        }
        other => plan_err!(
            "internal: {WILDCARD_MARKER} not found above {}",
            other.display()
        ),
    }
}

fn is_marker(expr: &DfExpr) -> bool {
    matches!(expr, DfExpr::ScalarFunction(call) if call.func.name() == WILDCARD_MARKER)
}

/// The number of a marker call (its argument).
fn marker_number(expr: &DfExpr) -> Option<usize> {
    match expr {
        DfExpr::ScalarFunction(call) => match call.args.first() {
            Some(DfExpr::Literal(datafusion_common::ScalarValue::Int64(Some(n)), _)) => {
                usize::try_from(*n).ok()
            }
            _ => None,
        },
        _ => None,
    }
}

fn holds_marker(exprs: &[DfExpr]) -> bool {
    exprs.iter().any(is_marker)
}

/// The projection of `expr` over `input` (planned with `schema`) with each marker replaced by the columns of its input
/// that `*` stands for, and each reference to a marker's output (from a
/// projection above a sort) by references to those columns.
fn rebuild_projection(
    expr: Vec<DfExpr>,
    input: Arc<LogicalPlan>,
    schema: &DFSchema,
    marked: &Marked,
    expansions: &mut HashMap<String, Vec<QualifiedField>>,
) -> DfResult<Projection> {
    let ordered = marked.ordered;
    let in_schema = Arc::clone(input.schema());
    let mut exprs: Vec<DfExpr> = Vec::with_capacity(expr.len());
    let mut fields: Vec<QualifiedField> = Vec::with_capacity(expr.len());
    // the columns `*` gave, and whether each item came from a `*`
    let mut from_wildcard: HashSet<Column> = HashSet::new();
    let mut expanded_item: Vec<bool> = Vec::with_capacity(expr.len());
    let mut index: Option<HashMap<Column, usize>> = None;
    for (i, e) in expr.into_iter().enumerate() {
        if is_marker(&e) {
            let index = index.get_or_insert_with(|| {
                in_schema
                    .columns()
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| (c, i))
                    .collect()
            });
            let qualifier = marker_number(&e).and_then(|n| marked.qualifiers.get(n));
            let columns = match qualifier {
                Some(Some(q)) => expand_qualified_wildcard(q, &in_schema, None)?,
                Some(None) => expand_wildcard(&in_schema, &input, None)?,
                None => return plan_err!("internal: a {WILDCARD_MARKER} without its number"),
            };
            let mut expansion = Vec::with_capacity(columns.len());
            for column in columns {
                let DfExpr::Column(c) = &column else {
                    return plan_err!("internal: `*` expanded to {column}, not a column");
                };
                let Some(&at) = index.get(c) else {
                    return plan_err!("internal: `*` expanded to {c}, not in its input");
                };
                let (qualifier, field) = in_schema.qualified_field(at);
                expansion.push((qualifier.cloned(), Arc::clone(field)));
                from_wildcard.insert(c.clone());
                exprs.push(column);
                expanded_item.push(true);
            }
            fields.extend(expansion.iter().cloned());
            expansions.insert(e.schema_name().to_string(), expansion);
        } else if let Some(expansion) = marker_output(&e, expansions) {
            for (qualifier, field) in expansion {
                exprs.push(DfExpr::Column(Column::new(qualifier.clone(), field.name())));
                fields.push((qualifier.clone(), Arc::clone(field)));
                expanded_item.push(true);
            }
        } else {
            let (qualifier, field) = schema.qualified_field(i);
            fields.push((qualifier.cloned(), Arc::clone(field)));
            exprs.push(e);
            expanded_item.push(false);
        }
    }
    if ordered {
        // the ORDER BY columns SqlToRel added are already among `*`'s
        let keep: Vec<bool> = exprs
            .iter()
            .zip(&expanded_item)
            .map(|(e, &expanded)| {
                expanded || !matches!(e, DfExpr::Column(c) if from_wildcard.contains(c))
            })
            .collect();
        exprs = exprs
            .into_iter()
            .zip(&keep)
            .filter_map(|(e, &k)| k.then_some(e))
            .collect();
        fields = fields
            .into_iter()
            .zip(&keep)
            .filter_map(|(f, &k)| k.then_some(f))
            .collect();
    }
    let identity = fields.len() == in_schema.fields().len()
        && exprs
            .iter()
            .zip(in_schema.iter())
            .all(|(e, (q, f))| matches!(e, DfExpr::Column(c) if c.relation.as_ref() == q && &c.name == f.name()));
    let dependencies = if identity {
        in_schema.functional_dependencies().clone()
    } else {
        FunctionalDependencies::empty()
    };
    let out = DFSchema::new_with_metadata(fields, in_schema.metadata().clone())?
        .with_functional_dependencies(dependencies)?;
    Projection::try_new_with_schema(exprs, input, Arc::new(out))
}

/// The expansion a column refers to when it names a marker's output.
fn marker_output<'a>(
    expr: &DfExpr,
    expansions: &'a HashMap<String, Vec<QualifiedField>>,
) -> Option<&'a Vec<QualifiedField>> {
    match expr {
        DfExpr::Column(c) if c.relation.is_none() => expansions.get(&c.name),
        _ => None,
    }
}

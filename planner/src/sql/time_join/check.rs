//! Checks of time joins that need the planned join (its final keys and
//! the types of its time expressions), and the tombstone column hidden
//! from `SELECT *`.

use std::sync::Arc;

use arrow_schema::DataType;
use datafusion_common::tree_node::{Transformed, TreeNodeRecursion};
use datafusion_common::{DataFusionError, Result as DfResult};
use datafusion_expr::type_coercion::binary::comparison_coercion;
use datafusion_expr::{Expr, ExprSchemable, Join, JoinType, LogicalPlan, Projection};

use super::{TimeJoin, TimeJoinKind};
use crate::sql::catalog::Catalog;
use crate::sql::catalog::DELETED_COLUMN;
use crate::sql::error::SqlError;

/// Whether values of `t` can order the rows of an as-of or temporal join.
pub fn time_like(t: &DataType) -> bool {
    use DataType::*;
    matches!(
        t,
        Int8 | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Date32
            | Date64
            | Timestamp(_, _)
            | Duration(_)
            | Decimal128(_, _)
    )
}

/// The type both time expressions are compared as, or why there is none.
pub(crate) fn time_type(join: &Join, tj: &TimeJoin) -> Result<Option<DataType>, String> {
    let (Some(l), Some(r)) = (&tj.left_time, &tj.right_time) else {
        return Ok(match &tj.right_time {
            Some(r) => Some(r.get_type(join.right.schema()).map_err(|e| e.to_string())?),
            None => None,
        });
    };
    let lt = l.get_type(join.left.schema()).map_err(|e| e.to_string())?;
    let rt = r.get_type(join.right.schema()).map_err(|e| e.to_string())?;
    match tj.kind {
        TimeJoinKind::Asof => {
            for (e, t) in [(l, &lt), (r, &rt)] {
                if !time_like(t) {
                    return Err(format!(
                        "{}: `{e}` is of type {t}; an as-of join orders rows by a time, date, \
                         integer or decimal column",
                        tj.clause
                    ));
                }
            }
            comparison_coercion(&lt, &rt)
                .filter(time_like)
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "{}: `{l}` ({lt}) and `{r}` ({rt}) cannot be compared; cast one to the \
                         other's type",
                        tj.clause
                    )
                })
        }
        _ => {
            let same_kind = lt == rt
                || matches!(
                    (&lt, &rt),
                    (DataType::Timestamp(_, _), DataType::Timestamp(_, _))
                );
            if same_kind {
                Ok(Some(rt))
            } else {
                Err(format!(
                    "{}: `{l}` is of type {lt}, but the versions are timed by `{r}` of type \
                     {rt}: the time of the probe row must be of the versions' time type (cast it)",
                    tj.clause
                ))
            }
        }
    }
}

/// The name of the table the right input of a temporal join reads.
fn right_table(plan: &LogicalPlan) -> Option<String> {
    match plan {
        LogicalPlan::TableScan(scan) => Some(scan.table_name.table().to_string()),
        LogicalPlan::SubqueryAlias(a) => right_table(&a.input),
        LogicalPlan::Filter(f) => right_table(&f.input),
        LogicalPlan::Projection(p) => right_table(&p.input),
        _ => None,
    }
}

fn key_column(e: &Expr) -> Option<String> {
    match e {
        Expr::Column(c) => Some(c.name.clone()),
        Expr::Cast(c) => key_column(&c.expr),
        Expr::TryCast(c) => key_column(&c.expr),
        _ => None,
    }
}

/// Checks every time join of `plan` once its keys are extracted: INNER or
/// LEFT, the versioned table's primary key compared with `=` in ON (Flink's
/// rule), time expressions of one time-like type.
///
/// # Errors
/// [`SqlError::Plan`] saying what is wrong and what to write.
pub(crate) fn check_time_joins(plan: &LogicalPlan, catalog: &Catalog) -> Result<(), SqlError> {
    let mut failure: Option<SqlError> = None;
    plan.apply_with_subqueries(|node| {
        if let LogicalPlan::Join(join) = node
            && let Err(e) = check_join(join, catalog)
        {
            failure = Some(e);
            return Ok(TreeNodeRecursion::Stop);
        }
        Ok(TreeNodeRecursion::Continue)
    })
    .map_err(|e| SqlError::Plan(e.to_string()))?;
    failure.map_or(Ok(()), Err)
}

fn check_join(join: &Join, catalog: &Catalog) -> Result<(), SqlError> {
    let Some(tj) = TimeJoin::of(join).map_err(SqlError::Plan)? else {
        return Ok(());
    };
    if !matches!(join.join_type, JoinType::Inner | JoinType::Left) {
        return Err(SqlError::Plan(format!(
            "internal: {} became a {} join",
            tj.clause, join.join_type
        )));
    }
    time_type(join, &tj).map_err(SqlError::Plan)?;
    if tj.kind == TimeJoinKind::Lookup {
        let keys = crate::lookup::lookup_keys(
            &join.on,
            tj.residual.as_ref(),
            join.right.schema(),
            &|_| true,
        );
        if keys.keys.is_empty() {
            return Err(SqlError::Plan(format!(
                "the lookup join {} has no equality with a column of the lookup table: a \
                 lookup fetches rows by key, so ON needs `probe.x = lookup.key` (or \
                 `lookup.key = constant`)",
                tj.clause
            )));
        }
        return Ok(());
    }
    if tj.kind == TimeJoinKind::Asof {
        return Ok(());
    }
    let Some(table) = right_table(&join.right).and_then(|t| catalog.table(&t).cloned()) else {
        return Ok(());
    };
    let keys: Vec<String> = join.on.iter().filter_map(|(_, r)| key_column(r)).collect();
    let missing: Vec<&String> = table
        .time
        .primary_key
        .iter()
        .filter(|k| !keys.contains(k))
        .collect();
    if !missing.is_empty() {
        let shown = table.name.trim_end_matches("$versions");
        return Err(SqlError::Plan(format!(
            "{} needs every column of `{shown}`'s primary key ({}) compared with `=` in ON \
             (Flink's rule: the version is found by its key); missing: {}",
            tj.clause,
            table.time.primary_key.join(", "),
            missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// `plan` without the tombstone column in any projection: it is there only
/// because `*` expanded to it (SQL cannot name it), and only the join uses
/// it. Nodes above a changed projection get their schemas recomputed.
///
/// # Errors
/// Rebuilding a node fails (a bug).
pub(crate) fn hide_tombstones(plan: LogicalPlan) -> Result<LogicalPlan, SqlError> {
    // the qualifiers of the versions a temporal join reads: a change log's
    // versions relation read directly keeps its column
    let mut joined = Vec::new();
    let _ = plan.apply_with_subqueries(|node| {
        if let LogicalPlan::Join(join) = node
            && let Ok(Some(tj)) = TimeJoin::of(join)
            && let Some(Expr::Column(c)) = &tj.tombstone
        {
            joined.push(c.relation.clone());
        }
        Ok(TreeNodeRecursion::Continue)
    });
    if joined.is_empty() {
        return Ok(plan);
    }
    let is_tombstone = |e: &Expr| {
        let column = match e {
            Expr::Column(c) => c,
            Expr::Alias(a) => match a.expr.as_ref() {
                Expr::Column(c) => c,
                _ => return false,
            },
            _ => return false,
        };
        column.name == DELETED_COLUMN && joined.contains(&column.relation)
    };
    // a tombstone of a joined versions relation, or one that a projection
    // below (a derived table's `*`) no longer passes up
    let hidden = |e: &Expr, input: &LogicalPlan| {
        is_tombstone(e)
            || matches!(e, Expr::Column(c) if c.name == DELETED_COLUMN
                && !input.schema().has_column(c))
    };
    let rewritten = plan
        .transform_up_with_subqueries(|node| -> DfResult<Transformed<LogicalPlan>> {
            match node {
                LogicalPlan::Projection(p) if p.expr.iter().any(|e| hidden(e, &p.input)) => {
                    let exprs: Vec<Expr> = p
                        .expr
                        .into_iter()
                        .filter(|e| !hidden(e, &p.input))
                        .collect();
                    let rebuilt = Projection::try_new(exprs, Arc::clone(&p.input))?;
                    Ok(Transformed::yes(LogicalPlan::Projection(rebuilt)))
                }
                other => {
                    let has_tombstone = other
                        .schema()
                        .fields()
                        .iter()
                        .any(|f| f.name() == DELETED_COLUMN);
                    let child_lacks = other.inputs().iter().all(|i| {
                        !i.schema()
                            .fields()
                            .iter()
                            .any(|f| f.name() == DELETED_COLUMN)
                    });
                    if has_tombstone && child_lacks && !matches!(other, LogicalPlan::TableScan(_)) {
                        Ok(Transformed::yes(other.recompute_schema()?))
                    } else {
                        Ok(Transformed::no(other))
                    }
                }
            }
        })
        .map_err(|e: DataFusionError| {
            SqlError::Plan(format!("internal: hiding tombstones: {e}"))
        })?;
    Ok(rewritten.data)
}

//! CASE, COALESCE and NULLIF, and evaluation on a subset of rows.
//!
//! A CASE branch is evaluated only on the rows that reach it, as SQL
//! requires (`CASE WHEN b <> 0 THEN a / b END` never divides by zero):
//! the batch is filtered to those rows, the branch evaluated on the smaller
//! batch, and its values scattered back with one `take` (NULL elsewhere).
//! The branches are then merged with `zip`, last branch first. COALESCE
//! evaluates each argument only on the rows still NULL.

use std::sync::Arc;

use arrow_arith::boolean::{and, and_not, is_null};
use arrow_array::builder::BooleanBufferBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BooleanArray, NullArray, RecordBatch, RecordBatchOptions, UInt32Array,
    new_null_array,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{ArrowError, DataType, Field, Schema};
use arrow_select::filter::{FilterBuilder, filter_record_batch};
use arrow_select::nullif::nullif;
use arrow_select::take::take;
use arrow_select::zip::zip;

use crate::expr::error::{ExprError, Result};
use crate::expr::eval::compare;
use crate::expr::physical::{CompareOp, Node, PhysicalExpr};
use crate::expr::value::{Value, null_as_false};

/// Evaluates a CASE, COALESCE or NULLIF node.
pub(crate) fn evaluate(expr: &PhysicalExpr, batch: &RecordBatch) -> Result<Value> {
    match &*expr.node {
        Node::Case {
            branches,
            otherwise,
        } => case(expr, branches, otherwise.as_ref(), batch),
        Node::Coalesce(args) => coalesce(expr, args, batch),
        Node::NullIf(l, r) => {
            let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
            let lv = l.evaluate_value(batch)?;
            let rv = r.evaluate_value(batch)?;
            let scalar = lv.is_scalar() && rv.is_scalar();
            let equal = compare(CompareOp::Eq, &lv, &rv).map_err(arrow)?;
            let left = if scalar || !lv.is_scalar() {
                lv.inner().clone()
            } else {
                lv.into_array(batch.num_rows()).map_err(arrow)?
            };
            let out = nullif(left.as_ref(), &equal).map_err(arrow)?;
            Ok(Value::from_kernel(out, scalar))
        }
        _ => Err(ExprError::unsupported(
            &expr.text,
            "internal: not a conditional node (please report)",
        )),
    }
}

fn case(
    expr: &PhysicalExpr,
    branches: &[(PhysicalExpr, PhysicalExpr)],
    otherwise: Option<&PhysicalExpr>,
    batch: &RecordBatch,
) -> Result<Value> {
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    let rows = batch.num_rows();
    // Rows no branch has taken yet; `None` is "all rows".
    let mut remaining: Option<BooleanArray> = None;
    let mut taken: Vec<(BooleanArray, Value)> = Vec::with_capacity(branches.len());
    for (when, then) in branches {
        if remaining.as_ref().is_some_and(|m| m.true_count() == 0) {
            break;
        }
        let cond = match &remaining {
            None => when.evaluate_value(batch)?,
            Some(m) => evaluate_selected(when, batch, m)?,
        };
        let cond = cond.into_boolean(rows).map_err(arrow)?;
        let mut hit = null_as_false(&cond);
        if let Some(m) = &remaining {
            hit = and(&hit, m).map_err(arrow)?;
        }
        if hit.true_count() == 0 {
            continue;
        }
        let value = evaluate_selected(then, batch, &hit)?;
        remaining = Some(match &remaining {
            None => arrow_arith::boolean::not(&hit).map_err(arrow)?,
            Some(m) => and_not(m, &hit).map_err(arrow)?,
        });
        taken.push((hit, value));
    }
    let mut result = match (otherwise, &remaining) {
        (Some(e), None) => e.evaluate_value(batch)?,
        (Some(e), Some(m)) => evaluate_selected(e, batch, m)?,
        (None, _) => Value::Scalar(new_null_array(&expr.data_type, 1)),
    };
    for (hit, value) in taken.into_iter().rev() {
        result = Value::Array(zip(&hit, &value, &result).map_err(arrow)?);
    }
    Ok(result)
}

fn coalesce(expr: &PhysicalExpr, args: &[PhysicalExpr], batch: &RecordBatch) -> Result<Value> {
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    let Some((first, rest)) = args.split_first() else {
        return Ok(Value::Scalar(new_null_array(&expr.data_type, 1)));
    };
    let mut acc = first.evaluate_value(batch)?;
    for arg in rest {
        if acc.inner().logical_null_count() == 0 {
            break;
        }
        if acc.is_scalar() {
            // A NULL scalar: every row needs the next argument.
            acc = arg.evaluate_value(batch)?;
            continue;
        }
        let missing = is_null(acc.inner().as_ref()).map_err(arrow)?;
        let next = evaluate_selected(arg, batch, &missing)?;
        acc = Value::Array(zip(&missing, &next, &acc).map_err(arrow)?);
    }
    Ok(acc)
}

/// Evaluates `expr` only on the rows of `batch` where `mask` (without
/// NULLs) is true; the other rows are NULL.
pub(crate) fn evaluate_selected(
    expr: &PhysicalExpr,
    batch: &RecordBatch,
    mask: &BooleanArray,
) -> Result<Value> {
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    let rows = batch.num_rows();
    let selected = mask.true_count();
    if selected == rows {
        return expr.evaluate_value(batch);
    }
    let null = Value::Scalar(new_null_array(&expr.data_type, 1));
    if selected == 0 {
        return Ok(null);
    }
    let subset = filter_read_columns(expr, batch, mask).map_err(arrow)?;
    let value = expr.evaluate_value(&subset)?;
    if value.is_scalar() {
        return Ok(Value::Array(zip(mask, &value, &null).map_err(arrow)?));
    }
    if let Some(subset) = value.inner().as_boolean_opt() {
        return Ok(Value::Array(Arc::new(scatter_booleans(mask, subset))));
    }
    // Scatter: row i of the output is row `positions[i]` of the subset.
    let mut next = 0u32;
    let positions: UInt32Array = mask
        .values()
        .iter()
        .map(|keep| {
            keep.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let out = take(value.inner().as_ref(), &positions, None).map_err(arrow)?;
    Ok(Value::Array(out))
}

/// The rows of `batch` where `mask` is true, with only the columns `expr`
/// reads filtered: the others become columns of NULL type (no buffers), so
/// a wide batch costs no more than the columns the expression uses.
fn filter_read_columns(
    expr: &PhysicalExpr,
    batch: &RecordBatch,
    mask: &BooleanArray,
) -> std::result::Result<RecordBatch, ArrowError> {
    let read = expr.columns();
    if read.len() == batch.num_columns() {
        return filter_record_batch(batch, mask);
    }
    let mut filter = FilterBuilder::new(mask);
    if read.len() > 1 {
        filter = filter.optimize();
    }
    let filter = filter.build();
    let rows = filter.count();
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (i, (field, column)) in schema.fields().iter().zip(batch.columns()).enumerate() {
        if read.binary_search(&i).is_ok() {
            fields.push(field.clone());
            columns.push(filter.filter(column)?);
        } else {
            fields.push(Arc::new(Field::new(field.name(), DataType::Null, true)));
            columns.push(Arc::new(NullArray::new(rows)) as ArrayRef);
        }
    }
    RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
}

/// The `k`-th value of `subset` at the `k`-th row where `mask` is true,
/// NULL at the other rows: the scatter of [`evaluate_selected`] for a
/// boolean result (the right side of an AND or OR), one pass over the set
/// bits instead of a list of positions and a `take`.
fn scatter_booleans(mask: &BooleanArray, subset: &BooleanArray) -> BooleanArray {
    let rows = mask.len();
    let mut values = BooleanBufferBuilder::new(rows);
    values.append_n(rows, false);
    let mut valid = BooleanBufferBuilder::new(rows);
    valid.append_n(rows, false);
    for (k, i) in mask.values().set_indices().enumerate() {
        if subset.is_valid(k) {
            valid.set_bit(i, true);
            values.set_bit(i, subset.value(k));
        }
    }
    BooleanArray::new(values.finish(), Some(NullBuffer::new(valid.finish())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_scatter_to_the_selected_rows_and_null_elsewhere() {
        let mask = BooleanArray::from(vec![false, true, true, false, true, true]);
        let subset = BooleanArray::from(vec![Some(true), None, Some(false), Some(true)]);
        let out = scatter_booleans(&mask, &subset);
        assert_eq!(
            out.iter().collect::<Vec<_>>(),
            vec![None, Some(true), None, None, Some(false), Some(true)]
        );
    }
}

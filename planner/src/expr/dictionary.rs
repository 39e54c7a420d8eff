//! An expression of one column that a held table keeps as a one-byte
//! dictionary ([`held_form`](crate::exec::held_form)) is evaluated once per
//! dictionary value, not once per row.
//!
//! `l_shipmode IN ('MAIL', 'SHIP')` over a morsel of 8,192 rows whose
//! `l_shipmode` is held as codes into 7 strings: the IN list is evaluated on
//! the 7 strings (and on a NULL, for the rows whose code is NULL), and each
//! row then takes its code's answer from that table of 8 entries, instead
//! of widening the codes to 8,192 string views and comparing each with
//! each item of the list.
//!
//! Only the representation changes, never an answer: the expression is a
//! function of its one column's value for every row, the values a row can
//! hold are the dictionary's values and NULL, and an expression that can
//! fail is never evaluated this way (a dictionary value no row of the batch
//! selects might make it fail where evaluating the rows would not).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt16Array, new_null_array};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema};

use crate::exec::held_form;
use crate::expr::error::{ExprError, Result};
use crate::expr::physical::{Node, PhysicalExpr};
use crate::expr::value::Value;

/// `expr` on `batch` through the dictionary of the one column it reads,
/// when that column is held as a one-byte dictionary, the expression cannot
/// fail, and the batch has more rows than the dictionary has values;
/// otherwise `None` (evaluate it row by row).
pub(crate) fn evaluate(expr: &PhysicalExpr, batch: &RecordBatch) -> Result<Option<Value>> {
    if matches!(*expr.node, Node::Column(_) | Node::Literal(_))
        || !batch
            .columns()
            .iter()
            .any(|c| matches!(c.data_type(), DataType::Dictionary(_, _)))
    {
        return Ok(None);
    }
    let [index] = expr.columns()[..] else {
        return Ok(None);
    };
    let Some(logical) = column_type(expr, index) else {
        return Ok(None);
    };
    let Some(column) = batch.columns().get(index) else {
        return Ok(None);
    };
    if !held_form::is_narrow_form(column.data_type(), logical) || expr.may_fail() {
        return Ok(None);
    }
    let Some(dictionary) = column.as_dictionary_opt::<UInt8Type>() else {
        return Ok(None);
    };
    let values = dictionary.values();
    if batch.num_rows() <= values.len() {
        return Ok(None);
    }
    let arrow = |e: ArrowError| ExprError::arrow(&expr.text, e);
    // The dictionary's values, then a NULL (at `null_at`) for the rows
    // whose code is NULL.
    let null_at = values.len();
    let null = new_null_array(values.data_type(), 1);
    let each = arrow_select::concat::concat(&[values.as_ref(), null.as_ref()]).map_err(arrow)?;
    let schema = Schema::new(vec![Field::new("value", logical.clone(), true)]);
    let each = RecordBatch::try_new(Arc::new(schema), vec![each]).map_err(arrow)?;
    let per_value = expr.remap_columns(&|_| 0).evaluate_value(&each)?;
    if per_value.is_scalar() {
        return Ok(Some(per_value));
    }
    let per_value = per_value.inner();
    let keys = dictionary.keys();
    let out: ArrayRef = match per_value.as_boolean_opt() {
        Some(answers) => Arc::new(looked_up(answers, keys.values(), keys.nulls(), null_at)),
        None => {
            let rows: UInt16Array = (0..keys.len())
                .map(|i| {
                    Some(if keys.is_valid(i) {
                        u16::from(keys.value(i))
                    } else {
                        null_at as u16
                    })
                })
                .collect();
            arrow_select::take::take(per_value.as_ref(), &rows, None).map_err(arrow)?
        }
    };
    Ok(Some(Value::Array(out)))
}

/// The type `expr` reads column `index` as.
fn column_type(expr: &PhysicalExpr, index: usize) -> Option<&DataType> {
    if matches!(*expr.node, Node::Column(i) if i == index) {
        return Some(&expr.data_type);
    }
    expr.node
        .children()
        .into_iter()
        .find_map(|c| column_type(c, index))
}

/// Each row's answer from the answers per code (`answers[code]`, and
/// `answers[null_at]` for a row whose code is NULL).
fn looked_up(
    answers: &BooleanArray,
    codes: &[u8],
    code_nulls: Option<&NullBuffer>,
    null_at: usize,
) -> BooleanArray {
    // Tables of 256 entries: a code beyond the dictionary (the slot of a
    // NULL may hold any code) finds an entry.
    let mut truth = [false; 256];
    let mut known = [true; 256];
    for (code, (t, k)) in truth
        .iter_mut()
        .zip(known.iter_mut())
        .enumerate()
        .take(null_at)
    {
        *t = answers.is_valid(code) && answers.value(code);
        *k = answers.is_valid(code);
    }
    let table_lookup = |table: &[bool; 256]| {
        BooleanBuffer::collect_bool(codes.len(), |i| table[usize::from(codes[i])])
    };
    let mut values = table_lookup(&truth);
    // Usually only NULL's own answer is NULL (`s = 'AIR'`): the codes'
    // validity then needs no pass over the rows.
    let some_code_unknown = known[..null_at].iter().any(|k| !k);
    let mut valid = some_code_unknown.then(|| table_lookup(&known));
    if let Some(code_nulls) = code_nulls.filter(|n| n.null_count() > 0) {
        // Rows whose code is NULL take the answer for NULL.
        let is_code = code_nulls.inner();
        let null_truth = answers.is_valid(null_at) && answers.value(null_at);
        values = if null_truth {
            &values | &!is_code
        } else {
            &values & is_code
        };
        if !answers.is_valid(null_at) {
            let v = valid.unwrap_or_else(|| BooleanBuffer::new_set(codes.len()));
            valid = Some(&v & is_code);
        } else if let Some(v) = valid {
            valid = Some(&v | &!is_code);
        }
    }
    BooleanArray::new(values, valid.map(NullBuffer::new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::QueryContext;
    use arrow_array::StringViewArray;
    use datafusion_common::DFSchema;
    use datafusion_expr::{Expr, case, cast, col, lit};

    /// A held batch of one string column (as held: a one-byte dictionary).
    fn held(values: &[Option<&str>]) -> (RecordBatch, RecordBatch) {
        let wide: ArrayRef = Arc::new(StringViewArray::from(values.to_vec()));
        let batch = RecordBatch::try_from_iter([("s", wide)]).unwrap();
        let narrow = held_form::compact(vec![batch.clone()]).pop().unwrap();
        assert!(matches!(
            narrow.column(0).data_type(),
            DataType::Dictionary(_, _)
        ));
        (batch, narrow)
    }

    fn compiled(e: Expr, batch: &RecordBatch) -> PhysicalExpr {
        let schema = DFSchema::try_from(batch.schema().as_ref().clone()).unwrap();
        PhysicalExpr::compile(&e, &schema, &QueryContext::new()).unwrap()
    }

    #[test]
    fn answers_match_row_by_row_evaluation_including_nulls() {
        let rows: Vec<Option<&str>> = (0..40)
            .map(|i| match i % 5 {
                0 => Some("MAIL"),
                1 => Some("SHIP"),
                2 => None,
                3 => Some("AIR"),
                _ => Some("RAIL"),
            })
            .collect();
        let (wide, narrow) = held(&rows);
        let s = || col("s");
        for e in [
            s().in_list(vec![lit("MAIL"), lit("SHIP")], false),
            s().in_list(vec![lit("MAIL"), lit("SHIP")], true),
            s().eq(lit("AIR")),
            s().not_eq(lit("AIR")),
            s().lt(lit("MAIL")),
            s().is_null(),
            s().is_not_null().or(s().eq(lit("AIR"))),
            s().like(lit("%AI%")),
            case(s())
                .when(lit("MAIL"), lit(1))
                .otherwise(lit(0))
                .unwrap(),
            datafusion_expr::when(s().is_null(), lit(1))
                .otherwise(lit(2))
                .unwrap(),
        ] {
            let sql = e.to_string();
            let e = compiled(e, &wide);
            let want = e.evaluate(&wide).unwrap();
            let got = evaluate(&e, &narrow).unwrap().expect("evaluated per value");
            let got = got.into_array(narrow.num_rows()).unwrap();
            assert_eq!(&got, &want, "{sql}");
        }
    }

    #[test]
    fn small_batches_and_failing_expressions_are_evaluated_row_by_row() {
        let (wide, narrow) = held(&[Some("1"), Some("2")]);
        let e = compiled(col("s").eq(lit("1")), &wide);
        assert!(evaluate(&e, &narrow).unwrap().is_none(), "2 rows, 2 values");
        let rows: Vec<Option<&str>> = (0..20)
            .map(|i| Some(if i % 2 == 0 { "1" } else { "x" }))
            .collect();
        let (wide, narrow) = held(&rows);
        let e = compiled(cast(col("s"), DataType::Int32).gt(lit(0)), &wide);
        assert!(evaluate(&e, &narrow).unwrap().is_none(), "a cast can fail");
    }
}

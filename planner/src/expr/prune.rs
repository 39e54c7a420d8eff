//! What a filter over a scan says about the rows it can keep, checked
//! against statistics of parts of the data (Parquet row groups): a part
//! whose minimums, maximums and null counts prove that no row passes the
//! filter need not be read.
//!
//! [`ScanFilter::from_predicate`] keeps the conjuncts (top-level `AND`
//! terms) of the shapes it can reason about: `c <op> literal` (`=`, `<`,
//! `<=`, `>`, `>=`, either side), `c BETWEEN literal AND literal`,
//! `c IN (literals)`, `c IS NULL`, `c IS NOT NULL`, where `c` is a column
//! or a column under a cast that keeps order (integers widened or made
//! decimal or float, decimals rescaled, dates to timestamps, one string
//! type to another). Every other conjunct is left out, which only means
//! less is skipped: the filter still runs on every row read.
//!
//! [`ScanFilter::skippable`] then evaluates the column side of each
//! conjunct on the parts' minimums and maximums with the very expression
//! the filter runs (the same casts) and compares with the same comparison
//! the filter uses, so the bounds are judged exactly as the rows would be.
//! It never skips on doubt: an unknown bound, a cast or comparison that
//! fails, or a NULL result skips nothing. Floats compare as tenon's filters
//! do (`-0.0 = 0.0`, NaN equal to NaN and greater than every number), and
//! since writers leave NaN out of a column's statistics, a float column's
//! maximum is never trusted (a NaN row may lie above it) and a NaN minimum
//! is unknown. Truncated string statistics (`is_max_value_exact` false)
//! are still bounds (a truncated minimum is a prefix of the true one, a
//! truncated maximum is rounded up), so they are used as bounds.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, cast::AsArray};
use arrow_schema::{DataType, Field, Schema};

use crate::expr::eval::compare;
use crate::expr::physical::{CompareOp, Node, PhysicalExpr};
use crate::expr::value::Value;

/// The statistics of one column over the parts of a table (row groups),
/// one entry per part, in the column's type.
#[derive(Debug, Clone)]
pub struct ColumnStatistics {
    /// Each part's smallest value (NULL: unknown).
    pub mins: ArrayRef,
    /// Each part's largest value (NULL: unknown).
    pub maxes: ArrayRef,
    /// Each part's NULL count (`None`: unknown).
    pub null_counts: Vec<Option<u64>>,
    /// Each part's row count.
    pub row_counts: Vec<u64>,
}

/// The test one conjunct makes of its column side.
#[derive(Debug, Clone)]
enum Test {
    Compare(CompareOp, Value),
    Between(Value, Value),
    In(Vec<Value>),
    IsNull,
    IsNotNull,
}

/// One conjunct the statistics can refute.
#[derive(Debug, Clone)]
struct Conjunct {
    /// The table column it tests.
    column: usize,
    /// The column side, reading column 0 of a one-column batch.
    value: PhysicalExpr,
    /// The column's own type (the statistics must have it).
    column_type: DataType,
    test: Test,
}

/// The conjuncts of a scan's filter that statistics can refute (module
/// docs).
#[derive(Debug, Clone)]
pub struct ScanFilter {
    conjuncts: Vec<Conjunct>,
}

impl ScanFilter {
    /// The conjuncts of `predicate` (over the scan's output columns) that
    /// statistics can refute, their columns given as table columns by
    /// `table_column`; `None` when there are none.
    pub fn from_predicate(
        predicate: &PhysicalExpr,
        table_column: &dyn Fn(usize) -> Option<usize>,
    ) -> Option<ScanFilter> {
        let mut conjuncts = Vec::new();
        let mut pending = vec![predicate];
        // Iterative: a long AND chain must not grow the stack.
        while let Some(e) = pending.pop() {
            if let Node::And(l, r) = &*e.node {
                pending.push(r);
                pending.push(l);
                continue;
            }
            if let Some(c) = conjunct(e, table_column) {
                conjuncts.push(c);
            }
        }
        (!conjuncts.is_empty()).then_some(ScanFilter { conjuncts })
    }

    /// The table columns the conjuncts test, ascending, without repeats.
    pub fn columns(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.conjuncts.iter().map(|c| c.column).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// For each of `parts` parts, whether the statistics prove that no row
    /// of it passes the filter. `stats(column)` gives a table column's
    /// statistics (`None`: unknown); statistics of another type than the
    /// column's, or of another length than `parts`, are not used.
    pub fn skippable(
        &self,
        parts: usize,
        stats: &dyn Fn(usize) -> Option<ColumnStatistics>,
    ) -> Vec<bool> {
        let mut skip = vec![false; parts];
        for c in &self.conjuncts {
            let Some(s) = stats(c.column) else { continue };
            if s.mins.len() != parts
                || s.maxes.len() != parts
                || s.null_counts.len() != parts
                || s.row_counts.len() != parts
                || s.mins.data_type() != &c.column_type
                || s.maxes.data_type() != &c.column_type
            {
                continue;
            }
            if let Some(refuted) = c.refuted(&s) {
                for (k, r) in skip.iter_mut().zip(refuted) {
                    *k |= r;
                }
            }
        }
        skip
    }
}

/// `e` as a conjunct statistics can refute, if it has such a shape.
fn conjunct(e: &PhysicalExpr, table_column: &dyn Fn(usize) -> Option<usize>) -> Option<Conjunct> {
    let make = |side: &PhysicalExpr, test: Test| -> Option<Conjunct> {
        let (input, column_type) = column_side(side)?;
        Some(Conjunct {
            column: table_column(input)?,
            value: side.remap_columns(&|_| 0),
            column_type,
            test,
        })
    };
    match &*e.node {
        Node::Compare { op, left, right } => {
            let op = match op {
                CompareOp::Eq
                | CompareOp::Lt
                | CompareOp::LtEq
                | CompareOp::Gt
                | CompareOp::GtEq => *op,
                _ => return None,
            };
            if let Some(v) = literal(right) {
                make(left, Test::Compare(op, v))
            } else {
                let v = literal(left)?;
                make(right, Test::Compare(op.flipped(), v))
            }
        }
        Node::Between {
            input,
            low,
            high,
            negated: false,
        } => make(input, Test::Between(literal(low)?, literal(high)?)),
        Node::InList {
            input,
            list,
            negated: false,
        } => {
            let values = list.iter().map(literal).collect::<Option<Vec<_>>>()?;
            make(input, Test::In(values))
        }
        Node::IsNull(input) => make(input, Test::IsNull),
        Node::IsNotNull(input) => make(input, Test::IsNotNull),
        _ => None,
    }
}

/// A literal's value.
fn literal(e: &PhysicalExpr) -> Option<Value> {
    match &*e.node {
        Node::Literal(v @ Value::Scalar(_)) => Some(v.clone()),
        _ => None,
    }
}

/// The input column and its type, when `e` is a column or a column under
/// casts that keep order.
fn column_side(e: &PhysicalExpr) -> Option<(usize, DataType)> {
    match &*e.node {
        Node::Column(i) => Some((*i, e.data_type.clone())),
        Node::Cast { input, .. } if keeps_order(&input.data_type, &e.data_type) => {
            column_side(input)
        }
        _ => None,
    }
}

/// Whether a cast from `from` to `to` never puts two values out of order
/// (`a <= b` implies `cast(a) <= cast(b)`, for the values it casts at
/// all): the bounds of a part then cast to bounds of its cast values.
fn keeps_order(from: &DataType, to: &DataType) -> bool {
    use DataType::*;
    let string = |t: &DataType| matches!(t, Utf8 | LargeUtf8 | Utf8View);
    let temporal = |t: &DataType| matches!(t, Date32 | Date64 | Timestamp(_, _));
    let decimal = |t: &DataType| {
        matches!(
            t,
            Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..)
        )
    };
    from == to
        || (from.is_integer()
            && (to.is_integer() || decimal(to) || matches!(to, Float32 | Float64)))
        || (decimal(from) && (decimal(to) || matches!(to, Float64)))
        || (from == &Float32 && to == &Float64)
        || (matches!(from, Date32 | Date64) && temporal(to))
        || (matches!(from, Timestamp(_, _)) && matches!(to, Timestamp(_, _)))
        || (string(from) && string(to))
}

fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
}

impl Conjunct {
    /// Per part, whether the statistics prove no row passes; `None` when
    /// they cannot be judged (a cast or comparison failed).
    fn refuted(&self, s: &ColumnStatistics) -> Option<Vec<bool>> {
        let parts = s.row_counts.len();
        let all_null: Vec<bool> = (0..parts)
            .map(|i| s.null_counts[i] == Some(s.row_counts[i]))
            .collect();
        match &self.test {
            Test::IsNull => return Some((0..parts).map(|i| s.null_counts[i] == Some(0)).collect()),
            Test::IsNotNull => return Some(all_null),
            _ => {}
        }
        let (mins, maxes) = if is_float(&self.column_type) {
            if self.column_type == DataType::Float16 {
                return None;
            }
            // A NaN minimum tells nothing; the maximum leaves NaN rows out.
            (
                without_nan(&s.mins)?,
                arrow_array::new_null_array(&self.column_type, parts),
            )
        } else {
            (Arc::clone(&s.mins), Arc::clone(&s.maxes))
        };
        let lo = self.bound(&mins)?;
        let hi = self.bound(&maxes)?;
        // `a <op> b` is known true for part i.
        let holds = |op: CompareOp, a: &Value, b: &Value| -> Option<BooleanArray> {
            compare(op, a, b).ok().filter(|r| r.len() == parts)
        };
        let yes = |r: &BooleanArray, i: usize| r.is_valid(i) && r.value(i);
        let out: Vec<bool> = match &self.test {
            Test::Compare(op, v) => {
                let (lo_op, hi_op) = match op {
                    CompareOp::Eq => (Some(CompareOp::Gt), Some(CompareOp::Lt)),
                    CompareOp::Lt => (Some(CompareOp::GtEq), None),
                    CompareOp::LtEq => (Some(CompareOp::Gt), None),
                    CompareOp::Gt => (None, Some(CompareOp::LtEq)),
                    CompareOp::GtEq => (None, Some(CompareOp::Lt)),
                    _ => return None,
                };
                let by_lo = match lo_op {
                    Some(op) => Some(holds(op, &lo, v)?),
                    None => None,
                };
                let by_hi = match hi_op {
                    Some(op) => Some(holds(op, &hi, v)?),
                    None => None,
                };
                (0..parts)
                    .map(|i| {
                        all_null[i]
                            || by_lo.as_ref().is_some_and(|r| yes(r, i))
                            || by_hi.as_ref().is_some_and(|r| yes(r, i))
                    })
                    .collect()
            }
            Test::Between(low, high) => {
                let below = holds(CompareOp::Lt, &hi, low)?;
                let above = holds(CompareOp::Gt, &lo, high)?;
                (0..parts)
                    .map(|i| all_null[i] || yes(&below, i) || yes(&above, i))
                    .collect()
            }
            Test::In(values) => {
                let mut out = all_null.clone();
                let mut every: Vec<bool> = vec![true; parts];
                for v in values {
                    let below = holds(CompareOp::Lt, &hi, v)?;
                    let above = holds(CompareOp::Gt, &lo, v)?;
                    for (i, e) in every.iter_mut().enumerate() {
                        *e &= yes(&below, i) || yes(&above, i);
                    }
                }
                for (o, e) in out.iter_mut().zip(every) {
                    *o |= e;
                }
                out
            }
            Test::IsNull | Test::IsNotNull => return None,
        };
        Some(out)
    }

    /// The column side evaluated on the parts' bounds `bounds`.
    fn bound(&self, bounds: &ArrayRef) -> Option<Value> {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "bound",
            self.column_type.clone(),
            true,
        )]));
        let batch = RecordBatch::try_new(schema, vec![Arc::clone(bounds)]).ok()?;
        let v = self.value.evaluate_value(&batch).ok()?;
        Some(Value::Array(v.into_array(bounds.len()).ok()?))
    }
}

/// Float bounds with NaN made unknown (NULL).
fn without_nan(a: &ArrayRef) -> Option<ArrayRef> {
    let out: ArrayRef = match a.data_type() {
        DataType::Float64 => Arc::new(
            a.as_primitive::<arrow_array::types::Float64Type>()
                .iter()
                .map(|v| v.filter(|x| !x.is_nan()))
                .collect::<arrow_array::Float64Array>(),
        ),
        DataType::Float32 => Arc::new(
            a.as_primitive::<arrow_array::types::Float32Type>()
                .iter()
                .map(|v| v.filter(|x| !x.is_nan()))
                .collect::<arrow_array::Float32Array>(),
        ),
        _ => return None,
    };
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float64Array, Int32Array, Int64Array, StringArray};
    use datafusion_common::DFSchema;
    use datafusion_expr::{Expr, col, lit};

    use crate::expr::QueryContext;

    fn schema() -> DFSchema {
        DFSchema::try_from(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("n", DataType::Int32, true),
        ]))
        .unwrap()
    }

    fn filter(e: Expr) -> ScanFilter {
        let p = PhysicalExpr::compile(&e, &schema(), &QueryContext::new()).unwrap();
        ScanFilter::from_predicate(&p, &|i| Some(i)).expect("a usable conjunct")
    }

    fn stats(mins: ArrayRef, maxes: ArrayRef, nulls: &[Option<u64>]) -> ColumnStatistics {
        ColumnStatistics {
            mins,
            maxes,
            null_counts: nulls.to_vec(),
            row_counts: vec![10; nulls.len()],
        }
    }

    fn skips(f: &ScanFilter, column: usize, s: ColumnStatistics) -> Vec<bool> {
        let parts = s.row_counts.len();
        f.skippable(parts, &|c| (c == column).then(|| s.clone()))
    }

    fn ints(
        mins: &[Option<i64>],
        maxes: &[Option<i64>],
        nulls: &[Option<u64>],
    ) -> ColumnStatistics {
        stats(
            Arc::new(Int64Array::from(mins.to_vec())),
            Arc::new(Int64Array::from(maxes.to_vec())),
            nulls,
        )
    }

    #[test]
    fn integer_comparisons_skip_only_refuted_parts() {
        let s = || {
            ints(
                &[Some(0), Some(10), None],
                &[Some(9), Some(19), None],
                &[Some(0); 3],
            )
        };
        assert_eq!(
            skips(&filter(col("i").lt(lit(10i64))), 0, s()),
            [false, true, false]
        );
        assert_eq!(
            skips(&filter(col("i").lt_eq(lit(10i64))), 0, s()),
            [false, false, false]
        );
        assert_eq!(
            skips(&filter(col("i").gt(lit(9i64))), 0, s()),
            [true, false, false]
        );
        assert_eq!(
            skips(&filter(col("i").eq(lit(15i64))), 0, s()),
            [true, false, false]
        );
        assert_eq!(
            skips(&filter(lit(15i64).lt(col("i"))), 0, s()),
            [true, false, false]
        );
        let between = col("i").between(lit(20i64), lit(30i64));
        assert_eq!(skips(&filter(between), 0, s()), [true, true, false]);
        let list = col("i").in_list(vec![lit(3i64), lit(25i64)], false);
        assert_eq!(skips(&filter(list), 0, s()), [false, true, false]);
        // a cast of the column (Int32 against an Int64 literal) keeps order
        let narrow = stats(
            Arc::new(Int32Array::from(vec![0, 10])),
            Arc::new(Int32Array::from(vec![9, 19])),
            &[Some(0), Some(0)],
        );
        let f = filter(col("n").gt_eq(lit(12i64)));
        assert_eq!(skips(&f, 3, narrow), [true, false]);
    }

    #[test]
    fn nulls_decide_is_null_and_all_null_parts() {
        let s = || {
            ints(
                &[Some(0), None, Some(5)],
                &[Some(9), None, Some(5)],
                &[Some(0), Some(10), None],
            )
        };
        assert_eq!(
            skips(&filter(col("i").is_null()), 0, s()),
            [true, false, false]
        );
        assert_eq!(
            skips(&filter(col("i").is_not_null()), 0, s()),
            [false, true, false]
        );
        // every row NULL: no comparison holds
        assert_eq!(
            skips(&filter(col("i").gt(lit(-100i64))), 0, s()),
            [false, true, false]
        );
    }

    #[test]
    fn float_maximums_and_nan_minimums_are_not_trusted() {
        let s = stats(
            Arc::new(Float64Array::from(vec![
                Some(1.0),
                Some(f64::NAN),
                Some(-0.0),
            ])),
            Arc::new(Float64Array::from(vec![
                Some(2.0),
                Some(f64::NAN),
                Some(0.0),
            ])),
            &[Some(0); 3],
        );
        // rows of NaN (left out of the statistics) pass `f > 5`
        assert_eq!(
            skips(&filter(col("f").gt(lit(5.0))), 1, s.clone()),
            [false; 3]
        );
        // below the minimum: refuted, except where the minimum is NaN
        assert_eq!(
            skips(&filter(col("f").lt(lit(0.5))), 1, s.clone()),
            [true, false, false]
        );
        // -0.0 = 0.0
        assert_eq!(
            skips(&filter(col("f").eq(lit(0.0))), 1, s.clone()),
            [true, false, false]
        );
        assert_eq!(
            skips(&filter(col("f").lt(lit(0.0))), 1, s),
            [true, false, true]
        );
    }

    #[test]
    fn strings_compare_as_bytes_and_other_shapes_skip_nothing() {
        let s = || {
            stats(
                Arc::new(StringArray::from(vec![Some("apple"), Some("b")])),
                Arc::new(StringArray::from(vec![Some("azz"), Some("c\u{e9}")])),
                &[Some(0), Some(0)],
            )
        };
        assert_eq!(skips(&filter(col("s").eq(lit("b"))), 2, s()), [true, false]);
        assert_eq!(
            skips(&filter(col("s").gt(lit("cz"))), 2, s()),
            [true, false]
        );
        // statistics of another type than the column's are not used
        let f = filter(col("s").eq(lit("b")));
        let wrong = ints(
            &[Some(0), Some(0)],
            &[Some(0), Some(0)],
            &[Some(0), Some(0)],
        );
        assert_eq!(skips(&f, 2, wrong), [false, false]);
        // OR, NOT IN, <>, arithmetic: not conjuncts the pruner reads
        for e in [
            col("i").lt(lit(1i64)).or(col("i").gt(lit(5i64))),
            col("i").in_list(vec![lit(1i64)], true),
            col("i").not_eq(lit(1i64)),
            (col("i") + lit(1i64)).lt(lit(3i64)),
        ] {
            let p = PhysicalExpr::compile(&e, &schema(), &QueryContext::new()).unwrap();
            assert!(
                ScanFilter::from_predicate(&p, &|i| Some(i)).is_none(),
                "{e}"
            );
        }
    }
}

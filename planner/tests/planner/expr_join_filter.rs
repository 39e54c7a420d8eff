//! `ExprJoinFilter` against a row-by-row oracle on random small inputs.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema};
use datafusion_common::DFSchema;
use datafusion_expr::{Expr, col, lit, when};
use proptest::prelude::*;
use tenon_kernels::JoinFilter;
use tenon_planner::expr::{ExprJoinFilter, QueryContext};

type Row = (Option<i64>, Option<i64>, Option<String>);

fn schemas() -> (Arc<Schema>, Arc<Schema>, DFSchema) {
    let side = |a: &str, b: &str, c: &str| {
        Arc::new(Schema::new(vec![
            Field::new(a, DataType::Int64, true),
            Field::new(b, DataType::Int64, true),
            Field::new(c, DataType::Utf8, true),
        ]))
    };
    let l = side("k", "v", "s");
    let r = side("w", "u", "t");
    let combined = DFSchema::try_from_qualified_schema("l", &l)
        .unwrap()
        .join(&DFSchema::try_from_qualified_schema("r", &r).unwrap())
        .unwrap();
    (l, r, combined)
}

fn batch(schema: &Arc<Schema>, rows: &[Row]) -> RecordBatch {
    RecordBatch::try_new(
        Arc::clone(schema),
        vec![
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
            Arc::new(Int64Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )),
            Arc::new(StringArray::from(
                rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>(),
            )),
        ],
    )
    .unwrap()
}

/// SQL's AND/OR/comparison on Option<bool> / Option<i64>.
fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}
fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}
fn cmp<T: PartialOrd>(a: Option<T>, b: Option<T>, f: fn(&T, &T) -> bool) -> Option<bool> {
    Some(f(&a?, &b?))
}

/// The filters under test, each with its row-at-a-time oracle.
/// A row-at-a-time evaluation of one filter.
type Oracle = fn(&Row, &Row) -> Option<bool>;

fn cases() -> Vec<(Expr, Oracle)> {
    vec![
        (
            // l.v + r.u > 3 AND l.s <> r.t
            (col("l.v") + col("r.u"))
                .gt(lit(3i64))
                .and(col("l.s").not_eq(col("r.t"))),
            |l, r| {
                let sum = l.1.zip(r.1).map(|(a, b)| a + b);
                and(
                    cmp(sum, Some(3), |a, b| a > b),
                    cmp(l.2.clone(), r.2.clone(), |a, b| a != b),
                )
            },
        ),
        (
            // l.k < r.w OR l.v IS NULL
            col("l.k").lt(col("r.w")).or(col("l.v").is_null()),
            |l, r| or(cmp(l.0, r.0, |a, b| a < b), Some(l.1.is_none())),
        ),
        (
            // CASE WHEN l.k > r.w THEN l.v ELSE r.u END >= 1
            when(col("l.k").gt(col("r.w")), col("l.v"))
                .otherwise(col("r.u"))
                .unwrap()
                .gt_eq(lit(1i64)),
            |l, r| {
                let v = if cmp(l.0, r.0, |a, b| a > b) == Some(true) {
                    l.1
                } else {
                    r.1
                };
                cmp(v, Some(1), |a, b| a >= b)
            },
        ),
        (
            // l.k BETWEEN r.w AND r.u
            col("l.k").between(col("r.w"), col("r.u")),
            |l, r| and(cmp(l.0, r.0, |a, b| a >= b), cmp(l.0, r.1, |a, b| a <= b)),
        ),
        (
            // only right columns: r.t IS NOT DISTINCT FROM 'a'
            datafusion_expr::binary_expr(
                col("r.t"),
                datafusion_expr::Operator::IsNotDistinctFrom,
                lit("a"),
            ),
            |_, r| Some(r.2.as_deref() == Some("a")),
        ),
    ]
}

fn row() -> impl Strategy<Value = Row> {
    (
        proptest::option::weighted(0.8, -3i64..4),
        proptest::option::weighted(0.8, -3i64..4),
        proptest::option::weighted(
            0.8,
            prop_oneof![Just("a".to_string()), Just("b".to_string())],
        ),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn expr_join_filter_matches_row_by_row_oracle(
        left in proptest::collection::vec(row(), 1..8),
        right in proptest::collection::vec(row(), 1..8),
        pairs in proptest::collection::vec((0usize..64, 0usize..64), 0..40),
    ) {
        let (ls, rs, combined) = schemas();
        let (lb, rb) = (batch(&ls, &left), batch(&rs, &right));
        let li: Vec<u32> = pairs.iter().map(|p| (p.0 % left.len()) as u32).collect();
        let ri: Vec<u32> = pairs.iter().map(|p| (p.1 % right.len()) as u32).collect();
        for (expr, oracle) in cases() {
            let filter = ExprJoinFilter::try_new(&expr, &combined, 3, &QueryContext::new()).unwrap();
            let out = JoinFilter::evaluate(
                &filter, &lb, &rb, &UInt32Array::from(li.clone()), &UInt32Array::from(ri.clone()),
            ).unwrap();
            let expected: Vec<Option<bool>> = li.iter().zip(&ri)
                .map(|(&a, &b)| oracle(&left[a as usize], &right[b as usize]))
                .collect();
            prop_assert_eq!(out.iter().collect::<Vec<_>>(), expected, "{}", expr);
        }
    }
}

#[test]
fn filter_errors_reach_the_kernel_as_filter_errors() {
    let (ls, rs, combined) = schemas();
    let filter = ExprJoinFilter::try_new(
        &(col("l.k") / col("r.w")).gt(lit(0i64)),
        &combined,
        3,
        &QueryContext::new(),
    )
    .unwrap();
    let lb = batch(&ls, &[(Some(1), None, None)]);
    let rb = batch(&rs, &[(Some(0), None, None)]);
    let err = JoinFilter::evaluate(
        &filter,
        &lb,
        &rb,
        &UInt32Array::from(vec![0]),
        &UInt32Array::from(vec![0]),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("division by zero"), "{err}");
    let err = JoinFilter::evaluate(
        &filter,
        &lb,
        &rb,
        &UInt32Array::from(vec![0, 0]),
        &UInt32Array::from(vec![0]),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("2 left rows but 1 right rows"), "{err}");
}

#[test]
fn non_boolean_join_filter_is_rejected() {
    let (_, _, combined) = schemas();
    let err = ExprJoinFilter::try_new(&col("l.k"), &combined, 3, &QueryContext::new())
        .unwrap_err()
        .to_string();
    assert!(err.contains("must be boolean"), "{err}");
}

#[test]
fn filter_reads_only_referenced_columns() {
    let (_, _, combined) = schemas();
    let filter = ExprJoinFilter::try_new(
        &col("l.v").lt(col("r.u")),
        &combined,
        3,
        &QueryContext::new(),
    )
    .unwrap();
    assert_eq!(filter.expr().columns(), vec![0, 1]);
}

// The range-condition tests moved with the one splitter the planner uses,
// `split_ranges` (planner/src/exec/lower/ranges.rs, unit tests).

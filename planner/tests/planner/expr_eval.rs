//! Expression evaluation: every operator with NULLs, SQL coercions, decimal
//! arithmetic, LIKE patterns, CASE, IN lists, errors and the query clock.

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float64Type, Int32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array,
    Int64Array, RecordBatch, StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field, Schema};
use datafusion_common::{DFSchema, ScalarValue};
use datafusion_expr::{Expr, binary::BinaryTypeCoercer, case, cast, col, lit, try_cast, when};
use datafusion_expr::{Operator, binary_expr, expr::Like};
use datafusion_functions::expr_fn as f;
use tenon_planner::expr::{PhysicalExpr, QueryContext};

/// `n` / 10 as a DECIMAL(3, 1) literal.
fn tenths(n: i128) -> Expr {
    lit(ScalarValue::Decimal128(Some(n), 3, 1))
}

/// Columns, 4 rows:
/// a Int32 [1, 2, NULL, 4], b Int64 [10, 0, 30, NULL], x Float64 [1.5, -2, NULL, 0],
/// s Utf8 ["apple", "banana", NULL, "a%b"], sv Utf8View ["apple", "x", "y", NULL],
/// d Decimal128(15,2) [10.00, 0.05, NULL, -3.10], dt Date32 [1994-12-31, 1995-01-01,
/// NULL, 1995-06-30]
fn data() -> (RecordBatch, DFSchema) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Int64, true),
        Field::new("x", DataType::Float64, true),
        Field::new("s", DataType::Utf8, true),
        Field::new("sv", DataType::Utf8View, true),
        Field::new("d", DataType::Decimal128(15, 2), true),
        Field::new("dt", DataType::Date32, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![Some(1), Some(2), None, Some(4)])),
        Arc::new(Int64Array::from(vec![Some(10), Some(0), Some(30), None])),
        Arc::new(Float64Array::from(vec![
            Some(1.5),
            Some(-2.0),
            None,
            Some(0.0),
        ])),
        Arc::new(StringArray::from(vec![
            Some("apple"),
            Some("banana"),
            None,
            Some("a%b"),
        ])),
        Arc::new(StringViewArray::from(vec![
            Some("apple"),
            Some("x"),
            Some("y"),
            None,
        ])),
        Arc::new(
            Decimal128Array::from(vec![Some(1000), Some(5), None, Some(-310)])
                .with_precision_and_scale(15, 2)
                .unwrap(),
        ),
        // 1994-12-31 is day 9130 since the epoch.
        Arc::new(Date32Array::from(vec![
            Some(9130),
            Some(9131),
            None,
            Some(9311),
        ])),
    ];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    (
        batch,
        DFSchema::try_from_qualified_schema("t", &schema).unwrap(),
    )
}

fn compile(e: &Expr) -> PhysicalExpr {
    let (_, schema) = data();
    PhysicalExpr::compile(e, &schema, &QueryContext::new()).unwrap()
}

fn eval(e: Expr) -> ArrayRef {
    let (batch, _) = data();
    compile(&e).evaluate(&batch).unwrap()
}

fn bools(e: Expr) -> Vec<Option<bool>> {
    eval(e).as_boolean().iter().collect()
}

fn ints(e: Expr) -> Vec<Option<i64>> {
    eval(e).as_primitive::<Int64Type>().iter().collect()
}

fn error(e: Expr) -> String {
    let (batch, schema) = data();
    match PhysicalExpr::compile(&e, &schema, &QueryContext::new()) {
        Err(err) => err.to_string(),
        Ok(p) => p.evaluate(&batch).unwrap_err().to_string(),
    }
}

fn null() -> Expr {
    lit(ScalarValue::Null)
}

#[test]
fn int32_plus_int64_is_int64_and_null_propagates() {
    let e = col("a") + col("b");
    assert_eq!(compile(&e).data_type(), &DataType::Int64);
    assert_eq!(ints(e), vec![Some(11), Some(2), None, None]);
}

#[test]
fn integer_with_float_is_float64() {
    let e = col("a") * col("x");
    assert_eq!(compile(&e).data_type(), &DataType::Float64);
    let v: Vec<_> = eval(e).as_primitive::<Float64Type>().iter().collect();
    assert_eq!(v, vec![Some(1.5), Some(-4.0), None, Some(0.0)]);
}

#[test]
fn integer_division_truncates_and_modulo_works() {
    assert_eq!(
        ints(col("b") / lit(4i64)),
        vec![Some(2), Some(0), Some(7), None]
    );
    assert_eq!(
        ints(col("b") % lit(4i64)),
        vec![Some(2), Some(0), Some(2), None]
    );
}

#[test]
fn integer_division_by_zero_is_an_error_naming_the_expression() {
    let msg = error(lit(100i64) / col("b"));
    assert!(msg.contains("division by zero"), "{msg}");
    assert!(msg.contains("`100 / b`"), "{msg}");
    let msg = error(col("a") % lit(0i32));
    assert!(msg.contains("division by zero"), "{msg}");
}

#[test]
fn integer_overflow_is_an_error_not_a_wrap() {
    let msg = error(col("b") + lit(i64::MAX));
    assert!(msg.contains("overflow"), "{msg}");
    let msg = error(col("a") * lit(i32::MAX));
    assert!(msg.contains("overflow"), "{msg}");
}

#[test]
fn decimal_arithmetic_follows_sql_precision_and_scale() {
    let d = DataType::Decimal128(15, 2);
    for (op, expr) in [
        (Operator::Plus, col("d") + col("d")),
        (Operator::Minus, col("d") - col("d")),
        (Operator::Multiply, col("d") * col("d")),
        (
            Operator::Divide,
            col("d") / lit(ScalarValue::Decimal128(Some(400), 15, 2)),
        ),
    ] {
        let expected = BinaryTypeCoercer::new(&d, &op, &d)
            .get_result_type()
            .unwrap();
        assert_eq!(compile(&expr).data_type(), &expected, "{op}");
    }
    assert_eq!(
        compile(&(col("d") + col("d"))).data_type(),
        &DataType::Decimal128(16, 2)
    );
    assert_eq!(
        compile(&(col("d") * col("d"))).data_type(),
        &DataType::Decimal128(31, 4)
    );
    // 10.00 * (1 - 0.05) as in TPC-H's l_extendedprice * (1 - l_discount)
    let e = col("d") * (lit(ScalarValue::Decimal128(Some(100), 15, 2)) - col("d"));
    let out = eval(e);
    let (p, s) = match out.data_type() {
        DataType::Decimal128(p, s) => (*p, *s),
        other => panic!("{other}"),
    };
    assert_eq!((p, s), (32, 4));
    let v: Vec<_> = out.as_primitive::<Decimal128Type>().iter().collect();
    // 10.00 * -9.00 = -90.0000; 0.05 * 0.95 = 0.0475; -3.10 * 4.10 = -12.7100
    assert_eq!(v, vec![Some(-900_000), Some(475), None, Some(-127_100)]);
    // decimal / decimal: 10.00 / 4.00 = 2.5 at the result's scale
    let out = eval(col("d") / lit(ScalarValue::Decimal128(Some(400), 15, 2)));
    let DataType::Decimal128(_, s) = *out.data_type() else {
        panic!()
    };
    let first = out.as_primitive::<Decimal128Type>().value(0);
    assert_eq!(first, 25 * 10i128.pow(u32::from(s as u8) - 1));
    // decimal with integer
    assert!(compile(&(col("d") * col("a"))).data_type().is_numeric());
}

#[test]
fn decimal_result_beyond_its_precision_is_an_overflow_error() {
    let big = lit(ScalarValue::Decimal128(Some(10i128.pow(37)), 38, 0));
    let msg = error(big.clone() * lit(ScalarValue::Decimal128(Some(100), 38, 0)));
    assert!(msg.contains("overflow"), "{msg}");
}

#[test]
fn comparisons_between_numeric_types() {
    assert_eq!(
        bools(col("a").lt(col("b"))),
        vec![Some(true), Some(false), None, None]
    );
    assert_eq!(
        bools(col("x").gt_eq(col("a"))),
        vec![Some(true), Some(false), None, Some(false)]
    );
    assert_eq!(
        bools(col("d").gt(lit(1i64))),
        vec![Some(true), Some(false), None, Some(false)]
    );
}

#[test]
fn utf8_compares_with_utf8view_and_literals() {
    assert_eq!(
        bools(col("s").eq(col("sv"))),
        vec![Some(true), Some(false), None, None]
    );
    assert_eq!(
        bools(col("sv").eq(lit("y"))),
        vec![Some(false), Some(false), Some(true), None]
    );
}

#[test]
fn string_column_with_number_is_a_type_error() {
    let msg = error(col("s").eq(col("b")));
    assert!(
        msg.contains("cannot compare Utf8 with Int64; cast one side"),
        "{msg}"
    );
    assert!(msg.contains("`s = b`"), "{msg}");
    // a string literal is read as a number
    assert_eq!(
        bools(col("b").eq(lit("30"))),
        vec![Some(false), Some(false), Some(true), None]
    );
    let msg = error(col("b").eq(lit("thirty")));
    assert!(msg.contains("thirty"), "{msg}");
}

#[test]
fn dates_compare_with_date_literals_and_strings() {
    let date = cast(lit("1995-01-01"), DataType::Date32);
    assert_eq!(
        bools(col("dt").lt(date.clone())),
        vec![Some(true), Some(false), None, Some(false)]
    );
    assert!(compile(&date).is_literal());
    assert_eq!(
        bools(col("dt").gt_eq(lit("1995-01-01"))),
        vec![Some(false), Some(true), None, Some(true)]
    );
    assert_eq!(
        bools(col("dt").between(lit("1995-01-01"), lit("1995-12-31"))),
        vec![Some(false), Some(true), None, Some(true)]
    );
}

#[test]
fn date_minus_interval_and_date_minus_date() {
    let e = col("dt")
        .lt(cast(lit("1995-01-31"), DataType::Date32) - lit(ScalarValue::new_interval_dt(30, 0)));
    assert_eq!(bools(e), vec![Some(true), Some(false), None, Some(false)]);
    let days = col("dt") - cast(lit("1994-12-31"), DataType::Date32);
    assert_eq!(ints(days), vec![Some(0), Some(1), None, Some(181)]);
}

#[test]
fn null_literals_take_the_other_sides_type() {
    assert_eq!(ints(col("b") + null()), vec![None; 4]);
    assert_eq!(bools(col("a").eq(null())), vec![None; 4]);
    assert_eq!(bools(null().is_null()), vec![Some(true); 4]);
}

/// The nine combinations of two three-valued booleans, as columns p and q.
fn logic_data() -> (RecordBatch, DFSchema) {
    let v = [Some(true), Some(false), None];
    let (p, q): (Vec<_>, Vec<_>) = v
        .iter()
        .flat_map(|&p| v.iter().map(move |&q| (p, q)))
        .unzip();
    let schema = Arc::new(Schema::new(vec![
        Field::new("p", DataType::Boolean, true),
        Field::new("q", DataType::Boolean, true),
    ]));
    let batch = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(BooleanArray::from(p)),
            Arc::new(BooleanArray::from(q)),
        ],
    )
    .unwrap();
    (batch, DFSchema::try_from(schema.as_ref().clone()).unwrap())
}

fn logic(e: Expr) -> Vec<Option<bool>> {
    let (batch, schema) = logic_data();
    let p = PhysicalExpr::compile(&e, &schema, &QueryContext::new()).unwrap();
    p.evaluate(&batch).unwrap().as_boolean().iter().collect()
}

const T: Option<bool> = Some(true);
const F: Option<bool> = Some(false);
const N: Option<bool> = None;

#[test]
fn and_or_not_follow_kleene_truth_tables() {
    // rows: (T,T) (T,F) (T,N) (F,T) (F,F) (F,N) (N,T) (N,F) (N,N)
    assert_eq!(
        logic(col("p").and(col("q"))),
        vec![T, F, N, F, F, F, N, F, N]
    );
    assert_eq!(
        logic(col("p").or(col("q"))),
        vec![T, T, T, T, F, N, T, N, N]
    );
    assert_eq!(logic(!col("p")), vec![F, F, F, T, T, T, N, N, N]);
    assert_eq!(logic(col("p").and(null())), vec![N, N, N, F, F, F, N, N, N]);
    assert_eq!(logic(col("p").or(lit(true))), vec![T; 9]);
}

#[test]
fn is_true_false_unknown_and_their_negations() {
    assert_eq!(logic(col("p").is_true()), vec![T, T, T, F, F, F, F, F, F]);
    assert_eq!(
        logic(col("p").is_not_true()),
        vec![F, F, F, T, T, T, T, T, T]
    );
    assert_eq!(logic(col("p").is_false()), vec![F, F, F, T, T, T, F, F, F]);
    assert_eq!(
        logic(col("p").is_not_false()),
        vec![T, T, T, F, F, F, T, T, T]
    );
    assert_eq!(
        logic(col("p").is_unknown()),
        vec![F, F, F, F, F, F, T, T, T]
    );
    assert_eq!(
        logic(col("p").is_not_unknown()),
        vec![T, T, T, T, T, T, F, F, F]
    );
    assert_eq!(logic(col("p").is_null()), vec![F, F, F, F, F, F, T, T, T]);
    assert_eq!(
        logic(col("p").is_not_null()),
        vec![T, T, T, T, T, T, F, F, F]
    );
}

#[test]
fn is_distinct_from_treats_nulls_as_values() {
    assert_eq!(
        logic(binary_expr(col("p"), Operator::IsDistinctFrom, col("q"))),
        vec![F, T, T, T, F, T, T, T, F]
    );
    assert_eq!(
        logic(binary_expr(col("p"), Operator::IsNotDistinctFrom, col("q"))),
        vec![T, F, F, F, T, F, F, F, T]
    );
    assert_eq!(
        logic(col("p").eq(col("q"))),
        vec![T, F, N, F, T, N, N, N, N]
    );
}

#[test]
fn between_and_not_between_with_nulls() {
    assert_eq!(
        bools(col("b").between(lit(5i64), lit(30i64))),
        vec![Some(true), Some(false), Some(true), None]
    );
    assert_eq!(
        bools(col("b").not_between(lit(5i64), lit(30i64))),
        vec![Some(false), Some(true), Some(false), None]
    );
    // a NULL bound: false where the other bound already fails, else NULL
    assert_eq!(
        bools(col("b").between(lit(5i64), null())),
        vec![None, Some(false), None, None]
    );
}

#[test]
fn in_list_follows_sql_null_rules() {
    assert_eq!(
        bools(lit(1i64).in_list(vec![lit(2i64), null()], false)),
        vec![None; 4]
    );
    assert_eq!(
        bools(lit(2i64).in_list(vec![lit(2i64), null()], false)),
        vec![Some(true); 4]
    );
    assert_eq!(
        bools(lit(1i64).in_list(vec![lit(2i64), null()], true)),
        vec![None; 4]
    );
    assert_eq!(
        bools(col("a").in_list(vec![lit(1i64), lit(4i64)], false)),
        vec![Some(true), Some(false), None, Some(true)]
    );
    assert_eq!(
        bools(col("a").in_list(vec![lit(1i64), lit(4i64)], true)),
        vec![Some(false), Some(true), None, Some(false)]
    );
    assert_eq!(
        bools(col("s").in_list(vec![lit("apple"), lit("a%b")], false)),
        vec![Some(true), Some(false), None, Some(true)]
    );
}

#[test]
fn searched_and_simple_case() {
    let e = when(col("a").lt(lit(2)), lit("small"))
        .when(col("a").lt(lit(4)), lit("medium"))
        .otherwise(lit("large"))
        .unwrap();
    let out = eval(e);
    let v: Vec<_> = out.as_string::<i32>().iter().collect();
    assert_eq!(
        v,
        vec![Some("small"), Some("medium"), Some("large"), Some("large")]
    );

    let e = case(col("a"))
        .when(lit(1), lit(10))
        .when(lit(4), lit(40))
        .end()
        .unwrap();
    let v: Vec<_> = eval(e).as_primitive::<Int32Type>().iter().collect();
    assert_eq!(v, vec![Some(10), None, None, Some(40)]);
}

#[test]
fn case_evaluates_a_branch_only_on_the_rows_that_take_it() {
    let e = when(col("b").not_eq(lit(0i64)), lit(100i64) / col("b"))
        .otherwise(lit(-1i64))
        .unwrap();
    assert_eq!(ints(e), vec![Some(10), Some(-1), Some(3), Some(-1)]);
    // constants that fail are not folded away into a compile error
    let e = when(lit(false), lit(1i64) / lit(0i64)).end().unwrap();
    assert_eq!(ints(e), vec![None; 4]);
}

#[test]
fn case_results_are_coerced_to_one_type() {
    let e = when(col("a").lt(lit(2)), col("a"))
        .otherwise(col("x"))
        .unwrap();
    assert_eq!(compile(&e).data_type(), &DataType::Float64);
}

#[test]
fn comparisons_with_literals_the_column_type_holds_or_not() {
    // d is [10.00, 0.05, NULL, -3.10], a is [1, 2, NULL, 4].
    let (t, f) = (Some(true), Some(false));
    assert_eq!(bools(col("d").lt(lit(1i64))), vec![f, t, None, t]);
    assert_eq!(bools(lit(10i64).lt_eq(col("d"))), vec![t, f, None, f]);
    assert_eq!(bools(col("d").lt(lit(i64::MAX))), vec![t, t, None, t]);
    assert_eq!(bools(col("a").lt(lit(2.5f64))), vec![t, t, None, f]);
    assert_eq!(
        bools(col("a").gt(lit(3_000_000_000i64))),
        vec![f, f, None, f]
    );
    let half = lit(ScalarValue::Decimal128(Some(15), 3, 1));
    assert_eq!(bools(col("a").gt(half.clone())), vec![f, t, None, t]);
    assert_eq!(
        bools(col("a").between(half, lit(4i64))),
        vec![f, t, None, t]
    );
    assert_eq!(
        bools(col("d").between(lit(0i64), lit(10i64))),
        vec![t, t, None, f]
    );
    // Compared in a decimal type: 0.06 + 0.01 is 0.07 there, not the
    // double 0.06999999999999999 below 0.07.
    let q6 = col("d").between(lit(0.06f64 - 0.01), lit(0.06f64 + 0.01));
    assert_eq!(bools(q6), vec![f, t, None, f]);
    assert_eq!(bools(col("d").lt(lit(0.075f64))), vec![f, t, None, t]);
    assert_eq!(bools(col("d").lt_eq(lit(0.05f64))), vec![f, t, None, t]);
    let list = vec![lit(4i64), lit(2i64), lit(3_000_000_000i64)];
    assert_eq!(bools(col("a").in_list(list, false)), vec![f, t, None, t]);
    let list = vec![lit(4i64), tenths(5)];
    assert_eq!(bools(col("a").in_list(list, true)), vec![t, t, None, f]);
}

#[test]
fn a_case_branch_on_some_rows_reads_the_columns_it_needs_of_a_wide_batch() {
    // The branch reads two of the batch's seven columns; it is evaluated
    // on the rows with b <> 0 only.
    let e = when(
        col("b").not_eq(lit(0i64)),
        cast(col("a"), DataType::Int64) + lit(100i64) / col("b"),
    )
    .otherwise(lit(-1i64))
    .unwrap();
    assert_eq!(ints(e), vec![Some(11), Some(-1), None, Some(-1)]);
}

#[test]
fn an_and_whose_failing_right_side_reads_no_column_fails_only_where_a_row_needs_it() {
    // Every row decided by the left side: the right side is not evaluated.
    let decided = col("a")
        .gt(lit(100))
        .is_true()
        .and(col("b").gt(lit(1i64) / lit(0i64)));
    assert_eq!(bools(decided), vec![Some(false); 4]);
    // Row 2 (a NULL) is not decided: the division by zero is an error.
    let needed = col("a")
        .gt(lit(100))
        .and(col("b").gt(lit(1i64) / lit(0i64)));
    let message = error(needed);
    assert!(message.contains("zero"), "{message}");
}

#[test]
fn and_does_not_evaluate_a_failing_right_side_where_the_left_is_false() {
    let e = col("b")
        .not_eq(lit(0i64))
        .and((lit(100i64) / col("b")).gt(lit(5i64)));
    assert_eq!(bools(e), vec![Some(true), Some(false), Some(false), None]);
}

#[test]
fn cast_and_try_cast() {
    assert_eq!(ints(cast(lit("12"), DataType::Int64)), vec![Some(12); 4]);
    assert_eq!(
        ints(cast(col("a"), DataType::Int64)),
        vec![Some(1), Some(2), None, Some(4)]
    );
    let bad = cast(col("s"), DataType::Int64);
    let msg = error(bad);
    assert!(msg.contains("Cannot cast string 'apple'"), "{msg}");
    assert_eq!(ints(try_cast(col("s"), DataType::Int64)), vec![None; 4]);
    let msg = error(cast(col("dt"), DataType::Boolean));
    assert!(msg.contains("cannot cast Date32 to Boolean"), "{msg}");
}

fn like(e: Expr, pattern: &str, negated: bool, ci: bool, escape: Option<char>) -> Expr {
    Expr::Like(Like::new(
        negated,
        Box::new(e),
        Box::new(lit(pattern)),
        escape,
        ci,
    ))
}

#[test]
fn like_with_percent_underscore_and_escapes() {
    let s = || col("s");
    // s: apple, banana, NULL, a%b
    assert_eq!(bools(like(s(), "a%", false, false, None)), vec![T, F, N, T]);
    assert_eq!(
        bools(like(s(), "_anana", false, false, None)),
        vec![F, T, N, F]
    );
    assert_eq!(
        bools(like(s(), "a\\%b", false, false, None)),
        vec![F, F, N, T]
    );
    assert_eq!(
        bools(like(s(), "a!%b", false, false, Some('!'))),
        vec![F, F, N, T]
    );
    assert_eq!(
        bools(like(s(), "a!%%", false, false, Some('!'))),
        vec![F, F, N, T]
    );
    assert_eq!(bools(like(s(), "A%", false, true, None)), vec![T, F, N, T]);
    assert_eq!(bools(like(s(), "A%", false, false, None)), vec![F, F, N, F]);
    assert_eq!(
        bools(like(s(), "%an%", true, false, None)),
        vec![T, F, N, T]
    );
    assert_eq!(
        bools(like(col("sv"), "ap%", false, false, None)),
        vec![T, F, F, N]
    );
    let msg = error(like(col("a"), "1%", false, false, None));
    assert!(msg.contains("LIKE needs strings"), "{msg}");
}

#[test]
fn string_concatenation() {
    let e = Expr::BinaryExpr(datafusion_expr::BinaryExpr::new(
        Box::new(col("s")),
        Operator::StringConcat,
        Box::new(lit("!")),
    ));
    let v: Vec<_> = eval(e)
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect();
    assert_eq!(
        v,
        vec![
            Some("apple!".into()),
            Some("banana!".into()),
            None,
            Some("a%b!".into())
        ]
    );
}

#[test]
fn coalesce_and_nullif() {
    assert_eq!(
        ints(f::coalesce(vec![col("b"), col("a"), lit(0i64)])),
        vec![Some(10), Some(0), Some(30), Some(4)]
    );
    assert_eq!(ints(f::coalesce(vec![null(), lit(7i64)])), vec![Some(7); 4]);
    // COALESCE evaluates later arguments only where needed: row 0 has
    // a = 1 (1 / 0) but b = 10.
    assert_eq!(
        ints(f::coalesce(vec![col("b"), lit(1i64) / (col("a") - lit(1))])),
        vec![Some(10), Some(0), Some(30), Some(0)]
    );
    assert_eq!(
        ints(f::nullif(col("b"), lit(0i64))),
        vec![Some(10), None, Some(30), None]
    );
}

#[test]
fn negation() {
    assert_eq!(ints(-col("b")), vec![Some(-10), Some(0), Some(-30), None]);
    let msg = error(-lit(i64::MIN));
    assert!(msg.contains("overflow"), "{msg}");
    let msg = error(-col("s"));
    assert!(msg.contains("cannot negate"), "{msg}");
}

#[test]
fn scalar_functions_common_in_joins_and_tpch() {
    let v: Vec<_> = eval(f::upper(col("s")))
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect();
    assert_eq!(v[0].as_deref(), Some("APPLE"));
    let out = eval(f::substr(col("s"), lit(2i64)));
    let v = arrow_cast::display::ArrayFormatter::try_new(out.as_ref(), &Default::default())
        .unwrap()
        .value(1)
        .to_string();
    assert_eq!(v, "anana");
    let out = eval(f::abs(col("x")));
    let v: Vec<_> = out.as_primitive::<Float64Type>().iter().collect();
    assert_eq!(v, vec![Some(1.5), Some(2.0), None, Some(0.0)]);
    let year = eval(f::date_part(lit("year"), col("dt")));
    let year = arrow_cast::cast(&year, &DataType::Int64).unwrap();
    let v: Vec<_> = year.as_primitive::<Int64Type>().iter().collect();
    assert_eq!(v, vec![Some(1994), Some(1995), None, Some(1995)]);
}

#[test]
fn now_is_one_value_per_query_context() {
    let (batch, schema) = data();
    let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let ctx = QueryContext::at(start);
    let first = PhysicalExpr::compile(&f::now(), &schema, &ctx).unwrap();
    let second = PhysicalExpr::compile(&f::now(), &schema, &ctx).unwrap();
    let a = first.evaluate(&batch).unwrap();
    let b = second.evaluate(&batch).unwrap();
    assert_eq!(a.as_ref(), b.as_ref());
    let ts = arrow_cast::cast(&a, &DataType::Int64).unwrap();
    assert!(
        ts.as_primitive::<Int64Type>()
            .values()
            .iter()
            .all(|&v| v == 1_700_000_000_000_000_000)
    );
    let later = QueryContext::at(start + Duration::from_secs(1));
    let c = PhysicalExpr::compile(&f::now(), &schema, &later)
        .unwrap()
        .evaluate(&batch)
        .unwrap();
    assert_ne!(a.as_ref(), c.as_ref());
    let today = PhysicalExpr::compile(&f::current_date(), &schema, &ctx).unwrap();
    let d = today.evaluate(&batch).unwrap();
    assert_eq!(
        d.as_primitive::<arrow_array::types::Date32Type>().value(0),
        19675
    );
}

#[test]
fn unknown_columns_and_unsupported_expressions_are_errors() {
    let msg = error(col("nope") + lit(1));
    assert!(msg.contains("unknown column `nope`"), "{msg}");
    let msg = error(Expr::Placeholder(
        datafusion_expr::expr::Placeholder::new_with_field("$1".into(), None),
    ));
    assert!(msg.contains("unsupported expression `$1`"), "{msg}");
    let msg = error(col("a").and(col("b")));
    assert!(msg.contains("boolean"), "{msg}");
}

#[test]
fn literals_stay_scalar_and_constant_subtrees_fold() {
    let e = compile(&(lit(1i64) + lit(2i64)));
    assert!(e.is_literal());
    let (batch, _) = data();
    assert!(e.evaluate_value(&batch).unwrap().is_scalar());
    assert_eq!(ints(lit(1i64) + lit(2i64)), vec![Some(3); 4]);
}

#[test]
fn empty_batches_evaluate_to_empty_arrays() {
    let (batch, schema) = data();
    let empty = batch.slice(0, 0);
    let e = PhysicalExpr::compile(
        &when(col("a").gt(lit(1)), col("b"))
            .otherwise(lit(0i64))
            .unwrap(),
        &schema,
        &QueryContext::new(),
    )
    .unwrap();
    assert_eq!(e.evaluate(&empty).unwrap().len(), 0);
}

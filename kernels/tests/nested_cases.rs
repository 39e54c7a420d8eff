//! Hand-written cases of the nested-loop join, each run every way it can
//! run (both build sides, fast path and plain loop, one and four threads,
//! large and tiny batches, one input batch or several, `collect` and
//! `execute`): band conditions, ties, NULLs and float edge values in range
//! columns, NOT IN over range conditions, CROSS JOIN, count-only output,
//! and the errors (mismatched or unsupported range column types, bad
//! options, the memory budget, a failing filter).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Float32Array, Float64Array, Int32Array, RecordBatch,
    UInt32Array, UInt64Array,
};
use arrow_schema::DataType;
use tenon_kernels::{
    CmpOp, JoinInput, JoinKernel, JoinSide, JoinType, KernelError, MemoryBudget, NestedLoopJoin,
    RangeCondition,
};

use common::cases::{batch, chunked, i64s, one, strs};
use common::reference::{RefJoin, RowFilter};
use common::{NULL, Row, Value, check_batches, int, less_than_filter, less_than_rows};

/// One way of running a join.
struct Variant {
    desc: String,
    join: NestedLoopJoin,
    batch_size: usize,
    via_stream: bool,
}

/// `base` with both build sides, fast path on and off, and three thread /
/// batch size / collect-or-stream combinations.
fn variants(base: &NestedLoopJoin) -> Vec<Variant> {
    let mut out = Vec::new();
    for build in [JoinSide::Left, JoinSide::Right] {
        for fast in [true, false] {
            for (threads, batch_size, via_stream) in [(1, 8192, false), (4, 3, true), (2, 1, false)]
            {
                out.push(Variant {
                    desc: format!(
                        "build={build:?} fast={fast} threads={threads} batch_size={batch_size} \
                         stream={via_stream}"
                    ),
                    join: base
                        .clone()
                        .build_side(build)
                        .fast_path(fast)
                        .threads(threads)
                        .batch_size(batch_size),
                    batch_size,
                    via_stream,
                });
            }
        }
    }
    out
}

fn run_kernel(
    join: &NestedLoopJoin,
    left: &JoinInput,
    right: &JoinInput,
    via_stream: bool,
) -> Result<Vec<RecordBatch>, KernelError> {
    if via_stream {
        let stream = join.execute(left.clone(), right.clone())?;
        stream.collect()
    } else {
        join.collect(left.clone(), right.clone())
    }
}

/// The inputs as one batch each, and as batches of two rows.
fn input_shapes(left: &RecordBatch, right: &RecordBatch) -> [(JoinInput, JoinInput); 2] {
    [
        (one(left), one(right)),
        (chunked(left, 2), chunked(right, 2)),
    ]
}

/// Runs every variant of `base` and returns the rows of each (they must
/// all be the same multiset, with bounded, well-typed batches).
fn rows_all_ways(base: &NestedLoopJoin, left: &RecordBatch, right: &RecordBatch) -> Vec<Row> {
    common::quiet_worker_panics();
    let schema = common::field_shapes(
        &base
            .output_schema(&left.schema(), &right.schema())
            .expect("output schema"),
    );
    let mut first: Option<(String, Vec<Row>)> = None;
    for (l, r) in input_shapes(left, right) {
        for v in variants(base) {
            let res = catch_unwind(AssertUnwindSafe(|| {
                run_kernel(&v.join, &l, &r, v.via_stream)
            }));
            let batches = match res {
                Ok(Ok(b)) => b,
                Ok(Err(e)) => panic!("{}: unexpected error: {e}", v.desc),
                Err(p) => panic!(
                    "{}: the kernel panicked: {} (last worker panic: {})",
                    v.desc,
                    common::panic_text(p.as_ref()),
                    common::last_worker_panic()
                ),
            };
            let rows = common::sorted(
                check_batches(&batches, &schema, v.batch_size)
                    .unwrap_or_else(|e| panic!("{}: {e}", v.desc)),
            );
            match &first {
                None => first = Some((v.desc, rows)),
                Some((d0, rows0)) => {
                    let diff = common::multiset_diff(&rows, rows0);
                    assert!(diff.is_empty(), "{} vs {d0}: {diff}", v.desc);
                }
            }
        }
    }
    first.map(|f| f.1).unwrap_or_default()
}

/// Asserts that every variant of `base` outputs exactly `expected`.
fn assert_rows(base: &NestedLoopJoin, left: &RecordBatch, right: &RecordBatch, expected: &[Row]) {
    let rows = rows_all_ways(base, left, right);
    let diff = common::multiset_diff(&rows, expected);
    assert!(diff.is_empty(), "{}: {diff}", base.join_type());
}

/// The error of every variant of `base` (which must fail), via `collect`
/// and via `execute`.
fn errors_all_ways(
    base: &NestedLoopJoin,
    left: &RecordBatch,
    right: &RecordBatch,
) -> Vec<KernelError> {
    common::quiet_worker_panics();
    let mut out = Vec::new();
    let (l, r) = (one(left), one(right));
    for v in variants(base) {
        for via_stream in [false, true] {
            let res = catch_unwind(AssertUnwindSafe(|| run_kernel(&v.join, &l, &r, via_stream)));
            match res {
                Ok(Err(e)) => out.push(e),
                Ok(Ok(b)) => panic!("{}: expected an error, got {} batches", v.desc, b.len()),
                Err(p) => panic!(
                    "{}: panicked instead of returning an error: {}",
                    v.desc,
                    common::panic_text(p.as_ref())
                ),
            }
        }
    }
    out
}

fn cond(l: usize, op: CmpOp, r: usize) -> RangeCondition {
    RangeCondition::new(l, op, r)
}

fn f64s(v: &[f64]) -> ArrayRef {
    Arc::new(Float64Array::from(v.to_vec()))
}

fn f64v(v: f64) -> Value {
    Value::F64(v.to_bits())
}

#[test]
fn band_condition_keeps_pairs_inside_the_band() {
    // a.t BETWEEN b.lo AND b.hi
    let a = batch(vec![("t", i64s(&[Some(1), Some(5), Some(9), None]))]);
    let b = batch(vec![
        ("lo", i64s(&[Some(0), Some(4), Some(5), None, Some(8)])),
        ("hi", i64s(&[Some(2), Some(6), Some(5), Some(10), None])),
    ]);
    let band = vec![cond(0, CmpOp::Ge, 0), cond(0, CmpOp::Le, 1)];
    let inner = NestedLoopJoin::new(JoinType::Inner).ranges(band.clone());
    let pairs = vec![
        vec![int(1), int(0), int(2)],
        vec![int(5), int(4), int(6)],
        vec![int(5), int(5), int(5)],
    ];
    assert_rows(&inner, &a, &b, &pairs);

    let mut left = pairs.clone();
    left.push(vec![int(9), NULL, NULL]);
    left.push(vec![NULL, NULL, NULL]);
    assert_rows(
        &NestedLoopJoin::new(JoinType::Left).ranges(band.clone()),
        &a,
        &b,
        &left,
    );

    let mut full = left.clone();
    full.push(vec![NULL, NULL, int(10)]);
    full.push(vec![NULL, int(8), NULL]);
    assert_rows(
        &NestedLoopJoin::new(JoinType::Full).ranges(band.clone()),
        &a,
        &b,
        &full,
    );

    assert_rows(
        &NestedLoopJoin::new(JoinType::RightSemi).ranges(band),
        &a,
        &b,
        &[
            vec![int(0), int(2)],
            vec![int(4), int(6)],
            vec![int(5), int(5)],
        ],
    );
}

#[test]
fn band_with_a_filter_and_a_residual_condition() {
    // a.t BETWEEN b.lo AND b.hi AND a.k < b.k (filter) AND a.w >= b.w (residual)
    let a = batch(vec![
        ("t", i64s(&[Some(3), Some(3), Some(7)])),
        ("k", i64s(&[Some(1), Some(5), Some(1)])),
        ("w", i64s(&[Some(0), Some(9), Some(9)])),
    ]);
    let b = batch(vec![
        ("lo", i64s(&[Some(2), Some(2), Some(6)])),
        ("hi", i64s(&[Some(4), Some(8), Some(8)])),
        ("k", i64s(&[Some(2), Some(9), Some(0)])),
        ("w", i64s(&[Some(0), Some(1), Some(5)])),
    ]);
    let join = NestedLoopJoin::new(JoinType::Inner)
        .ranges(vec![
            cond(0, CmpOp::Ge, 0),
            cond(0, CmpOp::Le, 1),
            cond(2, CmpOp::Ge, 3),
        ])
        .filter(less_than_filter(1, 2))
        .projection(Some(vec![0, 1]), Some(vec![2]));
    // (3,1,0): b0 k 2, w 0 ok; b1 k 9, w 1 > 0 no. (3,5,9): b0 k 2 no; b1 k 9 w 1 ok.
    // (7,1,9): b1 k 9 w 1 ok; b2 k 0 no.
    assert_rows(
        &join,
        &a,
        &b,
        &[
            vec![int(3), int(1), int(2)],
            vec![int(3), int(5), int(9)],
            vec![int(7), int(1), int(9)],
        ],
    );
}

#[test]
fn an_equality_written_as_two_ranges_joins_equal_keys() {
    // a.k <= b.k AND a.k >= b.k AND a.t BETWEEN b.lo AND b.hi: the fast
    // path sorts on b.k (bounded from both sides) and tests the band.
    let a = batch(vec![
        ("k", i64s(&[Some(1), Some(1), Some(2), None, Some(3)])),
        ("t", i64s(&[Some(5), Some(50), Some(5), Some(5), Some(5)])),
    ]);
    let b = batch(vec![
        ("lo", i64s(&[Some(0), Some(0), Some(40), Some(0), Some(0)])),
        (
            "hi",
            i64s(&[Some(10), Some(10), Some(60), Some(10), Some(10)]),
        ),
        ("k", i64s(&[Some(1), Some(2), Some(1), None, Some(4)])),
    ]);
    let join = NestedLoopJoin::new(JoinType::Inner)
        .ranges(vec![
            cond(1, CmpOp::Ge, 0),
            cond(1, CmpOp::Le, 1),
            cond(0, CmpOp::Le, 2),
            cond(0, CmpOp::Ge, 2),
        ])
        .projection(Some(vec![0, 1]), Some(vec![0]));
    assert_rows(
        &join,
        &a,
        &b,
        &[
            vec![int(1), int(5), int(0)],
            vec![int(1), int(50), int(40)],
            vec![int(2), int(5), int(0)],
        ],
    );
    let anti = NestedLoopJoin::new(JoinType::LeftAnti)
        .ranges(vec![cond(0, CmpOp::Le, 2), cond(0, CmpOp::Ge, 2)]);
    assert_rows(&anti, &a, &b, &[vec![NULL, int(5)], vec![int(3), int(5)]]);
}

#[test]
fn ties_are_equal_for_le_and_ge_and_unequal_for_lt_and_gt() {
    let a = batch(vec![(
        "v",
        i64s(&[Some(1), Some(1), Some(2), Some(2), Some(2)]),
    )]);
    let b = batch(vec![("v", i64s(&[Some(1), Some(2), Some(2), Some(3)]))]);
    let count = |op: CmpOp, jt: JoinType| {
        let join = NestedLoopJoin::new(jt)
            .ranges(vec![cond(0, op, 0)])
            .projection(Some(vec![]), Some(vec![]));
        rows_all_ways(&join, &a, &b).len()
    };
    assert_eq!(count(CmpOp::Lt, JoinType::Inner), 2 * 3 + 3);
    assert_eq!(count(CmpOp::Le, JoinType::Inner), 2 * 4 + 3 * 3);
    assert_eq!(count(CmpOp::Gt, JoinType::Inner), 3);
    assert_eq!(count(CmpOp::Ge, JoinType::Inner), 2 + 3 * 3);
    // a.v > b.v: only the 2s have a smaller right value.
    assert_eq!(count(CmpOp::Gt, JoinType::LeftSemi), 3);
    // Right rows 2, 2, 3 have no greater left value.
    assert_eq!(count(CmpOp::Gt, JoinType::RightAnti), 3);
    assert_eq!(count(CmpOp::Ge, JoinType::RightAnti), 1);
}

#[test]
fn nulls_in_range_columns_never_match() {
    let a = batch(vec![("v", i64s(&[Some(1), None, Some(3)]))]);
    let b = batch(vec![("v", i64s(&[Some(2), None]))]);
    let lt = vec![cond(0, CmpOp::Lt, 0)];
    assert_rows(
        &NestedLoopJoin::new(JoinType::Inner).ranges(lt.clone()),
        &a,
        &b,
        &[vec![int(1), int(2)]],
    );
    // NOT EXISTS: a NULL never matches, so it does not remove a row.
    assert_rows(
        &NestedLoopJoin::new(JoinType::LeftAnti).ranges(lt.clone()),
        &a,
        &b,
        &[vec![NULL], vec![int(3)]],
    );
    assert_rows(
        &NestedLoopJoin::new(JoinType::RightAnti).ranges(lt),
        &a,
        &b,
        &[vec![NULL]],
    );
}

#[test]
fn not_in_treats_a_null_range_value_as_unknown() {
    let a = batch(vec![
        ("v", i64s(&[Some(1), None, Some(3)])),
        ("w", i64s(&[Some(0), Some(0), None])),
    ]);
    let b_null = batch(vec![
        ("v", i64s(&[Some(2), None])),
        ("w", i64s(&[Some(0), Some(0)])),
    ]);
    let b = batch(vec![("v", i64s(&[Some(2)])), ("w", i64s(&[Some(0)]))]);
    let lt = NestedLoopJoin::new(JoinType::LeftAntiNullAware).ranges(vec![cond(0, CmpOp::Lt, 0)]);
    // A NULL on the right makes every comparison unknown: nothing is kept.
    assert_rows(&lt, &a, &b_null, &[]);
    // 1 < 2 conflicts, NULL < 2 is unknown, 3 < 2 is FALSE.
    assert_rows(&lt, &a, &b, &[vec![int(3), NULL]]);
    // An empty right side keeps every row.
    assert_rows(
        &lt,
        &a,
        &b.slice(0, 0),
        &[vec![int(1), int(0)], vec![NULL, int(0)], vec![int(3), NULL]],
    );
    // A FALSE condition wins over an unknown one: a.v < b.v AND a.w >= b.w.
    // Row (3, NULL): 3 < 2 is FALSE, kept; (1, 0): both TRUE; (NULL, 0): unknown.
    let two = NestedLoopJoin::new(JoinType::LeftAntiNullAware)
        .ranges(vec![cond(0, CmpOp::Lt, 0), cond(1, CmpOp::Ge, 1)]);
    assert_rows(&two, &a, &b, &[vec![int(3), NULL]]);
    // The filter's NULL counts as unknown too (left.w < right.w, here never
    // TRUE and NULL for the third row).
    let f = NestedLoopJoin::new(JoinType::LeftAntiNullAware).filter(less_than_filter(1, 1));
    assert_rows(&f, &a, &b, &[vec![int(1), int(0)], vec![NULL, int(0)]]);
}

#[test]
fn floats_compare_with_negative_zero_equal_to_zero_and_nan_greatest() {
    let a = batch(vec![(
        "x",
        f64s(&[-0.0, 0.0, f64::NAN, 1.0, f64::NEG_INFINITY]),
    )]);
    let b = batch(vec![("x", f64s(&[0.0, -f64::NAN]))]);
    let run = |op| {
        let join = NestedLoopJoin::new(JoinType::Inner).ranges(vec![cond(0, op, 0)]);
        rows_all_ways(&join, &a, &b)
    };
    let nan_b = Value::F64((-f64::NAN).to_bits());
    let lt = vec![
        vec![f64v(-0.0), nan_b.clone()],
        vec![f64v(0.0), nan_b.clone()],
        vec![f64v(1.0), nan_b.clone()],
        vec![f64v(f64::NEG_INFINITY), f64v(0.0)],
        vec![f64v(f64::NEG_INFINITY), nan_b.clone()],
    ];
    assert!(common::multiset_diff(&run(CmpOp::Lt), &lt).is_empty());
    let mut le = lt.clone();
    le.push(vec![f64v(-0.0), f64v(0.0)]); // -0.0 keeps its bits in the output
    le.push(vec![f64v(0.0), f64v(0.0)]);
    le.push(vec![f64v(f64::NAN), nan_b]);
    let diff = common::multiset_diff(&run(CmpOp::Le), &le);
    assert!(diff.is_empty(), "{diff}");
    // Float32: the same rules.
    let a32 = batch(vec![(
        "x",
        Arc::new(Float32Array::from(vec![-0.0f32, f32::NAN])) as ArrayRef,
    )]);
    let b32 = batch(vec![(
        "x",
        Arc::new(Float32Array::from(vec![0.0f32])) as ArrayRef,
    )]);
    let ge = NestedLoopJoin::new(JoinType::LeftSemi).ranges(vec![cond(0, CmpOp::Ge, 0)]);
    assert_eq!(rows_all_ways(&ge, &a32, &b32).len(), 2);
}

#[test]
fn other_range_types_compare_by_value() {
    // UInt64 above i64::MAX, Int32 and Date32 columns.
    let a = batch(vec![
        (
            "u",
            Arc::new(UInt64Array::from(vec![1, u64::MAX])) as ArrayRef,
        ),
        ("i", Arc::new(Int32Array::from(vec![-5, 7])) as ArrayRef),
        ("d", Arc::new(Date32Array::from(vec![100, -3])) as ArrayRef),
    ]);
    let b = batch(vec![
        ("u", Arc::new(UInt64Array::from(vec![1 << 63])) as ArrayRef),
        ("i", Arc::new(Int32Array::from(vec![0])) as ArrayRef),
        ("d", Arc::new(Date32Array::from(vec![0])) as ArrayRef),
    ]);
    let count = |c: RangeCondition| {
        let join = NestedLoopJoin::new(JoinType::Inner)
            .ranges(vec![c])
            .projection(Some(vec![]), Some(vec![]));
        rows_all_ways(&join, &a, &b).len()
    };
    assert_eq!(count(cond(0, CmpOp::Lt, 0)), 1);
    assert_eq!(count(cond(1, CmpOp::Lt, 1)), 1);
    assert_eq!(count(cond(2, CmpOp::Gt, 2)), 1);
}

#[test]
fn cross_join_pairs_every_row() {
    let a = batch(vec![("x", i64s(&[Some(1), Some(2), None]))]);
    let b = batch(vec![("y", strs(&[Some("p"), None]))]);
    let rows: Vec<Row> = [int(1), int(2), NULL]
        .iter()
        .flat_map(|x| {
            [Value::Str("p".into()), NULL]
                .into_iter()
                .map(move |y| vec![x.clone(), y])
        })
        .collect();
    assert_rows(&NestedLoopJoin::new(JoinType::Inner), &a, &b, &rows);
    let empty = b.slice(0, 0);
    assert_rows(&NestedLoopJoin::new(JoinType::Inner), &a, &empty, &[]);
    assert_rows(
        &NestedLoopJoin::new(JoinType::Left),
        &a,
        &empty,
        &[vec![int(1), NULL], vec![int(2), NULL], vec![NULL, NULL]],
    );
    // NOT IN with no predicate: any right row conflicts.
    assert_rows(
        &NestedLoopJoin::new(JoinType::LeftAntiNullAware),
        &a,
        &b,
        &[],
    );
    assert_rows(
        &NestedLoopJoin::new(JoinType::LeftAntiNullAware),
        &a,
        &empty,
        &[vec![int(1)], vec![int(2)], vec![NULL]],
    );
    assert_rows(
        &NestedLoopJoin::new(JoinType::RightSemi),
        &a.slice(0, 0),
        &b,
        &[],
    );
}

/// A pseudo-random Int64 column of `n` values in `0..m`, some NULL.
fn random_values(n: usize, m: i64, seed: u64) -> ArrayRef {
    let mut s = seed;
    let v: Vec<Option<i64>> = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = (s >> 33) as i64;
            (x % 17 != 0).then_some(x % m)
        })
        .collect();
    i64s(&v)
}

#[test]
fn count_only_output_carries_row_counts_without_columns() {
    let a = batch(vec![("v", random_values(150, 40, 1))]);
    let b = batch(vec![("v", random_values(90, 40, 2))]);
    let lrows = common::batch_rows(&a);
    let rrows = common::batch_rows(&b);
    let pred = less_than_rows(0, 0);
    for jt in JoinType::ALL {
        for ranges in [
            vec![cond(0, CmpOp::Lt, 0)],
            vec![cond(0, CmpOp::Lt, 0), cond(0, CmpOp::Le, 0)],
        ] {
            let join = NestedLoopJoin::new(jt)
                .ranges(ranges)
                .projection(Some(vec![]), Some(vec![]));
            let oracle = RefJoin {
                filter: Some(&pred as RowFilter<'_>),
                left_projection: Some(&[]),
                right_projection: Some(&[]),
                ..RefJoin::new(jt, &[])
            };
            let want = oracle.run_any(&lrows, &rrows, (1, 1)).len();
            let got = rows_all_ways(&join, &a, &b);
            assert_eq!(got.len(), want, "{jt}");
            assert!(got.iter().all(|r| r.is_empty()));
        }
    }
}

#[test]
fn count_only_batches_are_bounded_by_the_batch_size() {
    let a = batch(vec![("v", i64s(&(0..50).map(Some).collect::<Vec<_>>()))]);
    let b = a.clone();
    for fast in [true, false] {
        let join = NestedLoopJoin::new(JoinType::Inner)
            .ranges(vec![cond(0, CmpOp::Lt, 0)])
            .projection(Some(vec![]), Some(vec![]))
            .fast_path(fast)
            .batch_size(100);
        let out = join.collect(one(&a), one(&b)).unwrap();
        assert!(
            out.iter()
                .all(|b| b.num_columns() == 0 && b.num_rows() <= 100)
        );
        assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 50 * 49 / 2);
    }
}

#[test]
fn mismatched_range_column_types_are_a_clear_error() {
    let a = batch(vec![("v", i64s(&[Some(1)]))]);
    let b = batch(vec![(
        "v",
        Arc::new(Int32Array::from(vec![Some(1)])) as ArrayRef,
    )]);
    let join = NestedLoopJoin::new(JoinType::Inner).ranges(vec![cond(0, CmpOp::Lt, 0)]);
    for e in errors_all_ways(&join, &a, &b) {
        let msg = e.to_string();
        assert!(
            matches!(e, KernelError::InvalidOptions(_))
                && msg.contains("compares Int64 with Int32"),
            "{msg}"
        );
    }
    let s = batch(vec![("v", strs(&[Some("x")]))]);
    let join = NestedLoopJoin::new(JoinType::Inner).ranges(vec![cond(0, CmpOp::Lt, 0)]);
    for e in errors_all_ways(&join, &s, &s) {
        assert!(e.to_string().contains("do not support"), "{e}");
    }
    let join = NestedLoopJoin::new(JoinType::Inner).ranges(vec![cond(0, CmpOp::Lt, 3)]);
    for e in errors_all_ways(&join, &a, &a) {
        assert!(e.to_string().contains("names right column 3"), "{e}");
    }
}

#[test]
fn bad_options_are_errors() {
    let a = batch(vec![("v", i64s(&[Some(1)]))]);
    // (Not through the variants, which set their own batch size.)
    let zero = NestedLoopJoin::new(JoinType::Inner).batch_size(0);
    let e = zero.collect(one(&a), one(&a)).unwrap_err();
    assert!(e.to_string().contains("batch_size"), "{e}");
    let e = zero.execute(one(&a), one(&a)).unwrap_err();
    assert!(e.to_string().contains("batch_size"), "{e}");
    let p = NestedLoopJoin::new(JoinType::Inner).projection(Some(vec![4]), None);
    for e in errors_all_ways(&p, &a, &a) {
        assert!(
            e.to_string().contains("left projection names column 4"),
            "{e}"
        );
    }
    // A batch that does not match its input's schema.
    let other = batch(vec![("v", strs(&[Some("x")]))]);
    let bad = JoinInput::new(a.schema(), vec![other]);
    let err = NestedLoopJoin::new(JoinType::Inner)
        .collect(one(&a), bad)
        .unwrap_err();
    assert!(err.to_string().contains("does not match"), "{err}");
}

#[test]
fn the_memory_budget_limits_the_sorted_build_side_and_bitmaps() {
    let a = batch(vec![("v", random_values(2000, 100, 3))]);
    let b = batch(vec![("v", random_values(2000, 100, 4))]);
    for fast in [true, false] {
        let budget = MemoryBudget::new(1024);
        let join = NestedLoopJoin::new(JoinType::Full)
            .ranges(vec![cond(0, CmpOp::Lt, 0)])
            .fast_path(fast)
            .memory(budget.clone());
        let err = join.collect(one(&a), one(&b)).unwrap_err();
        assert!(
            matches!(err, KernelError::MemoryLimitExceeded { .. }),
            "fast={fast}: {err}"
        );
        assert_eq!(budget.used(), 0, "reservations are returned");
    }
    // Within budget everything is given back at the end.
    let budget = MemoryBudget::new(1 << 24);
    let join = NestedLoopJoin::new(JoinType::Full)
        .ranges(vec![cond(0, CmpOp::Lt, 0)])
        .projection(Some(vec![]), Some(vec![]))
        .memory(budget.clone());
    join.collect(chunked(&a, 300), one(&b)).unwrap();
    assert_eq!(budget.used(), 0);
}

#[test]
fn a_failing_filter_stops_the_join_with_its_error() {
    let a = batch(vec![("v", i64s(&[Some(1), Some(2)]))]);
    let fail = |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
        Err::<BooleanArray, _>(KernelError::Filter("boom".into()))
    };
    let join = NestedLoopJoin::new(JoinType::Left)
        .ranges(vec![cond(0, CmpOp::Le, 0)])
        .filter(Arc::new(fail));
    for e in errors_all_ways(&join, &a, &a) {
        assert!(e.to_string().contains("boom"), "{e}");
    }
}

#[test]
fn output_schema_marks_the_null_extended_side_nullable() {
    let a = RecordBatch::try_from_iter_with_nullable([(
        "x",
        Arc::new(Int32Array::from(vec![1])) as ArrayRef,
        false,
    )])
    .unwrap();
    let join = NestedLoopJoin::new(JoinType::Full);
    let s = join.output_schema(&a.schema(), &a.schema()).unwrap();
    assert!(s.fields().iter().all(|f| f.is_nullable()));
    assert_eq!(s.field(0).data_type(), &DataType::Int32);
    let out = rows_all_ways(&join, &a, &a);
    assert_eq!(out, vec![vec![int(1), int(1)]]);
}

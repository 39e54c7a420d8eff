//! Hand-written cases of the sort-merge join: NULL keys, one huge run of
//! equal keys, NOT IN with NULLs on either side, presorted declarations
//! (true, false, NULLs anywhere), key types beyond the property tests'
//! (floats with -0.0 and NaN, unsigned above `i64::MAX`, decimals, views,
//! binaries, dictionaries), larger inputs with a hot key, and the option
//! errors, which must read as the hash join's.

mod common;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Decimal128Array, DictionaryArray, Float32Array,
    Float64Array, Int8Array, Int64Array, LargeStringArray, RecordBatch, StringViewArray,
    UInt64Array,
};
use tenon_kernels::{
    HashJoin, JoinInput, JoinKernel, JoinType, KernelError, MemoryBudget, SortMergeJoin,
};

use common::cases::{batch, chunked, i64s, keys, one, strs};
use common::merge::{all_types_match_oracle, assert_matches_oracle, run, variants};
use common::reference::RefJoin;
use common::{NULL, multiset_diff};
use common::{Row, Value, all_rows, check_batches, int};

#[test]
fn all_null_keys_never_match_unless_null_equal() {
    let l = batch(vec![
        ("k", i64s(&[None, None, None])),
        ("p", i64s(&[Some(1), Some(2), None])),
    ]);
    let r = batch(vec![
        ("k", i64s(&[None, None])),
        ("p", i64s(&[Some(5), Some(0)])),
    ]);
    all_types_match_oracle(&one(&l), &one(&r), &[(0, 0)], Some((1, 1)), (false, false));
    all_types_match_oracle(
        &chunked(&l, 2),
        &chunked(&r, 1),
        &[(0, 0)],
        Some((1, 1)),
        (true, true),
    );
    // Inner with null_equal: every NULL pairs with every NULL.
    let join = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).null_equal(true);
    let out = join.collect(one(&l), one(&r)).unwrap();
    assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 6);
}

#[test]
fn composite_keys_with_null_columns() {
    let l = batch(vec![
        ("a", i64s(&[Some(1), None, Some(1), None, Some(2)])),
        ("b", strs(&[Some("x"), Some("x"), None, None, Some("y")])),
        ("p", i64s(&[Some(1), Some(2), Some(3), Some(4), Some(5)])),
    ]);
    let r = batch(vec![
        ("b", strs(&[None, Some("x"), Some("x"), None, Some("y")])),
        ("a", i64s(&[Some(1), None, Some(1), None, Some(2)])),
        ("p", i64s(&[Some(9), Some(9), Some(0), Some(9), Some(9)])),
    ]);
    all_types_match_oracle(
        &one(&l),
        &chunked(&r, 2),
        &[(0, 1), (1, 0)],
        Some((2, 2)),
        (false, false),
    );
}

/// Two integer key columns (which the hash join packs into one 128-bit
/// word), declared presorted in SQL order: negative first columns first,
/// the second column ordered within each first. The merge must accept the
/// declarations and match the oracle.
#[test]
fn presorted_two_integer_keys_in_sql_order() {
    let l = batch(vec![
        (
            "a",
            i64s(&[Some(-3), Some(-3), Some(-1), Some(0), Some(0), Some(2)]),
        ),
        (
            "b",
            i64s(&[Some(5), Some(7), Some(-2), Some(-9), Some(4), Some(1)]),
        ),
        (
            "p",
            i64s(&[Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)]),
        ),
    ]);
    let r = batch(vec![
        (
            "a",
            i64s(&[
                Some(-3),
                Some(-1),
                Some(0),
                Some(0),
                Some(0),
                Some(2),
                Some(3),
            ]),
        ),
        (
            "b",
            i64s(&[
                Some(7),
                Some(-2),
                Some(-9),
                Some(-9),
                Some(8),
                Some(1),
                Some(0),
            ]),
        ),
        (
            "p",
            i64s(&[
                Some(9),
                Some(0),
                Some(9),
                Some(2),
                Some(9),
                Some(9),
                Some(9),
            ]),
        ),
    ]);
    for presorted in [(true, true), (true, false), (false, true)] {
        all_types_match_oracle(
            &one(&l),
            &chunked(&r, 3),
            &[(0, 0), (1, 1)],
            Some((2, 2)),
            presorted,
        );
    }
}

#[test]
fn one_huge_run_streams_in_bounded_batches() {
    let n = 300;
    let l = keys(&vec![Some(7); n]);
    let r = keys(&vec![Some(7); n]);
    for threads in [1, 4] {
        for via_stream in [false, true] {
            let join = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)])
                .batch_size(1000)
                .threads(threads);
            let out = run(&join, &chunked(&l, 64), &one(&r), via_stream).unwrap();
            assert!(out.iter().all(|b| b.num_rows() <= 1000));
            assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), n * n);
            // Semi and anti joins do not form the cross product.
            let semi = SortMergeJoin::new(JoinType::RightSemi, vec![(0, 0)]).threads(threads);
            let out = run(&semi, &one(&l), &one(&r), via_stream).unwrap();
            assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), n);
        }
    }
}

#[test]
fn huge_run_with_filter_and_outer_join() {
    let n = 120;
    let vals: Vec<Option<i64>> = (0..n as i64).map(Some).collect();
    let l = batch(vec![("k", i64s(&vec![Some(1); n])), ("p", i64s(&vals))]);
    let r = batch(vec![("k", i64s(&vec![Some(1); n])), ("p", i64s(&vals))]);
    all_types_match_oracle(
        &chunked(&l, 50),
        &one(&r),
        &[(0, 0)],
        Some((1, 1)),
        (true, true),
    );
}

fn not_in(left: &[Option<i64>], right: &[Option<i64>]) -> Vec<Row> {
    let (l, r) = (keys(left), keys(right));
    let oracle = RefJoin::new(JoinType::LeftAntiNullAware, &[(0, 0)]);
    let join = SortMergeJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]);
    assert_matches_oracle(&join, &oracle, &one(&l), &chunked(&r, 2))
}

#[test]
fn not_in_with_nulls_on_either_side() {
    let got = |l: &[Option<i64>], r: &[Option<i64>]| common::sorted(not_in(l, r));
    let rows = |v: &[Value]| v.iter().map(|x| vec![x.clone()]).collect::<Vec<Row>>();
    // No NULLs: plain anti join.
    assert_eq!(
        got(&[Some(1), Some(2), Some(3)], &[Some(2)]),
        rows(&[int(1), int(3)])
    );
    // A NULL on the left is unknown against any right row.
    assert_eq!(
        got(&[Some(1), None, Some(3)], &[Some(2)]),
        rows(&[int(1), int(3)])
    );
    // ...but kept when the right side is empty.
    assert_eq!(got(&[Some(1), None], &[]), rows(&[NULL, int(1)]));
    // A NULL on the right removes every left row.
    assert_eq!(got(&[Some(1), Some(3)], &[Some(2), None]), rows(&[]));
    assert_eq!(got(&[Some(1), None], &[None]), rows(&[]));
}

#[test]
fn not_in_with_nulls_and_a_filter() {
    let l = batch(vec![
        ("k", i64s(&[Some(1), None, Some(3), Some(4), None])),
        ("p", i64s(&[Some(0), Some(5), Some(9), Some(1), Some(0)])),
    ]);
    for right in [
        vec![Some(1), None, Some(4)],
        vec![None, None],
        vec![Some(3), Some(9)],
        vec![],
    ] {
        let n = right.len() as i64;
        let r = batch(vec![
            ("k", i64s(&right)),
            ("p", i64s(&(0..n).map(|i| Some(i * 3)).collect::<Vec<_>>())),
        ]);
        all_types_match_oracle(&one(&l), &one(&r), &[(0, 0)], Some((1, 1)), (false, false));
    }
}

#[test]
fn false_presorted_declaration_names_the_side_and_row() {
    let sorted = keys(&[Some(1), Some(2), Some(3)]);
    let unsorted = keys(&[Some(1), None, Some(3), Some(2), Some(5)]);
    for (pl, pr, side) in [(true, false, "left"), (false, true, "right")] {
        let (l, r) = if pl {
            (&unsorted, &sorted)
        } else {
            (&sorted, &unsorted)
        };
        let join = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).presorted(pl, pr);
        for v in variants(&join) {
            let err = run(&v.join, &chunked(l, 2), &one(r), v.via_stream).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, KernelError::InvalidOptions(_)), "{msg}");
            assert!(
                msg.contains(&format!("the {side} input was declared presorted"))
                    && msg.contains("row 3 ")
                    && msg.contains("row 2 "),
                "{msg}"
            );
        }
    }
}

#[test]
fn presorted_inputs_may_hold_null_keys_anywhere() {
    let l = batch(vec![
        (
            "k",
            i64s(&[None, Some(-4), None, Some(1), Some(1), None, Some(9)]),
        ),
        (
            "p",
            i64s(&[
                Some(1),
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6),
                Some(7),
            ]),
        ),
    ]);
    let r = batch(vec![
        ("k", i64s(&[Some(-4), Some(1), Some(2), Some(9), None])),
        ("p", i64s(&[Some(9), Some(9), Some(9), Some(0), Some(3)])),
    ]);
    all_types_match_oracle(
        &chunked(&l, 3),
        &one(&r),
        &[(0, 0)],
        Some((1, 1)),
        (true, true),
    );
}

/// One key column of each side as inputs with a payload `p`.
fn key_inputs(lk: ArrayRef, rk: ArrayRef) -> (JoinInput, JoinInput) {
    let p = |n: usize| i64s(&(0..n as i64).map(Some).collect::<Vec<_>>());
    let (nl, nr) = (lk.len(), rk.len());
    let l = batch(vec![("k", lk), ("p", p(nl))]);
    let r = batch(vec![("k", rk), ("p", p(nr))]);
    (chunked(&l, 3), one(&r))
}

use arrow_array::Array;

#[test]
fn other_key_types_match_the_oracle_sorted_or_not() {
    let f64s = |v: &[Option<f64>]| Arc::new(Float64Array::from(v.to_vec())) as ArrayRef;
    let nan = f64::NAN;
    let cases: Vec<(&str, ArrayRef, ArrayRef)> = vec![
        (
            "float64 with -0.0 and NaN",
            f64s(&[
                Some(f64::NEG_INFINITY),
                Some(-1.5),
                Some(-0.0),
                None,
                Some(0.0),
                Some(2.0),
                Some(nan),
            ]),
            f64s(&[
                Some(-1.5),
                Some(0.0),
                Some(-0.0),
                Some(3.0),
                Some(-nan),
                None,
            ]),
        ),
        (
            "float32",
            Arc::new(Float32Array::from(vec![
                Some(-2.0f32),
                Some(-0.0),
                Some(1.0),
                Some(f32::NAN),
            ])),
            Arc::new(Float32Array::from(vec![
                Some(-2.0f32),
                Some(0.0),
                Some(f32::NAN),
                None,
            ])),
        ),
        (
            "uint64 above i64::MAX",
            Arc::new(UInt64Array::from(vec![
                Some(1u64),
                Some(5),
                Some(1 << 63),
                None,
                Some(u64::MAX),
            ])),
            Arc::new(UInt64Array::from(vec![
                Some(5u64),
                Some(1 << 63),
                Some(1 << 63),
                Some(u64::MAX),
            ])),
        ),
        (
            "int8",
            Arc::new(Int8Array::from(vec![
                Some(-128i8),
                Some(-1),
                Some(0),
                Some(127),
            ])),
            Arc::new(Int8Array::from(vec![
                Some(-1i8),
                None,
                Some(127),
                Some(127),
            ])),
        ),
        (
            "boolean",
            Arc::new(BooleanArray::from(vec![
                Some(false),
                Some(false),
                None,
                Some(true),
            ])),
            Arc::new(BooleanArray::from(vec![
                Some(false),
                Some(true),
                Some(true),
            ])),
        ),
        (
            "decimal128",
            Arc::new(Decimal128Array::from(vec![
                Some(-(1i128 << 100)),
                Some(-3),
                Some(7),
                None,
                Some(1 << 90),
            ])),
            Arc::new(Decimal128Array::from(vec![
                Some(-(1i128 << 100)),
                Some(7),
                Some(8),
                Some(1 << 90),
            ])),
        ),
        (
            "large utf8",
            Arc::new(LargeStringArray::from(vec![
                Some(""),
                Some("a"),
                Some("a\u{0}"),
                Some("ab"),
                Some("abcdefghijk"),
                Some("é"),
            ])),
            Arc::new(LargeStringArray::from(vec![
                Some("a\u{0}"),
                Some("abcdefghij"),
                Some("abcdefghijk"),
                None,
                Some("é"),
            ])),
        ),
        (
            "utf8 view",
            Arc::new(StringViewArray::from(vec![
                Some("a"),
                Some("a long string over twelve"),
                Some("b"),
                None,
            ])),
            Arc::new(StringViewArray::from(vec![
                Some("a long string over twelve"),
                Some("b"),
                Some("b"),
            ])),
        ),
        (
            "binary",
            Arc::new(BinaryArray::from(vec![
                Some(&b""[..]),
                Some(&b"\x00"[..]),
                Some(&b"\x00\x01"[..]),
                Some(&b"\xff"[..]),
            ])),
            Arc::new(BinaryArray::from(vec![
                Some(&b"\x00"[..]),
                Some(&b"\xff"[..]),
                None,
            ])),
        ),
    ];
    for (what, lk, rk) in cases {
        eprintln!("key type: {what}");
        let (left, right) = key_inputs(lk.clone(), rk.clone());
        // Sorted as given (NULLs anywhere): declared presorted.
        all_types_match_oracle(&left, &right, &[(0, 0)], Some((1, 1)), (true, true));
        // Reversed: sorted by the kernel.
        let rev = |a: &ArrayRef| {
            let idx = arrow_array::UInt32Array::from_iter_values((0..a.len() as u32).rev());
            arrow_select::take::take(a.as_ref(), &idx, None).unwrap()
        };
        let (left, right) = key_inputs(rev(&lk), rev(&rk));
        all_types_match_oracle(&left, &right, &[(0, 0)], None, (false, false));
    }
}

#[test]
fn dictionary_keys_use_row_encoding() {
    let dict = |v: Vec<Option<&str>>| {
        Arc::new(v.into_iter().collect::<DictionaryArray<Int32Type>>()) as ArrayRef
    };
    let lk = dict(vec![Some("a"), Some("b"), None, Some("b")]);
    let rk = dict(vec![Some("b"), Some("c"), Some("a")]);
    let (l, r) = key_inputs(lk, rk);
    let join = SortMergeJoin::new(JoinType::Full, vec![(0, 0)]);
    let hash = HashJoin::new(JoinType::Full, vec![(0, 0)]);
    let a = join.collect(l.clone(), r.clone()).unwrap();
    let b = hash.collect(l, r).unwrap();
    let n = |v: &[RecordBatch]| v.iter().map(|b| b.num_rows()).sum::<usize>();
    assert_eq!(n(&a), n(&b));
}

/// A larger input with a hot key (parallel sort, cut merge and split runs,
/// in release sizes too) against the indexed oracle.
#[test]
fn larger_inputs_with_a_hot_key_match_the_oracle() {
    let n = 20_000i64;
    let key = |i: i64| {
        if i % 3 == 0 {
            Some(5)
        } else if i % 11 == 0 {
            None
        } else {
            Some(i * 7919 % 4001)
        }
    };
    let lv: Vec<Option<i64>> = (0..n).map(key).collect();
    let rv: Vec<Option<i64>> = (0..n / 40).map(|i| key(i * 37)).collect();
    let (l, r) = key_inputs(i64s(&lv), i64s(&rv));
    let l = chunked(&all_in_one(&l), 4096);
    for jt in [
        JoinType::Inner,
        JoinType::Full,
        JoinType::LeftSemi,
        JoinType::RightAnti,
    ] {
        let oracle = RefJoin::new(jt, &[(0, 0)]);
        let join = SortMergeJoin::new(jt, vec![(0, 0)])
            .threads(4)
            .batch_size(4096);
        let (lrows, rrows) = (all_rows(l.batches()), all_rows(r.batches()));
        let expected = oracle.run_indexed(&lrows, &rrows, (2, 2));
        for p in [None, Some(1)] {
            let j = match p {
                Some(p) => join.clone().partitions(p),
                None => join.clone(),
            };
            let out = run(&j, &l, &r, false).unwrap();
            let schema = oracle.schema(l.schema(), r.schema());
            let rows = check_batches(&out, &schema, 4096).unwrap();
            let diff = multiset_diff(&rows, &expected);
            assert!(diff.is_empty(), "{jt} partitions={p:?}: {diff}");
        }
    }
}

fn all_in_one(input: &JoinInput) -> RecordBatch {
    arrow_select::concat::concat_batches(input.schema(), input.batches()).unwrap()
}

#[test]
fn option_errors_read_as_the_hash_joins() {
    let l = batch(vec![("k", i64s(&[Some(1)])), ("s", strs(&[Some("x")]))]);
    let r = batch(vec![("k", i64s(&[Some(1)])), ("s", strs(&[Some("x")]))]);
    let cases: Vec<(SortMergeJoin, HashJoin)> = vec![
        (
            SortMergeJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0), (1, 1)]),
            HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0), (1, 1)]),
        ),
        (
            SortMergeJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]).null_equal(true),
            HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]).null_equal(true),
        ),
        (
            SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).batch_size(0),
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).batch_size(0),
        ),
        (
            SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).partitions(3),
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).partitions(3),
        ),
        (
            SortMergeJoin::new(JoinType::Inner, vec![(0, 1)]),
            HashJoin::new(JoinType::Inner, vec![(0, 1)]),
        ),
        (
            SortMergeJoin::new(JoinType::Inner, vec![(0, 5)]),
            HashJoin::new(JoinType::Inner, vec![(0, 5)]),
        ),
        (
            SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).projection(Some(vec![4]), None),
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).projection(Some(vec![4]), None),
        ),
    ];
    for (smj, hj) in cases {
        let a = smj.collect(one(&l), one(&r)).unwrap_err().to_string();
        let b = hj.collect(one(&l), one(&r)).unwrap_err().to_string();
        assert_eq!(a, b);
        let c = smj.execute(one(&l), one(&r)).unwrap_err().to_string();
        assert_eq!(a, c);
    }
    let err = SortMergeJoin::new(JoinType::Inner, vec![])
        .collect(one(&l), one(&r))
        .unwrap_err();
    assert!(matches!(err, KernelError::InvalidKeys(_)), "{err}");
    assert!(
        err.to_string()
            .contains("sort-merge join needs at least one key pair")
    );
}

#[test]
fn memory_limit_is_an_error() {
    let l = keys(&(0..5000).map(Some).collect::<Vec<_>>());
    let join = SortMergeJoin::new(JoinType::Full, vec![(0, 0)]).memory(MemoryBudget::new(1000));
    let err = join.collect(one(&l), one(&l)).unwrap_err();
    assert!(
        matches!(err, KernelError::MemoryLimitExceeded { .. }),
        "{err}"
    );
}

#[test]
fn dropping_the_stream_early_stops_the_join() {
    let l = keys(&vec![Some(1); 500]);
    let join = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)])
        .batch_size(10)
        .threads(2);
    let mut stream = join.execute(one(&l), one(&l)).unwrap();
    assert!(stream.next().is_some());
    drop(stream);
}

#[test]
fn empty_inputs() {
    let e = keys(&[]);
    let k = keys(&[Some(1), None]);
    for (l, r) in [(&e, &k), (&k, &e), (&e, &e)] {
        all_types_match_oracle(&one(l), &one(r), &[(0, 0)], None, (true, false));
        let none = JoinInput::new(l.schema(), vec![]);
        all_types_match_oracle(&none, &chunked(r, 1), &[(0, 0)], None, (false, false));
    }
}

#[test]
fn int64_key_extremes() {
    let v = [Some(i64::MIN), Some(-1), Some(0), Some(1), Some(i64::MAX)];
    let l = batch(vec![(
        "k",
        Arc::new(Int64Array::from(v.to_vec())) as ArrayRef,
    )]);
    let r = batch(vec![(
        "k",
        Arc::new(Int64Array::from(vec![
            Some(i64::MAX),
            Some(i64::MIN),
            Some(0),
        ])) as ArrayRef,
    )]);
    all_types_match_oracle(&one(&l), &one(&r), &[(0, 0)], None, (true, false));
}

#[test]
fn bad_range_conditions_are_option_errors() {
    use tenon_kernels::{CmpOp, RangeCondition};
    let l = batch(vec![("k", i64s(&[Some(1)])), ("s", strs(&[Some("x")]))]);
    let r = batch(vec![("k", i64s(&[Some(1)])), ("s", strs(&[Some("x")]))]);
    for (cond, want) in [
        (RangeCondition::new(0, CmpOp::Lt, 7), "right column 7"),
        (
            RangeCondition::new(0, CmpOp::Lt, 1),
            "compares Int64 with Utf8",
        ),
        (RangeCondition::new(1, CmpOp::Lt, 1), "do not support"),
    ] {
        let join = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).ranges(vec![cond]);
        let err = join.collect(one(&l), one(&r)).unwrap_err();
        assert!(matches!(err, KernelError::InvalidOptions(_)), "{err}");
        assert!(err.to_string().contains(want), "{err}");
    }
}

#[test]
fn band_condition_inside_runs_matches_the_oracle() {
    use tenon_kernels::{CmpOp, RangeCondition};
    // a.k = b.k AND a.t BETWEEN b.lo AND b.hi, with NULL times on both sides.
    let n = 60i64;
    let t = |i: i64| if i % 9 == 4 { None } else { Some(i * 37 % 50) };
    let l = batch(vec![
        ("k", i64s(&(0..n).map(|i| Some(i % 3)).collect::<Vec<_>>())),
        ("t", i64s(&(0..n).map(t).collect::<Vec<_>>())),
    ]);
    let r = batch(vec![
        ("k", i64s(&(0..n).map(|i| Some(i % 4)).collect::<Vec<_>>())),
        (
            "lo",
            i64s(&(0..n).map(|i| t(i + 1).map(|v| v - 3)).collect::<Vec<_>>()),
        ),
        (
            "hi",
            i64s(&(0..n).map(|i| t(i + 2).map(|v| v + 3)).collect::<Vec<_>>()),
        ),
    ]);
    let conds = vec![
        RangeCondition::new(1, CmpOp::Ge, 1),
        RangeCondition::new(1, CmpOp::Le, 2),
    ];
    let f = |a: &[Value], b: &[Value]| match (&a[1], &b[1], &b[2]) {
        (Value::Int(t), Value::Int(lo), Value::Int(hi)) => Some(lo <= t && t <= hi),
        _ => None,
    };
    for jt in JoinType::ALL {
        let oracle = RefJoin {
            filter: Some(&f),
            ..RefJoin::new(jt, &[(0, 0)])
        };
        let join = SortMergeJoin::new(jt, vec![(0, 0)]).ranges(conds.clone());
        assert_matches_oracle(&join, &oracle, &chunked(&l, 7), &one(&r));
    }
}

/// A low-match join (a tenth of the larger side's keys exist on the other
/// side, NULLs on both): the key filter of the smaller side's keys leaves
/// the larger side's unmatched rows out where that is correct (inner,
/// semi joins) and must not where they are output (outer, anti, NOT IN);
/// every join type matches the oracle, larger side on either side.
#[test]
fn low_match_inputs_with_the_key_filter_match_the_oracle() {
    let big: Vec<Option<i64>> = (0..600)
        .map(|i| match i % 17 {
            0 => None,
            _ if i % 10 == 0 => Some(i / 10),
            _ => Some(1_000 + i),
        })
        .collect();
    let small: Vec<Option<i64>> = (0..60)
        .map(|i| if i % 13 == 0 { None } else { Some(i) })
        .collect();
    let payload = |n: usize| i64s(&(0..n as i64).map(Some).collect::<Vec<_>>());
    let b = batch(vec![("k", i64s(&big)), ("p", payload(big.len()))]);
    let s = batch(vec![("k", i64s(&small)), ("p", payload(small.len()))]);
    all_types_match_oracle(&one(&b), &one(&s), &[(0, 0)], Some((1, 1)), (false, false));
    all_types_match_oracle(
        &chunked(&s, 7),
        &one(&b),
        &[(0, 0)],
        Some((1, 1)),
        (false, false),
    );
}

/// A small side against one many times larger takes the chunked merge (the
/// larger side sorted and merged chunk by chunk): duplicates on both sides,
/// NULL keys, the larger side in uneven batches, on either side of the
/// join; every join type matches the oracle.
#[test]
fn a_small_side_against_a_much_larger_one_matches_the_oracle() {
    let big: Vec<Option<i64>> = (0..700)
        .map(|i| {
            if i % 23 == 0 {
                None
            } else {
                Some((i * 7) % 19)
            }
        })
        .collect();
    let small: Vec<Option<i64>> = (0..12)
        .map(|i| if i == 5 { None } else { Some(i % 9) })
        .collect();
    let payload = |n: usize| i64s(&(0..n as i64).map(Some).collect::<Vec<_>>());
    let b = batch(vec![("k", i64s(&big)), ("p", payload(big.len()))]);
    let s = batch(vec![("k", i64s(&small)), ("p", payload(small.len()))]);
    all_types_match_oracle(
        &chunked(&b, 33),
        &one(&s),
        &[(0, 0)],
        Some((1, 1)),
        (false, false),
    );
    all_types_match_oracle(
        &one(&s),
        &chunked(&b, 64),
        &[(0, 0)],
        Some((1, 1)),
        (false, false),
    );
}

//! Hash join cases on join keys, each named after the case it pins: NULL
//! keys never matching (single and composite keys), null-equal keys matching
//! NULL to NULL per column, key types (Utf8View, LargeUtf8 and Binary;
//! Decimal128 values differing only in their high 64 bits; Date32; Float32
//! and Float64 with `-0.0 = 0.0` and NaN = NaN), and key type mismatches
//! being errors rather than panics. Each runs every way of
//! `common::cases::variants` and compares with rows written out by hand or
//! with the oracle (`common::reference`).

mod common;

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, Date32Array, Decimal128Array, Float32Array, Float64Array, Int32Array,
    LargeStringArray, RecordBatch, StringViewArray,
};
use arrow_schema::DataType;
use tenon_kernels::{HashJoin, JoinType, KernelError};

use common::cases::{
    assert_matches_oracle, assert_rows_all_ways, batch, chunked, errors_all_ways, i64s, one, row,
    strs,
};
use common::reference::RefJoin;
use common::{NULL, Value, int, s};

// ---------------------------------------------------------------------------
// NULL keys
// ---------------------------------------------------------------------------

#[test]
fn null_keys_never_match() {
    let l = batch(vec![("k", i64s(&[None, Some(1), None]))]);
    let r = batch(vec![("k", i64s(&[None, Some(1), None]))]);
    let (l, r) = (one(&l), one(&r));
    let inner = HashJoin::new(JoinType::Inner, vec![(0, 0)]);
    assert_rows_all_ways(&inner, JoinType::Inner, &l, &r, &[row(&[int(1), int(1)])]);
    let anti = HashJoin::new(JoinType::LeftAnti, vec![(0, 0)]);
    assert_rows_all_ways(
        &anti,
        JoinType::LeftAnti,
        &l,
        &r,
        &[row(&[NULL]), row(&[NULL])],
    );
    let semi = HashJoin::new(JoinType::RightSemi, vec![(0, 0)]);
    assert_rows_all_ways(&semi, JoinType::RightSemi, &l, &r, &[row(&[int(1)])]);

    // Composite keys: NULL in any column makes the key NULL.
    let l = batch(vec![
        ("a", i64s(&[Some(1), None, Some(2)])),
        ("b", strs(&[None, Some("x"), Some("y")])),
    ]);
    let r = batch(vec![
        ("a", i64s(&[Some(1), None, Some(2)])),
        ("b", strs(&[None, Some("x"), Some("y")])),
    ]);
    let inner = HashJoin::new(JoinType::Inner, vec![(0, 0), (1, 1)]);
    assert_rows_all_ways(
        &inner,
        JoinType::Inner,
        &one(&l),
        &one(&r),
        &[row(&[int(2), s("y"), int(2), s("y")])],
    );
}

#[test]
fn null_equal_matches_null_to_null() {
    let l = batch(vec![("k", i64s(&[None, Some(1), None]))]);
    let r = batch(vec![("k", i64s(&[None, Some(1), Some(2)]))]);
    let inner = HashJoin::new(JoinType::Inner, vec![(0, 0)]).null_equal(true);
    assert_rows_all_ways(
        &inner,
        JoinType::Inner,
        &one(&l),
        &one(&r),
        &[
            row(&[int(1), int(1)]),
            row(&[NULL, NULL]),
            row(&[NULL, NULL]),
        ],
    );
    let anti = HashJoin::new(JoinType::RightAnti, vec![(0, 0)]).null_equal(true);
    assert_rows_all_ways(
        &anti,
        JoinType::RightAnti,
        &one(&l),
        &one(&r),
        &[row(&[int(2)])],
    );

    // Composite keys compare NULL per column: (1, NULL) = (1, NULL), but
    // (NULL, "x") <> (NULL, "y").
    let l = batch(vec![
        ("a", i64s(&[Some(1), None, None])),
        ("b", strs(&[None, Some("x"), None])),
    ]);
    let r = batch(vec![
        ("a", i64s(&[Some(1), None, Some(1)])),
        ("b", strs(&[None, Some("y"), Some("x")])),
    ]);
    let inner = HashJoin::new(JoinType::Inner, vec![(0, 0), (1, 1)]).null_equal(true);
    assert_rows_all_ways(
        &inner,
        JoinType::Inner,
        &one(&l),
        &one(&r),
        &[row(&[int(1), NULL, int(1), NULL])],
    );
}

// ---------------------------------------------------------------------------
// Key types
// ---------------------------------------------------------------------------

#[test]
fn key_type_mismatch_is_an_error_not_a_panic() {
    let l = batch(vec![(
        "k",
        Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef,
    )]);
    let r = batch(vec![("k", i64s(&[Some(1), Some(2)]))]);
    for jt in JoinType::ALL {
        let join = HashJoin::new(jt, vec![(0, 0)]);
        for e in errors_all_ways(&join, &one(&l), &one(&r)) {
            match &e {
                KernelError::KeyTypeMismatch { index, left, right } => {
                    assert_eq!(*index, 0);
                    assert_eq!(left, &DataType::Int32);
                    assert_eq!(right, &DataType::Int64);
                    assert!(e.to_string().contains("cast"), "{e}");
                }
                e => panic!("{jt}: expected KeyTypeMismatch, got {e}"),
            }
        }
    }
    // Utf8 against LargeUtf8, in the second key pair.
    let l = batch(vec![("a", i64s(&[Some(1)])), ("b", strs(&[Some("x")]))]);
    let r = batch(vec![
        ("a", i64s(&[Some(1)])),
        ("b", Arc::new(LargeStringArray::from(vec!["x"])) as ArrayRef),
    ]);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0), (1, 1)]);
    for e in errors_all_ways(&join, &one(&l), &one(&r)) {
        assert!(
            matches!(e, KernelError::KeyTypeMismatch { index: 1, .. }),
            "{e}"
        );
    }
}

/// Every join type (and null-equal where allowed) of a one-key join
/// against the oracle; returns the Inner join's expected row count.
fn all_types_match_oracle(l: &RecordBatch, r: &RecordBatch) -> usize {
    let on = [(0, 0)];
    let mut inner_rows = 0;
    for jt in JoinType::ALL {
        for null_equal in [false, true] {
            if jt == JoinType::LeftAntiNullAware && null_equal {
                continue;
            }
            let oracle = RefJoin {
                null_equal,
                ..RefJoin::new(jt, &on)
            };
            let join = HashJoin::new(jt, on.to_vec()).null_equal(null_equal);
            let exp = assert_matches_oracle(&join, oracle, &chunked(l, 4), &chunked(r, 3));
            if jt == JoinType::Inner && !null_equal {
                inner_rows = exp.len();
            }
        }
    }
    inner_rows
}

#[test]
fn string_view_and_large_utf8_keys_join() {
    let long = "a string well over twelve bytes, stored out of line";
    let other = "a string well over twelve bytes, but another one";
    let lv = vec![
        Some("a"),
        Some(long),
        None,
        Some(""),
        Some(other),
        Some(long),
    ];
    let rv = vec![Some(long), Some("a"), Some(""), None, Some("b"), Some(long)];
    let view = |v: &[Option<&str>]| Arc::new(StringViewArray::from(v.to_vec())) as ArrayRef;
    let large = |v: &[Option<&str>]| Arc::new(LargeStringArray::from(v.to_vec())) as ArrayRef;
    let bin = |v: &[Option<&str>]| {
        Arc::new(BinaryArray::from(
            v.iter().map(|s| s.map(str::as_bytes)).collect::<Vec<_>>(),
        )) as ArrayRef
    };
    // Inner: "a" 1x1, long 2x2, "" 1x1.
    for make in [view, large, bin] {
        let l = batch(vec![("k", make(&lv)), ("i", i64s(&[Some(0); 6]))]);
        let r = batch(vec![("k", make(&rv))]);
        assert_eq!(all_types_match_oracle(&l, &r), 6);
    }
    // Views as the second key of a composite key.
    let l = batch(vec![("a", i64s(&[Some(1); 6])), ("k", view(&lv))]);
    let r = batch(vec![("a", i64s(&[Some(1); 6])), ("k", view(&rv))]);
    let on = [(0, 0), (1, 1)];
    let join = HashJoin::new(JoinType::Inner, on.to_vec());
    let exp = assert_matches_oracle(
        &join,
        RefJoin::new(JoinType::Inner, &on),
        &one(&l),
        &one(&r),
    );
    assert_eq!(exp.len(), 6);
}

#[test]
fn decimal128_and_date32_keys_join() {
    let big = 170_141_183_460_469_231_731_687_303_715_884_105_727i128; // i128::MAX
    let dec = |v: &[Option<i128>]| {
        Arc::new(
            Decimal128Array::from(v.to_vec())
                .with_precision_and_scale(38, 2)
                .unwrap(),
        ) as ArrayRef
    };
    // Values that differ only in the high 64 bits must not match.
    let hi = 1i128 << 64;
    let l = batch(vec![(
        "k",
        dec(&[Some(1), Some(hi + 1), Some(-5), None, Some(big), Some(1)]),
    )]);
    let r = batch(vec![(
        "k",
        dec(&[Some(1), Some(-5), Some(-big), None, Some(big), Some(hi)]),
    )]);
    // 1 (x2 left) + -5 + big.
    assert_eq!(all_types_match_oracle(&l, &r), 4);

    let date = |v: &[Option<i32>]| Arc::new(Date32Array::from(v.to_vec())) as ArrayRef;
    let l = batch(vec![(
        "k",
        date(&[Some(19_000), Some(-1), None, Some(0), Some(19_000)]),
    )]);
    let r = batch(vec![(
        "k",
        date(&[Some(-1), Some(19_000), Some(5), None, Some(0)]),
    )]);
    assert_eq!(all_types_match_oracle(&l, &r), 4);
}

#[test]
fn float_keys_treat_negative_zero_as_zero() {
    let l64 = batch(vec![(
        "k",
        Arc::new(Float64Array::from(vec![
            Some(0.0),
            Some(-0.0),
            Some(1.5),
            Some(f64::NAN),
            None,
        ])) as ArrayRef,
    )]);
    let r64 = batch(vec![(
        "k",
        Arc::new(Float64Array::from(vec![
            Some(-0.0),
            Some(0.0),
            Some(-1.5),
            Some(-f64::NAN),
        ])) as ArrayRef,
    )]);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]);
    let z = |neg: bool| Value::F64(if neg { (-0.0f64).to_bits() } else { 0 });
    let nan_l = Value::F64(f64::NAN.to_bits());
    let nan_r = Value::F64((-f64::NAN).to_bits());
    // Both zeros match both zeros; NaN matches NaN (as documented).
    assert_rows_all_ways(
        &join,
        JoinType::Inner,
        &one(&l64),
        &one(&r64),
        &[
            row(&[z(false), z(true)]),
            row(&[z(false), z(false)]),
            row(&[z(true), z(true)]),
            row(&[z(true), z(false)]),
            row(&[nan_l, nan_r]),
        ],
    );
    assert_eq!(all_types_match_oracle(&l64, &r64), 5);

    let l32 = batch(vec![(
        "k",
        Arc::new(Float32Array::from(vec![Some(-0.0f32), Some(2.0), None])) as ArrayRef,
    )]);
    let r32 = batch(vec![(
        "k",
        Arc::new(Float32Array::from(vec![Some(0.0f32), Some(2.0)])) as ArrayRef,
    )]);
    assert_eq!(all_types_match_oracle(&l32, &r32), 2);

    // In a composite key too.
    let l = batch(vec![
        (
            "f",
            Arc::new(Float64Array::from(vec![-0.0, 0.0, 1.0])) as ArrayRef,
        ),
        ("s", strs(&[Some("x"), Some("x"), Some("x")])),
    ]);
    let r = batch(vec![
        (
            "f",
            Arc::new(Float64Array::from(vec![0.0, 1.0])) as ArrayRef,
        ),
        ("s", strs(&[Some("x"), Some("x")])),
    ]);
    let on = [(0, 0), (1, 1)];
    let join = HashJoin::new(JoinType::Inner, on.to_vec());
    let exp = assert_matches_oracle(
        &join,
        RefJoin::new(JoinType::Inner, &on),
        &one(&l),
        &one(&r),
    );
    assert_eq!(exp.len(), 3);
}

//! Hand-written as-of join cases: one per rule, the expected rows worked
//! out by hand from the rules (see the comments), each run in both modes,
//! with 1 and 4 threads and the right side whole or in batches of one row;
//! and the errors (join types, time types, tombstone column).

mod common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int32Array, RecordBatch,
    UInt32Array,
};
use tenon_kernels::{
    AsofJoin, AsofMode, CmpOp, FilterTiming, Join, JoinKernel, JoinType, KernelError, MemoryBudget,
    RangeCondition, Strategy,
};

use common::cases::{batch, chunked, i64s, one, strs};

/// Left rows `(id, key, time, payload)`.
fn left(rows: &[(i64, Option<i64>, Option<i64>, i64)]) -> RecordBatch {
    batch(vec![
        (
            "lid",
            i64s(&rows.iter().map(|r| Some(r.0)).collect::<Vec<_>>()),
        ),
        ("lk", i64s(&rows.iter().map(|r| r.1).collect::<Vec<_>>())),
        ("lt", i64s(&rows.iter().map(|r| r.2).collect::<Vec<_>>())),
        (
            "a",
            i64s(&rows.iter().map(|r| Some(r.3)).collect::<Vec<_>>()),
        ),
    ])
}

/// A right row: `(id, key, time, payload, tombstone)`.
type RightRow = (i64, Option<i64>, Option<i64>, i64, bool);

/// Right rows.
fn right(rows: &[RightRow]) -> RecordBatch {
    batch(vec![
        (
            "rid",
            i64s(&rows.iter().map(|r| Some(r.0)).collect::<Vec<_>>()),
        ),
        ("rk", i64s(&rows.iter().map(|r| r.1).collect::<Vec<_>>())),
        ("rt", i64s(&rows.iter().map(|r| r.2).collect::<Vec<_>>())),
        (
            "b",
            i64s(&rows.iter().map(|r| Some(r.3)).collect::<Vec<_>>()),
        ),
        (
            "del",
            Arc::new(rows.iter().map(|r| Some(r.4)).collect::<BooleanArray>()) as ArrayRef,
        ),
    ])
}

/// `left.time <op> right.time` on key column 1 of both sides.
fn asof(join_type: JoinType, op: CmpOp) -> AsofJoin {
    AsofJoin::new(join_type, vec![(1, 1)], RangeCondition::new(2, op, 2))
}

/// The (left id, right id) rows of `join` (ids in column 0 of each side),
/// the same in every way of running it; sorted.
fn pairs(join: &AsofJoin, l: &RecordBatch, r: &RecordBatch) -> Vec<(i64, Option<i64>)> {
    let mut seen: Option<Vec<(i64, Option<i64>)>> = None;
    for (mode, small_left) in [
        (AsofMode::Broadcast, Some(false)),
        (AsofMode::Partitioned, Some(false)),
        (AsofMode::Broadcast, Some(true)),
    ] {
        for threads in [1, 4] {
            for right_chunk in [1, 8192] {
                let j = join
                    .clone()
                    .mode(mode)
                    .small_left(small_left)
                    .partitions(4)
                    .threads(threads)
                    .batch_size(3)
                    .projection(Some(vec![0]), Some(vec![0]));
                let out = j.collect(one(l), chunked(r, right_chunk)).unwrap();
                let mut rows = Vec::new();
                for b in &out {
                    assert!(b.num_rows() <= 3);
                    let (li, ri) = (
                        b.column(0).as_primitive::<Int64Type>(),
                        b.column(1).as_primitive::<Int64Type>(),
                    );
                    for i in 0..b.num_rows() {
                        rows.push((li.value(i), ri.is_valid(i).then(|| ri.value(i))));
                    }
                }
                rows.sort();
                match &seen {
                    None => seen = Some(rows),
                    Some(s) => assert_eq!(&rows, s, "{mode:?} {small_left:?} threads {threads}"),
                }
            }
        }
    }
    seen.unwrap_or_default()
}

/// Quotes of key 1 at times 10, 20, 30 (ids 0, 1, 2) and of key 2 at 15
/// (id 3); trades of key 1 at 5, 10, 25, 30, 35 (ids 0..5).
fn trades_and_quotes() -> (RecordBatch, RecordBatch) {
    let l = left(&[
        (0, Some(1), Some(5), 0),
        (1, Some(1), Some(10), 0),
        (2, Some(1), Some(25), 0),
        (3, Some(1), Some(30), 0),
        (4, Some(1), Some(35), 0),
    ]);
    let r = right(&[
        (0, Some(1), Some(10), 0, false),
        (1, Some(1), Some(20), 0, false),
        (2, Some(1), Some(30), 0, false),
        (3, Some(2), Some(15), 0, false),
    ]);
    (l, r)
}

#[test]
fn ge_takes_the_largest_time_at_or_before() {
    let (l, r) = trades_and_quotes();
    // 5: none; 10: 10 (id 0); 25: 20 (id 1); 30: 30 (id 2); 35: 30 (id 2).
    let got = pairs(&asof(JoinType::Inner, CmpOp::Ge), &l, &r);
    assert_eq!(
        got,
        vec![(1, Some(0)), (2, Some(1)), (3, Some(2)), (4, Some(2))]
    );
}

#[test]
fn gt_takes_the_largest_time_strictly_before() {
    let (l, r) = trades_and_quotes();
    // 5: none; 10: none; 25: 20; 30: 20; 35: 30.
    let got = pairs(&asof(JoinType::Inner, CmpOp::Gt), &l, &r);
    assert_eq!(got, vec![(2, Some(1)), (3, Some(1)), (4, Some(2))]);
}

#[test]
fn le_takes_the_smallest_time_at_or_after() {
    let (l, r) = trades_and_quotes();
    // 5: 10; 10: 10; 25: 30; 30: 30; 35: none.
    let got = pairs(&asof(JoinType::Inner, CmpOp::Le), &l, &r);
    assert_eq!(
        got,
        vec![(0, Some(0)), (1, Some(0)), (2, Some(2)), (3, Some(2))]
    );
}

#[test]
fn lt_takes_the_smallest_time_strictly_after() {
    let (l, r) = trades_and_quotes();
    // 5: 10; 10: 20; 25: 30; 30: none; 35: none.
    let got = pairs(&asof(JoinType::Inner, CmpOp::Lt), &l, &r);
    assert_eq!(got, vec![(0, Some(0)), (1, Some(1)), (2, Some(2))]);
}

#[test]
fn left_join_keeps_rows_without_a_version() {
    let (l, r) = trades_and_quotes();
    let got = pairs(&asof(JoinType::Left, CmpOp::Ge), &l, &r);
    assert_eq!(
        got,
        vec![
            (0, None),
            (1, Some(0)),
            (2, Some(1)),
            (3, Some(2)),
            (4, Some(2))
        ]
    );
}

#[test]
fn ties_go_to_the_last_row_for_ge_and_gt_and_the_first_for_le_and_lt() {
    // Three versions of key 1 at time 10 (ids 0, 1, 2), split into
    // batches of one row by `pairs`: input order across batches.
    let l = left(&[
        (0, Some(1), Some(10), 0),
        (1, Some(1), Some(11), 0),
        (2, Some(1), Some(9), 0),
    ]);
    let r = right(&[
        (0, Some(1), Some(10), 0, false),
        (1, Some(1), Some(10), 0, false),
        (2, Some(1), Some(10), 0, false),
    ]);
    // >=: 10 and 11 take the last tie (2); 9 none.
    let ge = pairs(&asof(JoinType::Inner, CmpOp::Ge), &l, &r);
    assert_eq!(ge, vec![(0, Some(2)), (1, Some(2))]);
    // >: only 11 (last tie).
    let gt = pairs(&asof(JoinType::Inner, CmpOp::Gt), &l, &r);
    assert_eq!(gt, vec![(1, Some(2))]);
    // <=: 10 and 9 take the first tie (0).
    let le = pairs(&asof(JoinType::Inner, CmpOp::Le), &l, &r);
    assert_eq!(le, vec![(0, Some(0)), (2, Some(0))]);
    // <: only 9 (first tie).
    let lt = pairs(&asof(JoinType::Inner, CmpOp::Lt), &l, &r);
    assert_eq!(lt, vec![(2, Some(0))]);
}

#[test]
fn nulls_in_keys_or_times_never_match() {
    // Left: NULL key (0), NULL time (1), fine (2). Right: NULL key at 5
    // (id 0), NULL time (id 1), key 1 at 1 (id 2).
    let l = left(&[
        (0, None, Some(9), 0),
        (1, Some(1), None, 0),
        (2, Some(1), Some(9), 0),
    ]);
    let r = right(&[
        (0, None, Some(5), 0, false),
        (1, Some(1), None, 0, false),
        (2, Some(1), Some(1), 0, false),
    ]);
    let got = pairs(&asof(JoinType::Left, CmpOp::Ge), &l, &r);
    assert_eq!(got, vec![(0, None), (1, None), (2, Some(2))]);
    // Null-equal keys: the NULL key of left row 0 finds right row 0.
    let got = pairs(&asof(JoinType::Left, CmpOp::Ge).null_equal(true), &l, &r);
    assert_eq!(got, vec![(0, Some(0)), (1, None), (2, Some(2))]);
}

/// The filter `left.a + right.b` is even.
fn even_sum(join: AsofJoin) -> AsofJoin {
    join.filter(Arc::new(
        |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
            let a = l.column(3).as_primitive::<Int64Type>();
            let b = r.column(3).as_primitive::<Int64Type>();
            Ok(li
                .values()
                .iter()
                .zip(ri.values())
                .map(|(&i, &j)| Some((a.value(i as usize) + b.value(j as usize)) % 2 == 0))
                .collect::<BooleanArray>())
        },
    ))
}

#[test]
fn the_filter_before_the_choice_takes_the_closest_passing_version() {
    // Left a = 0 at time 30. Right of key 1: t 10 b 0 (id 0), t 20 b 0
    // (id 1), t 30 b 1 (id 2). Passing: ids 0 and 1 (even sums).
    let l = left(&[(0, Some(1), Some(30), 0)]);
    let r = right(&[
        (0, Some(1), Some(10), 0, false),
        (1, Some(1), Some(20), 0, false),
        (2, Some(1), Some(30), 1, false),
    ]);
    let before = even_sum(asof(JoinType::Left, CmpOp::Ge));
    assert_eq!(pairs(&before, &l, &r), vec![(0, Some(1))]);
    // After the choice: id 2 is chosen, fails, and nothing older is tried.
    let after = before.filter_timing(FilterTiming::AfterChoice);
    assert_eq!(pairs(&after, &l, &r), vec![(0, None)]);
    // `<=` walks the other way: from time 5, id 0 passes first.
    let l5 = left(&[(0, Some(1), Some(5), 1)]);
    let le = even_sum(asof(JoinType::Inner, CmpOp::Le));
    // a = 1: only id 2 (b 1) passes.
    assert_eq!(pairs(&le, &l5, &r), vec![(0, Some(2))]);
}

#[test]
fn a_chosen_tombstone_means_no_match_and_is_never_skipped() {
    // Key 1: t 10 (id 0), t 20 deleted (id 1), t 30 (id 2).
    let l = left(&[
        (0, Some(1), Some(15), 0),
        (1, Some(1), Some(25), 0),
        (2, Some(1), Some(35), 0),
    ]);
    let r = right(&[
        (0, Some(1), Some(10), 0, false),
        (1, Some(1), Some(20), 0, true),
        (2, Some(1), Some(30), 0, false),
    ]);
    let join = asof(JoinType::Left, CmpOp::Ge).tombstone(Some(4));
    // 15: id 0; 25: the tombstone (no match, id 0 not tried); 35: id 2.
    assert_eq!(
        pairs(&join, &l, &r),
        vec![(0, Some(0)), (1, None), (2, Some(2))]
    );
    // Without the tombstone column the delete is an ordinary version.
    let plain = asof(JoinType::Left, CmpOp::Ge);
    assert_eq!(
        pairs(&plain, &l, &r),
        vec![(0, Some(0)), (1, Some(1)), (2, Some(2))]
    );
}

#[test]
fn with_the_filter_before_the_choice_a_tombstone_is_a_candidate_whatever_the_filter() {
    // Left a = 0 at 35. Key 1: t 10 b 0 (id 0), t 20 b 1 deleted (id 1),
    // t 30 b 1 (id 2). Walking down: id 2 fails the filter, id 1 is a
    // tombstone (its odd sum does not matter): no match; id 0 not tried.
    let l = left(&[(0, Some(1), Some(35), 0)]);
    let r = right(&[
        (0, Some(1), Some(10), 0, false),
        (1, Some(1), Some(20), 1, true),
        (2, Some(1), Some(30), 1, false),
    ]);
    let join = even_sum(asof(JoinType::Left, CmpOp::Ge)).tombstone(Some(4));
    assert_eq!(pairs(&join, &l, &r), vec![(0, None)]);
}

#[test]
fn latest_takes_the_largest_time_or_the_last_row() {
    // Key 1: t 30 (id 0), t 10 (id 1), t 30 (id 2), NULL time (id 3).
    let l = left(&[(0, Some(1), None, 0), (1, Some(2), Some(0), 0)]);
    let r = right(&[
        (0, Some(1), Some(30), 0, false),
        (1, Some(1), Some(10), 0, false),
        (2, Some(1), Some(30), 0, false),
        (3, Some(1), None, 0, false),
    ]);
    // By time: the largest is 30, last tie id 2 (the NULL time never).
    let by_time = AsofJoin::latest(JoinType::Left, vec![(1, 1)], Some(2));
    assert_eq!(pairs(&by_time, &l, &r), vec![(0, Some(2)), (1, None)]);
    // By input order: the last row of key 1, id 3.
    let by_order = AsofJoin::latest(JoinType::Left, vec![(1, 1)], None);
    assert_eq!(pairs(&by_order, &l, &r), vec![(0, Some(3)), (1, None)]);
}

#[test]
fn without_keys_every_right_row_is_one_group() {
    let (l, r) = trades_and_quotes();
    // Key 2's quote at 15 (id 3) now counts too, but is never the closest
    // at or before: 5 -> none, 10 -> id 0, 25 -> id 1, 30 and 35 -> id 2.
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(2, CmpOp::Ge, 2),
    );
    assert_eq!(
        pairs(&join, &l, &r),
        vec![(1, Some(0)), (2, Some(1)), (3, Some(2)), (4, Some(2))]
    );
    // With `<`: 5 -> id 0 (10), 10 -> id 3 (15, key 2's), 25 -> id 2 (30).
    let lt = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(2, CmpOp::Lt, 2),
    );
    assert_eq!(
        pairs(&lt, &l, &r),
        vec![(0, Some(0)), (1, Some(3)), (2, Some(2))]
    );
}

#[test]
fn empty_sides_give_no_rows_or_padded_ones() {
    let (l, r) = trades_and_quotes();
    let (el, er) = (l.slice(0, 0), r.slice(0, 0));
    assert!(pairs(&asof(JoinType::Left, CmpOp::Ge), &el, &r).is_empty());
    assert!(pairs(&asof(JoinType::Inner, CmpOp::Ge), &l, &er).is_empty());
    let padded = pairs(&asof(JoinType::Left, CmpOp::Ge), &l, &er);
    assert_eq!(padded, (0..5).map(|i| (i, None)).collect::<Vec<_>>());
}

#[test]
fn output_has_the_join_layout_and_string_keys_work() {
    let l = batch(vec![
        ("k", strs(&[Some("x"), Some("y")])),
        ("t", i64s(&[Some(5), Some(5)])),
    ]);
    let r = batch(vec![
        ("k", strs(&[Some("x"), Some("x")])),
        ("t", i64s(&[Some(1), Some(4)])),
        ("v", i64s(&[Some(100), Some(400)])),
    ]);
    let join = AsofJoin::new(
        JoinType::Left,
        vec![(0, 0)],
        RangeCondition::new(1, CmpOp::Ge, 1),
    );
    let out = join.collect(one(&l), one(&r)).unwrap();
    let schema = out[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["k", "t", "k", "t", "v"]);
    assert!(schema.field(4).is_nullable());
    let mut rows: Vec<(String, Option<i64>)> = Vec::new();
    for b in &out {
        for i in 0..b.num_rows() {
            let v = b.column(4).as_primitive::<Int64Type>();
            rows.push((
                b.column(0).as_string::<i32>().value(i).to_string(),
                v.is_valid(i).then(|| v.value(i)),
            ));
        }
    }
    rows.sort();
    assert_eq!(
        rows,
        vec![("x".to_string(), Some(400)), ("y".to_string(), None)]
    );
}

#[test]
fn decimal_times_compare_as_numbers() {
    let dec = |v: Vec<i128>| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v)
                .with_precision_and_scale(10, 2)
                .unwrap(),
        )
    };
    // Left 1.50; right 1.25 (id 0), 1.75 (id 1), -3.00 (id 2).
    let l = batch(vec![("id", i64s(&[Some(0)])), ("t", dec(vec![150]))]);
    let r = batch(vec![
        ("id", i64s(&[Some(0), Some(1), Some(2)])),
        ("t", dec(vec![125, 175, -300])),
    ]);
    let ge = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(1, CmpOp::Ge, 1),
    );
    assert_eq!(pairs(&ge, &l, &r), vec![(0, Some(0))]);
    let le = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(1, CmpOp::Le, 1),
    );
    assert_eq!(pairs(&le, &l, &r), vec![(0, Some(1))]);
}

#[test]
fn strategy_follows_the_mode_and_a_join_holds_the_kernel() {
    let j = asof(JoinType::Inner, CmpOp::Ge);
    assert_eq!(j.strategy(), Strategy::Broadcast);
    assert_eq!(
        j.clone().mode(AsofMode::Partitioned).strategy(),
        Strategy::ShuffleMerge
    );
    let held: Join = j.into();
    let (l, r) = trades_and_quotes();
    let rows: usize = held
        .collect(one(&l), one(&r))
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    assert_eq!(rows, 4);
}

#[test]
fn the_memory_budget_bounds_the_versions() {
    let (l, r) = trades_and_quotes();
    let join = asof(JoinType::Inner, CmpOp::Ge).memory(MemoryBudget::new(64));
    let err = join.collect(one(&l), chunked(&r, 1)).unwrap_err();
    assert!(
        matches!(err, KernelError::MemoryLimitExceeded { .. }),
        "{err}"
    );
}

// ---- errors -----------------------------------------------------------

fn error_of(join: &AsofJoin, l: &RecordBatch, r: &RecordBatch) -> String {
    let check = join.check(&one(l), &one(r)).unwrap_err().to_string();
    let run = join.collect(one(l), one(r)).unwrap_err().to_string();
    assert_eq!(check, run);
    run
}

#[test]
fn join_types_other_than_inner_and_left_are_refused() {
    let (l, r) = trades_and_quotes();
    for jt in [
        JoinType::Right,
        JoinType::Full,
        JoinType::LeftSemi,
        JoinType::LeftAnti,
    ] {
        let err = error_of(&asof(jt, CmpOp::Ge), &l, &r);
        assert!(err.contains("INNER or LEFT"), "{err}");
    }
}

#[test]
fn time_columns_of_different_types_are_refused_naming_both() {
    let l = batch(vec![("t", i64s(&[Some(1)]))]);
    let r = batch(vec![("t", Arc::new(Int32Array::from(vec![1])) as ArrayRef)]);
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(0, CmpOp::Ge, 0),
    );
    let err = error_of(&join, &l, &r);
    assert!(err.contains("Int64") && err.contains("Int32"), "{err}");
}

#[test]
fn float_times_are_refused() {
    let f = || {
        batch(vec![(
            "t",
            Arc::new(Float64Array::from(vec![1.0])) as ArrayRef,
        )])
    };
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(0, CmpOp::Ge, 0),
    );
    let err = error_of(&join, &f(), &f());
    assert!(err.contains("Float64") && err.contains("floats"), "{err}");
}

#[test]
fn decimal_times_above_precision_18_are_refused() {
    let d = || {
        let a = Decimal128Array::from(vec![1i128])
            .with_precision_and_scale(20, 2)
            .unwrap();
        batch(vec![("t", Arc::new(a) as ArrayRef)])
    };
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(0, CmpOp::Ge, 0),
    );
    let err = error_of(&join, &d(), &d());
    assert!(err.contains("precision 18"), "{err}");
}

#[test]
fn the_tombstone_column_must_be_boolean_and_exist() {
    let (l, r) = trades_and_quotes();
    let err = error_of(&asof(JoinType::Inner, CmpOp::Ge).tombstone(Some(3)), &l, &r);
    assert!(err.contains("Boolean") && err.contains("Int64"), "{err}");
    let err = error_of(&asof(JoinType::Inner, CmpOp::Ge).tombstone(Some(9)), &l, &r);
    assert!(err.contains("right column 9"), "{err}");
}

#[test]
fn time_and_key_columns_out_of_range_are_refused() {
    let (l, r) = trades_and_quotes();
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![(1, 1)],
        RangeCondition::new(7, CmpOp::Ge, 2),
    );
    let err = error_of(&join, &l, &r);
    assert!(err.contains("left column 7"), "{err}");
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![(1, 9)],
        RangeCondition::new(2, CmpOp::Ge, 2),
    );
    let err = error_of(&join, &l, &r);
    assert!(err.contains("key pair 0"), "{err}");
    let join = AsofJoin::latest(JoinType::Inner, vec![(1, 1)], Some(8));
    let err = error_of(&join, &l, &r);
    assert!(err.contains("right column 8"), "{err}");
}

#[test]
fn a_filter_giving_the_wrong_number_of_values_is_an_error() {
    let (l, r) = trades_and_quotes();
    let join = asof(JoinType::Inner, CmpOp::Ge).filter(Arc::new(
        |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
            Ok(BooleanArray::from(Vec::<bool>::new()))
        },
    ));
    let err = join.collect(one(&l), one(&r)).unwrap_err().to_string();
    assert!(err.contains("candidate pairs"), "{err}");
}

#[test]
fn a_decimal_time_beyond_its_precision_is_an_error_not_a_wrong_order() {
    // Precision 18 holds at most 18 digits; 10^19 does not fit it (Arrow
    // does not check values against the precision, so the kernel does).
    let a = Decimal128Array::from(vec![10i128.pow(19)])
        .with_precision_and_scale(18, 0)
        .unwrap();
    let t = batch(vec![("t", Arc::new(a) as ArrayRef)]);
    let join = AsofJoin::new(
        JoinType::Inner,
        vec![],
        RangeCondition::new(0, CmpOp::Ge, 0),
    );
    let err = join.collect(one(&t), one(&t)).unwrap_err().to_string();
    assert!(err.contains("exceeds its precision"), "{err}");
}

/// A tiny left side (six trades) against 200,000 quotes of 7 keys whose
/// times repeat (every time about 28 times per key), in batches of 8192 and
/// with 4 threads: the kernel's own choice (the small-left path), the path
/// forced and forbidden all give the version a scan of every quote picks
/// by the rules (largest time, ties the last quote, for `>=`; smallest
/// time, ties the first, for `<=`), tombstones included.
#[test]
fn a_tiny_left_side_against_200k_versions_takes_the_versions_a_scan_picks() {
    let n = 200_000i64;
    let quotes: Vec<RightRow> = (0..n)
        .map(|i| {
            let t = (i * 7919) % 1000;
            (i, Some(i % 7), (i % 97 != 5).then_some(t), 0, i % 1013 == 0)
        })
        .collect();
    let trades = [
        (0, Some(0), Some(500)),
        (1, Some(3), Some(0)),
        (2, Some(6), Some(999)),
        (3, Some(2), Some(-1)),
        (4, Some(9), Some(500)),
        (5, Some(1), None),
    ];
    let l = left(&trades.map(|(id, k, t)| (id, k, t, 0)));
    let r = right(&quotes);
    for op in [CmpOp::Ge, CmpOp::Le] {
        // The scan: every qualifying quote of the key, the best by the rules.
        let want: Vec<(i64, Option<i64>)> = trades
            .iter()
            .map(|&(id, k, t)| {
                let ok = quotes
                    .iter()
                    .filter(|q| q.1 == k && q.2.zip(t).is_some_and(|(qt, lt)| op.holds(lt, qt)));
                let best = if op == CmpOp::Ge {
                    ok.max_by_key(|q| (q.2, q.0))
                } else {
                    ok.min_by_key(|q| (q.2, q.0))
                };
                (id, best.filter(|q| !q.4).map(|q| q.0))
            })
            .collect();
        assert!(
            want.iter().filter(|w| w.1.is_some()).count() >= 2,
            "{want:?}"
        );
        for small_left in [None, Some(true), Some(false)] {
            let join = asof(JoinType::Left, op)
                .tombstone(Some(4))
                .small_left(small_left)
                .threads(4)
                .projection(Some(vec![0]), Some(vec![0]));
            let out = join.collect(one(&l), chunked(&r, 8192)).unwrap();
            let mut got = Vec::new();
            for b in &out {
                let (li, ri) = (
                    b.column(0).as_primitive::<Int64Type>(),
                    b.column(1).as_primitive::<Int64Type>(),
                );
                for i in 0..b.num_rows() {
                    got.push((li.value(i), ri.is_valid(i).then(|| ri.value(i))));
                }
            }
            got.sort();
            assert_eq!(got, want, "{op:?} small_left {small_left:?}");
        }
    }
}

//! Hash join cases on join-type semantics, each named after the case it
//! pins: outer joins null-extending the unmatched rows of either side (once),
//! residual filters on outer, semi and anti joins (a failed or NULL filter
//! result keeps the row unmatched), `NOT IN` (`LeftAntiNullAware`: NULLs on
//! either side, empty build sides, filters, unsupported options), and semi
//! joins emitting each row once despite duplicate matches. Each runs every
//! way of `common::cases::variants` and compares with rows written out by
//! hand or with the oracle (`common::reference`).

mod common;

use std::sync::Arc;

use arrow_array::{BooleanArray, RecordBatch, UInt32Array};
use tenon_kernels::{HashJoin, JoinFilter, JoinInput, JoinKernel, JoinType, KernelError};

use common::cases::{
    assert_rows_all_ways, batch, chunked, errors_all_ways, i64s, keys, one, row, strs,
};
use common::reference::{RefJoin, RowFilter};
use common::{NULL, int, less_than_filter, less_than_rows, s, sorted};

// ---------------------------------------------------------------------------
// Outer joins, and filters on them
// ---------------------------------------------------------------------------

fn outer_inputs() -> (RecordBatch, RecordBatch) {
    let left = batch(vec![
        ("lk", i64s(&[Some(1), Some(2), Some(2), Some(5), None])),
        (
            "lv",
            strs(&[
                Some("l1"),
                Some("l2a"),
                Some("l2b"),
                Some("l5"),
                Some("lnull"),
            ]),
        ),
    ]);
    let right = batch(vec![
        ("rk", i64s(&[Some(2), Some(3), Some(3), None, Some(7)])),
        (
            "rv",
            strs(&[
                Some("r2"),
                Some("r3a"),
                Some("r3b"),
                Some("rnull"),
                Some("r7"),
            ]),
        ),
    ]);
    (left, right)
}

#[test]
fn full_outer_emits_unmatched_build_rows_once() {
    let (l, r) = outer_inputs();
    let expected = vec![
        row(&[int(2), s("l2a"), int(2), s("r2")]),
        row(&[int(2), s("l2b"), int(2), s("r2")]),
        row(&[int(1), s("l1"), NULL, NULL]),
        row(&[int(5), s("l5"), NULL, NULL]),
        row(&[NULL, s("lnull"), NULL, NULL]),
        row(&[NULL, NULL, int(3), s("r3a")]),
        row(&[NULL, NULL, int(3), s("r3b")]),
        row(&[NULL, NULL, NULL, s("rnull")]),
        row(&[NULL, NULL, int(7), s("r7")]),
    ];
    let join = HashJoin::new(JoinType::Full, vec![(0, 0)]);
    // One batch a side, and one row a batch (many probe morsels).
    assert_rows_all_ways(&join, JoinType::Full, &one(&l), &one(&r), &expected);
    assert_rows_all_ways(
        &join,
        JoinType::Full,
        &chunked(&l, 1),
        &chunked(&r, 1),
        &expected,
    );
}

#[test]
fn left_and_right_joins_null_extend_the_other_side() {
    let (l, r) = outer_inputs();
    let (l, r) = (one(&l), one(&r));
    let left_expected = vec![
        row(&[int(2), s("l2a"), int(2), s("r2")]),
        row(&[int(2), s("l2b"), int(2), s("r2")]),
        row(&[int(1), s("l1"), NULL, NULL]),
        row(&[int(5), s("l5"), NULL, NULL]),
        row(&[NULL, s("lnull"), NULL, NULL]),
    ];
    let join = HashJoin::new(JoinType::Left, vec![(0, 0)]);
    assert_rows_all_ways(&join, JoinType::Left, &l, &r, &left_expected);
    let right_expected = vec![
        row(&[int(2), s("l2a"), int(2), s("r2")]),
        row(&[int(2), s("l2b"), int(2), s("r2")]),
        row(&[NULL, NULL, int(3), s("r3a")]),
        row(&[NULL, NULL, int(3), s("r3b")]),
        row(&[NULL, NULL, NULL, s("rnull")]),
        row(&[NULL, NULL, int(7), s("r7")]),
    ];
    let join = HashJoin::new(JoinType::Right, vec![(0, 0)]);
    assert_rows_all_ways(&join, JoinType::Right, &l, &r, &right_expected);
}

#[test]
fn left_join_keeps_rows_whose_filter_failed() {
    // left.p < right.p on top of the key.
    let l = batch(vec![
        ("k", i64s(&[Some(1), Some(1), Some(2)])),
        ("p", i64s(&[Some(10), Some(0), Some(5)])),
    ]);
    let r = batch(vec![
        ("k", i64s(&[Some(1), Some(2)])),
        ("p", i64s(&[Some(5), Some(1)])),
    ]);
    let (l, r) = (one(&l), one(&r));
    let f = || less_than_filter(1, 1);
    let left = HashJoin::new(JoinType::Left, vec![(0, 0)]).filter(f());
    assert_rows_all_ways(
        &left,
        JoinType::Left,
        &l,
        &r,
        &[
            row(&[int(1), int(0), int(1), int(5)]),
            row(&[int(1), int(10), NULL, NULL]),
            row(&[int(2), int(5), NULL, NULL]),
        ],
    );
    let full = HashJoin::new(JoinType::Full, vec![(0, 0)]).filter(f());
    assert_rows_all_ways(
        &full,
        JoinType::Full,
        &l,
        &r,
        &[
            row(&[int(1), int(0), int(1), int(5)]),
            row(&[int(1), int(10), NULL, NULL]),
            row(&[int(2), int(5), NULL, NULL]),
            row(&[NULL, NULL, int(2), int(1)]),
        ],
    );
    let anti = HashJoin::new(JoinType::LeftAnti, vec![(0, 0)]).filter(f());
    assert_rows_all_ways(
        &anti,
        JoinType::LeftAnti,
        &l,
        &r,
        &[row(&[int(1), int(10)]), row(&[int(2), int(5)])],
    );
    let semi = HashJoin::new(JoinType::LeftSemi, vec![(0, 0)]).filter(f());
    assert_rows_all_ways(&semi, JoinType::LeftSemi, &l, &r, &[row(&[int(1), int(0)])]);
}

#[test]
fn null_filter_result_counts_as_false() {
    let l = batch(vec![
        ("k", i64s(&[Some(1), Some(1)])),
        ("p", i64s(&[None, Some(0)])),
    ]);
    let r = batch(vec![("k", i64s(&[Some(1)])), ("p", i64s(&[Some(5)]))]);
    let join = HashJoin::new(JoinType::Left, vec![(0, 0)]).filter(less_than_filter(1, 1));
    assert_rows_all_ways(
        &join,
        JoinType::Left,
        &one(&l),
        &one(&r),
        &[
            row(&[int(1), int(0), int(1), int(5)]),
            row(&[int(1), NULL, NULL, NULL]),
        ],
    );
}

// ---------------------------------------------------------------------------
// NOT IN (LeftAntiNullAware)
// ---------------------------------------------------------------------------

#[test]
fn not_in_with_null_on_right_returns_nothing() {
    let l = keys(&[Some(1), Some(2), None, Some(3)]);
    let r = keys(&[Some(2), None]);
    let join = HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]);
    assert_rows_all_ways(&join, JoinType::LeftAntiNullAware, &one(&l), &one(&r), &[]);
    // Also when the NULL is in a later right batch than the other rows.
    assert_rows_all_ways(
        &join,
        JoinType::LeftAntiNullAware,
        &chunked(&l, 1),
        &chunked(&r, 1),
        &[],
    );
}

#[test]
fn not_in_drops_null_left_keys_when_right_nonempty() {
    let l = keys(&[Some(1), None, Some(3)]);
    let r = keys(&[Some(1), Some(2)]);
    let join = HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]);
    assert_rows_all_ways(
        &join,
        JoinType::LeftAntiNullAware,
        &one(&l),
        &one(&r),
        &[row(&[int(3)])],
    );
}

#[test]
fn not_in_keeps_everything_when_right_empty() {
    let l = keys(&[Some(1), None, Some(3)]);
    let expected = [row(&[int(1)]), row(&[NULL]), row(&[int(3)])];
    let join = HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]);
    let schema = l.schema();
    // No right batches at all, and one empty right batch.
    for right in [
        JoinInput::new(schema.clone(), vec![]),
        JoinInput::new(schema.clone(), vec![RecordBatch::new_empty(schema.clone())]),
    ] {
        assert_rows_all_ways(
            &join,
            JoinType::LeftAntiNullAware,
            &one(&l),
            &right,
            &expected,
        );
    }
}

#[test]
fn not_in_with_both_sides_empty_returns_nothing() {
    // The smallest input of the empty-right NOT IN case: no rows at all.
    let schema = keys(&[]).schema();
    let none = JoinInput::new(schema.clone(), vec![]);
    let join = HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]);
    assert_rows_all_ways(&join, JoinType::LeftAntiNullAware, &none, &none, &[]);
}

#[test]
fn not_in_with_filter_only_counts_right_rows_that_pass_it() {
    // l.k NOT IN (SELECT r.k FROM r WHERE l.p < r.p)
    let l = batch(vec![
        ("k", i64s(&[Some(1), Some(2), None, Some(4)])),
        ("p", i64s(&[Some(0), Some(9), Some(9), Some(0)])),
    ]);
    let r = batch(vec![
        ("k", i64s(&[Some(1), Some(2), None])),
        ("p", i64s(&[Some(5), Some(5), Some(1)])),
    ]);
    // l=(1,0): r(1,5) passes and equals -> out. l=(2,9): nothing passes
    // (9<5, 9<5, 9<1 are false) -> kept. l=(NULL,9): nothing passes -> kept.
    // l=(4,0): r(NULL,1) passes, NULL key -> out.
    let join =
        HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]).filter(less_than_filter(1, 1));
    let expected = [row(&[int(2), int(9)]), row(&[NULL, int(9)])];
    assert_rows_all_ways(
        &join,
        JoinType::LeftAntiNullAware,
        &one(&l),
        &one(&r),
        &expected,
    );
    // The oracle agrees with the hand-written rows.
    let f = less_than_rows(1, 1);
    let oracle = RefJoin {
        filter: Some(&f as RowFilter<'_>),
        ..RefJoin::new(JoinType::LeftAntiNullAware, &[(0, 0)])
    };
    let got = oracle.run(&common::batch_rows(&l), &common::batch_rows(&r), (2, 2));
    assert_eq!(sorted(got), sorted(expected.to_vec()));
}

#[test]
fn not_in_rejects_null_equal_and_composite_keys() {
    let l = keys(&[Some(1)]);
    let r = keys(&[Some(1)]);
    let join = HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0)]).null_equal(true);
    for e in errors_all_ways(&join, &one(&l), &one(&r)) {
        assert!(
            matches!(&e, KernelError::InvalidOptions(m) if m.contains("null-equal")),
            "{e}"
        );
    }
    let l2 = batch(vec![("a", i64s(&[Some(1)])), ("b", i64s(&[Some(1)]))]);
    let join = HashJoin::new(JoinType::LeftAntiNullAware, vec![(0, 0), (1, 1)]);
    for e in errors_all_ways(&join, &one(&l2), &one(&l2)) {
        assert!(
            matches!(&e, KernelError::InvalidOptions(m) if m.contains("one key")),
            "{e}"
        );
    }
}

// ---------------------------------------------------------------------------
// Semi joins
// ---------------------------------------------------------------------------

#[test]
fn semi_join_emits_each_row_once_despite_duplicates() {
    let l = batch(vec![
        ("k", i64s(&[Some(1), Some(1), Some(2), Some(3)])),
        ("id", i64s(&[Some(10), Some(11), Some(12), Some(13)])),
    ]);
    let r = batch(vec![
        ("k", i64s(&[Some(1), Some(1), Some(1), Some(2), Some(2)])),
        (
            "id",
            i64s(&[Some(20), Some(21), Some(22), Some(23), Some(24)]),
        ),
    ]);
    let (l, r) = (one(&l), one(&r));
    let semi = HashJoin::new(JoinType::LeftSemi, vec![(0, 0)]);
    let left_expected = [
        row(&[int(1), int(10)]),
        row(&[int(1), int(11)]),
        row(&[int(2), int(12)]),
    ];
    assert_rows_all_ways(&semi, JoinType::LeftSemi, &l, &r, &left_expected);
    // A filter every candidate pair passes changes nothing.
    let always = |_: &RecordBatch, _: &RecordBatch, li: &UInt32Array, _: &UInt32Array| {
        Ok(BooleanArray::from(vec![true; li.len()]))
    };
    let always: Arc<dyn JoinFilter> = Arc::new(always);
    let semi_f = semi.clone().filter(always.clone());
    assert_rows_all_ways(&semi_f, JoinType::LeftSemi, &l, &r, &left_expected);
    let right_expected = [
        row(&[int(1), int(20)]),
        row(&[int(1), int(21)]),
        row(&[int(1), int(22)]),
        row(&[int(2), int(23)]),
        row(&[int(2), int(24)]),
    ];
    let rsemi = HashJoin::new(JoinType::RightSemi, vec![(0, 0)]);
    assert_rows_all_ways(&rsemi, JoinType::RightSemi, &l, &r, &right_expected);
    let rsemi_f = rsemi.filter(always);
    assert_rows_all_ways(&rsemi_f, JoinType::RightSemi, &l, &r, &right_expected);
}

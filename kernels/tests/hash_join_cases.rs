//! Unit tests of the hash join, each named after the case it pins. Most run
//! every mode, build side, partition count and thread count (see
//! [`variants`]) and compare the output with rows written out by hand or
//! with the oracle (`common::reference`).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use arrow_array::types::Int64Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int32Array, Int64Array, LargeStringArray, RecordBatch, StringArray,
    StringViewArray, UInt32Array,
};
use arrow_schema::DataType;
use tenon_kernels::{
    HashJoin, HashJoinMode, JoinFilter, JoinInput, JoinSide, JoinType, KernelError, MemoryBudget,
};

use common::reference::{RefJoin, RowFilter};
use common::{
    NULL, Row, Value, check_batches, int, less_than_filter, less_than_rows, multiset_diff,
    run_kernel, s, sorted,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn i64s(v: &[Option<i64>]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}

fn strs(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

/// A batch of nullable columns.
fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter_with_nullable(cols.into_iter().map(|(n, a)| (n, a, true)))
        .expect("a valid batch")
}

/// `batch` split into batches of `chunk` rows (slices).
fn chunked(batch: &RecordBatch, chunk: usize) -> JoinInput {
    let parts = (0..batch.num_rows())
        .step_by(chunk)
        .map(|at| batch.slice(at, chunk.min(batch.num_rows() - at)))
        .collect();
    JoinInput::new(batch.schema(), parts)
}

fn one(batch: &RecordBatch) -> JoinInput {
    JoinInput::from_batch(batch.clone())
}

/// One way of running a join.
struct Variant {
    desc: String,
    join: HashJoin,
    batch_size: usize,
    via_stream: bool,
}

/// `base` in both modes, with both build sides, default and forced
/// partition counts, one and four threads, large and tiny batches, through
/// `collect` and `execute`.
fn variants(base: &HashJoin) -> Vec<Variant> {
    let mut out = Vec::new();
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for build in [JoinSide::Left, JoinSide::Right] {
            let parts: &[Option<usize>] = match mode {
                HashJoinMode::Broadcast => &[None],
                HashJoinMode::Partitioned => &[None, Some(4)],
            };
            for &p in parts {
                for (threads, batch_size) in [(1, 8192), (4, 3)] {
                    let via_stream = threads == 4;
                    let mut join = base
                        .clone()
                        .mode(mode)
                        .build_side(build)
                        .threads(threads)
                        .batch_size(batch_size);
                    if let Some(p) = p {
                        join = join.partitions(p);
                    }
                    out.push(Variant {
                        desc: format!(
                            "{mode:?} build={build:?} partitions={p:?} threads={threads} \
                             batch_size={batch_size} stream={via_stream}"
                        ),
                        join,
                        batch_size,
                        via_stream,
                    });
                }
            }
        }
    }
    out
}

/// Runs one variant, checks its batches against `schema` and the batch
/// size, and returns its rows; a panic or error fails the test with the
/// variant's description.
fn run_variant(
    v: &Variant,
    left: &JoinInput,
    right: &JoinInput,
    schema: &[(String, DataType, bool)],
) -> Vec<Row> {
    common::quiet_worker_panics();
    let res = catch_unwind(AssertUnwindSafe(|| {
        run_kernel(&v.join, left, right, v.via_stream)
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
    check_batches(&batches, schema, v.batch_size).unwrap_or_else(|e| panic!("{}: {e}", v.desc))
}

/// The output schema the oracle expects.
fn ref_schema(
    jt: JoinType,
    left: &JoinInput,
    right: &JoinInput,
    proj: (Option<&[usize]>, Option<&[usize]>),
) -> Vec<(String, DataType, bool)> {
    RefJoin {
        left_projection: proj.0,
        right_projection: proj.1,
        ..RefJoin::new(jt, &[(0, 0)])
    }
    .schema(left.schema(), right.schema())
}

/// Asserts that every variant of `base` outputs exactly `expected`.
fn assert_rows_all_ways(
    base: &HashJoin,
    jt: JoinType,
    left: &JoinInput,
    right: &JoinInput,
    expected: &[Row],
) {
    let schema = ref_schema(jt, left, right, (None, None));
    for v in variants(base) {
        let rows = run_variant(&v, left, right, &schema);
        let diff = multiset_diff(&rows, expected);
        assert!(diff.is_empty(), "{jt} {}: {diff}", v.desc);
    }
}

/// Asserts that every variant of `base` outputs what the oracle does.
fn assert_matches_oracle(
    base: &HashJoin,
    oracle: RefJoin<'_>,
    left: &JoinInput,
    right: &JoinInput,
) -> Vec<Row> {
    let lrows = common::all_rows(left.batches());
    let rrows = common::all_rows(right.batches());
    let widths = (left.schema().fields().len(), right.schema().fields().len());
    let expected = oracle.run(&lrows, &rrows, widths);
    let schema = oracle.schema(left.schema(), right.schema());
    for v in variants(base) {
        let rows = run_variant(&v, left, right, &schema);
        let diff = multiset_diff(&rows, &expected);
        assert!(diff.is_empty(), "{} {}: {diff}", oracle.join_type, v.desc);
    }
    expected
}

fn row(v: &[Value]) -> Row {
    v.to_vec()
}

/// The error of every variant of `base` (which must fail), via `collect`
/// and via `execute`.
fn errors_all_ways(base: &HashJoin, left: &JoinInput, right: &JoinInput) -> Vec<KernelError> {
    common::quiet_worker_panics();
    let mut out = Vec::new();
    for v in variants(base) {
        for via_stream in [false, true] {
            let res = catch_unwind(AssertUnwindSafe(|| {
                run_kernel(&v.join, left, right, via_stream)
            }));
            match res {
                Ok(Err(e)) => out.push(e),
                Ok(Ok(b)) => panic!("{}: expected an error, got {} batches", v.desc, b.len()),
                Err(p) => panic!(
                    "{} stream={via_stream}: panicked instead of returning an error: {} \
                     (last worker panic: {})",
                    v.desc,
                    common::panic_text(p.as_ref()),
                    common::last_worker_panic()
                ),
            }
        }
    }
    out
}

/// Runs `f` on another thread and fails if it takes longer than `limit`.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(e) => panic!("did not finish within {limit:?} ({e})"),
    }
}

// ---------------------------------------------------------------------------
// Join-type semantics
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
// NOT IN (LeftAntiNullAware)
// ---------------------------------------------------------------------------

fn keys(v: &[Option<i64>]) -> RecordBatch {
    batch(vec![("k", i64s(v))])
}

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

// ---------------------------------------------------------------------------
// Partitioned mode
// ---------------------------------------------------------------------------

#[test]
fn partitioned_mode_finds_duplicate_build_keys_in_every_partition() {
    // 32 keys, each twice on both sides: with 2 to 64 partitions, some
    // partition other than the first holds a group of repeated build keys.
    let ks: Vec<Option<i64>> = (0..64).map(|i| Some(i / 2)).collect();
    let strings: Vec<String> = (0..64).map(|i| format!("key {}", i / 2)).collect();
    let ss: Vec<Option<&str>> = strings.iter().map(|s| Some(s.as_str())).collect();
    let l = batch(vec![("k", i64s(&ks)), ("s", strs(&ss))]);
    let r = batch(vec![("k", i64s(&ks)), ("s", strs(&ss))]);
    for on in [vec![(0, 0)], vec![(1, 1)], vec![(0, 0), (1, 1)]] {
        for parts in [2, 4, 8, 64] {
            for build in [JoinSide::Left, JoinSide::Right] {
                for jt in [JoinType::Inner, JoinType::Full, JoinType::LeftSemi] {
                    let join = HashJoin::new(jt, on.clone())
                        .mode(HashJoinMode::Partitioned)
                        .partitions(parts)
                        .build_side(build)
                        .threads(1);
                    let desc = format!("{jt} on={on:?} partitions={parts} build={build:?}");
                    let v = Variant {
                        desc: desc.clone(),
                        join,
                        batch_size: 8192,
                        via_stream: false,
                    };
                    let oracle = RefJoin::new(jt, &on);
                    let schema = oracle.schema(&l.schema(), &r.schema());
                    let rows = run_variant(&v, &one(&l), &one(&r), &schema);
                    let expected =
                        oracle.run(&common::batch_rows(&l), &common::batch_rows(&r), (2, 2));
                    let diff = multiset_diff(&rows, &expected);
                    assert!(diff.is_empty(), "{desc}: {diff}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Errors
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

#[test]
fn invalid_options_are_errors_not_panics() {
    let l = keys(&[Some(1), Some(2)]);
    let r = keys(&[Some(1)]);
    let (l, r) = (one(&l), one(&r));
    let cases: Vec<(&str, HashJoin)> = vec![
        ("no key pairs", HashJoin::new(JoinType::Inner, vec![])),
        (
            "key column out of range",
            HashJoin::new(JoinType::Inner, vec![(0, 3)]),
        ),
        (
            "batch size 0",
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).batch_size(0),
        ),
        (
            "left projection out of range",
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).projection(Some(vec![1]), None),
        ),
    ];
    for (what, join) in cases {
        for via_stream in [false, true] {
            let res = catch_unwind(AssertUnwindSafe(|| run_kernel(&join, &l, &r, via_stream)));
            match res {
                Ok(Err(_)) => {}
                Ok(Ok(_)) => panic!("{what}: expected an error"),
                Err(_) => panic!("{what}: panicked"),
            }
        }
    }
    // Partition counts that are not powers of two (in the partitioned mode).
    for p in [0, 3, 1 << 17] {
        let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
            .mode(HashJoinMode::Partitioned)
            .partitions(p);
        let e = run_kernel(&join, &l, &r, false).expect_err("bad partition count");
        assert!(matches!(e, KernelError::InvalidOptions(_)), "{p}: {e}");
    }
    // A batch whose columns do not match the input's schema.
    let wrong = batch(vec![("k", strs(&[Some("x")]))]);
    let bad = JoinInput::new(l.schema().clone(), vec![wrong]);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]);
    let e = run_kernel(&join, &bad, &r, false).expect_err("schema mismatch");
    assert!(matches!(e, KernelError::InvalidOptions(_)), "{e}");
}

#[test]
fn filter_errors_come_out_of_collect_and_the_stream() {
    let l = keys(&[Some(1), Some(2)]);
    let r = keys(&[Some(1), Some(2)]);
    let failing = |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
        Err(KernelError::Filter("boom".into()))
    };
    let failing: Arc<dyn JoinFilter> = Arc::new(failing);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]).filter(failing);
    for e in errors_all_ways(&join, &one(&l), &one(&r)) {
        assert!(e.to_string().contains("boom"), "{e}");
    }
    // A filter that returns the wrong number of values.
    let short = |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
        Ok(BooleanArray::from(Vec::<bool>::new()))
    };
    let short: Arc<dyn JoinFilter> = Arc::new(short);
    let join = HashJoin::new(JoinType::Left, vec![(0, 0)]).filter(short);
    for e in errors_all_ways(&join, &one(&l), &one(&r)) {
        assert!(matches!(e, KernelError::Filter(_)), "{e}");
    }
}

#[test]
fn memory_limit_error_says_what_and_how_much() {
    let n = 10_000;
    let l = keys(&(0..n).map(Some).collect::<Vec<_>>());
    let r = keys(&(0..n).map(Some).collect::<Vec<_>>());
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for build in [JoinSide::Left, JoinSide::Right] {
            let budget = MemoryBudget::new(4096);
            let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(build)
                .partitions(4)
                .memory(budget.clone());
            for via_stream in [false, true] {
                let e = run_kernel(&join, &chunked(&l, 3000), &one(&r), via_stream)
                    .expect_err("10,000 build rows do not fit in 4 KiB");
                let KernelError::MemoryLimitExceeded {
                    what,
                    needed,
                    used,
                    limit,
                } = &e
                else {
                    panic!("{mode:?} {build:?}: expected MemoryLimitExceeded, got {e}");
                };
                assert_eq!(*limit, 4096);
                assert!(!what.is_empty());
                assert!(*needed > 0 && used + needed > *limit, "{e:?}");
                let msg = e.to_string();
                assert!(msg.contains("memory limit exceeded"), "{msg}");
                assert!(msg.contains(what), "{msg}");
                assert!(msg.contains(&format!("needs {needed} more bytes")), "{msg}");
                assert!(msg.contains("4096-byte limit"), "{msg}");
                assert_eq!(budget.used(), 0, "reservations are returned after an error");
            }
            // With enough memory the same join runs, and gives it all back.
            let budget = MemoryBudget::new(64 << 20);
            let join = join.memory(budget.clone());
            let out = run_kernel(&join, &chunked(&l, 3000), &one(&r), false).expect("fits");
            assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), n as usize);
            assert_eq!(budget.used(), 0);
        }
    }
}

// ---------------------------------------------------------------------------
// Streaming
// ---------------------------------------------------------------------------

#[test]
fn many_to_many_streams_in_bounded_batches() {
    let l = batch(vec![
        ("k", i64s(&vec![Some(7); 300])),
        ("id", i64s(&(0..300).map(Some).collect::<Vec<_>>())),
    ]);
    let r = batch(vec![
        ("k", i64s(&vec![Some(7); 300])),
        ("id", i64s(&(1000..1300).map(Some).collect::<Vec<_>>())),
    ]);
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for build in [JoinSide::Left, JoinSide::Right] {
            let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(build)
                .partitions(4)
                .threads(2)
                .batch_size(100);
            let stream = join.execute(one(&l), one(&r)).expect("valid join");
            let mut total = 0usize;
            let mut pairs = vec![0u32; 300];
            for b in stream {
                let b = b.expect("no error");
                assert!(b.num_rows() <= 100, "{mode:?}: {} rows", b.num_rows());
                total += b.num_rows();
                let lid = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
                for i in 0..b.num_rows() {
                    pairs[lid.value(i) as usize] += 1;
                }
            }
            assert_eq!(total, 90_000, "{mode:?} {build:?}");
            assert!(pairs.iter().all(|&c| c == 300), "each left row 300 times");
        }
    }
}

#[test]
fn dropping_the_stream_early_does_not_hang() {
    // 3000 x 3000 rows of one key: 9 million output rows, far more than the
    // stream buffers.
    let n = 3000;
    let l = batch(vec![("k", i64s(&vec![Some(1); n]))]);
    let r = batch(vec![("k", i64s(&vec![Some(1); n]))]);
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for read in [0usize, 1, 5] {
            let (l, r) = (l.clone(), r.clone());
            let started = Instant::now();
            within(Duration::from_secs(30), move || {
                let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                    .mode(mode)
                    .partitions(2)
                    .threads(2)
                    .batch_size(64);
                let mut stream = join.execute(one(&l), one(&r)).expect("valid join");
                for _ in 0..read {
                    let b = stream.next().expect("a batch").expect("no error");
                    assert!(b.num_rows() <= 64);
                }
                drop(stream);
            });
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{mode:?} read={read}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Key types
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Projection
// ---------------------------------------------------------------------------

#[test]
fn projection_selects_output_columns() {
    let l = batch(vec![
        ("a", i64s(&[Some(1), Some(2)])),
        ("b", strs(&[Some("b1"), Some("b2")])),
        ("c", i64s(&[Some(10), Some(20)])),
    ]);
    let r = batch(vec![
        ("x", i64s(&[Some(2), Some(3)])),
        ("y", strs(&[Some("y2"), Some("y3")])),
    ]);
    let (l, r) = (one(&l), one(&r));
    let lp = vec![2usize, 0];
    let rp = vec![1usize];
    let proj = (Some(lp.as_slice()), Some(rp.as_slice()));
    let cases: Vec<(JoinType, Vec<Row>)> = vec![
        (JoinType::Inner, vec![row(&[int(20), int(2), s("y2")])]),
        (
            JoinType::Full,
            vec![
                row(&[int(20), int(2), s("y2")]),
                row(&[int(10), int(1), NULL]),
                row(&[NULL, NULL, s("y3")]),
            ],
        ),
        (JoinType::LeftSemi, vec![row(&[int(20), int(2)])]),
        (JoinType::LeftAnti, vec![row(&[int(10), int(1)])]),
        (JoinType::RightAnti, vec![row(&[s("y3")])]),
    ];
    for (jt, expected) in cases {
        let join = HashJoin::new(jt, vec![(0, 0)]).projection(Some(lp.clone()), Some(rp.clone()));
        let schema = ref_schema(jt, &l, &r, proj);
        let names: Vec<&str> = schema.iter().map(|f| f.0.as_str()).collect();
        let want: &[&str] = match jt {
            JoinType::LeftSemi | JoinType::LeftAnti => &["c", "a"],
            JoinType::RightAnti => &["y"],
            _ => &["c", "a", "y"],
        };
        assert_eq!(names, want);
        let declared = join.output_schema(l.schema(), r.schema()).unwrap();
        assert_eq!(common::field_shapes(&declared), schema, "{jt}");
        for v in variants(&join) {
            let rows = run_variant(&v, &l, &r, &schema);
            let diff = multiset_diff(&rows, &expected);
            assert!(diff.is_empty(), "{jt} {}: {diff}", v.desc);
        }
    }
    // An empty projection of a side gives zero columns of it.
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]).projection(Some(vec![]), Some(vec![1]));
    let schema = ref_schema(JoinType::Inner, &l, &r, (Some(&[]), Some(&[1])));
    for v in variants(&join) {
        let rows = run_variant(&v, &l, &r, &schema);
        assert_eq!(rows, vec![row(&[s("y2")])], "{}", v.desc);
    }
}

// ---------------------------------------------------------------------------
// Large inputs: the code paths that only start past 65,536 rows
// ---------------------------------------------------------------------------

/// Runs `join` once and compares it with the indexed oracle.
fn check_large(
    join: &HashJoin,
    oracle: RefJoin<'_>,
    left: &JoinInput,
    right: &JoinInput,
    batch_size: usize,
    desc: &str,
) -> usize {
    common::quiet_worker_panics();
    let lrows = common::all_rows(left.batches());
    let rrows = common::all_rows(right.batches());
    let widths = (left.schema().fields().len(), right.schema().fields().len());
    let expected = oracle.run_indexed(&lrows, &rrows, widths);
    let schema = oracle.schema(left.schema(), right.schema());
    let batches = catch_unwind(AssertUnwindSafe(|| {
        join.collect(left.clone(), right.clone())
    }))
    .unwrap_or_else(|p| {
        panic!(
            "{desc}: the kernel panicked: {} (last worker panic: {})",
            common::panic_text(p.as_ref()),
            common::last_worker_panic()
        )
    })
    .unwrap_or_else(|e| panic!("{desc}: {e}"));
    let rows = check_batches(&batches, &schema, batch_size).unwrap_or_else(|e| panic!("{e}"));
    let diff = multiset_diff(&rows, &expected);
    assert!(diff.len() < 4000, "{desc}: {}", &diff);
    assert!(diff.is_empty(), "{desc}: {diff}");
    expected.len()
}

/// Probe (left): 80,000 rows (k, p), 75,000 of them with the hot key 7;
/// build (right): 2,000 rows (k, p), key 7 three times.
fn skewed_inputs() -> (RecordBatch, RecordBatch) {
    let n = 80_000i64;
    let lk: Vec<Option<i64>> = (0..n)
        .map(|i| match i % 16 {
            0 => Some(i % 5000 + 100),
            1 if i % 32 == 1 => None,
            _ => Some(7),
        })
        .collect();
    let lp: Vec<Option<i64>> = (0..n).map(|i| Some(i % 3)).collect();
    let l = batch(vec![("k", i64s(&lk)), ("p", i64s(&lp))]);
    let rk: Vec<Option<i64>> = (0..2000)
        .map(|i| if i < 3 { Some(7) } else { Some(i * 3) })
        .collect();
    let rp: Vec<Option<i64>> = (0..2000).map(|i| Some(i % 4)).collect();
    let r = batch(vec![("k", i64s(&rk)), ("p", i64s(&rp))]);
    (l, r)
}

#[test]
fn skewed_partition_is_correct() {
    // The hot key puts more than 65,536 probe rows in one partition, which
    // is then probed in split sub-chunks sharing one table.
    let (l, r) = skewed_inputs();
    let (left, right) = (chunked(&l, 30_000), one(&r));
    let on = [(0, 0)];
    let f = less_than_rows(1, 1);
    let cases: Vec<(JoinType, bool)> = vec![
        (JoinType::Inner, false),
        (JoinType::Inner, true),
        (JoinType::Left, true),
        (JoinType::LeftSemi, false),
        (JoinType::LeftAnti, true),
        (JoinType::RightSemi, false),
        (JoinType::LeftAntiNullAware, false),
    ];
    for (jt, filtered) in cases {
        let mut join = HashJoin::new(jt, on.to_vec())
            .mode(HashJoinMode::Partitioned)
            .build_side(JoinSide::Right)
            .partitions(4)
            .threads(4)
            .batch_size(4096);
        let mut oracle = RefJoin::new(jt, &on);
        if filtered {
            join = join.filter(less_than_filter(1, 1));
            oracle.filter = Some(&f as RowFilter<'_>);
        }
        let rows = check_large(
            &join,
            oracle,
            &left,
            &right,
            4096,
            &format!("{jt} filter={filtered}"),
        );
        if jt == JoinType::Inner && !filtered {
            assert!(rows > 3 * 70_000, "the hot key must dominate: {rows}");
        }
    }
}

#[test]
fn broadcast_probe_batch_larger_than_a_morsel() {
    // One probe batch of 80,000 rows is probed as two morsels (65,536 rows,
    // then the rest at an offset); probe-side marks are per morsel.
    let (l, r) = skewed_inputs();
    let (left, right) = (one(&l), one(&r));
    let on = [(0, 0)];
    let f = less_than_rows(1, 1);
    for (jt, filtered) in [
        (JoinType::Left, true),
        (JoinType::LeftSemi, true),
        (JoinType::LeftAnti, false),
        (JoinType::LeftAntiNullAware, true),
    ] {
        let mut join = HashJoin::new(jt, on.to_vec())
            .mode(HashJoinMode::Broadcast)
            .build_side(JoinSide::Right)
            .threads(4)
            .batch_size(5000);
        let mut oracle = RefJoin::new(jt, &on);
        if filtered {
            join = join.filter(less_than_filter(1, 1));
            oracle.filter = Some(&f as RowFilter<'_>);
        }
        check_large(
            &join,
            oracle,
            &left,
            &right,
            5000,
            &format!("{jt} filter={filtered}"),
        );
    }
}

#[test]
fn broadcast_large_build_uses_regions_correctly() {
    // Build (left): 200,000 rows (over 2 x 65,536, so the table is built in
    // several regions in parallel), keys repeating 3-4 times, some NULL.
    let n = 200_000i64;
    let lk: Vec<Option<i64>> = (0..n)
        .map(|i| if i % 101 == 0 { None } else { Some(i % 60_000) })
        .collect();
    let l = batch(vec![
        ("k", i64s(&lk)),
        ("id", i64s(&(0..n).map(Some).collect::<Vec<_>>())),
    ]);
    // Probe (right): 3,000 rows, half of their keys present, a few NULL.
    let rk: Vec<Option<i64>> = (0..3000)
        .map(|i| if i % 500 == 0 { None } else { Some(i * 40) })
        .collect();
    let r = batch(vec![("k", i64s(&rk))]);
    let (left, right) = (chunked(&l, 70_000), chunked(&r, 1000));
    let on = [(0, 0)];
    for (jt, null_equal) in [
        (JoinType::Inner, false),
        (JoinType::Inner, true),
        (JoinType::LeftSemi, false),
        (JoinType::RightAnti, false),
        (JoinType::Full, false),
    ] {
        for threads in [1, 4] {
            let join = HashJoin::new(jt, on.to_vec())
                .mode(HashJoinMode::Broadcast)
                .build_side(JoinSide::Left)
                .null_equal(null_equal)
                .threads(threads)
                .batch_size(8192);
            let oracle = RefJoin {
                null_equal,
                ..RefJoin::new(jt, &on)
            };
            check_large(
                &join,
                oracle,
                &left,
                &right,
                8192,
                &format!("{jt} null_equal={null_equal} threads={threads}"),
            );
        }
    }
    // The row multiset of the hot path equals a direct count: each present
    // probe key k (k < 60,000, k % 40 == 0) matches the build rows i with
    // i % 60,000 == k and i % 101 != 0.
    let join = HashJoin::new(JoinType::Inner, on.to_vec())
        .mode(HashJoinMode::Broadcast)
        .build_side(JoinSide::Left);
    let out = join.collect(left, right).unwrap();
    let mut count = 0usize;
    for b in &out {
        let k = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let id = arrow_array::cast::AsArray::as_primitive::<Int64Type>(b.column(1));
        let rk = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            assert_eq!(k.value(i), rk.value(i));
            assert_eq!(id.value(i) % 60_000, k.value(i));
            count += 1;
        }
    }
    let want = (0..n)
        .filter(|&j| {
            let m = j % 60_000;
            j % 101 != 0 && m % 40 == 0 && (m / 40) % 500 != 0
        })
        .count();
    assert_eq!(count, want);
}

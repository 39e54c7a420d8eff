//! All four strategies agree with the naive reference join (docs/hints.md J04):
//! broadcast hash, partitioned hash, sort-merge and nested loop, for every
//! join type, NULL-equal keys on and off, with and without a residual
//! filter, Int64, Utf8 and composite (Int64, Utf8) keys, over random small
//! inputs in random batches, at batch sizes 1, 2, 7 and 8192 and 1 or 4
//! threads.
//!
//! The nested loop has no equi-keys: the key equality is given to it as a
//! filter (`l.k = r.k`, NULL when either is NULL, or `IS NOT DISTINCT FROM`
//! when NULL-equal), and for Int64 keys also as the range conditions
//! `l.k <= r.k AND l.k >= r.k`, which its sorted fast path uses.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::{BooleanArray, RecordBatch, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tenon_kernels::{
    CmpOp, HashJoin, HashJoinMode, JoinFilter, JoinInput, JoinKernel, JoinSide, JoinType,
    KernelError, NestedLoopJoin, RangeCondition, SortMergeJoin,
};

use common::reference::RefJoin;
use common::{
    Row, Value, check_batches, column_values, less_than_filter, less_than_rows, multiset_diff,
    split_batches,
};

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 1024,
        ..ProptestConfig::default()
    }
}

/// The key columns of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    Int64,
    Utf8,
    /// `k` Int64 and `k2` Utf8.
    Composite,
}

impl Keys {
    /// Columns of both sides: `k` (the key), `p` (a payload the filter
    /// reads), and for composite keys `k2`.
    fn schema(self) -> SchemaRef {
        let k = match self {
            Keys::Utf8 => DataType::Utf8,
            _ => DataType::Int64,
        };
        let mut fields = vec![
            Field::new("k", k, true),
            Field::new("p", DataType::Int64, true),
        ];
        if self == Keys::Composite {
            fields.push(Field::new("k2", DataType::Utf8, true));
        }
        Arc::new(Schema::new(fields))
    }

    fn on(self) -> Vec<(usize, usize)> {
        match self {
            Keys::Composite => vec![(0, 0), (2, 2)],
            _ => vec![(0, 0)],
        }
    }

    /// A side's rows from raw (key, payload, second key) values.
    fn rows(self, raw: &[Raw]) -> Vec<Row> {
        let int = |x: Option<i8>| x.map_or(Value::Null, |x| Value::Int(x as i64));
        let text = |x: Option<i8>| {
            x.map_or(Value::Null, |x| {
                Value::Str(if x == 0 {
                    String::new()
                } else {
                    format!("key {x}")
                })
            })
        };
        raw.iter()
            .map(|&(k, p, k2)| match self {
                Keys::Int64 => vec![int(k), int(p)],
                Keys::Utf8 => vec![text(k), int(p)],
                Keys::Composite => vec![int(k), int(p), text(k2)],
            })
            .collect()
    }
}

/// One raw row: key, payload, second key (small numbers; `None` is NULL).
type Raw = (Option<i8>, Option<i8>, Option<i8>);

/// Raw rows and batch sizes of one side.
type Side = (Vec<Raw>, Vec<usize>);

fn side() -> impl Strategy<Value = Side> {
    let cell = |lo: i8, hi: i8| prop_oneof![1 => Just(None), 5 => (lo..hi).prop_map(Some)];
    (
        prop::collection::vec((cell(0, 6), cell(-3, 4), cell(0, 2)), 0..24),
        prop::collection::vec(prop_oneof![Just(0usize), 1..6usize, 6..30usize], 0..5),
    )
}

/// The key equality over the key columns `cols` (the same on both sides),
/// in SQL's three-valued logic: a NULL component makes a component
/// comparison NULL (unless `null_equal`, where NULL equals NULL), and the
/// components are ANDed.
fn key_filter(cols: Vec<usize>, null_equal: bool) -> Arc<dyn JoinFilter> {
    let f = move |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
        let lv: Vec<Vec<Value>> = cols.iter().map(|&c| column_values(l.column(c))).collect();
        let rv: Vec<Vec<Value>> = cols.iter().map(|&c| column_values(r.column(c))).collect();
        Ok(li
            .values()
            .iter()
            .zip(ri.values())
            .map(|(&a, &b)| {
                let mut out = Some(true);
                for (lc, rc) in lv.iter().zip(&rv) {
                    let eq = match (&lc[a as usize], &rc[b as usize]) {
                        (Value::Null, Value::Null) if null_equal => Some(true),
                        (Value::Null, _) | (_, Value::Null) if null_equal => Some(false),
                        (Value::Null, _) | (_, Value::Null) => None,
                        (x, y) => Some(x == y),
                    };
                    out = match (out, eq) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    };
                }
                out
            })
            .collect::<BooleanArray>())
    };
    Arc::new(f)
}

/// Both filters at once, with SQL's AND (FALSE wins over NULL).
fn and(a: Arc<dyn JoinFilter>, b: Arc<dyn JoinFilter>) -> Arc<dyn JoinFilter> {
    let f = move |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
        let x = a.evaluate(l, r, li, ri)?;
        let y = b.evaluate(l, r, li, ri)?;
        Ok(x.iter()
            .zip(y.iter())
            .map(|(x, y)| match (x, y) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            })
            .collect::<BooleanArray>())
    };
    Arc::new(f)
}

/// One strategy, configured for a case.
enum Kernel {
    Hash(HashJoin),
    Merge(SortMergeJoin),
    Nested(NestedLoopJoin),
}

impl Kernel {
    fn collect(&self, l: JoinInput, r: JoinInput) -> Result<Vec<RecordBatch>, KernelError> {
        match self {
            Kernel::Hash(j) => j.collect(l, r),
            Kernel::Merge(j) => j.collect(l, r),
            Kernel::Nested(j) => j.collect(l, r),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Exec {
    batch_size: usize,
    threads: usize,
}

/// Every strategy that can run this join, by name.
fn kernels(
    keys: Keys,
    jt: JoinType,
    null_equal: bool,
    filtered: bool,
    e: Exec,
) -> Vec<(String, Kernel)> {
    let on = keys.on();
    let residual = || less_than_filter(1, 1);
    let mut out = Vec::new();
    for (mode, side) in [
        (HashJoinMode::Broadcast, JoinSide::Right),
        (HashJoinMode::Broadcast, JoinSide::Left),
        (HashJoinMode::Partitioned, JoinSide::Right),
        (HashJoinMode::Partitioned, JoinSide::Left),
    ] {
        let mut j = HashJoin::new(jt, on.clone())
            .mode(mode)
            .build_side(side)
            .null_equal(null_equal)
            .batch_size(e.batch_size)
            .threads(e.threads)
            // Several partitions even for these small inputs.
            .partitions(if mode == HashJoinMode::Partitioned {
                4
            } else {
                1
            });
        if filtered {
            j = j.filter(residual());
        }
        out.push((format!("hash {mode:?} build {side:?}"), Kernel::Hash(j)));
    }
    for partitions in [1, 4] {
        let mut j = SortMergeJoin::new(jt, on.clone())
            .null_equal(null_equal)
            .batch_size(e.batch_size)
            .threads(e.threads)
            .partitions(partitions);
        if filtered {
            j = j.filter(residual());
        }
        out.push((
            format!("sort-merge {partitions} partitions"),
            Kernel::Merge(j),
        ));
    }
    // The nested loop's NOT IN treats the whole predicate as the IN
    // comparison (NULL = conflict), which is the hash join's NOT IN only
    // when there is no residual.
    let nested_ok = !(jt == JoinType::LeftAntiNullAware && filtered);
    if nested_ok {
        for side in [JoinSide::Right, JoinSide::Left] {
            let key = key_filter(on.iter().map(|p| p.0).collect(), null_equal);
            let pred = if filtered { and(key, residual()) } else { key };
            let j = NestedLoopJoin::new(jt)
                .filter(pred)
                .build_side(side)
                .batch_size(e.batch_size)
                .threads(e.threads);
            out.push((
                format!("nested loop (filter) build {side:?}"),
                Kernel::Nested(j),
            ));
            if !null_equal && keys == Keys::Int64 {
                let mut j = NestedLoopJoin::new(jt)
                    .ranges(vec![
                        RangeCondition::new(0, CmpOp::Le, 0),
                        RangeCondition::new(0, CmpOp::Ge, 0),
                    ])
                    .build_side(side)
                    .batch_size(e.batch_size)
                    .threads(e.threads);
                if filtered {
                    j = j.filter(residual());
                }
                out.push((
                    format!("nested loop (ranges) build {side:?}"),
                    Kernel::Nested(j),
                ));
            }
        }
    }
    out
}

fn check_case(
    keys: Keys,
    left: &Side,
    right: &Side,
    null_equal: bool,
    filtered: bool,
    e: Exec,
) -> Result<(), TestCaseError> {
    common::quiet_worker_panics();
    let schema = keys.schema();
    let width = schema.fields().len();
    let (lrows, rrows) = (keys.rows(&left.0), keys.rows(&right.0));
    let lin = JoinInput::new(
        schema.clone(),
        split_batches(&schema, &lrows, &left.1, false),
    );
    let rin = JoinInput::new(
        schema.clone(),
        split_batches(&schema, &rrows, &right.1, false),
    );
    let on = keys.on();
    let f = less_than_rows(1, 1);
    for jt in JoinType::ALL {
        if jt == JoinType::LeftAntiNullAware && (null_equal || on.len() > 1) {
            continue;
        }
        let mut oracle = RefJoin {
            null_equal,
            ..RefJoin::new(jt, &on)
        };
        if filtered {
            oracle.filter = Some(&f);
        }
        let expected = oracle.run(&lrows, &rrows, (width, width));
        let out_schema = oracle.schema(&schema, &schema);
        for (name, k) in kernels(keys, jt, null_equal, filtered, e) {
            let desc = format!(
                "{name}, {keys:?} keys, {jt}, null_equal={null_equal}, filtered={filtered}, {e:?}"
            );
            let res = catch_unwind(AssertUnwindSafe(|| k.collect(lin.clone(), rin.clone())))
                .map_err(|p| {
                    TestCaseError::fail(format!(
                        "{desc}: panicked: {} ({})",
                        common::panic_text(p.as_ref()),
                        common::last_worker_panic()
                    ))
                })?
                .map_err(|err| TestCaseError::fail(format!("{desc}: {err}")))?;
            let got = check_batches(&res, &out_schema, e.batch_size)
                .map_err(|m| TestCaseError::fail(format!("{desc}: {m}")))?;
            let diff = multiset_diff(&got, &expected);
            prop_assert!(diff.is_empty(), "{}: {}", desc, diff);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_strategy_equals_the_reference(
        keys in prop_oneof![Just(Keys::Int64), Just(Keys::Utf8), Just(Keys::Composite)],
        left in side(),
        right in side(),
        null_equal in any::<bool>(),
        filtered in any::<bool>(),
        batch_size in prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
        threads in prop_oneof![Just(1usize), Just(4)],
    ) {
        check_case(keys, &left, &right, null_equal, filtered, Exec { batch_size, threads })?;
    }
}

/// The same multiset whatever the thread count and batch size, for each
/// strategy on one input with duplicates and NULLs (J04, and the
/// determinism seed's repeatable batch results).
#[test]
fn results_do_not_depend_on_threads_or_batch_size() {
    let raw: Vec<Raw> = (0..60i8)
        .map(|i| ((i % 7 != 0).then_some(i % 5), Some(i % 4), Some(i % 2)))
        .collect();
    let left = (raw.clone(), vec![7, 11, 0, 13]);
    let right = (raw.into_iter().rev().collect::<Vec<_>>(), vec![5, 0, 9]);
    for keys in [Keys::Int64, Keys::Composite] {
        for batch_size in [1, 2, 7, 8192] {
            for threads in [1, 4] {
                let e = Exec {
                    batch_size,
                    threads,
                };
                check_case(keys, &left, &right, false, true, e).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

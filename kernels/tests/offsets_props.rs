//! Property tests: range conditions with constant offsets
//! (`left[l] <op> right[r] + offset`, an interval join's bounds) give the
//! rows of the row-at-a-time oracle on the sort-merge band search and on
//! the nested loop (sorted fast path and plain loop, both build sides), for
//! every join type, with NULLs, duplicate values, empty sides, values and
//! offsets near the ends of `i64` (where `right + offset` leaves the type's
//! range and must still compare as the number it stands for), batch sizes
//! 1, 2, 7 and 8192 and 1 or 4 threads.
//!
//! The oracle computes `right + offset` in `i128`, so it cannot wrap.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tenon_kernels::{
    CmpOp, JoinInput, JoinKernel, JoinSide, JoinType, KernelError, NestedLoopJoin, RangeCondition,
    SortMergeJoin,
};

use common::reference::{RefJoin, RowFilter};
use common::{Row, Value, check_batches, multiset_diff, split_batches};

/// Cases per property; `PROPTEST_CASES` overrides it.
const CASES: u32 = 48;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    }
}

/// Both sides: `id` (Int64, not null, unique), `k` (the equi key of the
/// sort-merge join, nullable) and `t` (the time, nullable).
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("k", DataType::Int64, true),
        Field::new("t", DataType::Int64, true),
    ]))
}

const K: usize = 1;
const T: usize = 2;

/// The values near the ends of `i64` that the extreme cases mix in.
const EXTREMES: [i64; 8] = [
    i64::MIN,
    i64::MIN + 1,
    i64::MIN + 2,
    -1,
    0,
    i64::MAX - 2,
    i64::MAX - 1,
    i64::MAX,
];

/// One generated input side: `(k, t)` per row and how it is cut.
#[derive(Debug, Clone)]
struct SideData {
    rows: Vec<(Option<i64>, Option<i64>)>,
    sizes: Vec<usize>,
    slice: bool,
}

/// How a kernel is run.
#[derive(Debug, Clone, Copy)]
struct Exec {
    batch_size: usize,
    threads: usize,
}

#[derive(Debug, Clone)]
struct Case {
    left: SideData,
    right: SideData,
    /// The conditions: (left column, op, right column, offset).
    conds: Vec<(usize, CmpOp, usize, i64)>,
    exec: Exec,
}

/// A time value: from a small domain (many ties), or (extreme cases) one
/// of [`EXTREMES`] or a small value.
fn time(extreme: bool) -> BoxedStrategy<i64> {
    if extreme {
        prop_oneof![prop::sample::select(EXTREMES.to_vec()), -3i64..3].boxed()
    } else {
        (0i64..12).boxed()
    }
}

/// An offset: small, or (extreme cases) one that reaches past `i64`.
fn offset(extreme: bool) -> BoxedStrategy<i64> {
    if extreme {
        prop_oneof![
            prop::sample::select(vec![i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, 0]),
            -4i64..4,
        ]
        .boxed()
    } else {
        (-6i64..6).boxed()
    }
}

fn side(extreme: bool, max_rows: usize) -> impl Strategy<Value = SideData> {
    let row = (
        prop::option::weighted(0.85, 0i64..3),
        prop::option::weighted(0.85, time(extreme)),
    );
    (
        prop::collection::vec(row, 0..max_rows),
        prop::bool::weighted(0.1),
        prop::collection::vec(prop_oneof![Just(0usize), 1..8usize, 8..40usize], 0..5),
        any::<bool>(),
    )
        .prop_map(|(rows, empty, sizes, slice)| SideData {
            rows: if empty { Vec::new() } else { rows },
            sizes,
            slice,
        })
}

fn op() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(vec![CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge])
}

/// Random conditions: mostly on `t` (the band), sometimes on the other
/// columns (a residual condition for the sort-merge join).
fn conditions(extreme: bool) -> impl Strategy<Value = Vec<(usize, CmpOp, usize, i64)>> {
    let cond = (
        prop_oneof![4 => Just(T), 1 => Just(K), 1 => Just(0)],
        op(),
        offset(extreme),
    )
        .prop_map(|(c, op, o)| (c, op, c, o));
    prop::collection::vec(cond, 1..4)
}

/// An interval join's band: `l.t >= r.t + lo AND l.t <= r.t + hi`.
fn band(extreme: bool) -> impl Strategy<Value = Vec<(usize, CmpOp, usize, i64)>> {
    (offset(extreme), offset(extreme), op(), op()).prop_map(|(lo, hi, a, b)| {
        let lower = if matches!(a, CmpOp::Gt) { a } else { CmpOp::Ge };
        let upper = if matches!(b, CmpOp::Lt) { b } else { CmpOp::Le };
        vec![(T, lower, T, lo), (T, upper, T, hi)]
    })
}

fn exec() -> impl Strategy<Value = Exec> {
    (
        prop::sample::select(vec![1usize, 2, 7, 8192]),
        prop::sample::select(vec![1usize, 4]),
    )
        .prop_map(|(batch_size, threads)| Exec {
            batch_size,
            threads,
        })
}

fn case(max_rows: usize) -> impl Strategy<Value = Case> {
    any::<bool>().prop_flat_map(move |extreme| {
        (
            side(extreme, max_rows),
            side(extreme, max_rows),
            prop_oneof![conditions(extreme), band(extreme)],
            exec(),
        )
            .prop_map(|(left, right, conds, exec)| Case {
                left,
                right,
                conds,
                exec,
            })
    })
}

/// A case's inputs, as rows and as kernel inputs.
struct Inputs {
    schema: SchemaRef,
    lrows: Vec<Row>,
    rrows: Vec<Row>,
    left: JoinInput,
    right: JoinInput,
}

fn rows_of(d: &SideData, id_base: i64) -> Vec<Row> {
    let cell = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    d.rows
        .iter()
        .enumerate()
        .map(|(i, &(k, t))| vec![Value::Int(id_base + i as i64), cell(k), cell(t)])
        .collect()
}

fn inputs(c: &Case) -> Inputs {
    let schema = schema();
    let lrows = rows_of(&c.left, 0);
    let rrows = rows_of(&c.right, 1000);
    let input = |rows: &[Row], d: &SideData| {
        JoinInput::new(
            schema.clone(),
            split_batches(&schema, rows, &d.sizes, d.slice),
        )
    };
    Inputs {
        left: input(&lrows, &c.left),
        right: input(&rrows, &c.right),
        schema,
        lrows,
        rrows,
    }
}

fn range_conditions(c: &Case) -> Vec<RangeCondition> {
    c.conds
        .iter()
        .map(|&(l, op, r, o)| RangeCondition::new(l, op, r).with_offset(o))
        .collect()
}

/// The oracle's predicate: the AND of `l[c] <op> r[c] + offset` in SQL's
/// three-valued logic, the sum exact.
fn oracle_predicate(conds: &[RangeCondition], l: &[Value], r: &[Value]) -> Option<bool> {
    let mut out = Some(true);
    for c in conds {
        match (&l[c.left], &r[c.right]) {
            (Value::Int(a), Value::Int(b)) => {
                if !c
                    .op
                    .holds(i128::from(*a), i128::from(*b) + i128::from(c.offset))
                {
                    return Some(false);
                }
            }
            _ => out = None,
        }
    }
    out
}

/// The kernel a configuration runs.
enum Kernel {
    Merge,
    Nested { build: JoinSide, fast: bool },
}

/// A configured kernel's `collect`.
type Collect<'a> = &'a dyn Fn(&JoinInput, &JoinInput) -> Result<Vec<RecordBatch>, KernelError>;

fn collect(join: Collect<'_>, inp: &Inputs, ctx: &str) -> Result<Vec<RecordBatch>, String> {
    catch_unwind(AssertUnwindSafe(|| join(&inp.left, &inp.right)))
        .map_err(|p| {
            format!(
                "{ctx}: the kernel panicked: {} (last worker panic: {})",
                common::panic_text(p.as_ref()),
                common::last_worker_panic()
            )
        })?
        .map_err(|e| format!("{ctx}: unexpected error: {e}"))
}

/// Runs one configuration and compares it with the oracle.
fn check_one(inp: &Inputs, c: &Case, jt: JoinType, kernel: &Kernel) -> Result<(), String> {
    let conds = range_conditions(c);
    let pred = |l: &[Value], r: &[Value]| oracle_predicate(&conds, l, r);
    let ex = c.exec;
    let (on, batches, ctx) = match kernel {
        Kernel::Merge => {
            let on = vec![(K, K)];
            let join = SortMergeJoin::new(jt, on.clone())
                .batch_size(ex.batch_size)
                .threads(ex.threads)
                .ranges(conds.clone());
            let ctx = format!("sort-merge {jt} conds={conds:?} {ex:?}");
            let out = collect(&|l, r| join.collect(l.clone(), r.clone()), inp, &ctx)?;
            (on, out, ctx)
        }
        Kernel::Nested { build, fast } => {
            let join = NestedLoopJoin::new(jt)
                .build_side(*build)
                .fast_path(*fast)
                .batch_size(ex.batch_size)
                .threads(ex.threads)
                .ranges(conds.clone());
            let ctx = format!("nested {jt} build={build:?} fast={fast} conds={conds:?} {ex:?}");
            let out = collect(&|l, r| join.collect(l.clone(), r.clone()), inp, &ctx)?;
            (Vec::new(), out, ctx)
        }
    };
    let oracle = RefJoin {
        join_type: jt,
        on: &on,
        null_equal: false,
        filter: Some(&pred as RowFilter<'_>),
        left_projection: None,
        right_projection: None,
    };
    let want_schema = oracle.schema(&inp.schema, &inp.schema);
    let rows =
        check_batches(&batches, &want_schema, ex.batch_size).map_err(|e| format!("{ctx}: {e}"))?;
    let w = inp.schema.fields().len();
    let expected = oracle.run_any(&inp.lrows, &inp.rrows, (w, w));
    let diff = multiset_diff(&rows, &expected);
    if diff.is_empty() {
        Ok(())
    } else {
        Err(format!("{ctx}: {diff}"))
    }
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    common::quiet_worker_panics();
    let inp = inputs(c);
    let mut kernels = vec![Kernel::Merge];
    for build in [JoinSide::Left, JoinSide::Right] {
        for fast in [true, false] {
            kernels.push(Kernel::Nested { build, fast });
        }
    }
    for jt in JoinType::ALL {
        for k in &kernels {
            // The planner gives a NOT IN no range conditions, and the
            // sort-merge join's NOT IN is tested with keys alone.
            if matches!(k, Kernel::Merge) && jt == JoinType::LeftAntiNullAware {
                continue;
            }
            check_one(&inp, c, jt, k).map_err(TestCaseError::fail)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Random offset conditions and bands over up to 24 rows a side.
    #[test]
    fn offset_conditions_match_reference(c in case(24)) {
        check_case(&c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: config().cases / 4, ..config() })]

    /// Up to 150 rows a side: many runs, windows across batches and morsels.
    #[test]
    fn medium_inputs_match_reference(c in case(150)) {
        check_case(&c)?;
    }
}

#[test]
fn a_float_column_takes_no_offset() {
    let schema = Arc::new(Schema::new(vec![Field::new("f", DataType::Float64, true)]));
    let input = JoinInput::new(schema.clone(), Vec::new());
    let cond = RangeCondition::new(0, CmpOp::Lt, 0).with_offset(3);
    let err = NestedLoopJoin::new(JoinType::Inner)
        .ranges(vec![cond])
        .collect(input.clone(), input.clone())
        .unwrap_err()
        .to_string();
    assert!(err.contains("offset") && err.contains("Float64"), "{err}");
    let err = SortMergeJoin::new(JoinType::Inner, vec![(0, 0)])
        .ranges(vec![cond])
        .collect(input.clone(), input)
        .unwrap_err()
        .to_string();
    assert!(err.contains("offset") && err.contains("Float64"), "{err}");
}

#[test]
fn the_offset_is_displayed() {
    let c = RangeCondition::new(2, CmpOp::Ge, 1);
    assert_eq!(c.to_string(), "left[2] >= right[1]");
    assert_eq!(
        c.with_offset(-5_000_000).to_string(),
        "left[2] >= right[1] - 5000000"
    );
    assert_eq!(
        c.with_offset(i64::MIN).to_string(),
        "left[2] >= right[1] - 9223372036854775808"
    );
    assert_eq!(c.with_offset(7).to_string(), "left[2] >= right[1] + 7");
    assert_eq!(RangeCondition::new(2, CmpOp::Ge, 1).offset, 0);
}

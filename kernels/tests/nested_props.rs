//! Property tests: the nested-loop join equals the row-at-a-time oracle
//! (`common::reference::RefJoin::run_any`, every pair a candidate) for every
//! join type, both build sides, the sorted fast path and the plain loop,
//! over random non-equi predicates: range conditions, a filter, both, or
//! none (CROSS JOIN), with NULLs and ties, over small random inputs split
//! into random batches; and its output does not depend on thread count,
//! batch size or the way it is run.
//!
//! The oracle sees one row predicate: the range conditions and the filter's
//! comparisons ANDed in SQL's three-valued logic, which is what the kernel
//! must implement (for `NOT IN`, a pair conflicts unless it is FALSE).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, BooleanArray, RecordBatch, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tenon_kernels::{
    CmpOp, JoinFilter, JoinInput, JoinKernel, JoinSide, JoinType, KernelError, NestedLoopJoin,
    RangeCondition,
};

use common::reference::{RefJoin, RowFilter};
use common::{Row, Value, check_batches, multiset_diff, sorted, split_batches};

/// Cases per property; each runs every join type with both build sides,
/// fast path on and off (36 joins). `PROPTEST_CASES` overrides it.
const CASES: u32 = 40;

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

/// Columns of both sides: `id` (Int32, not null) then three nullable Int64
/// columns the predicates compare.
const VALUE_COLS: [usize; 3] = [1, 2, 3];

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Int64, true),
    ]))
}

/// One comparison `left[l] <op> right[r]` between value columns.
#[derive(Debug, Clone, Copy)]
struct Cmp {
    left: usize,
    op: CmpOp,
    right: usize,
}

fn cmp_strategy() -> impl Strategy<Value = Cmp> {
    (
        prop::sample::select(VALUE_COLS.to_vec()),
        prop::sample::select(vec![CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge]),
        prop::sample::select(VALUE_COLS.to_vec()),
    )
        .prop_map(|(left, op, right)| Cmp { left, op, right })
}

/// Three-valued `left <op> right` over two cells.
fn cmp_rows(c: &Cmp, l: &[Value], r: &[Value]) -> Option<bool> {
    match (&l[c.left], &r[c.right]) {
        (Value::Int(a), Value::Int(b)) => Some(c.op.holds(a, b)),
        (Value::Null, _) | (_, Value::Null) => None,
        (a, b) => panic!("the test compares integers, got {a:?} and {b:?}"),
    }
}

/// Three-valued AND.
fn and3(vals: impl IntoIterator<Item = Option<bool>>) -> Option<bool> {
    let mut out = Some(true);
    for v in vals {
        match v {
            Some(false) => return Some(false),
            None => out = None,
            Some(true) => {}
        }
    }
    out
}

/// The kernel's filter: the AND of `cmps`, NULL when no comparison is FALSE
/// and one is NULL.
fn cmp_filter(cmps: Vec<Cmp>) -> Arc<dyn JoinFilter> {
    let f = move |l: &RecordBatch,
                  r: &RecordBatch,
                  li: &UInt32Array,
                  ri: &UInt32Array|
          -> tenon_kernels::Result<BooleanArray> {
        assert_eq!(li.len(), ri.len(), "the filter got unequal index arrays");
        let cols: Vec<_> = cmps
            .iter()
            .map(|c| {
                (
                    l.column(c.left).as_primitive::<Int64Type>(),
                    c.op,
                    r.column(c.right).as_primitive::<Int64Type>(),
                )
            })
            .collect();
        Ok(li
            .values()
            .iter()
            .zip(ri.values())
            .map(|(&a, &b)| {
                let (a, b) = (a as usize, b as usize);
                and3(cols.iter().map(|(lv, op, rv)| {
                    assert!(a < lv.len() && b < rv.len(), "filter index out of range");
                    if lv.is_null(a) || rv.is_null(b) {
                        None
                    } else {
                        Some(op.holds(lv.value(a), rv.value(b)))
                    }
                }))
            })
            .collect())
    };
    Arc::new(f)
}

/// One generated input.
#[derive(Debug, Clone)]
struct SideData {
    rows: Vec<[Option<i8>; 3]>,
    sizes: Vec<usize>,
    slice: bool,
}

/// How the kernel is run.
#[derive(Debug, Clone, Copy)]
struct Exec {
    batch_size: usize,
    threads: usize,
    via_stream: bool,
}

/// Output columns: all, some, or none (a row count only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Projection {
    All,
    Some,
    Count,
}

/// One generated case.
#[derive(Debug, Clone)]
struct Case {
    left: SideData,
    right: SideData,
    ranges: Vec<Cmp>,
    filter: Option<Vec<Cmp>>,
    projection: Projection,
    exec: Exec,
}

fn side(domain: i8, null_p: f64, max_rows: usize) -> impl Strategy<Value = SideData> {
    // `weighted` takes probabilities strictly between 0 and 1.
    let cell = move || {
        if null_p <= 0.0 {
            (0..domain).prop_map(Some).boxed()
        } else {
            prop::option::weighted(1.0 - null_p, 0..domain).boxed()
        }
    };
    (
        prop::collection::vec([cell(), cell(), cell()], 0..max_rows),
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

fn any_side(max_rows: usize) -> impl Strategy<Value = SideData> {
    (
        prop::sample::select(vec![2i8, 5, 50]),
        prop::sample::select(vec![0.0, 0.15, 0.5]),
    )
        .prop_flat_map(move |(d, n)| side(d, n, max_rows))
}

fn exec() -> impl Strategy<Value = Exec> {
    (
        prop::sample::select(vec![1usize, 2, 7, 8192]),
        prop::sample::select(vec![1usize, 4]),
        any::<bool>(),
    )
        .prop_map(|(batch_size, threads, via_stream)| Exec {
            batch_size,
            threads,
            via_stream,
        })
}

/// The predicate's shape: ranges only, filter only, both, or neither.
fn case(max_rows: usize) -> impl Strategy<Value = Case> {
    let cmps = |n: std::ops::Range<usize>| prop::collection::vec(cmp_strategy(), n);
    let predicate = prop_oneof![
        3 => (cmps(1..4), Just(None)),
        2 => (Just(Vec::new()), cmps(1..3).prop_map(Some)),
        3 => (cmps(1..3), cmps(1..3).prop_map(Some)),
        1 => (Just(Vec::new()), Just(None)),
    ];
    (
        any_side(max_rows),
        any_side(max_rows),
        predicate,
        prop::sample::select(vec![
            Projection::All,
            Projection::All,
            Projection::Some,
            Projection::Count,
        ]),
        exec(),
    )
        .prop_map(|(left, right, (ranges, filter), projection, exec)| Case {
            left,
            right,
            ranges,
            filter,
            projection,
            exec,
        })
}

/// A band `left.a BETWEEN right.b AND right.c` (as two range conditions),
/// possibly with a filter: both ends bound the window when the left side is
/// built.
fn band_case() -> impl Strategy<Value = Case> {
    (case(30), prop::option::of(cmp_strategy())).prop_map(|(mut c, f)| {
        c.ranges = vec![
            Cmp {
                left: 1,
                op: CmpOp::Ge,
                right: 2,
            },
            Cmp {
                left: 1,
                op: CmpOp::Le,
                right: 3,
            },
        ];
        c.filter = f.map(|f| vec![f]);
        c
    })
}

/// A case's inputs, as rows and as kernel inputs.
struct Inputs {
    schema: SchemaRef,
    lrows: Vec<Row>,
    rrows: Vec<Row>,
    left: JoinInput,
    right: JoinInput,
    projection: (Option<Vec<usize>>, Option<Vec<usize>>),
}

fn rows_of(data: &SideData, id_base: i64) -> Vec<Row> {
    data.rows
        .iter()
        .enumerate()
        .map(|(i, cells)| {
            let mut row = vec![Value::Int(id_base + i as i64)];
            row.extend(
                cells
                    .iter()
                    .map(|c| c.map_or(Value::Null, |v| Value::Int(v as i64))),
            );
            row
        })
        .collect()
}

fn inputs(c: &Case) -> Inputs {
    let schema = schema();
    let lrows = rows_of(&c.left, 0);
    let rrows = rows_of(&c.right, 1000);
    let left = JoinInput::new(
        schema.clone(),
        split_batches(&schema, &lrows, &c.left.sizes, c.left.slice),
    );
    let right = JoinInput::new(
        schema.clone(),
        split_batches(&schema, &rrows, &c.right.sizes, c.right.slice),
    );
    let projection = match c.projection {
        Projection::All => (None, None),
        Projection::Some => (Some(vec![3, 0]), Some(vec![0, 1])),
        Projection::Count => (Some(vec![]), Some(vec![])),
    };
    Inputs {
        schema,
        lrows,
        rrows,
        left,
        right,
        projection,
    }
}

/// Runs `join` with `collect`, or with `execute` reading the whole stream.
fn run_kernel(
    join: &NestedLoopJoin,
    inp: &Inputs,
    via_stream: bool,
) -> Result<Vec<RecordBatch>, KernelError> {
    if via_stream {
        let stream = join.execute(inp.left.clone(), inp.right.clone())?;
        let schema = stream.schema().clone();
        let batches = stream.collect::<Result<Vec<_>, _>>()?;
        for b in &batches {
            assert_eq!(
                b.schema(),
                schema,
                "a batch differs from the stream's schema"
            );
        }
        Ok(batches)
    } else {
        join.collect(inp.left.clone(), inp.right.clone())
    }
}

/// Runs one configuration of the kernel and compares it with the oracle.
fn check_one(
    inp: &Inputs,
    c: &Case,
    jt: JoinType,
    build: JoinSide,
    fast: bool,
    ex: Exec,
) -> Result<Vec<Row>, String> {
    let ranges = c.ranges.clone();
    let filter = c.filter.clone();
    let row_pred = move |l: &[Value], r: &[Value]| -> Option<bool> {
        and3(
            ranges
                .iter()
                .chain(filter.iter().flatten())
                .map(|cmp| cmp_rows(cmp, l, r)),
        )
    };
    let has_pred = !c.ranges.is_empty() || c.filter.is_some();
    let oracle = RefJoin {
        join_type: jt,
        on: &[],
        null_equal: false,
        filter: has_pred.then_some(&row_pred as RowFilter<'_>),
        left_projection: inp.projection.0.as_deref(),
        right_projection: inp.projection.1.as_deref(),
    };
    let mut join = NestedLoopJoin::new(jt)
        .build_side(build)
        .fast_path(fast)
        .batch_size(ex.batch_size)
        .threads(ex.threads)
        .projection(inp.projection.0.clone(), inp.projection.1.clone())
        .ranges(
            c.ranges
                .iter()
                .map(|r| RangeCondition::new(r.left, r.op, r.right))
                .collect(),
        );
    if let Some(f) = &c.filter {
        join = join.filter(cmp_filter(f.clone()));
    }
    let ctx = format!(
        "{jt} build={build:?} fast={fast} ranges={:?} filter={:?} projection={:?} {ex:?}",
        c.ranges, c.filter, c.projection
    );
    let got =
        catch_unwind(AssertUnwindSafe(|| run_kernel(&join, inp, ex.via_stream))).map_err(|p| {
            format!(
                "{ctx}: the kernel panicked: {} (last worker panic: {})",
                common::panic_text(p.as_ref()),
                common::last_worker_panic()
            )
        })?;
    let batches = got.map_err(|e| format!("{ctx}: unexpected error: {e}"))?;
    let want_schema = oracle.schema(&inp.schema, &inp.schema);
    let declared = join
        .output_schema(&inp.schema, &inp.schema)
        .map_err(|e| format!("{ctx}: output_schema failed: {e}"))?;
    if common::field_shapes(&declared) != want_schema {
        return Err(format!(
            "{ctx}: output_schema is {declared:?}, expected {want_schema:?}"
        ));
    }
    let rows =
        check_batches(&batches, &want_schema, ex.batch_size).map_err(|e| format!("{ctx}: {e}"))?;
    let w = inp.schema.fields().len();
    let expected = oracle.run_any(&inp.lrows, &inp.rrows, (w, w));
    let diff = multiset_diff(&rows, &expected);
    if !diff.is_empty() {
        return Err(format!("{ctx}: {diff}"));
    }
    Ok(rows)
}

const SIDES: [JoinSide; 2] = [JoinSide::Left, JoinSide::Right];

/// Every join type, build side and path of one case against the oracle.
fn check_case(c: &Case) -> Result<(), TestCaseError> {
    common::quiet_worker_panics();
    let inp = inputs(c);
    for jt in JoinType::ALL {
        for build in SIDES {
            for fast in [true, false] {
                check_one(&inp, c, jt, build, fast, c.exec).map_err(TestCaseError::fail)?;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// Random predicates (ranges, filter, both, none) over up to 24 rows a
    /// side, values from small domains (ties) and NULLs.
    #[test]
    fn random_predicates_match_reference(c in case(24)) {
        check_case(&c)?;
    }

    /// Band conditions: two range conditions on one left column, plus an
    /// optional filter.
    #[test]
    fn band_conditions_match_reference(c in band_case()) {
        check_case(&c)?;
    }

    /// The multiset of output rows is the same whatever the thread count,
    /// batch size, path and way of running, and equals the oracle's.
    #[test]
    fn output_does_not_depend_on_threads_batch_size_or_path(
        c in case(24),
        build in prop::sample::select(SIDES.to_vec()),
    ) {
        common::quiet_worker_panics();
        let inp = inputs(&c);
        let execs = [
            (true, Exec { batch_size: 8192, threads: 1, via_stream: false }),
            (true, Exec { batch_size: 1, threads: 4, via_stream: false }),
            (false, Exec { batch_size: 7, threads: 4, via_stream: true }),
            (true, Exec { batch_size: 2, threads: 1, via_stream: true }),
            (false, Exec { batch_size: 8192, threads: 4, via_stream: false }),
        ];
        for jt in JoinType::ALL {
            let mut first: Option<(Exec, Vec<Row>)> = None;
            for (fast, ex) in execs {
                let rows = check_one(&inp, &c, jt, build, fast, ex).map_err(TestCaseError::fail)?;
                let rows = sorted(rows);
                match &first {
                    None => first = Some((ex, rows)),
                    Some((ex0, rows0)) => prop_assert!(
                        *rows0 == rows,
                        "{jt}: {ex0:?} and {ex:?} differ: {}",
                        multiset_diff(&rows, rows0)
                    ),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: config().cases / 4, ..config() })]

    /// Up to 120 rows a side: many build blocks, windows split across
    /// candidate blocks, several morsels per thread.
    #[test]
    fn medium_inputs_match_reference(c in case(120)) {
        check_case(&c)?;
    }
}

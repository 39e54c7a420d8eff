//! Property tests: the hash join equals the row-at-a-time oracle
//! (`common::reference`) for every join type, both modes, both build sides,
//! SQL and null-equal keys, with and without a residual filter, over small
//! random inputs split into random batches; and its output does not depend
//! on thread count, batch size or partition count.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tenon_kernels::{
    HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType, KernelError,
};

use common::reference::{RefJoin, RowFilter};
use common::{
    Row, Value, check_batches, less_than_filter, less_than_rows, multiset_diff, run_kernel, sorted,
    split_batches,
};

/// Cases per property; each case runs every join type in both modes with
/// both build sides (36 joins). `PROPTEST_CASES` overrides it for a deeper
/// run.
const CASES: u32 = 48;

fn config() -> ProptestConfig {
    config_with(CASES)
}

fn config_with(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    }
}

/// The key columns of a generated case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Int32,
    Int64,
    /// Int64 keys `-2, -1, 0, 1, ...`: a dense range, which the kernel
    /// indexes directly (unique build keys) or filters with key bits.
    DenseInt,
    Utf8,
    /// (Int64, Utf8).
    Composite,
    /// Float64 keys from `FLOATS`: `-0.0` with `0.0`, NaNs of both signs,
    /// infinities (`-0.0 = 0.0`, NaN = NaN).
    Float64,
}

/// One generated row: key (first column), second key column (composite
/// keys only), payload; small numbers mapped to values by the key kind.
type RawRow = (Option<u8>, Option<u8>, Option<i8>);

/// One generated input.
#[derive(Debug, Clone)]
struct SideData {
    rows: Vec<RawRow>,
    /// Batch sizes (see `common::split_batches`).
    sizes: Vec<usize>,
    /// Batches are slices of one batch (non-zero offsets).
    slice: bool,
}

/// How the kernel is run.
#[derive(Debug, Clone, Copy)]
struct Exec {
    batch_size: usize,
    threads: usize,
    partitions: Option<usize>,
    via_stream: bool,
}

/// One generated case.
#[derive(Debug, Clone)]
struct Case {
    kind: KeyKind,
    left: SideData,
    right: SideData,
    null_equal: bool,
    filter: bool,
    project: bool,
    exec: Exec,
}

const STRINGS: [&str; 4] = ["", "a", "ab", "a key longer than twelve bytes"];

/// The float keys: equal pairs with different bits (`0.0`/`-0.0`, NaN and
/// a negative NaN), the infinities, and ordinary values.
const FLOATS: [f64; 8] = [
    0.0,
    -0.0,
    f64::NAN,
    -f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1.5,
    -1.5,
];

fn float_key(v: u8) -> Value {
    let f = FLOATS.get(v as usize).copied().unwrap_or(v as f64 * 10.0);
    Value::F64(f.to_bits())
}

fn int32_key(v: u8) -> Value {
    Value::Int((v as i64 - 2) * 1_000_003)
}

fn int64_key(v: u8) -> Value {
    Value::Int((v as i64 - 2) * 0x1_0000_0001)
}

fn dense_key(v: u8) -> Value {
    Value::Int(v as i64 - 2)
}

fn str_key(v: u8) -> Value {
    match STRINGS.get(v as usize) {
        Some(s) => Value::Str(s.to_string()),
        None => Value::Str(format!("k{v}")),
    }
}

fn opt(v: Option<u8>, f: fn(u8) -> Value) -> Value {
    v.map_or(Value::Null, f)
}

/// Schemas, key pairs, and the payload column of each side.
struct Layout {
    left: SchemaRef,
    right: SchemaRef,
    on: Vec<(usize, usize)>,
    left_p: usize,
    right_p: usize,
    left_id: usize,
    right_id: usize,
}

fn layout(kind: KeyKind) -> Layout {
    let key_type = match kind {
        KeyKind::Int32 => DataType::Int32,
        KeyKind::Int64 | KeyKind::DenseInt | KeyKind::Composite => DataType::Int64,
        KeyKind::Utf8 => DataType::Utf8,
        KeyKind::Float64 => DataType::Float64,
    };
    let id = Field::new("id", DataType::Int32, false);
    let k = Field::new("k", key_type, true);
    let p = Field::new("p", DataType::Int64, true);
    let k2 = Field::new("k2", DataType::Utf8, true);
    if kind == KeyKind::Composite {
        Layout {
            left: Arc::new(Schema::new(vec![
                id.clone(),
                k.clone(),
                p.clone(),
                k2.clone(),
            ])),
            right: Arc::new(Schema::new(vec![k2, p, id, k])),
            on: vec![(1, 3), (3, 0)],
            left_p: 2,
            right_p: 1,
            left_id: 0,
            right_id: 2,
        }
    } else {
        Layout {
            left: Arc::new(Schema::new(vec![id.clone(), k.clone(), p.clone()])),
            right: Arc::new(Schema::new(vec![p, k, id])),
            on: vec![(1, 1)],
            left_p: 2,
            right_p: 0,
            left_id: 0,
            right_id: 2,
        }
    }
}

/// The rows of one side in its schema's column order; ids start at
/// `id_base`.
fn side_rows(kind: KeyKind, left: bool, raw: &[RawRow], id_base: i64) -> Vec<Row> {
    raw.iter()
        .enumerate()
        .map(|(i, &(a, b, p))| {
            let id = Value::Int(id_base + i as i64);
            let k = match kind {
                KeyKind::Int32 => opt(a, int32_key),
                KeyKind::Int64 | KeyKind::Composite => opt(a, int64_key),
                KeyKind::DenseInt => opt(a, dense_key),
                KeyKind::Utf8 => opt(a, str_key),
                KeyKind::Float64 => opt(a, float_key),
            };
            let k2 = opt(b, str_key);
            let p = p.map_or(Value::Null, |p| Value::Int(p as i64));
            match (kind == KeyKind::Composite, left) {
                (false, true) => vec![id, k, p],
                (false, false) => vec![p, k, id],
                (true, true) => vec![id, k, p, k2],
                (true, false) => vec![k2, p, id, k],
            }
        })
        .collect()
}

/// A side: fewer than `max_rows` rows (sometimes none) with keys from
/// `0..domain`, NULL with probability `null_p` per key column.
fn side(domain: u8, null_p: f64, max_rows: usize) -> impl Strategy<Value = SideData> {
    let row = (
        maybe_null(null_p, 0..domain),
        maybe_null(null_p, 0..domain.min(3)),
        maybe_null(0.2, -3i8..4),
    );
    (
        prop::collection::vec(row, 0..max_rows),
        prop::bool::weighted(0.1),
        prop::collection::vec(prop_oneof![Just(0usize), 1..12usize, 12..100usize], 0..6),
        any::<bool>(),
    )
        .prop_map(|(rows, empty, sizes, slice)| SideData {
            rows: if empty { Vec::new() } else { rows },
            sizes,
            slice,
        })
}

/// `None` with probability `null_p` (which may be 0 or 1), else a value.
fn maybe_null<T: std::fmt::Debug + Clone + 'static>(
    null_p: f64,
    values: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    if null_p <= 0.0 {
        values.prop_map(Some).boxed()
    } else if null_p >= 1.0 {
        Just(None).boxed()
    } else {
        prop::option::weighted(1.0 - null_p, values).boxed()
    }
}

fn null_prob() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(0.15), Just(0.5), Just(1.0)]
}

fn any_side(domains: Vec<u8>, max_rows: usize) -> impl Strategy<Value = SideData> {
    (prop::sample::select(domains), null_prob()).prop_flat_map(move |(d, n)| side(d, n, max_rows))
}

fn exec() -> impl Strategy<Value = Exec> {
    (
        prop::sample::select(vec![1usize, 2, 7, 8192]),
        prop::sample::select(vec![1usize, 4]),
        prop::sample::select(vec![None, Some(1usize), Some(2), Some(8)]),
        any::<bool>(),
    )
        .prop_map(|(batch_size, threads, partitions, via_stream)| Exec {
            batch_size,
            threads,
            partitions,
            via_stream,
        })
}

/// Small cases: up to 40 rows a side.
fn case(kind: impl Strategy<Value = KeyKind>, domains: Vec<u8>) -> impl Strategy<Value = Case> {
    sized_case(kind, domains, 40)
}

fn sized_case(
    kind: impl Strategy<Value = KeyKind>,
    domains: Vec<u8>,
    max_rows: usize,
) -> impl Strategy<Value = Case> {
    (
        kind,
        any_side(domains.clone(), max_rows),
        any_side(domains, max_rows),
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.2),
        exec(),
    )
        .prop_map(
            |(kind, left, right, null_equal, filter, project, exec)| Case {
                kind,
                left,
                right,
                null_equal,
                filter,
                project,
                exec,
            },
        )
}

fn any_kind() -> impl Strategy<Value = KeyKind> {
    prop::sample::select(vec![
        KeyKind::Int32,
        KeyKind::Int64,
        KeyKind::DenseInt,
        KeyKind::Utf8,
        KeyKind::Composite,
        KeyKind::Float64,
    ])
}

const MODES: [HashJoinMode; 2] = [HashJoinMode::Broadcast, HashJoinMode::Partitioned];
const SIDES: [JoinSide; 2] = [JoinSide::Left, JoinSide::Right];

/// A case's inputs, as rows and as kernel inputs.
struct Inputs {
    lay: Layout,
    lrows: Vec<Row>,
    rrows: Vec<Row>,
    left: JoinInput,
    right: JoinInput,
    left_projection: Option<Vec<usize>>,
    right_projection: Option<Vec<usize>>,
}

fn inputs(c: &Case) -> Inputs {
    let lay = layout(c.kind);
    let lrows = side_rows(c.kind, true, &c.left.rows, 0);
    let rrows = side_rows(c.kind, false, &c.right.rows, 1000);
    let left = JoinInput::new(
        lay.left.clone(),
        split_batches(&lay.left, &lrows, &c.left.sizes, c.left.slice),
    );
    let right = JoinInput::new(
        lay.right.clone(),
        split_batches(&lay.right, &rrows, &c.right.sizes, c.right.slice),
    );
    assert_eq!(common::all_rows(left.batches()), lrows, "round trip");
    assert_eq!(common::all_rows(right.batches()), rrows, "round trip");
    let (left_projection, right_projection) = if c.project {
        (
            Some(vec![lay.left_p, lay.left_id]),
            Some(vec![lay.right_id, lay.right_p]),
        )
    } else {
        (None, None)
    };
    Inputs {
        lay,
        lrows,
        rrows,
        left,
        right,
        left_projection,
        right_projection,
    }
}

/// Runs one configuration of the kernel and compares it with the oracle.
/// Returns the kernel's rows (`None` when the join is rightly rejected).
fn check_one(
    inp: &Inputs,
    c: &Case,
    jt: JoinType,
    mode: HashJoinMode,
    build: JoinSide,
    ex: Exec,
) -> Result<Option<Vec<Row>>, String> {
    let lay = &inp.lay;
    let ref_filter = less_than_rows(lay.left_p, lay.right_p);
    let oracle = RefJoin {
        join_type: jt,
        on: &lay.on,
        null_equal: c.null_equal,
        filter: c.filter.then_some(&ref_filter as RowFilter<'_>),
        left_projection: inp.left_projection.as_deref(),
        right_projection: inp.right_projection.as_deref(),
    };
    let mut join = HashJoin::new(jt, lay.on.clone())
        .mode(mode)
        .build_side(build)
        .null_equal(c.null_equal)
        .batch_size(ex.batch_size)
        .threads(ex.threads)
        .projection(inp.left_projection.clone(), inp.right_projection.clone());
    if let Some(p) = ex.partitions {
        join = join.partitions(p);
    }
    if c.filter {
        join = join.filter(less_than_filter(lay.left_p, lay.right_p));
    }
    let ctx = format!(
        "{jt} mode={mode:?} build={build:?} key={:?} null_equal={} filter={} \
         projection={} {ex:?}",
        c.kind, c.null_equal, c.filter, c.project
    );
    let got = catch_unwind(AssertUnwindSafe(|| {
        run_kernel(&join, &inp.left, &inp.right, ex.via_stream)
    }))
    .map_err(|p| {
        format!(
            "{ctx}: the kernel panicked: {} (last worker panic: {})",
            common::panic_text(p.as_ref()),
            common::last_worker_panic()
        )
    })?;
    if !oracle.is_valid() {
        return match got {
            Err(KernelError::InvalidOptions(_)) => Ok(None),
            Err(e) => Err(format!("{ctx}: expected InvalidOptions, got the error {e}")),
            Ok(b) => Err(format!(
                "{ctx}: expected InvalidOptions, got {} batches",
                b.len()
            )),
        };
    }
    let batches = got.map_err(|e| format!("{ctx}: unexpected error: {e}"))?;
    let want_schema = oracle.schema(&lay.left, &lay.right);
    let declared = join
        .output_schema(&lay.left, &lay.right)
        .map_err(|e| format!("{ctx}: output_schema failed: {e}"))?;
    if common::field_shapes(&declared) != want_schema {
        return Err(format!(
            "{ctx}: output_schema is {declared:?}, expected {want_schema:?}"
        ));
    }
    let rows =
        check_batches(&batches, &want_schema, ex.batch_size).map_err(|e| format!("{ctx}: {e}"))?;
    let lw = lay.left.fields().len();
    let rw = lay.right.fields().len();
    let expected = oracle.run(&inp.lrows, &inp.rrows, (lw, rw));
    let diff = multiset_diff(&rows, &expected);
    if !diff.is_empty() {
        return Err(format!("{ctx}: {diff}"));
    }
    Ok(Some(rows))
}

/// Every join type, mode and build side of one case against the oracle.
fn check_case(c: &Case) -> Result<(), TestCaseError> {
    common::quiet_worker_panics();
    let inp = inputs(c);
    for jt in JoinType::ALL {
        for mode in MODES {
            for build in SIDES {
                check_one(&inp, c, jt, mode, build, c.exec).map_err(TestCaseError::fail)?;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn int32_keys_match_reference(c in case(Just(KeyKind::Int32), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    #[test]
    fn int64_keys_match_reference(c in case(Just(KeyKind::Int64), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    /// Small integer keys: unique build sides take the direct index,
    /// others the hash table behind exact key bits.
    #[test]
    fn dense_int_keys_match_reference(c in case(Just(KeyKind::DenseInt), vec![4, 16, 64])) {
        check_case(&c)?;
    }

    #[test]
    fn utf8_keys_match_reference(c in case(Just(KeyKind::Utf8), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    /// `-0.0` joins `0.0`, a NaN of either sign joins every NaN.
    #[test]
    fn float64_keys_match_reference(c in case(Just(KeyKind::Float64), vec![2, 4, 8])) {
        check_case(&c)?;
    }

    #[test]
    fn composite_keys_match_reference(c in case(Just(KeyKind::Composite), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    /// Keys from a domain of one or two values: long groups of equal keys on
    /// both sides, and cross products of them.
    #[test]
    fn heavy_duplicates_match_reference(c in case(any_kind(), vec![1, 2])) {
        check_case(&c)?;
    }

    /// The multiset of output rows is the same whatever the thread count,
    /// batch size, partition count and way of running (collect or stream),
    /// and equals the oracle's.
    #[test]
    fn output_does_not_depend_on_threads_batch_size_or_partitions(
        c in case(any_kind(), vec![2, 4]),
        mode in prop::sample::select(MODES.to_vec()),
        build in prop::sample::select(SIDES.to_vec()),
    ) {
        common::quiet_worker_panics();
        let inp = inputs(&c);
        let execs = [
            Exec { batch_size: 8192, threads: 1, partitions: None, via_stream: false },
            Exec { batch_size: 1, threads: 4, partitions: Some(8), via_stream: false },
            Exec { batch_size: 7, threads: 4, partitions: Some(2), via_stream: true },
            Exec { batch_size: 2, threads: 1, partitions: Some(64), via_stream: true },
            Exec { batch_size: 8192, threads: 4, partitions: Some(1), via_stream: false },
        ];
        for jt in JoinType::ALL {
            let mut first: Option<(Exec, Vec<Row>)> = None;
            for ex in execs {
                let rows = check_one(&inp, &c, jt, mode, build, ex).map_err(TestCaseError::fail)?;
                let Some(rows) = rows else { continue };
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

    /// The two ways the oracle finds matches (every pair; a key index) agree,
    /// so the indexed one can check the large unit tests.
    #[test]
    fn reference_index_agrees_with_nested_loops(c in case(any_kind(), vec![2, 4, 16])) {
        let inp = inputs(&c);
        let lay = &inp.lay;
        let f = less_than_rows(lay.left_p, lay.right_p);
        for jt in JoinType::ALL {
            let oracle = RefJoin {
                join_type: jt,
                on: &lay.on,
                null_equal: c.null_equal,
                filter: c.filter.then_some(&f as RowFilter<'_>),
                left_projection: None,
                right_projection: None,
            };
            if !oracle.is_valid() {
                continue;
            }
            let w = (lay.left.fields().len(), lay.right.fields().len());
            let a = sorted(oracle.run(&inp.lrows, &inp.rrows, w));
            let b = sorted(oracle.run_indexed(&inp.lrows, &inp.rrows, w));
            prop_assert!(a == b, "{jt}: {}", multiset_diff(&b, &a));
        }
    }
}

proptest! {
    #![proptest_config(config_with(CASES / 3))]

    /// Up to 160 rows a side, keys from up to 64 values: longer probe runs
    /// (several lookup blocks), more partitions with rows in them.
    #[test]
    fn medium_inputs_match_reference(c in sized_case(any_kind(), vec![8, 64], 160)) {
        check_case(&c)?;
    }
}

//! Property tests: the sort-merge join equals the row-at-a-time oracle
//! (`common::reference`) for every join type, SQL and null-equal keys,
//! Int32/Int64/Utf8/composite keys, with and without a residual filter,
//! presorted inputs or not, over small random inputs split into random
//! batches; its output does not depend on thread count, batch size or
//! partition count; and a false presorted declaration is an error.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tenon_kernels::{
    CmpOp, JoinInput, JoinKernel, JoinType, KernelError, RangeCondition, SortMergeJoin,
};

use common::reference::{RefJoin, RowFilter};
use common::{
    Row, Value, check_batches, less_than_filter, less_than_rows, multiset_diff, sorted,
    split_batches,
};

/// Cases per property; each case runs every join type. `PROPTEST_CASES`
/// overrides it.
const CASES: u32 = 64;

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
    Utf8,
    /// (Int64, Utf8).
    Composite,
}

/// One generated row: key, second key column (composite only), payload.
type RawRow = (Option<u8>, Option<u8>, Option<i8>);

#[derive(Debug, Clone)]
struct SideData {
    rows: Vec<RawRow>,
    sizes: Vec<usize>,
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

#[derive(Debug, Clone)]
struct Case {
    kind: KeyKind,
    left: SideData,
    right: SideData,
    null_equal: bool,
    filter: bool,
    project: bool,
    /// Sort each side and declare it presorted.
    presorted: (bool, bool),
    /// Single keys: put NULL keys last rather than first when sorting.
    nulls_last: bool,
    /// Range conditions: on the id columns (true) or the payloads (false).
    ranges: Vec<(bool, CmpOp)>,
    exec: Exec,
}

const STRINGS: [&str; 4] = ["", "a", "ab", "a key longer than twelve bytes"];

fn key_value(kind: KeyKind, v: Option<u8>) -> Value {
    let Some(v) = v else { return Value::Null };
    match kind {
        // Negative and positive values, so SQL order differs from bit order.
        KeyKind::Int32 => Value::Int((v as i64 - 2) * 1_000_003),
        KeyKind::Int64 | KeyKind::Composite => Value::Int((v as i64 - 2) * 0x1_0000_0001),
        KeyKind::Utf8 => str_key(v),
    }
}

fn str_key(v: u8) -> Value {
    match STRINGS.get(v as usize) {
        Some(s) => Value::Str(s.to_string()),
        None => Value::Str(format!("k{v}")),
    }
}

/// Schemas, key pairs, payload and id columns.
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
        KeyKind::Int64 | KeyKind::Composite => DataType::Int64,
        KeyKind::Utf8 => DataType::Utf8,
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

fn side_rows(kind: KeyKind, left: bool, raw: &[RawRow], id_base: i64) -> Vec<Row> {
    raw.iter()
        .enumerate()
        .map(|(i, &(a, b, p))| {
            let id = Value::Int(id_base + i as i64);
            let k = key_value(kind, a);
            let k2 = b.map_or(Value::Null, str_key);
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

/// The key of a row as the sort order sees it: the key columns in `on`
/// order; a NULL single key first, or last when `nulls_last`.
fn sort_key(row: &Row, cols: &[usize], nulls_last: bool) -> (bool, Vec<Value>) {
    let key: Vec<Value> = cols.iter().map(|&c| row[c].clone()).collect();
    let null_single = cols.len() == 1 && key[0] == Value::Null;
    (nulls_last && null_single, key)
}

/// Whether the non-NULL keys of `rows` are ascending (the declaration the
/// kernel checks; composite keys with a NULL column count as NULL unless
/// `null_equal`).
fn keys_ascending(rows: &[Row], cols: &[usize], null_equal: bool) -> bool {
    let keys: Vec<Vec<Value>> = rows
        .iter()
        .map(|r| cols.iter().map(|&c| r[c].clone()).collect::<Vec<_>>())
        .filter(|k| {
            let any_null = k.contains(&Value::Null);
            !any_null || (null_equal && cols.len() > 1)
        })
        .collect();
    keys.windows(2).all(|w| w[0] <= w[1])
}

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

fn any_side(domains: Vec<u8>, max_rows: usize) -> impl Strategy<Value = SideData> {
    (
        prop::sample::select(domains),
        prop_oneof![Just(0.0), Just(0.15), Just(0.5), Just(1.0)],
    )
        .prop_flat_map(move |(d, n)| side(d, n, max_rows))
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

fn case(kind: impl Strategy<Value = KeyKind>, domains: Vec<u8>) -> impl Strategy<Value = Case> {
    (
        kind,
        any_side(domains.clone(), 40),
        any_side(domains, 40),
        (any::<bool>(), any::<bool>(), prop::bool::weighted(0.2)),
        (any::<bool>(), any::<bool>(), any::<bool>()),
        exec(),
    )
        .prop_map(
            |(kind, left, right, (null_equal, filter, project), (pl, pr, nulls_last), exec)| Case {
                kind,
                left,
                right,
                null_equal,
                filter,
                project,
                presorted: (pl, pr),
                nulls_last,
                ranges: Vec::new(),
                exec,
            },
        )
}

fn any_kind() -> impl Strategy<Value = KeyKind> {
    prop::sample::select(vec![
        KeyKind::Int32,
        KeyKind::Int64,
        KeyKind::Utf8,
        KeyKind::Composite,
    ])
}

struct Inputs {
    lay: Layout,
    lrows: Vec<Row>,
    rrows: Vec<Row>,
    left: JoinInput,
    right: JoinInput,
    left_projection: Option<Vec<usize>>,
    right_projection: Option<Vec<usize>>,
}

/// The case's inputs; a side declared presorted is sorted on its keys
/// first, unless `sort` is false (for false declarations).
fn inputs(c: &Case, sort: bool) -> Inputs {
    let lay = layout(c.kind);
    let mut lrows = side_rows(c.kind, true, &c.left.rows, 0);
    let mut rrows = side_rows(c.kind, false, &c.right.rows, 5);
    let lcols: Vec<usize> = lay.on.iter().map(|p| p.0).collect();
    let rcols: Vec<usize> = lay.on.iter().map(|p| p.1).collect();
    if sort && c.presorted.0 {
        lrows.sort_by_key(|r| sort_key(r, &lcols, c.nulls_last));
    }
    if sort && c.presorted.1 {
        rrows.sort_by_key(|r| sort_key(r, &rcols, c.nulls_last));
    }
    let make = |schema: &SchemaRef, rows: &[Row], d: &SideData| -> Vec<RecordBatch> {
        split_batches(schema, rows, &d.sizes, d.slice)
    };
    let left = JoinInput::new(lay.left.clone(), make(&lay.left, &lrows, &c.left));
    let right = JoinInput::new(lay.right.clone(), make(&lay.right, &rrows, &c.right));
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

/// The range conditions of a case: `left.id op right.id` or
/// `left.p op right.p`.
fn range_conditions(lay: &Layout, ranges: &[(bool, CmpOp)]) -> Vec<RangeCondition> {
    ranges
        .iter()
        .map(|&(ids, op)| {
            if ids {
                RangeCondition::new(lay.left_id, op, lay.right_id)
            } else {
                RangeCondition::new(lay.left_p, op, lay.right_p)
            }
        })
        .collect()
}

/// Runs `join` with `collect`, or with `execute` reading the whole stream.
fn run_merge(
    join: &SortMergeJoin,
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

/// Runs one configuration and compares it with the oracle. Returns the
/// kernel's rows (`None` when the join is rightly rejected).
fn check_one(
    inp: &Inputs,
    c: &Case,
    jt: JoinType,
    ex: Exec,
    presorted: (bool, bool),
) -> Result<Option<Vec<Row>>, String> {
    let lay = &inp.lay;
    let less = less_than_rows(lay.left_p, lay.right_p);
    let conds = range_conditions(lay, &c.ranges);
    let ref_filter = |l: &[Value], r: &[Value]| -> Option<bool> {
        for rc in &conds {
            match (&l[rc.left], &r[rc.right]) {
                (Value::Int(a), Value::Int(b)) if rc.op.holds(a, b) => {}
                (Value::Int(_), Value::Int(_)) => return Some(false),
                _ => return None,
            }
        }
        if c.filter { less(l, r) } else { Some(true) }
    };
    let oracle = RefJoin {
        join_type: jt,
        on: &lay.on,
        null_equal: c.null_equal,
        filter: (c.filter || !conds.is_empty()).then_some(&ref_filter as RowFilter<'_>),
        left_projection: inp.left_projection.as_deref(),
        right_projection: inp.right_projection.as_deref(),
    };
    let mut join = SortMergeJoin::new(jt, lay.on.clone())
        .null_equal(c.null_equal)
        .presorted(presorted.0, presorted.1)
        .batch_size(ex.batch_size)
        .threads(ex.threads)
        .projection(inp.left_projection.clone(), inp.right_projection.clone());
    if let Some(p) = ex.partitions {
        join = join.partitions(p);
    }
    if c.filter {
        join = join.filter(less_than_filter(lay.left_p, lay.right_p));
    }
    if !conds.is_empty() {
        join = join.ranges(conds.clone());
    }
    let ctx = format!(
        "{jt} key={:?} null_equal={} filter={} projection={} presorted={presorted:?} \
         nulls_last={} ranges={conds:?} {ex:?}",
        c.kind, c.null_equal, c.filter, c.project, c.nulls_last
    );
    let got = catch_unwind(AssertUnwindSafe(|| {
        run_merge(&join, &inp.left, &inp.right, ex.via_stream)
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
    let widths = (lay.left.fields().len(), lay.right.fields().len());
    let expected = oracle.run(&inp.lrows, &inp.rrows, widths);
    let diff = multiset_diff(&rows, &expected);
    if !diff.is_empty() {
        return Err(format!("{ctx}: {diff}"));
    }
    Ok(Some(rows))
}

/// Every join type of one case against the oracle.
fn check_case(c: &Case) -> Result<(), TestCaseError> {
    common::quiet_worker_panics();
    let inp = inputs(c, true);
    for jt in JoinType::ALL {
        check_one(&inp, c, jt, c.exec, c.presorted).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(config_with(CASES))]

    #[test]
    fn int32_keys_match_reference(c in case(Just(KeyKind::Int32), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    #[test]
    fn int64_keys_match_reference(c in case(Just(KeyKind::Int64), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    #[test]
    fn utf8_keys_match_reference(c in case(Just(KeyKind::Utf8), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    #[test]
    fn composite_keys_match_reference(c in case(Just(KeyKind::Composite), vec![2, 4, 16])) {
        check_case(&c)?;
    }

    /// Keys from a domain of one or two values: long runs of equal keys on
    /// both sides, and their cross products.
    #[test]
    fn heavy_duplicates_match_reference(c in case(any_kind(), vec![1, 2])) {
        check_case(&c)?;
    }

    /// The multiset of output rows is the same whatever the thread count,
    /// batch size, partition count and way of running, and whether the
    /// inputs are declared presorted, and equals the oracle's.
    #[test]
    fn output_does_not_depend_on_threads_batch_size_partitions_or_presorting(
        c in case(any_kind(), vec![2, 4]),
    ) {
        common::quiet_worker_panics();
        let inp = inputs(&c, true);
        let execs = [
            Exec { batch_size: 8192, threads: 1, partitions: None, via_stream: false },
            Exec { batch_size: 1, threads: 4, partitions: Some(8), via_stream: false },
            Exec { batch_size: 7, threads: 4, partitions: Some(2), via_stream: true },
            Exec { batch_size: 2, threads: 1, partitions: Some(64), via_stream: true },
            Exec { batch_size: 8192, threads: 4, partitions: Some(1), via_stream: false },
        ];
        for jt in JoinType::ALL {
            let mut first: Option<(Exec, Vec<Row>)> = None;
            for (i, ex) in execs.into_iter().enumerate() {
                // Declared presorting alternates; undeclared sorted input is fine.
                let presorted = if i % 2 == 0 { c.presorted } else { (false, false) };
                let rows = check_one(&inp, &c, jt, ex, presorted).map_err(TestCaseError::fail)?;
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

    /// Declaring an unsorted side presorted fails with InvalidOptions naming
    /// the side (never a panic or a wrong answer); a side that happens to be
    /// sorted runs normally.
    #[test]
    fn false_presorted_declaration_is_an_error(
        c in case(any_kind(), vec![4, 16]),
        declare_left in any::<bool>(),
    ) {
        common::quiet_worker_panics();
        let inp = inputs(&c, false);
        let (rows, cols, side) = if declare_left {
            (&inp.lrows, inp.lay.on.iter().map(|p| p.0).collect::<Vec<_>>(), "left")
        } else {
            (&inp.rrows, inp.lay.on.iter().map(|p| p.1).collect::<Vec<_>>(), "right")
        };
        let presorted = (declare_left, !declare_left);
        if keys_ascending(rows, &cols, c.null_equal) {
            check_one(&inp, &c, JoinType::Inner, c.exec, presorted)
                .map_err(TestCaseError::fail)?;
        } else {
            let join = SortMergeJoin::new(JoinType::Inner, inp.lay.on.clone())
                .null_equal(c.null_equal)
                .presorted(presorted.0, presorted.1)
                .threads(c.exec.threads);
            let got = catch_unwind(AssertUnwindSafe(|| {
                run_merge(&join, &inp.left, &inp.right, c.exec.via_stream)
            }));
            match got {
                Ok(Err(KernelError::InvalidOptions(msg))) => prop_assert!(
                    msg.contains(&format!("the {side} input was declared presorted")),
                    "{msg}"
                ),
                Ok(Err(e)) => prop_assert!(false, "expected InvalidOptions, got {e}"),
                Ok(Ok(_)) => prop_assert!(false, "a false {side} declaration was accepted"),
                Err(p) => prop_assert!(false, "panicked: {}", common::panic_text(p.as_ref())),
            }
        }
    }
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(vec![CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge])
}

proptest! {
    #![proptest_config(config_with(CASES))]

    /// Range conditions ANDed with the keys (window bounds on the first
    /// condition's column, the others as a residual), with or without the
    /// filter, every join type.
    #[test]
    fn range_conditions_match_reference(
        c in case(any_kind(), vec![1, 2, 4]),
        ranges in prop::collection::vec((any::<bool>(), cmp_op()), 1..4),
    ) {
        check_case(&Case { ranges, ..c })?;
    }
}

proptest! {
    #![proptest_config(config_with(CASES / 4))]

    /// Up to 160 rows a side, keys from up to 64 values.
    #[test]
    fn medium_inputs_match_reference(
        c in (any_kind(), any_side(vec![8, 64], 160), any_side(vec![8, 64], 160), exec(),
              any::<(bool, bool, bool, bool)>())
            .prop_map(|(kind, left, right, exec, (ne, f, pl, pr))| Case {
                kind, left, right, null_equal: ne, filter: f, project: false,
                presorted: (pl, pr), nulls_last: ne, ranges: Vec::new(), exec,
            }),
    ) {
        check_case(&c)?;
    }
}

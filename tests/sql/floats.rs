//! Float semantics, the same in every operator: `-0.0 = 0.0`, NaN (either
//! sign bit) equal to NaN and greater than every other value, `+inf`
//! included; NULL is unknown. Filters (`=, <>, <, <=, >, >=`, BETWEEN, IN),
//! joins under every strategy (equality and range conditions), GROUP BY,
//! DISTINCT, ORDER BY, MIN/MAX and INTERSECT / EXCEPT are checked against
//! a naive reference over the values `0.0, -0.0, NaN, -NaN, +inf, -inf,
//! 1.5, -1.5, NULL`, as Float64 and Float32, with 1 and 4 threads and
//! batches of 1 and 8192 rows.

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::{Float32Array, Float64Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::common::*;

/// The values, by id (`None`: NULL).
fn values() -> Vec<Option<f64>> {
    vec![
        Some(0.0),
        Some(-0.0),
        Some(f64::NAN),
        Some(-f64::NAN),
        Some(f64::INFINITY),
        Some(f64::NEG_INFINITY),
        Some(1.5),
        Some(-1.5),
        None,
    ]
}

/// The reference order: NaN equal to NaN and greatest, `-0.0 = 0.0`.
fn sql_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// A session with `f(id, d, r)` (one row per value; `d` Float64, `r`
/// Float32) and `p(id, a, b, a32, b32)` (one row per pair of values, id
/// `9 * i + j`).
fn float_session(threads: usize, batch_size: usize) -> tenon::Session {
    let mut s = empty_session(threads, batch_size);
    let v = values();
    let f32s = |v: &[Option<f64>]| Float32Array::from_iter(v.iter().map(|x| x.map(|x| x as f32)));
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("d", DataType::Float64, true),
        Field::new("r", DataType::Float32, true),
    ]));
    let f = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(0..v.len() as i64)),
            Arc::new(Float64Array::from(v.clone())),
            Arc::new(f32s(&v)),
        ],
    )
    .unwrap();
    s.register_batch("f", f).unwrap();
    let (mut ids, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for (i, x) in v.iter().enumerate() {
        for (j, y) in v.iter().enumerate() {
            ids.push((9 * i + j) as i64);
            a.push(*x);
            b.push(*y);
        }
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("a", DataType::Float64, true),
        Field::new("b", DataType::Float64, true),
        Field::new("a32", DataType::Float32, true),
        Field::new("b32", DataType::Float32, true),
    ]));
    let p = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(ids)),
            Arc::new(Float64Array::from(a.clone())),
            Arc::new(Float64Array::from(b.clone())),
            Arc::new(f32s(&a)),
            Arc::new(f32s(&b)),
        ],
    )
    .unwrap();
    s.register_batch("p", p).unwrap();
    s
}

/// `sql`'s sorted rows, the same in every [`CONFIGS`] session.
fn rows(sql: &str) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    for &(t, b) in &CONFIGS {
        let got = run(&float_session(t, b), sql);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "{sql}: threads={t} batch={b} differs"),
        }
    }
    first.unwrap_or_default()
}

/// `sql`'s rows in result order, the same in every [`CONFIGS`] session.
fn ordered(sql: &str) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    for &(t, b) in &CONFIGS {
        let got = run_ordered(&float_session(t, b), sql);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "{sql}: threads={t} batch={b} differs"),
        }
    }
    first.unwrap_or_default()
}

/// Whether an ordering satisfies an operator.
type Holds = fn(Ordering) -> bool;

/// The comparison operators with their reference.
const OPS: [(&str, Holds); 6] = [
    ("=", Ordering::is_eq),
    ("<>", Ordering::is_ne),
    ("<", Ordering::is_lt),
    ("<=", Ordering::is_le),
    (">", Ordering::is_gt),
    (">=", Ordering::is_ge),
];

/// The pair ids `(i, j)` for which `keep(sql_cmp(v[i], v[j]))` holds
/// (never with a NULL), as `p`'s ids, sorted as strings.
fn expected_pairs(
    keep: impl Fn(Ordering) -> bool,
    render: impl Fn(usize, usize) -> String,
) -> Vec<String> {
    let v = values();
    let mut out = Vec::new();
    for (i, x) in v.iter().enumerate() {
        for (j, y) in v.iter().enumerate() {
            if let (Some(x), Some(y)) = (x, y)
                && keep(sql_cmp(*x, *y))
            {
                out.push(render(i, j));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn negative_zero_equals_zero_in_filters() {
    assert_eq!(rows("SELECT id FROM f WHERE d = 0.0"), ["0", "1"]);
    assert_eq!(rows("SELECT id FROM f WHERE d = -0.0"), ["0", "1"]);
    assert_eq!(
        rows("SELECT id FROM f WHERE r = CAST(-0.0 AS REAL)"),
        ["0", "1"]
    );
    assert_eq!(rows("SELECT id FROM f WHERE d < 0.0"), ["5", "7"]);
}

#[test]
fn nan_of_either_sign_equals_nan_and_is_greatest_in_filters() {
    assert_eq!(
        rows("SELECT id FROM f WHERE d > CAST('inf' AS DOUBLE)"),
        ["2", "3"]
    );
    assert_eq!(
        rows("SELECT id FROM f WHERE d = CAST('NaN' AS DOUBLE)"),
        ["2", "3"]
    );
    assert_eq!(
        rows("SELECT id FROM f WHERE r = CAST('NaN' AS REAL)"),
        ["2", "3"]
    );
    // a negative NaN is not below zero
    assert_eq!(rows("SELECT id FROM f WHERE d < 0"), ["5", "7"]);
}

#[test]
fn float_comparisons_in_filters_match_the_reference() {
    for (op, keep) in OPS {
        let id = |i: usize, j: usize| (9 * i + j).to_string();
        let want = {
            let mut w = expected_pairs(keep, id);
            w.sort();
            w
        };
        for (a, b) in [("a", "b"), ("a32", "b32"), ("a", "b32")] {
            let sql = format!("SELECT id FROM p WHERE {a} {op} {b}");
            assert_eq!(rows(&sql), want, "{sql}");
        }
    }
    let id = |i: usize, j: usize| (9 * i + j).to_string();
    assert_eq!(
        rows("SELECT id FROM p WHERE a BETWEEN b AND b"),
        expected_pairs(Ordering::is_eq, id)
    );
    assert_eq!(
        rows("SELECT id FROM p WHERE a32 IN (b32, CAST(7 AS REAL))"),
        expected_pairs(Ordering::is_eq, id)
    );
    assert_eq!(
        rows("SELECT id FROM p WHERE a IS NOT DISTINCT FROM b AND a IS NOT NULL"),
        expected_pairs(Ordering::is_eq, id)
    );
}

#[test]
fn float_join_keys_match_the_reference_under_every_strategy() {
    let pair = |i: usize, j: usize| format!("{i}|{j}");
    for hint in [
        "BROADCAST(y)",
        "SHUFFLE_HASH(y)",
        "SHUFFLE_MERGE(y)",
        "NEST_LOOP(y)",
    ] {
        for col in ["d", "r"] {
            let sql =
                format!("SELECT /*+ {hint} */ x.id, y.id FROM f x JOIN f y ON x.{col} = y.{col}");
            assert_eq!(rows(&sql), expected_pairs(Ordering::is_eq, pair), "{sql}");
        }
    }
    for (op, keep) in OPS {
        if op == "=" || op == "<>" {
            continue;
        }
        for hint in ["/*+ NEST_LOOP(y) */", ""] {
            let sql = format!("SELECT {hint} x.id, y.id FROM f x JOIN f y ON x.d {op} y.d");
            assert_eq!(rows(&sql), expected_pairs(keep, pair), "{sql}");
        }
    }
}

#[test]
fn float_grouping_and_distinct_make_one_zero_and_one_nan() {
    // groups: 0.0/-0.0, NaN/-NaN, inf, -inf, 1.5, -1.5, NULL
    assert_eq!(
        rows("SELECT count(*) FROM f GROUP BY d"),
        ["1", "1", "1", "1", "1", "2", "2"]
    );
    assert_eq!(
        rows("SELECT count(*) FROM f GROUP BY r"),
        ["1", "1", "1", "1", "1", "2", "2"]
    );
    assert_eq!(rows("SELECT count(DISTINCT d) FROM f"), ["6"]);
    assert_eq!(
        rows("SELECT count(*) FROM (SELECT DISTINCT r FROM f) t"),
        ["7"]
    );
    assert_eq!(
        rows("SELECT count(*) FROM (SELECT d FROM f INTERSECT ALL SELECT -d FROM f) t"),
        // -d of each: 0.0<->-0.0, NaN<->-NaN, inf<->-inf, 1.5<->-1.5, and
        // NULL with NULL: all 9 match
        ["9"]
    );
}

#[test]
fn float_order_by_puts_nan_last_and_ties_zeros() {
    assert_eq!(
        ordered("SELECT id FROM f ORDER BY d, id"),
        ["5", "7", "0", "1", "6", "4", "2", "3", "8"]
    );
    assert_eq!(
        ordered("SELECT id FROM f ORDER BY r DESC NULLS LAST, id"),
        ["2", "3", "4", "6", "0", "1", "7", "5", "8"]
    );
    assert_eq!(
        ordered("SELECT id FROM f ORDER BY d DESC NULLS LAST, id LIMIT 3"),
        ["2", "3", "4"]
    );
}

#[test]
fn float_min_max_treat_nan_as_greatest() {
    assert_eq!(rows("SELECT max(d), min(d) FROM f"), ["NaN|-inf"]);
    assert_eq!(rows("SELECT max(r), min(r) FROM f"), ["NaN|-inf"]);
    // a negative NaN alone with numbers is still the max, not the min
    assert_eq!(
        rows("SELECT max(d), min(d) FROM f WHERE id IN (3, 6, 7)"),
        ["NaN|-1.5"]
    );
    assert_eq!(
        rows("SELECT max(r), min(r) FROM f WHERE id IN (3, 6, 7) GROUP BY id > 100"),
        ["NaN|-1.5"]
    );
}

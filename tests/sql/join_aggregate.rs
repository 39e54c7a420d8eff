//! An aggregate without GROUP BY fused into the INNER join below it
//! (`JoinAggregate`, the `fused_aggregate` setting): the same results as
//! the regular plan and as a naive reference, over random tables with
//! duplicate and NULL keys, NULL payloads, empty sides, residual filters,
//! Int64 / Int32 / Float64 / Decimal128 payloads and overflowing sums,
//! under batch sizes 1, 2, 7 and 8192 and 1 and 4 threads; and EXPLAIN
//! showing the fused operator only where it applies.

use std::sync::Arc;

use arrow_array::{ArrayRef, Decimal128Array, Float64Array, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use tenon::{Config, Session};

use crate::common::{Lcg, query_err, row_strings};

/// One side's rows: key, p (Int64), q (Int32), f (Float64, whole
/// numbers), d (Decimal128(20, 2), in hundredths).
#[derive(Debug, Clone, Default)]
struct Side {
    k: Vec<Option<i64>>,
    p: Vec<Option<i64>>,
    q: Vec<Option<i32>>,
    f: Vec<Option<f64>>,
    d: Vec<Option<i128>>,
}

impl Side {
    fn random(rng: &mut Lcg, rows: usize, keys: i64, null_one_in: i64) -> Side {
        let mut s = Side::default();
        for _ in 0..rows {
            s.k.push(rng.cell(keys, null_one_in));
            s.p.push(rng.cell(2000, null_one_in).map(|v| v - 1000));
            s.q.push(rng.cell(500, null_one_in).map(|v| v as i32 - 250));
            s.f.push(rng.cell(100, null_one_in).map(|v| v as f64 - 50.0));
            s.d.push(rng.cell(100_000, null_one_in).map(|v| v as i128 - 50_000));
        }
        s
    }

    fn batch(&self) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("p", DataType::Int64, true),
            Field::new("q", DataType::Int32, true),
            Field::new("f", DataType::Float64, true),
            Field::new("d", DataType::Decimal128(20, 2), true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(self.k.clone())),
            Arc::new(Int64Array::from(self.p.clone())),
            Arc::new(Int32Array::from(self.q.clone())),
            Arc::new(Float64Array::from(self.f.clone())),
            Arc::new(
                Decimal128Array::from(self.d.clone())
                    .with_precision_and_scale(20, 2)
                    .unwrap(),
            ),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }
}

/// A session with tables `a` and `b`, fused or not.
fn session(a: &RecordBatch, b: &RecordBatch, threads: usize, batch: usize, fused: bool) -> Session {
    let config = Config {
        threads,
        batch_size: batch,
        fused_aggregate: fused,
        ..Config::default()
    };
    let mut s = Session::new(config).unwrap();
    s.register_batch("a", a.clone()).unwrap();
    s.register_batch("b", b.clone()).unwrap();
    s
}

/// The calls every query computes; the first seven are checked against
/// the reference (the rest against the regular plan).
const CALLS: &str = "count(*), sum(a.p), sum(b.p), count(b.q), min(b.q), max(a.q), sum(b.d), \
                     sum(a.f), avg(a.p), min(a.d), max(b.f), avg(b.d), count(a.k)";

/// The reference's first seven cells, rendered as the engine does.
fn reference(a: &Side, b: &Side, residual: bool) -> Vec<String> {
    let (mut n, mut ap, mut bp, mut bq_n) = (0i64, None::<i64>, None::<i64>, 0i64);
    let (mut min_bq, mut max_aq, mut bd) = (None::<i32>, None::<i32>, None::<i128>);
    for i in 0..a.k.len() {
        for j in 0..b.k.len() {
            let (Some(x), Some(y)) = (a.k[i], b.k[j]) else {
                continue;
            };
            if x != y {
                continue;
            }
            if residual && !matches!((a.p[i], b.p[j]), (Some(u), Some(v)) if u < v) {
                continue;
            }
            n += 1;
            if let Some(v) = a.p[i] {
                ap = Some(ap.unwrap_or(0) + v);
            }
            if let Some(v) = b.p[j] {
                bp = Some(bp.unwrap_or(0) + v);
            }
            if let Some(v) = b.q[j] {
                bq_n += 1;
                min_bq = Some(min_bq.map_or(v, |m| m.min(v)));
            }
            if let Some(v) = a.q[i] {
                max_aq = Some(max_aq.map_or(v, |m| m.max(v)));
            }
            if let Some(v) = b.d[j] {
                bd = Some(bd.unwrap_or(0) + v);
            }
        }
    }
    let cell = |v: Option<String>| v.unwrap_or_else(|| "NULL".into());
    let decimal = |v: i128| {
        let sign = if v < 0 { "-" } else { "" };
        format!("{sign}{}.{:02}", v.abs() / 100, v.abs() % 100)
    };
    vec![
        n.to_string(),
        cell(ap.map(|v| v.to_string())),
        cell(bp.map(|v| v.to_string())),
        bq_n.to_string(),
        cell(min_bq.map(|v| v.to_string())),
        cell(max_aq.map(|v| v.to_string())),
        cell(bd.map(decimal)),
    ]
}

/// The queries: the peers' shape, with a residual filter, and with each
/// strategy and build side hinted.
fn queries() -> Vec<(String, bool)> {
    let mut out = Vec::new();
    // (Without a hint these many-to-many tables join as SHUFFLE_MERGE,
    // H15 rule 3a, which the fused operator does not take.)
    for hint in [
        "/*+ SHUFFLE_HASH(a) */",
        "/*+ BROADCAST(b) */",
        "/*+ BROADCAST(a) */",
        "/*+ SHUFFLE_HASH(b) */",
    ] {
        for residual in [false, true] {
            let on = if residual {
                "a.k = b.k AND a.p < b.p"
            } else {
                "a.k = b.k"
            };
            out.push((
                format!("SELECT {hint} {CALLS} FROM a JOIN b ON {on}"),
                residual,
            ));
        }
    }
    out
}

/// Runs every query under every thread count and batch size, fused and
/// not, and compares both with each other and with the reference.
fn check(a: &Side, b: &Side, what: &str) {
    let (ab, bb) = (a.batch(), b.batch());
    for threads in [1, 4] {
        for batch in [1, 2, 7, 8192] {
            let fused = session(&ab, &bb, threads, batch, true);
            let plain = session(&ab, &bb, threads, batch, false);
            for (sql, residual) in queries() {
                let ctx = format!("{what}: {sql} threads={threads} batch={batch}");
                let tree = fused.explain(&sql).unwrap().tree().to_string();
                assert!(tree.contains("JoinAggregate"), "{ctx}\n{tree}");
                let got = row_strings(&fused.collect(&sql).unwrap());
                let want = row_strings(&plain.collect(&sql).unwrap());
                assert_eq!(got, want, "{ctx}");
                assert_eq!(got.len(), 1, "{ctx}");
                let cells: Vec<&str> = got[0].split('|').collect();
                assert_eq!(cells[..7], reference(a, b, residual)[..], "{ctx}");
            }
        }
    }
}

#[test]
fn fused_aggregates_equal_the_regular_plan_and_the_reference() {
    let mut rng = Lcg(17);
    for (rows_a, rows_b, keys, nulls) in [(300, 60, 40, 8), (120, 200, 12, 4), (50, 50, 3, 1000)] {
        let a = Side::random(&mut rng, rows_a, keys, nulls);
        let b = Side::random(&mut rng, rows_b, keys, nulls);
        check(&a, &b, &format!("random {rows_a}x{rows_b} keys={keys}"));
    }
}

#[test]
fn fused_aggregates_over_empty_sides() {
    let mut rng = Lcg(5);
    let some = Side::random(&mut rng, 40, 5, 6);
    let none = Side::default();
    check(&some, &none, "empty build");
    check(&none, &some, "empty probe");
    check(&none, &none, "both empty");
    // Keys that never match, and all-NULL keys.
    let mut other = Side::random(&mut rng, 30, 5, 6);
    other.k = other.k.iter().map(|k| k.map(|v| v + 100)).collect();
    check(&some, &other, "no match");
    let mut nulls = some.clone();
    nulls.k = vec![None; nulls.k.len()];
    check(&nulls, &some, "NULL keys");
}

#[test]
fn overflowing_sums_are_errors_fused_and_not() {
    let rows = 6;
    let big = Side {
        k: vec![Some(1); rows],
        p: vec![Some(i64::MAX / 3); rows],
        q: vec![Some(1); rows],
        f: vec![Some(1.0); rows],
        d: vec![Some(1); rows],
    };
    let (ab, bb) = (big.batch(), big.batch());
    for threads in [1, 4] {
        for batch in [1, 2, 7, 8192] {
            for fused in [true, false] {
                let s = session(&ab, &bb, threads, batch, fused);
                let sql = "SELECT count(*), sum(a.p) FROM a JOIN b ON a.k = b.k";
                let e = query_err(&s, sql).to_string();
                assert!(
                    e.contains("overflow"),
                    "fused={fused} {threads}/{batch}: {e}"
                );
            }
        }
    }
    // Decimal128(38, 0) sums beyond 128 bits.
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("d", DataType::Decimal128(38, 0), true),
    ]));
    let t = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![1, 1, 1])),
            Arc::new(
                Decimal128Array::from(vec![9 * 10i128.pow(37); 3])
                    .with_precision_and_scale(38, 0)
                    .unwrap(),
            ),
        ],
    )
    .unwrap();
    for fused in [true, false] {
        let s = session(&t, &t, 4, 2, fused);
        let sql = "SELECT sum(a.d) FROM a JOIN b ON a.k = b.k";
        let e = query_err(&s, sql).to_string();
        assert!(e.contains("overflow"), "decimal fused={fused}: {e}");
    }
}

#[test]
fn explain_shows_the_fused_operator_only_where_it_applies() {
    let mut rng = Lcg(3);
    let t = Side::random(&mut rng, 20, 5, 6).batch();
    let fused = session(&t, &t, 2, 8192, true);
    let plain = session(&t, &t, 2, 8192, false);
    // a hash join (by default these many-to-many tables join as
    // SHUFFLE_MERGE, H15 rule 3a)
    let peers =
        "SELECT /*+ BROADCAST(b) */ count(*), sum(a.p), sum(b.p) FROM a JOIN b ON a.k = b.k";
    let tree = fused.explain(peers).unwrap().tree().to_string();
    assert!(
        tree.contains("JoinAggregate: aggs=[count(*), sum(a.p), sum(b.p)]"),
        "{tree}"
    );
    // The join stays in the tree, under the fused operator.
    assert!(tree.contains("Join: "), "{tree}");
    let report = fused.explain(peers).unwrap().report();
    assert!(report.tree.contains("JoinAggregate"), "{}", report.tree);
    assert_eq!(report.joins.len(), 1);
    for (sql, why) in [
        (
            "SELECT count(*), sum(a.p) FROM a LEFT JOIN b ON a.k = b.k",
            "LEFT JOIN",
        ),
        (
            "SELECT a.k, count(*), sum(b.p) FROM a JOIN b ON a.k = b.k GROUP BY a.k",
            "GROUP BY",
        ),
        (
            "SELECT count(*), sum(a.p + b.p) FROM a JOIN b ON a.k = b.k",
            "an expression argument",
        ),
        (
            "SELECT count(DISTINCT a.p) FROM a JOIN b ON a.k = b.k",
            "DISTINCT",
        ),
        (
            "SELECT sum(a.p) FILTER (WHERE b.p > 0) FROM a JOIN b ON a.k = b.k",
            "FILTER",
        ),
        (
            "SELECT /*+ SHUFFLE_MERGE(b) */ count(*) FROM a JOIN b ON a.k = b.k",
            "a sort-merge join",
        ),
    ] {
        let tree = fused.explain(sql).unwrap().tree().to_string();
        assert!(!tree.contains("JoinAggregate"), "{why}: {tree}");
        // ... and those still give the regular plan's results.
        assert_eq!(
            row_strings(&fused.collect(sql).unwrap()),
            row_strings(&plain.collect(sql).unwrap()),
            "{why}"
        );
    }
    let tree = plain.explain(peers).unwrap().tree().to_string();
    assert!(
        !tree.contains("JoinAggregate"),
        "fused_aggregate=false: {tree}"
    );
}

#[test]
fn the_setting_parses_and_names_its_values() {
    let mut c = Config::default();
    assert!(c.fused_aggregate);
    c.set("fused_aggregate", "off").unwrap();
    assert!(!c.fused_aggregate);
    c.set("FUSED_AGGREGATE", "true").unwrap();
    assert!(c.fused_aggregate);
    let e = c.set("fused_aggregate", "maybe").unwrap_err().to_string();
    assert!(e.contains("true or false"), "{e}");
}

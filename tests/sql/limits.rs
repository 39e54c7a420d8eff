//! Runaway work under LIMIT (issue 14): a satisfied LIMIT stops the scans,
//! joins and unions below it, and ORDER BY ... LIMIT is a top-N. Checked by
//! *work* (the rows the operators below the LIMIT produced, from EXPLAIN
//! ANALYZE), never by time; a generous timeout only turns a hang into a
//! failure. The answers are checked against the same query without the
//! LIMIT, cut by hand (the naive reference).

use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::Duration;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use tenon::Session;

use crate::common::*;

/// A table `name` of `rows` rows: `k` (every row `key`, or the row number
/// when `key` is `None`) and `v` (the row number).
fn numbers(name: &str, rows: i64, key: Option<i64>) -> (String, RecordBatch) {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("v", DataType::Int64, false),
    ]));
    let k: Int64Array = (0..rows).map(|i| key.unwrap_or(i)).collect();
    let v: Int64Array = (0..rows).collect();
    let batch = RecordBatch::try_new(schema, vec![Arc::new(k), Arc::new(v)]).unwrap();
    (name.to_string(), batch)
}

fn session_of(threads: usize, batch_size: usize, tables: &[(String, RecordBatch)]) -> Session {
    let mut s = empty_session(threads, batch_size);
    for (name, batch) in tables {
        s.register_batch(name, batch.clone()).unwrap();
    }
    s
}

/// Runs `f` on its own thread; a failure if it takes longer than `secs`
/// (only to turn a hang into a failure: the bound is far above the time
/// the work takes).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("no answer within {secs} s: the LIMIT did not stop its input"))
}

/// The `rows=` of every line of an EXPLAIN ANALYZE tree that starts with
/// `prefix` (after the indentation).
fn rows_of(tree: &str, prefix: &str) -> Vec<u64> {
    tree.lines()
        .filter(|l| l.trim_start().starts_with(prefix))
        .map(|l| {
            let at = l.find("[rows=").expect("analyze metrics") + "[rows=".len();
            let end = l[at..].find(' ').unwrap() + at;
            l[at..end].parse().unwrap()
        })
        .collect()
}

/// The most rows a join may produce before a LIMIT satisfied by its first
/// batches stops it: a few batches per worker (the coalescing buffer, the
/// batch each worker is emitting when the signal comes), far below the
/// full output of every test here.
fn stop_bound(threads: usize, batch_size: usize) -> u64 {
    (threads * batch_size.max(64) * 8) as u64
}

#[test]
fn limit_does_not_stop_a_cross_join_of_ten_billion_rows() {
    // 100,000 x 100,000 rows: computing the product would never end (and
    // its output would not fit in memory).
    let tables = [numbers("a", 100_000, None), numbers("b", 100_000, None)];
    for (threads, batch_size) in [(1, 1024), (4, 8192)] {
        let tables = tables.clone();
        let (rows, tree) = within(300, move || {
            let s = session_of(threads, batch_size, &tables);
            let (explain, out) = s
                .explain_analyze("SELECT * FROM a CROSS JOIN b LIMIT 10")
                .unwrap();
            (out.num_rows(), explain.tree().to_string())
        });
        assert_eq!(rows, 10, "{tree}");
        let join = rows_of(&tree, "Join:");
        assert_eq!(join.len(), 1, "{tree}");
        assert!(join[0] <= stop_bound(threads, batch_size), "{tree}");
    }
}

#[test]
fn limit_does_not_stop_a_hash_join_probe() {
    // every key equal: 20,000 x 20,000 = 400M pairs under every strategy
    let tables = [numbers("a", 20_000, Some(7)), numbers("b", 20_000, Some(7))];
    for hint in [
        "BROADCAST(b)",
        "SHUFFLE_HASH(b)",
        "SHUFFLE_MERGE(b)",
        "NEST_LOOP(b)",
    ] {
        for (threads, batch_size) in [(1, 7), (4, 8192)] {
            let tables = tables.clone();
            let sql = format!(
                "SELECT /*+ {hint} */ a.v, b.v FROM a JOIN b ON a.k = b.k WHERE a.v >= 0 LIMIT 5"
            );
            let (rows, tree) = within(300, move || {
                let s = session_of(threads, batch_size, &tables);
                let (explain, out) = s.explain_analyze(&sql).unwrap();
                (out.num_rows(), explain.tree().to_string())
            });
            assert_eq!(rows, 5, "{hint}: {tree}");
            let join = rows_of(&tree, "Join:");
            assert!(join[0] <= stop_bound(threads, batch_size), "{hint}: {tree}");
        }
    }
}

#[test]
fn limit_does_not_stop_a_scan_or_a_union_branch() {
    let tables = [numbers("a", 50_000, None), numbers("b", 50_000, None)];
    for &(threads, batch_size) in &CONFIGS {
        let s = session_of(threads, batch_size, &tables);
        let (explain, out) = s
            .explain_analyze("SELECT v FROM a UNION ALL SELECT v FROM b LIMIT 3")
            .unwrap();
        let tree = explain.tree();
        assert_eq!(out.num_rows(), 3, "{tree}");
        let scans = rows_of(tree, "Scan:");
        assert_eq!(scans.len(), 2, "{tree}");
        // the second branch is never started: the first one satisfies it
        assert_eq!(scans[1], 0, "{tree}");
        assert!(scans[0] <= stop_bound(threads, batch_size), "{tree}");
    }
}

/// The rows of `v` that `sql` (ordering by `v`) gives, in order.
fn values(s: &Session, sql: &str) -> Vec<i64> {
    run_ordered(s, sql)
        .iter()
        .map(|r| r.parse().unwrap())
        .collect()
}

#[test]
fn streaming_limit_answers_match_the_reference() {
    let tables = [numbers("a", 1_000, None), numbers("b", 30, Some(1))];
    let all: Vec<i64> = (0..1_000).collect();
    for &(threads, batch_size) in &CONFIGS {
        let s = session_of(threads, batch_size, &tables);
        // ORDER BY ... LIMIT / OFFSET: a top-N
        for (limit, offset) in [(0, 0), (1, 0), (7, 3), (10, 995), (2000, 0), (5, 2000)] {
            let sql = format!("SELECT v FROM a ORDER BY v DESC LIMIT {limit} OFFSET {offset}");
            let want: Vec<i64> = all.iter().rev().skip(offset).take(limit).copied().collect();
            assert_eq!(values(&s, &sql), want, "{sql} threads={threads}");
        }
        // a LIMIT inside a subquery, under an outer LIMIT and ORDER BY
        let sql = "SELECT v FROM (SELECT v FROM a ORDER BY v LIMIT 20) t ORDER BY v DESC LIMIT 3";
        assert_eq!(values(&s, sql), vec![19, 18, 17], "{sql}");
        // a LIMIT without ORDER BY: any rows of the input, as many as asked
        for sql in [
            "SELECT v FROM a LIMIT 25",
            "SELECT v FROM a LIMIT 25 OFFSET 990",
            "SELECT v FROM (SELECT v FROM a LIMIT 30) t LIMIT 25",
            "SELECT a.v FROM a JOIN b ON a.k = b.k LIMIT 25",
        ] {
            let got = values(&s, sql);
            let want = if sql.contains("990") { 10 } else { 25 };
            let want = if sql.contains("JOIN") {
                30.min(want)
            } else {
                want
            };
            assert_eq!(got.len(), want, "{sql}");
            assert!(got.iter().all(|v| (0..1_000).contains(v)), "{sql}");
        }
        // a LIMIT in a UNION branch, and aggregates over a limited input
        let sql = "SELECT count(*) FROM ((SELECT v FROM a LIMIT 4) UNION ALL (SELECT v FROM b LIMIT 2)) t";
        assert_eq!(values(&s, sql), vec![6], "{sql}");
        let sql = "SELECT count(*) FROM (SELECT a.v FROM a CROSS JOIN b LIMIT 100) t";
        assert_eq!(values(&s, sql), vec![100], "{sql}");
        let sql = "SELECT count(*) FROM (SELECT v FROM a LIMIT 0) t";
        assert_eq!(values(&s, sql), vec![0], "{sql}");
    }
}

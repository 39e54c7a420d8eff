//! Column statistics (issue 21): computed for tables held in memory, read
//! from Parquet footers, computed by `ANALYZE TABLE` for any table, and
//! used by the estimates that EXPLAIN shows.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use tenon::StatementOutput;
use tenon::planner::statistics::ScalarValue;

use crate::common::*;

mod lazy;

/// `n` rows: `k` = i % keys (NULL every 10th row when `nulls`), `s` a
/// string of `k`.
fn keyed(n: i64, keys: i64, nulls: bool) -> RecordBatch {
    let k = Int64Array::from_iter((0..n).map(|i| (!nulls || i % 10 != 0).then_some(i % keys)));
    let s = StringArray::from_iter_values((0..n).map(|i| format!("v{:04}", i % keys)));
    RecordBatch::try_from_iter([("k", Arc::new(k) as _), ("s", Arc::new(s) as _)]).unwrap()
}

#[test]
fn tables_held_in_memory_have_column_statistics() {
    let mut s = empty_session(4, 8192);
    s.register_batch("t", keyed(10_000, 250, true)).unwrap();
    let stats = s.table_stats("t").unwrap();
    assert_eq!(stats.row_count, Some(10_000));
    let (k, v) = (&stats.columns[0], &stats.columns[1]);
    assert_eq!(k.null_count, Some(1_000));
    // every 10th row is NULL, and those rows hold every key that is a
    // multiple of 10 (250 is one): 225 distinct values, estimated (beyond
    // 128 the sketch estimates, to about 1%)
    let d = k.distinct_count.unwrap() as f64;
    assert!((d - 225.0).abs() / 225.0 < 0.03, "{d}");
    assert_eq!(k.min, Some(ScalarValue::Int64(Some(1))));
    assert_eq!(k.max, Some(ScalarValue::Int64(Some(249))));
    assert_eq!(v.null_count, Some(0));
    let d = v.distinct_count.unwrap() as f64;
    assert!((d - 250.0).abs() / 250.0 < 0.03, "{d}");
    assert_eq!(v.min, Some(ScalarValue::Utf8(Some("v0000".into()))));
    assert_eq!(v.max, Some(ScalarValue::Utf8(Some("v0249".into()))));
    assert!(s.table_stats("nope").is_none());
}

#[test]
fn parquet_footers_give_null_counts_and_bounds_but_not_distinct_counts() {
    let mut s = empty_session(2, 8192);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/duckdb_row_groups.parquet"
    );
    s.register_file("t", path).unwrap();
    let stats = s.table_stats("t").unwrap();
    let column = |name: &str| {
        let i = ["k", "n", "f", "d", "s", "dt", "sparse"]
            .iter()
            .position(|c| *c == name)
            .unwrap();
        stats.columns[i].clone()
    };
    assert_eq!(column("k").min, Some(ScalarValue::Int64(Some(0))));
    assert_eq!(column("k").max, Some(ScalarValue::Int64(Some(12_287))));
    assert_eq!(column("k").null_count, Some(0));
    // i % 17 == 0 for i in 0..12288: 723 rows
    assert_eq!(column("n").null_count, Some(723));
    assert_eq!(column("sparse").null_count, Some(12_288 - 8_000));
    // a row group with NaN has no bounds: the column's are unknown
    assert_eq!((column("f").min, column("f").max), (None, None));
    // DuckDB's footers hold no distinct counts (six row groups anyway)
    assert_eq!(column("k").distinct_count, None);

    // ANALYZE reads the file and counts them
    assert_eq!(
        run_statement(&s, "ANALYZE TABLE t"),
        "analyzed t: 12288 rows, 7 columns"
    );
    let stats = s.table_stats("t").unwrap();
    let k = stats.columns[0].distinct_count.unwrap() as f64;
    assert!((k - 12_288.0).abs() / 12_288.0 < 0.03, "{k}");
    // 97 values of `sparse` (i % 97 below row 8,000), exact below 128
    assert_eq!(stats.columns[6].distinct_count, Some(97));
    assert_eq!(stats.columns[6].null_count, Some(4_288));
}

fn run_statement(s: &tenon::Session, sql: &str) -> String {
    match s.execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}")) {
        StatementOutput::Done(what) => what,
        StatementOutput::Rows(_) => panic!("{sql}: rows"),
    }
}

/// The `estimated:` line of EXPLAIN's join `join`.
fn estimated(s: &tenon::Session, sql: &str, join: usize) -> String {
    let text = s.explain(sql).unwrap().to_text();
    text.lines()
        .filter(|l| l.trim_start().starts_with("estimated:"))
        .nth(join)
        .unwrap_or_else(|| panic!("no estimates: {text}"))
        .trim()
        .to_string()
}

#[test]
fn analyze_table_gives_a_csv_file_distinct_counts_that_the_estimates_use() {
    let dir = temp_dir("statistics-csv");
    let mut csv = String::from("k,v\n");
    for i in 0..2_000 {
        csv.push_str(&format!("{},{}\n", i % 20, i));
    }
    let path = dir.join("t.csv");
    std::fs::write(&path, csv).unwrap();
    let mut s = empty_session(2, 8192);
    s.register_file("t", &path).unwrap();
    s.register_batch("u", keyed(100, 100, false)).unwrap();
    assert!(s.table_stats("t").unwrap().columns.is_empty());
    let sql = "SELECT count(*) FROM t JOIN u ON t.k = u.k WHERE t.v < 500";
    // before: the CSV's rows come from its size, the filter is guessed
    let before = estimated(&s, sql, 0);
    assert_eq!(
        run_statement(&s, "analyze t"),
        "analyzed t: 2000 rows, 2 columns"
    );
    let stats = s.table_stats("t").unwrap();
    assert_eq!(stats.columns[0].distinct_count, Some(20));
    assert_eq!(stats.columns[1].max, Some(ScalarValue::Int64(Some(1_999))));
    // after: t.v < 500 keeps a quarter of 2,000 rows by its bounds; each
    // of t's 500 rows meets the one u row of its key (100 distinct in u,
    // 20 in t): 500 x 100 / 100 = 500 rows
    let after = estimated(&s, sql, 0);
    assert_ne!(before, after);
    assert!(after.starts_with("estimated: t 501 rows"), "{after}");
    assert!(after.ends_with("output 501 rows"), "{after}");
    // the statistics stay with the table for later queries; replacing
    // the table forgets them
    assert_eq!(s.table_stats("t").unwrap().row_count, Some(2_000));
    s.register_file("t", &path).unwrap();
    assert!(s.table_stats("t").unwrap().columns.is_empty());
}

#[test]
fn join_estimates_tell_many_to_many_from_foreign_key_joins() {
    let mut s = empty_session(2, 8192);
    // 10,000 x 10,000 rows over 100 key values: 1,000,000 output rows
    s.register_batch("a", keyed(10_000, 100, false)).unwrap();
    s.register_batch("b", keyed(10_000, 100, false)).unwrap();
    // a foreign key: 10,000 rows each meeting one of 100 unique keys
    s.register_batch("d", keyed(100, 100, false)).unwrap();
    let m2n = estimated(&s, "SELECT count(*) FROM a JOIN b ON a.k = b.k", 0);
    assert!(m2n.ends_with("output 1000000 rows"), "{m2n}");
    let fk = estimated(&s, "SELECT count(*) FROM a JOIN d ON a.k = d.k", 0);
    assert!(fk.ends_with("output 10000 rows"), "{fk}");
    // GROUP BY keeps its key's distinct values
    let grouped = estimated(
        &s,
        "SELECT count(*) FROM (SELECT k, count(*) AS c FROM a GROUP BY k) g JOIN d ON g.k = d.k",
        0,
    );
    assert!(grouped.starts_with("estimated: g 100 rows"), "{grouped}");
    // an equality with a constant keeps 1 / distinct, one outside the
    // bounds nothing (at least a row)
    let eq = estimated(
        &s,
        "SELECT count(*) FROM a JOIN d ON a.k = d.k WHERE a.k = 5",
        0,
    );
    assert!(eq.starts_with("estimated: a 100 rows"), "{eq}");
    let outside = estimated(
        &s,
        "SELECT count(*) FROM a JOIN d ON a.k = d.k WHERE a.k = 500",
        0,
    );
    assert!(outside.starts_with("estimated: a 0 rows"), "{outside}");
    // the JSON form carries them too
    let json = s
        .explain("SELECT count(*) FROM a JOIN b ON a.k = b.k")
        .unwrap()
        .to_json();
    assert!(
        json.contains("\"estimates\": {\"left\": {\"rows\": 10000, ")
            && json.contains("\"output\": {\"rows\": 1000000, "),
        "{json}"
    );
}

#[test]
fn analyze_of_what_is_not_a_table_is_a_clear_error() {
    let mut s = empty_session(2, 8192);
    s.register_batch("t", keyed(10, 5, false)).unwrap();
    s.execute("CREATE VIEW v AS SELECT k FROM t").unwrap();
    for (sql, words) in [
        ("ANALYZE TABLE nope", "no table `nope` (tables: t)"),
        ("ANALYZE v", "`v` is a view; analyze the tables it reads"),
        ("ANALYZE", "ANALYZE without a table"),
        (
            "ANALYZE TABLE t COMPUTE STATISTICS",
            "`COMPUTE` after the table name",
        ),
        ("ANALYZE TABLE s.t", "`.` after the table name"),
    ] {
        let e = s.execute(sql).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(words), "{sql}: {e}");
        assert!(e.contains("ANALYZE"), "{sql}: {e}");
    }
    // a quoted name keeps its case
    s.register_batch("Mixed", keyed(10, 5, false)).unwrap();
    assert_eq!(
        run_statement(&s, "ANALYZE TABLE \"Mixed\""),
        "analyzed Mixed: 10 rows, 2 columns"
    );
}

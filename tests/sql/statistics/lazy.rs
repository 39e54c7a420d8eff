//! Statistics that files read lazily learn from the first query that
//! reads them whole (issue 21): CSV, JSON, Arrow IPC, and Parquet columns
//! whose footers hold no distinct counts; only the columns read, never
//! from a read a LIMIT stopped or a filter pruned, again after the files
//! change.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use tenon::Session;
use tenon::io::{OutputFormat, write_to_path};
use tenon::planner::statistics::ScalarValue;

use super::{estimated, keyed, run_statement};
use crate::common::*;

/// `n` rows: `k` = i % `keys`, `v` = i.
fn kv(n: i64, keys: i64) -> RecordBatch {
    RecordBatch::try_from_iter([
        (
            "k",
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| i % keys))) as _,
        ),
        ("v", Arc::new(Int64Array::from_iter_values(0..n)) as _),
    ])
    .unwrap()
}

fn write(dir: &Path, file: &str, format: OutputFormat, batch: &RecordBatch) -> PathBuf {
    let path = dir.join(file);
    write_to_path(std::slice::from_ref(batch), &batch.schema(), format, &path).unwrap();
    path
}

/// The join whose estimates the tests watch: `t.v < 500` keeps a quarter
/// of `t`'s 2,000 rows by `v`'s bounds, and each meets the one `u` row of
/// its key (100 keys in `u`, 20 in `t`).
const JOIN: &str = "SELECT count(*) FROM t JOIN u ON t.k = u.k WHERE t.v < 500";

fn session_with_file(path: &Path, batch_size: usize) -> Session {
    let mut s = empty_session(2, batch_size);
    s.register_file("t", path).unwrap();
    s.register_batch("u", keyed(100, 100, false)).unwrap();
    s
}

fn distinct(s: &Session, column: usize) -> Option<u64> {
    let stats = s.table_stats("t").unwrap();
    stats.columns.get(column).and_then(|c| c.distinct_count)
}

#[test]
fn csv_json_and_arrow_files_learn_the_columns_a_full_read_reads() {
    let dir = temp_dir("lazy-statistics-formats");
    let batch = kv(2_000, 20);
    for (file, format) in [
        ("t.csv", OutputFormat::Csv),
        ("t.ndjson", OutputFormat::Ndjson),
        ("t.arrow", OutputFormat::Arrow),
    ] {
        let path = write(&dir, file, format, &batch);
        let s = session_with_file(&path, 256);
        let registered = s.table_stats("t").unwrap();
        assert_eq!(distinct(&s, 0), None, "{file}");
        let before = estimated(&s, JOIN, 0);
        assert!(
            !before.starts_with("estimated: t 501 rows"),
            "{file}: {before}"
        );
        // a full read of `k` alone learns `k` (and the row count), not `v`
        assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k < 5"), ["500"]);
        let stats = s.table_stats("t").unwrap();
        assert_eq!(stats.row_count, Some(2_000), "{file}");
        assert_eq!(stats.byte_size, registered.byte_size, "{file}");
        let k = &stats.columns[0];
        assert_eq!(k.distinct_count, Some(20), "{file}");
        assert_eq!(k.null_count, Some(0), "{file}");
        assert_eq!(k.min, Some(ScalarValue::Int64(Some(0))), "{file}");
        assert_eq!(k.max, Some(ScalarValue::Int64(Some(19))), "{file}");
        assert_eq!(stats.columns[1], Default::default(), "{file}");
        // the join reads `k` and `v`: `v` is learned, and the next plan's
        // estimates are those ANALYZE would give
        assert_eq!(run(&s, JOIN), ["500"], "{file}");
        assert_eq!(distinct(&s, 1).map(|d| d.abs_diff(2_000) < 60), Some(true));
        let after = estimated(&s, JOIN, 0);
        assert!(
            after.starts_with("estimated: t 501 rows"),
            "{file}: {after}"
        );
        assert!(after.ends_with("output 501 rows"), "{file}: {after}");
        // ANALYZE finds the same
        let learned = s.table_stats("t").unwrap();
        run_statement(&s, "ANALYZE t");
        assert_eq!(s.table_stats("t").unwrap(), learned, "{file}");
    }
}

#[test]
fn a_limit_that_stops_the_read_learns_nothing() {
    let dir = temp_dir("lazy-statistics-limit");
    let path = write(&dir, "t.csv", OutputFormat::Csv, &kv(2_000, 20));
    // batches of 64 rows: the LIMIT is met long before the end
    let s = session_with_file(&path, 64);
    let registered = s.table_stats("t").unwrap();
    assert_eq!(run(&s, "SELECT k FROM t LIMIT 5").len(), 5);
    assert_eq!(s.table_stats("t").unwrap(), registered);
    // a LIMIT above the row count reads every row
    assert_eq!(run(&s, "SELECT k FROM t LIMIT 5000").len(), 2_000);
    assert_eq!(distinct(&s, 0), Some(20));
    assert_eq!(s.table_stats("t").unwrap().row_count, Some(2_000));
}

#[test]
fn parquet_columns_learn_distinct_counts_unless_row_groups_were_pruned() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/duckdb_row_groups.parquet"
    );
    let mut s = empty_session(2, 8192);
    s.register_file("t", path).unwrap();
    let registered = s.table_stats("t").unwrap();
    assert_eq!(registered.columns[0].distinct_count, None);
    // k is sorted over six row groups: `k < 100` reads only the first
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k < 100"), ["100"]);
    assert_eq!(s.table_stats("t").unwrap(), registered);
    // a read of every row group learns what the footers lack
    assert_eq!(run(&s, "SELECT count(sparse) FROM t"), ["8000"]);
    let stats = s.table_stats("t").unwrap();
    assert_eq!(stats.columns[6].distinct_count, Some(97));
    // the footers' figures stay (they are the same)
    assert_eq!(stats.columns[6].null_count, Some(12_288 - 8_000));
    assert_eq!(stats.row_count, Some(12_288));
    assert_eq!(stats.columns[0], registered.columns[0]);
    run(&s, "SELECT count(DISTINCT k) FROM t");
    let k = distinct(&s, 0).unwrap() as f64;
    assert!((k - 12_288.0).abs() / 12_288.0 < 0.03, "{k}");
    assert_eq!(
        s.table_stats("t").unwrap().columns[0].min,
        Some(ScalarValue::Int64(Some(0)))
    );
}

#[test]
fn a_changed_file_learns_again_and_analyze_counts_as_learned() {
    let dir = temp_dir("lazy-statistics-changed");
    let path = write(&dir, "t.csv", OutputFormat::Csv, &kv(2_000, 20));
    let s = session_with_file(&path, 8192);
    run(&s, "SELECT count(*) FROM t WHERE k < 5");
    assert_eq!(distinct(&s, 0), Some(20));
    // rewritten: the next read learns the new rows
    write(&dir, "t.csv", OutputFormat::Csv, &kv(4_000, 40));
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k < 5"), ["500"]);
    assert_eq!(distinct(&s, 0), Some(40));
    assert_eq!(s.table_stats("t").unwrap().row_count, Some(4_000));
    // ANALYZE's statistics are kept by later reads...
    assert_eq!(
        run_statement(&s, "ANALYZE TABLE t"),
        "analyzed t: 4000 rows, 2 columns"
    );
    let analyzed = s.table_stats("t").unwrap();
    run(&s, JOIN);
    assert_eq!(s.table_stats("t").unwrap(), analyzed);
    // ...until the file changes: then a read of `k` learns `k` again, and
    // `v` goes back to what the registration knew (nothing)
    write(&dir, "t.csv", OutputFormat::Csv, &kv(1_000, 10));
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k < 5"), ["500"]);
    let stats = s.table_stats("t").unwrap();
    assert_eq!(stats.row_count, Some(1_000));
    assert_eq!(stats.columns[0].distinct_count, Some(10));
    assert_eq!(stats.columns[1], Default::default());
}

#[test]
fn a_table_held_in_memory_learns_every_column_when_first_read() {
    let dir = temp_dir("lazy-statistics-in-memory");
    let path = write(&dir, "t.csv", OutputFormat::Csv, &kv(2_000, 20));
    let s = empty_session(2, 8192);
    s.execute(&format!(
        "CREATE TABLE t (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', \
         'path' = '{}', 'format' = 'csv', 'scan.in-memory' = 'true')",
        path.display()
    ))
    .unwrap();
    assert_eq!(s.table_stats("t").unwrap().columns, vec![]);
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k < 5"), ["500"]);
    let stats = s.table_stats("t").unwrap();
    assert_eq!(stats.row_count, Some(2_000));
    assert_eq!(stats.columns[0].distinct_count, Some(20));
    assert_eq!(stats.columns[1].max, Some(ScalarValue::Int64(Some(1_999))));
}

//! Tables registered from files (issue 14): read lazily, only the columns a
//! query uses, charged to `memory_limit`; held in memory only on request
//! (`register_file_in_memory`, `--memory-table`); `--timing` says whether
//! its time includes reading files; one name, one `--table`.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use tenon::io::{OutputFormat, write_to_path};
use tenon::{Error, Session};

use crate::cli_query::{fails, stderr, tenon};
use crate::common::*;

/// `t.parquet` in `dir`: 20,000 rows of `k` (an integer) and `s` (a
/// 200-byte string): `s` is about 4 MB in memory, `k` 160 KB.
fn wide_parquet(dir: &std::path::Path) -> std::path::PathBuf {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]));
    let n = 20_000;
    let k: Int64Array = (0..n).collect();
    let s: StringArray = (0..n).map(|i| Some(format!("{i:0>200}"))).collect();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(k), Arc::new(s)]).unwrap();
    let path = dir.join("t.parquet");
    write_to_path(&[batch], &schema, OutputFormat::Parquet, &path).unwrap();
    path
}

fn limited(limit: &str) -> Session {
    let mut s = empty_session(2, 8192);
    s.set("memory_limit", limit).unwrap();
    s
}

#[test]
fn memory_limit_did_not_count_the_rows_read_from_table_files() {
    let dir = temp_dir("lazy-limit");
    let path = wide_parquet(&dir);
    let mut s = limited("1MB");
    s.register_file("t", &path).unwrap();
    // the string column alone is over the limit: a clear error, exit 3
    let err = s.collect("SELECT max(s) FROM t").unwrap_err();
    assert!(matches!(err, Error::Resource(_)), "{err}");
    assert!(err.to_string().contains("memory limit exceeded"), "{err}");
    // before reading: the footers' sizes of the column do not fit
    assert!(err.to_string().contains("footers"), "{err}");
    assert_eq!(err.exit_code(), 3);
}

#[test]
fn table_files_were_read_whole_instead_of_the_columns_a_query_uses() {
    let dir = temp_dir("lazy-columns");
    let path = wide_parquet(&dir);
    // k fits in 1 MB, k and s together do not
    let mut s = limited("1MB");
    s.register_file("t", &path).unwrap();
    assert_eq!(run(&s, "SELECT sum(k) FROM t"), ["199990000"]);
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE k >= 10"), ["19990"]);
    let out = s.query("SELECT k FROM t LIMIT 3").unwrap();
    assert!(out.reads_files);
    // the same table held in memory: read once, charged while a query runs
    let mut held = limited("1MB");
    held.register_file_in_memory("t", &path).unwrap();
    let err = held.collect("SELECT sum(k) FROM t").unwrap_err();
    assert!(matches!(err, Error::Resource(_)), "{err}");
    held.set("memory_limit", "64MB").unwrap();
    let out = held.query("SELECT sum(k) FROM t").unwrap();
    assert!(!out.reads_files);
    assert_eq!(row_strings(&out.batches), ["199990000"]);
    // and the file changing afterwards does not change the held rows
    std::fs::write(&path, b"not parquet any more").unwrap();
    assert_eq!(run(&held, "SELECT count(*) FROM t"), ["20000"]);
    // while the lazy table reads the file as it is now: a clear error
    let err = s.collect("SELECT count(*) FROM t").unwrap_err();
    assert!(err.to_string().contains("t.parquet"), "{err}");
}

#[test]
fn explain_of_a_table_file_read_its_rows() {
    let dir = temp_dir("lazy-explain");
    let path = wide_parquet(&dir);
    let mut s = limited("1KB");
    s.register_file("t", &path).unwrap();
    // planning reads footers only: under a 1 KB limit EXPLAIN still works
    let explain = s.explain("SELECT k, s FROM t WHERE k > 5").unwrap();
    assert!(explain.tree().contains("Scan: t"), "{}", explain.tree());
    assert_eq!(run(&s, "SELECT 1"), ["1"]);
}

#[test]
fn the_same_table_name_twice_was_the_last_one_wins() {
    let dir = temp_dir("lazy-twice");
    let path = wide_parquet(&dir);
    let p = path.to_str().unwrap();
    let a = format!("a={p}");
    let big_a = format!("A={p}");
    let err = fails(&["--table", &a, "--table", &a, "SELECT 1"], 2);
    assert!(
        err.contains("registered twice") && err.contains("`a`"),
        "{err}"
    );
    let err = fails(&["--table", &a, "--memory-table", &big_a, "SELECT 1"], 2);
    assert!(err.contains("registered twice"), "{err}");
}

#[test]
fn timing_did_not_say_whether_it_included_reading_files() {
    let dir = temp_dir("lazy-timing");
    let path = wide_parquet(&dir);
    let t = format!("t={}", path.display());
    for (option, reads) in [("--table", "true"), ("--memory-table", "false")] {
        let o = tenon(&[
            option,
            &t,
            "--timing",
            "--runs",
            "2",
            "--format",
            "csv",
            "SELECT count(*) FROM t",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        let line = err.lines().find(|l| l.starts_with("elapsed_ms=")).unwrap();
        assert!(
            line.contains(&format!(" rows=1 reads_files={reads} peak_memory=")),
            "{option}: {line}"
        );
    }
}

//! Bad input and failures through the Session API: each one is a clear
//! error of the right [`Error`] variant and exit code (2: fix the input;
//! 3: it failed while running), never a panic.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray};
use tenon::{Error, Session};

use crate::common::*;

/// Runs `f`, failing the test if it panics.
fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| panic!("{what}: panicked instead of returning an error"))
}

fn s() -> Session {
    session(2, 8192)
}

#[test]
fn sql_syntax_error_has_line_and_column() {
    let e = query_err(&s(), "SELECT k\nFROM a WHERE k = = 3");
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    let msg = e.to_string();
    assert!(msg.contains("line 2, column"), "{msg}");
    let e = query_err(&s(), "SELEC * FROM a");
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    // EXPLAIN and the stream fail the same way, before running
    assert!(matches!(s().explain("SELEC * FROM a"), Err(Error::Sql(_))));
    assert!(matches!(s().sql("SELEC * FROM a"), Err(Error::Sql(_))));
}

#[test]
fn empty_and_multiple_statements_are_errors() {
    for sql in ["", "   ", "SELECT 1; SELECT 2"] {
        let e = query_err(&s(), sql);
        assert_eq!(e.exit_code(), 2, "{sql:?}: {e}");
    }
}

#[test]
fn unknown_table_is_named_with_the_known_ones() {
    let e = query_err(&s(), "SELECT * FROM a JOIN nowhere ON a.k = nowhere.k");
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    let msg = e.to_string();
    assert!(msg.contains("nowhere") && msg.contains("a, b"), "{msg}");
}

#[test]
fn unknown_column_is_named() {
    let e = query_err(&s(), "SELECT a.missing FROM a");
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("missing"), "{e}");
    let e = query_err(&s(), "SELECT * FROM a JOIN b ON a.k = b.nope");
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert!(e.to_string().contains("nope"), "{e}");
    // ambiguous: k is in a and in b
    let e = query_err(&s(), "SELECT k FROM a JOIN b ON a.k = b.k");
    assert_eq!(e.exit_code(), 2, "{e}");
}

#[test]
fn type_errors_are_input_errors() {
    let e = query_err(&s(), "SELECT s + 1 FROM a");
    assert_eq!(e.exit_code(), 2, "{e:?}");
    let e = query_err(&s(), "SELECT * FROM a WHERE s");
    assert_eq!(e.exit_code(), 2, "{e:?}");
}

#[test]
fn unknown_setting_lists_the_settings() {
    let mut s = s();
    let e = no_panic("set", || s.set("broadcast_treshold", "1MB")).unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    let msg = e.to_string();
    assert!(
        msg.contains("broadcast_treshold") && msg.contains("broadcast_threshold"),
        "{msg}"
    );
}

#[test]
fn bad_setting_values_say_what_is_expected() {
    let mut s = s();
    for (k, v, hint) in [
        ("memory_limit", "lots", "memory_limit"),
        ("broadcast_threshold", "10XB", "broadcast_threshold"),
        ("hint_mode", "loose", "strict"),
        ("disabled_strategies", "HASH", "SHUFFLE_HASH"),
        ("threads", "-1", "threads"),
        ("batch_size", "0", "batch_size"),
    ] {
        let e = no_panic("set", || s.set(k, v)).unwrap_err();
        assert!(matches!(e, Error::Config(_)), "{k}={v}: {e:?}");
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(msg.contains(v) && msg.contains(hint), "{k}={v}: {msg}");
    }
    // the session is unchanged and still works
    assert_eq!(run(&s, "SELECT count(*) FROM a"), ["8"]);
}

#[test]
fn missing_file_is_an_input_error() {
    let mut s = s();
    let path = std::env::temp_dir().join("tenon-sql-tests-no-such-dir/t.parquet");
    let e = no_panic("register_file", || s.register_file("t", &path)).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("t.parquet"), "{e}");
    // nothing was registered
    assert!(matches!(query_err(&s, "SELECT * FROM t"), Error::Sql(_)));
}

#[test]
fn corrupt_parquet_file_is_an_input_error() {
    let dir = temp_dir("corrupt-parquet");
    let mut s = s();
    for (name, bytes) in [
        (
            "garbage.parquet",
            b"this is not a parquet file at all, not even close".to_vec(),
        ),
        ("empty.parquet", Vec::new()),
        // the magic bytes at both ends, nothing sensible between
        (
            "magic.parquet",
            [b"PAR1".as_slice(), &[0xff; 64], &[10, 0, 0, 0], b"PAR1"].concat(),
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let e = no_panic(name, || s.register_file("t", &path)).unwrap_err();
        assert!(matches!(e, Error::Io(_)), "{name}: {e:?}");
        assert_eq!(e.exit_code(), 2, "{name}");
        assert!(e.to_string().contains(name), "{name}: {e}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_csv_files_are_input_errors() {
    let dir = temp_dir("bad-csv");
    let mut s = s();
    // a row with too many fields
    let path = dir.join("ragged.csv");
    std::fs::write(&path, "k,v\n1,2\n3,4,5\n").unwrap();
    let e = no_panic("ragged", || s.register_file("t", &path)).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("ragged.csv"), "{e}");
    // an unknown extension
    let path = dir.join("data.xlsx");
    std::fs::write(&path, "k\n1\n").unwrap();
    let e = no_panic("xlsx", || s.register_file("t", &path)).unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn files_of_each_format_register_and_query() {
    // the positive side of the file errors: a good CSV file works
    let dir = temp_dir("good-csv");
    let path = dir.join("a.csv");
    std::fs::write(&path, table_a().to_csv()).unwrap();
    let mut s = empty_session(2, 8192);
    s.register_file("a", &path).unwrap();
    assert_eq!(
        run(&s, "SELECT count(*), count(k), sum(v) FROM a"),
        ["8|6|181"]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_join_strategy_spills_under_a_memory_limit_not_in_by_a_loop_too() {
    // large enough that the join needs far more than 1 KB
    let n = 5_000i64;
    let t = RecordBatch::try_from_iter([
        ("k", Arc::new(Int64Array::from_iter_values(0..n)) as _),
        (
            "s",
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("row {i}")),
            )) as _,
        ),
    ])
    .unwrap();
    let session = |limit: &str| {
        let mut s = empty_session(2, 8192);
        s.register_batch("x", t.clone()).unwrap();
        s.register_batch("y", t.clone()).unwrap();
        s.set("memory_limit", limit).unwrap();
        s
    };
    for strategy in STRATEGIES {
        let sql = format!(
            "SELECT /*+ {}(y) */ count(*) FROM x JOIN y ON x.k = y.k",
            strategy.name()
        );
        // A nested loop joins blocks that fit with every row of the other
        // side: at 1KB, thousands of passes; at 32KB, a few.
        let limit = if strategy.name() == "NEST_LOOP" {
            "32KB"
        } else {
            "1KB"
        };
        assert_eq!(run(&session(limit), &sql), [n.to_string()], "{sql}");
    }
    // NOT IN by a nested loop (no keys to split by) runs NOT IN on blocks
    // of the right side, as without the limit
    let mut s = session("32KB");
    s.set(
        "disabled_strategies",
        "BROADCAST,SHUFFLE_HASH,SHUFFLE_MERGE",
    )
    .unwrap();
    let sql = "SELECT count(*) FROM x WHERE k NOT IN (SELECT k FROM y)";
    let (explain, out) = s.explain_analyze(sql).unwrap();
    let text = explain.to_text();
    assert!(!text.contains("block_joins=0"), "{text}");
    let limited = row_strings(&out.batches);
    s.set("memory_limit", "unlimited").unwrap();
    assert_eq!(limited, run(&s, sql), "{sql}");
}

#[test]
fn integer_overflow_in_sum_is_an_execution_error() {
    let t =
        RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(vec![i64::MAX, 1, 2])) as _)])
            .unwrap();
    let mut s = empty_session(2, 8192);
    s.register_batch("big", t).unwrap();
    let e = query_err(&s, "SELECT sum(v) FROM big");
    assert!(matches!(e, Error::Execution(_)), "{e:?}");
    assert_eq!(e.exit_code(), 3);
    assert!(e.to_string().to_lowercase().contains("overflow"), "{e}");
    // in arithmetic too
    let e = query_err(&s, "SELECT v + 1 FROM big");
    assert!(matches!(e, Error::Execution(_)), "{e:?}");
    assert_eq!(e.exit_code(), 3);
}

#[test]
fn division_by_zero_is_an_execution_error() {
    let e = query_err(&s(), "SELECT v / 0 FROM a");
    assert!(matches!(e, Error::Execution(_)), "{e:?}");
    assert_eq!(e.exit_code(), 3);
    assert!(e.to_string().to_lowercase().contains("zero"), "{e}");
}

#[test]
fn bad_cast_of_a_value_is_an_execution_error() {
    let e = query_err(&s(), "SELECT CAST(s AS BIGINT) FROM a");
    assert!(matches!(e, Error::Execution(_)), "{e:?}");
    assert_eq!(e.exit_code(), 3);
}

/// An execution error arrives in the stream, not as a panic, and the
/// stream ends after it.
#[test]
fn execution_errors_arrive_in_the_stream() {
    let s = s();
    let stream = s
        .sql("SELECT v / 0 FROM a")
        .and_then(|q| q.stream())
        .expect("planning succeeds");
    let items: Vec<_> = stream.collect();
    let errors: Vec<_> = items.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1, "{items:?}");
    assert_eq!(errors[0].exit_code(), 3);
    assert!(items.last().unwrap().is_err());
}

#[test]
fn schema_mismatch_in_register_batches_is_an_error() {
    let mut s = s();
    let b1 = table_a().batch();
    let b2 = table_n().batch();
    let e = no_panic("register_batches", || {
        s.register_batches("m", b1.schema(), vec![b1.clone(), b2])
    })
    .unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e:?}");
}

#[test]
fn unsupported_statements_are_input_errors() {
    for sql in [
        "INSERT INTO a VALUES (1, 2, 'x')",
        "DELETE FROM a",
        // DDL tenon runs, wrong: no WITH options, a table that is not there
        "CREATE TABLE x (k BIGINT)",
        "DROP TABLE nowhere",
        "DROP INDEX i",
    ] {
        let e = query_err(&s(), sql);
        assert_eq!(e.exit_code(), 2, "{sql}: {e:?}");
    }
    // the table is still there
    assert_eq!(run(&s(), "SELECT count(*) FROM a"), ["8"]);
}

/// Whatever tenon does not run yet is a clean error (exit code 2), never
/// a panic; what it runs must be right.
#[test]
fn constructs_tenon_may_not_run_yet_fail_cleanly() {
    let s = s();
    for (sql, expected) in [
        (
            "SELECT s, row_number() OVER (ORDER BY s) FROM a WHERE k = 1",
            vec!["a-1|1", "a-2|2"],
        ),
        (
            "SELECT k, v FROM a WHERE (k, v) IN (SELECT k, v FROM b)",
            vec!["2|30"],
        ),
        (
            // b's averages: k=1 11.67, k=2 32.5, k=3 1; a's k=5 has no group
            "SELECT s FROM a WHERE v > (SELECT avg(v) FROM b WHERE b.k = a.k)",
            vec!["a-2"],
        ),
        (
            "SELECT s FROM a WHERE k = ANY (SELECT k FROM n)",
            vec!["a-1", "a-2"],
        ),
        ("SELECT k FROM a INTERSECT SELECT k FROM n", vec!["1"]),
        ("SELECT k FROM n EXCEPT SELECT k FROM a", vec!["4"]),
        (
            "SELECT s FROM a, LATERAL (SELECT b.k FROM b WHERE b.k = a.k LIMIT 1) l",
            vec!["a-1", "a-2", "a-3", "a-5", "NULL"],
        ),
    ] {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.collect(sql)));
        match r {
            Err(_) => panic!("{sql}: panicked"),
            Ok(Ok(batches)) => {
                let mut expected: Vec<String> = expected.iter().map(|x| x.to_string()).collect();
                expected.sort();
                assert_eq!(row_strings(&batches), expected, "{sql}");
            }
            Ok(Err(e)) => assert_eq!(e.exit_code(), 2, "{sql}: {e:?}"),
        }
    }
}

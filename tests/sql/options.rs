//! Dynamic table options `t /*+ OPTIONS('k' = 'v') */` (docs/hints.md H40–H42):
//! they override the table's options for that one scan (the file re-read
//! with them), other scans of the same table keep the table's; keys are
//! checked per format, values parsed; a table held in memory takes
//! `scan.batch-size` only; EXPLAIN ANALYZE shows the rows a scan skipped.

use std::path::Path;

use tenon::io::{OutputFormat, write_to_path};
use tenon::{Error, Session};

use crate::common::*;

fn sess() -> Session {
    session_with(&std_tables(), 2, 8192)
}

/// A CSV file `p.csv` (`k,v`: 1,x / 2,NA / 3,(empty) / 4,bad) registered
/// as `p` with `CREATE TABLE p (k BIGINT, v STRING)` and as `pv` with
/// `v BIGINT` (where `x`, `NA` and `bad` do not fit).
fn csv_tables(s: &Session, dir: &Path) {
    let path = dir.join("p.csv");
    std::fs::write(&path, "k,v\n1,x\n2,NA\n3,\n4,bad\n").unwrap();
    for (name, v) in [("p", "STRING"), ("pv", "BIGINT")] {
        s.execute(&format!(
            "CREATE TABLE {name} (k BIGINT, v {v}) WITH ('connector' = 'filesystem', \
             'path' = '{}', 'format' = 'csv')",
            path.display()
        ))
        .unwrap();
    }
}

#[test]
fn h40_options_apply_to_their_scan_only_in_a_join() {
    let dir = temp_dir("opt-join");
    let s = sess();
    csv_tables(&s, &dir);
    let sql = "SELECT /*+ BROADCAST(y) */ x.k, x.v, y.v \
               FROM p /*+ OPTIONS('csv.null-literal' = 'NA') */ AS x JOIN p AS y ON x.k = y.k";
    assert_eq!(
        run(&s, sql),
        ["1|x|x", "2|NULL|NA", "3|NULL|NULL", "4|bad|bad"]
    );
    // each scan says what it reads
    let tree = s.explain(sql).unwrap().tree().to_string();
    assert!(
        tree.contains("Scan: p /*+ OPTIONS('csv.null-literal'='NA') */ AS x")
            && tree.contains("Scan: p AS y"),
        "{tree}"
    );
    // the same table again later in the query: its own options
    assert_eq!(
        run(
            &s,
            "SELECT count(v) FROM p /*+ OPTIONS('csv.null-literal' = 'NA') */ \
             UNION ALL SELECT count(v) + 100 FROM p"
        ),
        ["103", "2"]
    );
}

#[test]
fn h40_options_override_the_tables_own_options() {
    let dir = temp_dir("opt-override");
    let s = sess();
    csv_tables(&s, &dir);
    // the table's options fail on `x`; this scan skips the bad rows
    let e = query_err(&s, "SELECT sum(v) FROM pv");
    assert!(e.to_string().contains("line 2, column `v`"), "{e}");
    // Flink's meaning: the bad fields NULL, every row kept
    let nulled = "SELECT sum(k), sum(v) FROM pv /*+ OPTIONS('csv.ignore-parse-errors' = 'true') */";
    assert_eq!(run(&s, nulled), ["10|NULL"]);
    let hinted = "SELECT sum(k), sum(v) FROM pv /*+ OPTIONS('csv.ignore-parse-errors' = 'true', \
                  'csv.skip-bad-rows' = 'true') */";
    assert_eq!(run(&s, hinted), ["3|NULL"]);
    // only the row with the empty field (NULL) is left: 3 rows skipped
    let (x, out) = s.explain_analyze(hinted).unwrap();
    assert_eq!(row_strings(&out.batches), ["3|NULL"]);
    let tree = x.tree().to_string();
    assert!(
        tree.lines().any(|l| l.contains("Scan: pv /*+ OPTIONS(")
            && l.contains("skipped_rows=3 (csv.ignore-parse-errors)")),
        "{tree}"
    );
    // a scan without the option shows no count
    let (x, _) = s.explain_analyze("SELECT count(*) FROM p").unwrap();
    assert!(!x.tree().contains("skipped_rows"), "{}", x.tree());
}

#[test]
fn h40_a_registered_file_is_read_again_for_a_scan_with_options_only() {
    let dir = temp_dir("opt-reread");
    let path = dir.join("r.csv");
    std::fs::write(&path, "k,v\n1,x\n2,NA\n").unwrap();
    let mut s = sess();
    s.register_file_in_memory("r", &path).unwrap();
    let mut lazy = sess();
    lazy.register_file("r", &path).unwrap();
    // the file changes after registration: the rows of the table held in
    // memory do not, a scan with options reads the file as it is now, and
    // so does every scan of a table read lazily
    std::fs::write(&path, "k,v\n1,x\n2,NA\n3,NA\n").unwrap();
    assert_eq!(run(&s, "SELECT count(*) FROM r"), ["2"]);
    assert_eq!(run(&lazy, "SELECT count(*) FROM r"), ["3"]);
    assert_eq!(
        run(
            &s,
            "SELECT count(v) FROM r /*+ OPTIONS('csv.null-literal' = 'NA') */"
        ),
        ["1"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT count(*) FROM r /*+ OPTIONS('csv.null-literal' = 'NA') */"
        ),
        ["3"]
    );
}

#[test]
fn h40_options_inside_a_view_apply_wherever_it_is_read() {
    let dir = temp_dir("opt-view");
    let s = sess();
    csv_tables(&s, &dir);
    s.execute("CREATE VIEW clean AS SELECT k, v FROM p /*+ OPTIONS('csv.null-literal' = 'NA') */")
        .unwrap();
    assert_eq!(run(&s, "SELECT count(v) FROM clean"), ["2"]);
    assert_eq!(
        run(
            &s,
            "SELECT count(*) FROM clean c JOIN p ON c.k = p.k WHERE p.v IS NOT NULL"
        ),
        ["3"]
    );
}

#[test]
fn h42_batch_sizes_apply_to_files_and_to_tables_in_memory() {
    let dir = temp_dir("opt-batch");
    let s = sess();
    csv_tables(&s, &dir);
    let pq = dir.join("a.parquet");
    let a = table_a().batch();
    write_to_path(
        std::slice::from_ref(&a),
        &a.schema(),
        OutputFormat::Parquet,
        &pq,
    )
    .unwrap();
    s.execute(&format!(
        "CREATE TABLE ap (k BIGINT, v BIGINT, s STRING) WITH ('connector' = 'filesystem', \
         'path' = '{}', 'format' = 'parquet')",
        pq.display()
    ))
    .unwrap();
    for (sql, most) in [
        ("SELECT k FROM p /*+ OPTIONS('scan.batch-size' = '1') */", 1),
        (
            "SELECT k FROM ap /*+ OPTIONS('parquet.batch-size' = '3') */",
            3,
        ),
        (
            "SELECT k FROM ap /*+ OPTIONS('scan.batch-size' = '2') */",
            2,
        ),
        ("SELECT k FROM a /*+ OPTIONS('scan.batch-size' = '5') */", 5),
    ] {
        let batches = collect(&s, sql);
        let sizes: Vec<usize> = batches.iter().map(|b| b.num_rows()).collect();
        assert!(
            sizes.iter().all(|&n| n <= most) && sizes.len() > 1,
            "{sql}: {sizes:?}"
        );
    }
    assert_eq!(
        run(
            &s,
            "SELECT k, v, s FROM ap /*+ OPTIONS('parquet.batch-size' = '3') */"
        ),
        run(&s, "SELECT k, v, s FROM a")
    );
}

#[test]
fn h41_keys_are_checked_against_the_tables_format() {
    let dir = temp_dir("opt-keys");
    let s = sess();
    csv_tables(&s, &dir);
    let pq = dir.join("a.parquet");
    let a = table_a().batch();
    write_to_path(
        std::slice::from_ref(&a),
        &a.schema(),
        OutputFormat::Parquet,
        &pq,
    )
    .unwrap();
    s.execute(&format!(
        "CREATE TABLE ap (k BIGINT) WITH ('connector' = 'filesystem', 'path' = '{}', \
         'format' = 'parquet')",
        pq.display()
    ))
    .unwrap();
    for (sql, wants) in [
        // a CSV key on a Parquet table: the Parquet keys are listed
        (
            "SELECT * FROM ap /*+ OPTIONS('csv.has-header' = 'false') */",
            vec![
                "'csv.has-header'",
                "'parquet.batch-size', 'scan.batch-size'",
                "line 1, column 22",
            ],
        ),
        // a table in memory has no file: only scan.batch-size
        (
            "SELECT * FROM a /*+ OPTIONS('csv.null-literal' = 'NA') */",
            vec!["table `a`", "no file behind it", "'scan.batch-size'"],
        ),
        // the table's definition is not the scan's to change
        (
            "SELECT * FROM p /*+ OPTIONS('path' = '/etc/passwd') */",
            vec!["'path'", "cannot be changed"],
        ),
        (
            "SELECT * FROM p /*+ OPTIONS('csv.quote-character' = '') */",
            vec!["''", "one ASCII character"],
        ),
        (
            "SELECT * FROM ap /*+ OPTIONS('parquet.batch-size' = '0') */",
            vec!["'0'", "whole number"],
        ),
    ] {
        let e = query_err(&s, sql);
        assert_eq!(e.exit_code(), 2, "{sql}: {e}");
        assert!(matches!(e, Error::Options(_)), "{sql}: {e:?}");
        let msg = e.to_string();
        for w in wants {
            assert!(msg.contains(w), "{sql}\n  {msg}\n  wants {w}");
        }
    }
    // OPTIONS without 'key' = 'value' pairs
    let e = query_err(&s, "SELECT * FROM p /*+ OPTIONS(scan) */");
    assert!(
        matches!(e, Error::Hint(_)) && e.to_string().contains("'key' = 'value'"),
        "{e}"
    );
    // H25: within one hint the last value of a key wins
    assert_eq!(
        run(
            &s,
            "SELECT count(v) FROM p /*+ OPTIONS('csv.null-literal' = 'x', \
             'csv.null-literal' = 'NA') */"
        ),
        ["2"]
    );
}

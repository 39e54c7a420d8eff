//! Flink-style DDL for files: `CREATE TABLE t (col TYPE [NOT NULL], ...)
//! WITH ('connector' = 'filesystem', 'path' = ..., 'format' = ..., ...)` in
//! every format, the declared schema enforced (a value that does not fit
//! names its column and row, or line), `csv.ignore-parse-errors`, option
//! keys and values checked, `DROP TABLE`, and scripts of statements.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use tenon::io::{OutputFormat, write_to_path};
use tenon::{Error, Session};

use crate::common::*;

fn sess() -> Session {
    session_with(&std_tables(), 2, 8192)
}

/// `CREATE TABLE name (cols) WITH ('connector' = 'filesystem', 'path' =
/// path, 'format' = format, extra...)`.
fn create(s: &Session, name: &str, cols: &str, path: &Path, format: &str, extra: &str) {
    let sql = create_sql(name, cols, path, format, extra);
    s.execute(&sql)
        .unwrap_or_else(|e| panic!("{sql}\n  failed: {e}"));
}

fn create_sql(name: &str, cols: &str, path: &Path, format: &str, extra: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(", {extra}")
    };
    format!(
        "CREATE TABLE {name} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{}', \
         'format' = '{format}'{extra})",
        path.display()
    )
}

fn create_err(s: &Session, sql: &str) -> Error {
    match s.execute(sql) {
        Ok(_) => panic!("{sql}: expected an error"),
        Err(e) => e,
    }
}

/// Rows `(k, s)`: (1, 'x'), (2, NULL), (3, 'z').
fn ks_batch() -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![Some(1), Some(2), Some(3)])),
            Arc::new(StringArray::from(vec![Some("x"), None, Some("z")])),
        ],
    )
    .unwrap()
}

#[test]
fn create_table_in_every_format() {
    let dir = temp_dir("ddl-formats");
    let s = sess();
    let batch = ks_batch();
    for (format, file, out) in [
        ("parquet", "t.parquet", OutputFormat::Parquet),
        ("arrow", "t.arrow", OutputFormat::Arrow),
        ("json", "t.ndjson", OutputFormat::Ndjson),
        ("csv", "t.csv", OutputFormat::Csv),
    ] {
        let path = dir.join(file);
        write_to_path(std::slice::from_ref(&batch), &batch.schema(), out, &path).unwrap();
        let name = format!("t_{format}");
        // declared INT (Int32) and STRING: the values are cast to them
        create(&s, &name, "k INT, s STRING", &path, format, "");
        let out = s.query(&format!("SELECT k, s FROM {name}")).unwrap();
        assert_eq!(
            out.schema.field(0).data_type(),
            &DataType::Int32,
            "{format}"
        );
        assert_eq!(
            row_strings(&out.batches),
            ["1|x", "2|NULL", "3|z"],
            "{format}"
        );
        // a declared table joins like any other, and hints name it
        let sql = format!(
            "SELECT /*+ BROADCAST({name}) */ a.s, {name}.s FROM a JOIN {name} ON a.k = {name}.k"
        );
        assert_eq!(
            strategies(&s, &sql),
            [sb(tenon::kernels::Strategy::Broadcast, Some(&name))],
            "{format}"
        );
        assert_eq!(run(&s, &sql).len(), 5, "{format}");
    }
    // a directory of files is one table
    let sub = dir.join("parts");
    std::fs::create_dir(&sub).unwrap();
    for i in 0..3 {
        std::fs::write(sub.join(format!("p{i}.csv")), format!("k,s\n{i},v{i}\n")).unwrap();
    }
    create(&s, "parts", "k BIGINT NOT NULL, s STRING", &sub, "csv", "");
    assert_eq!(run(&s, "SELECT sum(k), count(s) FROM parts"), ["3|3"]);
}

#[test]
fn csv_options_delimiter_header_quote_and_null_literal() {
    let dir = temp_dir("ddl-csv-options");
    let path = dir.join("t.txt");
    std::fs::write(&path, "1;'a;b'\n2;NA\n3;\n").unwrap();
    let s = sess();
    create(
        &s,
        "t",
        "id BIGINT, name STRING",
        &path,
        "csv",
        "'csv.field-delimiter' = ';', 'csv.has-header' = 'false', \
         'csv.quote-character' = '''', 'csv.null-literal' = 'NA'",
    );
    assert_eq!(
        run(&s, "SELECT id, name FROM t"),
        ["1|a;b", "2|NULL", "3|NULL"]
    );
    // the file's extension does not matter: 'format' says what it is
    assert_eq!(run(&s, "SELECT count(*) FROM t WHERE name IS NULL"), ["2"]);
}

#[test]
fn the_declared_schema_is_enforced_naming_column_and_row() {
    let dir = temp_dir("ddl-enforce");
    let s = sess();
    // CSV: the file, line and column, and the value
    let csv = dir.join("t.csv");
    std::fs::write(&csv, "id,amount\n1,10\n2,x12\n3,30\n").unwrap();
    create(&s, "t", "id BIGINT, amount INT", &csv, "csv", "");
    let e = query_err(&s, "SELECT sum(amount) FROM t");
    assert_eq!(e.exit_code(), 2, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("t.csv, line 3, column `amount`") && msg.contains("`x12`"),
        "{msg}"
    );
    assert!(msg.contains("csv.ignore-parse-errors"), "{msg}");
    // a value too large for the declared type
    std::fs::write(&csv, "id,amount\n1,10\n2,3000000000\n").unwrap();
    create(&s, "t2", "id BIGINT, amount INT", &csv, "csv", "");
    let msg = query_err(&s, "SELECT * FROM t2").to_string();
    assert!(
        msg.contains("line 3") && msg.contains("3000000000"),
        "{msg}"
    );
    // NOT NULL
    std::fs::write(&csv, "id,amount\n1,10\n,20\n").unwrap();
    create(&s, "t3", "id BIGINT NOT NULL, amount INT", &csv, "csv", "");
    let msg = query_err(&s, "SELECT * FROM t3").to_string();
    assert!(
        msg.contains("line 3, column `id`") && msg.contains("NOT NULL"),
        "{msg}"
    );
    // a row with another number of fields
    std::fs::write(&csv, "id,amount\n1,10\n2\n").unwrap();
    create(&s, "t4", "id BIGINT, amount INT", &csv, "csv", "");
    let msg = query_err(&s, "SELECT * FROM t4").to_string();
    assert!(msg.contains("line 3") && msg.contains("1 fields"), "{msg}");
    // Parquet: the row (1-based) and column
    let pq = dir.join("big.parquet");
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from(vec![1, 5_000_000_000, 3]))],
    )
    .unwrap();
    write_to_path(&[batch], &schema, OutputFormat::Parquet, &pq).unwrap();
    create(&s, "p", "n INT", &pq, "parquet", "");
    let msg = query_err(&s, "SELECT * FROM p").to_string();
    assert!(
        msg.contains("big.parquet, row 2, column `n`") && msg.contains("5000000000"),
        "{msg}"
    );
    // a declared column the file does not have
    create(&s, "p2", "n BIGINT, missing STRING", &pq, "parquet", "");
    let msg = query_err(&s, "SELECT * FROM p2").to_string();
    assert!(
        msg.contains("no column `missing`") && msg.contains("`n`"),
        "{msg}"
    );
    // ... and with the values fitting, the table reads
    create(&s, "p3", "n BIGINT NOT NULL", &pq, "parquet", "");
    assert_eq!(run(&s, "SELECT count(*) FROM p3"), ["3"]);
}

#[test]
fn ignore_parse_errors_skips_and_counts_bad_rows() {
    let dir = temp_dir("ddl-ignore");
    let path = dir.join("t.csv");
    std::fs::write(&path, "id,amount\n1,10\n2,x\n3\n4,40\n5,50,extra\n").unwrap();
    let s = sess();
    create(
        &s,
        "t",
        "id BIGINT, amount INT",
        &path,
        "csv",
        "'csv.ignore-parse-errors' = 'true'",
    );
    // `2,x` is kept with its amount NULL (Flink's meaning); the rows of
    // another number of fields are skipped and counted
    assert_eq!(
        run(&s, "SELECT id, amount FROM t"),
        ["1|10", "2|NULL", "4|40"]
    );
    let (x, _) = s.explain_analyze("SELECT sum(amount) FROM t").unwrap();
    let tree = x.tree().to_string();
    assert!(
        tree.lines()
            .any(|l| l.contains("Scan: t") && l.contains("skipped_rows=2")),
        "{tree}"
    );
}

#[test]
fn unknown_connector_format_and_keys_are_errors_listing_the_valid_ones() {
    let dir = temp_dir("ddl-keys");
    let path = dir.join("t.csv");
    std::fs::write(&path, "k\n1\n").unwrap();
    let s = sess();
    let p = path.display();
    for (sql, wants) in [
        (
            format!(
                "CREATE TABLE t (k BIGINT) WITH ('connector' = 'kafka', 'path' = '{p}', 'format' = 'csv')"
            ),
            vec!["'kafka'", "'filesystem'"],
        ),
        (
            format!(
                "CREATE TABLE t (k BIGINT) WITH ('connector' = 'filesystem', 'path' = '{p}', 'format' = 'orc')"
            ),
            vec!["'orc'", "'parquet', 'csv', 'arrow', 'json'"],
        ),
        (
            format!("CREATE TABLE t (k BIGINT) WITH ('connector' = 'filesystem', 'path' = '{p}')"),
            vec!["'format' is required"],
        ),
        (
            "CREATE TABLE t (k BIGINT) WITH ('connector' = 'filesystem', 'format' = 'csv')"
                .to_string(),
            vec!["'path' is required"],
        ),
        (
            create_sql(
                "t",
                "k BIGINT",
                &path,
                "csv",
                "'csv.allow-comments' = 'true'",
            ),
            vec![
                "'csv.allow-comments'",
                "'csv.field-delimiter'",
                "'scan.batch-size'",
            ],
        ),
        (
            create_sql(
                "t",
                "k BIGINT",
                &path,
                "parquet",
                "'csv.has-header' = 'true'",
            ),
            vec!["'csv.has-header'", "'parquet.batch-size'"],
        ),
        (
            create_sql(
                "t",
                "k BIGINT",
                &path,
                "csv",
                "'csv.field-delimiter' = ';;'",
            ),
            vec!["';;'", "one ASCII character"],
        ),
        (
            create_sql("t", "k BIGINT", &path, "csv", "'csv.has-header' = 'yes'"),
            vec!["'yes'", "'true' or 'false'"],
        ),
        (
            create_sql(
                "t",
                "k BIGINT",
                &path,
                "parquet",
                "'parquet.batch-size' = '-1'",
            ),
            vec!["'-1'", "whole number"],
        ),
    ] {
        let e = create_err(&s, &sql);
        assert_eq!(e.exit_code(), 2, "{sql}: {e}");
        assert!(matches!(e, Error::Options(_)), "{sql}: {e:?}");
        let msg = e.to_string();
        for w in wants {
            assert!(msg.contains(w), "{sql}\n  {msg}\n  wants {w}");
        }
    }
    assert!(!s.table_names().contains(&"t".to_string()));
    // a path that does not exist, an unknown type, unsupported forms
    let e = create_err(
        &s,
        &create_sql("t", "k BIGINT", &dir.join("nope.csv"), "csv", ""),
    );
    assert!(matches!(e, Error::Io(_)) && e.exit_code() == 2, "{e}");
    for sql in [
        create_sql("t", "k GEOGRAPHY", &path, "csv", ""),
        "CREATE TABLE t AS SELECT * FROM a".to_string(),
        "CREATE TABLE t WITH ('connector' = 'filesystem')".to_string(),
        create_sql("t", "k BIGINT DEFAULT 1", &path, "csv", ""),
    ] {
        let e = create_err(&s, &sql);
        assert_eq!(e.exit_code(), 2, "{sql}: {e}");
    }
}

#[test]
fn a_table_file_is_read_when_first_scanned() {
    let dir = temp_dir("ddl-lazy");
    let path = dir.join("t.csv");
    // a bad row: CREATE TABLE does not read the file, the query does
    std::fs::write(&path, "id\n1\nbad\n3\n").unwrap();
    let s = sess();
    create(&s, "t", "id BIGINT", &path, "csv", "");
    let msg = query_err(&s, "SELECT * FROM t").to_string();
    assert!(msg.contains("line 3"), "{msg}");
    // this scan skips it (OPTIONS), the table's own options still fail
    assert_eq!(
        run(
            &s,
            "SELECT sum(id) FROM t /*+ OPTIONS('csv.ignore-parse-errors' = 'true') */"
        ),
        ["4"]
    );
    assert!(s.query("SELECT * FROM t").is_err());
    // each query reads the file as it is then
    std::fs::write(&path, "id\n1\n2\n").unwrap();
    assert_eq!(run(&s, "SELECT sum(id) FROM t"), ["3"]);
    std::fs::write(&path, "id\n100\n").unwrap();
    assert_eq!(run(&s, "SELECT sum(id) FROM t"), ["100"]);
    // held in memory ('scan.in-memory'): once read, the rows are kept, and
    // the file changing does not change them
    create(
        &s,
        "m",
        "id BIGINT",
        &path,
        "csv",
        "'scan.in-memory' = 'true'",
    );
    assert_eq!(run(&s, "SELECT sum(id) FROM m"), ["100"]);
    std::fs::write(&path, "id\n1\n2\n").unwrap();
    assert_eq!(run(&s, "SELECT sum(id) FROM m"), ["100"]);
    assert_eq!(run(&s, "SELECT sum(id) FROM t"), ["3"]);
    let err = create_err(
        &s,
        &create_sql("b", "id BIGINT", &path, "csv", "'scan.in-memory' = 'maybe'"),
    );
    assert!(err.to_string().contains("scan.in-memory"), "{err}");
}

#[test]
fn drop_table_and_name_rules() {
    let dir = temp_dir("ddl-drop");
    let path = dir.join("t.csv");
    std::fs::write(&path, "k\n1\n2\n").unwrap();
    let s = sess();
    create(&s, "t", "k BIGINT", &path, "csv", "");
    // the name is taken
    let e = create_err(&s, &create_sql("t", "k BIGINT", &path, "csv", ""));
    assert!(
        matches!(e, Error::Ddl(_)) && e.to_string().contains("already exists"),
        "{e}"
    );
    let sql =
        create_sql("t", "k BIGINT", &path, "csv", "").replace("TABLE t", "TABLE IF NOT EXISTS t");
    s.execute(&sql).unwrap();
    let sql = create_sql(
        "t",
        "k INT, extra STRING",
        &path,
        "csv",
        "'csv.ignore-parse-errors' = 'true'",
    )
    .replace("CREATE TABLE", "CREATE OR REPLACE TABLE");
    s.execute(&sql).unwrap();
    // replaced: two columns, every row has one field: all skipped
    assert_eq!(run(&s, "SELECT count(*) FROM t"), ["0"]);
    // a table of the session (registered batches) can be dropped too
    s.execute("DROP TABLE n").unwrap();
    s.execute("DROP TEMPORARY TABLE t").unwrap();
    for name in ["t", "n"] {
        let e = query_err(&s, &format!("SELECT * FROM {name}"));
        assert!(e.to_string().contains("unknown table"), "{e}");
    }
    let e = create_err(&s, "DROP TABLE t");
    assert!(
        matches!(e, Error::Ddl(_)) && e.to_string().contains("no such table"),
        "{e}"
    );
    s.execute("DROP TABLE IF EXISTS t").unwrap();
    s.execute("CREATE VIEW v AS SELECT 1").unwrap();
    let e = create_err(&s, "DROP TABLE v");
    assert!(e.to_string().contains("DROP VIEW v"), "{e}");
    let e = create_err(&s, &create_sql("v", "k BIGINT", &path, "csv", ""));
    assert!(e.to_string().contains("a view has that name"), "{e}");
}

#[test]
fn execute_script_runs_statements_and_names_the_one_that_fails() {
    let dir = temp_dir("ddl-script");
    let path = dir.join("t.csv");
    std::fs::write(&path, "k,s\n1,a\n2,b\n3,c\n").unwrap();
    let mut s = sess();
    let script = format!(
        "-- a table, a view, a query\n\
         {};\n\
         CREATE VIEW big AS SELECT k, s FROM t WHERE k > 1;\n\
         SELECT count(*) AS n FROM big;\n\
         SELECT s FROM big ORDER BY k DESC;",
        create_sql("t", "k BIGINT, s STRING", &path, "csv", "")
    );
    let out = s.execute_script(&script).unwrap().expect("a query");
    assert_eq!(row_strings_unsorted(&out.batches), ["c", "b"]);
    // an error in the middle: the statements before it have run
    let script = "CREATE VIEW first AS SELECT 1 AS one;\n\
                  SELECT *\n  FROM nowhere;\n\
                  CREATE VIEW third AS SELECT 3 AS three";
    let e = s.execute_script(script).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    let msg = e.to_string();
    assert!(
        msg.starts_with("statement 2 (line 2: `SELECT *`): ") && msg.contains("`nowhere`"),
        "{msg}"
    );
    assert!(s.view_names().contains(&"first".to_string()));
    assert!(!s.view_names().contains(&"third".to_string()));
    // a syntax error's position is the script's
    let e = s
        .execute_script("SELECT 1;\n\nSELECT 1 + * 2;")
        .unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
    // no query: nothing to return
    assert!(s.execute_script("DROP VIEW first;").unwrap().is_none());
}

#[test]
fn declared_tables_use_file_sizes_for_the_join_choice() {
    let dir = temp_dir("ddl-stats");
    let path = dir.join("t.parquet");
    let batch = ks_batch();
    write_to_path(
        std::slice::from_ref(&batch),
        &batch.schema(),
        OutputFormat::Parquet,
        &path,
    )
    .unwrap();
    let mut s = sess();
    create(&s, "t", "k BIGINT, s STRING", &path, "parquet", "");
    // a tiny file: broadcast by default; with a zero threshold, not
    let sql = "SELECT a.s FROM a JOIN t ON a.k = t.k";
    assert_eq!(
        strategies(&s, sql)[0].0,
        tenon::kernels::Strategy::Broadcast
    );
    s.set("broadcast_threshold", "0").unwrap();
    assert_ne!(
        strategies(&s, sql)[0].0,
        tenon::kernels::Strategy::Broadcast
    );
    let out = s.query("SELECT k FROM t").unwrap();
    let k = out.batches[0].column(0);
    assert_eq!(k.len(), 3);
}

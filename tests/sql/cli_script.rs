//! `tenon query -f/--file FILE` (docs/cli.md): a script of statements separated
//! by `;` (CREATE TABLE ... WITH, CREATE VIEW, queries, DROP), the last
//! query's result printed with --format/--output, --explain, --analyze and
//! --timing applying to it; an error names the file and the statement.

use std::path::Path;

use crate::cli_query::{fails, ok, tenon};
use crate::common::*;

/// A directory with `p.csv` and the script `s.sql` (`{p}` in `script`
/// becomes the CSV file's path).
fn script_dir(test: &str, script: &str) -> TempDir {
    let dir = temp_dir(test);
    std::fs::write(dir.join("p.csv"), "k,v\n1,10\n2,bad\n3,30\n4,40\n").unwrap();
    let p = dir.join("p.csv");
    std::fs::write(
        dir.join("s.sql"),
        script.replace("{p}", &p.display().to_string()),
    )
    .unwrap();
    dir
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

const SCRIPT: &str = "-- tables, a view, then queries\n\
    CREATE TABLE p (k BIGINT, v INT) WITH (\n\
      'connector' = 'filesystem', 'path' = '{p}', 'format' = 'csv',\n\
      'csv.ignore-parse-errors' = 'true', 'csv.skip-bad-rows' = 'true');\n\
    CREATE TEMPORARY VIEW pairs AS\n\
      SELECT /*+ NEST_LOOP(y) */ x.k, y.v FROM p x JOIN p y ON x.k = y.k;\n\
    SELECT count(*) FROM p;\n\
    SELECT /*+ BROADCAST(nation) */ count(*) AS n, sum(pairs.v) AS total\n\
      FROM pairs JOIN nation ON pairs.k = n_nationkey;\n";

#[test]
fn a_script_runs_ddl_views_and_prints_the_last_query() {
    let dir = script_dir("script-run", SCRIPT);
    let out = ok(&["--format", "csv", "-f", &path(&dir, "s.sql")]);
    assert_eq!(out, "n,total\n3,80\n");
    // --output writes it to a file
    let target = path(&dir, "out.csv");
    let out = ok(&[
        "--format",
        "csv",
        "--output",
        &target,
        "--file",
        &path(&dir, "s.sql"),
    ]);
    assert!(out.is_empty());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "n,total\n3,80\n");
}

#[test]
fn explain_analyze_and_timing_apply_to_the_last_query() {
    let dir = script_dir("script-explain", SCRIPT);
    let file = path(&dir, "s.sql");
    // the view's join comes first, decided by its own hint
    let json = ok(&["--explain", "--format", "json", "-f", &file]);
    let view = json.find(r#""strategy": "NEST_LOOP""#).expect(&json);
    let outer = json.find(r#""strategy": "BROADCAST""#).expect(&json);
    assert!(view < outer, "{json}");
    assert!(json.contains(r#""build": "nation""#), "{json}");
    let text = ok(&["--analyze", "-f", &file]);
    assert!(
        text.contains("skipped_rows=1 (csv.ignore-parse-errors)"),
        "{text}"
    );
    assert!(text.contains("(hint NEST_LOOP(y) applied)"), "{text}");
    let o = tenon(&["--timing", "--format", "csv", "-f", &file]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.lines().filter(|l| l.starts_with("elapsed_ms=")).count(),
        1,
        "{err}"
    );
    assert!(err.contains("rows=1"), "{err}");
}

#[test]
fn an_error_in_the_middle_names_the_statement_and_prints_nothing() {
    let script = "CREATE VIEW v AS SELECT n_name FROM nation;\n\
                  SELECT count(*)\n  FROM v JOIN nowhere ON true;\n\
                  SELECT count(*) FROM v;\n";
    let dir = script_dir("script-error", script);
    let file = path(&dir, "s.sql");
    let err = fails(&["-f", &file], 2);
    assert!(
        err.contains("s.sql: statement 2 (line 2: `SELECT count(*)`)")
            && err.contains("unknown table `nowhere`"),
        "{err}"
    );
    // a syntax error: the position is the script's
    let dir = script_dir("script-syntax", "SELECT 1;\n\nSELECT k FROM WHERE;\n");
    let err = fails(&["-f", &path(&dir, "s.sql")], 2);
    assert!(
        err.contains("statement 2 (line 3") && err.contains("line 3"),
        "{err}"
    );
    // an execution error keeps its exit code (3)
    let dir = script_dir(
        "script-exec",
        "CREATE VIEW z AS SELECT n_nationkey / 0 AS q FROM nation;\nSELECT * FROM z;",
    );
    let err = fails(&["-f", &path(&dir, "s.sql")], 3);
    assert!(err.contains("statement 2"), "{err}");
    // a bad option, with its place
    let dir = script_dir(
        "script-option",
        "CREATE TABLE p (k BIGINT) WITH ('connector' = 'filesystem', 'path' = '{p}', \
         'format' = 'csv', 'csv.header' = 'true');\nSELECT * FROM p;",
    );
    let err = fails(&["-f", &path(&dir, "s.sql")], 2);
    assert!(
        err.contains("statement 1")
            && err.contains("'csv.header'")
            && err.contains("'csv.has-header'"),
        "{err}"
    );
}

#[test]
fn file_usage_errors() {
    let dir = temp_dir("script-usage");
    // no such file
    let err = fails(&["-f", &path(&dir, "missing.sql")], 2);
    assert!(err.contains("missing.sql"), "{err}");
    // SQL and -f together
    std::fs::write(dir.join("s.sql"), "SELECT 1;").unwrap();
    fails(&["-f", &path(&dir, "s.sql"), "SELECT 2"], 2);
    // a script without a query prints nothing
    std::fs::write(
        dir.join("ddl.sql"),
        "CREATE VIEW v AS SELECT 1 AS one;\nDROP VIEW v;\n",
    )
    .unwrap();
    assert_eq!(ok(&["-f", &path(&dir, "ddl.sql")]), "");
    // and one DDL statement as the argument
    assert_eq!(ok(&["CREATE VIEW v AS SELECT 1 AS one"]), "");
    // an empty script too
    std::fs::write(dir.join("empty.sql"), "-- nothing\n;\n").unwrap();
    assert_eq!(ok(&["-f", &path(&dir, "empty.sql")]), "");
}

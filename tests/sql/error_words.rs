//! Errors in tenon's own words (issue 14): what is wrong, where, what to
//! do; never DataFusion's request to file a bug with DataFusion, a Rust
//! `Debug` dump of the syntax tree, internal wording about planning
//! stages, or an Arrow error from running a statement that should not
//! have planned.

use tenon::Error;

use crate::cli_query::fails;
use crate::common::*;

/// The error message of `sql` on the standard tables (`a(k, v, s)`, ...).
fn message(sql: &str) -> (Error, String) {
    let e = query_err(&session(2, 8192), sql);
    let msg = e.to_string();
    (e, msg)
}

/// No leak of a dependency's internals in `msg`.
fn assert_own_words(msg: &str) {
    for leak in [
        "DataFusion",
        "Internal error",
        "Error during planning",
        "bug report",
        "Ident {",
        "Span(",
        "BinaryOp {",
        "[return_type]",
        "must be planned as",
        "Int64(1)",
    ] {
        assert!(!msg.contains(leak), "`{leak}` in: {msg}");
    }
}

#[test]
fn sum_of_a_text_column_leaks_datafusion_internal_error() {
    let (e, msg) = message("SELECT sum(s) FROM a");
    assert_eq!(e.exit_code(), 2);
    assert_own_words(&msg);
    assert!(
        msg.contains("function `sum` does not take an argument of type"),
        "{msg}"
    );
    assert!(msg.contains("cast the argument"), "{msg}");
}

#[test]
fn field_access_on_a_literal_prints_a_debug_dump() {
    let (_, msg) = message("SELECT (1).x");
    assert_own_words(&msg);
    assert!(
        msg.contains("field access `.x` (line 1, column 12)"),
        "{msg}"
    );
}

#[test]
fn asof_join_with_a_bad_match_condition_says_what_to_write() {
    let (e, msg) = message("SELECT * FROM a ASOF JOIN b MATCH_CONDITION (a.k = b.k) ON a.v = b.k");
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert_own_words(&msg);
    assert!(!msg.contains("constraint: On("), "{msg}");
    assert!(
        msg.contains("MATCH_CONDITION (a.k = b.k) (line 1, column 46)"),
        "{msg}"
    );
    assert!(msg.contains(">=, >, <= or <"), "{msg}");
}

#[test]
fn sum_of_star_says_sum_not_supported_for_null() {
    let (_, msg) = message("SELECT sum(*) FROM a");
    assert_own_words(&msg);
    assert!(msg.contains("`sum(*)` (line 1, column 8)"), "{msg}");
    assert!(msg.contains("only of count(*)"), "{msg}");
    let (_, msg) = message("SELECT sum(NULL) FROM a");
    assert_own_words(&msg);
    assert!(
        msg.contains("does not take an argument of type Null"),
        "{msg}"
    );
}

#[test]
fn select_distinct_without_columns_fails_in_the_aggregate() {
    for sql in [
        "SELECT DISTINCT FROM a",
        "SELECT FROM a",
        "SELECT 1 UNION SELECT FROM a",
    ] {
        let (e, msg) = message(sql);
        assert!(matches!(e, Error::Sql(_)), "{sql}: {e:?}");
        assert_eq!(e.exit_code(), 2);
        assert!(msg.contains("the SELECT list is empty"), "{msg}");
        assert!(!msg.contains("arrow"), "{msg}");
    }
}

#[test]
fn any_subquery_says_subqueries_must_be_planned_as_joins() {
    // (A condition of a WHERE clause is planned: tests/sql/fidelity.)
    let (e, msg) = message("SELECT k = ANY (SELECT k FROM b) FROM a");
    assert_eq!(e.exit_code(), 2);
    assert_own_words(&msg);
    assert!(msg.contains("ANY (subquery) (line 1, column 8)"), "{msg}");
    assert!(msg.contains("x IN (SELECT ...)"), "{msg}");
    let (_, msg) = message("SELECT count(*) FROM a WHERE NOT (k <> ALL (SELECT k FROM b))");
    assert!(msg.contains("ALL (subquery)"), "{msg}");
}

#[test]
fn row_number_suggests_covar() {
    for sql in [
        "SELECT row_number() FROM a",
        "SELECT k, rank() OVER (ORDER BY k) FROM a",
    ] {
        let (_, msg) = message(sql);
        assert_own_words(&msg);
        assert!(!msg.contains("covar") && !msg.contains("power"), "{msg}");
        assert!(msg.contains("window function"), "{msg}");
    }
    // an unknown function gets a suggestion only when one is close
    let (_, msg) = message("SELECT upperr(s) FROM a");
    assert!(
        msg.contains("unknown function `upperr`; did you mean `upper`?"),
        "{msg}"
    );
    let (_, msg) = message("SELECT frobnicate(s) FROM a");
    assert!(msg.contains("unknown function `frobnicate`"), "{msg}");
    assert!(!msg.contains("did you mean"), "{msg}");
}

#[test]
fn type_errors_show_count_int64_1() {
    let (_, msg) = message("SELECT count(*) FROM a HAVING count(*) LIKE 'x'");
    assert_own_words(&msg);
    assert!(msg.contains("count(*) LIKE"), "{msg}");
    let (_, msg) = message("SELECT count(*) - s FROM a GROUP BY s");
    assert_own_words(&msg);
    assert!(msg.contains("cast one of them"), "{msg}");
}

#[test]
fn explain_of_ddl_tells_a_cli_user_to_call_session_execute() {
    let msg = fails(&["--explain", "CREATE VIEW v AS SELECT 1"], 2);
    assert!(!msg.contains("Session::execute"), "{msg}");
    assert!(msg.contains("without --explain"), "{msg}");
}

#[test]
fn scalar_function_argument_types_leak_error_during_planning() {
    // Found by the fuzzer (`fuzz_errors_are_in_tenons_own_words`): the
    // argument check of a scalar function passed DataFusion's message on
    // with its "Error during planning:" prefix.
    let (e, msg) =
        message("SELECT k FROM a WHERE replace(s, -1, CASE WHEN true THEN 'o' END) >= 'apple'");
    assert_eq!(e.exit_code(), 2);
    assert_own_words(&msg);
    assert!(
        msg.contains("replace() does not take arguments of types"),
        "{msg}"
    );
}

/// Issue 52: errors whose text carried a dependency's error-kind prefix
/// (`Execution error:`, `Cast error:`, `Io error:`, `Csv error:`,
/// `Parser error:`, `Schema error: project index 0 out of bounds`) say
/// what is wrong in tenon's words. (Every error a test case produces
/// through `query_err` or the CLI is checked for these prefixes too.)
#[test]
fn dependency_words_still_leak() {
    let dir = temp_dir("error-words-deps");
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        format!("t={}", p.display())
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        // an empty .json table
        (
            vec![
                "--table".into(),
                file("empty.json", ""),
                "SELECT * FROM t".into(),
            ],
            "no columns",
        ),
        (
            vec![
                "--table".into(),
                file("none.json", "[]"),
                "SELECT * FROM t".into(),
            ],
            "no columns",
        ),
        // a CSV row with too few fields
        (
            vec![
                "--table".into(),
                file("short.csv", "a,b\n1,2\n3\n"),
                "SELECT * FROM t".into(),
            ],
            "",
        ),
        // a value that does not cast
        (vec!["SELECT CAST('abc' AS INT)".into()], "abc"),
        (
            vec!["SELECT CAST(CAST('9999999999' AS BIGINT) AS INT)".into()],
            "",
        ),
        // a function that fails on its value
        (vec!["SELECT chr(-1)".into()], ""),
        (vec!["SELECT repeat('x', -1) || chr(1114112)".into()], ""),
    ];
    for (args, wanted) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = crate::cli_query::tenon(&args);
        let err = crate::cli_query::stderr(&o);
        if o.status.success() {
            continue;
        }
        assert!(err.contains(wanted), "{args:?}: {err}");
        assert!(
            tenon_planner::words::dependency_prefix(&err).is_none(),
            "{args:?}: {err}"
        );
    }
}

//! Join syntax of DuckDB's and DataFusion's join tests that has a clear
//! meaning: `SEMI JOIN` / `ANTI JOIN` (the left semi and anti joins), table
//! functions called in FROM without `LATERAL TABLE` (`generate_series`,
//! `range`), and a `generate_series` whose calendar step stands still.
//! Expected rows from the definitions (DuckDB 2.0.1 gives the same).

use crate::common::*;

fn rows(sql: &str) -> Vec<String> {
    run_ordered(&empty_session(2, 8192), sql)
}

const A: &str = "(VALUES (1), (2), (2), (3), (NULL)) a(k)";
const B: &str = "(VALUES (2), (3), (3), (4)) b(k)";

#[test]
fn semi_join_and_anti_join_as_join_types() {
    assert_eq!(
        rows(&format!(
            "SELECT k FROM {A} SEMI JOIN {B} ON a.k = b.k ORDER BY k"
        )),
        ["2", "2", "3"]
    );
    assert_eq!(
        rows(&format!(
            "SELECT k FROM {A} ANTI JOIN {B} ON a.k = b.k ORDER BY k"
        )),
        ["1", "NULL"]
    );
}

#[test]
fn range_and_generate_series_in_from_without_lateral_table() {
    assert_eq!(rows("SELECT * FROM generate_series(1, 3)"), ["1", "2", "3"]);
    assert_eq!(rows("SELECT * FROM range(3)"), ["0", "1", "2"]);
    assert_eq!(rows("SELECT * FROM range(1, 7, 2)"), ["1", "3", "5"]);
    assert_eq!(rows("SELECT * FROM range(3, 0, -1)"), ["3", "2", "1"]);
    assert_eq!(rows("SELECT * FROM range(3, 3)"), Vec::<String>::new());
    assert_eq!(
        rows("SELECT s.x FROM generate_series(2, 6, 2) AS s(x) ORDER BY x DESC"),
        ["6", "4", "2"]
    );
}

#[test]
fn generate_series_with_a_step_that_can_stand_still_is_an_error() {
    let s = empty_session(1, 8192);
    for sql in [
        "SELECT * FROM LATERAL TABLE(generate_series(TIMESTAMP '2024-01-01 00:00:00', \
         TIMESTAMP '2024-12-01 00:00:00', INTERVAL '1' MONTH - INTERVAL '30' DAY))",
        "SELECT * FROM LATERAL TABLE(generate_series(TIMESTAMP '2024-01-31 00:00:00', \
         TIMESTAMP '2024-12-01 00:00:00', INTERVAL '1' MONTH - INTERVAL '29' DAY))",
    ] {
        let e = query_err(&s, sql);
        assert!(e.to_string().contains("generate_series: the step"), "{e}");
    }
}

#[test]
fn unnest_or_lateral_table_inside_in_or_exists_subquery() {
    let v = "(VALUES (1), (5)) a(k)";
    assert_eq!(
        rows(&format!(
            "SELECT k FROM {v} WHERE k IN (SELECT x FROM UNNEST([1, 2, 3]) AS u(x)) ORDER BY k"
        )),
        ["1"]
    );
    assert_eq!(
        rows(&format!(
            "SELECT k FROM {v} WHERE EXISTS (SELECT 1 FROM LATERAL TABLE(generate_series(1, 3)) \
             AS g(x) WHERE x = a.k) ORDER BY k"
        )),
        ["1"]
    );
    assert_eq!(
        rows(&format!(
            "SELECT k FROM {v} WHERE NOT EXISTS (SELECT 1 FROM range(4) AS g(x) WHERE x = a.k) \
             ORDER BY k"
        )),
        ["5"]
    );
    assert_eq!(
        rows("SELECT (SELECT max(x) FROM UNNEST([1, 2]) AS u(x))"),
        ["2"]
    );
}

#[test]
fn any_and_all_subquery_comparisons_in_where() {
    let a = "(VALUES (1), (2), (3), (NULL)) a(x)";
    // ANY: one comparison true.
    assert_eq!(
        rows(&format!(
            "SELECT x FROM {a} WHERE x > ANY (SELECT * FROM (VALUES (1), (2)) s(y)) ORDER BY x"
        )),
        ["2", "3"]
    );
    // Empty subquery: ANY keeps nothing, ALL keeps every row.
    assert_eq!(
        rows(&format!(
            "SELECT x FROM {a} WHERE x > ANY (SELECT y FROM (VALUES (1)) s(y) WHERE y > 5)"
        )),
        Vec::<String>::new()
    );
    assert_eq!(
        rows(&format!(
            "SELECT x FROM {a} WHERE x > ALL (SELECT y FROM (VALUES (1)) s(y) WHERE y > 5) \
             ORDER BY x"
        )),
        ["1", "2", "3", "NULL"]
    );
    // ALL: every comparison true; a NULL in the subquery keeps nothing.
    assert_eq!(
        rows(&format!(
            "SELECT x FROM {a} WHERE x >= ALL (SELECT * FROM (VALUES (1), (2)) s(y)) ORDER BY x"
        )),
        ["2", "3"]
    );
    assert_eq!(
        rows(&format!(
            "SELECT x FROM {a} WHERE x > ALL (SELECT * FROM (VALUES (1), (NULL)) s(y))"
        )),
        Vec::<String>::new()
    );
    // ANDed with another condition, over an aggregate subquery.
    assert_eq!(
        rows(&format!(
            "SELECT x FROM {a} WHERE x < 3 AND x <> ANY (SELECT max(y) FROM (VALUES (1), (2)) \
             s(y)) ORDER BY x"
        )),
        ["1"]
    );
}

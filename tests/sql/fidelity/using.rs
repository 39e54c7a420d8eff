//! `JOIN ... USING` and `NATURAL JOIN` as SQL defines them: one merged
//! column per join column (the left side's value for INNER and LEFT, the
//! right side's for RIGHT, `COALESCE(left, right)` for FULL), `SELECT *`
//! with the merged columns first, then the left side's other columns,
//! then the right side's, and chains of USING joins. Expected rows worked
//! out by hand from the SQL standard's definition and checked with DuckDB
//! 2.0.1, which gives the same rows and column order.

use crate::common::*;

fn rows(sql: &str) -> Vec<String> {
    let mut answers = CONFIGS
        .iter()
        .map(|&(t, bs)| run_ordered(&empty_session(t, bs), sql));
    let first = answers.next().unwrap();
    for other in answers {
        assert_eq!(
            other, first,
            "{sql}: the answer depends on the configuration"
        );
    }
    first
}

fn names(sql: &str) -> Vec<String> {
    let batches = collect(&empty_session(1, 8192), sql);
    batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()
}

fn strings(rows: &[&str]) -> Vec<String> {
    rows.iter().map(|r| r.to_string()).collect()
}

const A: &str = "(VALUES (1, 'a1'), (3, 'a3')) a(k, x)";
const B: &str = "(VALUES (2, 'b2'), (3, 'b3')) b(k, y)";

#[test]
fn full_join_using_merges_the_key_of_right_only_rows() {
    assert_eq!(
        rows(&format!(
            "SELECT k FROM {A} FULL JOIN {B} USING (k) ORDER BY 1"
        )),
        strings(&["1", "2", "3"])
    );
    assert_eq!(
        rows(&format!(
            "SELECT k, count(*) FROM {A} FULL JOIN {B} USING (k) GROUP BY k ORDER BY k"
        )),
        strings(&["1|1", "2|1", "3|1"])
    );
    assert_eq!(
        rows(&format!(
            "SELECT k, x, y FROM {A} FULL JOIN {B} USING (k) WHERE k IS NOT NULL ORDER BY k"
        )),
        strings(&["1|a1|NULL", "2|NULL|b2", "3|a3|b3"])
    );
}

#[test]
fn full_join_using_star_lists_the_merged_column_first() {
    let sql = format!("SELECT * FROM {A} FULL JOIN {B} USING (k) ORDER BY k");
    assert_eq!(rows(&sql), strings(&["1|a1|NULL", "2|NULL|b2", "3|a3|b3"]));
    assert_eq!(names(&sql), ["k", "x", "y"]);
}

#[test]
fn right_join_using_takes_the_right_key() {
    assert_eq!(
        rows(&format!(
            "SELECT * FROM {A} RIGHT JOIN {B} USING (k) ORDER BY k"
        )),
        strings(&["2|NULL|b2", "3|a3|b3"])
    );
    // Qualified columns keep their side's value.
    assert_eq!(
        rows(&format!(
            "SELECT a.k, b.k FROM {A} RIGHT JOIN {B} USING (k) ORDER BY b.k"
        )),
        strings(&["NULL|2", "3|3"])
    );
}

#[test]
fn natural_full_join_merges_the_common_columns() {
    assert_eq!(
        rows(&format!(
            "SELECT * FROM {A} NATURAL FULL JOIN {B} ORDER BY k"
        )),
        strings(&["1|a1|NULL", "2|NULL|b2", "3|a3|b3"])
    );
}

#[test]
fn star_over_using_orders_columns_as_sql_not_by_table_names() {
    // The right table's name sorts before the left's: SQL's order still
    // puts the USING column first, then the left's columns, then the
    // right's.
    let sql = "SELECT * FROM (VALUES (1, 10)) t3(a, b) JOIN (VALUES (10, 5)) t2(b, c) USING (b)";
    assert_eq!(names(sql), ["b", "a", "c"]);
    assert_eq!(rows(sql), strings(&["10|1|5"]));
    let natural = "SELECT * FROM (VALUES (1, 10)) t3(a, b) NATURAL JOIN (VALUES (10, 5)) t4(b, c)";
    assert_eq!(names(natural), ["b", "a", "c"]);
}

#[test]
fn three_chained_using_joins_resolve_the_merged_column() {
    let sql = "SELECT * FROM (VALUES (1, 'x')) t1(a, p) \
               JOIN (VALUES (1, 'y')) t2(a, q) USING (a) \
               JOIN (VALUES (1, 'z')) t3(a, r) USING (a) \
               JOIN (VALUES (1, 'w')) t4(a, s) USING (a)";
    assert_eq!(names(sql), ["a", "p", "q", "r", "s"]);
    assert_eq!(rows(sql), strings(&["1|x|y|z|w"]));
    let full = "SELECT a FROM (VALUES (1)) t1(a) FULL JOIN (VALUES (2)) t2(a) USING (a) \
                FULL JOIN (VALUES (3)) t3(a) USING (a) ORDER BY a";
    assert_eq!(rows(full), strings(&["1", "2", "3"]));
}

#[test]
fn using_a_column_one_side_lacks_is_a_clear_error() {
    let e = query_err(
        &empty_session(1, 8192),
        &format!("SELECT * FROM {A} JOIN {B} USING (x)"),
    );
    assert!(e.to_string().contains("has no column `x`"), "{e}");
}

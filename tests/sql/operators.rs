//! The operators around the joins, checked exactly on table `a`
//! (`common::table_a`): filters, projections with expressions, aggregates
//! with and without GROUP BY, ORDER BY with NULLS FIRST/LAST, LIMIT and
//! OFFSET, DISTINCT, UNION [ALL], constant queries, and NOW() evaluated
//! once per query (J05). Each query runs with 1 and 4 threads and batches
//! of 1 and 8192 rows.
//!
//! `a`'s rows (k, v, s): (1, 10, a-1), (1, 20, a-2), (2, 30, a-3),
//! (NULL, 40, a-4), (3, NULL, a-5), (5, 50, a-6), (NULL, NULL, a-7),
//! (2, 31, NULL).

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::common::*;

/// `sql`'s rows, sorted, the same in every [`CONFIGS`] session.
fn rows(sql: &str) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    for &(t, b) in &CONFIGS {
        let got = run(&session(t, b), sql);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "{sql}: threads={t} batch={b} differs"),
        }
    }
    first.unwrap()
}

/// `sql`'s rows in result order, the same in every [`CONFIGS`] session.
fn ordered(sql: &str) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    for &(t, b) in &CONFIGS {
        let got = run_ordered(&session(t, b), sql);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "{sql}: threads={t} batch={b} differs"),
        }
    }
    first.unwrap()
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[track_caller]
fn assert_rows(sql: &str, expected: &[&str]) {
    assert_eq!(rows(sql), sorted(expected), "{sql}");
}

#[track_caller]
fn assert_ordered(sql: &str, expected: &[&str]) {
    assert_eq!(ordered(sql), expected, "{sql}");
}

// ------------------------------------------------------------- filters

#[test]
fn filters_with_and_or_not_and_nulls() {
    assert_rows(
        "SELECT s FROM a WHERE v > 15 AND k IS NOT NULL",
        &["a-2", "a-3", "a-6", "NULL"],
    );
    assert_rows(
        "SELECT s FROM a WHERE k IS NULL OR v < 20",
        &["a-1", "a-4", "a-7"],
    );
    // NULL = 1 is unknown, and so is NOT (NULL = 1)
    assert_rows(
        "SELECT s FROM a WHERE NOT (k = 1)",
        &["a-3", "a-5", "a-6", "NULL"],
    );
    assert_rows(
        "SELECT s FROM a WHERE k <> 1",
        &["a-3", "a-5", "a-6", "NULL"],
    );
    assert_rows("SELECT s FROM a WHERE s IS NULL", &["NULL"]);
    assert_rows("SELECT s FROM a WHERE k = 1 AND v >= 20", &["a-2"]);
    assert_rows("SELECT s FROM a WHERE 1 = 0", &[]);
    assert_rows("SELECT count(*) FROM a WHERE true", &["8"]);
}

#[test]
fn filters_with_like_in_and_between() {
    assert_rows(
        "SELECT s FROM a WHERE s LIKE 'a-%' AND s NOT LIKE '%1'",
        &["a-2", "a-3", "a-4", "a-5", "a-6", "a-7"],
    );
    assert_rows("SELECT count(*) FROM a WHERE s LIKE 'a-_'", &["7"]);
    assert_rows(
        "SELECT s FROM a WHERE v BETWEEN 20 AND 31",
        &["a-2", "a-3", "NULL"],
    );
    assert_rows(
        "SELECT s FROM a WHERE v NOT BETWEEN 20 AND 31",
        &["a-1", "a-4", "a-6"],
    );
    assert_rows("SELECT s FROM a WHERE k IN (1, 3)", &["a-1", "a-2", "a-5"]);
    assert_rows(
        "SELECT s FROM a WHERE k NOT IN (1, 3)",
        &["a-3", "a-6", "NULL"],
    );
    // a NULL in the list: NOT IN is never true
    assert_rows("SELECT s FROM a WHERE k NOT IN (1, NULL)", &[]);
}

// ---------------------------------------------------------- projections

#[test]
fn arithmetic() {
    assert_rows(
        "SELECT s, v * 2 + 1, v / 3, v % 7, -v, v - k FROM a WHERE k = 1",
        &["a-1|21|3|3|-10|9", "a-2|41|6|6|-20|19"],
    );
    // NULL in, NULL out
    assert_rows("SELECT v + 1 FROM a WHERE k = 3", &["NULL"]);
}

#[test]
fn case_expressions() {
    assert_rows(
        "SELECT s, CASE WHEN k IS NULL THEN 'none' WHEN k > 1 THEN 'big' ELSE 'small' END FROM a",
        &[
            "a-1|small",
            "a-2|small",
            "a-3|big",
            "a-4|none",
            "a-5|big",
            "a-6|big",
            "a-7|none",
            "NULL|big",
        ],
    );
    assert_rows(
        "SELECT s, CASE k WHEN 1 THEN 'one' WHEN 2 THEN 'two' END FROM a WHERE v IS NOT NULL",
        &[
            "a-1|one", "a-2|one", "a-3|two", "a-4|NULL", "a-6|NULL", "NULL|two",
        ],
    );
}

#[test]
fn casts() {
    assert_rows(
        "SELECT CAST(v AS VARCHAR), CAST('12' AS BIGINT) + 1, CAST(v AS DOUBLE) / 4 FROM a WHERE k = 2",
        &["30|13|7.5", "31|13|7.75"],
    );
    assert_rows("SELECT CAST(k AS INT) FROM a WHERE s = 'a-6'", &["5"]);
}

#[test]
fn coalesce_concat_and_predicates_as_values() {
    assert_rows(
        "SELECT COALESCE(k, -1), COALESCE(s, 'none') FROM a",
        &[
            "1|a-1", "1|a-2", "2|a-3", "-1|a-4", "3|a-5", "5|a-6", "-1|a-7", "2|none",
        ],
    );
    assert_rows(
        "SELECT s || '/' || CAST(k AS VARCHAR) FROM a",
        &[
            "a-1/1", "a-2/1", "a-3/2", "NULL", "a-5/3", "a-6/5", "NULL", "NULL",
        ],
    );
    assert_rows(
        "SELECT s, k IN (1, 3), v BETWEEN 20 AND 31, s LIKE '%-1' FROM a",
        &[
            "a-1|true|false|true",
            "a-2|true|true|false",
            "a-3|false|true|false",
            "a-4|NULL|false|false",
            "a-5|true|NULL|false",
            "a-6|false|false|false",
            "a-7|NULL|NULL|false",
            "NULL|false|true|NULL",
        ],
    );
}

// ----------------------------------------------------------- aggregates

#[test]
fn aggregates_without_group_by() {
    assert_rows(
        "SELECT count(*), count(k), count(v), sum(v), min(v), max(v), avg(v) FROM a",
        &["8|6|6|181|10|50|30.166666666666668"],
    );
    assert_rows("SELECT min(s), max(s) FROM a", &["a-1|a-7"]);
    // over no rows: a count of 0 and NULLs
    assert_rows(
        "SELECT count(*), count(v), sum(v), min(v), max(v), avg(v) FROM e",
        &["0|0|NULL|NULL|NULL|NULL"],
    );
    assert_rows("SELECT count(*), sum(v) FROM a WHERE k = 99", &["0|NULL"]);
}

#[test]
fn aggregates_with_group_by() {
    assert_rows(
        "SELECT k, count(*), count(v), sum(v), min(v), max(v), avg(v) FROM a GROUP BY k",
        &[
            "1|2|2|30|10|20|15.0",
            "2|2|2|61|30|31|30.5",
            "3|1|0|NULL|NULL|NULL|NULL",
            "5|1|1|50|50|50|50.0",
            "NULL|2|1|40|40|40|40.0",
        ],
    );
    assert_rows("SELECT k, count(*) FROM e GROUP BY k", &[]);
    assert_rows(
        "SELECT k % 2, sum(v) FROM a WHERE k IS NOT NULL GROUP BY k % 2",
        &["0|61", "1|80"],
    );
    assert_rows(
        "SELECT k, count(*) FROM b GROUP BY k HAVING count(*) > 1",
        &["1|3", "2|2"],
    );
    // grouping by a string column, NULL as its own group
    assert_rows(
        "SELECT s, count(*) FROM b GROUP BY s HAVING count(*) > 0 AND s IS NULL",
        &["NULL|1"],
    );
}

#[test]
fn count_distinct() {
    assert_rows("SELECT count(DISTINCT k) FROM a", &["4"]);
    assert_rows("SELECT count(DISTINCT v) FROM b", &["7"]);
    assert_rows(
        "SELECT k, count(DISTINCT v), count(v) FROM b GROUP BY k",
        &["1|2|3", "2|2|2", "3|1|1", "4|1|1", "NULL|1|1"],
    );
}

#[test]
fn aggregate_over_a_join() {
    assert_rows(
        "SELECT a.k, count(*), sum(b.v) FROM a JOIN b ON a.k = b.k GROUP BY a.k",
        &["1|6|70", "2|4|130", "3|1|1"],
    );
}

/// A table registered as several batches aggregates as one.
#[test]
fn aggregates_over_a_table_of_several_batches() {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
    let batches: Vec<RecordBatch> = (0..5)
        .map(|i| {
            RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(Int64Array::from(vec![
                    Some(i),
                    None,
                    Some(i * 10),
                ]))],
            )
            .unwrap()
        })
        .collect();
    for &(t, b) in &CONFIGS {
        let mut s = empty_session(t, b);
        s.register_batches("m", schema.clone(), batches.clone())
            .unwrap();
        assert_eq!(
            run(
                &s,
                "SELECT count(*), count(x), sum(x), min(x), max(x) FROM m"
            ),
            ["15|10|110|0|40"]
        );
        assert_eq!(run(&s, "SELECT count(DISTINCT x) FROM m"), ["9"]);
    }
}

// ------------------------------------------------- ORDER BY, LIMIT, OFFSET

#[test]
fn order_by_desc_nulls_last() {
    assert_ordered(
        "SELECT s, v FROM a ORDER BY v DESC NULLS LAST, s ASC",
        &[
            "a-6|50", "a-4|40", "NULL|31", "a-3|30", "a-2|20", "a-1|10", "a-5|NULL", "a-7|NULL",
        ],
    );
}

#[test]
fn order_by_asc_nulls_first() {
    assert_ordered(
        "SELECT s, v FROM a ORDER BY v ASC NULLS FIRST, s DESC",
        &[
            "a-7|NULL", "a-5|NULL", "a-1|10", "a-2|20", "a-3|30", "NULL|31", "a-4|40", "a-6|50",
        ],
    );
    assert_ordered(
        "SELECT k, v FROM a ORDER BY k ASC NULLS LAST, v DESC NULLS FIRST",
        &[
            "1|20",
            "1|10",
            "2|31",
            "2|30",
            "3|NULL",
            "5|50",
            "NULL|NULL",
            "NULL|40",
        ],
    );
}

#[test]
fn order_by_with_limit_and_offset() {
    assert_ordered(
        "SELECT s FROM a ORDER BY s NULLS FIRST LIMIT 3 OFFSET 2",
        &["a-2", "a-3", "a-4"],
    );
    assert_ordered(
        "SELECT s FROM a ORDER BY s DESC NULLS LAST LIMIT 2",
        &["a-7", "a-6"],
    );
    assert_ordered(
        "SELECT s FROM a ORDER BY s NULLS FIRST OFFSET 6",
        &["a-6", "a-7"],
    );
    assert_ordered("SELECT s FROM a ORDER BY s LIMIT 0", &[]);
    assert_ordered(
        "SELECT s FROM a ORDER BY s NULLS LAST LIMIT 3 OFFSET 100",
        &[],
    );
    // by a column that is not selected, and by an alias
    assert_ordered(
        "SELECT s FROM a ORDER BY v DESC NULLS LAST LIMIT 1",
        &["a-6"],
    );
    assert_ordered(
        "SELECT s, v * -1 AS nv FROM a ORDER BY nv NULLS LAST LIMIT 2",
        &["a-6|-50", "a-4|-40"],
    );
    // after a join and an aggregate
    assert_ordered(
        "SELECT a.k, count(*) AS n FROM a JOIN b ON a.k = b.k GROUP BY a.k ORDER BY n DESC",
        &["1|6", "2|4", "3|1"],
    );
}

#[test]
fn limit_without_order_by() {
    for &(t, b) in &CONFIGS {
        let s = session(t, b);
        assert_eq!(run(&s, "SELECT s FROM a LIMIT 3").len(), 3);
        assert_eq!(run(&s, "SELECT s FROM a LIMIT 0").len(), 0);
        assert_eq!(run(&s, "SELECT s FROM a LIMIT 100").len(), 8);
        assert_eq!(run(&s, "SELECT a.s FROM a CROSS JOIN b LIMIT 5").len(), 5);
    }
}

// -------------------------------------------------- DISTINCT and UNION

#[test]
fn distinct() {
    assert_rows("SELECT DISTINCT k FROM b", &["1", "2", "3", "4", "NULL"]);
    assert_rows(
        "SELECT count(*) FROM (SELECT DISTINCT k, v FROM b) d",
        &["7"],
    );
    assert_rows("SELECT DISTINCT s IS NULL FROM a", &["false", "true"]);
}

#[test]
fn union_all_and_union() {
    let mut expected: Vec<String> = table_a()
        .rows
        .iter()
        .chain(&table_b().rows)
        .map(|r| r[0].map_or("NULL".to_string(), |k| k.to_string()))
        .collect();
    expected.sort();
    assert_eq!(rows("SELECT k FROM a UNION ALL SELECT k FROM b"), expected);
    assert_rows(
        "SELECT k FROM a UNION SELECT k FROM b",
        &["1", "2", "3", "4", "5", "NULL"],
    );
    assert_rows(
        "SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 2",
        &["1", "1", "2"],
    );
}

#[test]
fn constant_queries() {
    assert_rows("SELECT 1", &["1"]);
    assert_rows(
        "SELECT 1 + 2 AS x, 'a' || 'b' AS y, NULL IS NULL",
        &["3|ab|true"],
    );
    let out = session(1, 8192).query("SELECT 1 AS one").unwrap();
    assert_eq!(out.schema.field(0).name(), "one");
    assert_eq!(out.num_rows(), 1);
}

// ------------------------------------------------------------------ J05

/// J05: `NOW()` / `CURRENT_TIMESTAMP` are evaluated once per query, also
/// across rows, batches and workers.
#[test]
fn j05_now_is_evaluated_once_per_query() {
    assert_rows("SELECT now() = now()", &["true"]);
    assert_rows("SELECT current_timestamp = now()", &["true"]);
    for &(t, b) in &CONFIGS {
        let s = session(t, b);
        let got = run(&s, "SELECT now() AS t1, now() AS t2 FROM a CROSS JOIN b");
        assert_eq!(got.len(), 64);
        let first = got[0].split('|').next().unwrap().to_string();
        for r in &got {
            let (x, y) = r.split_once('|').unwrap();
            assert_eq!(
                (x, y),
                (first.as_str(), first.as_str()),
                "threads={t} batch={b}"
            );
        }
        assert_eq!(run(&s, "SELECT count(*) FROM a WHERE now() = now()"), ["8"]);
    }
}

/// J05: `RANDOM()` is evaluated per row.
#[test]
fn j05_random_is_evaluated_per_row() {
    for &(t, b) in &CONFIGS {
        let s = session(t, b);
        let mut got = run(&s, "SELECT random() FROM a CROSS JOIN b");
        assert_eq!(got.len(), 64);
        got.dedup();
        assert!(
            got.len() > 60,
            "random() repeated values: {} distinct of 64",
            got.len()
        );
    }
}

// ------------------------------------------ operators around subqueries

/// Filters above a LIMIT, an aggregate, a UNION or an outer join filter
/// what those produce (they must not be pushed below them).
#[test]
fn filters_above_limit_aggregate_union_and_outer_join() {
    assert_rows(
        "SELECT s FROM (SELECT k, s FROM a ORDER BY s NULLS LAST LIMIT 3) x WHERE x.k = 2",
        &["a-3"],
    );
    assert_rows(
        "SELECT k, c FROM (SELECT k, count(*) AS c FROM a GROUP BY k) g WHERE c > 1",
        &["1|2", "2|2", "NULL|2"],
    );
    assert_rows(
        "SELECT k FROM (SELECT k FROM a UNION ALL SELECT k FROM b) u WHERE k = 2",
        &["2", "2", "2", "2"],
    );
    assert_rows(
        "SELECT a.s, b.s FROM a FULL OUTER JOIN b ON a.k = b.k WHERE a.k IS NULL",
        &["NULL|b-5", "NULL|b-6", "a-4|NULL", "a-7|NULL"],
    );
    assert_rows(
        "SELECT a.s, b.s FROM a LEFT JOIN b ON a.k = b.k WHERE b.v > 10 OR b.v IS NULL",
        &[
            "a-1|b-1", "a-1|NULL", "a-2|b-1", "a-2|NULL", "a-3|b-3", "a-3|b-4", "a-4|NULL",
            "a-6|NULL", "a-7|NULL", "NULL|b-3", "NULL|b-4",
        ],
    );
}

#[test]
fn common_table_expressions() {
    assert_rows(
        "WITH x AS (SELECT k FROM a WHERE v > 15) SELECT count(*) FROM x JOIN b ON x.k = b.k",
        &["7"],
    );
    assert_rows(
        "WITH x AS (SELECT k, s FROM a), y AS (SELECT k FROM b WHERE v > 20) \
         SELECT DISTINCT x.s FROM x JOIN y ON x.k = y.k",
        &["a-3", "NULL"],
    );
}

#[test]
fn distinct_after_a_join() {
    assert_rows(
        "SELECT DISTINCT a.k FROM a JOIN b ON a.k = b.k",
        &["1", "2", "3"],
    );
}

/// Uncorrelated scalar subqueries in SELECT and WHERE.
#[test]
// (uncorrelated; correlated ones run in the TPC-H tests)
fn scalar_subqueries() {
    assert_rows("SELECT s FROM a WHERE v = (SELECT max(v) FROM a)", &["a-6"]);
    assert_rows("SELECT (SELECT count(*) FROM b) AS n", &["8"]);
}

/// A CASE branch that is not taken is not evaluated for that row: no
/// division by zero for the rows where `k = 1`.
#[test]
fn case_evaluates_only_the_branch_taken() {
    assert_rows(
        "SELECT CASE WHEN k <> 1 THEN v / (k - 1) ELSE -1 END FROM a",
        &["-1", "-1", "30", "-1", "NULL", "12", "-1", "31"],
    );
}

/// INTERSECT and EXCEPT (set semantics: distinct rows, NULL equal to
/// NULL). DataFusion's SQL planner turns them into semi / anti joins,
/// which tenon must decide and run like any other join, or refuse with a
/// clean message.
#[test]
fn intersect_and_except() {
    assert_rows("SELECT k FROM a INTERSECT SELECT k FROM n", &["1"]);
    assert_rows("SELECT k FROM n EXCEPT SELECT k FROM a", &["4"]);
    // NULLs are equal in set operations
    assert_rows(
        "SELECT k FROM a INTERSECT SELECT k FROM b",
        &["1", "2", "3", "NULL"],
    );
    assert_rows("SELECT k FROM a EXCEPT SELECT k FROM b", &["5"]);
}

/// A session with table `sv(name)`: a Utf8View column (as every Parquet
/// and built-in string column is), rows `x`, `y`, NULL.
fn string_view_session(threads: usize, batch_size: usize) -> tenon::Session {
    let mut s = empty_session(threads, batch_size);
    let names = arrow_array::StringViewArray::from(vec![Some("x"), Some("y"), None]);
    let schema = Arc::new(Schema::new(vec![Field::new(
        "name",
        DataType::Utf8View,
        true,
    )]));
    let batch = RecordBatch::try_new(schema, vec![Arc::new(names)]).unwrap();
    s.register_batch("sv", batch).unwrap();
    s
}

#[test]
fn union_of_string_literal_and_string_view_column_is_coerced() {
    for &(t, b) in &CONFIGS {
        let s = string_view_session(t, b);
        assert_eq!(
            run(&s, "SELECT 'x' UNION ALL SELECT name FROM sv"),
            sorted(&["x", "x", "y", "NULL"])
        );
        assert_eq!(
            run(
                &s,
                "SELECT name FROM sv UNION SELECT CAST(name AS VARCHAR) FROM sv"
            ),
            sorted(&["x", "y", "NULL"])
        );
        assert_eq!(
            run(
                &s,
                "SELECT name FROM sv UNION ALL SELECT s FROM (VALUES ('z')) v(s)"
            ),
            sorted(&["x", "y", "z", "NULL"])
        );
    }
}

#[test]
fn avg_of_decimal_rounds_half_away_from_zero() {
    let avg = |values: &str| {
        rows(&format!(
            "SELECT avg(CAST(x AS DECIMAL(15, 2))) FROM (VALUES {values}) t(x)"
        ))
    };
    // 2/3 = 0.6666666...: 0.666667 at scale 6, not 0.666666
    assert_eq!(avg("(2.00), (0.00), (0.00)"), sorted(&["0.666667"]));
    assert_eq!(avg("(-2.00), (0.00), (0.00)"), sorted(&["-0.666667"]));
    // 1/3: rounds down
    assert_eq!(avg("(1.00), (0.00), (0.00)"), sorted(&["0.333333"]));
    assert_eq!(avg("(0.01), (0.00), (0.00)"), sorted(&["0.003333"]));
    // exactly half a unit of the last digit: away from zero (0.01 / 32 =
    // 0.0003125)
    let zeros = vec!["(0.00)"; 31].join(", ");
    assert_eq!(avg(&format!("(0.01), {zeros}")), sorted(&["0.000313"]));
    assert_eq!(avg(&format!("(-0.01), {zeros}")), sorted(&["-0.000313"]));
    assert_eq!(avg("(0.02), (0.00), (0.00)"), sorted(&["0.006667"]));
    assert_eq!(avg("(-0.02), (0.00), (0.00)"), sorted(&["-0.006667"]));
    // the result type keeps scale + 4 (DECIMAL(19, 6))
    let s = session(1, 8192);
    let batches = collect(
        &s,
        "SELECT avg(CAST(x AS DECIMAL(15, 2))) FROM (VALUES (1.00)) t(x)",
    );
    assert_eq!(
        batches[0].schema().field(0).data_type(),
        &DataType::Decimal128(19, 6)
    );
}

//! Large and deep statements (issue 14): long `OR` and `+` chains, many
//! `UNION ALL` branches, WITH clauses, joined tables and chained views are
//! planned and run, whatever the stack of the thread that calls the
//! Session (here a spawned thread with 2 MB, the smallest usual default);
//! nesting past the parser's limit is refused with an error that names the
//! limit, never a stack overflow (which aborts the whole test binary).
//!
//! Sizes are those of the report, and some a few times larger.

use arrow_array::{Int64Array, RecordBatch};
use tenon::{Error, Session};

use crate::common::*;

/// Runs `f` on a thread with a 2 MB stack (as a program's spawned thread
/// has), and returns its result.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|_| panic!("the statement panicked"))
}

/// A session with `t(k)`: 0..10.
fn t_session() -> Session {
    let mut s = empty_session(2, 8192);
    let batch = RecordBatch::try_from_iter([(
        "k",
        std::sync::Arc::new(Int64Array::from((0..10).collect::<Vec<i64>>())) as _,
    )])
    .expect("a batch");
    s.register_batch("t", batch).expect("register t");
    s
}

/// The one Int64 value of a one-row, one-column result.
fn single_value(sql: String) -> Result<i64, Error> {
    on_small_stack(move || {
        let batches = t_session().collect(&sql)?;
        let rows = row_strings_unsorted(&batches);
        assert_eq!(rows.len(), 1, "{rows:?}");
        Ok(rows[0].parse::<i64>().expect("an integer"))
    })
}

fn or_chain(terms: usize) -> String {
    let terms: Vec<String> = (0..terms).map(|i| format!("k = {i}")).collect();
    format!("SELECT count(*) FROM t WHERE {}", terms.join(" OR "))
}

#[test]
fn stack_overflow_on_or_chain_of_937_terms() {
    assert_eq!(single_value(or_chain(937)).expect("planned"), 10);
    assert_eq!(single_value(or_chain(4000)).expect("planned"), 10);
}

fn plus_chain(terms: usize) -> String {
    format!("SELECT {} AS s", vec!["1"; terms].join(" + "))
}

#[test]
fn stack_overflow_on_3500_plus_terms() {
    // no crash: 3,500 terms are refused naming the limit (the next test
    // plans a chain at the limit)
    limit_error(plus_chain(3500), "operators (+, -, *, /, %, ||) deep");
}

#[test]
fn planning_time_of_a_plus_chain_is_quadratic_past_2000_terms_is_a_limit_error() {
    // naming the column renders every level's operand (time quadratic in
    // the terms); 2,001 terms (2,000 operators deep, the limit) plan, one
    // more is refused, with the advice to group the terms, and grouped
    // terms plan
    assert_eq!(single_value(plus_chain(2001)).expect("planned"), 2001);
    limit_error(plus_chain(2002), "tenon plans at most 2000");
    let group = vec!["1"; 100].join(" + ");
    let sql = format!("SELECT {} AS s", vec![format!("({group})"); 35].join(" + "));
    assert_eq!(single_value(sql).expect("planned"), 3500);
}

#[test]
fn stack_overflow_on_1750_union_all_branches() {
    let branches: Vec<String> = (0..1750).map(|i| format!("SELECT {i} AS x")).collect();
    let sql = format!("SELECT count(*) FROM ({}) u", branches.join(" UNION ALL "));
    assert_eq!(single_value(sql).expect("planned"), 1750);
}

#[test]
fn stack_overflow_on_1000_with_clauses() {
    let mut ctes = vec!["c0 AS (SELECT k FROM t)".to_string()];
    ctes.extend((1..1000).map(|i| format!("c{i} AS (SELECT k FROM c{})", i - 1)));
    let sql = format!("WITH {} SELECT count(*) FROM c999", ctes.join(", "));
    assert_eq!(single_value(sql).expect("planned"), 10);
}

#[test]
fn planning_time_of_2000_with_clauses_is_quadratic_is_a_limit_error() {
    // a chain of CTEs is inlined and walked at every level (time quadratic
    // in the chain); 1,000 (the limit) plan, 1,001 are refused naming the limit
    let mut ctes = vec!["c0 AS (SELECT k FROM t)".to_string()];
    ctes.extend((1..1001).map(|i| format!("c{i} AS (SELECT k FROM c{})", i - 1)));
    let sql = format!("WITH {} SELECT count(*) FROM c1000", ctes.join(", "));
    limit_error(
        sql,
        "the query has 1001 WITH clauses; tenon plans at most 1000",
    );
}

#[test]
fn planning_time_of_union_all_is_quadratic_in_its_branches() {
    // the left-deep chain of 4,000 branches (the limit) plans in time
    // quadratic in the branches; balanced (`planner/src/sql/rebalance.rs`),
    // in near-linear time
    let branches: Vec<String> = (0..4000).map(|i| format!("SELECT {i} AS x")).collect();
    let sql = format!(
        "SELECT count(*), sum(x) FROM ({}) u",
        branches.join(" UNION ALL ")
    );
    let rows =
        on_small_stack(move || row_strings_unsorted(&t_session().collect(&sql).expect("planned")));
    assert_eq!(rows, vec![format!("4000|{}", 3999 * 4000 / 2)]);
}

#[test]
fn planning_time_of_comma_joins_is_cubic_in_the_tables() {
    // 1,000 comma-joined tables (the limit) with a WHERE join predicate
    // each: if every join tried every conjunct against its schemas,
    // planning would be cubic; each conjunct finds its join directly
    let tables: Vec<String> = (0..1000).map(|i| format!("t t{i}")).collect();
    let predicates: Vec<String> = (1..1000)
        .map(|i| format!("t{i}.k = t{}.k", i - 1))
        .collect();
    let sql = format!(
        "SELECT count(*) FROM {} WHERE {}",
        tables.join(", "),
        predicates.join(" AND ")
    );
    assert_eq!(single_value(sql).expect("planned"), 10);
}

#[test]
fn stack_overflow_on_475_joined_tables() {
    let mut sql = "SELECT count(*) FROM t t0".to_string();
    for i in 1..475 {
        sql.push_str(&format!(" JOIN t t{i} ON t{i}.k = t{}.k", i - 1));
    }
    assert_eq!(single_value(sql).expect("planned"), 10);
}

#[test]
fn stack_overflow_on_131_chained_views() {
    let result = on_small_stack(|| {
        let mut s = t_session();
        let mut script = "CREATE VIEW v0 AS SELECT k FROM t;\n".to_string();
        for i in 1..131 {
            script.push_str(&format!("CREATE VIEW v{i} AS SELECT k FROM v{};\n", i - 1));
        }
        script.push_str("SELECT count(*) FROM v130");
        let out = s.execute_script(&script)?.expect("a query result");
        Ok::<_, Error>(row_strings_unsorted(&out.batches))
    });
    assert_eq!(result.expect("planned"), vec!["10"]);
}

#[test]
fn nested_not_parses_in_linear_time_and_says_what_limit_it_hit() {
    // a failed `NOT (` parse tried again as a call of a function `not`
    // would make this exponential in the levels; they plan, and past the
    // parser's limit the error names the limit, not a function `not`
    let nested = |levels: usize| {
        format!(
            "SELECT count(*) FROM t WHERE {}k = 1{}",
            "NOT (".repeat(levels),
            ")".repeat(levels)
        )
    };
    assert_eq!(single_value(nested(40)).expect("planned"), 1);
    for levels in [400, 5000] {
        let e = single_value(nested(levels)).expect_err("too deep");
        let msg = e.to_string();
        assert!(matches!(e, Error::Sql(_)), "{e:?}");
        assert!(msg.contains("limit of 500 levels"), "{msg}");
        assert!(!msg.contains("Invalid function"), "{msg}");
        assert!(!msg.contains("cot"), "{msg}");
    }
}

#[test]
fn nested_case_is_planned_and_too_deep_case_names_the_limit() {
    let nested = |levels: usize| {
        let mut e = "k".to_string();
        for i in 0..levels {
            e = format!("CASE WHEN k = {i} THEN {e} ELSE 0 END");
        }
        format!("SELECT sum({e}) FROM t")
    };
    assert_eq!(single_value(nested(50)).expect("planned"), 0);
    let e = single_value(nested(600)).expect_err("too deep");
    let msg = e.to_string();
    assert!(msg.contains("limit of 500 levels"), "{msg}");
    assert!(!msg.contains("unknown column"), "{msg}");
}

/// The error of `sql`, run from a small stack; it must be a
/// [`Error::Sql`] that says which limit the statement exceeds.
fn limit_error(sql: String, limit: &str) {
    let e = on_small_stack(move || t_session().collect(&sql).expect_err("too large"));
    let msg = e.to_string();
    assert!(matches!(e, Error::Sql(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    assert!(msg.starts_with("statement too large: "), "{msg}");
    assert!(msg.contains(limit), "{msg}");
}

#[test]
fn stack_overflow_on_or_chain_of_20000_terms_is_a_limit_error() {
    // 20,000 terms overflowed even the session's 512 MB stack
    limit_error(or_chain(20_000), "nested more than 4096 levels deep");
    limit_error(or_chain(100_000), "nested more than 4096 levels deep");
}

#[test]
fn stack_overflow_on_union_all_past_the_limit_is_a_limit_error() {
    let branches: Vec<String> = (0..4001).map(|i| format!("SELECT {i} AS x")).collect();
    limit_error(branches.join(" UNION ALL "), "more than 4000 UNION");
}

#[test]
fn stack_overflow_on_2000_comma_joined_tables_is_a_limit_error() {
    // refused at the FROM-table limit, before planning could overflow the
    // stack
    let tables: Vec<String> = (0..2000).map(|i| format!("t t{i}")).collect();
    limit_error(
        format!("SELECT count(*) FROM {}", tables.join(", ")),
        "joins 2000 tables; tenon plans at most 1000",
    );
}

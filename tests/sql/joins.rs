//! Every join type through SQL, under every strategy, against the naive
//! reference join of `common`: each query runs with each of the four join
//! hints naming each side (`/*+ BROADCAST(b) */`, `/*+ SHUFFLE_HASH(a) */`,
//! ...), with 1 and 4 threads and batches of 1 and 8192 rows, and must
//! return the reference's rows every time (HINTS.md J04); EXPLAIN must
//! report the hinted strategy and build side whenever the hint is valid
//! for the join (§2), and the hint as ignored otherwise.
//!
//! Subquery joins (`IN`, `NOT IN`, `EXISTS`, `NOT EXISTS`) take no hints
//! (H14): they are swept by disabling the three other strategies instead
//! (`disabled_strategies`, H16).

use tenon::kernels::{JoinType, Strategy};

use crate::common::*;

/// What makes a hint valid for the query's (single) join.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// An equi-join of this type: HINTS.md §2's table decides.
    Equi(JoinType),
    /// No equi condition (CROSS, `a.k < b.k`): only NEST_LOOP can run it.
    NonEqui,
}

/// Whether a hint of `strategy` naming the left (`left_side`) or right
/// input is valid for a join of this shape (H13, H14).
fn valid(shape: Shape, strategy: Strategy, left_side: bool) -> bool {
    match shape {
        Shape::NonEqui => strategy == Strategy::NestLoop,
        Shape::Equi(jt) => {
            if strategy != Strategy::Broadcast {
                return true;
            }
            match jt {
                JoinType::Full => false,
                JoinType::Left | JoinType::LeftSemi | JoinType::LeftAnti => !left_side,
                JoinType::Right => left_side,
                _ => true,
            }
        }
    }
}

/// The select list of two-sided joins of `a` and `b`.
const AB: &str = "a.k AS a_k, a.v AS a_v, a.s AS a_s, b.k AS b_k, b.v AS b_v, b.s AS b_s";
/// The select list of semi/anti joins (left columns only).
const A: &str = "a.k AS a_k, a.v AS a_v, a.s AS a_s";

/// Runs `sql` (with `{hint}` where the hint block goes) under each
/// strategy's hint naming `left` and then `right`, in every [`CONFIGS`]
/// session, and checks rows and EXPLAIN. All problems are collected and
/// reported together.
fn sweep(sql: &str, shape: Shape, left: &str, right: &str, expected: &Rel) {
    sweep_with(&std_tables(), &CONFIGS, sql, shape, left, right, expected);
}

/// [`sweep`] over sessions holding `tables`, one per `(threads,
/// batch_size)` of `configs`.
fn sweep_with(
    tables: &[Table],
    configs: &[(usize, usize)],
    sql: &str,
    shape: Shape,
    left: &str,
    right: &str,
    expected: &Rel,
) {
    let expected = expected.strings();
    let sessions: Vec<_> = configs
        .iter()
        .map(|&(t, b)| (t, b, session_with(tables, t, b)))
        .collect();
    let mut problems = Vec::new();
    for strategy in STRATEGIES {
        for (table, left_side) in [(left, true), (right, false)] {
            let h = hint(strategy, table);
            let q = sql.replace("{hint}", &h);
            // EXPLAIN: the hinted strategy and side when valid.
            match sessions[0].2.explain(&q) {
                Err(e) => problems.push(format!("EXPLAIN {q}\n    failed: {e}")),
                Ok(x) => {
                    if x.joins.len() != 1 {
                        problems.push(format!(
                            "{q}\n    {} joins in EXPLAIN, expected 1",
                            x.joins.len()
                        ));
                    } else {
                        let j = &x.joins[0];
                        if let Shape::Equi(jt) = shape
                            && j.join_type != jt
                        {
                            problems
                                .push(format!("{q}\n    join type {} expected {jt}", j.join_type));
                        }
                        if valid(shape, strategy, left_side) {
                            let build_ok = strategy == Strategy::ShuffleMerge
                                || j.build.as_deref() == Some(table);
                            if j.strategy != strategy || !build_ok {
                                problems.push(format!(
                                    "{q}\n    EXPLAIN: {} build {:?} ({}), expected {strategy} build {table}",
                                    j.strategy, j.build, j.reason
                                ));
                            }
                        } else {
                            let ignored = j
                                .ignored_hints
                                .iter()
                                .any(|i| i.hint.contains(strategy.name()));
                            let fallback_ok = match shape {
                                Shape::NonEqui => j.strategy == Strategy::NestLoop,
                                Shape::Equi(_) => true,
                            };
                            if !ignored || !fallback_ok || j.reason.contains("applied") {
                                problems.push(format!(
                                    "{q}\n    invalid hint: EXPLAIN {} build {:?} ({}), ignored {:?}",
                                    j.strategy, j.build, j.reason, j.ignored_hints
                                ));
                            }
                        }
                    }
                }
            }
            for (threads, batch, s) in &sessions {
                match s.collect(&q) {
                    Err(e) => {
                        problems.push(format!("{q}\n    threads={threads} batch={batch}: {e}"))
                    }
                    Ok(b) => {
                        let got = row_strings(&b);
                        if got != expected {
                            problems.push(format!(
                                "{q}\n    threads={threads} batch={batch}: rows differ\n      got      {got:?}\n      expected {expected:?}"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

/// Runs a query whose join comes from a subquery (no hints) with all
/// strategies but one disabled, for each strategy that can run `jt`, in
/// every [`CONFIGS`] session.
fn sweep_subquery(sql: &str, jt: JoinType, expected: &Rel) {
    let expected = expected.strings();
    let mut problems = Vec::new();
    for strategy in STRATEGIES {
        let others: Vec<&str> = STRATEGIES
            .iter()
            .filter(|s| **s != strategy)
            .map(|s| s.name())
            .collect();
        for &(threads, batch) in &CONFIGS {
            let mut s = session(threads, batch);
            s.set("disabled_strategies", &others.join(",")).unwrap();
            if threads == 1 && batch == 1 {
                match s.explain(sql) {
                    Err(e) => {
                        problems.push(format!("{strategy} only: EXPLAIN {sql}\n    failed: {e}"))
                    }
                    Ok(x) => {
                        let got: Vec<_> =
                            x.joins.iter().map(|j| (j.strategy, j.join_type)).collect();
                        if got != [(strategy, jt)] {
                            problems.push(format!(
                                "{strategy} only: {sql}\n    EXPLAIN joins {got:?}, expected [({strategy}, {jt})]\n{}",
                                x.to_text()
                            ));
                        }
                    }
                }
            }
            match s.collect(sql) {
                Err(e) => problems.push(format!(
                    "{strategy} only, threads={threads} batch={batch}: {sql}\n    {e}"
                )),
                Ok(b) => {
                    let got = row_strings(&b);
                    if got != expected {
                        problems.push(format!(
                            "{strategy} only, threads={threads} batch={batch}: {sql}\n      got      {got:?}\n      expected {expected:?}"
                        ));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

fn ab() -> (Rel, Rel, usize, usize, usize, usize) {
    let (a, b) = (table_a().rel(), table_b().rel());
    let (ak, av, bk, bv) = (a.col("a.k"), a.col("a.v"), b.col("b.k"), b.col("b.v"));
    (a, b, ak, av, bk, bv)
}

fn equi(jt: RefJoin) -> Rel {
    let (a, b, ak, _, bk, _) = ab();
    ref_join(&a, &b, jt, |x, y| eq(x[ak], y[bk]))
}

// ---------------------------------------------------------- join types

#[test]
fn inner_join() {
    let expected = equi(RefJoin::Inner);
    assert_eq!(expected.rows.len(), 11);
    for kw in ["JOIN", "INNER JOIN"] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k = b.k"),
            Shape::Equi(JoinType::Inner),
            "a",
            "b",
            &expected,
        );
    }
}

#[test]
fn inner_join_keys_written_right_to_left() {
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a JOIN b ON b.k = a.k"),
        Shape::Equi(JoinType::Inner),
        "a",
        "b",
        &equi(RefJoin::Inner),
    );
}

#[test]
fn left_join() {
    for kw in ["LEFT JOIN", "LEFT OUTER JOIN"] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k = b.k"),
            Shape::Equi(JoinType::Left),
            "a",
            "b",
            &equi(RefJoin::Left),
        );
    }
}

#[test]
fn right_join() {
    for kw in ["RIGHT JOIN", "RIGHT OUTER JOIN"] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k = b.k"),
            Shape::Equi(JoinType::Right),
            "a",
            "b",
            &equi(RefJoin::Right),
        );
    }
}

#[test]
fn full_outer_join() {
    let expected = equi(RefJoin::Full);
    assert_eq!(expected.rows.len(), 16);
    for kw in ["FULL JOIN", "FULL OUTER JOIN"] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k = b.k"),
            Shape::Equi(JoinType::Full),
            "a",
            "b",
            &expected,
        );
    }
}

#[test]
fn cross_join() {
    let (a, b, ..) = ab();
    let expected = ref_join(&a, &b, RefJoin::Inner, |_, _| Some(true));
    assert_eq!(expected.rows.len(), 64);
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a CROSS JOIN b"),
        Shape::NonEqui,
        "a",
        "b",
        &expected,
    );
}

#[test]
fn implicit_join_in_where() {
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a, b WHERE a.k = b.k"),
        Shape::Equi(JoinType::Inner),
        "a",
        "b",
        &equi(RefJoin::Inner),
    );
}

#[test]
fn implicit_join_with_more_conditions_in_where() {
    let (a, b, ak, av, bk, bv) = ab();
    let w = a.width() + bv;
    let expected = ref_join(&a, &b, RefJoin::Inner, |x, y| eq(x[ak], y[bk]))
        .filter(|r| and(gt(r[av], Some(10)), lt(r[av], r[w])));
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a, b WHERE a.k = b.k AND a.v > 10 AND a.v < b.v"),
        Shape::Equi(JoinType::Inner),
        "a",
        "b",
        &expected,
    );
}

#[test]
fn implicit_cross_join() {
    let (a, b, ..) = ab();
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a, b"),
        Shape::NonEqui,
        "a",
        "b",
        &ref_join(&a, &b, RefJoin::Inner, |_, _| Some(true)),
    );
}

/// sqlparser's generic dialect (tenon's, with the J06 fix) accepts
/// `LEFT SEMI JOIN` and `LEFT ANTI JOIN`, and the front end plans them.
#[test]
fn left_semi_join() {
    sweep(
        &format!("SELECT {{hint}} {A} FROM a LEFT SEMI JOIN b ON a.k = b.k"),
        Shape::Equi(JoinType::LeftSemi),
        "a",
        "b",
        &equi(RefJoin::Semi),
    );
}

#[test]
fn left_anti_join() {
    let expected = equi(RefJoin::Anti);
    assert_eq!(expected.rows.len(), 3);
    sweep(
        &format!("SELECT {{hint}} {A} FROM a LEFT ANTI JOIN b ON a.k = b.k"),
        Shape::Equi(JoinType::LeftAnti),
        "a",
        "b",
        &expected,
    );
}

// ------------------------------------------------- subqueries as joins

#[test]
fn in_subquery_is_a_semi_join() {
    // a's NULL keys are never IN anything; duplicates in b do not
    // duplicate a's rows.
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k IN (SELECT k FROM b)"),
        JoinType::LeftSemi,
        &equi(RefJoin::Semi),
    );
}

#[test]
fn not_in_subquery_with_a_null_returns_no_rows() {
    // b.k holds a NULL: `x NOT IN (..., NULL)` is never true.
    let (a, _, ak, ..) = ab();
    let values: Vec<Option<i64>> = table_b().rows.iter().map(|r| r[0]).collect();
    let expected = ref_not_in(&a, ak, &values);
    assert!(expected.rows.is_empty());
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k NOT IN (SELECT k FROM b)"),
        JoinType::LeftAntiNullAware,
        &expected,
    );
}

#[test]
fn not_in_subquery_without_nulls_drops_null_keys_of_the_outer_side() {
    let (a, _, ak, ..) = ab();
    let values: Vec<Option<i64>> = table_n().rows.iter().map(|r| r[0]).collect();
    let expected = ref_not_in(&a, ak, &values);
    assert_eq!(expected.rows.len(), 4);
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k NOT IN (SELECT k FROM n)"),
        JoinType::LeftAntiNullAware,
        &expected,
    );
    // the same with the NULLs filtered out of b inside the subquery
    let values: Vec<Option<i64>> = table_b()
        .rows
        .iter()
        .filter_map(|r| r[0].map(Some))
        .collect();
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k NOT IN (SELECT k FROM b WHERE k IS NOT NULL)"),
        JoinType::LeftAntiNullAware,
        &ref_not_in(&a, ak, &values),
    );
}

#[test]
fn not_in_empty_subquery_keeps_every_row_even_null_keys() {
    let (a, _, ak, ..) = ab();
    let expected = ref_not_in(&a, ak, &[]);
    assert_eq!(expected.rows.len(), 8);
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k NOT IN (SELECT k FROM e)"),
        JoinType::LeftAntiNullAware,
        &expected,
    );
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k NOT IN (SELECT k FROM b WHERE k > 100)"),
        JoinType::LeftAntiNullAware,
        &expected,
    );
}

#[test]
fn in_subquery_with_other_where_conditions() {
    let (_, _, _, av, ..) = ab();
    let expected = equi(RefJoin::Semi).filter(|r| gt(r[av], Some(15)));
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.v > 15 AND a.k IN (SELECT k FROM b)"),
        JoinType::LeftSemi,
        &expected,
    );
}

#[test]
fn exists_correlated_is_a_semi_join() {
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)"),
        JoinType::LeftSemi,
        &equi(RefJoin::Semi),
    );
}

#[test]
fn not_exists_correlated_is_an_anti_join_that_keeps_null_keys() {
    // unlike NOT IN, NOT EXISTS keeps a's NULL-key rows
    let expected = equi(RefJoin::Anti);
    assert_eq!(expected.rows.len(), 3);
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)"),
        JoinType::LeftAnti,
        &expected,
    );
}

#[test]
fn exists_with_a_correlated_non_equi_condition() {
    let (a, b, ak, av, bk, bv) = ab();
    let on = |x: &Row, y: &Row| and(eq(y[bk], x[ak]), gt(y[bv], x[av]));
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v > a.v)"),
        JoinType::LeftSemi,
        &ref_join(&a, &b, RefJoin::Semi, on),
    );
    sweep_subquery(
        &format!(
            "SELECT {A} FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v > a.v)"
        ),
        JoinType::LeftAnti,
        &ref_join(&a, &b, RefJoin::Anti, on),
    );
}

// ------------------------------------------------- conditions and keys

/// J02: the non-equi part of ON is part of the join condition: outer
/// joins emit a key-matching row whose condition fails NULL-extended.
#[test]
fn residual_on_condition_for_every_join_type() {
    let (a, b, ak, av, bk, bv) = ab();
    let on = |x: &Row, y: &Row| and(eq(x[ak], y[bk]), lt(x[av], y[bv]));
    for (kw, jt, rj, list) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner, AB),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left, AB),
        ("RIGHT JOIN", JoinType::Right, RefJoin::Right, AB),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full, AB),
        ("LEFT SEMI JOIN", JoinType::LeftSemi, RefJoin::Semi, A),
        ("LEFT ANTI JOIN", JoinType::LeftAnti, RefJoin::Anti, A),
    ] {
        sweep(
            &format!("SELECT {{hint}} {list} FROM a {kw} b ON a.k = b.k AND a.v < b.v"),
            Shape::Equi(jt),
            "a",
            "b",
            &ref_join(&a, &b, rj, on),
        );
    }
}

/// A band condition with computed bounds (`b.v - 5`, `b.v + 5`): SHUFFLE_MERGE
/// and NEST_LOOP search it as range conditions on columns the planner
/// computes before the join; every join type agrees with the reference.
#[test]
fn band_condition_with_computed_bounds_for_every_join_type() {
    let (a, b, ak, av, bk, bv) = ab();
    let between = |x: Option<i64>, lo: Option<i64>, hi: Option<i64>| Some(x? >= lo? && x? <= hi?);
    let on = |x: &Row, y: &Row| {
        and(
            eq(x[ak], y[bk]),
            between(x[av], y[bv].map(|v| v - 5), y[bv].map(|v| v + 5)),
        )
    };
    for (kw, jt, rj, list) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner, AB),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left, AB),
        ("RIGHT JOIN", JoinType::Right, RefJoin::Right, AB),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full, AB),
        ("LEFT SEMI JOIN", JoinType::LeftSemi, RefJoin::Semi, A),
        ("LEFT ANTI JOIN", JoinType::LeftAnti, RefJoin::Anti, A),
    ] {
        sweep(
            &format!(
                "SELECT {{hint}} {list} FROM a {kw} b \
                 ON a.k = b.k AND a.v BETWEEN b.v - 5 AND b.v + 5"
            ),
            Shape::Equi(jt),
            "a",
            "b",
            &ref_join(&a, &b, rj, on),
        );
    }
}

#[test]
fn residual_condition_with_a_constant_on_one_side() {
    let (a, b, ak, _, bk, bv) = ab();
    let on = |x: &Row, y: &Row| and(eq(x[ak], y[bk]), gt(y[bv], Some(10)));
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a LEFT JOIN b ON a.k = b.k AND b.v > 10"),
        Shape::Equi(JoinType::Left),
        "a",
        "b",
        &ref_join(&a, &b, RefJoin::Left, on),
    );
}

/// J02: WHERE filters after the join (a NULL-extended row fails `b.v > 10`).
#[test]
fn where_condition_filters_after_an_outer_join() {
    let (a, b, ak, _, bk, bv) = ab();
    let joined = ref_join(&a, &b, RefJoin::Left, |x, y| eq(x[ak], y[bk]));
    let w = a.width() + bv;
    let expected = joined.filter(|r| gt(r[w], Some(10)));
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a LEFT JOIN b ON a.k = b.k WHERE b.v > 10"),
        Shape::Equi(JoinType::Left),
        "a",
        "b",
        &expected,
    );
    // and IS NULL on the right side after a LEFT join: the anti-join idiom
    let bs = a.width() + b.col("b.k");
    let expected =
        ref_join(&a, &b, RefJoin::Left, |x, y| eq(x[ak], y[bk])).filter(|r| Some(r[bs].is_none()));
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a LEFT JOIN b ON a.k = b.k WHERE b.k IS NULL"),
        Shape::Equi(JoinType::Left),
        "a",
        "b",
        &expected,
    );
}

/// J01: `IS NOT DISTINCT FROM` keys match NULL to NULL.
#[test]
fn is_not_distinct_from_keys() {
    let (a, b, ak, _, bk, _) = ab();
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full),
    ] {
        let expected = ref_join(&a, &b, rj, |x, y| not_distinct(x[ak], y[bk]));
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k IS NOT DISTINCT FROM b.k"),
            Shape::Equi(jt),
            "a",
            "b",
            &expected,
        );
    }
    // 2 NULL keys in a x 1 in b: the inner join has 2 rows more than with `=`
    let nd = ref_join(&a, &b, RefJoin::Inner, |x, y| not_distinct(x[ak], y[bk]));
    assert_eq!(nd.rows.len(), equi(RefJoin::Inner).rows.len() + 2);
}

/// J06: `a IS NOT DISTINCT FROM b AND c < d` is `(a IS NOT DISTINCT FROM b)
/// AND (c < d)`.
#[test]
fn is_not_distinct_from_and_a_residual() {
    let (a, b, ak, av, bk, bv) = ab();
    let on = |x: &Row, y: &Row| and(not_distinct(x[ak], y[bk]), lt(x[av], y[bv]));
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
    ] {
        sweep(
            &format!(
                "SELECT {{hint}} {AB} FROM a {kw} b ON a.k IS NOT DISTINCT FROM b.k AND a.v < b.v"
            ),
            Shape::Equi(jt),
            "a",
            "b",
            &ref_join(&a, &b, rj, on),
        );
    }
}

#[test]
fn composite_keys() {
    let (a, b, ak, av, bk, bv) = ab();
    let on = |x: &Row, y: &Row| and(eq(x[ak], y[bk]), eq(x[av], y[bv]));
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full),
    ] {
        let expected = ref_join(&a, &b, rj, on);
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k = b.k AND a.v = b.v"),
            Shape::Equi(jt),
            "a",
            "b",
            &expected,
        );
    }
    assert_eq!(ref_join(&a, &b, RefJoin::Inner, on).rows.len(), 1);
}

/// Keys of different integer types are compared as SQL compares them.
#[test]
fn int32_key_against_int64_key() {
    let (a, c) = (table_a().rel(), table_c().rel());
    let (ak, ck) = (a.col("a.k"), c.col("c.k"));
    let list = "a.k AS a_k, a.v AS a_v, a.s AS a_s, c.k AS c_k, c.v AS c_v, c.s AS c_s";
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full),
    ] {
        let expected = ref_join(&a, &c, rj, |x, y| eq(x[ak], y[ck]));
        for on in ["a.k = c.k", "c.k = a.k"] {
            sweep(
                &format!("SELECT {{hint}} {list} FROM a {kw} c ON {on}"),
                Shape::Equi(jt),
                "a",
                "c",
                &expected,
            );
        }
    }
}

#[test]
fn non_equi_join_runs_as_nested_loop() {
    let (a, b, ak, _, bk, _) = ab();
    for (kw, rj) in [("JOIN", RefJoin::Inner), ("LEFT JOIN", RefJoin::Left)] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k < b.k"),
            Shape::NonEqui,
            "a",
            "b",
            &ref_join(&a, &b, rj, |x, y| lt(x[ak], y[bk])),
        );
    }
}

#[test]
fn join_with_an_empty_table() {
    let (a, e) = (table_a().rel(), table_e().rel());
    let (ak, ek) = (a.col("a.k"), e.col("e.k"));
    let list = "a.k AS a_k, a.v AS a_v, a.s AS a_s, e.k AS e_k, e.v AS e_v, e.s AS e_s";
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
        ("RIGHT JOIN", JoinType::Right, RefJoin::Right),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full),
    ] {
        sweep(
            &format!("SELECT {{hint}} {list} FROM a {kw} e ON a.k = e.k"),
            Shape::Equi(jt),
            "a",
            "e",
            &ref_join(&a, &e, rj, |x, y| eq(x[ak], y[ek])),
        );
    }
}

/// A join over a filtered and projected input (the hint names the table
/// under the filter, H12).
#[test]
fn join_over_filtered_inputs() {
    let (a, b, ak, av, bk, _) = ab();
    let expected =
        ref_join(&a, &b, RefJoin::Inner, |x, y| eq(x[ak], y[bk])).filter(|r| gt(r[av], Some(10)));
    sweep(
        &format!("SELECT {{hint}} {AB} FROM a JOIN b ON a.k = b.k WHERE a.v > 10"),
        Shape::Equi(JoinType::Inner),
        "a",
        "b",
        &expected,
    );
}

/// Three inputs: the hint names one input of each join, and every join
/// runs the hinted strategy; the rows match the reference.
#[test]
fn three_way_join_every_strategy() {
    let (a, b, c) = (table_a().rel(), table_b().rel(), table_c().rel());
    let (ak, bk) = (a.col("a.k"), b.col("b.k"));
    let ab = ref_join(&a, &b, RefJoin::Inner, |x, y| eq(x[ak], y[bk]));
    let abk = a.width() + bk;
    let ck = c.col("c.k");
    let expected =
        ref_join(&ab, &c, RefJoin::Inner, |x, y| eq(x[abk], y[ck])).select(&["a.s", "b.s", "c.s"]);
    let expected_rows = expected.strings();
    for strategy in STRATEGIES {
        let sql = format!(
            "SELECT /*+ {}(a, c) */ a.s, b.s, c.s FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k",
            strategy.name()
        );
        for &(t, bs) in &CONFIGS {
            let s = session(t, bs);
            assert_eq!(run(&s, &sql), expected_rows, "{sql} threads={t} batch={bs}");
        }
        let s = session(1, 8192);
        let got = strategies(&s, &sql);
        let build = |n| (strategy != Strategy::ShuffleMerge).then_some(n);
        assert_eq!(
            got,
            [sb(strategy, build("a")), sb(strategy, build("c"))],
            "{sql}"
        );
    }
}

/// The streaming API returns the same rows as `collect`, in batches of at
/// most `batch_size` rows.
#[test]
fn streamed_result_equals_collected_result() {
    let sql = format!("SELECT /*+ SHUFFLE_HASH(b) */ {AB} FROM a FULL OUTER JOIN b ON a.k = b.k");
    for &(t, bs) in &CONFIGS {
        let s = session(t, bs);
        let stream = s.sql(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(stream.schema().fields().len(), 6);
        let batches: Vec<_> = stream.map(|b| b.expect("a batch")).collect();
        assert!(
            batches.iter().all(|b| b.num_rows() <= bs),
            "batch size {bs}"
        );
        assert_eq!(row_strings(&batches), equi(RefJoin::Full).strings());
        let out = s.query(&sql).unwrap();
        assert_eq!(out.num_rows(), 16);
        assert_eq!(out.schema.fields().len(), 6);
    }
}

/// Dropping a stream before its end does not hang or panic.
#[test]
fn dropping_a_stream_early_is_fine() {
    let s = session(4, 1);
    let mut stream = s
        .sql(&format!("SELECT {AB} FROM a CROSS JOIN b"))
        .expect("a stream");
    let first = stream.next().expect("a first batch").expect("no error");
    assert_eq!(first.num_rows(), 1);
    drop(stream);
    // the session still works
    assert_eq!(run(&s, "SELECT count(*) FROM a"), ["8"]);
}

// ------------------------------------- ON conditions on one side only

/// J02: an ON condition on the preserved side of an outer join does not
/// filter that side: its rows that fail it come out NULL-extended.
#[test]
fn on_condition_on_the_preserved_side_does_not_filter_it() {
    let (a, b, ak, av, bk, bv) = ab();
    for (sql_on, jt, rj, on) in [
        (
            "a.k = b.k AND a.v > 15",
            JoinType::Left,
            RefJoin::Left,
            Box::new(move |x: &Row, y: &Row| and(eq(x[ak], y[bk]), gt(x[av], Some(15))))
                as Box<dyn Fn(&Row, &Row) -> Option<bool>>,
        ),
        (
            "a.k = b.k AND b.v > 10",
            JoinType::Right,
            RefJoin::Right,
            Box::new(move |x: &Row, y: &Row| and(eq(x[ak], y[bk]), gt(y[bv], Some(10)))),
        ),
        (
            "a.k = b.k AND a.v > 15 AND b.v > 10",
            JoinType::Full,
            RefJoin::Full,
            Box::new(move |x: &Row, y: &Row| {
                and(
                    and(eq(x[ak], y[bk]), gt(x[av], Some(15))),
                    gt(y[bv], Some(10)),
                )
            }),
        ),
        (
            "a.k = b.k AND a.s IS NOT NULL",
            JoinType::LeftAnti,
            RefJoin::Anti,
            Box::new(move |x: &Row, y: &Row| and(eq(x[ak], y[bk]), Some(x[2].is_some()))),
        ),
    ] {
        let list = if rj == RefJoin::Anti { A } else { AB };
        let kw = match jt {
            JoinType::Left => "LEFT JOIN",
            JoinType::Right => "RIGHT JOIN",
            JoinType::Full => "FULL OUTER JOIN",
            _ => "LEFT ANTI JOIN",
        };
        let expected = ref_join(&a, &b, rj, &on);
        sweep(
            &format!("SELECT {{hint}} {list} FROM a {kw} b ON {sql_on}"),
            Shape::Equi(jt),
            "a",
            "b",
            &expected,
        );
    }
}

/// An outer join whose ON condition is never true keeps every preserved
/// row, NULL-extended.
#[test]
fn outer_join_on_a_false_condition() {
    let (a, b, ..) = ab();
    for (kw, rj) in [
        ("LEFT JOIN", RefJoin::Left),
        ("FULL OUTER JOIN", RefJoin::Full),
    ] {
        for cond in ["1 = 0", "false", "a.k = b.k AND 1 = 0"] {
            let sql = format!("SELECT {AB} FROM a {kw} b ON {cond}");
            let expected = ref_join(&a, &b, rj, |_, _| Some(false)).strings();
            for &(t, bs) in &CONFIGS {
                assert_eq!(
                    run(&session(t, bs), &sql),
                    expected,
                    "{sql} threads={t} batch={bs}"
                );
            }
        }
    }
}

/// `OR` between an equality and something else is no equi condition.
#[test]
fn or_condition_runs_as_nested_loop() {
    let (a, b, ak, av, bk, bv) = ab();
    let on = |x: &Row, y: &Row| match (eq(x[ak], y[bk]), eq(x[av], y[bv])) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    };
    for (kw, rj) in [("JOIN", RefJoin::Inner), ("LEFT JOIN", RefJoin::Left)] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k = b.k OR a.v = b.v"),
            Shape::NonEqui,
            "a",
            "b",
            &ref_join(&a, &b, rj, on),
        );
    }
}

/// An equality between expressions of each side is an equi condition
/// (computed into a key column before the join).
#[test]
fn expression_keys() {
    let (a, b, ak, _, bk, _) = ab();
    let plus1 = |x: Option<i64>| x.map(|v| v + 1);
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full),
    ] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b ON a.k + 1 = b.k"),
            Shape::Equi(jt),
            "a",
            "b",
            &ref_join(&a, &b, rj, |x, y| eq(plus1(x[ak]), y[bk])),
        );
    }
}

#[test]
fn join_using() {
    let (a, b, ak, _, bk, _) = ab();
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
    ] {
        sweep(
            &format!("SELECT {{hint}} {AB} FROM a {kw} b USING (k)"),
            Shape::Equi(jt),
            "a",
            "b",
            &ref_join(&a, &b, rj, |x, y| eq(x[ak], y[bk])),
        );
    }
}

/// A correlated EXISTS whose only correlation is not an equality: a
/// nested-loop semi/anti join.
#[test]
fn exists_with_only_a_non_equi_correlation() {
    let (a, b, _, av, _, bv) = ab();
    let on = |x: &Row, y: &Row| gt(y[bv], x[av]);
    let x = session(1, 8192)
        .explain(&format!(
            "SELECT {A} FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.v > a.v)"
        ))
        .unwrap();
    assert_eq!(x.joins.len(), 1, "{}", x.to_text());
    assert_eq!(x.joins[0].strategy, Strategy::NestLoop);
    for (q, rj) in [("EXISTS", RefJoin::Semi), ("NOT EXISTS", RefJoin::Anti)] {
        let sql = format!("SELECT {A} FROM a WHERE {q} (SELECT 1 FROM b WHERE b.v > a.v)");
        let expected = ref_join(&a, &b, rj, on).strings();
        for &(t, bs) in &CONFIGS {
            assert_eq!(
                run(&session(t, bs), &sql),
                expected,
                "{sql} threads={t} batch={bs}"
            );
        }
    }
}

/// Uncorrelated EXISTS: all rows or none.
#[test]
fn uncorrelated_exists() {
    let s = session(2, 8192);
    assert_eq!(
        run(
            &s,
            "SELECT count(*) FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = 4)"
        ),
        ["8"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT count(*) FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = 99)"
        ),
        ["0"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT count(*) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = 99)"
        ),
        ["8"]
    );
}

/// NOT IN over an expression of the outer row and a join result.
#[test]
fn not_in_over_a_join_and_an_expression() {
    let (a, b, ak, _, bk, _) = ab();
    let ab_rows = ref_join(&a, &b, RefJoin::Inner, |x, y| eq(x[ak], y[bk]));
    let values: Vec<Option<i64>> = table_n().rows.iter().map(|r| r[0]).collect();
    let kk = ab_rows.col("a.k");
    let expected = ref_not_in(&ab_rows, kk, &values).select(&["a.s", "b.s"]);
    for &(t, bs) in &CONFIGS {
        assert_eq!(
            run(
                &session(t, bs),
                "SELECT a.s, b.s FROM a JOIN b ON a.k = b.k WHERE a.k + 0 NOT IN (SELECT k FROM n)"
            ),
            expected.strings(),
            "threads={t} batch={bs}"
        );
    }
}

// ------------------------------------------------------- larger inputs

/// Configurations for the generated tables (batches of 7 rows instead of
/// 1: a debug build would spend minutes on one-row batches).
const BIG_CONFIGS: [(usize, usize); 2] = [(1, 7), (4, 8192)];

fn big_tables() -> Vec<Table> {
    vec![generated("g1", 1500, 300, 1), generated("g2", 1000, 300, 2)]
}

/// Thousands of rows with a hot key (skew), NULL keys and NULL values,
/// every join type with a residual, under every strategy, both sides.
#[test]
fn generated_tables_every_join_type_every_strategy() {
    let tables = big_tables();
    let (g1, g2) = (tables[0].rel(), tables[1].rel());
    let (k1, v1, k2, v2) = (
        g1.col("g1.k"),
        g1.col("g1.v"),
        g2.col("g2.k"),
        g2.col("g2.v"),
    );
    let on = |x: &Row, y: &Row| and(eq(x[k1], y[k2]), lt(x[v1], y[v2]));
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT JOIN", JoinType::Left, RefJoin::Left),
        ("RIGHT JOIN", JoinType::Right, RefJoin::Right),
        ("FULL OUTER JOIN", JoinType::Full, RefJoin::Full),
        ("LEFT SEMI JOIN", JoinType::LeftSemi, RefJoin::Semi),
        ("LEFT ANTI JOIN", JoinType::LeftAnti, RefJoin::Anti),
    ] {
        let (list, expected) = match rj {
            RefJoin::Semi | RefJoin::Anti => ("g1.s", ref_join(&g1, &g2, rj, on).select(&["g1.s"])),
            _ => (
                "g1.s, g2.s",
                ref_join(&g1, &g2, rj, on).select(&["g1.s", "g2.s"]),
            ),
        };
        sweep_with(
            &tables,
            &BIG_CONFIGS,
            &format!("SELECT {{hint}} {list} FROM g1 {kw} g2 ON g1.k = g2.k AND g1.v < g2.v"),
            Shape::Equi(jt),
            "g1",
            "g2",
            &expected,
        );
    }
}

/// Utf8 keys, alone and with an Int64 key (composite keys of mixed types).
#[test]
fn generated_tables_string_and_composite_keys() {
    let tables = big_tables();
    let (g1, g2) = (tables[0].rel(), tables[1].rel());
    let (k1, t1, k2, t2) = (
        g1.col("g1.k"),
        g1.col("g1.t"),
        g2.col("g2.k"),
        g2.col("g2.t"),
    );
    // t alone matches many rows: keep the hot key out
    let small1 = g1.filter(|r| Some(r[k1] != Some(7)));
    let small2 = g2.filter(|r| Some(r[k2] != Some(7)));
    let expected = ref_join(&small1, &small2, RefJoin::Full, |x, y| eq(x[t1], y[t2]))
        .select(&["g1.s", "g2.s"]);
    sweep_with(
        &tables,
        &BIG_CONFIGS,
        "SELECT {hint} g1.s, g2.s FROM (SELECT * FROM g1 WHERE k <> 7 OR k IS NULL) g1 \
         FULL OUTER JOIN (SELECT * FROM g2 WHERE k <> 7 OR k IS NULL) g2 ON g1.t = g2.t",
        Shape::Equi(JoinType::Full),
        "g1",
        "g2",
        &expected,
    );
    for (kw, jt, rj) in [
        ("JOIN", JoinType::Inner, RefJoin::Inner),
        ("LEFT ANTI JOIN", JoinType::LeftAnti, RefJoin::Anti),
    ] {
        let on = |x: &Row, y: &Row| and(eq(x[t1], y[t2]), eq(x[k1], y[k2]));
        let expected = match rj {
            RefJoin::Anti => ref_join(&g1, &g2, rj, on).select(&["g1.s"]),
            _ => ref_join(&g1, &g2, rj, on).select(&["g1.s", "g2.s"]),
        };
        let list = if rj == RefJoin::Anti {
            "g1.s"
        } else {
            "g1.s, g2.s"
        };
        sweep_with(
            &tables,
            &BIG_CONFIGS,
            &format!("SELECT {{hint}} {list} FROM g1 {kw} g2 ON g1.t = g2.t AND g1.k = g2.k"),
            Shape::Equi(jt),
            "g1",
            "g2",
            &expected,
        );
    }
}

/// Aggregates, DISTINCT and ORDER BY/LIMIT over a large join agree across
/// strategies, threads and batch sizes.
#[test]
fn generated_tables_aggregate_over_join() {
    let tables = big_tables();
    let (g1, g2) = (tables[0].rel(), tables[1].rel());
    let (k1, k2, v2) = (g1.col("g1.k"), g2.col("g2.k"), g2.col("g2.v"));
    let joined = ref_join(&g1, &g2, RefJoin::Inner, |x, y| eq(x[k1], y[k2]));
    let w = g1.width() + v2;
    let count = joined.rows.len();
    let sum: i64 = joined.rows.iter().filter_map(|r| r[w]).sum();
    let distinct = {
        let mut ks: Vec<i64> = joined.rows.iter().filter_map(|r| r[k1]).collect();
        ks.sort();
        ks.dedup();
        ks.len()
    };
    let mut top: Vec<(i64, usize)> = {
        let mut m = std::collections::BTreeMap::new();
        for r in &joined.rows {
            *m.entry(r[k1].unwrap()).or_insert(0usize) += 1;
        }
        m.into_iter().collect()
    };
    top.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    let top3: Vec<String> = top
        .iter()
        .take(3)
        .map(|(k, n)| format!("{k}|{n}"))
        .collect();
    for strategy in STRATEGIES {
        for &(t, bs) in &BIG_CONFIGS {
            let s = session_with(&tables, t, bs);
            let h = hint(strategy, "g2");
            assert_eq!(
                run(
                    &s,
                    &format!(
                        "SELECT {h} count(*), sum(g2.v), count(DISTINCT g1.k) FROM g1 JOIN g2 ON g1.k = g2.k"
                    )
                ),
                [format!("{count}|{sum}|{distinct}")],
                "{strategy} threads={t} batch={bs}"
            );
            assert_eq!(
                run_ordered(
                    &s,
                    &format!(
                        "SELECT {h} g1.k, count(*) AS n FROM g1 JOIN g2 ON g1.k = g2.k \
                         GROUP BY g1.k ORDER BY n DESC, g1.k LIMIT 3"
                    )
                ),
                top3,
                "{strategy} threads={t} batch={bs}"
            );
        }
    }
}

/// A parenthesized join as the right input: the hint names inputs of
/// each join; the outer join's right input is a subtree.
#[test]
fn nested_join_on_the_right() {
    let (a, b, c) = (table_a().rel(), table_b().rel(), table_c().rel());
    let (ak, bk, ck) = (a.col("a.k"), b.col("b.k"), c.col("c.k"));
    let bc = ref_join(&b, &c, RefJoin::Inner, |x, y| eq(x[bk], y[ck]));
    let bck = bc.col("b.k");
    let expected = ref_join(&a, &bc, RefJoin::Left, |x, y| eq(x[ak], y[bck]))
        .select(&["a.s", "b.s", "c.s"])
        .strings();
    for strategy in STRATEGIES {
        let sql = format!(
            "SELECT /*+ {}(c), SHUFFLE_HASH(a) */ a.s, b.s, c.s FROM a LEFT JOIN (b JOIN c ON b.k = c.k) ON a.k = b.k",
            strategy.name()
        );
        let s = session(2, 8192);
        let x = s.explain(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(x.joins.len(), 2, "{}", x.to_text());
        let inner_build = (strategy != Strategy::ShuffleMerge).then(|| "c".to_string());
        assert_eq!(
            (x.joins[0].strategy, x.joins[0].build.clone()),
            (strategy, inner_build),
            "{}",
            x.to_text()
        );
        assert_eq!(
            (x.joins[1].strategy, x.joins[1].build.as_deref()),
            (Strategy::ShuffleHash, Some("a"))
        );
        assert_eq!(x.joins[1].right, None);
        for &(t, bs) in &CONFIGS {
            assert_eq!(
                run(&session(t, bs), &sql),
                expected,
                "{sql} threads={t} batch={bs}"
            );
        }
    }
}

/// EXPLAIN ANALYZE runs the query and shows each operator's actual rows.
#[test]
fn explain_analyze_reports_actual_rows() {
    let s = session(2, 8192);
    let sql = format!("SELECT /*+ SHUFFLE_HASH(b) */ {AB} FROM a FULL OUTER JOIN b ON a.k = b.k");
    let (x, out) = s.explain_analyze(&sql).unwrap();
    assert_eq!(out.num_rows(), 16);
    assert_eq!(row_strings(&out.batches), equi(RefJoin::Full).strings());
    let text = x.to_text();
    let join_line = text
        .lines()
        .find(|l| l.contains("SHUFFLE_HASH") && l.contains("rows="))
        .unwrap_or_else(|| panic!("no join line with rows: {text}"));
    assert!(join_line.contains("rows=16"), "{join_line}");
    assert!(
        text.lines().filter(|l| l.contains("rows=8 ")).count() >= 2,
        "{text}"
    );
    // plain EXPLAIN has no metrics
    assert!(!s.explain(&sql).unwrap().to_text().contains("rows="));
}

/// Changing `threads` and `batch_size` on a live session, and replacing a
/// table, take effect for the next query.
#[test]
fn session_settings_and_tables_can_change() {
    let mut s = session(1, 8192);
    let sql = format!("SELECT /*+ SHUFFLE_MERGE(b) */ {AB} FROM a JOIN b ON a.k = b.k");
    assert_eq!(run(&s, &sql), equi(RefJoin::Inner).strings());
    s.set("threads", "3").unwrap();
    s.set("batch_size", "2").unwrap();
    let batches = collect(&s, &sql);
    assert!(batches.iter().all(|b| b.num_rows() <= 2));
    assert_eq!(row_strings(&batches), equi(RefJoin::Inner).strings());
    // b replaced by n's rows under the name b
    let mut nb = table_n();
    nb.name = "b".into();
    s.register_batch("b", nb.batch()).unwrap();
    assert_eq!(run(&s, "SELECT count(*) FROM a JOIN b ON a.k = b.k"), ["4"]);
}

/// Hints inside a CTE apply to the CTE's joins; the outer block names the
/// CTE.
#[test]
fn hints_in_common_table_expressions() {
    let sql = "WITH x AS (SELECT /*+ NEST_LOOP(b) */ a.k, a.s FROM a JOIN b ON a.k = b.k) \
               SELECT /*+ SHUFFLE_HASH(x) */ x.s, c.s FROM x JOIN c ON x.k = c.k";
    let s = session(2, 8192);
    assert_eq!(
        strategies(&s, sql),
        [
            sb(Strategy::NestLoop, Some("b")),
            sb(Strategy::ShuffleHash, Some("x"))
        ]
    );
    let (a, b, c) = (table_a().rel(), table_b().rel(), table_c().rel());
    let (ak, bk, ck) = (a.col("a.k"), b.col("b.k"), c.col("c.k"));
    let x = ref_join(&a, &b, RefJoin::Inner, |p, q| eq(p[ak], q[bk]));
    let xk = x.col("a.k");
    let expected =
        ref_join(&x, &c, RefJoin::Inner, |p, q| eq(p[xk], q[ck])).select(&["a.s", "c.s"]);
    for &(t, bs) in &CONFIGS {
        assert_eq!(
            run(&session(t, bs), sql),
            expected.strings(),
            "threads={t} batch={bs}"
        );
    }
    // the outer block cannot name the CTE's tables
    let e = query_err(&s, &sql.replace("SHUFFLE_HASH(x)", "SHUFFLE_HASH(b)"));
    assert_eq!(e.exit_code(), 2, "{e}");
}

/// `a.k [NOT] IN (SELECT b.k FROM b WHERE <correlated>)` by its SQL
/// definition, row by row: the subquery's values for each row of `a`.
fn correlated_in(negated: bool, corr: impl Fn(&Row, &Row) -> Option<bool>) -> Rel {
    let (a, b, ak, _, bk, _) = ab();
    let rows = a
        .rows
        .iter()
        .filter(|x| {
            let values: Vec<Option<i64>> = b
                .rows
                .iter()
                .filter(|y| corr(x, y) == Some(true))
                .map(|y| y[bk])
                .collect();
            let single = Rel {
                cols: a.cols.clone(),
                rows: vec![(*x).clone()],
            };
            if negated {
                !ref_not_in(&single, ak, &values).rows.is_empty()
            } else {
                x[ak].is_some_and(|k| values.contains(&Some(k)))
            }
        })
        .cloned()
        .collect();
    Rel { cols: a.cols, rows }
}

/// Correlated IN / NOT IN with a non-equi correlation: semi and null-aware
/// anti joins whose condition also holds the correlation; NOT IN keeps a
/// row whose subquery is empty for it, even with a NULL key.
#[test]
fn correlated_in_and_not_in_subqueries() {
    let (_, _, _, av, _, bv) = ab();
    let corr = move |x: &Row, y: &Row| gt(y[bv], x[av]);
    let expected = correlated_in(false, corr);
    assert_eq!(expected.strings(), ["1|10|a-1", "2|30|a-3", "2|31|NULL"]);
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k IN (SELECT k FROM b WHERE b.v > a.v)"),
        JoinType::LeftSemi,
        &expected,
    );
    let expected = correlated_in(true, corr);
    assert_eq!(
        expected.strings(),
        ["3|NULL|a-5", "5|50|a-6", "NULL|NULL|a-7"]
    );
    sweep_subquery(
        &format!("SELECT {A} FROM a WHERE a.k NOT IN (SELECT k FROM b WHERE b.v > a.v)"),
        JoinType::LeftAntiNullAware,
        &expected,
    );
}

/// `NOT (x IN (subquery))` is `x NOT IN (subquery)`.
#[test]
fn negated_in_subquery_is_not_in() {
    let (a, _, ak, ..) = ab();
    let values: Vec<Option<i64>> = table_n().rows.iter().map(|r| r[0]).collect();
    for &(t, bs) in &CONFIGS {
        let s = session(t, bs);
        assert_eq!(
            run(
                &s,
                &format!("SELECT {A} FROM a WHERE NOT (a.k IN (SELECT k FROM n))")
            ),
            ref_not_in(&a, ak, &values).strings()
        );
        assert_eq!(
            run(
                &s,
                &format!("SELECT {A} FROM a WHERE NOT (a.k IN (SELECT k FROM b))")
            ),
            Vec::<String>::new()
        );
    }
}

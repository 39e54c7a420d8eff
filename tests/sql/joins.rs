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

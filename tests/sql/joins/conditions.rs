//! ON conditions: residuals, bands, keys, one-side conditions.

use super::*;

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
        let stream = s
            .sql(&sql)
            .and_then(|q| q.stream())
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
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
        .and_then(|q| q.stream())
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
            assert_rows_in_every_config(&sql, &expected);
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

/// A key equality written in every branch of a WHERE clause's OR (TPC-H
/// Q19) is factored out and becomes the join's key; the rest of the OR
/// stays the join's condition.
#[test]
fn key_common_to_every_or_branch_is_an_equi_key() {
    let (a, b, ak, av, bk, bv) = ab();
    let or = |x: Option<bool>, y: Option<bool>| match (x, y) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    };
    let on = |x: &Row, y: &Row| {
        and(
            eq(x[ak], y[bk]),
            or(x[av].map(|v| v < 20), y[bv].map(|v| v > 5)),
        )
    };
    sweep(
        &format!(
            "SELECT {{hint}} {AB} FROM a, b \
             WHERE (a.k = b.k AND a.v < 20) OR (b.v > 5 AND a.k = b.k)"
        ),
        Shape::Equi(JoinType::Inner),
        "a",
        "b",
        &ref_join(&a, &b, RefJoin::Inner, on),
    );
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
        assert_rows_in_every_config(&sql, &expected);
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

//! Join types and subqueries as joins, under every strategy.

use super::*;

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

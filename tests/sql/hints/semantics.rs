//! J01–J06 and the seed documents' hint examples.

use super::*;

#[test]
fn j01_null_keys_never_match_except_with_is_not_distinct_from() {
    // a has 2 NULL keys, b has 1
    let s = sess();
    for strategy in STRATEGIES {
        let sql = format!(
            "SELECT /*+ {}(b) */ count(*) FROM a JOIN b ON a.k = b.k",
            strategy.name()
        );
        assert_eq!(run(&s, &sql), ["11"], "{sql}");
        let sql = format!(
            "SELECT /*+ {}(b) */ count(*) FROM a JOIN b ON a.k IS NOT DISTINCT FROM b.k",
            strategy.name()
        );
        assert_eq!(run(&s, &sql), ["13"], "{sql}");
        let sql = format!(
            "SELECT /*+ {}(b) */ count(*) FROM a JOIN b ON a.k = b.k WHERE a.k IS NULL",
            strategy.name()
        );
        assert_eq!(run(&s, &sql), ["0"], "{sql}");
    }
}

#[test]
fn j02_on_conditions_are_part_of_the_join_where_filters_after() {
    let (a, b) = (rel("a"), rel("b"));
    let (ak, av, bk, bv) = (a.col("a.k"), a.col("a.v"), b.col("b.k"), b.col("b.v"));
    let on = ref_join(&a, &b, RefJoin::Left, |x, y| {
        and(eq(x[ak], y[bk]), lt(x[av], y[bv]))
    });
    // every a row is there, matched or NULL-extended
    assert_eq!(on.select(&["a.s"]).rows.len(), on.rows.len());
    for strategy in STRATEGIES {
        let sql = format!(
            "SELECT /*+ {}(b) */ * FROM a LEFT JOIN b ON a.k = b.k AND a.v < b.v",
            strategy.name()
        );
        check(
            &sql,
            &[H(strategy, (strategy != ShuffleMerge).then_some("b"))],
            &on,
        );
        let sql = format!(
            "SELECT /*+ {}(b) */ * FROM a LEFT JOIN b ON a.k = b.k WHERE a.v < b.v",
            strategy.name()
        );
        let w = a.width() + bv;
        let filtered =
            ref_join(&a, &b, RefJoin::Left, |x, y| eq(x[ak], y[bk])).filter(|r| lt(r[av], r[w]));
        check(
            &sql,
            &[H(strategy, (strategy != ShuffleMerge).then_some("b"))],
            &filtered,
        );
    }
}

#[test]
fn j03_every_join_type_is_planned_as_such() {
    let s = sess();
    for (sql, jt) in [
        ("SELECT * FROM a JOIN b ON a.k = b.k", JoinType::Inner),
        ("SELECT * FROM a LEFT JOIN b ON a.k = b.k", JoinType::Left),
        ("SELECT * FROM a RIGHT JOIN b ON a.k = b.k", JoinType::Right),
        (
            "SELECT * FROM a FULL OUTER JOIN b ON a.k = b.k",
            JoinType::Full,
        ),
        (
            "SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k",
            JoinType::LeftSemi,
        ),
        (
            "SELECT * FROM a LEFT ANTI JOIN b ON a.k = b.k",
            JoinType::LeftAnti,
        ),
        (
            "SELECT * FROM a WHERE a.k IN (SELECT k FROM b)",
            JoinType::LeftSemi,
        ),
        (
            "SELECT * FROM a WHERE a.k NOT IN (SELECT k FROM b)",
            JoinType::LeftAntiNullAware,
        ),
        (
            "SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
            JoinType::LeftSemi,
        ),
        (
            "SELECT * FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
            JoinType::LeftAnti,
        ),
        ("SELECT * FROM a CROSS JOIN b", JoinType::Inner),
    ] {
        let x = s.explain(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(x.joins.len(), 1, "{sql}\n{}", x.to_text());
        assert_eq!(x.joins[0].join_type, jt, "{sql}");
        // and it runs
        collect(&s, sql);
    }
}

/// The determinism seed: the same multiset of rows for every strategy,
/// thread count and batch size (the sweeps of `joins.rs` do this per join
/// type; here on the seed tables' three-way join).
#[test]
fn j04_every_strategy_returns_the_same_rows() {
    let expected = t123().strings();
    for strategy in STRATEGIES {
        let sql = format!("SELECT /*+ {}(t2, t3) */ * {T123}", strategy.name());
        for &(t, b) in &CONFIGS {
            let s = session_with(&all_tables(), t, b);
            assert_eq!(run(&s, &sql), expected, "{sql} threads={t} batch={b}");
        }
    }
}

/// J06: `a IS NOT DISTINCT FROM b AND c = d` parses as SQL's precedence
/// says (DataFusion 55 alone fails to plan it).
#[test]
fn j06_is_not_distinct_from_binds_tighter_than_and() {
    let (t1, t2) = (rel("t1"), rel("t2"));
    let (a1, b1, a2, b2) = (
        t1.col("t1.a"),
        t1.col("t1.b"),
        t2.col("t2.a"),
        t2.col("t2.b"),
    );
    let on = |x: &Row, y: &Row| and(not_distinct(x[a1], y[a2]), eq(x[b1], y[b2]));
    check(
        "SELECT /*+ SHUFFLE_HASH(t2) */ * FROM t1 JOIN t2 ON t1.a IS NOT DISTINCT FROM t2.a AND t1.b = t2.b",
        &[H(ShuffleHash, Some("t2"))],
        &ref_join(&t1, &t2, RefJoin::Inner, on),
    );
    // in WHERE and in a projection too
    let s = sess();
    assert_eq!(
        run(
            &s,
            "SELECT count(*) FROM t1 WHERE t1.a IS NOT DISTINCT FROM NULL AND t1.id = 3"
        ),
        ["1"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT t1.b IS DISTINCT FROM 3 OR t1.id = 9 FROM t1 WHERE t1.id = 2"
        ),
        ["false", "true"]
    );
}

// ================================================ seed documents' examples

/// Flink's SQL hints documentation, "Join Hints": BROADCAST, SHUFFLE_HASH,
/// SHUFFLE_MERGE, NEST_LOOP, each example as written.
#[test]
fn seed_flink_hints_join_hint_examples() {
    let t1 = rel("t1");
    let t2 = rel("t2");
    let (i1, i2) = (t1.col("t1.id"), t2.col("t2.id"));
    let gt12 = ref_join(&t1, &t2, RefJoin::Inner, |x, y| gt(x[i1], y[i2]));
    let full = join2("t1", "t2", RefJoin::Full, "t1.id", "t2.id");
    // BROADCAST
    check(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(Broadcast, Some("t1"))],
        &t12(),
    );
    check(
        "SELECT /*+ BROADCAST(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;",
        &[H(Broadcast, Some("t1")), H(Broadcast, Some("t3"))],
        &t123(),
    );
    check(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 join t2 ON t1.id > t2.id;",
        &[Dflt(Some(NestLoop))],
        &gt12,
    );
    check(
        "SELECT /*+ BROADCAST(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id;",
        &[Dflt(None)],
        &full,
    );
    // SHUFFLE_HASH
    check(
        "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(ShuffleHash, Some("t1"))],
        &t12(),
    );
    check(
        "SELECT /*+ SHUFFLE_HASH(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;",
        &[H(ShuffleHash, Some("t1")), H(ShuffleHash, Some("t3"))],
        &t123(),
    );
    check(
        "SELECT /*+ SHUFFLE_HASH(t1) */ * FROM t1 join t2 ON t1.id > t2.id;",
        &[Dflt(Some(NestLoop))],
        &gt12,
    );
    // SHUFFLE_MERGE
    check(
        "SELECT /*+ SHUFFLE_MERGE(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(ShuffleMerge, None)],
        &t12(),
    );
    check(
        "SELECT /*+ SHUFFLE_MERGE(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;",
        &[H(ShuffleMerge, None), H(ShuffleMerge, None)],
        &t123(),
    );
    check(
        "SELECT /*+ SHUFFLE_MERGE(t1) */ * FROM t1 join t2 ON t1.id > t2.id;",
        &[Dflt(Some(NestLoop))],
        &gt12,
    );
    // NEST_LOOP
    check(
        "SELECT /*+ NEST_LOOP(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(NestLoop, Some("t1"))],
        &t12(),
    );
    check(
        "SELECT /*+ NEST_LOOP(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;",
        &[H(NestLoop, Some("t1")), H(NestLoop, Some("t3"))],
        &t123(),
    );
}

/// Flink's SQL hints documentation, "Join Hints" conflict cases, and
/// the query-hint conflict example of the same document.
#[test]
fn seed_flink_hints_conflict_examples() {
    check(
        "SELECT /*+ BROADCAST(t2), BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(Broadcast, Some("t2"))],
        &t12(),
    );
    check(
        "SELECT /*+ BROADCAST(t2, t1), BROADCAST(t1, t2) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(Broadcast, Some("t2"))],
        &t12(),
    );
    check(
        "SELECT /*+ BROADCAST(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;",
        &[H(Broadcast, Some("t1")), H(Broadcast, Some("t3"))],
        &t123(),
    );
    check(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;",
        &[H(Broadcast, Some("t1"))],
        &t12(),
    );
    check(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id;",
        &[H(ShuffleHash, Some("t1"))],
        &join2("t1", "t2", RefJoin::Full, "t1.id", "t2.id"),
    );
    let (t1, t2) = (rel("t1"), rel("t2"));
    let (i1, i2) = (t1.col("t1.id"), t2.col("t2.id"));
    check(
        "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id > t2.id;",
        &[Dflt(Some(NestLoop))],
        &ref_join(&t1, &t2, RefJoin::Full, |x, y| gt(x[i1], y[i2])),
    );
    // one hint block per query block
    let s = sess();
    let e = query_err(
        &s,
        "SELECT /*+ BROADCAST(t1) */ /*+ SHUFFLE_HASH(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id",
    );
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("line 1, column 29"), "{e}");
}

/// FLIP-229, "Support Strategies": the examples join on
/// `t1.a = t2.a`, `t1.a = t2.b`, `t1.a = t3.c`.
#[test]
fn seed_flip229_strategy_examples() {
    let eq_a = join2("t1", "t2", RefJoin::Inner, "t1.a", "t2.a");
    let three = join3("t1", "t2", "t3", ("t1.a", "t2.b"), ("t1.a", "t3.c"));
    let (t1, t2) = (rel("t1"), rel("t2"));
    let (a1, a2) = (t1.col("t1.a"), t2.col("t2.a"));
    let gt_a = ref_join(&t1, &t2, RefJoin::Inner, |x, y| gt(x[a1], y[a2]));
    let full_a = join2("t1", "t2", RefJoin::Full, "t1.a", "t2.a");
    let three_sql = |h: &str| {
        format!("select /*+ {h} */ * from t1\njoin t2 on t1.a = t2.b\njoin t3 on t1.a = t3.c")
    };
    // BROADCAST
    check(
        "select /*+ BROADCAST(t1) */ * from t1\njoin t2 on t1.a = t2.a",
        &[H(Broadcast, Some("t1"))],
        &eq_a,
    );
    check(
        &three_sql("BROADCAST(t1,t3)"),
        &[H(Broadcast, Some("t1")), H(Broadcast, Some("t3"))],
        &three,
    );
    check(
        "select /*+ BROADCAST(t1) */ * from t1\njoin t2 on t1.a > t2.a",
        &[Dflt(Some(NestLoop))],
        &gt_a,
    );
    check(
        "select /*+ BROADCAST(t1) */ * from t1\nfull outer join t2 on t1.a = t2.a",
        &[Dflt(None)],
        &full_a,
    );
    // SHUFFLE_HASH
    check(
        "select /*+ SHUFFLE_HASH(t1) */ * from t1\njoin t2 on t1.a = t2.a",
        &[H(ShuffleHash, Some("t1"))],
        &eq_a,
    );
    check(
        &three_sql("SHUFFLE_HASH(t1,t3)"),
        &[H(ShuffleHash, Some("t1")), H(ShuffleHash, Some("t3"))],
        &three,
    );
    check(
        "select /*+ SHUFFLE_HASH(t1) */ * from t1\njoin t2 on t1.a > t2.a",
        &[Dflt(Some(NestLoop))],
        &gt_a,
    );
    // SHUFFLE_MERGE
    check(
        "select /*+ SHUFFLE_MERGE(t1) */ * from t1\njoin t2 on t1.a = t2.a",
        &[H(ShuffleMerge, None)],
        &eq_a,
    );
    check(
        &three_sql("SHUFFLE_MERGE(t1,t3)"),
        &[H(ShuffleMerge, None), H(ShuffleMerge, None)],
        &three,
    );
    check(
        "select /*+ SHUFFLE_MERGE(t1) */ * from t1\njoin t2 on t1.a > t2.a",
        &[Dflt(Some(NestLoop))],
        &gt_a,
    );
    // NEST_LOOP
    check(
        "select /*+ NEST_LOOP(t1) */ * from t1\njoin t2 on t1.a = t2.a",
        &[H(NestLoop, Some("t1"))],
        &eq_a,
    );
    check(
        &three_sql("NEST_LOOP(t1,t3)"),
        &[H(NestLoop, Some("t1")), H(NestLoop, Some("t3"))],
        &three,
    );
}

/// FLIP-229, "Conflict in one same hints".
#[test]
fn seed_flip229_same_hint_conflicts() {
    let eq_a = join2("t1", "t2", RefJoin::Inner, "t1.a", "t2.a");
    let three = join3("t1", "t2", "t3", ("t1.a", "t2.b"), ("t1.a", "t3.c"));
    let two = |h: &str| format!("select /*+ {h} */ * from t1\njoin t2 on t1.a = t2.a");
    let three_sql = |h: &str| {
        format!("select /*+ {h} */ * from t1\njoin t2 on t1.a = t2.b\njoin t3 on t1.a = t3.c")
    };
    let cases: &[(&str, Want)] = &[
        ("BROADCAST(t2), BROADCAST(t1)", H(Broadcast, Some("t2"))),
        ("BROADCAST(t1,t1)", H(Broadcast, Some("t1"))),
        ("BROADCAST(t2,t1)", H(Broadcast, Some("t2"))),
        (
            "BROADCAST(t2,t1), BROADCAST(t1,t2)",
            H(Broadcast, Some("t2")),
        ),
        ("SHUFFLE_MERGE(t1,t1)", H(ShuffleMerge, None)),
        (
            "SHUFFLE_MERGE(t2), SHUFFLE_MERGE(t1)",
            H(ShuffleMerge, None),
        ),
        ("SHUFFLE_MERGE(t2,t1)", H(ShuffleMerge, None)),
        (
            "SHUFFLE_MERGE(t2,t1), SHUFFLE_MERGE(t1,t2)",
            H(ShuffleMerge, None),
        ),
        // FLIP-229's comment says t1 is the build side; its rule says the
        // first written wins (H21), and tenon follows the rule
        ("NEST_LOOP(t2), NEST_LOOP(t1)", H(NestLoop, Some("t2"))),
        ("NEST_LOOP(t1,t1)", H(NestLoop, Some("t1"))),
        ("NEST_LOOP(t2,t1)", H(NestLoop, Some("t2"))),
        (
            "NEST_LOOP(t2,t1), NEST_LOOP(t1,t2)",
            H(NestLoop, Some("t2")),
        ),
    ];
    for (h, want) in cases {
        check(&two(h), &[*want], &eq_a);
    }
    let cases3: &[(&str, [Want; 2])] = &[
        (
            "BROADCAST(t1,t2,t3)",
            [H(Broadcast, Some("t1")), H(Broadcast, Some("t3"))],
        ),
        (
            "SHUFFLE_HASH(t1,t2,t3)",
            [H(ShuffleHash, Some("t1")), H(ShuffleHash, Some("t3"))],
        ),
        (
            "SHUFFLE_MERGE(t1,t2,t3)",
            [H(ShuffleMerge, None), H(ShuffleMerge, None)],
        ),
        (
            "NEST_LOOP(t1,t2,t3)",
            [H(NestLoop, Some("t1")), H(NestLoop, Some("t3"))],
        ),
    ];
    for (h, want) in cases3 {
        check(&three_sql(h), want, &three);
    }
}

/// FLIP-229, "Conflict between different hints". The
/// examples write `from t1 join t3 on t1.a = t2.a` (t2 is not in FROM);
/// the join they mean is t1 with t2, and the SQL as written is an error
/// naming `t2.a`.
#[test]
fn seed_flip229_different_hint_conflicts() {
    let s = sess();
    // two hint blocks: an exception while parsing
    let e = query_err(
        &s,
        "select /*+ BROADCAST(t1) */ /*+ SHUFFLE_HASH(t1) */ * from t1\njoin t3 on t1.a = t2.a",
    );
    assert_eq!(e.exit_code(), 2);
    assert!(matches!(e, Error::Sql(_) | Error::Hint(_)), "{e:?}");
    // as written: t2 is not in scope
    let e = query_err(
        &s,
        "select /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * from t1\njoin t3 on t1.a = t2.a",
    );
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("t2"), "{e}");
    // as meant
    let eq_a = join2("t1", "t2", RefJoin::Inner, "t1.a", "t2.a");
    check(
        "select /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * from t1\njoin t2 on t1.a = t2.a",
        &[H(Broadcast, Some("t1"))],
        &eq_a,
    );
    check(
        "select /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * from t1\nfull outer join t2 on t1.a = t2.a",
        &[H(ShuffleHash, Some("t1"))],
        &join2("t1", "t2", RefJoin::Full, "t1.a", "t2.a"),
    );
    let (t1, t2) = (rel("t1"), rel("t2"));
    let (a1, a2) = (t1.col("t1.a"), t2.col("t2.a"));
    check(
        "select /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * from t1\njoin t2 on t1.a > t2.a",
        &[Dflt(Some(NestLoop))],
        &ref_join(&t1, &t2, RefJoin::Inner, |x, y| gt(x[a1], y[a2])),
    );
}

/// FLIP-229, "Support with table alias": Flink rejects a
/// hint naming a derived table's alias and suggests a view; tenon matches
/// the alias (H12, H32).
#[test]
fn seed_flip229_alias_example() {
    let mut tables = all_tables();
    tables.push(seed_tables()[0].renamed("test1"));
    tables.push(seed_tables()[1].renamed("test2"));
    let s = session_with(&tables, 2, 8192);
    let sql = "select /*+ BROADCAST(t1) */ t1.a from (select * from test1) t1 join test2 on t1.a = test2.a";
    assert_eq!(strategies(&s, sql), [sb(Broadcast, Some("t1"))]);
    let expected = join2("t1", "t2", RefJoin::Inner, "t1.a", "t2.a").select(&["t1.a"]);
    assert_eq!(run(&s, sql), expected.strings());
}

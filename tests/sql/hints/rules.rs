//! H01–H17: syntax, validity, the default choice, strict mode.

use super::*;

// ================================================================ §1 syntax

#[test]
fn h01_hints_separated_by_commas_or_white_space() {
    for block in [
        "/*+ BROADCAST(b) SHUFFLE_HASH(b) */",
        "/*+ BROADCAST(b), SHUFFLE_HASH(b) */",
        "/*+BROADCAST(b)\n\t SHUFFLE_HASH(b)*/",
        "/*+\n  BROADCAST(b) ,\n  SHUFFLE_HASH(b)\n*/",
    ] {
        let sql = format!("SELECT {block} * {EQ_AB}");
        check(&sql, &[H(Broadcast, Some("b"))], &ab_inner());
        let x = sess().explain(&sql).unwrap();
        assert_eq!(x.joins[0].ignored_hints.len(), 1, "{sql}");
        assert_eq!(x.joins[0].ignored_hints[0].hint, "SHUFFLE_HASH(b)");
    }
}

#[test]
fn h02_hint_forms_list_and_key_value() {
    // list form with several identifiers
    check(
        &format!("SELECT /*+ SHUFFLE_HASH(b, a) */ * {EQ_AB}"),
        &[H(ShuffleHash, Some("b"))],
        &ab_inner(),
    );
    // a name alone and key = 'value' forms parse (as non-join hints)
    check(
        &format!("SELECT /*+ STATE_TTL('a' = '1d', b = '2h'), NEST_LOOP(a) */ * {EQ_AB}"),
        &[H(NestLoop, Some("a"))],
        &ab_inner(),
    );
}

#[test]
fn h03_hint_names_are_case_insensitive() {
    for hint in [
        "broadcast(b)",
        "Broadcast(b)",
        "BROADCAST(B)",
        "bRoAdCaSt(b)",
    ] {
        check(
            &format!("SELECT /*+ {hint} */ * {EQ_AB}"),
            &[H(Broadcast, Some("b"))],
            &ab_inner(),
        );
    }
}

#[test]
fn h03_unknown_hint_is_an_error_listing_the_known_names() {
    let s = sess();
    let msg = hint_err(&s, &format!("SELECT /*+ BROADCST(b) */ * {EQ_AB}"));
    for part in [
        "BROADCST",
        "BROADCAST",
        "SHUFFLE_HASH",
        "SHUFFLE_MERGE",
        "NEST_LOOP",
        "line 1, column 12",
    ] {
        assert!(msg.contains(part), "{part} missing in: {msg}");
    }
}

#[test]
fn h03_quoted_table_names_keep_their_case() {
    let mut tables = all_tables();
    tables.push(table_b().renamed("Mixed"));
    let s = session_with(&tables, 2, 8192);
    let sql = "SELECT /*+ BROADCAST(\"Mixed\") */ a.s, \"Mixed\".s FROM a JOIN \"Mixed\" ON a.k = \"Mixed\".k";
    assert_eq!(strategies(&s, sql), [sb(Broadcast, Some("Mixed"))]);
    let (a, m) = (rel("a"), table_b().renamed("Mixed").rel());
    let (ak, mk) = (a.col("a.k"), m.col("Mixed.k"));
    let expected =
        ref_join(&a, &m, RefJoin::Inner, |x, y| eq(x[ak], y[mk])).select(&["a.s", "Mixed.s"]);
    assert_eq!(run(&s, sql), expected.strings());
    // unquoted folds to lower case: `mixed` is not an input
    let msg = hint_err(
        &s,
        "SELECT /*+ BROADCAST(Mixed) */ a.s FROM a JOIN \"Mixed\" ON a.k = \"Mixed\".k",
    );
    assert!(msg.contains("`mixed`"), "{msg}");
}

#[test]
fn h04_two_hint_blocks_are_an_error_at_the_second() {
    let s = sess();
    let sql = "SELECT /*+ BROADCAST(a) */\n  /*+ SHUFFLE_HASH(a) */ * FROM a JOIN b ON a.k = b.k";
    let e = query_err(&s, sql);
    assert!(matches!(e, Error::Sql(_) | Error::Hint(_)), "{e:?}");
    assert_eq!(e.exit_code(), 2);
    let msg = e.to_string();
    assert!(msg.contains("line 2, column 3"), "{msg}");
}

#[test]
fn h05_malformed_hints_point_at_line_and_column() {
    let s = sess();
    let cases: &[(&str, &str)] = &[
        // missing `)`, on line 2
        (
            "SELECT *\nFROM (SELECT /*+ BROADCAST(a */ a.k FROM a JOIN b ON a.k = b.k) x",
            "line 2, column",
        ),
        // empty option
        (
            "SELECT /*+ BROADCAST(a,) */ * FROM a JOIN b ON a.k = b.k",
            "line 1, column",
        ),
        // bad token
        (
            "SELECT /*+ BROADCAST(a; b) */ * FROM a JOIN b ON a.k = b.k",
            "line 1, column",
        ),
        // unclosed string
        (
            "SELECT /*+ STATE_TTL('a' = '1d) */ * FROM a JOIN b ON a.k = b.k",
            "line 1, column",
        ),
        // unclosed comment
        (
            "SELECT /*+ BROADCAST(a) * FROM a JOIN b ON a.k = b.k",
            "line 1, column",
        ),
        // on line 3, after a plain comment
        (
            "SELECT /* plain */ *\nFROM a JOIN b ON a.k = b.k\nWHERE a.k IN (SELECT /*+ NEST_LOOP(( */ k FROM b)",
            "line 3, column",
        ),
    ];
    for (sql, place) in cases {
        let e = query_err(&s, sql);
        assert!(matches!(e, Error::Hint(_) | Error::Sql(_)), "{sql}: {e:?}");
        assert_eq!(e.exit_code(), 2, "{sql}");
        let msg = e.to_string();
        assert!(msg.contains(place), "{sql}\n  {msg}");
    }
}

#[test]
fn h05_misplaced_hints_are_errors() {
    let s = sess();
    for sql in [
        "SELECT * FROM a JOIN b ON a.k = b.k WHERE a.k = 1 /*+ BROADCAST(a) */",
        "SELECT * FROM a /*+ BROADCAST(a) */ JOIN b ON a.k = b.k",
        "SELECT /*+ OPTIONS('scan.batch-size' = '2') */ * FROM a",
    ] {
        let msg = hint_err(&s, sql);
        assert!(msg.contains("line 1, column"), "{sql}\n  {msg}");
    }
}

#[test]
fn h06_table_hint_follows_a_table_reference() {
    // OPTIONS after a table, with and without an alias, is accepted
    let (a, b) = (rel("a"), rel("b"));
    let (ak, bk) = (a.col("a.k"), b.col("b.k"));
    let expected =
        ref_join(&a, &b, RefJoin::Inner, |x, y| eq(x[ak], y[bk])).select(&["a.s", "b.s"]);
    check(
        "SELECT /*+ SHUFFLE_HASH(y) */ x.s, y.s FROM a /*+ OPTIONS('scan.batch-size' = '2') */ AS x \
         JOIN b /*+ OPTIONS('scan.batch-size' = '3') */ y ON x.k = y.k",
        &[H(ShuffleHash, Some("y"))],
        &expected,
    );
}

#[test]
fn h07_plain_comment_is_not_a_hint() {
    // the default for these tiny tables is a broadcast, not a nested loop
    let sql = format!("SELECT /* NEST_LOOP(b) */ * {EQ_AB}");
    check(&sql, &[Dflt(None)], &ab_inner());
    assert_ne!(strategies(&sess(), &sql)[0].0, NestLoop);
    let sql = format!("SELECT -- NEST_LOOP(b)\n * {EQ_AB}");
    check(&sql, &[Dflt(None)], &ab_inner());
}

// ============================================================ §2 strategies

#[test]
fn h10_join_hint_needs_a_table_list() {
    let s = sess();
    for hint in [
        "BROADCAST",
        "BROADCAST()",
        "BROADCAST('b' = 'x')",
        "SHUFFLE_HASH(1)",
        "NEST_LOOP(k = 'b')",
    ] {
        let msg = hint_err(&s, &format!("SELECT /*+ {hint} */ * {EQ_AB}"));
        assert!(msg.contains("line 1, column"), "{hint}: {msg}");
    }
}

#[test]
fn h11_unknown_table_in_a_hint_is_an_error_listing_the_scope() {
    let s = sess();
    let msg = hint_err(&s, &format!("SELECT /*+ BROADCAST(t9) */ * {EQ_AB}"));
    assert!(msg.contains("`t9` in `BROADCAST(t9)`"), "{msg}");
    assert!(msg.contains("`a`, `b`"), "{msg}");
    // a registered table that is not an input of this block
    let msg = hint_err(&s, &format!("SELECT /*+ SHUFFLE_HASH(c, b) */ * {EQ_AB}"));
    assert!(msg.contains("`c`"), "{msg}");
    // the first hint's unknown names and the second's, together
    let msg = hint_err(
        &s,
        &format!("SELECT /*+ BROADCAST(x1), NEST_LOOP(x2) */ * {EQ_AB}"),
    );
    assert!(msg.contains("x1") && msg.contains("x2"), "{msg}");
}

#[test]
fn h12_a_join_subtree_is_not_matched() {
    let sql = "SELECT /*+ SHUFFLE_HASH(a) */ a.s, b.s, c.s FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k";
    let expected =
        join3("a", "b", "c", ("a.k", "b.k"), ("a.k", "c.k")).select(&["a.s", "b.s", "c.s"]);
    check(sql, &[H(ShuffleHash, Some("a")), Dflt(None)], &expected);
    let x = sess().explain(sql).unwrap();
    assert_eq!(x.joins[1].left, None);
    assert_eq!(x.joins[1].right.as_deref(), Some("c"));
    assert!(
        x.joins[1].ignored_hints.is_empty(),
        "{:?}",
        x.joins[1].ignored_hints
    );
}

#[test]
fn h12_a_derived_table_is_matched_by_its_alias_under_filters() {
    let (b, a) = (rel("b"), rel("a"));
    let (bk, ak, av) = (b.col("b.k"), a.col("a.k"), a.col("a.v"));
    let af = a.filter(|r| gt(r[av], Some(10)));
    let expected =
        ref_join(&b, &af, RefJoin::Inner, |x, y| eq(x[bk], y[ak])).select(&["b.s", "a.s"]);
    check(
        "SELECT /*+ SHUFFLE_HASH(x) */ b.s, x.s FROM b JOIN (SELECT k, s FROM a WHERE v > 10) x ON b.k = x.k",
        &[H(ShuffleHash, Some("x"))],
        &expected,
    );
}

#[test]
fn h12_a_hint_naming_no_join_input_is_reported_unused() {
    let sql = "SELECT /*+ BROADCAST(x) */ * FROM (SELECT a.s FROM a JOIN b ON a.k = b.k) x";
    let expected = ab_inner().select(&["a.s"]);
    check(sql, &[Dflt(None)], &expected);
    let text = sess().explain(sql).unwrap().to_text();
    assert!(text.contains("BROADCAST(x) ignored"), "{text}");
}

#[test]
fn h13_broadcast_of_the_preserved_side_is_invalid() {
    let left = join2("a", "b", RefJoin::Left, "a.k", "b.k");
    let sql = "SELECT /*+ BROADCAST(a) */ * FROM a LEFT JOIN b ON a.k = b.k";
    check(sql, &[Dflt(None)], &left);
    let x = sess().explain(sql).unwrap();
    assert!(
        matches!(
            x.joins[0].ignored_hints[0].reason,
            IgnoreReason::PreservedSide { .. }
        ),
        "{:?}",
        x.joins[0].ignored_hints
    );
    assert_ne!(
        x.joins[0].build.as_deref(),
        Some("a"),
        "the preserved side is never broadcast"
    );
    // the other side of a LEFT join may be broadcast
    check(
        "SELECT /*+ BROADCAST(b) */ * FROM a LEFT JOIN b ON a.k = b.k",
        &[H(Broadcast, Some("b"))],
        &left,
    );
    // RIGHT: the right side is preserved
    let right = join2("a", "b", RefJoin::Right, "a.k", "b.k");
    check(
        "SELECT /*+ BROADCAST(b) */ * FROM a RIGHT JOIN b ON a.k = b.k",
        &[Dflt(None)],
        &right,
    );
    check(
        "SELECT /*+ BROADCAST(a) */ * FROM a RIGHT JOIN b ON a.k = b.k",
        &[H(Broadcast, Some("a"))],
        &right,
    );
    // FULL OUTER: never broadcast
    let full = join2("a", "b", RefJoin::Full, "a.k", "b.k");
    for t in ["a", "b"] {
        let sql = format!("SELECT /*+ BROADCAST({t}) */ * FROM a FULL OUTER JOIN b ON a.k = b.k");
        check(&sql, &[Dflt(None)], &full);
        let x = sess().explain(&sql).unwrap();
        assert_ne!(x.joins[0].strategy, Broadcast);
        assert_eq!(
            x.joins[0].ignored_hints[0].reason,
            IgnoreReason::FullOuterBroadcast
        );
    }
}

#[test]
fn h13_shuffle_hash_and_nest_loop_build_the_hinted_side_of_any_join() {
    for (kw, rj) in [
        ("LEFT JOIN", RefJoin::Left),
        ("RIGHT JOIN", RefJoin::Right),
        ("FULL OUTER JOIN", RefJoin::Full),
    ] {
        let expected = join2("a", "b", rj, "a.k", "b.k");
        for strategy in [ShuffleHash, NestLoop] {
            for t in ["a", "b"] {
                check(
                    &format!(
                        "SELECT /*+ {}({t}) */ * FROM a {kw} b ON a.k = b.k",
                        strategy.name()
                    ),
                    &[H(strategy, Some(t))],
                    &expected,
                );
            }
        }
        for t in ["a", "b"] {
            check(
                &format!("SELECT /*+ SHUFFLE_MERGE({t}) */ * FROM a {kw} b ON a.k = b.k"),
                &[H(ShuffleMerge, None)],
                &expected,
            );
        }
    }
}

#[test]
fn h14_explicit_semi_and_anti_joins_take_hints() {
    for (kw, jt, rj) in [
        ("LEFT SEMI", JoinType::LeftSemi, RefJoin::Semi),
        ("LEFT ANTI", JoinType::LeftAnti, RefJoin::Anti),
    ] {
        let expected = join2("a", "b", rj, "a.k", "b.k");
        let sql = format!("SELECT /*+ BROADCAST(b) */ * FROM a {kw} JOIN b ON a.k = b.k");
        check(&sql, &[H(Broadcast, Some("b"))], &expected);
        assert_eq!(sess().explain(&sql).unwrap().joins[0].join_type, jt);
        // the left (preserved) side cannot be broadcast, as on a LEFT join
        check(
            &format!("SELECT /*+ BROADCAST(a) */ * FROM a {kw} JOIN b ON a.k = b.k"),
            &[Dflt(None)],
            &expected,
        );
        // but can be the build side of the other strategies
        check(
            &format!("SELECT /*+ SHUFFLE_HASH(a) */ * FROM a {kw} JOIN b ON a.k = b.k"),
            &[H(ShuffleHash, Some("a"))],
            &expected,
        );
    }
}

#[test]
fn h14_subquery_semi_and_anti_joins_ignore_hints() {
    let sql = "SELECT /*+ SHUFFLE_HASH(a) */ * FROM a WHERE a.k IN (SELECT k FROM b)";
    check(
        sql,
        &[Dflt(None)],
        &join2("a", "b", RefJoin::Semi, "a.k", "b.k"),
    );
    let x = sess().explain(sql).unwrap();
    assert_eq!(x.joins[0].join_type, JoinType::LeftSemi);
    assert_eq!(
        x.joins[0].ignored_hints[0].reason,
        IgnoreReason::SubqueryJoin
    );
}

#[test]
fn h15_default_choice_broadcasts_a_small_side() {
    let sql = format!("SELECT * {EQ_AB}");
    check(&sql, &[Dflt(Some(Broadcast))], &ab_inner());
    // the smaller side is the one broadcast: n (3 rows, 1 column)
    let (a, n) = (rel("a"), rel("n"));
    let (ak, nk) = (a.col("a.k"), n.col("n.k"));
    let expected = ref_join(&a, &n, RefJoin::Inner, |x, y| eq(x[ak], y[nk])).select(&["a.s"]);
    let sql = "SELECT a.s FROM a JOIN n ON a.k = n.k";
    check(sql, &[Dflt(Some(Broadcast))], &expected);
    assert_eq!(strategies(&sess(), sql), [sb(Broadcast, Some("n"))]);
    let sql = "SELECT a.s FROM n JOIN a ON a.k = n.k";
    assert_eq!(strategies(&sess(), sql), [sb(Broadcast, Some("n"))]);
}

#[test]
fn h15_default_above_the_threshold_is_shuffle_hash_building_the_smaller_side() {
    let mut s = sess();
    s.set("broadcast_threshold", "0").unwrap();
    let sql = "SELECT a.s FROM a JOIN n ON a.k = n.k";
    let x = s.explain(sql).unwrap();
    assert_eq!(
        (x.joins[0].strategy, x.joins[0].build.as_deref()),
        (ShuffleHash, Some("n")),
        "{}",
        x.to_text()
    );
    assert!(
        x.joins[0].reason.starts_with("default"),
        "{}",
        x.joins[0].reason
    );
    let (a, n) = (rel("a"), rel("n"));
    let (ak, nk) = (a.col("a.k"), n.col("n.k"));
    let expected = ref_join(&a, &n, RefJoin::Inner, |x, y| eq(x[ak], y[nk])).select(&["a.s"]);
    assert_eq!(run(&s, sql), expected.strings());
}

#[test]
fn h15_default_without_an_equi_condition_is_nest_loop() {
    let (a, b) = (rel("a"), rel("b"));
    let (ak, bk) = (a.col("a.k"), b.col("b.k"));
    check(
        "SELECT * FROM a JOIN b ON a.k > b.k",
        &[Dflt(Some(NestLoop))],
        &ref_join(&a, &b, RefJoin::Inner, |x, y| gt(x[ak], y[bk])),
    );
    check(
        "SELECT * FROM a CROSS JOIN b",
        &[Dflt(Some(NestLoop))],
        &ref_join(&a, &b, RefJoin::Inner, |_, _| Some(true)),
    );
}

#[test]
fn h16_disabled_strategies_remove_hints_and_defaults() {
    let mut s = sess();
    s.set("disabled_strategies", "BROADCAST").unwrap();
    let sql = format!("SELECT /*+ BROADCAST(b) */ * {EQ_AB}");
    let x = s.explain(&sql).unwrap();
    assert_ne!(x.joins[0].strategy, Broadcast, "{}", x.to_text());
    assert_eq!(
        x.joins[0].ignored_hints[0].reason,
        IgnoreReason::Disabled(Broadcast)
    );
    assert_eq!(run(&s, &sql), ab_inner().strings());
    // the default for a tiny equi-join is no longer a broadcast
    let x = s.explain(&format!("SELECT * {EQ_AB}")).unwrap();
    assert_ne!(x.joins[0].strategy, Broadcast);
    // only NEST_LOOP left
    s.set(
        "disabled_strategies",
        "broadcast, shuffle_hash,SHUFFLE_MERGE",
    )
    .unwrap();
    let x = s
        .explain(&format!("SELECT /*+ SHUFFLE_HASH(b) */ * {EQ_AB}"))
        .unwrap();
    assert_eq!(x.joins[0].strategy, NestLoop);
    assert_eq!(run(&s, &format!("SELECT * {EQ_AB}")), ab_inner().strings());
    // disabling every strategy that can run a join is an error
    s.set("disabled_strategies", "NEST_LOOP").unwrap();
    let msg = hint_err(&s, "SELECT * FROM a JOIN b ON a.k > b.k");
    assert!(msg.contains("NEST_LOOP"), "{msg}");
    // nothing disabled again
    s.set("disabled_strategies", "").unwrap();
    assert_eq!(
        strategies(&s, "SELECT * FROM a JOIN b ON a.k > b.k")[0].0,
        NestLoop
    );
}

#[test]
fn h17_strict_mode_makes_inapplicable_hints_errors() {
    let mut s = sess();
    s.set("hint_mode", "strict").unwrap();
    let msg = hint_err(
        &s,
        "SELECT /*+ BROADCAST(a) */ * FROM a FULL OUTER JOIN b ON a.k = b.k",
    );
    assert!(
        msg.contains("FULL OUTER") && msg.contains("BROADCAST(a)"),
        "{msg}"
    );
    let msg = hint_err(
        &s,
        "SELECT /*+ SHUFFLE_HASH(a) */ * FROM a JOIN b ON a.k < b.k",
    );
    assert!(msg.contains("SHUFFLE_HASH(a)"), "{msg}");
    let msg = hint_err(
        &s,
        "SELECT /*+ BROADCAST(a) */ * FROM a LEFT JOIN b ON a.k = b.k",
    );
    assert!(msg.contains("BROADCAST(a)"), "{msg}");
    // applicable hints run as usual
    let sql = format!("SELECT /*+ BROADCAST(b) */ * {EQ_AB}");
    assert_eq!(strategies(&s, &sql), [sb(Broadcast, Some("b"))]);
    assert_eq!(run(&s, &sql), ab_inner().strings());
    // back to lenient: the hint falls back
    s.set("hint_mode", "lenient").unwrap();
    let full = "SELECT /*+ BROADCAST(a) */ * FROM a FULL OUTER JOIN b ON a.k = b.k";
    assert_eq!(
        run(&s, full),
        join2("a", "b", RefJoin::Full, "a.k", "b.k").strings()
    );
}

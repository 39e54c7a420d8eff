//! H20–H52: conflicts, query blocks, aliases, table options, other hints.

use super::*;

// ============================================================= §3 conflicts

#[test]
fn h20_first_listed_table_wins() {
    check(
        &format!("SELECT /*+ BROADCAST(t2, t1) */ * {T12}"),
        &[H(Broadcast, Some("t2"))],
        &t12(),
    );
    check(
        &format!("SELECT /*+ BROADCAST(t1, t2) */ * {T12}"),
        &[H(Broadcast, Some("t1"))],
        &t12(),
    );
    check(
        &format!("SELECT /*+ BROADCAST(t1, t1) */ * {T12}"),
        &[H(Broadcast, Some("t1"))],
        &t12(),
    );
    check(
        &format!("SELECT /*+ SHUFFLE_HASH(t2, t1) */ * {T12}"),
        &[H(ShuffleHash, Some("t2"))],
        &t12(),
    );
    check(
        &format!("SELECT /*+ NEST_LOOP(t2, t1) */ * {T12}"),
        &[H(NestLoop, Some("t2"))],
        &t12(),
    );
}

#[test]
fn h21_first_written_hint_of_a_strategy_wins() {
    let sql = format!("SELECT /*+ BROADCAST(t2), BROADCAST(t1) */ * {T12}");
    check(&sql, &[H(Broadcast, Some("t2"))], &t12());
    let x = sess().explain(&sql).unwrap();
    assert!(
        matches!(&x.joins[0].ignored_hints[0].reason, IgnoreReason::Overridden { by } if by == "BROADCAST(t2)"),
        "{:?}",
        x.joins[0].ignored_hints
    );
    check(
        &format!("SELECT /*+ BROADCAST(t2, t1), BROADCAST(t1, t2) */ * {T12}"),
        &[H(Broadcast, Some("t2"))],
        &t12(),
    );
    // FLIP-229's comment says t1; its rule (and tenon) says t2
    check(
        &format!("SELECT /*+ NEST_LOOP(t2), NEST_LOOP(t1) */ * {T12}"),
        &[H(NestLoop, Some("t2"))],
        &t12(),
    );
}

#[test]
fn h22_first_valid_hint_across_strategies() {
    check(
        &format!("SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * {T12}"),
        &[H(Broadcast, Some("t1"))],
        &t12(),
    );
    check(
        &format!("SELECT /*+ SHUFFLE_HASH(t1) BROADCAST(t1) */ * {T12}"),
        &[H(ShuffleHash, Some("t1"))],
        &t12(),
    );
    let full = join2("t1", "t2", RefJoin::Full, "t1.id", "t2.id");
    let sql = "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id = t2.id";
    check(sql, &[H(ShuffleHash, Some("t1"))], &full);
    let x = sess().explain(sql).unwrap();
    assert_eq!(x.joins[0].join_type, JoinType::Full);
    assert_eq!(
        x.joins[0].ignored_hints[0].reason,
        IgnoreReason::FullOuterBroadcast
    );
}

#[test]
fn h23_no_valid_hint_falls_back_with_reasons() {
    let (t1, t2) = (rel("t1"), rel("t2"));
    let (i1, i2) = (t1.col("t1.id"), t2.col("t2.id"));
    let sql = "SELECT /*+ BROADCAST(t1) SHUFFLE_HASH(t1) */ * FROM t1 FULL OUTER JOIN t2 ON t1.id > t2.id";
    check(
        sql,
        &[Dflt(Some(NestLoop))],
        &ref_join(&t1, &t2, RefJoin::Full, |x, y| gt(x[i1], y[i2])),
    );
    let x = sess().explain(sql).unwrap();
    assert_eq!(x.joins[0].ignored_hints.len(), 2);
    let text = x.to_text();
    assert!(
        text.contains("BROADCAST(t1) ignored") && text.contains("SHUFFLE_HASH(t1) ignored"),
        "{text}"
    );
    assert!(x.to_json().contains("\"ignored_hints\""), "{}", x.to_json());
}

#[test]
fn h24_one_hint_serves_several_joins() {
    check(
        &format!("SELECT /*+ BROADCAST(t1, t3) */ * {T123}"),
        &[H(Broadcast, Some("t1")), H(Broadcast, Some("t3"))],
        &t123(),
    );
    let a = strategies(
        &sess(),
        &format!("SELECT /*+ BROADCAST(t1, t2, t3) */ * {T123}"),
    );
    let b = strategies(
        &sess(),
        &format!("SELECT /*+ BROADCAST(t1, t2), BROADCAST(t3) */ * {T123}"),
    );
    assert_eq!(a, b);
    assert_eq!(a, [sb(Broadcast, Some("t1")), sb(Broadcast, Some("t3"))]);
}

#[test]
fn h25_key_value_hints_repeated_keys_are_accepted() {
    // last value of a repeated key in one hint, first hint's value across
    // hints: not observable in batch execution beyond being accepted
    check(
        &format!(
            "SELECT /*+ STATE_TTL('t1' = '1d', 't1' = '2d'), STATE_TTL('t1' = '3d'), SHUFFLE_HASH(t1) */ * {T12}"
        ),
        &[H(ShuffleHash, Some("t1"))],
        &t12(),
    );
}

// ================================================================= §4 scope

#[test]
fn h30_outer_hint_does_not_reach_a_from_subquery() {
    let s = sess();
    let inner = "(SELECT a.k, a.s FROM a JOIN b ON a.k = b.k) x";
    let msg = hint_err(
        &s,
        &format!("SELECT /*+ SHUFFLE_HASH(a) */ x.s, c.s FROM {inner} JOIN c ON x.k = c.k"),
    );
    assert!(
        msg.contains("`c`, `x`") || msg.contains("`x`, `c`"),
        "{msg}"
    );
    // each block's hints apply to its own joins
    let sql = "SELECT /*+ SHUFFLE_HASH(x) */ x.s, c.s FROM \
               (SELECT /*+ NEST_LOOP(b) */ a.k, a.s FROM a JOIN b ON a.k = b.k) x \
               JOIN c ON x.k = c.k";
    let ab = join2("a", "b", RefJoin::Inner, "a.k", "b.k");
    let c = rel("c");
    let (abk, ck) = (ab.col("a.k"), c.col("c.k"));
    let expected =
        ref_join(&ab, &c, RefJoin::Inner, |p, q| eq(p[abk], q[ck])).select(&["a.s", "c.s"]);
    check(
        sql,
        &[H(NestLoop, Some("b")), H(ShuffleHash, Some("x"))],
        &expected,
    );
    let x = s.explain(sql).unwrap();
    assert_ne!(x.joins[0].block, x.joins[1].block);
}

#[test]
fn h30_outer_hint_does_not_reach_a_where_subquery() {
    let s = sess();
    let sql = "SELECT /*+ SHUFFLE_HASH(a) */ a.s, c.s FROM a JOIN c ON a.k = c.k \
               WHERE a.k IN (SELECT b.k FROM b JOIN n ON b.k = n.k)";
    // reference: a JOIN c, semi-joined with the keys of b JOIN n
    let bn = join2("b", "n", RefJoin::Inner, "b.k", "n.k");
    let ac = join2("a", "c", RefJoin::Inner, "a.k", "c.k");
    let (ack, bnk) = (ac.col("a.k"), bn.col("b.k"));
    let expected =
        ref_join(&ac, &bn, RefJoin::Semi, |p, q| eq(p[ack], q[bnk])).select(&["a.s", "c.s"]);
    check(
        sql,
        &[Dflt(None), H(ShuffleHash, Some("a")), Dflt(None)],
        &expected,
    );
    let x = s.explain(sql).unwrap();
    assert_eq!(
        (x.joins[0].left.as_deref(), x.joins[0].right.as_deref()),
        (Some("b"), Some("n"))
    );
    assert_eq!(x.joins[2].join_type, JoinType::LeftSemi);
    // naming b from the outer block is an error; the subquery's own hint works
    let msg = hint_err(&s, &sql.replace("SHUFFLE_HASH(a)", "SHUFFLE_HASH(b)"));
    assert!(msg.contains("`b`"), "{msg}");
    let own = sql.replace("SELECT b.k", "SELECT /*+ NEST_LOOP(n) */ b.k");
    check(
        &own,
        &[
            H(NestLoop, Some("n")),
            H(ShuffleHash, Some("a")),
            Dflt(None),
        ],
        &expected,
    );
}

#[test]
fn h30_each_union_branch_has_its_own_hints() {
    let sql = "SELECT /*+ SHUFFLE_HASH(a) */ a.s FROM a JOIN b ON a.k = b.k \
               UNION ALL \
               SELECT /*+ NEST_LOOP(c) */ a.s FROM a JOIN c ON a.k = c.k";
    let mut rows = join2("a", "b", RefJoin::Inner, "a.k", "b.k").select(&["a.s"]);
    rows.rows.extend(
        join2("a", "c", RefJoin::Inner, "a.k", "c.k")
            .select(&["a.s"])
            .rows,
    );
    check(
        sql,
        &[H(ShuffleHash, Some("a")), H(NestLoop, Some("c"))],
        &rows,
    );
    let msg = hint_err(
        &sess(),
        "SELECT /*+ NEST_LOOP(c) */ a.s FROM a JOIN b ON a.k = b.k \
         UNION ALL SELECT a.s FROM a JOIN c ON a.k = c.k",
    );
    assert!(msg.contains("`c`"), "{msg}");
}

#[test]
fn h31_views_are_join_inputs_and_keep_their_own_hints() {
    // FLIP-229's view example: the outer BROADCAST(t1) does not reach into
    // view1; the join of view1 and t1 broadcasts t1.
    let s = sess();
    s.collect("CREATE VIEW view1 AS SELECT t1.* FROM t1 JOIN t2 ON t1.a = t2.a")
        .unwrap_or_else(|e| panic!("CREATE VIEW: {e}"));
    let sql = "SELECT /*+ BROADCAST(t1) */ * FROM view1 JOIN t1 ON view1.a = t1.a";
    let x = s.explain(sql).unwrap();
    assert_eq!(x.joins.len(), 2);
    assert_eq!(x.joins[0].source, DecisionSource::Default);
    assert_eq!(
        (x.joins[1].strategy, x.joins[1].build.as_deref()),
        (Broadcast, Some("t1"))
    );
    let v = join2("t1", "t2", RefJoin::Inner, "t1.a", "t2.a");
    let t1 = rel("t1");
    let v = v.project(&(0..t1.width()).collect::<Vec<_>>());
    let (va, ta) = (v.col("t1.a"), t1.col("t1.a"));
    assert_eq!(
        run(&s, sql),
        ref_join(&v, &t1, RefJoin::Inner, |p, q| eq(p[va], q[ta])).strings()
    );
    // a hint naming the view
    let x = s
        .explain("SELECT /*+ SHUFFLE_HASH(view1) */ * FROM view1 JOIN t3 ON view1.a = t3.a")
        .unwrap();
    assert_eq!(x.joins[1].build.as_deref(), Some("view1"));
}

#[test]
fn h32_aliases_name_the_inputs() {
    let expected = ab_inner().select(&["a.s", "b.s"]);
    let sql = "SELECT /*+ SHUFFLE_HASH(y) */ x.s, y.s FROM a x JOIN b AS y ON x.k = y.k";
    check(sql, &[H(ShuffleHash, Some("y"))], &expected);
    let x = sess().explain(sql).unwrap();
    assert_eq!(
        (x.joins[0].left.as_deref(), x.joins[0].right.as_deref()),
        (Some("x"), Some("y"))
    );
    assert_eq!(x.joins[0].keys, ["x.k = y.k"]);
    // naming the table under its alias is an error suggesting the alias
    let msg = hint_err(
        &sess(),
        "SELECT /*+ SHUFFLE_HASH(b) */ x.s FROM a x JOIN b y ON x.k = y.k",
    );
    assert!(msg.contains("`SHUFFLE_HASH(y)`"), "{msg}");
}

#[test]
fn h32_self_join_with_aliases() {
    let a = rel("a");
    let a2 = table_a().rel_as("a2");
    let (k1, k2) = (a.col("a.k"), a2.col("a2.k"));
    let expected =
        ref_join(&a, &a2, RefJoin::Inner, |p, q| eq(p[k1], q[k2])).select(&["a.s", "a2.s"]);
    check(
        "SELECT /*+ BROADCAST(a2) */ a1.s, a2.s FROM a a1 JOIN a a2 ON a1.k = a2.k",
        &[H(Broadcast, Some("a2"))],
        &expected,
    );
}

// ============================================== §5 dynamic table options

/// A CSV table `p(k, v)` whose `v` holds the text `NA` in one row.
fn csv_session(test: &str) -> (Session, TempDir) {
    let dir = temp_dir(test);
    let path = dir.join("p.csv");
    std::fs::write(&path, "k,v\n1,x\n2,NA\n3,\n").unwrap();
    let mut s = sess();
    s.register_file("p", &path).unwrap();
    (s, dir)
}

#[test]
fn h40_options_override_one_scan_only() {
    let (s, dir) = csv_session("h40");
    // registered options: NA is a value, the empty field is NULL
    assert_eq!(run(&s, "SELECT count(v) FROM p"), ["2"]);
    let hinted = "SELECT count(v) FROM p /*+ OPTIONS('csv.null-literal' = 'NA') */";
    assert_eq!(run(&s, hinted), ["1"]);
    // the other use of p in the same query keeps the registered options
    let both = format!("{hinted} UNION ALL SELECT count(v) + 100 FROM p");
    assert_eq!(run(&s, &both), ["1", "102"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn h41_unknown_option_keys_and_bad_values_are_errors() {
    let (s, dir) = csv_session("h41");
    let e = query_err(
        &s,
        "SELECT * FROM p /*+ OPTIONS('csv.no-such-key' = 'x') */",
    );
    assert_eq!(e.exit_code(), 2, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("csv.no-such-key") && msg.contains("csv.field-delimiter"),
        "{msg}"
    );
    let e = query_err(
        &s,
        "SELECT * FROM p /*+ OPTIONS('csv.has-header' = 'maybe') */",
    );
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("maybe"), "{e}");
    let e = query_err(
        &s,
        "SELECT * FROM p /*+ OPTIONS('scan.batch-size' = 'many') */",
    );
    assert_eq!(e.exit_code(), 2, "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn h42_csv_options_are_applied() {
    let dir = temp_dir("h42");
    let path = dir.join("q.csv");
    // no header, `;` between fields, `-` for NULL, one bad row
    std::fs::write(&path, "1;x\n2;-\nbad;y\n4;z\n").unwrap();
    let s = sess();
    // The table's schema is declared (as in Flink, options change how the
    // file is read, never the table's columns); with the defaults the file
    // does not read (one field per line, a header), the options re-read it
    // for this scan.
    s.execute(&format!(
        "CREATE TABLE q (id BIGINT, name STRING) WITH ('connector' = 'filesystem', \
         'path' = '{}', 'format' = 'csv')",
        path.display()
    ))
    .unwrap();
    let e = query_err(&s, "SELECT count(*) FROM q");
    assert!(e.to_string().contains("line 2"), "{e}");
    let sql = "SELECT count(*), count(name) FROM q /*+ OPTIONS('csv.has-header' = 'false', \
               'csv.field-delimiter' = ';', 'csv.null-literal' = '-', 'csv.ignore-parse-errors' = 'true') */";
    // the bad row kept, its `id` NULL (Flink's meaning of the option)
    assert_eq!(run(&s, sql), ["4|3"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn h42_scan_batch_size_applies_to_every_format() {
    let s = sess();
    let sql = "SELECT k, s FROM a /*+ OPTIONS('scan.batch-size' = '2') */";
    let batches = collect(&s, sql);
    assert!(
        batches.iter().all(|b| b.num_rows() <= 2),
        "{:?}",
        batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>()
    );
    assert_eq!(
        row_strings(&batches),
        rel("a").select(&["a.k", "a.s"]).strings()
    );
}

// ======================================= §6 hints beyond the join strategies

#[test]
fn h50_multi_join_runs_the_listed_joins() {
    let sql = "SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id";
    assert_eq!(run(&sess(), sql), t123().strings());
    let text = sess().explain(sql).unwrap().tree().to_string();
    assert!(text.contains("MultiJoin"), "{text}");
}

#[test]
fn h50_multi_join_is_checked_and_explain_says_what_became_of_it() {
    let s = sess();
    let valid = "SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id \
                 JOIN t3 ON t2.id = t3.id";
    assert_eq!(run(&s, valid), t123().strings());
    let text = s.explain(valid).unwrap().to_text();
    assert!(
        text.contains("MULTI_JOIN (one multi-way join on the common key")
            && text.contains("hint MULTI_JOIN(t1, t2, t3) applied"),
        "{text}"
    );
    // no key common to all three: t3 joins on another column
    let no_common = "SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id \
                     JOIN t3 ON t2.age = t3.age";
    let text = s.explain(no_common).unwrap().to_text();
    assert!(text.contains("share no common key"), "{text}");
    let full = "SELECT /*+ MULTI_JOIN(t1, t2) */ * FROM t1 FULL JOIN t2 ON t1.id = t2.id";
    let text = s.explain(full).unwrap().to_text();
    assert!(text.contains("neither INNER nor LEFT"), "{text}");
    // names: in scope, by alias, two or more
    let e = query_err(&s, &format!("SELECT /*+ MULTI_JOIN(t1, t9) */ * {T12}"));
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("t9"), "{e}");
    let e = query_err(
        &s,
        "SELECT /*+ MULTI_JOIN(t1, t2) */ * FROM t1 AS a JOIN t2 ON a.id = t2.id",
    );
    assert!(e.to_string().contains("MULTI_JOIN(a, t2)"), "{e}");
    let e = query_err(&s, &format!("SELECT /*+ MULTI_JOIN(t1) */ * {T12}"));
    assert!(e.to_string().contains("two or more"), "{e}");
    // strict mode: a hint that cannot be applied is an error (H17), one
    // that can runs
    let mut strict = sess();
    strict.set("hint_mode", "strict").unwrap();
    assert_eq!(run(&strict, valid), t123().strings());
    let e = query_err(&strict, no_common);
    assert!(e.to_string().contains("MULTI_JOIN"), "{e}");
}

#[test]
fn h51_lookup_requires_a_table_and_complete_retry_options() {
    let s = sess();
    let e = query_err(
        &s,
        &format!("SELECT /*+ LOOKUP('async' = 'true') */ * {T12}"),
    );
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("table"), "{e}");
    let e = query_err(
        &s,
        &format!("SELECT /*+ LOOKUP('table' = 't2', 'retry-predicate' = 'lookup_miss') */ * {T12}"),
    );
    assert_eq!(e.exit_code(), 2);
    assert_eq!(
        run(&s, &format!("SELECT /*+ LOOKUP('table' = 't2') */ * {T12}")),
        t12().strings()
    );
}

#[test]
fn h52_state_ttl_is_accepted_and_validated() {
    let s = sess();
    // valid: no effect, and EXPLAIN says why (merged by H25: the first
    // hint giving a name wins)
    let sql = format!(
        "SELECT /*+ STATE_TTL('t1' = '1d', 't2' = '12h'), STATE_TTL('t1' = '2d') */ * {T12}"
    );
    let text = s.explain(&sql).unwrap().to_text();
    assert!(
        text.contains(
            "hint STATE_TTL('t1'='1d', 't2'='12h') ignored: STATE_TTL applies to streaming \
             state; no effect in batch"
        ),
        "{text}"
    );
    // strict mode accepts it too: it is valid, only without effect
    let mut strict = sess();
    strict.set("hint_mode", "strict").unwrap();
    assert_eq!(run(&strict, &sql), t12().strings());
    // an aliased table goes by its alias
    let e = query_err(
        &s,
        "SELECT /*+ STATE_TTL('t1' = '1d') */ * FROM t1 AS a JOIN t2 ON a.id = t2.id",
    );
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("STATE_TTL('a'"), "{e}");
    // a GROUP BY block's input, and a subquery alias, are in scope
    assert_eq!(
        run(
            &s,
            "SELECT /*+ STATE_TTL('tmp' = '1d') */ count(*) FROM (SELECT id FROM t1) tmp"
        ),
        run(&s, "SELECT count(*) FROM t1")
    );
    for form in ["STATE_TTL(t1)", "STATE_TTL"] {
        let e = query_err(&s, &format!("SELECT /*+ {form} */ * {T12}"));
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("'name' = 'duration'"), "{form}: {e}");
    }
    assert_eq!(
        run(
            &s,
            &format!("SELECT /*+ STATE_TTL('t1' = '1d', 't2' = '12h') */ * {T12}")
        ),
        t12().strings()
    );
    let e = query_err(&s, &format!("SELECT /*+ STATE_TTL('t9' = '1d') */ * {T12}"));
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("t9"), "{e}");
    let e = query_err(
        &s,
        &format!("SELECT /*+ STATE_TTL('t1' = 'forever') */ * {T12}"),
    );
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("forever"), "{e}");
}

// ======================================================== §8 join semantics

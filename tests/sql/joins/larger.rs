//! Larger generated inputs, streaming and EXPLAIN ANALYZE.

use super::*;

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
        assert_rows_in_every_config(&sql, &expected);
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
    assert_rows_in_every_config(sql, &expected.strings());
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

/// A default SHUFFLE_HASH whose estimate picked the larger side (a filter
/// on a computed value that keeps every row is guessed to keep a quarter:
/// column statistics do not see through `abs`) builds the smaller
/// side once both are collected, says so in EXPLAIN ANALYZE, and returns
/// the same rows; a hinted build side is kept as hinted.
#[test]
fn default_shuffle_hash_builds_the_side_that_is_really_smaller() {
    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    use tenon::kernels::HashJoin;

    let table = |n: usize, step: i64| {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("v", DataType::Int64, false),
        ]));
        let k = Int64Array::from_iter_values((0..n as i64).map(|i| i * step % 100_003));
        let v = Int64Array::from_iter_values((0..n as i64).map(|i| i % 7));
        RecordBatch::try_new(schema, vec![Arc::new(k), Arc::new(v)]).unwrap()
    };
    let big = HashJoin::unpartitioned_rows() + 20_000;
    let small = HashJoin::unpartitioned_rows() + 5_000;
    let mut s = session(2, 8192);
    s.register_batch("big", table(big, 3)).unwrap();
    s.register_batch("small", table(small, 5)).unwrap();
    // Nothing may be broadcast: the choice is SHUFFLE_HASH.
    s.set("broadcast_threshold", "1KB").unwrap();
    let body = "count(*), sum(big.v), sum(small.v) FROM big JOIN small ON big.k = small.k \
                WHERE abs(big.v) >= 0";

    let (x, out) = s.explain_analyze(&format!("SELECT {body}")).unwrap();
    let text = x.to_text();
    assert!(text.contains("SHUFFLE_HASH INNER build=big"), "{text}");
    assert!(
        text.contains(&format!(
            "adapted: built the right input ({small} rows) instead of the left ({big} rows)"
        )),
        "{text}"
    );
    let adapted = row_strings(&out.batches);

    // The same under a default BROADCAST of an inner join (either side
    // may be broadcast).
    s.set("broadcast_threshold", "64MB").unwrap();
    let (x, out) = s.explain_analyze(&format!("SELECT {body}")).unwrap();
    let text = x.to_text();
    assert!(text.contains("BROADCAST INNER build=big"), "{text}");
    assert!(text.contains("adapted: built the right input"), "{text}");
    assert_eq!(row_strings(&out.batches), adapted);
    s.set("broadcast_threshold", "1KB").unwrap();

    let hinted = format!("SELECT /*+ SHUFFLE_HASH(big) */ {body}");
    let (x, out) = s.explain_analyze(&hinted).unwrap();
    assert!(!x.to_text().contains("adapted"), "{}", x.to_text());
    assert_eq!(row_strings(&out.batches), adapted);
    let (x, out) = s
        .explain_analyze(&format!("SELECT /*+ SHUFFLE_HASH(small) */ {body}"))
        .unwrap();
    assert!(!x.to_text().contains("adapted"), "{}", x.to_text());
    assert_eq!(row_strings(&out.batches), adapted);
}

/// A default BROADCAST of a semi or anti join whose broadcast (right) side
/// turns out larger than the other runs as SHUFFLE_HASH building the
/// smaller, preserved side (H15's fallback), with the same answer as the
/// hinted BROADCAST that keeps building the right side (TPC-H Q4's EXISTS).
#[test]
fn default_broadcast_of_a_semi_join_builds_the_smaller_preserved_side() {
    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    use tenon::kernels::HashJoin;

    let table = |n: usize, step: i64| {
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, true),
            Field::new("v", DataType::Int64, false),
        ]));
        // Keys repeat on the big side; every 11th key of the small one is NULL.
        let k = Int64Array::from_iter(
            (0..n as i64).map(|i| (step != 1 || i % 11 != 0).then_some(i * step % 50_021)),
        );
        let v = Int64Array::from_iter_values((0..n as i64).map(|i| i % 7));
        RecordBatch::try_new(schema, vec![Arc::new(k), Arc::new(v)]).unwrap()
    };
    // 5/7 of it pass abs(big.v) < 5; with `abs(big.v) >= 0` (every row)
    // the filter, on a computed value, is guessed to keep 1/16 of big, smaller than `small`, so the default
    // broadcasts big's side (H15 rule 4).
    let big = 2 * HashJoin::unpartitioned_rows();
    let mut s = session(2, 8192);
    s.register_batch("big", table(big, 3)).unwrap();
    s.register_batch("small", table(60_000, 1)).unwrap();
    for kind in ["SEMI", "ANTI"] {
        let body = format!(
            "count(*), sum(small.v) FROM small LEFT {kind} JOIN big \
             ON big.k = small.k AND abs(big.v) < 5 AND abs(big.v) >= 0"
        );
        let (x, out) = s.explain_analyze(&format!("SELECT {body}")).unwrap();
        let text = x.to_text();
        assert!(text.contains(&format!("BROADCAST LEFT {kind}")), "{text}");
        assert!(
            text.contains("adapted: ran as SHUFFLE_HASH: built the left input (60000 rows)"),
            "{text}"
        );
        let adapted = row_strings(&out.batches);
        let hinted = format!("SELECT /*+ BROADCAST(big) */ {body}");
        let (x, out) = s.explain_analyze(&hinted).unwrap();
        assert!(!x.to_text().contains("adapted"), "{}", x.to_text());
        assert_eq!(row_strings(&out.batches), adapted, "{kind}");
    }
}

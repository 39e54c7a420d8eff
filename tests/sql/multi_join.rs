//! MULTI_JOIN (docs/hints.md H50, issue 21): a valid group runs as one
//! multi-way join (EXPLAIN's tree shows `MultiJoin`) and returns the
//! binary plan's rows for INNER / LEFT chains of 3 and 4 tables with NULL
//! keys, duplicate (skewed) keys and empty tables, at batch sizes 1, 2, 7
//! and 8192 and 1 or 4 threads; a group it cannot run falls back to
//! binary joins with the reason in EXPLAIN.

use proptest::prelude::*;

use crate::common::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 1024,
        ..ProptestConfig::default()
    }
}

fn cell(hi: i64) -> impl Strategy<Value = Option<i64>> {
    prop_oneof![1 => Just(None), 4 => (0..hi).prop_map(Some)]
}

fn table(name: &'static str) -> impl Strategy<Value = Table> {
    proptest::collection::vec((cell(4), cell(10)), 0..=10).prop_map(move |rows| {
        Table::new(
            name,
            &[("k", ColType::I64), ("v", ColType::I64)],
            rows.into_iter().map(|(k, v)| vec![k, v]).collect(),
        )
    })
}

/// A chain over t1..tn: per join after the first table, LEFT or INNER
/// and which earlier table's key its condition names.
#[derive(Debug, Clone)]
struct Chain {
    tables: Vec<Table>,
    steps: Vec<(bool, usize)>,
    batch: usize,
    threads: usize,
}

impl Chain {
    fn sql(&self, hint: bool) -> String {
        let names: Vec<String> = (1..=self.tables.len()).map(|i| format!("t{i}")).collect();
        let mut sql = String::from("SELECT ");
        if hint {
            sql.push_str(&format!("/*+ MULTI_JOIN({}) */ ", names.join(", ")));
        }
        let cols: Vec<String> = names.iter().map(|n| format!("{n}.k, {n}.v")).collect();
        sql.push_str(&format!("{} FROM t1", cols.join(", ")));
        for (i, &(left, refers)) in self.steps.iter().enumerate() {
            let me = &names[i + 1];
            let kind = if left { "LEFT JOIN" } else { "JOIN" };
            sql.push_str(&format!(" {kind} {me} ON {}.k = {me}.k", names[refers]));
        }
        sql
    }
}

fn chain() -> impl Strategy<Value = Chain> {
    (
        prop_oneof![Just(3usize), Just(4)],
        (table("t1"), table("t2"), table("t3"), table("t4")),
        proptest::collection::vec((any::<bool>(), any::<usize>()), 3),
        prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
        prop_oneof![Just(1usize), Just(4)],
    )
        .prop_map(|(n, (a, b, c, d), steps, batch, threads)| Chain {
            tables: vec![a, b, c, d].into_iter().take(n).collect(),
            steps: steps
                .into_iter()
                .take(n - 1)
                .enumerate()
                .map(|(i, (left, r))| (left, r % (i + 1)))
                .collect(),
            batch,
            threads,
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn multi_join_returns_the_binary_plans_rows(c in chain()) {
        let s = session_with(&c.tables, c.threads, c.batch);
        let hinted = c.sql(true);
        let tree = s.explain(&hinted).unwrap().tree().to_string();
        prop_assert!(tree.contains("MultiJoin"), "{}\n{}", hinted, tree);
        prop_assert_eq!(run(&s, &hinted), run(&s, &c.sql(false)), "{}", hinted);
    }
}

fn three() -> Vec<Table> {
    let t = |name: &str, rows: Vec<[Option<i64>; 2]>| {
        Table::new(
            name,
            &[("k", ColType::I64), ("v", ColType::I64)],
            rows.into_iter().map(|r| r.to_vec()).collect(),
        )
    };
    vec![
        t(
            "t1",
            vec![[Some(1), Some(10)], [Some(2), Some(20)], [None, Some(30)]],
        ),
        t(
            "t2",
            vec![[Some(1), Some(11)], [Some(1), Some(12)], [None, Some(13)]],
        ),
        t("t3", vec![[Some(1), Some(21)], [Some(2), Some(22)]]),
    ]
}

#[test]
fn a_group_that_cannot_run_as_one_join_falls_back_with_its_reason() {
    let mut s = session_with(&three(), 2, 8192);
    let chain = "FROM t1 JOIN t2 ON t1.k = t2.k JOIN t3 ON t2.k = t3.k";
    let binary = run(&s, &format!("SELECT * {chain}"));
    let cases = [
        (
            format!("SELECT /*+ MULTI_JOIN(t1, t2, t3), BROADCAST(t3) */ * {chain}"),
            "has its strategy hinted",
        ),
        (
            "SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.k = t2.k AND t1.v < t2.v \
             JOIN t3 ON t2.k = t3.k"
                .to_string(),
            "conditions besides equalities of the common key",
        ),
    ];
    for (sql, why) in &cases {
        let text = s.explain(sql).unwrap().to_text();
        assert!(text.contains(why), "{sql}\n{text}");
        let tree = s.explain(sql).unwrap().tree().to_string();
        assert!(!tree.contains("MultiJoin"), "{tree}");
    }
    assert_eq!(
        run(
            &s,
            &format!("SELECT /*+ MULTI_JOIN(t1, t2, t3), BROADCAST(t3) */ * {chain}")
        ),
        binary
    );
    // under a memory limit the binary joins run (they spill)
    s.set("memory_limit", "1GB").unwrap();
    let sql = format!("SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * {chain}");
    let text = s.explain(&sql).unwrap().to_text();
    assert!(text.contains("does not spill"), "{text}");
    assert_eq!(run(&s, &sql), binary);
}

#[test]
fn a_multi_join_under_a_join_and_an_aggregate_gives_the_binary_rows() {
    let s = session_with(&three(), 2, 8192);
    // the group is the bottom of a longer chain, under GROUP BY
    let body = "FROM t1 LEFT JOIN t2 ON t1.k = t2.k JOIN t3 ON t1.k = t3.k \
                JOIN t1 AS o ON o.v = t3.v - 11 GROUP BY t1.k ORDER BY t1.k";
    let hinted = format!("SELECT /*+ MULTI_JOIN(t1, t2, t3) */ t1.k, count(*), sum(t2.v) {body}");
    let tree = s.explain(&hinted).unwrap().tree().to_string();
    assert!(tree.contains("MultiJoin"), "{tree}");
    assert_eq!(
        run(&s, &hinted),
        run(&s, &format!("SELECT t1.k, count(*), sum(t2.v) {body}"))
    );
}

#[test]
fn a_second_column_of_an_input_equated_with_the_key_falls_back() {
    let s = session_with(&three(), 2, 8192);
    // t1.v = t2.k besides t1.k = t2.k: the multi-way join compares keys
    // only, so the group runs as binary joins (which test both)
    for sql in [
        "SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.k = t2.k AND t1.v = t2.k \
         JOIN t3 ON t2.k = t3.k",
        "SELECT /*+ MULTI_JOIN(t1, t2, t3) */ * FROM t1 JOIN t2 ON t1.k = t2.k \
         JOIN t3 ON t1.k = t3.k AND t2.v = t3.k",
    ] {
        let text = s.explain(sql).unwrap().to_text();
        assert!(text.contains("equates another column"), "{sql}\n{text}");
        let plain = sql.replace("/*+ MULTI_JOIN(t1, t2, t3) */ ", "");
        assert_eq!(run(&s, sql), run(&s, &plain), "{sql}");
    }
}

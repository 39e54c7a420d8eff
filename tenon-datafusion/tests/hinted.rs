//! Hinted SQL through a `SessionContext` (`hinted_sql`): tenon's front
//! end decides the joins, DataFusion runs them on tenon's kernels as
//! decided, with DataFusion's rows.

mod common;

use common::sorted;

use std::sync::Arc;

use datafusion::datasource::MemTable;
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use tenon_datafusion::{TenonJoinRule, hinted_sql, session_state};

fn tpch_context() -> SessionContext {
    let ctx = SessionContext::new_with_state(session_state(
        SessionConfig::new().with_target_partitions(2),
        TenonJoinRule::new(),
    ));
    for (name, batches) in tenon_datasets::tpch::tpch_tables(0.01) {
        let t = MemTable::try_new(batches[0].schema(), vec![batches]).unwrap();
        ctx.register_table(name, Arc::new(t)).unwrap();
    }
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_decides_the_join_datafusion_runs() {
    let ctx = tpch_context();
    let body = "c.c_mktsegment, n.n_name, count(*) FROM customer c JOIN orders o ON c.c_custkey = o.o_custkey \
                JOIN nation n ON c.c_nationkey = n.n_nationkey GROUP BY c.c_mktsegment, n.n_name";
    let want = sorted(
        &ctx.sql(&format!("SELECT {body}"))
            .await
            .unwrap()
            .collect()
            .await
            .unwrap(),
    );
    for (hint, wanted) in [
        (
            "SHUFFLE_MERGE(o), BROADCAST(n)",
            [
                "strategy=SHUFFLE_MERGE",
                "strategy=BROADCAST, join_type=Inner, build=right",
            ],
        ),
        (
            "SHUFFLE_HASH(c), NEST_LOOP(n)",
            [
                "strategy=SHUFFLE_HASH, join_type=Inner, build=left",
                "strategy=NEST_LOOP",
            ],
        ),
    ] {
        let sql = format!("SELECT /*+ {hint} */ {body}");
        let (df, decisions) = hinted_sql(&ctx, &sql).await.unwrap();
        assert_eq!(decisions.len(), 2, "{decisions:?}");
        assert!(
            decisions.iter().all(|d| d.reason.starts_with("hint")),
            "{decisions:?}"
        );
        let plan = df.clone().create_physical_plan().await.unwrap();
        let text = displayable(plan.as_ref()).indent(false).to_string();
        for w in wanted {
            assert!(text.contains(w), "{hint}: {w}\n{text}");
        }
        assert_eq!(sorted(&df.collect().await.unwrap()), want, "{hint}\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tpch_queries_through_tenons_front_end_give_datafusions_rows() {
    let ctx = tpch_context();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/tpch/queries");
    let mut ran = Vec::new();
    for n in 1..=22 {
        let sql = std::fs::read_to_string(format!("{dir}/q{n:02}.sql")).unwrap();
        let Ok(df) = ctx.sql(&sql).await else {
            continue;
        };
        let want = sorted(&df.collect().await.unwrap());
        let (df, _) = hinted_sql(&ctx, &sql)
            .await
            .unwrap_or_else(|e| panic!("q{n:02}: {e}"));
        let got = sorted(
            &df.collect()
                .await
                .unwrap_or_else(|e| panic!("q{n:02}: {e}")),
        );
        assert_eq!(got, want, "q{n:02}");
        ran.push(n);
    }
    assert!(ran.len() >= 20, "{ran:?}");
}

#[tokio::test]
async fn tenons_errors_come_back_in_its_words() {
    let ctx = tpch_context();
    let e = hinted_sql(
        &ctx,
        "SELECT /*+ BROADCAST(x) */ * FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey",
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("tenon") && e.contains('x'), "{e}");
    let e = hinted_sql(&ctx, "SELECT * FROM nowhere")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("nowhere"), "{e}");
}

/// A join without a hint keeps DataFusion's choice, which it makes from
/// the tables' sizes: the smaller input (orders) is built, whichever side
/// the query writes it on (tenon's default without estimates would build
/// the right input).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_without_a_hint_builds_the_side_datafusion_chooses() {
    let ctx = tpch_context();
    for sql in [
        "SELECT count(*) FROM orders o JOIN lineitem l ON o.o_orderkey = l.l_orderkey",
        "SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey",
    ] {
        let (df, decisions) = hinted_sql(&ctx, sql).await.unwrap();
        assert_eq!(decisions.len(), 1, "{decisions:?}");
        assert!(!decisions[0].hinted && decisions[0].reason.starts_with("no hint"));
        let plan = df.clone().create_physical_plan().await.unwrap();
        let text = displayable(plan.as_ref()).indent(false).to_string();
        let join = text
            .lines()
            .find(|l| l.contains("TenonJoinExec"))
            .unwrap_or_else(|| panic!("{sql}\n{text}"));
        let built_first = join.contains("build=left") && join.contains("on=[(o_orderkey");
        let built_second = join.contains("build=right") && join.contains(", o_orderkey");
        assert!(
            built_first || built_second,
            "{sql}: orders is not built\n{text}"
        );
    }
}

//! tenon's joins survive DataFusion's plan serialization (the form a plan
//! travels in to a distributed engine's workers): every strategy, with a
//! residual filter, and NOT IN's null-aware anti join give the same plan
//! and rows after a round trip; a
//! node of another tenon version is refused naming both versions.

mod common;

use common::sorted;

use std::sync::Arc;

use datafusion::physical_plan::{ExecutionPlan, collect, displayable};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use tenon_datafusion::{TENON_VERSION, TenonCodec, TenonJoinRule, session_state};
use tenon_kernels::Strategy;

async fn context(rule: TenonJoinRule) -> SessionContext {
    let ctx = SessionContext::new_with_state(session_state(
        SessionConfig::new().with_target_partitions(2),
        rule,
    ));
    for sql in [
        "CREATE TABLE a (k INT, v INT) AS VALUES (1, 10), (2, 20), (2, 21), (NULL, 5), (4, 40)",
        "CREATE TABLE b (k INT, w INT) AS VALUES (2, 25), (2, 19), (3, 30), (4, 1), (NULL, 7)",
    ] {
        ctx.sql(sql).await.unwrap().collect().await.unwrap();
    }
    ctx
}

fn text(plan: &Arc<dyn ExecutionPlan>) -> String {
    displayable(plan.as_ref()).indent(false).to_string()
}

async fn rows(ctx: &SessionContext, plan: Arc<dyn ExecutionPlan>) -> Vec<String> {
    sorted(&collect(plan, ctx.task_ctx()).await.unwrap())
}

#[tokio::test]
async fn every_strategy_round_trips_with_its_filter() {
    for strategy in [
        Strategy::Broadcast,
        Strategy::ShuffleHash,
        Strategy::ShuffleMerge,
        Strategy::NestLoop,
    ] {
        let ctx = context(TenonJoinRule::new().with_strategy(strategy)).await;
        let sql = "SELECT a.k, a.v, b.w FROM a LEFT JOIN b ON a.k = b.k AND a.v > b.w";
        let plan = ctx
            .sql(sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        assert!(
            text(&plan).contains(&format!("strategy={strategy}")),
            "{}",
            text(&plan)
        );
        let bytes =
            physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &TenonCodec).unwrap();
        let back =
            physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &TenonCodec)
                .unwrap();
        assert_eq!(text(&back), text(&plan));
        let (want, got) = (rows(&ctx, plan).await, rows(&ctx, back).await);
        assert_eq!(got, want, "{strategy}");
        // a: 1 (no match), 2/20 with 19, 2/21 with 19, NULL (no match),
        // 4/40 with 1
        assert_eq!(want.len(), 5, "{want:?}");
    }
}

#[tokio::test]
async fn a_not_in_join_round_trips() {
    let ctx = context(TenonJoinRule::new()).await;
    for (sql, n) in [
        // b has a NULL key: no row is NOT IN it
        ("SELECT a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b)", 0),
        (
            "SELECT a.v FROM a WHERE a.k NOT IN (SELECT b.k FROM b WHERE b.k IS NOT NULL)",
            1,
        ),
    ] {
        let plan = ctx
            .sql(sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        assert!(
            text(&plan).contains("(NOT IN, null-aware)"),
            "{}",
            text(&plan)
        );
        let bytes =
            physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &TenonCodec).unwrap();
        let back =
            physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &TenonCodec)
                .unwrap();
        assert_eq!(text(&back), text(&plan));
        let (want, got) = (rows(&ctx, plan).await, rows(&ctx, back).await);
        assert_eq!(got, want, "{sql}");
        assert_eq!(want.len(), n, "{sql}: {want:?}");
    }
}

#[tokio::test]
async fn a_node_of_another_tenon_version_is_refused_naming_both() {
    let ctx = context(TenonJoinRule::new()).await;
    let plan = ctx
        .sql("SELECT a.v, b.w FROM a JOIN b ON a.k = b.k")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &TenonCodec)
        .unwrap()
        .to_vec();
    // the version string, replaced by one of the same length
    let other: String = TENON_VERSION
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    let at = bytes
        .windows(TENON_VERSION.len())
        .position(|w| w == TENON_VERSION.as_bytes())
        .expect("the node holds its version");
    let mut changed = bytes.clone();
    changed[at..at + other.len()].copy_from_slice(other.as_bytes());
    let e = physical_plan_from_bytes_with_extension_codec(&changed, &ctx.task_ctx(), &TenonCodec)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&other) && e.contains(TENON_VERSION), "{e}");
}

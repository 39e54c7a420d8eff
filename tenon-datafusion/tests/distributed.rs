//! The trial of datafusion-distributed (README.md, "Choosing the
//! distributed engine"): three workers on loopback ports in this process,
//! a coordinator with tenon's rule and codec; a hinted join runs across
//! them with DataFusion's rows: SHUFFLE_HASH and SHUFFLE_MERGE over
//! network shuffles on the keys, BROADCAST over the engine's broadcast
//! exchange, which tenon's rule puts around the build side (without it,
//! each task would build its own third of the split build side). Run with
//! `cargo test -p tenon-datafusion --features cluster --test distributed`.
#![cfg(feature = "cluster")]

mod common;

use common::sorted;

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use datafusion::common::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};
use datafusion_distributed::{
    BroadcastExec, DistributedExt, SessionStateBuilderExt, Worker, WorkerQueryContext,
    WorkerResolver, display_plan_ascii,
};
use tenon_datafusion::{
    BroadcastExchange, TenonCodec, TenonJoinRule, hinted_sql_with, physical_optimizer_rules,
};
use url::Url;

#[derive(Clone)]
struct Loopback(Vec<u16>);

#[async_trait]
impl WorkerResolver for Loopback {
    fn get_urls(&self) -> Result<Vec<Url>, DataFusionError> {
        self.0
            .iter()
            .map(|p| {
                Url::parse(&format!("http://127.0.0.1:{p}"))
                    .map_err(|e| DataFusionError::External(Box::new(e)))
            })
            .collect()
    }
}

/// A worker serving on a free loopback port, with tenon's codec.
async fn start_worker() -> u16 {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let worker = Worker::from_session_builder(|ctx: WorkerQueryContext| async move {
        Ok(ctx.builder.with_distributed_user_codec(TenonCodec).build())
    });
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(worker.into_worker_server())
            .serve(SocketAddr::from((Ipv4Addr::LOCALHOST, port))),
    );
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hinted_join_runs_across_three_workers() {
    let dir = std::env::temp_dir().join(format!("tenon-distributed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut a = String::from("k,v\n");
    let mut b = String::from("k,w\n");
    for i in 0..3000 {
        a.push_str(&format!("{},{i}\n", i % 700));
        b.push_str(&format!("{},{}\n", i % 500, i * 2));
    }
    std::fs::write(dir.join("a.csv"), a).unwrap();
    std::fs::write(dir.join("b.csv"), b).unwrap();
    let mut ports = Vec::new();
    for _ in 0..3 {
        ports.push(start_worker().await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let config = SessionConfig::new().with_target_partitions(3);
    // the engine's broadcast exchange around a BROADCAST's build side
    let rule = TenonJoinRule::new().with_broadcast_exchange(BroadcastExchange(Arc::new(|build| {
        Arc::new(CoalescePartitionsExec::new(Arc::new(BroadcastExec::new(
            build, 1,
        ))))
    })));
    let state = SessionStateBuilder::new()
        .with_config(config.clone())
        .with_default_features()
        .with_physical_optimizer_rules(physical_optimizer_rules(rule.clone()))
        .with_distributed_worker_resolver(Loopback(ports))
        .with_distributed_planner()
        .with_distributed_user_codec(TenonCodec)
        // tiny files: a task per byte range, so that the plan distributes
        .with_distributed_file_scan_config_bytes_per_partition(1)
        .unwrap()
        .build();
    let cluster = SessionContext::from(state);
    let local = SessionContext::new_with_config(config);
    for ctx in [&cluster, &local] {
        for t in ["a", "b"] {
            ctx.register_csv(
                t,
                dir.join(format!("{t}.csv")).to_str().unwrap(),
                CsvReadOptions::new(),
            )
            .await
            .unwrap();
        }
    }
    let body = "a.k % 10 AS g, count(*) AS n, sum(a.v + b.w) AS s FROM a JOIN b ON a.k = b.k GROUP BY a.k % 10";
    let want = sorted(
        &local
            .sql(&format!("SELECT {body}"))
            .await
            .unwrap()
            .collect()
            .await
            .unwrap(),
    );
    for (hint, exchange) in [
        ("SHUFFLE_HASH(b)", "NetworkShuffleExec"),
        ("SHUFFLE_MERGE(b)", "NetworkShuffleExec"),
        ("BROADCAST(b)", "NetworkBroadcastExec"),
    ] {
        let sql = format!("SELECT /*+ {hint} */ {body}");
        let (df, _) = hinted_sql_with(&cluster, &sql, rule.clone()).await.unwrap();
        let plan = df.clone().create_physical_plan().await.unwrap();
        let text = display_plan_ascii(plan.as_ref(), false);
        assert!(text.contains(exchange), "{hint}\n{text}");
        assert!(
            text.contains("NetworkShuffleExec"),
            "not shuffled: {hint}\n{text}"
        );
        let got = sorted(
            &df.collect()
                .await
                .unwrap_or_else(|e| panic!("{hint}: {e}\n{text}")),
        );
        assert_eq!(got, want, "{hint}\n{text}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

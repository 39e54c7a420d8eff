//! A tenon cluster as separate processes: three `tenon-worker`s on free
//! loopback ports and a coordinator session in this test; the 22 TPC-H
//! queries (scale 0.01, CSV files the workers read) give the rows of
//! DataFusion's own local run; a worker that died fails the query at once
//! with an error naming it (datafusion-distributed does not retry tasks;
//! a worker killed in the middle of a query is tested through `tenon
//! query --cluster`, tests/sql/cluster.rs); a stock worker without
//! tenon's codec is named as such. Workers are killed when the test ends,
//! passes or fails. Run with
//! `cargo test -p tenon-datafusion --features cluster --test cluster`.
#![cfg(feature = "cluster")]

mod common;

use common::sorted;

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use datafusion::arrow::csv::WriterBuilder;
use datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};
use datafusion_distributed::DistributedExt;
use tenon_datafusion::cluster::coordinator_builder;
use tenon_datafusion::{TenonJoinRule, hinted_sql_with};

/// Worker processes, killed on drop.
struct Workers(Vec<Child>);

impl Drop for Workers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `n` workers, each answering on its port within 20 s.
fn start_workers(n: usize) -> (Workers, Vec<String>) {
    let mut children = Vec::new();
    let mut urls = Vec::new();
    for _ in 0..n {
        let port = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_tenon-worker"))
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tenon-worker");
        children.push(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "worker on port {port} did not start in 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        urls.push(format!("http://127.0.0.1:{port}"));
    }
    (Workers(children), urls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_through_three_worker_processes_gives_the_local_rows() {
    let dir = std::env::temp_dir().join(format!("tenon-cluster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tables = tenon_datasets::tpch::tpch_tables(0.01);
    for (name, batches) in &tables {
        let file = std::fs::File::create(dir.join(format!("{name}.csv"))).unwrap();
        let mut w = WriterBuilder::new().with_header(true).build(file);
        for b in batches {
            w.write(b).unwrap();
        }
    }
    let (_workers, urls) = start_workers(3);
    let config = SessionConfig::new().with_target_partitions(2);
    let rule = TenonJoinRule::new();
    // a task per 256 KiB of a file, so that scale 0.01's tables split
    let state = coordinator_builder(config.clone(), rule.clone(), &urls)
        .unwrap()
        .with_distributed_file_scan_config_bytes_per_partition(256 << 10)
        .unwrap()
        .build();
    let cluster = SessionContext::from(state);
    let local = SessionContext::new_with_config(config);
    // the tables' own types (decimals stay decimals: sums in any order
    // are then the same)
    for ctx in [&cluster, &local] {
        for (name, batches) in &tables {
            let path = dir.join(format!("{name}.csv"));
            let schema = batches[0].schema();
            let options = CsvReadOptions::new().schema(schema.as_ref());
            ctx.register_csv(*name, path.to_str().unwrap(), options)
                .await
                .unwrap();
        }
    }
    let queries = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/tpch/queries");
    let mut ran = Vec::new();
    let mut distributed = 0;
    for n in 1..=22 {
        let sql = std::fs::read_to_string(format!("{queries}/q{n:02}.sql")).unwrap();
        let Ok(df) = local.sql(&sql).await else {
            continue;
        };
        let want = sorted(&df.collect().await.unwrap());
        let (df, _) = hinted_sql_with(&cluster, &sql, rule.clone())
            .await
            .unwrap_or_else(|e| panic!("q{n:02}: {e}"));
        let plan = df.clone().create_physical_plan().await.unwrap();
        if datafusion_distributed::display_plan_ascii(plan.as_ref(), false).contains("Network") {
            distributed += 1;
        }
        let got = sorted(
            &df.collect()
                .await
                .unwrap_or_else(|e| panic!("q{n:02}: {e}")),
        );
        assert_eq!(got, want, "q{n:02}");
        ran.push(n);
    }
    assert!(ran.len() >= 20, "{ran:?}");
    assert!(
        distributed >= 15,
        "only {distributed} queries ran across the workers"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A coordinator on `urls` with tables `a` and `b`, both `dir/a.csv`:
/// `rows` rows of `k` (`keys` distinct values) and `v`, a task per
/// `task_bytes` of it.
async fn self_join_cluster(
    dir: &std::path::Path,
    rows: usize,
    keys: usize,
    urls: &[String],
    task_bytes: usize,
) -> SessionContext {
    std::fs::create_dir_all(dir).unwrap();
    let mut a = String::from("k,v\n");
    for i in 0..rows {
        a.push_str(&format!("{},{i}\n", i % keys));
    }
    std::fs::write(dir.join("a.csv"), &a).unwrap();
    let state = coordinator_builder(
        SessionConfig::new().with_target_partitions(2),
        TenonJoinRule::new(),
        urls,
    )
    .unwrap()
    .with_distributed_file_scan_config_bytes_per_partition(task_bytes)
    .unwrap()
    .build();
    let cluster = SessionContext::from(state);
    for t in ["a", "b"] {
        cluster
            .register_csv(
                t,
                dir.join("a.csv").to_str().unwrap(),
                CsvReadOptions::new(),
            )
            .await
            .unwrap();
    }
    cluster
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_worker_fails_the_query_naming_it_without_a_hang() {
    let dir = std::env::temp_dir().join(format!("tenon-cluster-dead-{}", std::process::id()));
    let (mut workers, urls) = start_workers(3);
    let cluster = self_join_cluster(&dir, 200_000, 1000, &urls, 64 << 10).await;
    // the second worker dies before the query
    let _ = workers.0[1].kill();
    let _ = workers.0[1].wait();
    let sql = "SELECT /*+ SHUFFLE_HASH(b) */ count(*) FROM a JOIN b ON a.k = b.k";
    let (df, _) = hinted_sql_with(&cluster, sql, TenonJoinRule::new())
        .await
        .unwrap();
    let started = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(60), df.collect()).await;
    let e = match result {
        Err(_) => panic!("the query hung for 60 s after a worker died"),
        Ok(Ok(rows)) => panic!("the query answered without its worker: {rows:?}"),
        Ok(Err(e)) => e.to_string(),
    };
    let dead = urls[1].trim_start_matches("http://");
    assert!(e.contains(dead), "the error does not name {dead}: {e}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_are_checked_for_an_answer_and_tenons_version() {
    use datafusion_distributed::Worker;
    use tenon_datafusion::TENON_VERSION;
    use tenon_datafusion::cluster::check_workers;

    let (_workers, urls) = start_workers(2);
    check_workers(&urls, Duration::from_secs(10)).await.unwrap();
    // a port that takes connections and never answers
    let silent = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let silent_url = format!("http://127.0.0.1:{}", silent.local_addr().unwrap().port());
    let started = Instant::now();
    let e = check_workers(std::slice::from_ref(&silent_url), Duration::from_secs(1))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&silent_url) && e.contains("did not answer") && e.contains(" s)"),
        "{e}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // a worker of another version
    let port = free_port();
    let other = Worker::default().with_version("0.0.0-other");
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(other.into_worker_server())
            .serve((Ipv4Addr::LOCALHOST, port).into()),
    );
    let other_url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let e = check_workers(
        &[urls[0].clone(), other_url.clone()],
        Duration::from_secs(10),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(&other_url) && e.contains("0.0.0-other") && e.contains(TENON_VERSION),
        "{e}"
    );
    drop(silent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_without_tenons_codec_names_the_node_it_cannot_decode() {
    use datafusion_distributed::Worker;
    use tenon_datafusion::TENON_VERSION;
    use tenon_datafusion::cluster::explain_failure;

    // a stock worker that says tenon's version but knows no tenon node
    let port = free_port();
    let stock = Worker::default().with_version(TENON_VERSION);
    let server = tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(stock.into_worker_server())
            .serve((Ipv4Addr::LOCALHOST, port).into()),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let dir = std::env::temp_dir().join(format!("tenon-cluster-stock-{}", std::process::id()));
    // twice: with one worker the engine would run everything here
    let urls = vec![format!("http://127.0.0.1:{port}"); 2];
    let cluster = self_join_cluster(&dir, 20_000, 100, &urls, 16 << 10).await;
    let sql = "SELECT /*+ SHUFFLE_HASH(b) */ count(*) FROM a JOIN b ON a.k = b.k";
    let (df, _) = tenon_datafusion::hinted_sql(&cluster, sql).await.unwrap();
    let result = tokio::time::timeout(Duration::from_secs(60), df.collect()).await;
    let _ = std::fs::remove_dir_all(&dir);
    let e = match result {
        Err(_) => panic!("the query hung"),
        Ok(Ok(rows)) => panic!("a worker without tenon's codec answered: {rows:?}"),
        Ok(Err(e)) => explain_failure(&urls, e, Duration::from_secs(2))
            .await
            .to_string(),
    };
    server.abort();
    assert!(
        e.contains("TenonJoinExec") && e.contains("tenon worker"),
        "the error does not name the node: {e}"
    );
}

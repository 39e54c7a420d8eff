//! A tenon cluster as separate processes: three `tenon-worker`s on free
//! loopback ports and a coordinator session in this test; the 22 TPC-H
//! queries (scale 0.01, CSV files the workers read) give the rows of
//! DataFusion's own local run. Workers are killed when the test ends,
//! passes or fails. Run with
//! `cargo test -p tenon-datafusion --features cluster --test cluster`.
#![cfg(feature = "cluster")]

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use datafusion::arrow::csv::WriterBuilder;
use datafusion::arrow::util::pretty::pretty_format_batches;
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

fn sorted(batches: &[datafusion::arrow::record_batch::RecordBatch]) -> Vec<String> {
    let mut rows: Vec<String> = pretty_format_batches(batches)
        .unwrap()
        .to_string()
        .lines()
        .skip(3)
        .filter(|l| !l.starts_with('+'))
        .map(str::to_string)
        .collect();
    rows.sort();
    rows
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

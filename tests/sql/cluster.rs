//! A tenon cluster as a user runs it (feature `cluster`): three `tenon
//! worker` processes on free loopback ports and `tenon query --cluster`
//! as the coordinator, another process. The 22 TPC-H queries (scale 0.01,
//! Parquet written by `tenon gen tpch`) give the checked-in expected
//! answers; hinted joins show the exchanges they ask for and give the
//! local rows under every strategy; a worker killed in the middle of a
//! query fails it with an error naming the worker, never a wrong result
//! or a hang; bad cluster input is refused in tenon's words. Workers are
//! killed when a test ends, passed or failed.
#![cfg(feature = "cluster")]

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::cli_query::{stderr, stdout, tenon};
use super::tpch::{Kind, Rows, compare, expected, output_rows, query_text};
use arrow_schema::DataType;

/// Worker processes, killed on drop.
struct Workers {
    children: Vec<Child>,
    urls: Vec<String>,
}

impl Drop for Workers {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Workers {
    /// `n` workers, each answering on its port within 20 s.
    fn start(n: usize) -> Workers {
        let mut workers = Workers {
            children: Vec::new(),
            urls: Vec::new(),
        };
        for _ in 0..n {
            let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let child = Command::new(env!("CARGO_BIN_EXE_tenon"))
                .args(["worker", "--port", &port.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start tenon worker");
            workers.children.push(child);
            let deadline = Instant::now() + Duration::from_secs(20);
            while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
                assert!(
                    Instant::now() < deadline,
                    "worker on port {port} did not start in 20 s"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            workers.urls.push(format!("127.0.0.1:{port}"));
        }
        workers
    }

    /// `--cluster`'s value.
    fn list(&self) -> String {
        self.urls.join(",")
    }
}

/// A directory removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(what: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("tenon-cluster-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// TPC-H at scale 0.01 as Parquet in `dir`, written by `tenon gen tpch`.
fn write_tpch(dir: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(["gen", "tpch", "--scale", "0.01", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `tenon query --cluster ... ARGS` on the TPC-H files in `dir`, with a
/// task per 64 KB of a file so that scale 0.01's tables split across the
/// workers.
fn on_cluster(workers: &Workers, dir: &Path, args: &[&str]) -> Output {
    let mut all = vec![
        "--cluster".to_string(),
        workers.list(),
        "--set".into(),
        "cluster.task_bytes=64KB".into(),
    ];
    all.extend(tpch_tables(dir));
    all.extend(args.iter().map(|a| a.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    tenon(&all)
}

/// The `--table` options of the TPC-H files in `dir`.
fn tpch_tables(dir: &Path) -> Vec<String> {
    [
        "customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier",
    ]
    .iter()
    .flat_map(|t| {
        [
            "--table".to_string(),
            format!("{t}={}", dir.join(format!("{t}.parquet")).display()),
        ]
    })
    .collect()
}

#[track_caller]
fn succeeded(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {:?}\n{}", o.status, stderr(o));
    stdout(o)
}

/// The aggregates on a cluster are DataFusion's, whose AVG of a decimal
/// is a decimal of 4 more digits of scale, truncated (Q1's avg_qty
/// 25.575154 for 25.5751546...): a float-kind cell of such a column is
/// taken as the expected one when the two differ by less than a unit of
/// the column's last digit. Every other cell compares as in the local
/// TPC-H tests.
fn accept_truncated_averages(
    columns: &[(String, Kind)],
    want: &Rows,
    types: &[DataType],
    got: &mut Rows,
) {
    for (c, ((_, kind), ty)) in columns.iter().zip(types).enumerate() {
        let (Kind::Float, DataType::Decimal128(_, scale)) = (kind, ty) else {
            continue;
        };
        let unit = 10f64.powi(-i32::from(*scale));
        for (w, g) in want.iter().zip(got.iter_mut()) {
            let (Some(e), Some(v)) = (&w[c], &g[c]) else {
                continue;
            };
            let (Ok(e), Ok(v)) = (e.parse::<f64>(), v.parse::<f64>()) else {
                continue;
            };
            if (e - v).abs() < unit {
                g[c] = w[c].clone();
            }
        }
    }
}

#[test]
fn tpch_on_three_worker_processes_gives_the_expected_answers() {
    let out = temp_dir("answers");
    write_tpch(&out.0);
    let workers = Workers::start(3);
    let mut distributed = 0;
    for n in 1..=22 {
        let q = format!("q{n:02}");
        let sql = query_text(&q);
        let explain = succeeded(&on_cluster(&workers, &out.0, &["--explain", &sql]), &q);
        if explain.contains("Network") {
            distributed += 1;
        }
        let file = out.0.join(format!("{q}.arrow"));
        let o = on_cluster(
            &workers,
            &out.0,
            &["--output", file.to_str().unwrap(), &sql],
        );
        succeeded(&o, &q);
        // the answer as the file holds it, read back by tenon
        let mut session = tenon::Session::new(tenon::Config::default()).unwrap();
        session
            .register_file_in_memory("answer", file.to_str().unwrap())
            .unwrap();
        let answer = session.query("SELECT * FROM answer").unwrap();
        let (types, mut got) = output_rows(&answer);
        let (columns, want) = expected(&q);
        accept_truncated_averages(&columns, &want, &types, &mut got);
        if let Err(m) = compare(&q, &columns, &want, &types, &got) {
            panic!("on the cluster: {m}");
        }
    }
    assert!(
        distributed >= 18,
        "only {distributed} of 22 queries ran across the workers"
    );
}

/// The sorted CSV lines of `tenon query ARGS` on this machine.
fn local_rows(dir: &Path, sql: &str) -> Vec<String> {
    let mut args = tpch_tables(dir);
    args.extend(["--format".into(), "csv".into(), sql.into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut lines: Vec<String> = succeeded(&tenon(&args), sql)
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

#[test]
fn hinted_joins_show_their_exchanges_and_give_the_local_rows() {
    let dir = temp_dir("hints");
    write_tpch(&dir.0);
    let workers = Workers::start(3);
    let join = |hint: &str, on: &str| {
        format!(
            "SELECT /*+ {hint} */ o_orderpriority, count(*) AS n FROM orders JOIN customer \
             ON {on} GROUP BY o_orderpriority"
        )
    };
    let equi = "o_custkey = c_custkey AND o_totalprice > c_acctbal * 10";
    let cases = [
        (
            join("BROADCAST(customer)", equi),
            "strategy=BROADCAST",
            "NetworkBroadcastExec",
        ),
        (
            join("SHUFFLE_HASH(customer)", equi),
            "strategy=SHUFFLE_HASH",
            "NetworkShuffleExec",
        ),
        (
            join("SHUFFLE_MERGE(customer)", equi),
            "strategy=SHUFFLE_MERGE",
            "NetworkShuffleExec",
        ),
        (
            join(
                "NEST_LOOP(customer)",
                "o_custkey < c_custkey + 3 AND o_custkey > c_custkey",
            ),
            "strategy=NEST_LOOP",
            "Network",
        ),
    ];
    for (sql, strategy, exchange) in &cases {
        let plan = succeeded(&on_cluster(&workers, &dir.0, &["--explain", sql]), sql);
        assert!(plan.contains(strategy), "{sql}:\n{plan}");
        assert!(plan.contains(exchange), "{sql}: no {exchange}:\n{plan}");
        let joined = plan
            .lines()
            .find(|l| l.contains("TenonJoinExec"))
            .unwrap_or_else(|| panic!("{sql}: no TenonJoinExec:\n{plan}"));
        // the join's inputs are the exchanges it asked for
        let depth = joined.find("TenonJoinExec").unwrap();
        let inputs: Vec<&str> = plan
            .lines()
            .skip_while(|l| !l.contains("TenonJoinExec"))
            .skip(1)
            .take_while(|l| {
                l.find(|c: char| c.is_alphanumeric() || c == '[')
                    .unwrap_or(0)
                    > depth
            })
            .filter(|l| l.find(|c: char| c.is_alphanumeric() || c == '[') == Some(depth + 2))
            .collect();
        assert_eq!(inputs.len(), 2, "{sql}: {inputs:?}\n{plan}");
        if *strategy == "strategy=SHUFFLE_HASH" || *strategy == "strategy=SHUFFLE_MERGE" {
            assert!(
                inputs.iter().all(|l| l.contains("NetworkShuffleExec")),
                "{sql}: both sides are shuffled by key: {inputs:?}"
            );
        }
        if *strategy == "strategy=BROADCAST" {
            assert!(
                inputs
                    .iter()
                    .filter(|l| l.contains("NetworkBroadcastExec"))
                    .count()
                    == 1,
                "{sql}: the build side is broadcast, the other stays: {inputs:?}"
            );
        }
        let got = succeeded(
            &on_cluster(&workers, &dir.0, &["--format", "csv", sql]),
            sql,
        );
        let mut got: Vec<String> = got.lines().map(str::to_string).collect();
        got.sort();
        assert_eq!(got, local_rows(&dir.0, sql), "{sql}");
    }
}

#[test]
fn a_worker_killed_mid_query_fails_it_naming_the_worker() {
    let dir = temp_dir("kill");
    write_tpch(&dir.0);
    let mut workers = Workers::start(3);
    // minutes of work on every worker: 500M pairs through a filter
    let sql = "SELECT /*+ SHUFFLE_HASH(b) */ count(*) FROM lineitem a JOIN lineitem b \
               ON a.l_linenumber = b.l_linenumber AND a.l_comment < b.l_comment";
    let mut args = vec![
        "query".to_string(),
        "--cluster".into(),
        workers.list(),
        "--set".into(),
        "cluster.task_bytes=64KB".into(),
    ];
    args.extend(tpch_tables(&dir.0));
    args.push(sql.into());
    let mut coordinator = Command::new(env!("CARGO_BIN_EXE_tenon"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        coordinator.try_wait().unwrap().is_none(),
        "the query ended before a worker was killed"
    );
    let _ = workers.children[1].kill();
    let _ = workers.children[1].wait();
    let killed = Instant::now();
    let status = loop {
        if let Some(status) = coordinator.try_wait().unwrap() {
            break status;
        }
        if killed.elapsed() > Duration::from_secs(60) {
            let _ = coordinator.kill();
            panic!("the query hung for 60 s after a worker was killed");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = coordinator.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(stdout(&out).is_empty(), "no rows: {}", stdout(&out));
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&workers.urls[1]),
        "the error does not name {}: {err}",
        workers.urls[1]
    );
}

#[test]
fn bad_cluster_input_is_refused_in_tenons_words() {
    let dir = temp_dir("bad");
    write_tpch(&dir.0);
    // a port that takes connections and never answers
    let silent = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let silent_url = format!("127.0.0.1:{}", silent.local_addr().unwrap().port());
    let table = format!("nation={}", dir.0.join("nation.parquet").display());
    let query = |extra: &[&str]| {
        let mut args = vec!["--table", &table];
        args.extend_from_slice(extra);
        args.push("SELECT count(*) FROM nation");
        tenon(&args)
    };
    let started = Instant::now();
    let cluster = &["--cluster", &silent_url, "--set", "cluster.timeout=1s"];
    let o = query(cluster);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&silent_url) && err.contains("did not answer") && err.contains(" s)"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    // options that are this machine's
    for (extra, words) in [
        (
            &["--memory-table", "r=x.parquet"][..],
            "--memory-table does not apply",
        ),
        (
            &["--set", "memory_limit=1GB"][..],
            "memory_limit does not apply",
        ),
        (&["--analyze"][..], "--analyze does not apply"),
        (
            &["--set", "cluster.timeout=forever"][..],
            "cluster.timeout=forever",
        ),
    ] {
        let mut args = vec!["--cluster", "127.0.0.1:1"];
        args.extend_from_slice(extra);
        let o = query(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(words), "{extra:?}: {}", stderr(&o));
    }
    // no tables: the workers cannot read the built-in ones
    let o = tenon(&["--cluster", "127.0.0.1:1", "SELECT count(*) FROM nation"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--cluster needs --table"),
        "{}",
        stderr(&o)
    );
    drop(silent);
}

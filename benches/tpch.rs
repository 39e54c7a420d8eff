//! Criterion bench of the 22 TPC-H queries with the planner's default
//! choices (no hints), on tables generated in memory by tpchgen.
//!
//! Names: `tpch/qNN/sf{scale}`. The query texts are
//! `tests/tpch/queries/qNN.sql` (validation parameters; Q11's fraction,
//! written there for scale 0.01, is scaled to 0.0001 / SF here).
//!
//! `TENON_BENCH_TPCH_SCALE` (default 1) sets the scale factor,
//! `TENON_BENCH_THREADS` (default: all cores) the worker threads, and
//! `TENON_BENCH_QUERIES` (e.g. `3,5,9`) a subset of the queries.
//!
//! ```text
//! cargo bench --bench tpch
//! TENON_BENCH_TPCH_SCALE=0.1 TENON_BENCH_QUERIES=5,9 cargo bench --bench tpch
//! ```

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon::{Config, Session};

// The same allocator as the `tenon` binary (see src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Query `n`'s text, with Q11's fraction for `scale`.
fn query(n: usize, scale: f64) -> String {
    let path = format!(
        "{}/tests/tpch/queries/q{n:02}.sql",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    if n == 11 {
        text.replacen("0.01", &format!("{}", 0.0001 / scale), 1)
    } else {
        text
    }
}

fn tpch(c: &mut Criterion) {
    let scale: f64 = env_or("TENON_BENCH_TPCH_SCALE", 1.0);
    let threads: usize = env_or(
        "TENON_BENCH_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let queries: Vec<usize> = std::env::var("TENON_BENCH_QUERIES")
        .ok()
        .map(|v| v.split(',').filter_map(|q| q.trim().parse().ok()).collect())
        .unwrap_or_else(|| (1..=22).collect());
    let config = Config {
        threads,
        ..Config::default()
    };
    let mut session = Session::new(config).expect("session");
    session.register_tpch(scale).expect("TPC-H tables");
    let mut group = c.benchmark_group("tpch");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for n in queries {
        let sql = query(n, scale);
        group.bench_with_input(
            BenchmarkId::new(format!("q{n:02}"), format!("sf{scale}")),
            &sql,
            |b, sql| b.iter(|| session.collect(sql).expect("query")),
        );
    }
    group.finish();
}

criterion_group!(benches, tpch);
criterion_main!(benches);

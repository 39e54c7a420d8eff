//! Criterion benches of the hash join: strategy x workload (band included),
//! full size.
//!
//! Each measurement joins the workload's probe side (fed as 8192-row
//! batches) with its build side on the key, outputs the numeric payload of
//! each side, and counts rows and sums both payloads, as the peer figures in
//! the issues do. Names: `{strategy}/{workload}/{probe rows}`.
//!
//! `TENON_BENCH_SCALE` (default 1.0) shrinks the workloads for a quick run;
//! `TENON_BENCH_THREADS` (default: all cores) sets the worker threads.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon::datasets::{Workload, generate, split_batches};
use tenon::kernels::{HashJoin, HashJoinMode, JoinInput, JoinSide, JoinType, Strategy};
use tenon::measure::count_and_sum;

// The same allocator as the `tenon` binary (see src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn hash_join(c: &mut Criterion) {
    let scale: f64 = env_or("TENON_BENCH_SCALE", 1.0);
    let threads: usize = env_or(
        "TENON_BENCH_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("bench thread pool");
    let workloads = Workload::HASH_JOIN;
    for w in workloads {
        let t = generate(w, scale, 42);
        let probe = JoinInput::new(t.probe.schema(), split_batches(&t.probe, 8192));
        let build = JoinInput::from_batch(t.build);
        let mut group = c.benchmark_group("hash_join");
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        for (name, mode) in [
            ("broadcast", HashJoinMode::Broadcast),
            ("shuffle_hash", HashJoinMode::Partitioned),
        ] {
            let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(JoinSide::Right)
                .into();
            let id = BenchmarkId::new(name, format!("{}/{}", w.name(), probe.num_rows()));
            group.bench_function(id, |b| {
                b.iter(|| pool.install(|| count_and_sum(&join, &probe, &build).expect("join")))
            });
        }
        group.finish();
    }
    // The band join: the equi-join on k with the band on t as the hash
    // joins' residual filter, exactly as `tenon bench` runs it.
    let w = Workload::Band;
    let inputs = tenon::suite::inputs(w, generate(w, scale, 42), 8192);
    let mut group = c.benchmark_group("hash_join");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, strategy) in [
        ("broadcast", Strategy::Broadcast),
        ("shuffle_hash", Strategy::ShuffleHash),
    ] {
        let join = tenon::suite::join(w, strategy, 8192).expect("hash joins run band");
        let id = BenchmarkId::new(name, format!("band/{}", inputs.probe.num_rows()));
        group.bench_function(id, |b| {
            b.iter(|| pool.install(|| tenon::suite::measure(&join, &inputs).expect("join")))
        });
    }
    group.finish();
}

criterion_group!(benches, hash_join);
criterion_main!(benches);

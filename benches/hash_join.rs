//! Criterion bench of the hash joins on the band workload: the equi-join on
//! `k` with the band on `t` as the hash joins' residual filter, exactly as
//! `tenon bench` runs it. Names: `{strategy}/band/{probe rows}`.
//!
//! The equi-join workloads (fk_small ... m2n) are measured by the kernels
//! crate's own bench, which builds without the planner:
//! `cargo bench -p tenon-kernels --bench hash_join`.
//!
//! `TENON_BENCH_SCALE` (default 1.0) shrinks the workload for a quick run;
//! `TENON_BENCH_THREADS` (default: all cores) sets the worker threads.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon::datasets::{Workload, generate};
use tenon::kernels::Strategy;

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

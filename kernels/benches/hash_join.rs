//! Criterion benches of the hash join kernel: strategy x the equi-join
//! workloads, full size, built from this crate alone (no planner, no SQL
//! front end), so that a variant of the kernels (another `target-cpu`, a
//! change to a hot loop) builds in minutes.
//!
//! Each measurement joins the workload's probe side (fed as 8192-row
//! batches) with its build side on the key, outputs the numeric payload of
//! each side, and counts rows and sums both payloads, as the peer figures in
//! the issues do (and as `tenon::measure::count_and_sum`, which this crate
//! cannot depend on). Names: `hash_join/{strategy}/{workload}/{probe rows}`.
//! The band join, which needs the facade's suite, is in the root crate's
//! `benches/hash_join.rs`.
//!
//! `TENON_BENCH_SCALE` (default 1.0) shrinks the workloads for a quick run;
//! `TENON_BENCH_THREADS` (default: all cores) sets the worker threads;
//! `TENON_CPU` (see the crate docs) caps the instruction set of the hot
//! loops, to compare them on one binary.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon_datasets::{Workload, generate, split_batches};
use tenon_kernels::{HashJoin, HashJoinMode, Join, JoinInput, JoinKernel, JoinSide, JoinType};

// The same allocator as the `tenon` binary (see src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Column of the workloads' numeric payload (`p`).
const PAYLOAD_COLUMN: usize = 1;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn sum_column(b: &RecordBatch, i: usize) -> i64 {
    b.columns()
        .get(i)
        .and_then(|c| c.as_primitive_opt::<Int64Type>())
        .map(|a| {
            if a.null_count() == 0 {
                a.values().iter().fold(0i64, |s, &v| s.wrapping_add(v))
            } else {
                a.iter().flatten().fold(0i64, |s, v| s.wrapping_add(v))
            }
        })
        .unwrap_or(0)
}

/// Output rows and the two payload sums of an inner join that outputs the
/// payload of each side.
fn count_and_sum(join: &Join, probe: &JoinInput, build: &JoinInput) -> (u64, i64, i64) {
    let rows = AtomicU64::new(0);
    let (ls, rs) = (AtomicI64::new(0), AtomicI64::new(0));
    join.for_each(probe, build, &|b: RecordBatch| {
        rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
        ls.fetch_add(sum_column(&b, 0), Ordering::Relaxed);
        rs.fetch_add(sum_column(&b, 1), Ordering::Relaxed);
        Ok(())
    })
    .expect("join");
    (rows.into_inner(), ls.into_inner(), rs.into_inner())
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
    for w in Workload::HASH_JOIN {
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
            let join: Join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(JoinSide::Right)
                .projection(Some(vec![PAYLOAD_COLUMN]), Some(vec![PAYLOAD_COLUMN]))
                .into();
            let id = BenchmarkId::new(name, format!("{}/{}", w.name(), probe.num_rows()));
            group.bench_function(id, |b| {
                b.iter(|| pool.install(|| count_and_sum(&join, &probe, &build)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, hash_join);
criterion_main!(benches);

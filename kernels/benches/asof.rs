//! Criterion bench of the as-of join, the issue's `asof` workload shape at
//! a tenth of its size by default: a probe side of 1M rows (key, time)
//! against 1,000 keys' versions, 100k rows (key, time, payload), uniform
//! random keys and times, `left.t >= right.t`; each measurement counts the
//! output rows and sums the chosen versions' payload (projected alone).
//! Both modes. Names: `asof/{mode}/{probe rows}x{versions}`.
//!
//! The small-left shape (`asof/small/{path}/1000x2000000`, not scaled): a
//! probe side of 1,000 rows against 2M versions of the same keys, once
//! with the right side indexed (the small-left path forbidden) and once
//! with the left side indexed (the kernel's own choice).
//!
//! `TENON_BENCH_SCALE` (default 0.1 = 1M x 100k; 1.0 is the 10M x
//! 1M) sizes the sides; `TENON_BENCH_THREADS` (default: all cores) sets
//! the worker threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon_kernels::{AsofJoin, AsofMode, CmpOp, JoinInput, JoinKernel, JoinType, RangeCondition};

const KEYS: u64 = 1000;
const TIMES: u64 = 1 << 40;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A splitmix64 stream: reproducible uniform numbers without a crate.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// `rows` rows of (key, time[, payload]) in 8192-row batches.
fn side(rows: usize, payload: bool, seed: u64) -> JoinInput {
    let mut rng = Random(seed);
    let mut batches = Vec::new();
    let mut schema = None;
    for at in (0..rows).step_by(8192) {
        let n = 8192.min(rows - at);
        let k: Int64Array = (0..n).map(|_| (rng.next() % KEYS) as i64).collect();
        let t: Int64Array = (0..n).map(|_| (rng.next() % TIMES) as i64).collect();
        let mut cols: Vec<(&str, ArrayRef)> = vec![("k", Arc::new(k)), ("t", Arc::new(t))];
        if payload {
            let p: Int64Array = (0..n).map(|_| (rng.next() % 1000) as i64).collect();
            cols.push(("p", Arc::new(p)));
        }
        let b = RecordBatch::try_from_iter(cols).expect("a bench batch");
        schema = Some(b.schema());
        batches.push(b);
    }
    let schema = schema.expect("at least one batch");
    JoinInput::new(schema, batches)
}

/// Output rows and the sum of the projected payload.
fn count_and_sum(join: &AsofJoin, left: &JoinInput, right: &JoinInput) -> (usize, i64) {
    let rows = AtomicUsize::new(0);
    let sum = AtomicI64::new(0);
    join.for_each(left, right, &|b: RecordBatch| {
        rows.fetch_add(b.num_rows(), Ordering::Relaxed);
        let p = b.column(0).as_primitive::<Int64Type>();
        let s: i64 = p.iter().flatten().sum();
        sum.fetch_add(s, Ordering::Relaxed);
        Ok(())
    })
    .expect("the as-of join");
    (rows.into_inner(), sum.into_inner())
}

fn asof(c: &mut Criterion) {
    let scale: f64 = env_or("TENON_BENCH_SCALE", 0.1);
    let threads: usize = env_or(
        "TENON_BENCH_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("bench thread pool");
    let (probe_rows, versions) = ((10e6 * scale) as usize, (1e6 * scale) as usize);
    let left = side(probe_rows.max(1), false, 1);
    let right = side(versions.max(1), true, 2);
    let small_probe = side(1000, false, 3);
    let big_right = side(2_000_000, true, 4);
    let mut group = c.benchmark_group("asof");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, mode) in [
        ("broadcast", AsofMode::Broadcast),
        ("partitioned", AsofMode::Partitioned),
    ] {
        let join = AsofJoin::new(
            JoinType::Inner,
            vec![(0, 0)],
            RangeCondition::new(1, CmpOp::Ge, 1),
        )
        .mode(mode)
        .projection(Some(vec![]), Some(vec![2]));
        let id = BenchmarkId::new(name, format!("{probe_rows}x{versions}"));
        group.bench_function(id, |b| {
            b.iter(|| pool.install(|| count_and_sum(&join, &left, &right)))
        });
    }
    for (name, small_left) in [("right_index", Some(false)), ("left_index", None)] {
        let join = AsofJoin::new(
            JoinType::Inner,
            vec![(0, 0)],
            RangeCondition::new(1, CmpOp::Ge, 1),
        )
        .small_left(small_left)
        .projection(Some(vec![]), Some(vec![2]));
        let (probe_rows, versions) = (1000, 2_000_000);
        let id = BenchmarkId::new(format!("small/{name}"), format!("{probe_rows}x{versions}"));
        group.bench_function(id, |b| {
            b.iter(|| pool.install(|| count_and_sum(&join, &small_probe, &big_right)))
        });
    }
    group.finish();
}

criterion_group!(benches, asof);
criterion_main!(benches);

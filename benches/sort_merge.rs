//! Criterion benches of the sort-merge join, over the same workloads as the
//! hash join's, plus `presorted` (fk_medium with both sides sorted on the
//! key before the timing, and declared presorted) and `band` (`a.k = b.k
//! AND a.t BETWEEN b.t - 10 AND b.t + 10`, with `b.t - 10` and `b.t + 10`
//! computed into build-side columns before the timing, as the planner
//! will).
//!
//! Each measurement joins the workload's probe side (fed as 8192-row
//! batches) with its build side on the key, outputs the numeric payload of
//! each side, and counts rows and sums both payloads, as the peer figures in
//! the issues do. Names: `sort_merge/{workload}/{probe rows}`.
//!
//! `TENON_BENCH_SCALE` (default 1.0) shrinks the workloads for a quick run;
//! `TENON_BENCH_THREADS` (default: all cores) sets the worker threads;
//! `TENON_BENCH_ONLY=m2n,presorted` runs only the named cases.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon::datasets::{Workload, generate, split_batches};
use tenon::kernels::{CmpOp, JoinInput, JoinKernel, JoinType, RangeCondition, SortMergeJoin};
use tenon::measure::PAYLOAD_COLUMN;

// The same allocator as the `tenon` binary (see src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Output rows and the two payload sums, as `tenon::measure::count_and_sum`
/// computes them for the hash join.
fn count_and_sum(join: &SortMergeJoin, left: &JoinInput, right: &JoinInput) -> (u64, i64, i64) {
    let join = join
        .clone()
        .projection(Some(vec![PAYLOAD_COLUMN]), Some(vec![PAYLOAD_COLUMN]));
    let rows = AtomicU64::new(0);
    let (ls, rs) = (AtomicI64::new(0), AtomicI64::new(0));
    let sum = |b: &RecordBatch, i: usize| -> i64 {
        b.column(i)
            .as_primitive::<Int64Type>()
            .iter()
            .flatten()
            .fold(0i64, |s, v| s.wrapping_add(v))
    };
    join.for_each(left, right, &|b: RecordBatch| {
        rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
        ls.fetch_add(sum(&b, 0), Ordering::Relaxed);
        rs.fetch_add(sum(&b, 1), Ordering::Relaxed);
        Ok(())
    })
    .expect("join");
    (rows.into_inner(), ls.into_inner(), rs.into_inner())
}

/// The key and payload columns of `batch`, sorted on the key.
fn sorted_on_key(batch: &RecordBatch) -> RecordBatch {
    let k = batch.column(0).as_primitive::<Int64Type>().values();
    let p = batch.column(1).as_primitive::<Int64Type>().values();
    let mut idx: Vec<usize> = (0..batch.num_rows()).collect();
    idx.sort_unstable_by_key(|&i| k[i]);
    let k: Int64Array = idx.iter().map(|&i| k[i]).collect();
    let p: Int64Array = idx.iter().map(|&i| p[i]).collect();
    RecordBatch::try_from_iter([
        ("k", Arc::new(k) as ArrayRef),
        ("p", Arc::new(p) as ArrayRef),
    ])
    .expect("sorted batch")
}

/// `batch` with two more columns, `t - 10` and `t + 10` (`t` is column 3).
fn with_band_bounds(batch: &RecordBatch) -> RecordBatch {
    let t = batch.column(3).as_primitive::<Int64Type>();
    let lo: Int64Array = t.values().iter().map(|v| v - 10).collect();
    let hi: Int64Array = t.values().iter().map(|v| v + 10).collect();
    let mut cols: Vec<(String, ArrayRef)> = batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, c)| (f.name().clone(), c.clone()))
        .collect();
    cols.push(("lo".into(), Arc::new(lo)));
    cols.push(("hi".into(), Arc::new(hi)));
    RecordBatch::try_from_iter(cols).expect("band batch")
}

fn sort_merge(c: &mut Criterion) {
    let scale: f64 = env_or("TENON_BENCH_SCALE", 1.0);
    let threads: usize = env_or(
        "TENON_BENCH_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("bench thread pool");
    let mut cases: Vec<(&str, Workload, bool)> = Workload::HASH_JOIN
        .iter()
        .map(|&w| (w.name(), w, false))
        .collect();
    cases.push(("presorted", Workload::FkMedium, true));
    cases.push(("band", Workload::Band, false));
    let only = std::env::var("TENON_BENCH_ONLY").ok();
    for (name, w, presorted) in cases {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|x| x == name))
        {
            continue;
        }
        let t = generate(w, scale, 42);
        let band = w == Workload::Band;
        let (probe, build) = if presorted {
            (sorted_on_key(&t.probe), sorted_on_key(&t.build))
        } else if band {
            (t.probe, with_band_bounds(&t.build))
        } else {
            (t.probe, t.build)
        };
        let probe = JoinInput::new(probe.schema(), split_batches(&probe, 8192));
        let build = JoinInput::from_batch(build);
        let mut group = c.benchmark_group("sort_merge");
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        let mut join =
            SortMergeJoin::new(JoinType::Inner, vec![(0, 0)]).presorted(presorted, presorted);
        if band {
            join = join.ranges(vec![
                RangeCondition::new(3, CmpOp::Ge, 4),
                RangeCondition::new(3, CmpOp::Le, 5),
            ]);
        }
        let (rows, _, _) = pool.install(|| count_and_sum(&join, &probe, &build));
        eprintln!("sort_merge/{name}: {rows} output rows");
        let id = BenchmarkId::new(name, probe.num_rows());
        group.bench_function(id, |b| {
            b.iter(|| pool.install(|| count_and_sum(&join, &probe, &build)))
        });
        group.finish();
    }
}

criterion_group!(benches, sort_merge);
criterion_main!(benches);

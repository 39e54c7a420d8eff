//! Criterion benches of the nested-loop join: the sorted-build fast path
//! (`nested_loop/...`) beside the plain loop (`nested_loop_plain/...`).
//!
//! Workloads (`tenon-datasets`), left = the probe table `a`, right = the
//! build table `b`, both fed as 8192-row batches, output counted only
//! (projection `Some(vec![])` on both sides, batches carrying a row count):
//!
//! * `nlj`: 20K x 20K, `a.v < b.v` (about 200M result pairs). Default
//!   build side (right).
//! * `band`: `a.k = b.k AND a.t BETWEEN b.t - 10 AND b.t + 10`, with
//!   `b.t - 10` and `b.t + 10` precomputed into two extra columns of `b`,
//!   the band as two range conditions (`a.t >= b.lo`, `a.t <= b.hi`) and
//!   the key equality as a filter (about 100K results at full size). Built
//!   on `a` (`NEST_LOOP(a)`), so that both conditions are on the sort column
//!   `a.t` and bound the window. The plain loop tests every pair (10^10 at
//!   full size), so this workload also runs at a tenth of the scale
//!   (10K x 10K, 10^8 pairs), where both paths are measured.
//! * `band_key_ranges`: the band again, with the key equality written as
//!   two more range conditions (`a.k <= b.k AND a.k >= b.k`) instead of a
//!   filter and the default build side: the fast path then sorts on `b.k`
//!   (bounded from both sides) and tests the band on the ~100 rows of
//!   equal key per probe row. Fast path only.
//!
//! Names: `{strategy}/{workload}/{probe rows}`. `TENON_BENCH_SCALE`
//! (default 1.0) scales the workloads; `TENON_BENCH_THREADS` (default: all
//! cores) sets the worker threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, UInt32Array};
use arrow_buffer::BooleanBuffer;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tenon::datasets::{Workload, generate, split_batches};
use tenon::kernels::{
    CmpOp, JoinFilter, JoinInput, JoinKernel, JoinSide, JoinType, NestedLoopJoin, RangeCondition,
};

// The same allocator as the `tenon` binary (see src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Columns of the workloads: `k`, `p`, `s`, then `t` (band) or `v` (nlj).
const K: usize = 0;
const EXTRA: usize = 3;
/// The band's half-width.
const BAND: i64 = 10;
/// The band workload's scale for the plain loop, relative to the others.
const BAND_PLAIN_SCALE: f64 = 0.1;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Output rows of `join`, counted in the sink.
fn count(join: &NestedLoopJoin, left: &JoinInput, right: &JoinInput) -> u64 {
    let rows = AtomicU64::new(0);
    join.for_each(left, right, &|b: RecordBatch| {
        rows.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
        Ok(())
    })
    .expect("join");
    rows.into_inner()
}

/// `left.k = right.k` over Int64 key columns without NULLs.
fn key_equal() -> Arc<dyn JoinFilter> {
    let f = |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
        let lk = l.column(K).as_primitive::<Int64Type>().values();
        let rk = r.column(K).as_primitive::<Int64Type>().values();
        let (li, ri) = (li.values(), ri.values());
        let bits =
            BooleanBuffer::collect_bool(li.len(), |i| lk[li[i] as usize] == rk[ri[i] as usize]);
        Ok(BooleanArray::new(bits, None))
    };
    Arc::new(f)
}

/// `batch` with `t - BAND` and `t + BAND` appended as columns `lo`, `hi`.
fn with_band(batch: &RecordBatch) -> RecordBatch {
    let t = batch.column(EXTRA).as_primitive::<Int64Type>();
    let lo: Int64Array = t.unary(|v| v - BAND);
    let hi: Int64Array = t.unary(|v| v + BAND);
    let mut cols: Vec<(String, ArrayRef)> = batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, c)| (f.name().clone(), c.clone()))
        .collect();
    cols.push(("lo".into(), Arc::new(lo)));
    cols.push(("hi".into(), Arc::new(hi)));
    RecordBatch::try_from_iter(cols).expect("band columns")
}

/// A workload's inputs: the probe table as the left input, the build table
/// as the right one.
fn inputs(w: Workload, scale: f64) -> (JoinInput, JoinInput) {
    let t = generate(w, scale, 42);
    let build = if w == Workload::Band {
        with_band(&t.build)
    } else {
        t.build
    };
    let left = JoinInput::new(t.probe.schema(), split_batches(&t.probe, 8192));
    let right = JoinInput::new(build.schema(), split_batches(&build, 8192));
    (left, right)
}

fn nested_loop(c: &mut Criterion) {
    let scale: f64 = env_or("TENON_BENCH_SCALE", 1.0);
    let threads: usize = env_or(
        "TENON_BENCH_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("bench thread pool");
    let count_only = |j: NestedLoopJoin| j.projection(Some(vec![]), Some(vec![]));
    let nlj = count_only(
        NestedLoopJoin::new(JoinType::Inner).ranges(vec![RangeCondition::new(
            EXTRA,
            CmpOp::Lt,
            EXTRA,
        )]),
    );
    let band = count_only(
        NestedLoopJoin::new(JoinType::Inner)
            .build_side(JoinSide::Left)
            .ranges(vec![
                RangeCondition::new(EXTRA, CmpOp::Ge, EXTRA + 1),
                RangeCondition::new(EXTRA, CmpOp::Le, EXTRA + 2),
            ])
            .filter(key_equal()),
    );
    // The same band with the key equality as two more range conditions
    // (`a.k <= b.k AND a.k >= b.k`) instead of a filter, built on the
    // default (right) side: the fast path sorts on `b.k`, whose window is
    // bounded from both sides, and tests the band on the equal keys.
    let band_keys = count_only(NestedLoopJoin::new(JoinType::Inner).ranges(vec![
        RangeCondition::new(EXTRA, CmpOp::Ge, EXTRA + 1),
        RangeCondition::new(EXTRA, CmpOp::Le, EXTRA + 2),
        RangeCondition::new(K, CmpOp::Le, K),
        RangeCondition::new(K, CmpOp::Ge, K),
    ]));
    // (name, workload, scale, join, also the plain loop)
    let runs = [
        ("nlj", Workload::Nlj, scale, &nlj, true),
        ("band", Workload::Band, scale, &band, false),
        (
            "band",
            Workload::Band,
            scale * BAND_PLAIN_SCALE,
            &band,
            true,
        ),
        ("band_key_ranges", Workload::Band, scale, &band_keys, false),
    ];
    let prepared: Vec<_> = runs
        .into_iter()
        .map(|(name, w, scale, join, plain)| {
            let (left, right) = inputs(w, scale);
            let fast_rows = pool.install(|| count(join, &left, &right));
            if plain {
                let plain_rows =
                    pool.install(|| count(&join.clone().fast_path(false), &left, &right));
                assert_eq!(fast_rows, plain_rows, "the two paths disagree on {w}");
            }
            eprintln!("{name} at scale {scale}: {fast_rows} rows");
            (name, join, plain, left, right)
        })
        .collect();
    for (group_name, fast) in [("nested_loop", true), ("nested_loop_plain", false)] {
        let mut group = c.benchmark_group(group_name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        for (name, join, plain, left, right) in &prepared {
            if !fast && !plain {
                continue;
            }
            let join = (*join).clone().fast_path(fast);
            let id = BenchmarkId::new(*name, left.num_rows());
            group.bench_function(id, |b| {
                b.iter(|| pool.install(|| count(&join, left, right)))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, nested_loop);
criterion_main!(benches);

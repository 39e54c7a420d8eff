//! The benchmark suite: each synthetic workload's join, under each strategy
//! that can run it, and how its result is measured. `tenon bench` and the
//! criterion benches share it, so they time the same joins.
//!
//! | workload | join | strategies | measured |
//! |---|---|---|---|
//! | fk_small, fk_medium, fk_large, zipf, low_match, m2n | `probe.k = build.k` | all four | count + sum of `p` of each side |
//! | band | `probe.k = build.k AND probe.t BETWEEN build.t - 10 AND build.t + 10` | all four | count + sums |
//! | nlj | `probe.v < build.v` | NEST_LOOP | count only |
//! | interval | `probe.k = build.k AND probe.t BETWEEN build.t - INTERVAL '5' MINUTE AND build.t + INTERVAL '5' MINUTE` | all four | count + sums |
//! | asof | `probe ASOF JOIN build MATCH_CONDITION (probe.t >= build.t) ON probe.k = build.k` | BROADCAST, SHUFFLE_MERGE | count + sums (an unmatched trade's NULL build payload adds 0) |
//!
//! The probe side is the left input and the build side the right one; the
//! hash joins build the right side and test the band as a filter over the
//! equi-join's candidate pairs; the sort-merge join takes the band as range
//! conditions, searched within each run of equal keys. The nested loop
//! has no equi-keys: it gets `k = k` as the range conditions `k <= k AND
//! k >= k` (its sorted fast path then finds the equal keys by binary
//! search). `build.t - 10` and `build.t + 10` are computed into two extra
//! build columns before the timing. The interval workload's `t` is a
//! microsecond timestamp, and its window reaches the sort-merge and
//! nested-loop kernels as range conditions with constant offsets (`t >= t -
//! 300000000`), as the planner lowers the SQL: no column is computed.
//! The asof workload (trades as the probe side, quotes as the build side,
//! `t` a microsecond timestamp as for interval) runs on the as-of kernel:
//! a LEFT as-of join, every trade kept with the latest quote of its key at
//! or before it, broadcast (BROADCAST) or partitioned by key (SHUFFLE_MERGE);
//! the hash joins and the nested loop cannot choose one version per row.
//!
//! The expansion workloads (`unnest`, `unnest_left`) are not joins of two
//! tables: [`expansion`].

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampMicrosecondType};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, UInt32Array};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use tenon_datasets::{Tables, Workload, split_batches};
use tenon_kernels::{
    AsofJoin, AsofMode, CmpOp, HashJoin, HashJoinMode, Join, JoinFilter, JoinInput, JoinKernel,
    JoinSide, JoinType, KernelError, NestedLoopJoin, RangeCondition, SortMergeJoin, Strategy,
};

use crate::measure::{JoinSummary, count_and_sum, count_only};

pub mod executed;
pub mod expansion;

/// Column of the key `k` on both sides.
const K: usize = 0;
/// Column of `t` (band, interval, asof) or `v` (nlj) on both sides.
const T: usize = 3;
/// Build-side columns holding `t - 10` and `t + 10` (band only).
const T_LO: usize = 4;
const T_HI: usize = 5;
/// The band's half width.
const BAND: i64 = 10;
/// The interval workload's half window: 5 minutes in microseconds.
const WINDOW_US: i64 = 5 * 60 * 1_000_000;

/// One workload's inputs, ready to join.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The workload.
    pub workload: Workload,
    /// The probe side (left input), split into batches.
    pub probe: JoinInput,
    /// The build side (right input), one batch.
    pub build: JoinInput,
}

/// The inputs of `workload` from its generated tables: the probe side in
/// batches of `batch_size` rows, the build side as one batch (with the band
/// bounds computed for `band`, and `t` as a microsecond timestamp for
/// `interval` and `asof`).
///
/// # Panics
///
/// When `batch_size` is 0.
pub fn inputs(workload: Workload, tables: Tables, batch_size: usize) -> Inputs {
    let probe = JoinInput::new(
        tables.probe.schema(),
        split_batches(&tables.probe, batch_size),
    );
    let build = match workload {
        Workload::Band => with_band_bounds(&tables.build),
        Workload::Interval | Workload::Asof => with_timestamp_t(&tables.build),
        _ => tables.build,
    };
    let probe = if matches!(workload, Workload::Interval | Workload::Asof) {
        let batches = probe.batches().iter().map(with_timestamp_t).collect();
        let schema = with_timestamp_t(&tables.probe.slice(0, 0)).schema();
        JoinInput::new(schema, batches)
    } else {
        probe
    };
    Inputs {
        workload,
        probe,
        build: JoinInput::from_batch(build),
    }
}

/// `batch` with its `t` column (microseconds, Int64) as a
/// `Timestamp(Microsecond)` column of the same values.
fn with_timestamp_t(batch: &RecordBatch) -> RecordBatch {
    let t = batch.column(T).as_primitive::<Int64Type>();
    let ts: arrow_array::TimestampMicrosecondArray = t.reinterpret_cast();
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let ty = DataType::Timestamp(TimeUnit::Microsecond, None);
    fields[T] = Field::new("t", ty, fields[T].is_nullable());
    let mut cols: Vec<ArrayRef> = batch.columns().to_vec();
    cols[T] = Arc::new(ts);
    RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)
        .expect("the same column under a timestamp type")
}

/// `|left.t - right.t| <= 5 minutes` over candidate pairs of microsecond
/// timestamps (the interval workload's window for the hash joins).
fn interval_filter() -> Arc<dyn JoinFilter> {
    let f = |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
        let lt = l
            .column(T)
            .as_primitive::<TimestampMicrosecondType>()
            .values();
        let rt = r
            .column(T)
            .as_primitive::<TimestampMicrosecondType>()
            .values();
        let keep: Vec<bool> = li
            .values()
            .iter()
            .zip(ri.values())
            .map(|(&a, &b)| lt[a as usize].abs_diff(rt[b as usize]) <= WINDOW_US as u64)
            .collect();
        Ok(BooleanArray::from(keep))
    };
    Arc::new(f)
}

/// The interval workload's window as range conditions with offsets.
fn interval_window() -> [RangeCondition; 2] {
    [
        RangeCondition::new(T, CmpOp::Ge, T).with_offset(-WINDOW_US),
        RangeCondition::new(T, CmpOp::Le, T).with_offset(WINDOW_US),
    ]
}

/// `batch` with two more columns, `t_lo = t - 10` and `t_hi = t + 10`.
fn with_band_bounds(batch: &RecordBatch) -> RecordBatch {
    let t = batch.column(T).as_primitive::<Int64Type>();
    let lo: Int64Array = t.unary(|v| v - BAND);
    let hi: Int64Array = t.unary(|v| v + BAND);
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("t_lo", DataType::Int64, false));
    fields.push(Field::new("t_hi", DataType::Int64, false));
    let mut cols: Vec<ArrayRef> = batch.columns().to_vec();
    cols.push(Arc::new(lo));
    cols.push(Arc::new(hi));
    RecordBatch::try_new(Arc::new(Schema::new(fields)), cols)
        .expect("two Int64 columns of the batch's length")
}

/// `left.t >= right.t_lo AND left.t <= right.t_hi`, over candidate pairs.
fn band_filter() -> Arc<dyn JoinFilter> {
    let f = |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
        let t = l.column(T).as_primitive::<Int64Type>().values();
        let lo = r.column(T_LO).as_primitive::<Int64Type>().values();
        let hi = r.column(T_HI).as_primitive::<Int64Type>().values();
        let keep: Vec<bool> = li
            .values()
            .iter()
            .zip(ri.values())
            .map(|(&a, &b)| {
                let (v, b) = (t[a as usize], b as usize);
                v >= lo[b] && v <= hi[b]
            })
            .collect();
        Ok(BooleanArray::from(keep))
    };
    Arc::new(f)
}

/// The strategies that can run `workload`'s join, and of those, the ones
/// `tenon bench` runs by default (`all`): the nested loop only where it is
/// the natural choice (band, nlj, interval), since on the 10M-row
/// equi-joins it is a sort and 10M binary searches, far behind the others.
/// The as-of join runs as BROADCAST or SHUFFLE_MERGE only (docs/hints.md
/// H53).
pub fn strategies(workload: Workload, default_only: bool) -> Vec<Strategy> {
    match workload {
        Workload::Nlj => vec![Strategy::NestLoop],
        Workload::Asof => vec![Strategy::Broadcast, Strategy::ShuffleMerge],
        Workload::Band | Workload::Interval => Strategy::ALL.to_vec(),
        _ if default_only => vec![
            Strategy::Broadcast,
            Strategy::ShuffleHash,
            Strategy::ShuffleMerge,
        ],
        _ => Strategy::ALL.to_vec(),
    }
}

/// `workload`'s join under `strategy` (`None` when the strategy cannot run
/// it), with output batches of `batch_size` rows.
pub fn join(workload: Workload, strategy: Strategy, batch_size: usize) -> Option<Join> {
    if !strategies(workload, false).contains(&strategy) {
        return None;
    }
    if workload == Workload::Asof {
        return Some(asof_join(strategy, batch_size));
    }
    let on = vec![(K, K)];
    let hash = |mode| {
        let j = HashJoin::new(JoinType::Inner, on.clone())
            .mode(mode)
            .build_side(JoinSide::Right)
            .batch_size(batch_size);
        Join::from(match workload {
            Workload::Band => j.filter(band_filter()),
            Workload::Interval => j.filter(interval_filter()),
            _ => j,
        })
    };
    Some(match strategy {
        Strategy::Broadcast => hash(HashJoinMode::Broadcast),
        Strategy::ShuffleHash => hash(HashJoinMode::Partitioned),
        Strategy::ShuffleMerge => {
            let j = SortMergeJoin::new(JoinType::Inner, on).batch_size(batch_size);
            // The merge uses the band itself: within a run of equal keys it
            // finds each row's window of `t` by binary search.
            Join::from(match workload {
                Workload::Band => j.ranges(vec![
                    RangeCondition::new(T, CmpOp::Ge, T_LO),
                    RangeCondition::new(T, CmpOp::Le, T_HI),
                ]),
                Workload::Interval => j.ranges(interval_window().to_vec()),
                _ => j,
            })
        }
        Strategy::NestLoop => {
            let ranges = match workload {
                Workload::Nlj => vec![RangeCondition::new(T, CmpOp::Lt, T)],
                Workload::Band => vec![
                    RangeCondition::new(T, CmpOp::Ge, T_LO),
                    RangeCondition::new(T, CmpOp::Le, T_HI),
                    RangeCondition::new(K, CmpOp::Le, K),
                    RangeCondition::new(K, CmpOp::Ge, K),
                ],
                Workload::Interval => {
                    let mut r = interval_window().to_vec();
                    r.push(RangeCondition::new(K, CmpOp::Le, K));
                    r.push(RangeCondition::new(K, CmpOp::Ge, K));
                    r
                }
                _ => vec![
                    RangeCondition::new(K, CmpOp::Le, K),
                    RangeCondition::new(K, CmpOp::Ge, K),
                ],
            };
            Join::from(
                NestedLoopJoin::new(JoinType::Inner)
                    .ranges(ranges)
                    .build_side(JoinSide::Right)
                    .batch_size(batch_size),
            )
        }
    })
}

/// The asof workload's join under `strategy` (BROADCAST or SHUFFLE_MERGE,
/// the only ones [`strategies`] lists for it): each trade (left) with the
/// latest quote (right) of its key at or before it, every trade kept.
fn asof_join(strategy: Strategy, batch_size: usize) -> Join {
    let mode = match strategy {
        Strategy::ShuffleMerge => AsofMode::Partitioned,
        _ => AsofMode::Broadcast,
    };
    let time = RangeCondition::new(T, CmpOp::Ge, T);
    Join::from(
        AsofJoin::new(JoinType::Left, vec![(K, K)], time)
            .mode(mode)
            .batch_size(batch_size),
    )
}

/// The workload's join as SQL over tables `probe` and `build`, with
/// `hint` (e.g. `BROADCAST(build)`) in the SELECT when given.
pub fn sql(workload: Workload, hint: Option<&str>) -> String {
    let hint = hint.map(|h| format!("/*+ {h} */ ")).unwrap_or_default();
    if workload == Workload::Asof {
        return format!(
            "SELECT {hint}count(*), sum(probe.p), sum(build.p) FROM probe ASOF JOIN build \
             MATCH_CONDITION (probe.t >= build.t) ON probe.k = build.k"
        );
    }
    let condition = match workload {
        Workload::Nlj => "probe.v < build.v",
        Workload::Band => "probe.k = build.k AND probe.t BETWEEN build.t - 10 AND build.t + 10",
        Workload::Interval => {
            "probe.k = build.k AND probe.t BETWEEN build.t - INTERVAL '5' MINUTE AND build.t + \
             INTERVAL '5' MINUTE"
        }
        _ => "probe.k = build.k",
    };
    // What `measure` computes, so that the estimate counts those columns.
    let select = match workload {
        Workload::Nlj => "count(*)",
        _ => "count(*), sum(probe.p), sum(build.p)",
    };
    format!("SELECT {hint}{select} FROM probe JOIN build ON {condition}")
}

/// The hint a user would write for `workload`, following the Flink
/// documents' advice: BROADCAST a small build side (fk_small, fk_medium,
/// low_match: 1K to 1M rows against 10M; asof: its versioned side, the
/// quotes, is the smaller one), SHUFFLE_HASH two large sides
/// (fk_large, zipf), SHUFFLE_MERGE a many-to-many join and a band join
/// (m2n, band, interval: the merge sorts once and finds the band by
/// search),
/// NEST_LOOP a join without equality (nlj).
pub fn hint(workload: Workload) -> &'static str {
    match workload {
        Workload::FkSmall | Workload::FkMedium | Workload::LowMatch | Workload::Asof => {
            "BROADCAST(build)"
        }
        Workload::FkLarge | Workload::Zipf => "SHUFFLE_HASH(build)",
        Workload::M2n | Workload::Band | Workload::Interval => "SHUFFLE_MERGE(build)",
        Workload::Nlj => "NEST_LOOP(build)",
    }
}

/// What the planner chooses for `workload`'s join over `inputs` (with their
/// row counts, sizes and column statistics as the catalog's statistics), under `hint` or by
/// default, with `config`'s settings (`broadcast_threshold`, ...).
///
/// # Errors
///
/// A planning error (a bad hint, every strategy disabled).
pub fn planner_choice(
    workload: Workload,
    inputs: &Inputs,
    hint: Option<&str>,
    config: &tenon_planner::config::Config,
) -> Result<tenon_planner::choose::PlannedJoin, tenon_planner::choose::PlanError> {
    let mut catalog = tenon_planner::sql::Catalog::new();
    for (name, input) in [("probe", &inputs.probe), ("build", &inputs.build)] {
        let bytes: usize = input
            .batches()
            .iter()
            .map(RecordBatch::get_array_memory_size)
            .sum();
        catalog.register_table_with_stats(
            name,
            input.schema().clone(),
            tenon_planner::sql::TableStats {
                row_count: Some(input.num_rows() as u64),
                byte_size: Some(bytes as u64),
                // what a session computes for a table held in memory
                columns: tenon_planner::statistics::compute_column_stats(input.batches()),
                ..Default::default()
            },
        );
    }
    let plan = tenon_planner::choose::plan_joins(&sql(workload, hint), &catalog, config)?;
    plan.joins.into_iter().next().ok_or_else(|| {
        tenon_planner::choose::PlanError::from(tenon_planner::sql::SqlError::Plan(
            "internal: the workload's query has no join".into(),
        ))
    })
}

/// [`measure`] under a name of its own, never inlined: `tenon bench
/// --measure instructions` counts the instructions executed inside this
/// function (callgrind's `--toggle-collect`), so it is what the bench
/// calls for every measured run.
///
/// # Errors
///
/// As [`measure`].
#[inline(never)]
pub fn callgrind_measured_region(join: &Join, inputs: &Inputs) -> Result<JoinSummary, KernelError> {
    measure(join, inputs)
}

/// Runs `join` over `inputs` the way the workload is measured: count only
/// for nlj, count and payload sums otherwise.
///
/// # Errors
///
/// Whatever the join fails with.
pub fn measure(join: &Join, inputs: &Inputs) -> Result<JoinSummary, KernelError> {
    if inputs.workload == Workload::Nlj {
        count_only(join, &inputs.probe, &inputs.build)
    } else {
        count_and_sum(join, &inputs.probe, &inputs.build)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenon_datasets::generate;

    #[test]
    fn every_strategy_of_every_workload_gives_the_same_answer() {
        for w in Workload::ALL {
            let scale = match w {
                Workload::Band | Workload::Nlj | Workload::M2n | Workload::Interval => 0.02,
                _ => 0.0005,
            };
            let inputs = inputs(w, generate(w, scale, 7), 1000);
            let mut answers = Vec::new();
            for s in strategies(w, false) {
                let j = join(w, s, 1000).expect("a listed strategy runs");
                answers.push((s, measure(&j, &inputs).expect("join")));
            }
            let (first, want) = answers[0];
            assert!(want.rows > 0, "{w}: no output");
            for (s, got) in &answers {
                assert_eq!(*got, want, "{w}: {s} differs from {first}");
            }
        }
    }

    #[test]
    fn band_counts_pairs_within_ten() {
        let t = generate(Workload::Band, 0.01, 3);
        let (p, b) = (t.probe.clone(), t.build.clone());
        let (pk, pt) = (
            p.column(K).as_primitive::<Int64Type>(),
            p.column(T).as_primitive::<Int64Type>(),
        );
        let (bk, bt) = (
            b.column(K).as_primitive::<Int64Type>(),
            b.column(T).as_primitive::<Int64Type>(),
        );
        let mut want = 0u64;
        for i in 0..p.num_rows() {
            for j in 0..b.num_rows() {
                if pk.value(i) == bk.value(j) && (pt.value(i) - bt.value(j)).abs() <= BAND {
                    want += 1;
                }
            }
        }
        let inputs = inputs(Workload::Band, t, 500);
        let j = join(Workload::Band, Strategy::ShuffleHash, 500).unwrap();
        assert_eq!(measure(&j, &inputs).unwrap().rows, want);
        assert!(join(Workload::Nlj, Strategy::Broadcast, 500).is_none());
    }

    #[test]
    fn interval_counts_pairs_within_five_minutes() {
        let t = generate(Workload::Interval, 0.002, 5);
        let col = |b: &RecordBatch, c: usize| b.column(c).as_primitive::<Int64Type>().clone();
        let (pk, pt, bk, bt) = (
            col(&t.probe, K),
            col(&t.probe, T),
            col(&t.build, K),
            col(&t.build, T),
        );
        let mut want = 0u64;
        for i in 0..pk.len() {
            for j in 0..bk.len() {
                if pk.value(i) == bk.value(j) && pt.value(i).abs_diff(bt.value(j)) <= 300_000_000 {
                    want += 1;
                }
            }
        }
        assert!(want > 0);
        let inputs = inputs(Workload::Interval, t, 300);
        for s in Strategy::ALL {
            let j = join(Workload::Interval, s, 300).unwrap();
            assert_eq!(measure(&j, &inputs).unwrap().rows, want, "{s}");
        }
    }

    /// The asof workload's answer by brute force: each trade with the quote
    /// of its key of the largest time at or before the trade's (ties: the
    /// last in input order), count + payload sums, an unmatched trade's
    /// NULL quote payload adding 0; and the number of unmatched trades.
    fn naive_asof(t: &Tables) -> (JoinSummary, u64) {
        let col = |b: &RecordBatch, c: usize| b.column(c).as_primitive::<Int64Type>().clone();
        let (pk, pt, pp) = (col(&t.probe, K), col(&t.probe, T), col(&t.probe, 1));
        let (bk, bt, bp) = (col(&t.build, K), col(&t.build, T), col(&t.build, 1));
        let mut want = JoinSummary {
            rows: 0,
            left_sum: 0,
            right_sum: 0,
        };
        let mut unmatched = 0;
        for i in 0..pk.len() {
            want.rows += 1;
            want.left_sum += pp.value(i);
            let mut best: Option<usize> = None;
            for j in 0..bk.len() {
                if bk.value(j) == pk.value(i)
                    && bt.value(j) <= pt.value(i)
                    && best.is_none_or(|b| bt.value(j) >= bt.value(b))
                {
                    best = Some(j);
                }
            }
            match best {
                Some(j) => want.right_sum += bp.value(j),
                None => unmatched += 1,
            }
        }
        (want, unmatched)
    }

    #[test]
    fn asof_takes_each_trades_latest_quote_at_or_before_it() {
        for (scale, seed) in [(0.0005, 5), (0.002, 9)] {
            let t = generate(Workload::Asof, scale, seed);
            let (want, unmatched) = naive_asof(&t);
            // Some trades precede their key's first quote: the NULL side
            // of the LEFT join is measured too.
            assert!(unmatched > 0 && unmatched < want.rows, "{unmatched}");
            for batch_size in [7, 8192] {
                let inputs = inputs(Workload::Asof, t.clone(), batch_size);
                for threads in [1, 4] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    for s in strategies(Workload::Asof, false) {
                        let j = join(Workload::Asof, s, batch_size).unwrap();
                        let got = pool.install(|| measure(&j, &inputs)).unwrap();
                        assert_eq!(got, want, "{s}, batch {batch_size}, {threads} threads");
                    }
                }
            }
        }
        for s in [Strategy::ShuffleHash, Strategy::NestLoop] {
            assert!(join(Workload::Asof, s, 100).is_none(), "{s}");
        }
    }

    #[test]
    fn asof_sql_plans_as_an_asof_join_under_its_hints() {
        let w = Workload::Asof;
        let inputs = inputs(w, generate(w, 0.0005, 3), 1000);
        let config = tenon_planner::config::Config::default();
        let plan = |hint| planner_choice(w, &inputs, hint, &config).unwrap();
        let hinted = plan(Some(hint(w)));
        assert_eq!(hinted.strategy, Strategy::Broadcast, "{}", hinted.reason);
        assert!(hinted.time_join.is_some(), "{hinted:?}");
        let merged = plan(Some("SHUFFLE_MERGE(build)"));
        assert_eq!(merged.strategy, Strategy::ShuffleMerge, "{}", merged.reason);
        let default = plan(None);
        assert!(
            strategies(w, true).contains(&default.strategy),
            "{default:?}"
        );
    }
}

//! `FedProbe::for_each_fed` of the hash join (the probe side pushed batch by batch, from
//! several threads) gives the rows `JoinKernel::for_each` gives over the same
//! batches: in the broadcast mode, in the partitioned mode with a build side
//! small enough to stay unpartitioned (probed as pushed), and with a larger
//! one (the pushed batches collected, then partitioned); for every join
//! type, NULL keys and duplicates included, with and without a filter.

mod common;

use std::sync::Mutex;

use arrow_array::RecordBatch;
use rayon::prelude::*;
use tenon_kernels::{
    FedProbe, HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType, KernelError,
};

use common::cases::{batch, i64s};
use common::{all_rows, less_than_filter, multiset_diff};

/// `n` rows: a key with NULLs and duplicates (about `n / 3` distinct) and
/// a payload.
fn side(n: usize, seed: u64) -> RecordBatch {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let keys: Vec<Option<i64>> = (0..n)
        .map(|_| {
            let v = next();
            (v % 17 != 0).then(|| (v % (n as u64 / 3 + 1)) as i64)
        })
        .collect();
    let payload: Vec<Option<i64>> = (0..n).map(|_| Some((next() % 1000) as i64)).collect();
    batch(vec![("k", i64s(&keys)), ("p", i64s(&payload))])
}

fn chunks(b: &RecordBatch, rows: usize) -> Vec<RecordBatch> {
    (0..b.num_rows())
        .step_by(rows)
        .map(|o| b.slice(o, rows.min(b.num_rows() - o)))
        .collect()
}

fn collect(
    run: impl FnOnce(&tenon_kernels::BatchSink<'_>) -> Result<(), KernelError>,
) -> Vec<RecordBatch> {
    let out = Mutex::new(Vec::new());
    run(&|b| {
        out.lock().unwrap().push(b);
        Ok(())
    })
    .unwrap();
    out.into_inner().unwrap()
}

fn check(join: &HashJoin, build: &RecordBatch, probe: &RecordBatch, desc: &str) {
    let build_in = JoinInput::new(build.schema(), chunks(build, 1000));
    let probe_batches = chunks(probe, 777);
    let probe_in = JoinInput::new(probe.schema(), probe_batches.clone());
    let empty = JoinInput::new(probe.schema(), Vec::new());
    let (l, r, le, re) = match join.built_side() {
        JoinSide::Left => (&build_in, &probe_in, &build_in, &empty),
        JoinSide::Right => (&probe_in, &build_in, &empty, &build_in),
    };
    let expected = collect(|sink| join.for_each(l, r, sink));
    let fed = collect(|sink| {
        join.for_each_fed(
            le,
            re,
            &|push| probe_batches.par_iter().try_for_each(|b| push(b.clone())),
            sink,
        )
    });
    let diff = multiset_diff(&all_rows(&fed), &all_rows(&expected));
    assert!(diff.is_empty(), "{desc}: {diff}");
}

#[test]
fn fed_probe_matches_whole_input_probe() {
    let big = HashJoin::unpartitioned_rows() + 5000;
    for (build_rows, probe_rows) in [(0, 500), (300, 0), (2000, 5000), (big, 3000)] {
        let build = side(build_rows, 1);
        let probe = side(probe_rows, 2);
        for jt in JoinType::ALL {
            for build_side in [JoinSide::Left, JoinSide::Right] {
                for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
                    if mode == HashJoinMode::Broadcast && build_rows == big {
                        continue; // the broadcast mode is covered by the smaller sizes
                    }
                    for filtered in [false, true] {
                        let mut join = HashJoin::new(jt, vec![(0, 0)])
                            .mode(mode)
                            .build_side(build_side)
                            .batch_size(1000);
                        if filtered {
                            join = join.filter(less_than_filter(1, 1));
                        }
                        let desc = format!(
                            "{jt} build={build_side:?} {mode:?} filter={filtered} \
                             build_rows={build_rows} probe_rows={probe_rows}"
                        );
                        check(&join, &build, &probe, &desc);
                    }
                }
            }
        }
    }
}

#[test]
fn a_fed_join_rejects_probe_batches_given_up_front_and_mismatched_pushes() {
    let b = side(10, 3);
    let input = JoinInput::new(b.schema(), vec![b.clone()]);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
        .mode(HashJoinMode::Broadcast)
        .build_side(JoinSide::Left);
    let err = join
        .for_each_fed(&input, &input, &|_| Ok(()), &|_| Ok(()))
        .unwrap_err();
    assert!(err.to_string().contains("must hold no batches"), "{err}");

    let empty = JoinInput::new(b.schema(), Vec::new());
    let other = batch(vec![("k", common::cases::strs(&[Some("x")]))]);
    let err = join
        .for_each_fed(&input, &empty, &|push| push(other.clone()), &|_| Ok(()))
        .unwrap_err();
    assert!(err.to_string().contains("probe batch pushed"), "{err}");
}

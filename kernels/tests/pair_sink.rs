//! `PairJoin::for_each_pair` of the hash join delivers exactly the pairs
//! `JoinKernel::for_each` outputs for an INNER join: in the broadcast and
//! partitioned modes (small build sides, a forced partition count, and one
//! large enough to be partitioned), fed and not, with and without a
//! residual filter, building either side, on 1 and 4 threads; and only an
//! INNER join has the capability.

mod common;

use std::sync::Mutex;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use rayon::prelude::*;
use tenon_kernels::{
    HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType, PairChunk, PairSink,
    PairWorker, Result,
};

use common::cases::{batch, i64s};
use common::less_than_filter;

type Row = Vec<Option<i64>>;

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
    let payload: Vec<Option<i64>> = (0..n)
        .map(|_| {
            let v = next();
            (v % 11 != 0).then_some((v % 1000) as i64)
        })
        .collect();
    batch(vec![("k", i64s(&keys)), ("p", i64s(&payload))])
}

fn cell(b: &RecordBatch, c: usize, r: usize) -> Option<i64> {
    let a = b.column(c).as_primitive::<Int64Type>();
    a.is_valid(r).then(|| a.value(r))
}

/// Collects every pair as (left k, left p, right k, right p).
struct Rows(Mutex<Vec<Row>>);

struct Worker<'a>(&'a Rows, Vec<Row>);

impl PairSink for Rows {
    fn worker(&self) -> Result<Box<dyn PairWorker + '_>> {
        Ok(Box::new(Worker(self, Vec::new())))
    }
}

impl PairWorker for Worker<'_> {
    fn consume(&mut self, chunk: &PairChunk<'_>) -> Result<()> {
        assert_eq!(chunk.build_rows.len(), chunk.probe_rows.len());
        for (&b, &p) in chunk.build_rows.iter().zip(chunk.probe_rows) {
            let (pb, pr) = chunk.locate_probe(p);
            let probe = &chunk.probe_batches()[pb];
            if let Some(one) = chunk.probe_batch() {
                assert_eq!(pb, 0);
                assert!(std::ptr::eq(one, probe));
            }
            let build: Row = vec![
                cell(chunk.build, 0, b as usize),
                cell(chunk.build, 1, b as usize),
            ];
            let probe: Row = vec![cell(probe, 0, pr), cell(probe, 1, pr)];
            let row = match chunk.build_side {
                JoinSide::Left => [build, probe].concat(),
                JoinSide::Right => [probe, build].concat(),
            };
            self.1.push(row);
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<()> {
        self.0.0.lock().unwrap().extend(self.1);
        Ok(())
    }
}

fn rows_of(batches: &[RecordBatch]) -> Vec<Row> {
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            out.push((0..b.num_columns()).map(|c| cell(b, c, r)).collect());
        }
    }
    out.sort();
    out
}

fn chunks(b: &RecordBatch, rows: usize) -> Vec<RecordBatch> {
    (0..b.num_rows())
        .step_by(rows)
        .map(|o| b.slice(o, rows.min(b.num_rows() - o)))
        .collect()
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
    let expected = rows_of(&join.collect(l.clone(), r.clone()).unwrap());
    let paired = join.paired().expect("an INNER hash join hands out pairs");
    let sink = Rows(Mutex::new(Vec::new()));
    paired.for_each_pair(l, r, None, &sink).unwrap();
    let mut got = sink.0.into_inner().unwrap();
    got.sort();
    assert_eq!(got, expected, "{desc}");
    let sink = Rows(Mutex::new(Vec::new()));
    let feed = |push: &(dyn Fn(RecordBatch) -> Result<()> + Sync)| {
        probe_batches.par_iter().try_for_each(|b| push(b.clone()))
    };
    paired.for_each_pair(le, re, Some(&feed), &sink).unwrap();
    let mut got = sink.0.into_inner().unwrap();
    got.sort();
    assert_eq!(got, expected, "fed: {desc}");
}

#[test]
fn pairs_handed_out_are_the_inner_join_output() {
    let big = HashJoin::unpartitioned_rows() + 5000;
    for (build_rows, probe_rows) in [(0, 500), (300, 0), (2000, 5000), (big, 3000)] {
        let build = side(build_rows, 1);
        let probe = side(probe_rows, 2);
        for build_side in [JoinSide::Left, JoinSide::Right] {
            for (mode, parts) in [
                (HashJoinMode::Broadcast, None),
                (HashJoinMode::Partitioned, None),
                (HashJoinMode::Partitioned, Some(4)),
            ] {
                if build_rows == big && mode == HashJoinMode::Broadcast {
                    continue;
                }
                for threads in [1, 4] {
                    for filtered in [false, true] {
                        let mut join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                            .mode(mode)
                            .build_side(build_side)
                            .threads(threads)
                            .batch_size(7);
                        if let Some(p) = parts {
                            join = join.partitions(p);
                        }
                        if filtered {
                            join = join.filter(less_than_filter(1, 1));
                        }
                        let desc = format!(
                            "build={build_side:?} {mode:?} parts={parts:?} threads={threads} \
                             filter={filtered} build_rows={build_rows} probe_rows={probe_rows}"
                        );
                        check(&join, &build, &probe, &desc);
                    }
                }
            }
        }
    }
}

#[test]
fn only_inner_joins_hand_out_pairs() {
    for jt in JoinType::ALL {
        let join = HashJoin::new(jt, vec![(0, 0)]);
        assert_eq!(join.paired().is_some(), jt == JoinType::Inner, "{jt}");
    }
}

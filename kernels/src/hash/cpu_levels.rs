//! The hash join gives the same rows at every instruction-set level its
//! hot loops are compiled for (see `crate::cpu`): the baseline copy, which
//! an older CPU runs, against the x86-64-v3 and -v4 copies, which the rest
//! of the tests run on a CPU that has them.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    Array, ArrayRef, Decimal128Array, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use proptest::prelude::*;

use crate::cpu::tests::at_every_level;
use crate::{HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType};

/// A key column of one type from `keys` (`None` is NULL).
fn key_column(ty: usize, keys: &[Option<i64>]) -> ArrayRef {
    // Scrambled, so that keys are not a dense range (that path skips the
    // hash table) unless `ty` asks for the plain integers.
    let spread = |k: i64| k.wrapping_mul(0x9e37_79b9_7f4a_7c15u64 as i64);
    match ty {
        0 => Arc::new(keys.iter().map(|k| k.map(spread)).collect::<Int64Array>()),
        1 => Arc::new(
            keys.iter()
                .map(|k| k.map(|k| k as i32))
                .collect::<Int32Array>(),
        ),
        2 => Arc::new(
            keys.iter()
                .map(|k| k.map(|k| (k % 7) as f64 - 3.0))
                .collect::<Float64Array>(),
        ),
        3 => Arc::new(
            keys.iter()
                .map(|k| k.map(|k| format!("key-{k}")))
                .collect::<StringArray>(),
        ),
        _ => Arc::new(
            keys.iter()
                .map(|k| k.map(|k| i128::from(spread(k)) << 40))
                .collect::<Decimal128Array>(),
        ),
    }
}

/// One side: (key, row id), in batches of `batch` rows.
fn side(ty: usize, keys: &[Option<i64>], id: &str, batch: usize) -> JoinInput {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..keys.len() as i64));
    let b = RecordBatch::try_from_iter([("k", key_column(ty, keys)), (id, ids)]).unwrap();
    let batches = (0..b.num_rows())
        .step_by(batch)
        .map(|at| b.slice(at, batch.min(b.num_rows() - at)))
        .collect();
    JoinInput::new(b.schema(), batches)
}

/// The output's (left id, right id) pairs, sorted (`-1` for a side the
/// row does not have).
fn run(join: &HashJoin, left: &JoinInput, right: &JoinInput) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for b in join.collect(left.clone(), right.clone()).unwrap() {
        let col = |name: &str| {
            b.schema()
                .index_of(name)
                .ok()
                .map(|i| b.column(i).as_primitive::<Int64Type>().clone())
        };
        let (l, r) = (col("lid"), col("rid"));
        for i in 0..b.num_rows() {
            let get = |c: &Option<Int64Array>| {
                c.as_ref()
                    .map_or(-1, |c| if c.is_null(i) { -1 } else { c.value(i) })
            };
            out.push((get(&l), get(&r)));
        }
    }
    out.sort_unstable();
    out
}

/// Runs the join types in both modes (the partitioned one with 4
/// partitions, so that small sides are scattered too) at every level and
/// checks the levels agree.
fn check(
    ty: usize,
    lkeys: &[Option<i64>],
    rkeys: &[Option<i64>],
    batch: usize,
    threads: usize,
    types: &[JoinType],
) {
    let left = side(ty, lkeys, "lid", batch);
    let right = side(ty, rkeys, "rid", batch);
    for &jt in types {
        for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
            for null_equal in [false, true] {
                if null_equal && jt == JoinType::LeftAntiNullAware {
                    continue; // NOT IN has its own NULL rules
                }
                let join = HashJoin::new(jt, vec![(0, 0)])
                    .mode(mode)
                    .partitions(4)
                    .build_side(JoinSide::Right)
                    .null_equal(null_equal)
                    .threads(threads)
                    .batch_size(batch);
                let got = at_every_level(|| run(&join, &left, &right));
                let (base_level, base) = &got[0];
                for (level, rows) in &got[1..] {
                    assert_eq!(
                        rows, base,
                        "{jt:?} {mode:?} null_equal={null_equal} type {ty}: {level:?} differs from {base_level:?}"
                    );
                }
            }
        }
    }
}

fn keys(n: usize, distinct: i64, nulls: bool, seed: u64) -> Vec<Option<i64>> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = (x % distinct as u64) as i64;
            (!(nulls && x.is_multiple_of(11))).then_some(k)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn every_level_gives_the_same_rows(
        ty in 0usize..5,
        nl in 0usize..300,
        nr in 0usize..300,
        distinct in 1i64..400,
        nulls in any::<bool>(),
        batch in prop::sample::select(vec![1usize, 2, 7, 8192]),
        threads in prop::sample::select(vec![1usize, 4]),
        seed in any::<u64>(),
    ) {
        let l = keys(nl, distinct, nulls, seed);
        let r = keys(nr, distinct, nulls, seed.rotate_left(17));
        check(ty, &l, &r, batch, threads, &JoinType::ALL);
    }
}

/// A build side large enough for the parallel build and the key filter of
/// a large table (a low match rate).
#[test]
fn every_level_gives_the_same_rows_on_a_large_build_side() {
    let r = keys(70_000, 1 << 40, true, 5);
    let mut l = keys(10_000, 1 << 40, true, 9);
    l.extend(r.iter().step_by(97).copied());
    check(0, &l, &r, 8192, 4, &[JoinType::Inner, JoinType::LeftAnti]);
}

//! Hash join cases on the paths that only larger inputs reach, each named
//! after the case it pins: duplicate build keys in every partition (2 to 64
//! partitions), a skewed partition holding more than 65,536 probe rows
//! (probed in sub-chunks sharing one table), a broadcast probe batch larger
//! than a morsel (probe-side marks per morsel), and a broadcast build over
//! 2 x 65,536 rows (a table built in regions in parallel). The large cases
//! compare with the indexed oracle (`RefJoin::run_indexed`).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use arrow_array::types::Int64Type;
use arrow_array::{Array, Int64Array, RecordBatch};
use tenon_kernels::{HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType};

use common::cases::{Variant, batch, chunked, i64s, one, run_variant, strs};
use common::reference::{RefJoin, RowFilter};
use common::{check_batches, less_than_filter, less_than_rows, multiset_diff};

// ---------------------------------------------------------------------------
// Partitioned mode
// ---------------------------------------------------------------------------

#[test]
fn partitioned_mode_finds_duplicate_build_keys_in_every_partition() {
    // 32 keys, each twice on both sides: with 2 to 64 partitions, some
    // partition other than the first holds a group of repeated build keys.
    let ks: Vec<Option<i64>> = (0..64).map(|i| Some(i / 2)).collect();
    let strings: Vec<String> = (0..64).map(|i| format!("key {}", i / 2)).collect();
    let ss: Vec<Option<&str>> = strings.iter().map(|s| Some(s.as_str())).collect();
    let l = batch(vec![("k", i64s(&ks)), ("s", strs(&ss))]);
    let r = batch(vec![("k", i64s(&ks)), ("s", strs(&ss))]);
    for on in [vec![(0, 0)], vec![(1, 1)], vec![(0, 0), (1, 1)]] {
        for parts in [2, 4, 8, 64] {
            for build in [JoinSide::Left, JoinSide::Right] {
                for jt in [JoinType::Inner, JoinType::Full, JoinType::LeftSemi] {
                    let join = HashJoin::new(jt, on.clone())
                        .mode(HashJoinMode::Partitioned)
                        .partitions(parts)
                        .build_side(build)
                        .threads(1);
                    let desc = format!("{jt} on={on:?} partitions={parts} build={build:?}");
                    let v = Variant {
                        desc: desc.clone(),
                        join,
                        batch_size: 8192,
                        via_stream: false,
                    };
                    let oracle = RefJoin::new(jt, &on);
                    let schema = oracle.schema(&l.schema(), &r.schema());
                    let rows = run_variant(&v, &one(&l), &one(&r), &schema);
                    let expected =
                        oracle.run(&common::batch_rows(&l), &common::batch_rows(&r), (2, 2));
                    let diff = multiset_diff(&rows, &expected);
                    assert!(diff.is_empty(), "{desc}: {diff}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Large inputs: the code paths that only start past 65,536 rows
// ---------------------------------------------------------------------------

/// Runs `join` once and compares it with the indexed oracle.
fn check_large(
    join: &HashJoin,
    oracle: RefJoin<'_>,
    left: &JoinInput,
    right: &JoinInput,
    batch_size: usize,
    desc: &str,
) -> usize {
    common::quiet_worker_panics();
    let lrows = common::all_rows(left.batches());
    let rrows = common::all_rows(right.batches());
    let widths = (left.schema().fields().len(), right.schema().fields().len());
    let expected = oracle.run_indexed(&lrows, &rrows, widths);
    let schema = oracle.schema(left.schema(), right.schema());
    let batches = catch_unwind(AssertUnwindSafe(|| {
        join.collect(left.clone(), right.clone())
    }))
    .unwrap_or_else(|p| {
        panic!(
            "{desc}: the kernel panicked: {} (last worker panic: {})",
            common::panic_text(p.as_ref()),
            common::last_worker_panic()
        )
    })
    .unwrap_or_else(|e| panic!("{desc}: {e}"));
    let rows = check_batches(&batches, &schema, batch_size).unwrap_or_else(|e| panic!("{e}"));
    let diff = multiset_diff(&rows, &expected);
    assert!(diff.len() < 4000, "{desc}: {}", &diff);
    assert!(diff.is_empty(), "{desc}: {diff}");
    expected.len()
}

/// Probe (left): 80,000 rows (k, p), 75,000 of them with the hot key 7;
/// build (right): 2,000 rows (k, p), key 7 three times.
fn skewed_inputs() -> (RecordBatch, RecordBatch) {
    let n = 80_000i64;
    let lk: Vec<Option<i64>> = (0..n)
        .map(|i| match i % 16 {
            0 => Some(i % 5000 + 100),
            1 if i % 32 == 1 => None,
            _ => Some(7),
        })
        .collect();
    let lp: Vec<Option<i64>> = (0..n).map(|i| Some(i % 3)).collect();
    let l = batch(vec![("k", i64s(&lk)), ("p", i64s(&lp))]);
    let rk: Vec<Option<i64>> = (0..2000)
        .map(|i| if i < 3 { Some(7) } else { Some(i * 3) })
        .collect();
    let rp: Vec<Option<i64>> = (0..2000).map(|i| Some(i % 4)).collect();
    let r = batch(vec![("k", i64s(&rk)), ("p", i64s(&rp))]);
    (l, r)
}

#[test]
fn skewed_partition_is_correct() {
    // The hot key puts more than 65,536 probe rows in one partition, which
    // is then probed in split sub-chunks sharing one table.
    let (l, r) = skewed_inputs();
    let (left, right) = (chunked(&l, 30_000), one(&r));
    let on = [(0, 0)];
    let f = less_than_rows(1, 1);
    let cases: Vec<(JoinType, bool)> = vec![
        (JoinType::Inner, false),
        (JoinType::Inner, true),
        (JoinType::Left, true),
        (JoinType::LeftSemi, false),
        (JoinType::LeftAnti, true),
        (JoinType::RightSemi, false),
        (JoinType::LeftAntiNullAware, false),
    ];
    for (jt, filtered) in cases {
        let mut join = HashJoin::new(jt, on.to_vec())
            .mode(HashJoinMode::Partitioned)
            .build_side(JoinSide::Right)
            .partitions(4)
            .threads(4)
            .batch_size(4096);
        let mut oracle = RefJoin::new(jt, &on);
        if filtered {
            join = join.filter(less_than_filter(1, 1));
            oracle.filter = Some(&f as RowFilter<'_>);
        }
        let rows = check_large(
            &join,
            oracle,
            &left,
            &right,
            4096,
            &format!("{jt} filter={filtered}"),
        );
        if jt == JoinType::Inner && !filtered {
            assert!(rows > 3 * 70_000, "the hot key must dominate: {rows}");
        }
    }
}

#[test]
fn broadcast_probe_batch_larger_than_a_morsel() {
    // One probe batch of 80,000 rows is probed as two morsels (65,536 rows,
    // then the rest at an offset); probe-side marks are per morsel.
    let (l, r) = skewed_inputs();
    let (left, right) = (one(&l), one(&r));
    let on = [(0, 0)];
    let f = less_than_rows(1, 1);
    for (jt, filtered) in [
        (JoinType::Left, true),
        (JoinType::LeftSemi, true),
        (JoinType::LeftAnti, false),
        (JoinType::LeftAntiNullAware, true),
    ] {
        let mut join = HashJoin::new(jt, on.to_vec())
            .mode(HashJoinMode::Broadcast)
            .build_side(JoinSide::Right)
            .threads(4)
            .batch_size(5000);
        let mut oracle = RefJoin::new(jt, &on);
        if filtered {
            join = join.filter(less_than_filter(1, 1));
            oracle.filter = Some(&f as RowFilter<'_>);
        }
        check_large(
            &join,
            oracle,
            &left,
            &right,
            5000,
            &format!("{jt} filter={filtered}"),
        );
    }
}

#[test]
fn broadcast_large_build_uses_regions_correctly() {
    // Build (left): 200,000 rows (over 2 x 65,536, so the table is built in
    // several regions in parallel), keys repeating 3-4 times, some NULL.
    let n = 200_000i64;
    let lk: Vec<Option<i64>> = (0..n)
        .map(|i| if i % 101 == 0 { None } else { Some(i % 60_000) })
        .collect();
    let l = batch(vec![
        ("k", i64s(&lk)),
        ("id", i64s(&(0..n).map(Some).collect::<Vec<_>>())),
    ]);
    // Probe (right): 3,000 rows, half of their keys present, a few NULL.
    let rk: Vec<Option<i64>> = (0..3000)
        .map(|i| if i % 500 == 0 { None } else { Some(i * 40) })
        .collect();
    let r = batch(vec![("k", i64s(&rk))]);
    let (left, right) = (chunked(&l, 70_000), chunked(&r, 1000));
    let on = [(0, 0)];
    for (jt, null_equal) in [
        (JoinType::Inner, false),
        (JoinType::Inner, true),
        (JoinType::LeftSemi, false),
        (JoinType::RightAnti, false),
        (JoinType::Full, false),
    ] {
        for threads in [1, 4] {
            let join = HashJoin::new(jt, on.to_vec())
                .mode(HashJoinMode::Broadcast)
                .build_side(JoinSide::Left)
                .null_equal(null_equal)
                .threads(threads)
                .batch_size(8192);
            let oracle = RefJoin {
                null_equal,
                ..RefJoin::new(jt, &on)
            };
            check_large(
                &join,
                oracle,
                &left,
                &right,
                8192,
                &format!("{jt} null_equal={null_equal} threads={threads}"),
            );
        }
    }
    // The row multiset of the hot path equals a direct count: each present
    // probe key k (k < 60,000, k % 40 == 0) matches the build rows i with
    // i % 60,000 == k and i % 101 != 0.
    let join = HashJoin::new(JoinType::Inner, on.to_vec())
        .mode(HashJoinMode::Broadcast)
        .build_side(JoinSide::Left);
    let out = join.collect(left, right).unwrap();
    let mut count = 0usize;
    for b in &out {
        let k = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let id = arrow_array::cast::AsArray::as_primitive::<Int64Type>(b.column(1));
        let rk = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
        for i in 0..b.num_rows() {
            assert_eq!(k.value(i), rk.value(i));
            assert_eq!(id.value(i) % 60_000, k.value(i));
            count += 1;
        }
    }
    let want = (0..n)
        .filter(|&j| {
            let m = j % 60_000;
            j % 101 != 0 && m % 40 == 0 && (m / 40) % 500 != 0
        })
        .count();
    assert_eq!(count, want);
}

#[test]
fn key_filter_drops_only_rows_without_a_match() {
    // Build (right): 70,000 distinct keys (over the key filter's 65,536-row
    // minimum; its broadcast table is larger than the cache), a few NULL.
    // Probe (left): 4,000 rows, 1 in 20 with a key present, some
    // repeated, some NULL: a low match rate, so both modes filter.
    let n = 70_000i64;
    let rk: Vec<Option<i64>> = (0..n)
        .map(|i| if i % 997 == 0 { None } else { Some(i * 3) })
        .collect();
    let r = batch(vec![
        ("k", i64s(&rk)),
        ("p", i64s(&(0..n).map(|i| Some(i % 50)).collect::<Vec<_>>())),
    ]);
    let lk: Vec<Option<i64>> = (0..4_000i64)
        .map(|i| match i % 20 {
            0 => Some((i * 7) % (3 * n)),
            1 if i % 3 == 0 => None,
            _ => Some(3 * n + i),
        })
        .collect();
    let l = batch(vec![
        ("k", i64s(&lk)),
        (
            "p",
            i64s(&(0..4_000).map(|i| Some(i % 60)).collect::<Vec<_>>()),
        ),
    ]);
    let (left, right) = (chunked(&l, 1_000), chunked(&r, 40_000));
    let on = [(0, 0)];
    let f = less_than_rows(1, 1);
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for jt in JoinType::ALL {
            // Every type plain; NULL-equal and filtered variants of the
            // types whose NULL and filter handling differ most.
            let variants: &[(bool, bool)] = match jt {
                JoinType::Full | JoinType::LeftAnti => {
                    &[(false, false), (true, false), (false, true)]
                }
                JoinType::LeftAntiNullAware | JoinType::Left => &[(false, false), (false, true)],
                _ => &[(false, false)],
            };
            for &(null_equal, filtered) in variants {
                let mut join = HashJoin::new(jt, on.to_vec())
                    .mode(mode)
                    .build_side(JoinSide::Right)
                    .null_equal(null_equal)
                    .threads(4);
                let mut oracle = RefJoin {
                    null_equal,
                    ..RefJoin::new(jt, &on)
                };
                if filtered {
                    join = join.filter(less_than_filter(1, 1));
                    oracle.filter = Some(&f);
                }
                check_large(
                    &join,
                    oracle,
                    &left,
                    &right,
                    8192,
                    &format!("{mode:?} {jt} null_equal={null_equal} filtered={filtered}"),
                );
            }
        }
    }
}

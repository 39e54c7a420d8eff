//! Hash join cases on the options and the output, each named after the case
//! it pins: invalid options (no keys, out-of-range columns, batch size 0,
//! bad partition counts, batches not matching the schema) and failing
//! filters being errors rather than panics, out of `collect` and the stream
//! alike; the memory limit (its error, and reservations given back);
//! projections (chosen, reordered and empty sides); and streaming (batches
//! bounded by the batch size on a many-to-many join, dropping the stream
//! early without hanging).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use arrow_array::{Array, BooleanArray, Int64Array, RecordBatch, UInt32Array};
use tenon_kernels::{
    HashJoin, HashJoinMode, JoinFilter, JoinInput, JoinKernel, JoinSide, JoinType, KernelError,
    MemoryBudget,
};

use common::cases::{
    batch, chunked, errors_all_ways, i64s, keys, one, ref_schema, row, run_variant, strs, variants,
};
use common::{NULL, Row, int, multiset_diff, run_kernel, s};

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[test]
fn invalid_options_are_errors_not_panics() {
    let l = keys(&[Some(1), Some(2)]);
    let r = keys(&[Some(1)]);
    let (l, r) = (one(&l), one(&r));
    let cases: Vec<(&str, HashJoin)> = vec![
        ("no key pairs", HashJoin::new(JoinType::Inner, vec![])),
        (
            "key column out of range",
            HashJoin::new(JoinType::Inner, vec![(0, 3)]),
        ),
        (
            "batch size 0",
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).batch_size(0),
        ),
        (
            "left projection out of range",
            HashJoin::new(JoinType::Inner, vec![(0, 0)]).projection(Some(vec![1]), None),
        ),
    ];
    for (what, join) in cases {
        for via_stream in [false, true] {
            let res = catch_unwind(AssertUnwindSafe(|| run_kernel(&join, &l, &r, via_stream)));
            match res {
                Ok(Err(_)) => {}
                Ok(Ok(_)) => panic!("{what}: expected an error"),
                Err(_) => panic!("{what}: panicked"),
            }
        }
    }
    // Partition counts that are not powers of two (in the partitioned mode).
    for p in [0, 3, 1 << 17] {
        let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
            .mode(HashJoinMode::Partitioned)
            .partitions(p);
        let e = run_kernel(&join, &l, &r, false).expect_err("bad partition count");
        assert!(matches!(e, KernelError::InvalidOptions(_)), "{p}: {e}");
    }
    // A batch whose columns do not match the input's schema.
    let wrong = batch(vec![("k", strs(&[Some("x")]))]);
    let bad = JoinInput::new(l.schema().clone(), vec![wrong]);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]);
    let e = run_kernel(&join, &bad, &r, false).expect_err("schema mismatch");
    assert!(matches!(e, KernelError::InvalidOptions(_)), "{e}");
}

#[test]
fn filter_errors_come_out_of_collect_and_the_stream() {
    let l = keys(&[Some(1), Some(2)]);
    let r = keys(&[Some(1), Some(2)]);
    let failing = |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
        Err(KernelError::Filter("boom".into()))
    };
    let failing: Arc<dyn JoinFilter> = Arc::new(failing);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]).filter(failing);
    for e in errors_all_ways(&join, &one(&l), &one(&r)) {
        assert!(e.to_string().contains("boom"), "{e}");
    }
    // A filter that returns the wrong number of values.
    let short = |_: &RecordBatch, _: &RecordBatch, _: &UInt32Array, _: &UInt32Array| {
        Ok(BooleanArray::from(Vec::<bool>::new()))
    };
    let short: Arc<dyn JoinFilter> = Arc::new(short);
    let join = HashJoin::new(JoinType::Left, vec![(0, 0)]).filter(short);
    for e in errors_all_ways(&join, &one(&l), &one(&r)) {
        assert!(matches!(e, KernelError::Filter(_)), "{e}");
    }
}

#[test]
fn memory_limit_error_says_what_and_how_much() {
    let n = 10_000;
    let l = keys(&(0..n).map(Some).collect::<Vec<_>>());
    let r = keys(&(0..n).map(Some).collect::<Vec<_>>());
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for build in [JoinSide::Left, JoinSide::Right] {
            let budget = MemoryBudget::new(4096);
            let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(build)
                .partitions(4)
                .memory(budget.clone());
            for via_stream in [false, true] {
                let e = run_kernel(&join, &chunked(&l, 3000), &one(&r), via_stream)
                    .expect_err("10,000 build rows do not fit in 4 KiB");
                let KernelError::MemoryLimitExceeded {
                    what,
                    needed,
                    used,
                    limit,
                } = &e
                else {
                    panic!("{mode:?} {build:?}: expected MemoryLimitExceeded, got {e}");
                };
                assert_eq!(*limit, 4096);
                assert!(!what.is_empty());
                assert!(*needed > 0 && used + needed > *limit, "{e:?}");
                let msg = e.to_string();
                assert!(msg.contains("memory limit exceeded"), "{msg}");
                assert!(msg.contains(what), "{msg}");
                assert!(msg.contains(&format!("needs {needed} more bytes")), "{msg}");
                assert!(msg.contains("4096-byte limit"), "{msg}");
                assert_eq!(budget.used(), 0, "reservations are returned after an error");
            }
            // With enough memory the same join runs, and gives it all back.
            let budget = MemoryBudget::new(64 << 20);
            let join = join.memory(budget.clone());
            let out = run_kernel(&join, &chunked(&l, 3000), &one(&r), false).expect("fits");
            assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), n as usize);
            assert_eq!(budget.used(), 0);
        }
    }
}

// ---------------------------------------------------------------------------
// Projection
// ---------------------------------------------------------------------------

#[test]
fn projection_selects_output_columns() {
    let l = batch(vec![
        ("a", i64s(&[Some(1), Some(2)])),
        ("b", strs(&[Some("b1"), Some("b2")])),
        ("c", i64s(&[Some(10), Some(20)])),
    ]);
    let r = batch(vec![
        ("x", i64s(&[Some(2), Some(3)])),
        ("y", strs(&[Some("y2"), Some("y3")])),
    ]);
    let (l, r) = (one(&l), one(&r));
    let lp = vec![2usize, 0];
    let rp = vec![1usize];
    let proj = (Some(lp.as_slice()), Some(rp.as_slice()));
    let cases: Vec<(JoinType, Vec<Row>)> = vec![
        (JoinType::Inner, vec![row(&[int(20), int(2), s("y2")])]),
        (
            JoinType::Full,
            vec![
                row(&[int(20), int(2), s("y2")]),
                row(&[int(10), int(1), NULL]),
                row(&[NULL, NULL, s("y3")]),
            ],
        ),
        (JoinType::LeftSemi, vec![row(&[int(20), int(2)])]),
        (JoinType::LeftAnti, vec![row(&[int(10), int(1)])]),
        (JoinType::RightAnti, vec![row(&[s("y3")])]),
    ];
    for (jt, expected) in cases {
        let join = HashJoin::new(jt, vec![(0, 0)]).projection(Some(lp.clone()), Some(rp.clone()));
        let schema = ref_schema(jt, &l, &r, proj);
        let names: Vec<&str> = schema.iter().map(|f| f.0.as_str()).collect();
        let want: &[&str] = match jt {
            JoinType::LeftSemi | JoinType::LeftAnti => &["c", "a"],
            JoinType::RightAnti => &["y"],
            _ => &["c", "a", "y"],
        };
        assert_eq!(names, want);
        let declared = join.output_schema(l.schema(), r.schema()).unwrap();
        assert_eq!(common::field_shapes(&declared), schema, "{jt}");
        for v in variants(&join) {
            let rows = run_variant(&v, &l, &r, &schema);
            let diff = multiset_diff(&rows, &expected);
            assert!(diff.is_empty(), "{jt} {}: {diff}", v.desc);
        }
    }
    // An empty projection of a side gives zero columns of it.
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]).projection(Some(vec![]), Some(vec![1]));
    let schema = ref_schema(JoinType::Inner, &l, &r, (Some(&[]), Some(&[1])));
    for v in variants(&join) {
        let rows = run_variant(&v, &l, &r, &schema);
        assert_eq!(rows, vec![row(&[s("y2")])], "{}", v.desc);
    }
}

// ---------------------------------------------------------------------------
// Streaming
// ---------------------------------------------------------------------------

/// Runs `f` on another thread and fails if it takes longer than `limit`.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(e) => panic!("did not finish within {limit:?} ({e})"),
    }
}

#[test]
fn many_to_many_streams_in_bounded_batches() {
    let l = batch(vec![
        ("k", i64s(&vec![Some(7); 300])),
        ("id", i64s(&(0..300).map(Some).collect::<Vec<_>>())),
    ]);
    let r = batch(vec![
        ("k", i64s(&vec![Some(7); 300])),
        ("id", i64s(&(1000..1300).map(Some).collect::<Vec<_>>())),
    ]);
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for build in [JoinSide::Left, JoinSide::Right] {
            let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                .mode(mode)
                .build_side(build)
                .partitions(4)
                .threads(2)
                .batch_size(100);
            let stream = join.execute(one(&l), one(&r)).expect("valid join");
            let mut total = 0usize;
            let mut pairs = vec![0u32; 300];
            for b in stream {
                let b = b.expect("no error");
                assert!(b.num_rows() <= 100, "{mode:?}: {} rows", b.num_rows());
                total += b.num_rows();
                let lid = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
                for i in 0..b.num_rows() {
                    pairs[lid.value(i) as usize] += 1;
                }
            }
            assert_eq!(total, 90_000, "{mode:?} {build:?}");
            assert!(pairs.iter().all(|&c| c == 300), "each left row 300 times");
        }
    }
}

#[test]
fn dropping_the_stream_early_does_not_hang() {
    // 3000 x 3000 rows of one key: 9 million output rows, far more than the
    // stream buffers.
    let n = 3000;
    let l = batch(vec![("k", i64s(&vec![Some(1); n]))]);
    let r = batch(vec![("k", i64s(&vec![Some(1); n]))]);
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for read in [0usize, 1, 5] {
            let (l, r) = (l.clone(), r.clone());
            let started = Instant::now();
            within(Duration::from_secs(30), move || {
                let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
                    .mode(mode)
                    .partitions(2)
                    .threads(2)
                    .batch_size(64);
                let mut stream = join.execute(one(&l), one(&r)).expect("valid join");
                for _ in 0..read {
                    let b = stream.next().expect("a batch").expect("no error");
                    assert!(b.num_rows() <= 64);
                }
                drop(stream);
            });
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{mode:?} read={read}"
            );
        }
    }
}

#[test]
fn stream_read_inside_a_one_thread_pool_returns_every_row() {
    // The consumer runs on the only thread of a rayon pool, with threads(0):
    // the join sizes its own pool from the caller's and streams every row.
    let l = batch(vec![("k", i64s(&(0..5000).map(Some).collect::<Vec<_>>()))]);
    let r = batch(vec![("k", i64s(&(0..5000).map(Some).collect::<Vec<_>>()))]);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let rows = pool.install(|| {
        let stream = HashJoin::new(JoinType::Inner, vec![(0, 0)])
            .batch_size(100)
            .execute(one(&l), one(&r))
            .unwrap();
        stream.map(|b| b.unwrap().num_rows()).sum::<usize>()
    });
    assert_eq!(rows, 5000);
}

#[test]
fn slices_of_one_batch_are_charged_for_the_rows_they_hold() {
    // 40,000 rows (about 320 KB of keys) given as 40 slices of one batch:
    // each slice points at the whole buffer, which must not be charged 40
    // times over.
    let k = batch(vec![(
        "k",
        i64s(&(0..40_000).map(Some).collect::<Vec<_>>()),
    )]);
    let slices = chunked(&k, 1000);
    let join = HashJoin::new(JoinType::Inner, vec![(0, 0)])
        .mode(HashJoinMode::Broadcast)
        .build_side(JoinSide::Right)
        .memory(MemoryBudget::new(4 << 20));
    let out = join.collect(one(&k), slices).unwrap();
    assert_eq!(out.iter().map(|b| b.num_rows()).sum::<usize>(), 40_000);
}

//! Property tests: the as-of join equals a naive oracle (for each left row,
//! scan every right row in input order and apply the rules) for the four
//! operators and the latest mode (with and without a time column), INNER
//! and LEFT, both modes, both filter timings with and without a filter,
//! tombstones, ties, NULL keys and times, NULL-equal keys, empty sides, no
//! keys (one group), Int64 / Utf8 / composite keys, Int64 / Timestamp(ms) /
//! Date32 / Decimal128(10,2) times, input batches of 1, 2, 7 and 8192 rows,
//! output batches of the same sizes, and 1 or 4 threads.

mod common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Int64Array, RecordBatch,
    StringArray, TimestampMillisecondArray, UInt32Array,
};
use proptest::prelude::*;
use tenon_kernels::{
    AsofJoin, AsofMode, CmpOp, FilterTiming, JoinFilter, JoinKernel, JoinType, RangeCondition,
};

use common::cases::chunked;

/// Cases per property. `PROPTEST_CASES` overrides it.
const CASES: u32 = 256;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    }
}

/// The equality keys of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// No `on`: one group.
    None,
    /// One Int64 key.
    Int,
    /// One Utf8 key.
    Str,
    /// (Int64, Utf8).
    Composite,
}

/// The type of both time columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeType {
    Int64,
    TimestampMs,
    Date32,
    Decimal,
}

/// How a version is picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Op(CmpOp),
    /// The largest right time.
    Latest,
    /// The last row in input order.
    LatestByOrder,
}

/// A left row: key parts, time, payload.
#[derive(Debug, Clone)]
struct LRow {
    k1: Option<u8>,
    k2: Option<u8>,
    t: Option<i8>,
    a: Option<i8>,
}

/// A right row: key parts, time, payload, tombstone.
#[derive(Debug, Clone)]
struct RRow {
    k1: Option<u8>,
    k2: Option<u8>,
    t: Option<i8>,
    b: Option<i8>,
    tomb: Option<bool>,
}

#[derive(Debug, Clone)]
struct Case {
    left: Vec<LRow>,
    right: Vec<RRow>,
    keys: Keys,
    time: TimeType,
    rule: Rule,
    join_type: JoinType,
    mode: AsofMode,
    partitions: Option<usize>,
    timing: FilterTiming,
    filter: bool,
    tombstones: bool,
    null_equal: bool,
    left_chunk: usize,
    right_chunk: usize,
    batch_size: usize,
    threads: usize,
    project: bool,
    via_stream: bool,
    /// `AsofJoin::small_left`: the kernel's choice, or a path forced.
    small_left: Option<bool>,
}

fn small() -> impl Strategy<Value = Option<u8>> {
    proptest::option::weighted(0.85, 0u8..3)
}

fn time() -> impl Strategy<Value = Option<i8>> {
    proptest::option::weighted(0.85, 0i8..8)
}

fn payload() -> impl Strategy<Value = Option<i8>> {
    proptest::option::weighted(0.9, -3i8..4)
}

fn sizes() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)]
}

fn case(max_rows: usize) -> impl Strategy<Value = Case> {
    let left = prop::collection::vec(
        (small(), small(), time(), payload()).prop_map(|(k1, k2, t, a)| LRow { k1, k2, t, a }),
        0..max_rows,
    );
    let right = prop::collection::vec(
        (
            small(),
            small(),
            time(),
            payload(),
            proptest::option::weighted(0.9, prop::bool::weighted(0.2)),
        )
            .prop_map(|(k1, k2, t, b, tomb)| RRow { k1, k2, t, b, tomb }),
        0..max_rows,
    );
    let keys = prop_oneof![
        Just(Keys::None),
        Just(Keys::Int),
        Just(Keys::Str),
        Just(Keys::Composite)
    ];
    let time_type = prop_oneof![
        Just(TimeType::Int64),
        Just(TimeType::TimestampMs),
        Just(TimeType::Date32),
        Just(TimeType::Decimal)
    ];
    let rule = prop_oneof![
        Just(Rule::Op(CmpOp::Ge)),
        Just(Rule::Op(CmpOp::Gt)),
        Just(Rule::Op(CmpOp::Le)),
        Just(Rule::Op(CmpOp::Lt)),
        Just(Rule::Latest),
        Just(Rule::LatestByOrder)
    ];
    let join = (
        prop_oneof![Just(JoinType::Inner), Just(JoinType::Left)],
        prop_oneof![Just(AsofMode::Broadcast), Just(AsofMode::Partitioned)],
        prop_oneof![Just(None), Just(Some(1usize)), Just(Some(2)), Just(Some(8))],
        prop_oneof![
            Just(FilterTiming::BeforeChoice),
            Just(FilterTiming::AfterChoice)
        ],
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.2),
    );
    let run = (
        sizes(),
        sizes(),
        sizes(),
        prop_oneof![Just(1usize), Just(4)],
        any::<bool>(),
        prop::bool::weighted(0.2),
    );
    (left, right, keys, time_type, rule, join, run).prop_map(
        |(left, right, keys, time, rule, j, r)| Case {
            left,
            right,
            keys,
            time,
            rule,
            join_type: j.0,
            mode: j.1,
            partitions: j.2,
            timing: j.3,
            filter: j.4,
            tombstones: j.5,
            null_equal: j.6,
            left_chunk: r.0,
            right_chunk: r.1,
            batch_size: r.2,
            threads: r.3,
            project: r.4,
            via_stream: r.5,
            small_left: None,
        },
    )
}

// ---- the inputs as Arrow ----------------------------------------------

fn key1(keys: Keys, v: &[Option<u8>]) -> ArrayRef {
    match keys {
        Keys::Str => Arc::new(
            v.iter()
                .map(|k| k.map(|k| format!("key {k}")))
                .collect::<StringArray>(),
        ),
        _ => Arc::new(v.iter().map(|k| k.map(i64::from)).collect::<Int64Array>()),
    }
}

fn key2(v: &[Option<u8>]) -> ArrayRef {
    Arc::new(
        v.iter()
            .map(|k| k.map(|k| format!("part {k}")))
            .collect::<StringArray>(),
    )
}

/// A time column; values map `t` monotonically (negative ones included).
fn times(tt: TimeType, v: &[Option<i8>]) -> ArrayRef {
    let image = |t: i8| i64::from(t) * 7 - 20;
    match tt {
        TimeType::Int64 => Arc::new(v.iter().map(|t| t.map(image)).collect::<Int64Array>()),
        TimeType::TimestampMs => Arc::new(
            v.iter()
                .map(|t| t.map(|t| image(t) * 1000))
                .collect::<TimestampMillisecondArray>()
                .with_timezone("UTC"),
        ),
        TimeType::Date32 => Arc::new(
            v.iter()
                .map(|t| t.map(|t| image(t) as i32))
                .collect::<Date32Array>(),
        ),
        TimeType::Decimal => Arc::new(
            v.iter()
                .map(|t| t.map(|t| i128::from(image(t)) * 100 + 25))
                .collect::<Decimal128Array>()
                .with_precision_and_scale(10, 2)
                .expect("a valid decimal type"),
        ),
    }
}

fn ints(v: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(v.collect::<Int64Array>())
}

/// Left columns: id, k1, k2, t, a.
fn left_batch(c: &Case) -> RecordBatch {
    let l = &c.left;
    let k1: Vec<_> = l.iter().map(|r| r.k1).collect();
    let k2: Vec<_> = l.iter().map(|r| r.k2).collect();
    let t: Vec<_> = l.iter().map(|r| r.t).collect();
    common::cases::batch(vec![
        ("lid", ints((0..l.len() as i64).map(Some))),
        ("lk1", key1(c.keys, &k1)),
        ("lk2", key2(&k2)),
        ("lt", times(c.time, &t)),
        ("a", ints(l.iter().map(|r| r.a.map(i64::from)))),
    ])
}

/// Right columns: id, k1, k2, t, b, tomb.
fn right_batch(c: &Case) -> RecordBatch {
    let r = &c.right;
    let k1: Vec<_> = r.iter().map(|r| r.k1).collect();
    let k2: Vec<_> = r.iter().map(|r| r.k2).collect();
    let t: Vec<_> = r.iter().map(|r| r.t).collect();
    common::cases::batch(vec![
        ("rid", ints((0..r.len() as i64).map(Some))),
        ("rk1", key1(c.keys, &k1)),
        ("rk2", key2(&k2)),
        ("rt", times(c.time, &t)),
        ("b", ints(r.iter().map(|r| r.b.map(i64::from)))),
        (
            "tomb",
            Arc::new(r.iter().map(|r| r.tomb).collect::<BooleanArray>()) as ArrayRef,
        ),
    ])
}

/// The kernel's filter: `left.a + right.b` is even (NULL: no).
fn even_sum() -> Arc<dyn JoinFilter> {
    let f = |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
        let a = l.column(4).as_primitive::<Int64Type>();
        let b = r.column(4).as_primitive::<Int64Type>();
        Ok(li
            .values()
            .iter()
            .zip(ri.values())
            .map(|(&i, &j)| {
                let (i, j) = (i as usize, j as usize);
                (a.is_valid(i) && b.is_valid(j)).then(|| (a.value(i) + b.value(j)) % 2 == 0)
            })
            .collect::<BooleanArray>())
    };
    Arc::new(f)
}

// ---- the oracle -----------------------------------------------------------

fn part_eq(a: Option<u8>, b: Option<u8>, null_equal: bool) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x == y,
        (None, None) => null_equal,
        _ => false,
    }
}

/// For each left row, its right row (or none), by the rules as written.
fn oracle(c: &Case) -> Vec<(i64, Option<i64>)> {
    let mut out = Vec::new();
    for (li, l) in c.left.iter().enumerate() {
        let keys_match = |r: &RRow| match c.keys {
            Keys::None => true,
            Keys::Int | Keys::Str => part_eq(l.k1, r.k1, c.null_equal),
            Keys::Composite => {
                part_eq(l.k1, r.k1, c.null_equal) && part_eq(l.k2, r.k2, c.null_equal)
            }
        };
        let time_ok = |r: &RRow| match c.rule {
            Rule::Op(op) => matches!((l.t, r.t), (Some(x), Some(y)) if op.holds(x, y)),
            Rule::Latest => r.t.is_some(),
            Rule::LatestByOrder => true,
        };
        let tomb = |r: &RRow| c.tombstones && r.tomb == Some(true);
        let passes = |r: &RRow| {
            !c.filter || matches!((l.a, r.b), (Some(a), Some(b)) if (a as i64 + b as i64) % 2 == 0)
        };
        let mut cands: Vec<(usize, &RRow)> = c
            .right
            .iter()
            .enumerate()
            .filter(|(_, r)| keys_match(r) && time_ok(r))
            .collect();
        if c.timing == FilterTiming::BeforeChoice {
            cands.retain(|(_, r)| tomb(r) || passes(r));
        }
        let best = match c.rule {
            Rule::Op(CmpOp::Ge | CmpOp::Gt) | Rule::Latest => newest(&cands),
            Rule::Op(CmpOp::Le | CmpOp::Lt) => {
                let best = cands.iter().map(|(_, r)| r.t).min();
                best.and_then(|b| cands.iter().find(|(_, r)| r.t == b).copied())
            }
            Rule::LatestByOrder => cands.last().copied(),
        };
        let chosen = best
            .filter(|(_, r)| !tomb(r))
            .filter(|(_, r)| passes(r))
            .map(|(i, _)| i as i64);
        if chosen.is_some() || c.join_type == JoinType::Left {
            out.push((li as i64, chosen));
        }
    }
    out.sort();
    out
}

/// The candidate with the largest time, the last of its ties.
fn newest<'a>(cands: &[(usize, &'a RRow)]) -> Option<(usize, &'a RRow)> {
    let best = cands.iter().map(|(_, r)| r.t).max()?;
    cands.iter().rev().find(|(_, r)| r.t == best).copied()
}

// ---- the kernel -----------------------------------------------------------

fn kernel(c: &Case) -> AsofJoin {
    let on = match c.keys {
        Keys::None => vec![],
        Keys::Int | Keys::Str => vec![(1, 1)],
        Keys::Composite => vec![(1, 1), (2, 2)],
    };
    let mut join = match c.rule {
        Rule::Op(op) => AsofJoin::new(c.join_type, on, RangeCondition::new(3, op, 3)),
        Rule::Latest => AsofJoin::latest(c.join_type, on, Some(3)),
        Rule::LatestByOrder => AsofJoin::latest(c.join_type, on, None),
    }
    .mode(c.mode)
    .filter_timing(c.timing)
    .tombstone(c.tombstones.then_some(5))
    .null_equal(c.null_equal)
    .batch_size(c.batch_size)
    .threads(c.threads)
    .small_left(c.small_left);
    if let Some(p) = c.partitions {
        join = join.partitions(p);
    }
    if c.filter {
        join = join.filter(even_sum());
    }
    if c.project {
        join = join.projection(Some(vec![0]), Some(vec![0]));
    }
    join
}

fn run(c: &Case) -> Result<Vec<(i64, Option<i64>)>, String> {
    let (l, r) = (left_batch(c), right_batch(c));
    let join = kernel(c);
    let (left, right) = (chunked(&l, c.left_chunk), chunked(&r, c.right_chunk));
    let batches = if c.via_stream {
        join.execute(left, right)
            .and_then(|s| s.collect::<Result<Vec<_>, _>>())
    } else {
        join.collect(left, right)
    }
    .map_err(|e| format!("the kernel failed: {e}"))?;
    let (lid, rid) = if c.project { (0, 1) } else { (0, 5) };
    let want = join
        .output_schema(&l.schema(), &r.schema())
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for b in &batches {
        if b.num_rows() > c.batch_size {
            return Err(format!(
                "a batch of {} rows, batch size {}",
                b.num_rows(),
                c.batch_size
            ));
        }
        if b.schema() != want {
            return Err(format!("batch schema {:?}, expected {want:?}", b.schema()));
        }
        let (l, r) = (
            b.column(lid).as_primitive::<Int64Type>(),
            b.column(rid).as_primitive::<Int64Type>(),
        );
        for i in 0..b.num_rows() {
            out.push((l.value(i), r.is_valid(i).then(|| r.value(i))));
        }
    }
    out.sort();
    Ok(out)
}

/// The kernel's choice, the small-left path forced, and forbidden.
const PATHS: [Option<bool>; 3] = [None, Some(true), Some(false)];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn asof_join_equals_the_oracle(c in case(24)) {
        let want = oracle(&c);
        for path in PATHS {
            let c = Case { small_left: path, ..c.clone() };
            let got = run(&c).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&got, &want, "small_left {:?}", path);
        }
    }

    /// A left side at most an eighth of the right: the kernel's own choice
    /// is the small-left path (unless a filter comes before the choice).
    #[test]
    fn a_small_left_side_equals_the_oracle(c in case(200), keep in 0usize..25) {
        let mut c = c;
        c.left.truncate(keep.min(c.right.len() / 8));
        let want = oracle(&c);
        for path in PATHS {
            let c = Case { small_left: path, ..c.clone() };
            let got = run(&c).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&got, &want, "small_left {:?}", path);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: config().cases / 8, ..config() })]

    /// Groups large enough to be searched through their fences (more than
    /// 32 versions), starting anywhere in the grouped versions.
    #[test]
    fn large_groups_equal_the_oracle(c in case(300)) {
        let want = oracle(&c);
        for path in PATHS {
            let c = Case { small_left: path, ..c.clone() };
            let got = run(&c).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&got, &want, "small_left {:?}", path);
        }
    }
}

/// A larger case with many versions per key and both modes: the rows of
/// the partitioned mode (many partitions), the broadcast mode and the
/// oracle agree (and the test runs a walk of many filter rounds).
#[test]
fn many_versions_per_key_agree_across_modes() {
    let left: Vec<LRow> = (0..400)
        .map(|i: i32| LRow {
            k1: Some((i % 5) as u8),
            k2: Some((i % 3) as u8),
            t: Some((i * 7 % 8) as i8),
            a: Some((i % 4) as i8 - 2),
        })
        .collect();
    let right: Vec<RRow> = (0..600)
        .map(|i: i32| RRow {
            k1: Some((i % 5) as u8),
            k2: Some((i % 3) as u8),
            t: Some((i * 5 % 8) as i8),
            b: Some(if i % 17 == 0 { 1 } else { 0 }),
            tomb: Some(i % 41 == 0),
        })
        .collect();
    for (mode, small_left) in [
        (AsofMode::Broadcast, Some(false)),
        (AsofMode::Partitioned, Some(false)),
        (AsofMode::Broadcast, Some(true)),
    ] {
        for rule in [Rule::Op(CmpOp::Ge), Rule::Op(CmpOp::Lt), Rule::Latest] {
            for timing in [FilterTiming::BeforeChoice, FilterTiming::AfterChoice] {
                let c = Case {
                    left: left.clone(),
                    right: right.clone(),
                    keys: Keys::Composite,
                    time: TimeType::Int64,
                    rule,
                    join_type: JoinType::Left,
                    mode,
                    partitions: Some(16),
                    timing,
                    filter: true,
                    tombstones: true,
                    null_equal: false,
                    left_chunk: 7,
                    right_chunk: 64,
                    batch_size: 100,
                    threads: 4,
                    project: false,
                    via_stream: false,
                    small_left,
                };
                assert_eq!(
                    run(&c).unwrap(),
                    oracle(&c),
                    "{mode:?} {small_left:?} {rule:?} {timing:?}"
                );
            }
        }
    }
}

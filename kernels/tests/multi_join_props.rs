//! Property tests: the multi-way join equals a naive oracle (the chain of
//! binary joins, each a nested loop over the combinations so far) for 2 to
//! 4 inputs, INNER and LEFT steps referring to any earlier inputs, NULL
//! keys, duplicate (skewed) keys, empty inputs, Int64 / Utf8 / composite
//! keys, input batches of 1, 2, 7 and 8192 rows, output batches of the
//! same sizes, and 1 or 4 threads.

use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proptest::prelude::*;
use rayon::prelude::*;
use tenon_kernels::{JoinType, MemoryBudget, MultiJoin, MultiJoinStep};

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

/// The key columns of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    Int,
    Str,
    Composite,
}

/// One row: two key parts (the second used by composite keys) and a
/// payload naming the row.
type Row = (Option<u8>, Option<u8>);

#[derive(Debug, Clone)]
struct Case {
    keys: Keys,
    inputs: Vec<Vec<Row>>,
    /// Per input after the first: LEFT?, and the earlier inputs referred to
    /// (a bit set, never empty).
    steps: Vec<(bool, u8)>,
    chunk: usize,
    out_batch: usize,
    threads: usize,
}

fn key_of(keys: Keys, r: &Row) -> Option<(u8, u8)> {
    match keys {
        Keys::Int | Keys::Str => r.0.map(|k| (k, 0)),
        Keys::Composite => Some((r.0?, r.1?)),
    }
}

fn batch(keys: Keys, rows: &[Row], input: usize) -> RecordBatch {
    let payload: ArrayRef = Arc::new(Int64Array::from(
        (0..rows.len())
            .map(|i| (input * 1000 + i) as i64)
            .collect::<Vec<_>>(),
    ));
    let k1: ArrayRef = match keys {
        Keys::Int | Keys::Composite => Arc::new(Int64Array::from(
            rows.iter().map(|r| r.0.map(i64::from)).collect::<Vec<_>>(),
        )),
        Keys::Str => Arc::new(StringArray::from(
            rows.iter()
                .map(|r| r.0.map(|k| format!("key-{k}")))
                .collect::<Vec<_>>(),
        )),
    };
    let k2: ArrayRef = Arc::new(StringArray::from(
        rows.iter()
            .map(|r| r.1.map(|k| k.to_string()))
            .collect::<Vec<_>>(),
    ));
    RecordBatch::try_new(schema(keys), vec![payload, k1, k2]).unwrap()
}

fn schema(keys: Keys) -> SchemaRef {
    let k1 = match keys {
        Keys::Int | Keys::Composite => DataType::Int64,
        Keys::Str => DataType::Utf8,
    };
    Arc::new(Schema::new(vec![
        Field::new("payload", DataType::Int64, false),
        Field::new("k1", k1, true),
        Field::new("k2", DataType::Utf8, true),
    ]))
}

fn refers(bits: u8, before: usize) -> Vec<usize> {
    let r: Vec<usize> = (0..before).filter(|&i| bits & (1 << i) != 0).collect();
    if r.is_empty() { vec![before - 1] } else { r }
}

/// The chain of binary joins, each a nested loop: every output row as the
/// payloads of its inputs' rows (`None`: NULLs of a LEFT step).
fn oracle(case: &Case) -> Vec<Vec<Option<i64>>> {
    let mut combos: Vec<Vec<Option<usize>>> =
        (0..case.inputs[0].len()).map(|r| vec![Some(r)]).collect();
    for (s, &(left, bits)) in case.steps.iter().enumerate() {
        let i = s + 1;
        let refs = refers(bits, i);
        let mut next = Vec::new();
        for combo in combos {
            let mut matched = false;
            for (r, row) in case.inputs[i].iter().enumerate() {
                let k = key_of(case.keys, row);
                let all = refs.iter().all(|&e| {
                    let other = combo[e].map(|x| key_of(case.keys, &case.inputs[e][x]));
                    matches!((other, k), (Some(Some(a)), Some(b)) if a == b)
                });
                if all {
                    matched = true;
                    let mut c = combo.clone();
                    c.push(Some(r));
                    next.push(c);
                }
            }
            if !matched && left {
                let mut c = combo.clone();
                c.push(None);
                next.push(c);
            }
        }
        combos = next;
    }
    let mut out: Vec<Vec<Option<i64>>> = combos
        .into_iter()
        .map(|c| {
            c.iter()
                .enumerate()
                .map(|(i, r)| r.map(|r| (i * 1000 + r) as i64))
                .collect()
        })
        .collect();
    out.sort();
    out
}

fn run(case: &Case) -> Vec<Vec<Option<i64>>> {
    let n = case.inputs.len();
    let key_cols = match case.keys {
        Keys::Int | Keys::Str => vec![1],
        Keys::Composite => vec![1, 2],
    };
    let steps = case
        .steps
        .iter()
        .enumerate()
        .map(|(s, &(left, bits))| {
            let t = if left {
                JoinType::Left
            } else {
                JoinType::Inner
            };
            MultiJoinStep::new(t, refers(bits, s + 1))
        })
        .collect();
    let join = MultiJoin::new(vec![key_cols; n], steps)
        .unwrap()
        .projections(vec![vec![0]; n])
        .batch_size(case.out_batch);
    let schemas = vec![schema(case.keys); n];
    let chunks = |b: RecordBatch| -> Vec<RecordBatch> {
        (0..b.num_rows())
            .step_by(case.chunk)
            .map(|at| b.slice(at, case.chunk.min(b.num_rows() - at)))
            .collect()
    };
    let built: Vec<Vec<RecordBatch>> = (1..n)
        .map(|i| chunks(batch(case.keys, &case.inputs[i], i)))
        .collect();
    let probe = chunks(batch(case.keys, &case.inputs[0], 0));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(case.threads)
        .build()
        .unwrap();
    let out = Mutex::new(Vec::new());
    pool.install(|| {
        let tables = join
            .build(&schemas, built, &MemoryBudget::unlimited())
            .unwrap();
        probe.par_iter().for_each(|b| {
            tables
                .probe(b, &mut |o| {
                    assert!(o.num_rows() <= case.out_batch && o.num_rows() > 0);
                    out.lock().unwrap().push(o);
                    Ok(())
                })
                .unwrap();
        });
    });
    let mut rows = Vec::new();
    for b in out.into_inner().unwrap() {
        for r in 0..b.num_rows() {
            rows.push(
                (0..n)
                    .map(|c| {
                        let col = b.column(c).as_primitive::<Int64Type>();
                        col.is_valid(r).then(|| col.value(r))
                    })
                    .collect(),
            );
        }
    }
    rows.sort();
    rows
}

fn case() -> impl Strategy<Value = Case> {
    let key = prop_oneof![3 => (0u8..4).prop_map(Some), 1 => Just(None)];
    let row = (key.clone(), key);
    let input = prop::collection::vec(row, 0..12);
    (
        prop_oneof![Just(Keys::Int), Just(Keys::Str), Just(Keys::Composite)],
        prop::collection::vec(input, 2..5),
        prop::collection::vec((any::<bool>(), any::<u8>()), 3),
        prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
        prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
        prop_oneof![Just(1usize), Just(4)],
    )
        .prop_map(|(keys, inputs, steps, chunk, out_batch, threads)| Case {
            steps: steps[..inputs.len() - 1].to_vec(),
            keys,
            inputs,
            chunk,
            out_batch,
            threads,
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn multi_join_equals_the_chain_of_binary_joins(case in case()) {
        prop_assert_eq!(run(&case), oracle(&case), "{:?}", case);
    }
}

#[test]
fn a_key_with_many_combinations_streams_in_batches() {
    // one key, 40 x 40 x 40 rows: 64,000 output rows in batches of 1000
    let case = Case {
        keys: Keys::Int,
        inputs: vec![vec![(Some(1), None); 40]; 3],
        steps: vec![(false, 1), (false, 2)],
        chunk: 8192,
        out_batch: 1000,
        threads: 4,
    };
    let out = run(&case);
    assert_eq!(out.len(), 64_000);
    assert_eq!(out, oracle(&case));
}

#[test]
fn keys_of_different_types_are_refused() {
    let join = MultiJoin::new(
        vec![vec![1], vec![1]],
        vec![MultiJoinStep::new(JoinType::Inner, vec![0])],
    )
    .unwrap();
    let e = join
        .build(
            &[schema(Keys::Int), schema(Keys::Str)],
            vec![vec![]],
            &MemoryBudget::unlimited(),
        )
        .unwrap_err();
    assert!(e.to_string().contains("Utf8"), "{e}");
}

#[test]
fn steps_must_be_inner_or_left_and_refer_backwards() {
    let keys = vec![vec![0], vec![0], vec![0]];
    let full = vec![
        MultiJoinStep::new(JoinType::Inner, vec![0]),
        MultiJoinStep::new(JoinType::Full, vec![1]),
    ];
    assert!(MultiJoin::new(keys.clone(), full).is_err());
    let forward = vec![
        MultiJoinStep::new(JoinType::Inner, vec![1]),
        MultiJoinStep::new(JoinType::Inner, vec![1]),
    ];
    assert!(MultiJoin::new(keys.clone(), forward).is_err());
    assert!(MultiJoin::new(keys, vec![]).is_err());
}

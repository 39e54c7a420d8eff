//! Helpers of the hand-written hash join cases (`cases_*.rs`): building
//! small inputs, running a join in every way it can run ([`variants`]: both
//! modes, both build sides, partition and thread counts, batch sizes,
//! `collect` and `execute`), and asserting on the rows or errors of all of
//! them.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use tenon_kernels::{
    HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinSide, JoinType, KernelError,
};

use super::reference::RefJoin;
use super::{Row, Value, check_batches, multiset_diff, run_kernel};

/// A nullable Int64 column.
pub fn i64s(v: &[Option<i64>]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}

/// A nullable Utf8 column.
pub fn strs(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

/// A batch of nullable columns.
pub fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter_with_nullable(cols.into_iter().map(|(n, a)| (n, a, true)))
        .expect("a valid batch")
}

/// `batch` split into batches of `chunk` rows (slices).
pub fn chunked(batch: &RecordBatch, chunk: usize) -> JoinInput {
    let parts = (0..batch.num_rows())
        .step_by(chunk)
        .map(|at| batch.slice(at, chunk.min(batch.num_rows() - at)))
        .collect();
    JoinInput::new(batch.schema(), parts)
}

/// `batch` as an input of one batch.
pub fn one(batch: &RecordBatch) -> JoinInput {
    JoinInput::from_batch(batch.clone())
}

/// One way of running a join.
pub struct Variant {
    /// What the variant is, for failure messages.
    pub desc: String,
    /// The join, configured.
    pub join: HashJoin,
    /// Its batch size (the bound output batches are checked against).
    pub batch_size: usize,
    /// Whether to read the output through `execute` rather than `collect`.
    pub via_stream: bool,
}

/// `base` in both modes, with both build sides, default and forced
/// partition counts, one and four threads, large and tiny batches, through
/// `collect` and `execute`.
pub fn variants(base: &HashJoin) -> Vec<Variant> {
    let mut out = Vec::new();
    for mode in [HashJoinMode::Broadcast, HashJoinMode::Partitioned] {
        for build in [JoinSide::Left, JoinSide::Right] {
            let parts: &[Option<usize>] = match mode {
                HashJoinMode::Broadcast => &[None],
                HashJoinMode::Partitioned => &[None, Some(4)],
            };
            for &p in parts {
                for (threads, batch_size) in [(1, 8192), (4, 3)] {
                    let via_stream = threads == 4;
                    let mut join = base
                        .clone()
                        .mode(mode)
                        .build_side(build)
                        .threads(threads)
                        .batch_size(batch_size);
                    if let Some(p) = p {
                        join = join.partitions(p);
                    }
                    out.push(Variant {
                        desc: format!(
                            "{mode:?} build={build:?} partitions={p:?} threads={threads} \
                             batch_size={batch_size} stream={via_stream}"
                        ),
                        join,
                        batch_size,
                        via_stream,
                    });
                }
            }
        }
    }
    out
}

/// Runs one variant, checks its batches against `schema` and the batch
/// size, and returns its rows; a panic or error fails the test with the
/// variant's description.
pub fn run_variant(
    v: &Variant,
    left: &JoinInput,
    right: &JoinInput,
    schema: &[(String, DataType, bool)],
) -> Vec<Row> {
    super::quiet_worker_panics();
    let res = catch_unwind(AssertUnwindSafe(|| {
        run_kernel(&v.join, left, right, v.via_stream)
    }));
    let batches = match res {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => panic!("{}: unexpected error: {e}", v.desc),
        Err(p) => panic!(
            "{}: the kernel panicked: {} (last worker panic: {})",
            v.desc,
            super::panic_text(p.as_ref()),
            super::last_worker_panic()
        ),
    };
    check_batches(&batches, schema, v.batch_size).unwrap_or_else(|e| panic!("{}: {e}", v.desc))
}

/// The output schema the oracle expects.
pub fn ref_schema(
    jt: JoinType,
    left: &JoinInput,
    right: &JoinInput,
    proj: (Option<&[usize]>, Option<&[usize]>),
) -> Vec<(String, DataType, bool)> {
    RefJoin {
        left_projection: proj.0,
        right_projection: proj.1,
        ..RefJoin::new(jt, &[(0, 0)])
    }
    .schema(left.schema(), right.schema())
}

/// Asserts that every variant of `base` outputs exactly `expected`.
pub fn assert_rows_all_ways(
    base: &HashJoin,
    jt: JoinType,
    left: &JoinInput,
    right: &JoinInput,
    expected: &[Row],
) {
    let schema = ref_schema(jt, left, right, (None, None));
    for v in variants(base) {
        let rows = run_variant(&v, left, right, &schema);
        let diff = multiset_diff(&rows, expected);
        assert!(diff.is_empty(), "{jt} {}: {diff}", v.desc);
    }
}

/// Asserts that every variant of `base` outputs what the oracle does.
pub fn assert_matches_oracle(
    base: &HashJoin,
    oracle: RefJoin<'_>,
    left: &JoinInput,
    right: &JoinInput,
) -> Vec<Row> {
    let lrows = super::all_rows(left.batches());
    let rrows = super::all_rows(right.batches());
    let widths = (left.schema().fields().len(), right.schema().fields().len());
    let expected = oracle.run(&lrows, &rrows, widths);
    let schema = oracle.schema(left.schema(), right.schema());
    for v in variants(base) {
        let rows = run_variant(&v, left, right, &schema);
        let diff = multiset_diff(&rows, &expected);
        assert!(diff.is_empty(), "{} {}: {diff}", oracle.join_type, v.desc);
    }
    expected
}

/// A row written out by hand.
pub fn row(v: &[Value]) -> Row {
    v.to_vec()
}

/// The error of every variant of `base` (which must fail), via `collect`
/// and via `execute`.
pub fn errors_all_ways(base: &HashJoin, left: &JoinInput, right: &JoinInput) -> Vec<KernelError> {
    super::quiet_worker_panics();
    let mut out = Vec::new();
    for v in variants(base) {
        for via_stream in [false, true] {
            let res = catch_unwind(AssertUnwindSafe(|| {
                run_kernel(&v.join, left, right, via_stream)
            }));
            match res {
                Ok(Err(e)) => out.push(e),
                Ok(Ok(b)) => panic!("{}: expected an error, got {} batches", v.desc, b.len()),
                Err(p) => panic!(
                    "{} stream={via_stream}: panicked instead of returning an error: {} \
                     (last worker panic: {})",
                    v.desc,
                    super::panic_text(p.as_ref()),
                    super::last_worker_panic()
                ),
            }
        }
    }
    out
}

/// A batch of one nullable Int64 key column `k`.
pub fn keys(v: &[Option<i64>]) -> RecordBatch {
    batch(vec![("k", i64s(v))])
}

//! Runners of the sort-merge join's hand-written cases: every variant of a
//! join (threads, batch sizes, partition counts, `collect` and `execute`)
//! against the oracle, over every join type.

use std::panic::{AssertUnwindSafe, catch_unwind};

use arrow_array::RecordBatch;
use tenon_kernels::{JoinInput, JoinKernel, JoinType, KernelError, SortMergeJoin};

use super::reference::RefJoin;
use super::{Row, all_rows, check_batches, less_than_filter, less_than_rows, multiset_diff};

/// One way of running a join.
pub struct Variant {
    pub desc: String,
    pub join: SortMergeJoin,
    pub batch_size: usize,
    pub via_stream: bool,
}

/// `base` with one and four threads, large and tiny batches, default and
/// forced partition counts, through `collect` and `execute`.
pub fn variants(base: &SortMergeJoin) -> Vec<Variant> {
    let mut out = Vec::new();
    for partitions in [None, Some(1), Some(4)] {
        for (threads, batch_size, via_stream) in [(1, 8192, false), (4, 3, true), (4, 1, false)] {
            let mut join = base.clone().threads(threads).batch_size(batch_size);
            if let Some(p) = partitions {
                join = join.partitions(p);
            }
            out.push(Variant {
                desc: format!(
                    "partitions={partitions:?} threads={threads} batch_size={batch_size} \
                     stream={via_stream}"
                ),
                join,
                batch_size,
                via_stream,
            });
        }
    }
    out
}

pub fn run(
    join: &SortMergeJoin,
    left: &JoinInput,
    right: &JoinInput,
    via_stream: bool,
) -> Result<Vec<RecordBatch>, KernelError> {
    super::quiet_worker_panics();
    let res = catch_unwind(AssertUnwindSafe(|| {
        if via_stream {
            join.execute(left.clone(), right.clone())?.collect()
        } else {
            join.collect(left.clone(), right.clone())
        }
    }));
    res.unwrap_or_else(|p| {
        panic!(
            "the kernel panicked: {} (last worker panic: {})",
            super::panic_text(p.as_ref()),
            super::last_worker_panic()
        )
    })
}

/// Asserts that every variant of `base` outputs what the oracle does.
pub fn assert_matches_oracle(
    base: &SortMergeJoin,
    oracle: &RefJoin<'_>,
    left: &JoinInput,
    right: &JoinInput,
) -> Vec<Row> {
    let (lrows, rrows) = (all_rows(left.batches()), all_rows(right.batches()));
    let widths = (left.schema().fields().len(), right.schema().fields().len());
    let expected = oracle.run_indexed(&lrows, &rrows, widths);
    let schema = oracle.schema(left.schema(), right.schema());
    for v in variants(base) {
        let batches = run(&v.join, left, right, v.via_stream)
            .unwrap_or_else(|e| panic!("{} {}: {e}", oracle.join_type, v.desc));
        let rows = check_batches(&batches, &schema, v.batch_size)
            .unwrap_or_else(|e| panic!("{} {}: {e}", oracle.join_type, v.desc));
        let diff = multiset_diff(&rows, &expected);
        assert!(diff.is_empty(), "{} {}: {diff}", oracle.join_type, v.desc);
    }
    expected
}

/// Every join type of `on`, null-equal off and on, with and without the
/// filter `left[lp] < right[rp]` when given, against the oracle.
pub fn all_types_match_oracle(
    left: &JoinInput,
    right: &JoinInput,
    on: &[(usize, usize)],
    filter: Option<(usize, usize)>,
    presorted: (bool, bool),
) {
    let f = filter.map(|(l, r)| less_than_rows(l, r));
    for jt in JoinType::ALL {
        for null_equal in [false, true] {
            for filtered in [false, true] {
                if filtered && f.is_none() {
                    continue;
                }
                let oracle = RefJoin {
                    null_equal,
                    filter: if filtered {
                        f.as_ref().map(|f| f as _)
                    } else {
                        None
                    },
                    ..RefJoin::new(jt, on)
                };
                let mut join = SortMergeJoin::new(jt, on.to_vec())
                    .null_equal(null_equal)
                    .presorted(presorted.0, presorted.1);
                if filtered && let Some((l, r)) = filter {
                    join = join.filter(less_than_filter(l, r));
                }
                if !oracle.is_valid() {
                    let err = run(&join, left, right, false).unwrap_err();
                    assert!(matches!(err, KernelError::InvalidOptions(_)), "{err}");
                    continue;
                }
                assert_matches_oracle(&join, &oracle, left, right);
            }
        }
    }
}

//! The expansion workloads of `tenon bench`: not a join of two tables but
//! each row joined with the elements of its own array (`UNNEST`, issue 18).
//!
//! | workload | query | measured |
//! |---|---|---|
//! | unnest | `SELECT count(*), sum(x), sum(pos) FROM t CROSS JOIN UNNEST(t.arr) WITH ORDINALITY AS u(x, pos)` | count + sums |
//! | unnest_left | the same with `LEFT JOIN UNNEST(...) ... ON TRUE` (a NULL or empty array kept once, `x` and `pos` NULL) | count + sums |
//!
//! `t` is [`tenon_datasets::arrays`]: 10M rows at scale 1.0 of arrays of 0
//! to 10 BIGINTs, one in 20 NULL, the data of `benches/peers/unnest.py`.
//! There is one way to run an expansion (the kernel's, [`UNNEST`]), so
//! there is no strategy to choose and no regret: the planner's choice is
//! that one. It runs as the executor runs it: the input's batches in
//! parallel (each worker expanding whole batches), the output in batches of
//! at most the batch size, `id` not carried (the query does not use it).

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use rayon::prelude::*;
use tenon_datasets::{ARRAYS_FULL_ROWS, arrays, split_batches};
use tenon_kernels::{Collection, Expand, KernelError};

use crate::measure::{JoinSummary, sum_column};

/// The name `tenon bench` gives the expansion kernel in its strategy
/// column (and `--strategies` takes).
pub const UNNEST: &str = "UNNEST";

/// An expansion workload (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Expansion {
    /// `CROSS JOIN UNNEST(t.arr) WITH ORDINALITY`.
    Unnest,
    /// `LEFT JOIN UNNEST(t.arr) WITH ORDINALITY ... ON TRUE`.
    UnnestLeft,
}

impl Expansion {
    /// Both, in report order.
    pub const ALL: [Expansion; 2] = [Expansion::Unnest, Expansion::UnnestLeft];

    /// `unnest` or `unnest_left`.
    pub fn name(self) -> &'static str {
        match self {
            Expansion::Unnest => "unnest",
            Expansion::UnnestLeft => "unnest_left",
        }
    }

    /// The workload called `name` (exact match of [`Expansion::name`]).
    pub fn from_name(name: &str) -> Option<Expansion> {
        Expansion::ALL.into_iter().find(|e| e.name() == name)
    }

    /// A one-line description at scale 1.0.
    pub fn description(self) -> &'static str {
        match self {
            Expansion::Unnest => {
                "10M rows of arrays of 0-10 BIGINTs (1 in 20 NULL) unnested WITH ORDINALITY: ~47.5M rows"
            }
            Expansion::UnnestLeft => {
                "the same LEFT JOIN UNNEST ... ON TRUE: a NULL or empty array kept once, ~48.9M rows"
            }
        }
    }

    /// The workload's query over table `t` (what the measurement computes).
    pub fn sql(self) -> &'static str {
        match self {
            Expansion::Unnest => {
                "SELECT count(*), sum(x), sum(pos) FROM t CROSS JOIN UNNEST(t.arr) WITH ORDINALITY \
                 AS u(x, pos)"
            }
            Expansion::UnnestLeft => {
                "SELECT count(*), sum(x), sum(pos) FROM t LEFT JOIN UNNEST(t.arr) WITH ORDINALITY \
                 AS u(x, pos) ON TRUE"
            }
        }
    }

    fn outer(self) -> bool {
        self == Expansion::UnnestLeft
    }
}

/// One expansion workload's input, ready to expand.
#[derive(Debug, Clone)]
pub struct ExpansionInputs {
    /// The workload.
    pub expansion: Expansion,
    /// Table `t` in batches.
    pub batches: Vec<RecordBatch>,
    /// The output batch size.
    pub batch_size: usize,
}

impl ExpansionInputs {
    /// The rows of `t`.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// `expansion`'s input at `scale` (of 10M rows, at least 1) and `seed`,
/// in batches of `batch_size` rows.
///
/// # Panics
///
/// When `batch_size` is 0.
pub fn expansion_inputs(
    expansion: Expansion,
    scale: f64,
    seed: u64,
    batch_size: usize,
) -> ExpansionInputs {
    let rows = ((ARRAYS_FULL_ROWS as f64 * scale).round() as usize).max(1);
    ExpansionInputs {
        expansion,
        batches: split_batches(&arrays(rows, seed), batch_size),
        batch_size,
    }
}

/// [`measure_expansion`] under a name of its own, never inlined, for
/// `tenon bench --measure instructions` (its pattern matches this name
/// too: see `callgrind_measured_region`).
///
/// # Errors
///
/// As [`measure_expansion`].
#[inline(never)]
pub fn callgrind_measured_region_of_expansion(
    inputs: &ExpansionInputs,
) -> Result<JoinSummary, KernelError> {
    measure_expansion(inputs)
}

/// Runs the workload: every batch of `t` expanded (in parallel on the
/// current rayon pool), its output counted and summed. The summary's
/// `left_sum` is `sum(x)` and `right_sum` is `sum(pos)` (NULLs add 0).
///
/// # Errors
///
/// The kernel's.
pub fn measure_expansion(inputs: &ExpansionInputs) -> Result<JoinSummary, KernelError> {
    let rows = AtomicU64::new(0);
    let (xs, positions) = (AtomicI64::new(0), AtomicI64::new(0));
    let expand = Expand::new(inputs.expansion.outer(), true);
    let schema = Arc::new(Schema::new(vec![
        Field::new("x", DataType::Int64, true),
        Field::new("pos", DataType::Int64, true),
    ]));
    inputs.batches.par_iter().try_for_each(|b| {
        let arr = Collection::new(ArrayRef::clone(b.column(1)))?;
        expand.run(&[], &[arr], inputs.batch_size, &mut |cols| {
            let out = RecordBatch::try_new(Arc::clone(&schema), cols)?;
            rows.fetch_add(out.num_rows() as u64, Ordering::Relaxed);
            xs.fetch_add(sum_column(&out, 0), Ordering::Relaxed);
            positions.fetch_add(sum_column(&out, 1), Ordering::Relaxed);
            Ok(())
        })
    })?;
    Ok(JoinSummary {
        rows: rows.into_inner(),
        left_sum: xs.into_inner(),
        right_sum: positions.into_inner(),
    })
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;

    use super::*;
    use crate::{Config, Session};

    /// The bench's measurement equals the SQL query through a session, and
    /// a naive count over the arrays, at batch sizes that split rows'
    /// elements across output batches.
    #[test]
    fn the_measurement_is_the_query() {
        for e in Expansion::ALL {
            let inputs = expansion_inputs(e, 0.0003, 5, 7);
            let got = measure_expansion(&inputs).unwrap();
            let mut session = Session::new(Config::default()).unwrap();
            let t = arrays(inputs.num_rows(), 5);
            // the naive count: each row's length (1 for an empty or NULL
            // row in LEFT)
            let arr = t.column(1).as_list::<i32>();
            let naive: u64 = (0..arr.len())
                .map(|r| {
                    let n = if arr.is_null(r) {
                        0
                    } else {
                        arr.value_length(r) as u64
                    };
                    if e.outer() { n.max(1) } else { n }
                })
                .sum();
            assert_eq!(got.rows, naive, "{e:?}");
            session.register_batch("t", t).unwrap();
            let out = session.collect(e.sql()).unwrap();
            let row = &out[0];
            let col = |i: usize| row.column(i).as_primitive::<Int64Type>().value(0);
            assert_eq!(
                (got.rows as i64, got.left_sum, got.right_sum),
                (col(0), col(1), col(2)),
                "{e:?}"
            );
        }
    }

    #[test]
    fn names_round_trip() {
        for e in Expansion::ALL {
            assert_eq!(Expansion::from_name(e.name()), Some(e));
            assert!(!e.description().is_empty());
        }
        assert_eq!(Expansion::from_name("fk_small"), None);
    }
}

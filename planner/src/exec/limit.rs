//! LIMIT / OFFSET as streaming operators that stop their inputs, and
//! ORDER BY ... LIMIT as a top-N that holds about N rows.
//!
//! ```text
//!  producers (scan morsels, join workers, union branches; many threads)
//!      │ batches
//!      ▼
//!  Limit: a counter under a lock hands out the rows still wanted
//!      │  once satisfied: Err(LimitReached(token)) to every producer,
//!      │  which stops it as any error does (rayon's try_for_each, the
//!      │  kernels' `?`); the Limit whose token it is catches it and ends
//!      │  normally, an outer Limit's token passes through an inner one
//!      ▼
//!  parent
//! ```
//!
//! A top-N ([`TopN`]) keeps, of each arriving batch, only its best N rows,
//! and whenever its candidates reach 2N rows sorts them down to N, so it
//! holds at most about 2N rows plus a batch, never the whole input.

use std::sync::{Arc, Mutex};

use arrow_array::RecordBatch;

use crate::exec::plan::OperatorMetrics;
use crate::exec::{ExecError, Result, SortExec};
use tenon_kernels::{MemoryBudget, MemoryReservation, batch_bytes};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The counter of one running LIMIT / OFFSET.
pub(crate) struct LimitState {
    /// The token of its stop signal (unique while the plan lives: the
    /// address of the operator's metrics).
    token: usize,
    /// (rows still to skip, rows still to pass on; `None`: all).
    left: Mutex<(usize, Option<usize>)>,
}

impl LimitState {
    /// The counter of the LIMIT whose metrics are `metrics`.
    pub(crate) fn new(metrics: &Arc<OperatorMetrics>, skip: usize, fetch: Option<usize>) -> Self {
        LimitState {
            token: Arc::as_ptr(metrics) as usize,
            left: Mutex::new((skip, fetch)),
        }
    }

    /// Whether no rows are wanted at all (`LIMIT 0`): the input need not
    /// run.
    pub(crate) fn wants_nothing(&self) -> bool {
        lock(&self.left).1 == Some(0)
    }

    /// The rows of `batch` to pass on (`None`: none), and whether the limit
    /// is satisfied with them.
    pub(crate) fn take(&self, batch: RecordBatch) -> (Option<RecordBatch>, bool) {
        let mut left = lock(&self.left);
        let (skip, fetch) = &mut *left;
        if *fetch == Some(0) {
            return (None, true);
        }
        let rows = batch.num_rows();
        if *skip >= rows {
            *skip -= rows;
            return (None, false);
        }
        let offset = std::mem::take(skip);
        let len = fetch.map_or(rows - offset, |f| f.min(rows - offset));
        if let Some(f) = fetch {
            *f -= len;
        }
        let done = *fetch == Some(0);
        let out = if offset == 0 && len == rows {
            batch
        } else {
            batch.slice(offset, len)
        };
        (Some(out), done)
    }

    /// The stop signal to return to the producers.
    pub(crate) fn signal(&self) -> ExecError {
        ExecError::LimitReached(self.token)
    }

    /// The input's result, with this limit's own stop signal turned into
    /// success.
    pub(crate) fn caught(&self, result: Result<()>) -> Result<()> {
        match result {
            Err(ExecError::LimitReached(t)) if t == self.token => Ok(()),
            other => other,
        }
    }
}

/// ORDER BY ... LIMIT n fed batch by batch: at most about `2n` candidate
/// rows (plus the batch being pushed) are held, and charged to the query's
/// memory budget (a large n holds much).
pub(crate) struct TopN<'a> {
    sort: &'a SortExec,
    k: usize,
    batch_size: usize,
    budget: &'a MemoryBudget,
    /// The candidates, their row count, and their charge to the budget.
    kept: Mutex<(Vec<RecordBatch>, usize, MemoryReservation)>,
}

impl<'a> TopN<'a> {
    /// A top-`k` of `sort`'s order, its candidates charged to `budget`.
    ///
    /// # Errors
    ///
    /// None in practice (an empty reservation always fits).
    pub(crate) fn new(
        sort: &'a SortExec,
        k: usize,
        batch_size: usize,
        budget: &'a MemoryBudget,
    ) -> Result<Self> {
        Ok(TopN {
            sort,
            k,
            batch_size,
            budget,
            kept: Mutex::new((
                Vec::new(),
                0,
                budget.try_reserve("the ORDER BY ... LIMIT candidates", 0)?,
            )),
        })
    }

    /// Keeps the best rows of `batch` among the candidates.
    pub(crate) fn push(&self, batch: RecordBatch) -> Result<()> {
        if self.k == 0 || batch.num_rows() == 0 {
            return Ok(());
        }
        // A batch larger than k: only its best k rows can be in the result
        // (sorted and copied out, so the batch itself is let go).
        let best = if batch.num_rows() > self.k {
            self.sort
                .run_charged(&[batch], self.batch_size, self.budget)?
        } else {
            vec![batch]
        };
        let full = {
            let mut kept = lock(&self.kept);
            kept.2.grow_for(&best)?;
            kept.1 += best.iter().map(RecordBatch::num_rows).sum::<usize>();
            kept.0.extend(best);
            if kept.1 < self.k.saturating_mul(2) {
                return Ok(());
            }
            kept.1 = 0;
            std::mem::take(&mut kept.0)
        };
        // Trimmed outside the lock: the sort runs on the rayon pool, whose
        // worker may meanwhile run another push of this top-N (a lock held
        // across it would deadlock). The top k of the whole input is the
        // top k of the trimmed candidates and of those pushed meanwhile.
        let trimmed = self.sort.run_charged(&full, self.batch_size, self.budget)?;
        let released: usize = full.iter().map(batch_bytes).sum();
        drop(full);
        let mut kept = lock(&self.kept);
        kept.2.shrink(released);
        kept.2.grow_for(&trimmed)?;
        let newer = std::mem::replace(&mut kept.0, trimmed);
        kept.1 += kept.0.iter().map(RecordBatch::num_rows).sum::<usize>();
        kept.0.extend(newer);
        Ok(())
    }

    /// The first `k` rows in order.
    pub(crate) fn finish(self) -> Result<Vec<RecordBatch>> {
        let (kept, _, _charge) = self.kept.into_inner().unwrap_or_else(|e| e.into_inner());
        self.sort.run_charged(&kept, self.batch_size, self.budget)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::{Int64Array, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    use datafusion_common::DFSchema;
    use datafusion_expr::col;

    use super::*;
    use crate::expr::QueryContext;

    /// ORDER BY ... LIMIT held its whole input before it sorted it; the
    /// top-N holds at most its candidates (under 2k rows) plus the best k
    /// rows of the batch being pushed, and gives the reference's first k.
    #[test]
    fn top_n_holds_about_n_rows_not_its_whole_input() {
        let schema = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, false)]));
        let df = DFSchema::try_from_qualified_schema("t", &schema).unwrap();
        for k in [1, 7, 100, 5000] {
            let sort = SortExec::try_new(
                &[col("a").sort(false, true)],
                &df,
                Some(k),
                &QueryContext::new(),
            )
            .unwrap();
            let budget = MemoryBudget::unlimited();
            let top = TopN::new(&sort, k, 64, &budget).unwrap();
            let mut all = Vec::new();
            for b in 0..200i64 {
                // scattered values with duplicates
                let values: Vec<i64> = (0..100).map(|r| (b * 7919 + r * 104_729) % 3001).collect();
                all.extend(values.iter().copied());
                let batch =
                    RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(values))])
                        .unwrap();
                top.push(batch).unwrap();
                let held = lock(&top.kept).1;
                assert!(held < 2 * k + k.min(100), "k={k}: {held} rows held");
            }
            let got: Vec<i64> = top
                .finish()
                .unwrap()
                .iter()
                .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
                .collect();
            all.sort_unstable_by(|x, y| y.cmp(x));
            all.truncate(k);
            assert_eq!(got, all, "k={k}");
        }
    }
}

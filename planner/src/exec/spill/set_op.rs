//! INTERSECT ALL and EXCEPT ALL under a memory limit.
//!
//! Both inputs are collected while they fit (module `spool`), each batch
//! charged for its rows and for what the operation adds: the right rows'
//! count-table entries, the left rows' output. When both fit, the
//! operation runs as without a limit. Otherwise both inputs go to spill
//! files and are split into [`PARTITIONS`] by a hash of each row's value
//! as the count table compares it (arrow-row encoding, floats canonical,
//! NULL equal to NULL), so that equal rows meet in one partition. Each
//! pair of partitions is then a set operation of its own: its right rows
//! counted, its left rows taking their counts and output. The count table
//! holds one entry per distinct value, so duplicates never need a split;
//! a partition with more distinct values than the memory holds is split
//! again with the next level's hash (at most [`MAX_LEVEL`] levels, after
//! which the limit is the error).

use std::hash::Hasher;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::file::{SpillFile, SpillWriter};
use super::hash_join::MAX_LEVEL;
use super::partition::{PARTITIONS, partition_of, split_by};
use super::spool::Spooled;
use crate::exec::plan::{OperatorMetrics, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::set_op::{CountTable, run_set_operation};
use crate::exec::{ExecError, Result};
use crate::sql::SetOperator;
use tenon_kernels::KernelError;

/// A memory-limit error (which a split may cure).
fn is_memory_limit(e: &ExecError) -> bool {
    matches!(e, ExecError::Join(KernelError::MemoryLimitExceeded { .. }))
}

impl Run<'_> {
    /// Runs `left <op> right` (the node `plan`) under the memory limit,
    /// spilling what does not fit (see the module docs).
    pub(in crate::exec) fn spilling_set_operation(
        &self,
        plan: &PhysicalPlan,
        op: SetOperator,
        left: &PhysicalPlan,
        right: &PhysicalPlan,
        out: &Sink<'_>,
    ) -> Result<()> {
        // The left rows and their output; the right rows and their
        // count-table entries (encoded rows are about the rows' size).
        let l_cost = |bytes: usize, _rows: usize| bytes.saturating_mul(2);
        let r_cost = |bytes: usize, rows: usize| {
            bytes
                .saturating_mul(2)
                .saturating_add(rows.saturating_mul(48))
        };
        let (l, r) = rayon::join(
            || self.spool(plan, left, "the set operation's left input", &l_cost),
            || self.spool(plan, right, "the set operation's right input", &r_cost),
        );
        let (l, r) = (l?, r?);
        let (l, r) = match (l, r) {
            (
                Spooled::Memory {
                    batches: lb,
                    bytes: l_bytes,
                    charge: mut lc,
                },
                Spooled::Memory {
                    batches: rb,
                    bytes: r_bytes,
                    charge: mut rc,
                },
            ) => {
                // The operation charges its own table and output.
                lc.shrink(lc.size().saturating_sub(l_bytes));
                rc.shrink(rc.size().saturating_sub(r_bytes));
                let start = std::time::Instant::now();
                let result = run_set_operation(op, &plan.schema, &lb, &rb, &self.budget_of(plan))?;
                plan.metrics.add_time(start.elapsed());
                drop((lb, rb));
                return result.into_iter().try_for_each(out);
            }
            (l, r) => (
                self.to_file(plan, l, &left.schema)?,
                self.to_file(plan, r, &right.schema)?,
            ),
        };
        let encoder = CountTable::new(op, &plan.schema, &self.budget_of(plan))?;
        let lefts = self.split_by_value(&plan.metrics, &encoder, &l, 0)?;
        let rights = self.split_by_value(&plan.metrics, &encoder, &r, 0)?;
        drop((l, r, encoder));
        for (l, r) in lefts.into_iter().zip(rights) {
            if let Some(l) = l {
                self.set_part(plan, op, l, r, 1, out)?;
            }
        }
        Ok(())
    }

    /// `file` split by the hash of its rows' values at `level`.
    fn split_by_value(
        &self,
        metrics: &Arc<OperatorMetrics>,
        encoder: &CountTable,
        file: &SpillFile,
        level: u32,
    ) -> Result<Vec<Option<SpillFile>>> {
        let mut writers: Vec<Option<SpillWriter>> = (0..PARTITIONS).map(|_| None).collect();
        for b in file.read()? {
            let b = b?;
            let rows = encoder.encode(&b)?;
            let parts: Vec<u32> = rows
                .iter()
                .map(|row| {
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    h.write(row.data());
                    partition_of(h.finish(), level)
                })
                .collect();
            for (p, piece) in split_by(&b, &parts)? {
                if writers[p].is_none() {
                    writers[p] = Some(self.spill.writer(file.schema(), metrics)?);
                }
                if let Some(w) = &mut writers[p] {
                    w.write(&piece)?;
                }
            }
        }
        metrics
            .spill
            .partitions
            .fetch_add(PARTITIONS as u64, Ordering::Relaxed);
        writers
            .into_iter()
            .map(|w| w.map(SpillWriter::finish).transpose())
            .collect()
    }

    /// One pair of partitions (`right` none: no right rows): counted and
    /// taken when the right side's count table fits, else split again.
    fn set_part(
        &self,
        plan: &PhysicalPlan,
        op: SetOperator,
        left: SpillFile,
        right: Option<SpillFile>,
        level: u32,
        out: &Sink<'_>,
    ) -> Result<()> {
        let metrics = &plan.metrics;
        metrics
            .spill
            .depth
            .fetch_max(u64::from(level), Ordering::Relaxed);
        let budget = self.budget_of(plan);
        let mut table = CountTable::new(op, &plan.schema, &budget)?;
        let mut full = None;
        if let Some(r) = &right {
            for b in r.read()? {
                if let Err(e) = table.count(&b?) {
                    full = Some(e);
                    break;
                }
            }
        }
        let Some(e) = full else {
            let start = std::time::Instant::now();
            for b in left.read()? {
                let kept = table.take(&b?)?;
                if kept.num_rows() > 0 {
                    out(kept)?;
                }
            }
            metrics.add_time(start.elapsed());
            return Ok(());
        };
        drop(table);
        let Some(right) = right.filter(|_| is_memory_limit(&e) && level < MAX_LEVEL) else {
            return Err(e);
        };
        let encoder = CountTable::new(op, &plan.schema, &budget)?;
        let rights = self.split_by_value(metrics, &encoder, &right, level)?;
        // A split that leaves every right row in one partition cannot help.
        if rights.iter().flatten().filter(|f| f.rows() > 0).count() <= 1 {
            return Err(e);
        }
        let lefts = self.split_by_value(metrics, &encoder, &left, level)?;
        drop((left, right, encoder));
        for (l, r) in lefts.into_iter().zip(rights) {
            if let Some(l) = l {
                self.set_part(plan, op, l, r, level + 1, out)?;
            }
        }
        Ok(())
    }
}

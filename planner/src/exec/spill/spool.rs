//! Collecting an input that may not fit: held in memory while it does,
//! else written to a spill file whole (what was held, then every later
//! batch). The operators that need both of their inputs before they start
//! (sort-merge and nested-loop joins, INTERSECT/EXCEPT ALL) collect them
//! this way under a memory limit, then run as without a limit when both
//! fit, or over the files.

use std::sync::Mutex;
use std::sync::atomic::Ordering;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::file::{SpillFile, SpillWriter};
use crate::exec::Result;
use crate::exec::plan::PhysicalPlan;
use crate::exec::run::{Run, lock};
use tenon_kernels::{HeldBuffers, MemoryReservation, batch_bytes};

/// One input, collected.
pub(in crate::exec) enum Spooled {
    /// It fits: its batches, charged with their cost.
    Memory {
        batches: Vec<RecordBatch>,
        /// Bytes of the batches' buffers.
        bytes: usize,
        charge: MemoryReservation,
    },
    /// It did not: all its rows in a file.
    Disk(SpillFile),
}

/// One input being collected.
struct Spooling {
    batches: Vec<RecordBatch>,
    held: HeldBuffers,
    bytes: usize,
    charge: MemoryReservation,
    file: Option<SpillWriter>,
}

impl Run<'_> {
    /// Collects `input` for the operator `owner`, each batch charged
    /// `cost(bytes, rows)` (its rows and what the operator adds to them):
    /// in memory while it fits, else in a spill file.
    pub(super) fn spool(
        &self,
        owner: &PhysicalPlan,
        input: &PhysicalPlan,
        what: &'static str,
        cost: &(dyn Fn(usize, usize) -> usize + Sync),
    ) -> Result<Spooled> {
        let metrics = &owner.metrics;
        let state = Mutex::new(Spooling {
            batches: Vec::new(),
            held: HeldBuffers::new(),
            bytes: 0,
            charge: self.budget_of(owner).try_reserve(what, 0)?,
            file: None,
        });
        self.push(input, &|b: RecordBatch| {
            let mut st = lock(&state);
            let st = &mut *st;
            if let Some(w) = &mut st.file {
                return w.write(&b);
            }
            let new = st.held.add(&b);
            let bytes = batch_bytes(&b);
            let extra = cost(bytes, b.num_rows()).saturating_sub(bytes);
            if st.charge.grow_spillable(new + extra).is_ok() {
                st.bytes += new;
                st.batches.push(b);
                return Ok(());
            }
            let mut w = self.spill.writer(&input.schema, metrics)?;
            metrics.spill.partitions.fetch_add(1, Ordering::Relaxed);
            for h in std::mem::take(&mut st.batches) {
                w.write(&h)?;
            }
            w.write(&b)?;
            st.charge.shrink(st.charge.size());
            st.held = HeldBuffers::new();
            st.bytes = 0;
            st.file = Some(w);
            Ok(())
        })?;
        let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(match st.file {
            Some(w) => Spooled::Disk(w.finish()?),
            None => Spooled::Memory {
                batches: st.batches,
                bytes: st.bytes,
                charge: st.charge,
            },
        })
    }

    /// A collected input as a spill file (written out when it is in
    /// memory, its memory then given back).
    pub(super) fn to_file(
        &self,
        owner: &PhysicalPlan,
        s: Spooled,
        schema: &SchemaRef,
    ) -> Result<SpillFile> {
        match s {
            Spooled::Disk(f) => Ok(f),
            Spooled::Memory { batches, .. } => {
                let mut w = self.spill.writer(schema, &owner.metrics)?;
                for b in &batches {
                    w.write(b)?;
                }
                w.finish()
            }
        }
    }
}

//! Join-type bookkeeping on candidate pairs, and output.
//!
//! Every chunk of candidate pairs passes through [`Emitter::pairs`]: the
//! residual filter drops pairs, the survivors mark their build rows
//! (outer/semi/anti on the build side) and probe rows (on the probe side),
//! and, for the join types that output pairs, are gathered into a batch;
//! or, for a join run with a pair consumer ([`super::pairs`]), handed to
//! it through [`Emitter::consume_pairs`] without a batch.
//! Rows that are output alone (unmatched rows of outer joins, semi and anti
//! results) go through [`Emitter::rows`]: the rows a match bitmap decides
//! once every pair is known (the *unmatched-rows pass*) through
//! [`Emitter::rows_where`], a probe morsel's rows decided by its marks
//! through [`Emitter::marked_rows`].

use arrow_array::{Array, RecordBatch, UInt32Array};
use arrow_buffer::ScalarBuffer;
use rayon::prelude::*;

use super::output::OutputLayout;
use super::pairs::{PairChunk, PairProbe, PairSlot};
use crate::bitmap::{AtomicBitmap, Bitmap};
use crate::error::{KernelError, Result};
use crate::filter::JoinFilter;
use crate::join_type::{JoinSide, Roles};
use crate::rows::RowSource;

/// Rows per parallel task of the unmatched-rows pass.
const SOURCE_ROWS: usize = 1 << 16;

/// Where output batches go; called from worker threads.
pub type BatchSink<'a> = dyn Fn(RecordBatch) -> Result<()> + Sync + 'a;

/// Everything the probe workers share to turn pairs into output.
pub(crate) struct Emitter<'a> {
    pub roles: Roles,
    pub layout: &'a OutputLayout,
    pub build_is_left: bool,
    pub build: &'a RecordBatch,
    pub filter: Option<&'a dyn JoinFilter>,
    pub visited: Option<&'a AtomicBitmap>,
    pub batch_size: usize,
    pub sink: &'a BatchSink<'a>,
}

fn to_array(v: &mut Vec<u32>, cap: usize) -> UInt32Array {
    let taken = std::mem::replace(v, Vec::with_capacity(cap));
    UInt32Array::new(ScalarBuffer::from(taken), None)
}

impl Emitter<'_> {
    /// Handles one chunk of candidate pairs between the build batch and
    /// `probe`. `mark_probe(row)` records a probe row that matched. The
    /// vectors are left empty (their allocations may be replaced).
    pub(crate) fn pairs(
        &self,
        probe: &dyn RowSource,
        build_rows: &mut Vec<u32>,
        probe_rows: &mut Vec<u32>,
        mut mark_probe: impl FnMut(u32),
    ) -> Result<()> {
        if build_rows.is_empty() {
            return Ok(());
        }
        self.filter_pairs(probe, build_rows, probe_rows)?;
        if let Some(v) = self.visited {
            for &b in build_rows.iter() {
                v.set(b as usize);
            }
        }
        if self.roles.tracks_probe() {
            for &p in probe_rows.iter() {
                mark_probe(p);
            }
        }
        if self.roles.emit_pairs && !build_rows.is_empty() {
            let n = build_rows.len();
            let b = to_array(build_rows, self.batch_size);
            let p = to_array(probe_rows, self.batch_size);
            let batch = if self.build_is_left {
                self.layout
                    .gather(Some((self.build, &b)), Some((probe, &p)), n)?
            } else {
                self.layout
                    .gather(Some((probe, &p)), Some((self.build, &b)), n)?
            };
            (self.sink)(batch)?;
        } else {
            build_rows.clear();
            probe_rows.clear();
        }
        Ok(())
    }

    /// Drops the pairs the residual filter rejects (none without one).
    fn filter_pairs(
        &self,
        probe: &dyn RowSource,
        build_rows: &mut Vec<u32>,
        probe_rows: &mut Vec<u32>,
    ) -> Result<()> {
        if let Some(f) = self.filter {
            let (b, p) = (
                to_array(build_rows, self.batch_size),
                to_array(probe_rows, self.batch_size),
            );
            // The filter sees the probe side as one batch: the probe batch
            // itself, or its candidate rows gathered from a batch list.
            let gathered;
            let identity;
            let (pb, pr) = match probe.as_batch() {
                Some(batch) => (batch, &p),
                None => {
                    gathered = probe.gather_batch(&p)?;
                    identity = UInt32Array::from_iter_values(0..p.len() as u32);
                    (&gathered, &identity)
                }
            };
            let keep = if self.build_is_left {
                f.evaluate(self.build, pb, &b, pr)?
            } else {
                f.evaluate(pb, self.build, pr, &b)?
            };
            if keep.len() != b.len() {
                return Err(KernelError::Filter(format!(
                    "the filter returned {} values for {} candidate pairs",
                    keep.len(),
                    b.len()
                )));
            }
            for i in 0..b.len() {
                if keep.is_valid(i) && keep.value(i) {
                    build_rows.push(b.value(i));
                    probe_rows.push(p.value(i));
                }
            }
        }
        Ok(())
    }

    /// Handles one chunk of candidate pairs of a join whose output is its
    /// pairs alone (no marks: INNER) by handing the pairs the filter keeps
    /// to `slot`'s worker instead of gathering a batch. The vectors are
    /// left empty, their allocations kept.
    pub(crate) fn consume_pairs(
        &self,
        probe: PairProbe<'_>,
        build_rows: &mut Vec<u32>,
        probe_rows: &mut Vec<u32>,
        slot: &mut PairSlot<'_, '_>,
    ) -> Result<()> {
        if build_rows.is_empty() {
            return Ok(());
        }
        if self.roles.tracks_build() || self.roles.tracks_probe() || !self.roles.emit_pairs {
            return Err(KernelError::Internal(
                "pairs handed to a consumer for a join type with output besides its pairs".into(),
            ));
        }
        self.filter_pairs(probe.source(), build_rows, probe_rows)?;
        if !build_rows.is_empty() {
            slot.consume(&PairChunk {
                build: self.build,
                build_side: if self.build_is_left {
                    JoinSide::Left
                } else {
                    JoinSide::Right
                },
                build_rows,
                probe_rows,
                probe,
            })?;
        }
        build_rows.clear();
        probe_rows.clear();
        Ok(())
    }

    /// Outputs rows of one side alone: `from_build` says which side `batch`
    /// is. For the join types that output both sides the other side is NULL.
    pub(crate) fn rows(&self, batch: &dyn RowSource, from_build: bool, rows: &[u32]) -> Result<()> {
        for chunk in rows.chunks(self.batch_size.max(1)) {
            let idx = UInt32Array::from(chunk.to_vec());
            let is_left = from_build == self.build_is_left;
            let out = if is_left {
                self.layout.gather(Some((batch, &idx)), None, chunk.len())?
            } else {
                self.layout.gather(None, Some((batch, &idx)), chunk.len())?
            };
            (self.sink)(out)?;
        }
        Ok(())
    }

    /// The unmatched-rows pass: outputs the rows `i` of `0..n` of `source`
    /// for which `keep(i)` (unmatched rows of outer and anti joins, matched
    /// rows of semi joins, as a match bitmap says once every pair is
    /// known), in parallel chunks of [`SOURCE_ROWS`] rows. `from_build`
    /// says which side `source` is.
    pub(crate) fn rows_where(
        &self,
        source: &dyn RowSource,
        from_build: bool,
        n: usize,
        keep: impl Fn(usize) -> bool + Sync + Send,
    ) -> Result<()> {
        (0..n.div_ceil(SOURCE_ROWS))
            .into_par_iter()
            .try_for_each(|c| {
                let rows: Vec<u32> = (c * SOURCE_ROWS..((c + 1) * SOURCE_ROWS).min(n))
                    .filter(|&i| keep(i))
                    .map(|i| i as u32)
                    .collect();
                self.rows(source, from_build, &rows)
            })
    }

    /// Outputs the rows of a probe morsel of `len` rows that its `marks`
    /// decide (matched rows of a semi join, unmatched ones of outer and
    /// anti joins), when the join type tracks probe rows.
    pub(crate) fn marked_rows(
        &self,
        probe: &dyn RowSource,
        len: usize,
        marks: &Bitmap,
    ) -> Result<()> {
        if !self.roles.tracks_probe() {
            return Ok(());
        }
        let want = self.roles.probe_semi;
        let rows: Vec<u32> = (0..len as u32)
            .filter(|&r| marks.get(r as usize) == want)
            .collect();
        self.rows(probe, false, &rows)
    }
}

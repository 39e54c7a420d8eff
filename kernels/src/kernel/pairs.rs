//! Matched pairs delivered to a consumer instead of output batches: the
//! optional [`PairJoin`] capability of a kernel ([`JoinKernel::paired`]).
//!
//! A join whose output is only its pairs (INNER: no unmatched rows, no
//! marks) can hand each chunk of matched `(build row, probe row)` index
//! pairs, after the residual filter, to a consumer that reads the columns
//! it needs at those rows itself (an aggregate summing while the join
//! probes), instead of gathering every output column into a batch that
//! the consumer then reads again.
//!
//! ```text
//!  probe ─ pairs (reused index vectors, PAIR_CHUNK at most) ─ filter ─► PairWorker::consume
//!                                                      (one worker per thread, merged at the end)
//! ```
//!
//! A [`PairSink`] makes one [`PairWorker`] per thread that needs one (held
//! across the chunks and morsels that thread runs, never shared, so a
//! worker's state needs no atomics); once every pair is delivered, each
//! worker's [`PairWorker::finish`] hands its state back to the sink.
//!
//! [`JoinKernel::paired`]: crate::JoinKernel::paired

use std::sync::Mutex;

use arrow_array::RecordBatch;

use super::input::JoinInput;
use super::join_kernel::ProbeFeed;
use crate::error::Result;
use crate::join_type::JoinSide;
use crate::rows::{BatchList, RowSource};

/// Pairs per chunk handed to a [`PairWorker`]: two `u32` vectors of this
/// length take 16 KiB, so a chunk's indices stay in the L1 cache while the
/// consumer reads them right after the probe wrote them.
pub(crate) const PAIR_CHUNK: usize = 2048;

/// One chunk of matched pairs: `build_rows[i]` of [`build`](Self::build)
/// matched `probe_rows[i]` of the probe side (which
/// [`probe_batch`](Self::probe_batch) or [`locate_probe`](Self::locate_probe)
/// resolve). The slices are the kernel's reused buffers, valid for the call.
#[derive(Debug)]
pub struct PairChunk<'a> {
    /// The build side, as one batch with all of its input's columns.
    pub build: &'a RecordBatch,
    /// Which input of the join the build side is.
    pub build_side: JoinSide,
    /// Build rows, one per pair.
    pub build_rows: &'a [u32],
    /// Probe rows, one per pair (aligned with `build_rows`).
    pub probe_rows: &'a [u32],
    pub(crate) probe: PairProbe<'a>,
}

/// Where a chunk's probe rows point.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PairProbe<'a> {
    /// Rows of one batch (a probe morsel).
    Batch(&'a RecordBatch),
    /// Global rows of a list of batches (the partitioned mode).
    List(&'a BatchList<'a>),
}

impl<'a> PairProbe<'a> {
    /// The rows as a [`RowSource`] (for the residual filter).
    pub(crate) fn source(&self) -> &'a dyn RowSource {
        match *self {
            PairProbe::Batch(b) => b,
            PairProbe::List(l) => l,
        }
    }
}

impl<'a> PairChunk<'a> {
    /// The probe side when the probe rows are rows of one batch (with all
    /// of the probe input's columns); `None` when they are global rows of
    /// several batches ([`probe_batches`](Self::probe_batches)).
    pub fn probe_batch(&self) -> Option<&'a RecordBatch> {
        match self.probe {
            PairProbe::Batch(b) => Some(b),
            PairProbe::List(l) => l.as_batch(),
        }
    }

    /// The batches the probe rows point into.
    pub fn probe_batches(&self) -> &'a [RecordBatch] {
        match self.probe {
            PairProbe::Batch(b) => std::slice::from_ref(b),
            PairProbe::List(l) => l.batches(),
        }
    }

    /// The batch (of [`probe_batches`](Self::probe_batches)) and row in it
    /// of probe row `row`.
    #[inline]
    pub fn locate_probe(&self, row: u32) -> (usize, usize) {
        match self.probe {
            PairProbe::Batch(_) => (0, row as usize),
            PairProbe::List(l) => l.locate(row as usize),
        }
    }
}

/// The consumer of a join's matched pairs (see the module docs).
pub trait PairSink: Sync {
    /// A fresh worker, for one thread's share of the pairs.
    ///
    /// # Errors
    ///
    /// The consumer's own (the join stops with it).
    fn worker(&self) -> Result<Box<dyn PairWorker + '_>>;
}

/// One thread's consumer of matched pairs, made by [`PairSink::worker`].
pub trait PairWorker: Send {
    /// Consumes one chunk of pairs.
    ///
    /// # Errors
    ///
    /// The consumer's own (the join stops with it).
    fn consume(&mut self, chunk: &PairChunk<'_>) -> Result<()>;

    /// Hands the worker's state back to its sink, once every pair is
    /// delivered (not called when the join fails).
    ///
    /// # Errors
    ///
    /// The consumer's own.
    fn finish(self: Box<Self>) -> Result<()>;
}

/// A kernel that can deliver its matched pairs to a [`PairSink`] instead
/// of gathering output batches: the capability [`JoinKernel::paired`]
/// gives, for join types whose output is exactly the matched pairs
/// (INNER).
///
/// [`JoinKernel::paired`]: crate::JoinKernel::paired
pub trait PairJoin: Sync {
    /// The side the kernel builds (holds whole).
    fn build_side(&self) -> JoinSide;

    /// Runs the join, delivering every matched pair (the residual filter
    /// applied) to `sink`; with `feed`, the probe side's batches are pushed
    /// by it as in [`FedProbe::for_each_fed`](crate::FedProbe::for_each_fed)
    /// (the probe input then gives only its schema). The kernel's
    /// projection does not apply: the chunks carry the inputs' batches.
    ///
    /// # Errors
    ///
    /// As [`JoinKernel::for_each`](crate::JoinKernel::for_each); a join
    /// type with output besides its pairs; the first error of the sink's
    /// workers or of `feed`.
    fn for_each_pair(
        &self,
        left: &JoinInput,
        right: &JoinInput,
        feed: Option<&ProbeFeed<'_>>,
        sink: &dyn PairSink,
    ) -> Result<()>;
}

/// The workers of one run: made on demand, lent to one thread at a time
/// through a [`PairSlot`], and finished together at the end.
pub(crate) struct PairOutput<'a> {
    sink: &'a dyn PairSink,
    idle: Mutex<Vec<Box<dyn PairWorker + 'a>>>,
}

impl<'a> PairOutput<'a> {
    pub(crate) fn new(sink: &'a dyn PairSink) -> Self {
        PairOutput {
            sink,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// An empty slot; it takes a worker when it first gets pairs.
    pub(crate) fn slot(&self) -> PairSlot<'_, 'a> {
        PairSlot {
            out: self,
            worker: None,
        }
    }

    /// Finishes every worker (every slot must be dropped by now).
    pub(crate) fn finish(self) -> Result<()> {
        let workers = self.idle.into_inner().unwrap_or_else(|e| e.into_inner());
        for w in workers {
            w.finish()?;
        }
        Ok(())
    }
}

/// A thread's hold on one worker of a [`PairOutput`]; gives it back when
/// dropped.
pub(crate) struct PairSlot<'o, 'a> {
    out: &'o PairOutput<'a>,
    worker: Option<Box<dyn PairWorker + 'a>>,
}

impl PairSlot<'_, '_> {
    /// Hands `chunk` to this slot's worker (taken from the idle ones, or
    /// made, on first use).
    pub(crate) fn consume(&mut self, chunk: &PairChunk<'_>) -> Result<()> {
        let worker = match &mut self.worker {
            Some(w) => w,
            None => {
                let idle = self
                    .out
                    .idle
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .pop();
                let w = match idle {
                    Some(w) => w,
                    None => self.out.sink.worker()?,
                };
                self.worker.insert(w)
            }
        };
        worker.consume(chunk)
    }
}

impl Drop for PairSlot<'_, '_> {
    fn drop(&mut self) {
        if let Some(w) = self.worker.take() {
            self.out
                .idle
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(w);
        }
    }
}

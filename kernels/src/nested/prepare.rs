//! Validating a nested-loop join and fixing its sides: which input is built
//! (the inner loop), how the probe side is cut into morsels, and the range
//! conditions restated in build/probe terms.

use arrow_array::RecordBatch;

use super::NestedLoopJoin;
use crate::condition::{CmpOp, check_condition};
use crate::error::Result;
use crate::join_type::{JoinSide, Roles};
use crate::kernel::concat::one_batch;
use crate::kernel::output::OutputLayout;
use crate::kernel::validate::check_input;
use crate::kernel::{BatchSink, JoinInput};
use crate::memory::MemoryReservation;

/// Most probe rows in one morsel. A probe row costs up to a whole pass over
/// the build side, so morsels are far smaller than the hash join's.
const MAX_MORSEL_ROWS: usize = 4096;
/// Morsels per worker thread that the probe side is cut into when it is
/// small, so that uneven morsels (windows of different sizes) still balance.
const MORSELS_PER_THREAD: usize = 8;

/// A range condition in build/probe terms:
/// `probe[probe] <op> build[build] + offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SideCondition {
    /// Column of the probe input.
    pub probe: usize,
    /// The operator, read as `probe <op> build`.
    pub op: CmpOp,
    /// Column of the build input.
    pub build: usize,
    /// Added to the build value, in image units; `i128` so that negating
    /// an `i64` offset (a left build side) cannot overflow.
    pub offset: i128,
}

/// A slice of one probe batch that one worker handles at a time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Morsel {
    batch: usize,
    offset: usize,
    len: usize,
}

/// A validated join, ready to run.
pub(crate) struct Prepared<'a> {
    pub join: &'a NestedLoopJoin,
    pub roles: Roles,
    pub layout: OutputLayout,
    pub build: &'a JoinInput,
    pub probe: &'a JoinInput,
    pub build_is_left: bool,
    pub conds: Vec<SideCondition>,
}

impl<'a> Prepared<'a> {
    pub(crate) fn new(
        join: &'a NestedLoopJoin,
        left: &'a JoinInput,
        right: &'a JoinInput,
    ) -> Result<Self> {
        crate::kernel::validate::check_batch_size(join.options.batch_size)?;
        check_input(left, "left")?;
        check_input(right, "right")?;
        for (i, c) in join.ranges.iter().enumerate() {
            check_condition(i, c, left.schema(), right.schema())?;
        }
        let layout = join
            .options
            .layout(join.join_type, left.schema(), right.schema())?;
        let build_is_left = join.build_side == JoinSide::Left;
        let conds = join
            .ranges
            .iter()
            .map(|c| {
                if build_is_left {
                    // `build <op> probe` is `probe <flipped op> build`.
                    // `build <op> probe + o` is `probe <flipped op> build - o`.
                    SideCondition {
                        probe: c.right,
                        op: c.op.flip(),
                        build: c.left,
                        offset: -i128::from(c.offset),
                    }
                } else {
                    SideCondition {
                        probe: c.left,
                        op: c.op,
                        build: c.right,
                        offset: i128::from(c.offset),
                    }
                }
            })
            .collect();
        let (build, probe) = if build_is_left {
            (left, right)
        } else {
            (right, left)
        };
        Ok(Prepared {
            join,
            roles: Roles::new(join.join_type, join.build_side),
            layout,
            build,
            probe,
            build_is_left,
            conds,
        })
    }

    /// Runs on the current rayon pool.
    pub(crate) fn run(&self, sink: &BatchSink<'_>) -> Result<()> {
        let (build, _build_mem) = self.build_batch()?;
        if self.join.fast_path && !self.conds.is_empty() {
            super::sorted::run(self, &build, sink)
        } else {
            super::plain::run(self, &build, sink)
        }
    }

    /// The build input as one batch (a copy, charged to the budget, only
    /// when it has several batches).
    fn build_batch(&self) -> Result<(RecordBatch, Option<MemoryReservation>)> {
        one_batch(self.build, &self.join.options.memory, "the build side")
    }

    /// Whether the output has no columns (a row count is all it carries).
    pub(crate) fn count_only(&self) -> bool {
        self.layout.schema.fields().is_empty()
    }

    /// The probe side cut into morsels.
    pub(crate) fn morsels(&self) -> Vec<Morsel> {
        let rows = self.probe.num_rows();
        let workers = rayon::current_num_threads().max(1) * MORSELS_PER_THREAD;
        let size = rows.div_ceil(workers).clamp(1, MAX_MORSEL_ROWS);
        self.probe
            .batches()
            .iter()
            .enumerate()
            .flat_map(|(batch, b)| {
                let n = b.num_rows();
                (0..n).step_by(size).map(move |offset| Morsel {
                    batch,
                    offset,
                    len: size.min(n - offset),
                })
            })
            .collect()
    }

    /// A morsel's rows, as a batch (a zero-copy slice).
    pub(crate) fn morsel_batch(&self, m: &Morsel) -> RecordBatch {
        self.probe.batches()[m.batch].slice(m.offset, m.len)
    }
}

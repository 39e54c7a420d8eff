//! Running an as-of join: the checks, the right side's versions, and the
//! probe of left morsels (choice, filter, tombstones, output).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, UInt32Array};
use arrow_buffer::{NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, SchemaRef};
use arrow_select::take::take;
use rayon::prelude::*;

use super::prepare::{GroupRef, Version, Versions, bytes_for, tag_hash};
use super::search::{below, pick, walks_down};
use super::small_left;
use super::time::{Times, check_time, time_column};
use super::{AsofJoin, FilterTiming, TimeRule};
use crate::condition::CmpOp;
use crate::cpu::prefetch;
use crate::error::{KernelError, Result};
use crate::filter::JoinFilter;
use crate::hash::partition::partition_of;
use crate::join_type::JoinType;
use crate::kernel::concat::one_batch;
use crate::kernel::dispatch::with_key_encoding;
use crate::kernel::output::OutputLayout;
use crate::kernel::validate::{check_input, check_keys, check_partitions};
use crate::kernel::{BatchSink, JoinInput};
use crate::keys::{KeyKind, KeySource, U64Keys, key_nulls};
use crate::rows::{BatchList, RowSource};

/// Left rows per probe task.
const MORSEL_ROWS: usize = 1 << 14;

/// Right rows per partition the partitioned mode aims at when it chooses
/// the partition count.
const PARTITION_ROWS: usize = 1 << 13;

/// The most partition bits the partitioned mode chooses by itself.
const MAX_PARTITION_BITS: u32 = 10;

/// The most candidates one left row tries per filter evaluation when the
/// filter is applied before the choice (the count doubles from 1).
const MAX_STEP: usize = 1024;

/// Left rows whose versions are looked for together (see `morsel`).
const WINDOW: usize = 32;

/// No version (a left row without a match).
pub(super) const NONE: u32 = u32::MAX;

/// A validated as-of join, ready to run.
pub(crate) struct Plan<'a> {
    pub(super) join: &'a AsofJoin,
    pub(super) left: &'a JoinInput,
    right: &'a JoinInput,
    layout: OutputLayout,
    /// The key encoding; `None` without equality keys.
    pub(super) kind: Option<KeyKind>,
    /// The time operator; `None` in the latest mode.
    pub(super) op: Option<CmpOp>,
    pub(super) left_time: Option<usize>,
    pub(super) right_time: Option<usize>,
}

impl<'a> Plan<'a> {
    /// Checks the join against its inputs.
    pub(crate) fn new(
        join: &'a AsofJoin,
        left: &'a JoinInput,
        right: &'a JoinInput,
    ) -> Result<Self> {
        if !matches!(join.join_type, JoinType::Inner | JoinType::Left) {
            return Err(KernelError::InvalidOptions(format!(
                "as-of and temporal joins are INNER or LEFT joins, not {}: each left row takes \
                 at most one version of the right side; use JoinType::Inner or JoinType::Left",
                join.join_type
            )));
        }
        check_input(left, "left")?;
        check_input(right, "right")?;
        let kind = if join.on.is_empty() {
            None
        } else {
            let types = check_keys("as-of join", &join.on, left.schema(), right.schema())?;
            let kind = KeyKind::try_new(&types)?;
            Some(match kind {
                // NULL must be a key value: arrow-row encodes it.
                KeyKind::Rows(_) => kind,
                _ if join.null_equal => KeyKind::rows(&types)?,
                _ => kind,
            })
        };
        check_time(&join.rule, left.schema(), right.schema())?;
        if let Some(c) = join.tombstone {
            let field = right.schema().fields().get(c).ok_or_else(|| {
                KernelError::InvalidOptions(format!(
                    "the tombstone column is right column {c}, but the right input has {} \
                     columns",
                    right.schema().fields().len()
                ))
            })?;
            if field.data_type() != &DataType::Boolean {
                return Err(KernelError::InvalidOptions(format!(
                    "the tombstone column (right column {c}, \"{}\") has type {}; it must be \
                     Boolean (true marks a version that ends its key's validity)",
                    field.name(),
                    field.data_type()
                )));
            }
        }
        check_partitions(join.partitions)?;
        let layout = join
            .options
            .layout(join.join_type, left.schema(), right.schema())?;
        let (op, left_time, right_time) = match join.rule {
            TimeRule::Cond(c) => (Some(c.op), Some(c.left), Some(c.right)),
            TimeRule::Latest(r) => (None, None, r),
        };
        Ok(Plan {
            join,
            left,
            right,
            layout,
            kind,
            op,
            left_time,
            right_time,
        })
    }

    /// Runs on the current rayon pool.
    pub(crate) fn run(&self, sink: &BatchSink<'_>) -> Result<()> {
        match &self.kind {
            Some(kind) => with_key_encoding!(kind, S => self.run_keys::<S>(sink)),
            // Without keys no key is ever encoded: any encoding will do.
            None => self.run_keys::<U64Keys>(sink),
        }
    }

    fn run_keys<S: KeySource>(&self, sink: &BatchSink<'_>) -> Result<()> {
        let memory = &self.join.options.memory;
        let (right, _right_mem) = one_batch(self.right, memory, "the as-of join's right side")?;
        let n = right.num_rows();
        let rcols = key_columns(&right, self.join.on.iter().map(|p| p.1));
        let rkeys = self
            .kind
            .as_ref()
            .map(|k| S::encode(k, &rcols))
            .transpose()?;
        let rnulls = self
            .kind
            .as_ref()
            .and_then(|k| key_nulls(&rcols, k, self.join.null_equal));
        let tombstones = self
            .join
            .tombstone
            .map(|c| right.column(c).as_boolean().clone());
        let probe = Probe {
            plan: self,
            right: &right,
            rkeys: rkeys.as_ref(),
            tombstones: tombstones.as_ref(),
            sink,
        };
        let filter_first =
            self.join.timing == FilterTiming::BeforeChoice && self.join.options.filter.is_some();
        if small_left::applies(self.join.small_left, self.left.num_rows(), n, filter_first) {
            return small_left::run(&probe, rnulls.as_ref());
        }
        let keyed = rkeys.is_some();
        let _versions_mem = memory.try_reserve(
            "the as-of join's versions",
            bytes_for::<S::Tag>(n, keyed) + n * std::mem::size_of::<i64>(),
        )?;
        let valid: Vec<Version> = {
            let times = Times::of(time_column(&right, self.right_time), n)?;
            (0..n)
                .filter(|&i| rnulls.as_ref().is_none_or(|k| k.is_valid(i)) && times.valid(i))
                .map(|i| Version {
                    time: times.values[i],
                    row: i as u32,
                })
                .collect()
        };
        let tag_of = |row: u32| match &rkeys {
            Some(k) => tag_hash(k, row),
            None => (S::Tag::default(), 0),
        };
        let same = |a: u32, b: u32| match &rkeys {
            Some(k) => !S::VERIFY || k.same_key(a as usize, k, b as usize),
            None => true,
        };
        let keys_fn: Option<&(dyn Fn(u32) -> (S::Tag, u64) + Sync)> =
            if keyed { Some(&tag_of) } else { None };
        let bits = self.partition_bits(n, keyed);
        if bits == 0 {
            let versions = Versions::build(valid, keys_fn, same, 0);
            let morsels: Vec<RecordBatch> = self
                .left
                .batches()
                .iter()
                .flat_map(|b| {
                    (0..b.num_rows())
                        .step_by(MORSEL_ROWS)
                        .map(|at| b.slice(at, MORSEL_ROWS.min(b.num_rows() - at)))
                })
                .collect();
            return morsels
                .par_iter()
                .try_for_each(|m| probe.morsel(&versions, m));
        }
        // The partitioned mode: both sides split by the top hash bits.
        let parts = 1usize << bits;
        let mut right_parts: Vec<Vec<Version>> = vec![Vec::new(); parts];
        for v in valid {
            right_parts[partition_of(tag_of(v.row).1, bits)].push(v);
        }
        let versions: Vec<Versions<S::Tag>> = right_parts
            .into_par_iter()
            .map(|p| Versions::build(p, keys_fn, same, bits))
            .collect();
        let _left_mem = memory.try_reserve(
            "the as-of join's left partitions",
            self.left.num_rows() * std::mem::size_of::<u32>(),
        )?;
        let left_parts = self.partition_left::<S>(bits)?;
        let list = BatchList::new(self.left.schema().clone(), self.left.batches());
        left_parts
            .par_iter()
            .zip(versions.par_iter())
            .try_for_each(|(rows, versions)| {
                rows.chunks(MORSEL_ROWS).try_for_each(|chunk| {
                    let idx = UInt32Array::from(chunk.to_vec());
                    probe.morsel(versions, &list.gather_batch(&idx)?)
                })
            })
    }

    /// Partition bits: 0 in the broadcast mode or without keys.
    fn partition_bits(&self, right_rows: usize, keyed: bool) -> u32 {
        if self.join.mode == super::AsofMode::Broadcast || !keyed {
            return 0;
        }
        match self.join.partitions {
            Some(p) => p.trailing_zeros(),
            None => right_rows
                .div_ceil(PARTITION_ROWS)
                .max(1)
                .next_power_of_two()
                .trailing_zeros()
                .min(MAX_PARTITION_BITS),
        }
    }

    /// The left side's global rows of each partition, in input order. A
    /// row with a NULL key goes to partition 0 (it matches nowhere).
    fn partition_left<S: KeySource>(&self, bits: u32) -> Result<Vec<Vec<u32>>> {
        let parts = 1usize << bits;
        let kind = self
            .kind
            .as_ref()
            .ok_or_else(|| KernelError::Internal("a partitioned as-of join without keys".into()))?;
        let mut base = 0;
        let bases: Vec<usize> = self
            .left
            .batches()
            .iter()
            .map(|b| {
                let at = base;
                base += b.num_rows();
                at
            })
            .collect();
        let per_batch: Vec<Vec<Vec<u32>>> = self
            .left
            .batches()
            .par_iter()
            .zip(bases.par_iter())
            .map(|(b, &base)| {
                let cols = key_columns(b, self.join.on.iter().map(|p| p.0));
                let keys = S::encode(kind, &cols)?;
                let nulls = key_nulls(&cols, kind, self.join.null_equal);
                let mut out = vec![Vec::new(); parts];
                for i in 0..b.num_rows() {
                    let p = if nulls.as_ref().is_none_or(|n| n.is_valid(i)) {
                        partition_of(S::hash(keys.tag(i)), bits)
                    } else {
                        0
                    };
                    out[p].push((base + i) as u32);
                }
                Ok(out)
            })
            .collect::<Result<_>>()?;
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); parts];
        for batch in per_batch {
            for (p, rows) in batch.into_iter().enumerate() {
                out[p].extend(rows);
            }
        }
        Ok(out)
    }
}

/// The columns of `batch` at `keys`.
pub(super) fn key_columns(batch: &RecordBatch, keys: impl Iterator<Item = usize>) -> Vec<ArrayRef> {
    keys.map(|k| Arc::clone(batch.column(k))).collect()
}

/// What every probe task shares.
pub(super) struct Probe<'a, S> {
    pub(super) plan: &'a Plan<'a>,
    pub(super) right: &'a RecordBatch,
    pub(super) rkeys: Option<&'a S>,
    tombstones: Option<&'a BooleanArray>,
    sink: &'a BatchSink<'a>,
}

/// A left row found in its group, its version not yet chosen: the block
/// of the group that holds it is being loaded.
#[derive(Clone, Copy)]
struct Job {
    left: u32,
    group: GroupRef,
    x: i64,
    block: (usize, usize),
}

/// A left row whose candidates the filter decides: its group and the
/// position of its next candidate there.
#[derive(Clone, Copy)]
struct Pending {
    left: u32,
    group: GroupRef,
    pos: u32,
}

impl<S: KeySource> Probe<'_, S> {
    /// Whether right row `row` is a tombstone (`true`; NULL is not).
    #[inline(always)]
    pub(super) fn tombstone(&self, row: u32) -> bool {
        self.tombstones
            .is_some_and(|t| t.is_valid(row as usize) && t.value(row as usize))
    }

    /// Probes one morsel of left rows against `versions` and outputs it.
    fn morsel(&self, versions: &Versions<S::Tag>, left: &RecordBatch) -> Result<()> {
        let plan = self.plan;
        let m = left.num_rows();
        let cols = key_columns(left, plan.join.on.iter().map(|p| p.0));
        let (lkeys, lnulls) = match &plan.kind {
            Some(kind) => (
                Some(S::encode(kind, &cols)?),
                key_nulls(&cols, kind, plan.join.null_equal),
            ),
            None => (None, None),
        };
        let ltimes = match plan.left_time {
            Some(c) => Some(Times::of(Some(left.column(c)), m)?),
            None => None,
        };
        let filter = plan.join.options.filter.as_deref();
        let mut chosen = vec![NONE; m];
        let mut pending: Vec<Pending> = Vec::new();
        let mut window: Vec<Job> = Vec::with_capacity(WINDOW);
        for at in (0..m).step_by(WINDOW) {
            // Find each row's group and the block of its version, and start
            // loading that block, for a window of rows; then finish them,
            // their loads overlapped instead of one after the other.
            window.clear();
            for i in at..m.min(at + WINDOW) {
                if lnulls.as_ref().is_some_and(|n| n.is_null(i)) {
                    continue;
                }
                let x = match &ltimes {
                    Some(t) if !t.valid(i) => continue,
                    Some(t) => t.values[i],
                    None => 0,
                };
                let group = match (&lkeys, self.rkeys) {
                    (Some(lk), Some(rk)) => {
                        let tag = lk.tag(i);
                        versions.lookup(tag, S::hash(tag), S::VERIFY, |row| {
                            lk.same_key(i, rk, row as usize)
                        })
                    }
                    _ => versions.lookup(S::Tag::default(), 0, false, |_| true),
                };
                let Some(group) = group else { continue };
                let (times, rows) = versions.group(group);
                let block = match plan.op {
                    Some(op) => times.block(|t| below(op, t, x)),
                    None => (times.end - 1, times.end),
                };
                prefetch(&times.times[block.0]);
                prefetch(&rows[block.0 - times.start]);
                window.push(Job {
                    left: i as u32,
                    group,
                    x,
                    block,
                });
            }
            for job in &window {
                let (times, rows) = versions.group(job.group);
                let n = rows.len();
                let pos = match plan.op {
                    Some(op) => pick(op, times.finish(job.block, |t| below(op, t, job.x)), n),
                    None => n.checked_sub(1),
                };
                let Some(pos) = pos else { continue };
                let row = rows[pos];
                if self.tombstone(row) {
                    continue; // a delete ends the key's validity
                }
                match filter {
                    None => chosen[job.left as usize] = row,
                    Some(_) => pending.push(Pending {
                        left: job.left,
                        group: job.group,
                        pos: pos as u32,
                    }),
                }
            }
        }
        if let Some(f) = filter.filter(|_| !pending.is_empty()) {
            match plan.join.timing {
                FilterTiming::AfterChoice => {
                    self.filter_chosen(f, versions, left, pending, &mut chosen)?
                }
                FilterTiming::BeforeChoice => {
                    self.filter_candidates(f, versions, left, pending, &mut chosen)?
                }
            }
        }
        self.emit(left, &chosen)
    }

    /// The filter applied after the choice: a chosen version whose pair
    /// fails leaves its left row unmatched.
    fn filter_chosen(
        &self,
        f: &dyn JoinFilter,
        versions: &Versions<S::Tag>,
        left: &RecordBatch,
        pending: Vec<Pending>,
        chosen: &mut [u32],
    ) -> Result<()> {
        let rows = |p: &Pending| versions.group(p.group).1[p.pos as usize];
        let lrows: Vec<u32> = pending.iter().map(|p| p.left).collect();
        let rrows: Vec<u32> = pending.iter().map(rows).collect();
        let keep = self.evaluate(f, left, &lrows, &rrows)?;
        for (k, p) in pending.iter().enumerate() {
            if keep.is_valid(k) && keep.value(k) {
                chosen[p.left as usize] = rows(p);
            }
        }
        Ok(())
    }

    /// The filter applied before the choice: each left row walks from its
    /// closest version to farther ones until a pair passes, a tombstone
    /// (a candidate whatever the filter says: no match) or the group's end.
    /// Each round evaluates the filter once over every walking row's next
    /// candidates, twice as many as in the round before.
    fn filter_candidates(
        &self,
        f: &dyn JoinFilter,
        versions: &Versions<S::Tag>,
        left: &RecordBatch,
        mut pending: Vec<Pending>,
        chosen: &mut [u32],
    ) -> Result<()> {
        let down = walks_down(self.plan.op);
        let mut step = 1usize;
        let (mut lrows, mut rrows, mut spans) = (Vec::new(), Vec::new(), Vec::new());
        while !pending.is_empty() {
            lrows.clear();
            rrows.clear();
            spans.clear();
            for p in &pending {
                let (_, vs) = versions.group(p.group);
                let start = rrows.len();
                // Whether the walk ends with this round's candidates (a
                // tombstone or the group's end next).
                let mut ends = false;
                let mut pos = p.pos as usize;
                for _ in 0..step {
                    let row = vs[pos];
                    if self.tombstone(row) {
                        ends = true;
                        break;
                    }
                    lrows.push(p.left);
                    rrows.push(row);
                    let next = if down {
                        pos.checked_sub(1)
                    } else {
                        Some(pos + 1)
                    };
                    match next.filter(|&q| q < vs.len()) {
                        Some(q) => pos = q,
                        None => {
                            ends = true;
                            break;
                        }
                    }
                }
                spans.push((start, rrows.len() - start, ends, pos as u32));
            }
            let keep = self.evaluate(f, left, &lrows, &rrows)?;
            let mut next = Vec::new();
            for (p, &(start, len, ends, pos)) in pending.iter().zip(&spans) {
                let hit = (start..start + len).find(|&k| keep.is_valid(k) && keep.value(k));
                match hit {
                    Some(k) => chosen[p.left as usize] = rrows[k],
                    None if ends => {}
                    None => next.push(Pending { pos, ..*p }),
                }
            }
            pending = next;
            step = (step * 2).min(MAX_STEP);
        }
        Ok(())
    }

    /// The filter over pairs (`left` rows of the morsel, `right` rows of
    /// the right side), checked to give one value per pair.
    pub(super) fn evaluate(
        &self,
        f: &dyn JoinFilter,
        left: &RecordBatch,
        lrows: &[u32],
        rrows: &[u32],
    ) -> Result<BooleanArray> {
        let n = lrows.len();
        let l = UInt32Array::from(lrows.to_vec());
        let r = UInt32Array::from(rrows.to_vec());
        let keep = f.evaluate(left, self.right, &l, &r)?;
        if keep.len() != n {
            return Err(KernelError::Filter(format!(
                "the filter returned {} values for {n} candidate pairs",
                keep.len()
            )));
        }
        Ok(keep)
    }

    /// Outputs a morsel: its matched rows (and, for LEFT, its unmatched
    /// rows with NULL right columns) in batches of at most `batch_size`.
    pub(super) fn emit(&self, left: &RecordBatch, chosen: &[u32]) -> Result<()> {
        let plan = self.plan;
        let bs = plan.join.options.batch_size;
        if plan.join.join_type == JoinType::Left {
            for (c, rows) in chosen.chunks(bs).enumerate() {
                let n = rows.len();
                let lidx = UInt32Array::from_iter_values((c * bs) as u32..(c * bs + n) as u32);
                let valid: Vec<bool> = rows.iter().map(|&r| r != NONE).collect();
                let values = rows.iter().map(|&r| if r == NONE { 0 } else { r });
                let ridx = UInt32Array::new(values.collect(), Some(NullBuffer::from(valid)));
                let right = Padded(self.right);
                let out = plan
                    .layout
                    .gather(Some((left, &lidx)), Some((&right, &ridx)), n)?;
                (self.sink)(out)?;
            }
            return Ok(());
        }
        let (mut lidx, mut ridx) = (Vec::with_capacity(bs), Vec::with_capacity(bs));
        let flush = |lidx: &mut Vec<u32>, ridx: &mut Vec<u32>| -> Result<()> {
            let n = lidx.len();
            if n == 0 {
                return Ok(());
            }
            let l = UInt32Array::new(ScalarBuffer::from(std::mem::take(lidx)), None);
            let r = UInt32Array::new(ScalarBuffer::from(std::mem::take(ridx)), None);
            let out = plan
                .layout
                .gather(Some((left, &l)), Some((self.right, &r)), n)?;
            (self.sink)(out)
        };
        for (i, &r) in chosen.iter().enumerate() {
            if r != NONE {
                lidx.push(i as u32);
                ridx.push(r);
                if lidx.len() == bs {
                    flush(&mut lidx, &mut ridx)?;
                }
            }
        }
        flush(&mut lidx, &mut ridx)
    }
}

/// The right side with row indices that may be NULL (a LEFT join's
/// unmatched rows): every gather is a `take`, which gives NULL there.
struct Padded<'a>(&'a RecordBatch);

impl RowSource for Padded<'_> {
    fn gather(&self, c: usize, rows: &UInt32Array) -> Result<ArrayRef> {
        Ok(take(self.0.column(c).as_ref(), rows, None)?)
    }

    fn as_batch(&self) -> Option<&RecordBatch> {
        None
    }

    fn schema(&self) -> SchemaRef {
        self.0.schema()
    }
}

//! Partial aggregates and how they are combined.
//!
//! Each worker *sinks* a chunk of the input into a [`Partial`]: its own
//! group table and accumulators. With one partial there is nothing to
//! combine: it is finalized as it is. Otherwise the partials are *combined*
//! in `P` partitions, in parallel:
//!
//! ```text
//!  partial 0: groups ──partition hash──► bucket 0 │ bucket 1 │ ... │ bucket P-1
//!  partial 1: groups ──partition hash──► bucket 0 │ bucket 1 │ ... │ bucket P-1
//!                                           │          │
//!                              task 0: regroup + merge  task 1 ...   (rayon)
//!                                           │          │
//!                                       finalize   finalize  ──► output pieces
//! ```
//!
//! A group's partition depends only on its key (every table hashes with
//! clones of one `RandomState`), so the partitions are disjoint and each is
//! merged by one task without locks. A partition task interns the selected
//! groups' keys into a fresh table (their new group ids) and merges the
//! accumulators' state rows into fresh accumulators.

use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{ArrayRef, UInt32Array};
use rayon::prelude::*;

use super::accumulate::{Accumulator, Selection};
use super::groups::GroupTable;
use crate::exec::error::{ExecError, Result};

/// One worker's aggregation of its chunk of the input.
pub(super) struct Partial {
    pub(super) table: GroupTable,
    pub(super) accs: Vec<Box<dyn Accumulator>>,
}

/// The finalized groups: key columns, then one column per aggregate (before
/// the cast to the schema's types).
#[derive(Debug)]
pub(super) struct Finished {
    pub(super) keys: Vec<ArrayRef>,
    pub(super) aggs: Vec<ArrayRef>,
}

impl Partial {
    /// Finalizes the groups: keys and aggregate results.
    pub(super) fn finish(mut self) -> Result<Finished> {
        let n = self.table.num_groups();
        let keys = self.table.take_keys()?;
        let aggs = self
            .accs
            .iter_mut()
            .map(|a| a.finish(n))
            .collect::<Result<_>>()?;
        Ok(Finished { keys, aggs })
    }

    /// The partial's groups as arrays, and which groups go to which of
    /// `partitions` partitions.
    fn into_state(mut self, partitions: usize, shift: u32) -> Result<PartialState> {
        let n = self.table.num_groups();
        let group_partition: Vec<u32> = self
            .table
            .partition_hashes()
            .into_iter()
            .map(|h| partition_at(h, partitions, shift) as u32)
            .collect();
        let buckets = split_by_partition(group_partition.iter().copied(), partitions);
        let keys = self.table.take_keys()?;
        let states = self
            .accs
            .iter_mut()
            .map(|a| {
                let state = a.state(n)?;
                if !a.state_is_pairs() {
                    return Ok(AccState::Rows(state));
                }
                // Pairs: split once here, not scanned by every partition.
                let Some(groups) = state
                    .first()
                    .and_then(|g| g.as_primitive_opt::<UInt32Type>())
                else {
                    return Ok(AccState::Rows(state));
                };
                let parts = groups.values().iter().map(|&g| group_partition[g as usize]);
                split_by_partition(parts, partitions)
                    .iter()
                    .map(|at| {
                        state
                            .iter()
                            .map(|c| arrow_select::take::take(c.as_ref(), at, None))
                            .collect::<Result<Vec<_>, _>>()
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(AccState::Pairs)
                    .map_err(|e| ExecError::arrow("aggregate (combine)", e))
            })
            .collect::<Result<_>>()?;
        Ok(PartialState {
            num_groups: n,
            keys,
            states,
            buckets,
        })
    }
}

/// Per partition, the positions whose partition (in order) is that one.
fn split_by_partition(parts: impl Iterator<Item = u32>, partitions: usize) -> Vec<UInt32Array> {
    let mut buckets = vec![Vec::new(); partitions];
    for (i, p) in parts.enumerate() {
        buckets[p as usize].push(i as u32);
    }
    buckets.into_iter().map(UInt32Array::from).collect()
}

/// A partial aggregate turned into arrays for combining.
struct PartialState {
    num_groups: usize,
    keys: Vec<ArrayRef>,
    /// Per accumulator, its state.
    states: Vec<AccState>,
    /// Per partition, the groups (rows of `keys` and `states`) in it.
    buckets: Vec<UInt32Array>,
}

/// One accumulator's partial state.
enum AccState {
    /// One row per group.
    Rows(Vec<ArrayRef>),
    /// DISTINCT pairs, already split by their group's partition.
    Pairs(Vec<Vec<ArrayRef>>),
}

/// The hash bits the combine's partitions are taken from: bits 40 and up.
/// hashbrown takes its 7-bit tags from the top bits and its slots from
/// the low bits, so the partition tables keep both well spread.
pub(super) const COMBINE_SHIFT: u32 = 40;

/// The partition of a group with partition hash `hash` out of
/// `partitions` (a power of two), from the hash bits starting at `shift`
/// (a spilled aggregate's levels each take other bits).
pub(super) fn partition_at(hash: u64, partitions: usize, shift: u32) -> usize {
    ((hash >> shift) as usize) & (partitions - 1)
}

/// Combines `partials` in `partitions` partitions (a power of two) and
/// finalizes each; `fresh` makes an empty partial (table and accumulators)
/// for a partition, `pairs` says whether some accumulator merges DISTINCT
/// pairs (and needs every local group's new id).
///
/// # Errors
///
/// Errors of the accumulators (overflow), and Arrow failures.
pub(super) fn combine(
    partials: Vec<Partial>,
    partitions: usize,
    pairs: bool,
    fresh: &(dyn Fn() -> Result<Partial> + Sync),
) -> Result<Vec<Finished>> {
    regroup(partials, partitions, pairs, fresh, COMBINE_SHIFT)?
        .into_par_iter()
        .map(Partial::finish)
        .collect()
}

/// As [`combine`], without finalizing: one partial per partition, the
/// partitions taken from the hash bits starting at `shift` (see
/// [`partition_at`]).
///
/// # Errors
///
/// As [`combine`].
pub(super) fn regroup(
    partials: Vec<Partial>,
    partitions: usize,
    pairs: bool,
    fresh: &(dyn Fn() -> Result<Partial> + Sync),
    shift: u32,
) -> Result<Vec<Partial>> {
    debug_assert!(partitions.is_power_of_two());
    let states: Vec<PartialState> = partials
        .into_par_iter()
        .map(|p| p.into_state(partitions, shift))
        .collect::<Result<_>>()?;
    (0..partitions)
        .into_par_iter()
        .map(|p| {
            let mut out = fresh()?;
            let mut ids = Vec::new();
            let mut local_to_global = Vec::new();
            for state in states.iter() {
                let indices = &state.buckets[p];
                if indices.is_empty() {
                    continue;
                }
                let keys = state
                    .keys
                    .iter()
                    .map(|k| arrow_select::take::take(k.as_ref(), indices, None))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| ExecError::arrow("aggregate (combine)", e))?;
                out.table.intern(&keys, indices.len(), &mut ids)?;
                local_to_global.clear();
                if pairs {
                    local_to_global.resize(state.num_groups, u32::MAX);
                    for (&local, &global) in indices.values().iter().zip(&ids) {
                        local_to_global[local as usize] = global;
                    }
                }
                let sel = Selection {
                    indices,
                    groups: &ids,
                    local_to_global: &local_to_global,
                };
                let n = out.table.num_groups();
                for (acc, acc_state) in out.accs.iter_mut().zip(&state.states) {
                    match acc_state {
                        AccState::Rows(rows) => acc.merge(&sel, rows, n)?,
                        AccState::Pairs(parts) => acc.merge(&sel, &parts[p], n)?,
                    }
                }
            }
            Ok(out)
        })
        .collect()
}

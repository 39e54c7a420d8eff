//! Validating a sort-merge join, and checking presorted declarations.
//!
//! The checks and their messages are the hash join's (the core's
//! `validate`), so the two kernels reject the same joins in the same words.

use std::cmp::Ordering;

use rayon::prelude::*;

use super::SortMergeJoin;
use super::order::{OrderSpec, SideKeys, SortKey};
use crate::error::{KernelError, Result};
use crate::join_type::{JoinSide, Roles};
use crate::kernel::JoinInput;
use crate::kernel::output::OutputLayout;
use crate::keys::KeyKind;

/// Rows per chunk of the parallel presorted check.
const CHECK_ROWS: usize = 1 << 16;

/// A validated join, ready to run.
pub(crate) struct Prepared<'a> {
    pub(super) join: &'a SortMergeJoin,
    pub(super) roles: Roles,
    pub(super) layout: OutputLayout,
    pub(super) kind: KeyKind,
    /// The type of the first key column.
    pub(super) first_type: arrow_schema::DataType,
    pub(super) left: &'a JoinInput,
    pub(super) right: &'a JoinInput,
    /// The side the emitter holds as one batch ("build"); the other side is
    /// read from its batches where they are.
    pub(super) build_side: JoinSide,
    pub(super) left_keys: Vec<usize>,
    pub(super) right_keys: Vec<usize>,
}

impl<'a> Prepared<'a> {
    pub(crate) fn new(
        join: &'a SortMergeJoin,
        left: &'a JoinInput,
        right: &'a JoinInput,
    ) -> Result<Self> {
        let (ls, rs) = (left.schema(), right.schema());
        let (types, kind) = join
            .keys
            .check("sort-merge join", join.join_type, left, right)?;
        // The merge orders keys by their encoding: a packed pair's word
        // does not order like the columns in SQL order (the first column
        // is its low half), arrow-row's bytes do.
        let kind = match kind {
            KeyKind::Pair(..) => KeyKind::rows(&types)?,
            other => other,
        };
        for (i, c) in join.ranges.iter().enumerate() {
            crate::condition::check_condition(i, c, ls, rs)?;
        }
        let layout = join.options.layout(join.join_type, ls, rs)?;
        // The emitter holds one side as a single batch: take a side that is
        // one batch already, else the smaller one (which is then copied).
        let build_side = match (left.batches().len(), right.batches().len()) {
            (_, 0 | 1) => JoinSide::Right,
            (0 | 1, _) => JoinSide::Left,
            _ if left.num_rows() < right.num_rows() => JoinSide::Left,
            _ => JoinSide::Right,
        };
        Ok(Prepared {
            join,
            roles: Roles::new(join.join_type, build_side),
            layout,
            kind,
            first_type: types[0].clone(),
            left,
            right,
            build_side,
            left_keys: join.keys.left_columns(),
            right_keys: join.keys.right_columns(),
        })
    }
}

/// What one chunk of the presorted check found.
struct ChunkCheck {
    first: Option<u32>,
    last: Option<u32>,
    /// The first row whose key is smaller than the non-NULL key before it.
    bad: Option<(u32, u32)>,
}

/// Checks that the non-NULL keys of `side` are in ascending SQL order.
///
/// # Errors
///
/// [`KernelError::InvalidOptions`] naming `what` and the first row out of
/// order.
pub(super) fn check_presorted<S: SortKey>(
    side: &SideKeys<'_, S>,
    spec: &OrderSpec,
    what: &str,
) -> Result<()> {
    debug_assert!(!spec.hash_order);
    let cmp = |a: u32, b: u32| match S::key_of(side, a, spec).cmp(&S::key_of(side, b, spec)) {
        Ordering::Equal if S::TIE => S::tie(side, a, side, b),
        o => o,
    };
    let mut chunks = Vec::new();
    for (b, batch) in side.list.batches().iter().enumerate() {
        for s in (0..batch.num_rows()).step_by(CHECK_ROWS) {
            chunks.push((b, s..(s + CHECK_ROWS).min(batch.num_rows())));
        }
    }
    let offsets = side.list.offsets();
    let found: Vec<ChunkCheck> = chunks
        .par_iter()
        .map(|(b, range)| {
            let (keys, nulls) = (&side.keys[*b], side.nulls[*b].as_ref());
            let mut c = ChunkCheck {
                first: None,
                last: None,
                bad: None,
            };
            let mut prev_key: Option<S::K> = None;
            for i in range.clone() {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    continue;
                }
                let row = (offsets[*b] + i) as u32;
                let k = S::local_key(keys, i, spec);
                if let (Some(p), Some(pk)) = (c.last, prev_key) {
                    let o = match pk.cmp(&k) {
                        Ordering::Equal if S::TIE => S::tie(side, p, side, row),
                        o => o,
                    };
                    if o == Ordering::Greater {
                        c.bad = Some((p, row));
                        break;
                    }
                }
                c.first.get_or_insert(row);
                c.last = Some(row);
                prev_key = Some(k);
            }
            c
        })
        .collect();
    let mut prev: Option<u32> = None;
    for c in &found {
        if let (Some(p), Some(f)) = (prev, c.first)
            && cmp(p, f) == Ordering::Greater
        {
            return Err(out_of_order(what, p, f));
        }
        if let Some((p, r)) = c.bad {
            return Err(out_of_order(what, p, r));
        }
        prev = c.last.or(prev);
    }
    Ok(())
}

fn out_of_order(what: &str, prev: u32, row: u32) -> KernelError {
    KernelError::InvalidOptions(format!(
        "the {what} input was declared presorted, but its row {row} (counting from 0 across \
         its batches) has a smaller join key than row {prev} before it; sort the {what} input \
         ascending on its join keys (SQL order, see the sort-merge join's docs) or do not \
         declare it presorted"
    ))
}

//! The residual join predicate: a condition over candidate pairs.
//!
//! The hash kernels find candidate pairs by key equality; an ON clause may
//! hold more (`a.k = b.k AND a.v < b.v`). That remainder is a [`JoinFilter`],
//! evaluated once per chunk of candidate pairs (never per row) and *before*
//! the outer/semi/anti bookkeeping, so a pair whose keys match but whose
//! filter fails counts as "no match" (docs/hints.md J02).

use std::fmt;

use arrow_array::{BooleanArray, RecordBatch, UInt32Array};

use crate::error::Result;

/// A predicate over candidate pairs of rows.
///
/// `left_rows[i]` and `right_rows[i]` are row indices into `left` and `right`
/// forming the i-th candidate pair. The result must have one entry per pair;
/// `true` keeps the pair, `false` and NULL drop it. The pairs are given in
/// left/right terms whatever side the kernel builds, so a filter is written
/// once per join.
///
/// Closures of the same shape implement the trait.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{BooleanArray, Int64Array, RecordBatch, UInt32Array, cast::AsArray};
/// use arrow_array::types::Int64Type;
/// use tenon_kernels::JoinFilter;
///
/// // left.v < right.v, column 1 on both sides
/// let lt = |l: &RecordBatch, r: &RecordBatch, li: &UInt32Array, ri: &UInt32Array| {
///     let lv = l.column(1).as_primitive::<Int64Type>();
///     let rv = r.column(1).as_primitive::<Int64Type>();
///     Ok(li.values().iter().zip(ri.values())
///         .map(|(&a, &b)| Some(lv.value(a as usize) < rv.value(b as usize)))
///         .collect::<BooleanArray>())
/// };
/// let filter: Arc<dyn JoinFilter> = Arc::new(lt);
/// ```
pub trait JoinFilter: Send + Sync {
    /// Evaluates the predicate for every candidate pair.
    ///
    /// # Errors
    ///
    /// Any error stops the join and is returned to its caller.
    fn evaluate(
        &self,
        left: &RecordBatch,
        right: &RecordBatch,
        left_rows: &UInt32Array,
        right_rows: &UInt32Array,
    ) -> Result<BooleanArray>;
}

impl<F> JoinFilter for F
where
    F: Fn(&RecordBatch, &RecordBatch, &UInt32Array, &UInt32Array) -> Result<BooleanArray>
        + Send
        + Sync,
{
    fn evaluate(
        &self,
        left: &RecordBatch,
        right: &RecordBatch,
        left_rows: &UInt32Array,
        right_rows: &UInt32Array,
    ) -> Result<BooleanArray> {
        self(left, right, left_rows, right_rows)
    }
}

impl fmt::Debug for dyn JoinFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JoinFilter")
    }
}

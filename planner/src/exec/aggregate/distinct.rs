//! `count(DISTINCT x)`, `sum(DISTINCT x)`, `avg(DISTINCT x)`.
//!
//! The distinct (group, value) pairs are the groups of a second
//! [`GroupTable`] keyed by `(group id, x)`: its key columns are exactly the
//! pairs, first occurrences only, NULL values left out. The partial state
//! is those pairs (not one row per group); combining regroups them and
//! drops the pairs another partial saw too; finishing feeds the pairs to
//! the plain accumulator (`count`, `sum`, `avg`) once.

use std::sync::Arc;

use ahash::RandomState;
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, ArrayRef, UInt32Array};
use arrow_schema::DataType;

use super::accumulate::{Accumulator, Selection, pairs_in_partition, primitive};
use super::groups::GroupTable;
use crate::exec::error::{ExecError, Result};

/// A DISTINCT aggregate: distinct pairs, then `inner` over them.
pub(super) struct DistinctAcc {
    name: Arc<str>,
    pairs: GroupTable,
    inner: Box<dyn Accumulator>,
    /// Reused: the pair ids of a batch (unused: only novelty matters).
    ids: Vec<u32>,
}

impl DistinctAcc {
    /// Distinct values of `value_type`, aggregated by `inner`.
    ///
    /// # Errors
    ///
    /// A value type arrow-row cannot encode.
    pub(super) fn new(
        name: Arc<str>,
        value_type: &DataType,
        inner: Box<dyn Accumulator>,
    ) -> Result<Self> {
        let pairs = GroupTable::new(&[DataType::UInt32, value_type.clone()], RandomState::new())?;
        Ok(DistinctAcc {
            name,
            pairs,
            inner,
            ids: Vec::new(),
        })
    }

    /// Adds the pairs `(groups[i], values[i])`, skipping NULL values.
    fn add(&mut self, groups: UInt32Array, values: &ArrayRef) -> Result<()> {
        let (groups, values) = match values.logical_nulls().filter(|n| n.null_count() > 0) {
            None => (groups, Arc::clone(values)),
            Some(nulls) => {
                let keep: UInt32Array = nulls.valid_indices().map(|i| i as u32).collect();
                let take = |a: &dyn Array| arrow_select::take::take(a, &keep, None);
                let groups = take(&groups).map_err(|e| ExecError::arrow(self.context(), e))?;
                let values =
                    take(values.as_ref()).map_err(|e| ExecError::arrow(self.context(), e))?;
                (groups.as_primitive::<UInt32Type>().clone(), values)
            }
        };
        let rows = groups.len();
        self.pairs
            .intern(&[Arc::new(groups), values], rows, &mut self.ids)
    }

    fn context(&self) -> String {
        format!("aggregate `{}` (DISTINCT)", self.name)
    }

    fn missing_values(&self) -> ExecError {
        ExecError::Unsupported(format!("`{}`: DISTINCT needs an argument", self.name))
    }
}

impl Accumulator for DistinctAcc {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, _n: usize) -> Result<()> {
        let values = values.ok_or_else(|| self.missing_values())?;
        self.add(UInt32Array::from(groups.to_vec()), values)
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, _rows: usize) -> Result<()> {
        let values = values.ok_or_else(|| self.missing_values())?;
        self.add(UInt32Array::from(vec![0; values.len()]), values)
    }

    /// The distinct pairs: `[group ids (UInt32), values]`.
    fn state(&mut self, _n: usize) -> Result<Vec<ArrayRef>> {
        self.pairs.take_keys()
    }

    fn merge_rows(&mut self, _groups: &[u32], _state: &[ArrayRef], _n: usize) -> Result<()> {
        Err(ExecError::Unsupported(format!(
            "internal: `{}` merges distinct pairs, not rows per group",
            self.name
        )))
    }

    fn merge(&mut self, sel: &Selection<'_>, state: &[ArrayRef], _n: usize) -> Result<()> {
        let Some((groups, values)) = pairs_in_partition(&self.name, sel, state)? else {
            return Ok(());
        };
        // A partial's pairs are distinct: as many new pairs at most.
        self.pairs.reserve(groups.len());
        self.add(groups, &values)
    }

    fn state_is_pairs(&self) -> bool {
        true
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        let pairs = self.pairs.take_keys()?;
        let groups = primitive::<UInt32Type>(&self.name, &pairs[0])?;
        self.inner.update(groups.values(), Some(&pairs[1]), n)?;
        self.inner.finish(n)
    }
}

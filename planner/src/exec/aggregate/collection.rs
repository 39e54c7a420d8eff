//! `ARRAY_AGG(x)` (an array of the group's values, NULLs included) and
//! `COLLECT(x)` (Flink's multiset of the group's values: each distinct
//! non-NULL value with its count).
//!
//! Both keep the (group, value) pairs as they come, in chunks; the partial
//! state is the pairs, which combining appends (remapped to the global
//! groups). Finishing sorts the pairs by group, stably (a counting sort),
//! and gathers the values once: ARRAY_AGG's elements are in the order the
//! rows arrived, which with several threads is not fixed (as in every
//! engine without `ORDER BY` inside the call). COLLECT counts equal values
//! in a [`GroupTable`] keyed by (group, value) and orders each multiset's
//! entries by value, so its result is the same for every thread count and
//! batch size.

use std::sync::Arc;

use ahash::RandomState;
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, ArrayRef, Int64Array, ListArray, MapArray, StructArray, UInt32Array};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef};

use super::accumulate::{Accumulator, Selection, pairs_in_partition};
use super::groups::GroupTable;
use crate::exec::error::{ExecError, Result};

/// Which collection the pairs make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Make {
    /// `ARRAY_AGG`.
    Array,
    /// `COLLECT`.
    Multiset,
}

/// The accumulator of `ARRAY_AGG` and `COLLECT` (module docs).
pub(super) struct CollectionAcc {
    name: Arc<str>,
    make: Make,
    /// The output type (a list, or a multiset's map).
    output: DataType,
    groups: Vec<UInt32Array>,
    values: Vec<ArrayRef>,
}

impl CollectionAcc {
    pub(super) fn new(name: Arc<str>, make: Make, output: DataType) -> Self {
        CollectionAcc {
            name,
            make,
            output,
            groups: Vec::new(),
            values: Vec::new(),
        }
    }

    fn context(&self) -> String {
        format!("aggregate `{}`", self.name)
    }

    fn missing(&self) -> ExecError {
        ExecError::Unsupported(format!("`{}` needs an argument", self.name))
    }

    fn push(&mut self, groups: UInt32Array, values: ArrayRef) {
        if !groups.is_empty() {
            self.groups.push(groups);
            self.values.push(values);
        }
    }

    /// All pairs: (groups, values), in arrival order.
    fn pairs(&mut self) -> Result<(UInt32Array, Option<ArrayRef>)> {
        let groups: Vec<u32> = self
            .groups
            .drain(..)
            .flat_map(|g| g.values().to_vec())
            .collect();
        let values: Vec<ArrayRef> = self.values.drain(..).collect();
        if values.is_empty() {
            return Ok((UInt32Array::from(groups), None));
        }
        let refs: Vec<&dyn Array> = values.iter().map(|v| v.as_ref()).collect();
        let values =
            arrow_select::concat::concat(&refs).map_err(|e| ExecError::arrow(self.context(), e))?;
        Ok((UInt32Array::from(groups), Some(values)))
    }

    /// The element field of the output type.
    fn element_field(&self) -> Result<FieldRef> {
        match &self.output {
            DataType::List(f) => Ok(Arc::clone(f)),
            DataType::Map(f, _) => Ok(Arc::clone(f)),
            other => Err(ExecError::Unsupported(format!(
                "internal: `{}` makes {other}",
                self.name
            ))),
        }
    }

    fn array(&self, n: usize, groups: &UInt32Array, values: Option<ArrayRef>) -> Result<ArrayRef> {
        let field = self.element_field()?;
        // a counting sort of the pairs by group, stable
        let mut counts = vec![0usize; n + 1];
        for &g in groups.values() {
            counts[g as usize + 1] += 1;
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut total = 0usize;
        offsets.push(0i32);
        for c in &counts[1..] {
            total += c;
            offsets.push(i32::try_from(total).map_err(|_| self.too_long())?);
        }
        let mut next: Vec<usize> = offsets[..n].iter().map(|&o| o as usize).collect();
        let mut order = vec![0u32; total];
        for (i, &g) in groups.values().iter().enumerate() {
            order[next[g as usize]] = i as u32;
            next[g as usize] += 1;
        }
        let values = match values {
            Some(v) => arrow_select::take::take(&v, &UInt32Array::from(order), None)
                .map_err(|e| ExecError::arrow(self.context(), e))?,
            None => arrow_array::new_empty_array(field.data_type()),
        };
        // a group without values (all filtered out) is NULL
        let nulls = NullBuffer::from(counts[1..].iter().map(|&c| c > 0).collect::<Vec<_>>());
        let list = ListArray::try_new(
            field,
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            values,
            Some(nulls).filter(|n| n.null_count() > 0),
        )
        .map_err(|e| ExecError::arrow(self.context(), e))?;
        Ok(Arc::new(list))
    }

    fn multiset(
        &self,
        n: usize,
        groups: &UInt32Array,
        values: Option<ArrayRef>,
    ) -> Result<ArrayRef> {
        let entries = self.element_field()?;
        let DataType::Struct(fields) = entries.data_type() else {
            return Err(ExecError::Unsupported(format!(
                "internal: `{}` makes a map without entries",
                self.name
            )));
        };
        let element_type = fields[0].data_type().clone();
        let (keys, counts) = match values {
            None => (
                UInt32Array::from(Vec::<u32>::new()),
                (arrow_array::new_empty_array(&element_type), Vec::new()),
            ),
            Some(values) => {
                // NULLs are not elements (as in Flink)
                let (groups, values) = match values.logical_nulls().filter(|x| x.null_count() > 0) {
                    None => (groups.clone(), values),
                    Some(nulls) => {
                        let keep: UInt32Array = nulls.valid_indices().map(|i| i as u32).collect();
                        let take = |a: &dyn Array| {
                            arrow_select::take::take(a, &keep, None)
                                .map_err(|e| ExecError::arrow(self.context(), e))
                        };
                        (
                            take(groups)?.as_primitive::<UInt32Type>().clone(),
                            take(values.as_ref())?,
                        )
                    }
                };
                let mut table = GroupTable::new(
                    &[DataType::UInt32, element_type.clone()],
                    RandomState::new(),
                )?;
                let mut ids = Vec::new();
                let rows = groups.len();
                table.intern(&[Arc::new(groups) as ArrayRef, values], rows, &mut ids)?;
                let mut count = vec![0i64; table.num_groups()];
                for &id in &ids {
                    count[id as usize] += 1;
                }
                let pairs = table.take_keys()?;
                // each multiset's entries by value: sort by (group, value)
                let order = arrow_ord::sort::lexsort_to_indices(
                    &[
                        arrow_ord::sort::SortColumn {
                            values: Arc::clone(&pairs[0]),
                            options: None,
                        },
                        arrow_ord::sort::SortColumn {
                            values: Arc::clone(&pairs[1]),
                            options: None,
                        },
                    ],
                    None,
                )
                .map_err(|e| ExecError::arrow(self.context(), e))?;
                let take = |a: &ArrayRef| {
                    arrow_select::take::take(a, &order, None)
                        .map_err(|e| ExecError::arrow(self.context(), e))
                };
                let group_of = take(&pairs[0])?.as_primitive::<UInt32Type>().clone();
                let elements = take(&pairs[1])?;
                let counts: Vec<i64> = order.values().iter().map(|&i| count[i as usize]).collect();
                (group_of, (elements, counts))
            }
        };
        let (elements, counts) = counts;
        let mut offsets = vec![0i32; n + 1];
        for &g in keys.values() {
            offsets[g as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] = offsets[i]
                .checked_add(offsets[i + 1])
                .ok_or_else(|| self.too_long())?;
        }
        let entries_array = StructArray::try_new(
            fields.clone(),
            vec![elements, Arc::new(Int64Array::from(counts)) as ArrayRef],
            None,
        )
        .map_err(|e| ExecError::arrow(self.context(), e))?;
        let map = MapArray::try_new(
            entries,
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            entries_array,
            None,
            false,
        )
        .map_err(|e| ExecError::arrow(self.context(), e))?;
        Ok(Arc::new(map))
    }

    fn too_long(&self) -> ExecError {
        ExecError::Unsupported(format!(
            "`{}`: more than 2^31 values in one result; aggregate fewer rows",
            self.name
        ))
    }
}

impl Accumulator for CollectionAcc {
    fn update(&mut self, groups: &[u32], values: Option<&ArrayRef>, _n: usize) -> Result<()> {
        let values = values.ok_or_else(|| self.missing())?;
        self.push(UInt32Array::from(groups.to_vec()), Arc::clone(values));
        Ok(())
    }

    fn update_all(&mut self, values: Option<&ArrayRef>, rows: usize) -> Result<()> {
        let values = values.ok_or_else(|| self.missing())?;
        self.push(UInt32Array::from(vec![0; rows]), Arc::clone(values));
        Ok(())
    }

    /// The pairs: `[group ids (UInt32), values]`.
    fn state(&mut self, _n: usize) -> Result<Vec<ArrayRef>> {
        let (groups, values) = self.pairs()?;
        let values = match values {
            Some(v) => v,
            None => {
                let field = self.element_field()?;
                let t = match field.data_type() {
                    DataType::Struct(fs) if self.make == Make::Multiset => {
                        fs[0].data_type().clone()
                    }
                    t => t.clone(),
                };
                arrow_array::new_empty_array(&t)
            }
        };
        Ok(vec![Arc::new(groups), values])
    }

    fn merge_rows(&mut self, _groups: &[u32], _state: &[ArrayRef], _n: usize) -> Result<()> {
        Err(ExecError::Unsupported(format!(
            "internal: `{}` merges pairs, not rows per group",
            self.name
        )))
    }

    fn merge(&mut self, sel: &Selection<'_>, state: &[ArrayRef], _n: usize) -> Result<()> {
        if let Some((groups, values)) = pairs_in_partition(&self.name, sel, state)? {
            self.push(groups, values);
        }
        Ok(())
    }

    fn state_is_pairs(&self) -> bool {
        true
    }

    fn finish(&mut self, n: usize) -> Result<ArrayRef> {
        let (groups, values) = self.pairs()?;
        match self.make {
            Make::Array => self.array(n, &groups, values),
            Make::Multiset => self.multiset(n, &groups, values),
        }
    }
}

/// The output type of `ARRAY_AGG(x)` / `COLLECT(x)` over `arg`.
pub(super) fn output_type(make: Make, arg: &DataType) -> DataType {
    match make {
        Make::Array => DataType::List(Arc::new(Field::new_list_field(arg.clone(), true))),
        Make::Multiset => tenon_kernels::multiset_type(arg.clone()),
    }
}

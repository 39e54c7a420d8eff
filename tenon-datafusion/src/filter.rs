//! A DataFusion join filter (the residual condition of a join, a physical
//! expression over an intermediate batch of the columns it reads) as the
//! [`JoinFilter`] tenon's kernels evaluate on candidate pairs.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use datafusion::common::JoinSide as DfJoinSide;
use datafusion::physical_plan::joins::utils::JoinFilter as DfJoinFilter;
use tenon_kernels::{JoinFilter, KernelError};

/// `filter`, evaluated for tenon's kernels: each candidate pair's columns
/// gathered into the filter's intermediate batch, the expression
/// evaluated over it, NULL taken as false.
#[derive(Debug, Clone)]
pub struct DataFusionFilter {
    filter: Option<DfJoinFilter>,
    /// Equality keys tested first, (left column, right column), for a
    /// join that runs without them (the nested loop).
    keys: Vec<(usize, usize)>,
    null_equal: bool,
}

impl DataFusionFilter {
    /// The kernels' form of DataFusion's join filter `filter`.
    pub fn new(filter: DfJoinFilter) -> Self {
        DataFusionFilter {
            filter: Some(filter),
            keys: Vec::new(),
            null_equal: false,
        }
    }

    /// The key equalities `keys` (`IS NOT DISTINCT FROM` when
    /// `null_equal`) and then `filter`, for the nested loop, which has no
    /// keys of its own.
    pub fn with_keys(
        filter: Option<DfJoinFilter>,
        keys: Vec<(usize, usize)>,
        null_equal: bool,
    ) -> Self {
        DataFusionFilter {
            filter,
            keys,
            null_equal,
        }
    }

    /// The DataFusion filter.
    pub fn filter(&self) -> Option<&DfJoinFilter> {
        self.filter.as_ref()
    }

    /// As a kernel filter.
    pub fn into_kernel_filter(self) -> Arc<dyn JoinFilter> {
        Arc::new(
            move |l: &RecordBatch, r: &RecordBatch, lr: &UInt32Array, rr: &UInt32Array| {
                self.evaluate_pairs(l, r, lr, rr)
            },
        )
    }

    fn evaluate_pairs(
        &self,
        left: &RecordBatch,
        right: &RecordBatch,
        left_rows: &UInt32Array,
        right_rows: &UInt32Array,
    ) -> tenon_kernels::Result<BooleanArray> {
        let mut mask: Option<BooleanArray> = None;
        for &(l, r) in &self.keys {
            let a = arrow_select::take::take(left.column(l).as_ref(), left_rows, None)?;
            let b = arrow_select::take::take(right.column(r).as_ref(), right_rows, None)?;
            let eq = if self.null_equal {
                arrow_ord::cmp::not_distinct(&a, &b)?
            } else {
                arrow_ord::cmp::eq(&a, &b)?
            };
            let eq = without_nulls(&eq);
            mask = Some(match mask {
                Some(m) => arrow_arith::boolean::and(&m, &eq)?,
                None => eq,
            });
        }
        let Some(filter) = &self.filter else {
            return Ok(mask.unwrap_or_else(|| BooleanArray::from(vec![true; left_rows.len()])));
        };
        let external = |e: datafusion::error::DataFusionError| KernelError::Filter(e.to_string());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(filter.column_indices().len());
        for c in filter.column_indices() {
            let (batch, rows) = match c.side {
                DfJoinSide::Left => (left, left_rows),
                DfJoinSide::Right => (right, right_rows),
                DfJoinSide::None => {
                    return Err(KernelError::Filter(
                        "a join filter column belongs to neither input".into(),
                    ));
                }
            };
            columns.push(arrow_select::take::take(
                batch.column(c.index).as_ref(),
                rows,
                None,
            )?);
        }
        let batch = RecordBatch::try_new_with_options(
            Arc::clone(filter.schema()),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(left_rows.len())),
        )?;
        let value = filter
            .expression()
            .evaluate(&batch)
            .map_err(external)?
            .into_array(left_rows.len())
            .map_err(external)?;
        let mask_of_keys = mask;
        let Some(mask) = value.as_any().downcast_ref::<BooleanArray>() else {
            return Err(KernelError::Filter(format!(
                "the join filter returned {}, not booleans",
                value.data_type()
            )));
        };
        let kept = without_nulls(mask);
        Ok(match mask_of_keys {
            Some(m) => arrow_arith::boolean::and(&m, &kept)?,
            None => kept,
        })
    }
}

/// `mask` with NULL as false.
fn without_nulls(mask: &BooleanArray) -> BooleanArray {
    match mask.nulls() {
        Some(nulls) if nulls.null_count() > 0 => {
            BooleanArray::new(mask.values() & nulls.inner(), None)
        }
        _ => mask.clone(),
    }
}

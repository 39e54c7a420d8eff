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
    filter: DfJoinFilter,
}

impl DataFusionFilter {
    /// The kernels' form of DataFusion's join filter `filter`.
    pub fn new(filter: DfJoinFilter) -> Self {
        DataFusionFilter { filter }
    }

    /// The DataFusion filter.
    pub fn filter(&self) -> &DfJoinFilter {
        &self.filter
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
        let external = |e: datafusion::error::DataFusionError| KernelError::Filter(e.to_string());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.filter.column_indices().len());
        for c in self.filter.column_indices() {
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
            Arc::clone(self.filter.schema()),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(left_rows.len())),
        )?;
        let value = self
            .filter
            .expression()
            .evaluate(&batch)
            .map_err(external)?
            .into_array(left_rows.len())
            .map_err(external)?;
        let Some(mask) = value.as_any().downcast_ref::<BooleanArray>() else {
            return Err(KernelError::Filter(format!(
                "the join filter returned {}, not booleans",
                value.data_type()
            )));
        };
        // NULL is not true
        Ok(match mask.nulls() {
            Some(nulls) if nulls.null_count() > 0 => {
                BooleanArray::new(mask.values() & nulls.inner(), None)
            }
            _ => mask.clone(),
        })
    }
}

//! [`ExprJoinFilter`]: a compiled expression as the join kernels' residual
//! predicate.
//!
//! The expression is written over the join's combined schema (the left
//! input's columns, then the right input's). For each chunk of candidate
//! pairs it gathers, with one `take` per column, only the columns the
//! expression reads, and evaluates once over that chunk:
//!
//! ```text
//!  left batch   right batch      left_rows  right_rows
//!  a  b  c      x  y               [0, 0, 2]  [1, 3, 3]
//!     │             │                  │          │
//!     └──take(b)────┼──────────────────┘          │
//!                   └──take(y)────────────────────┘
//!                                │
//!            pair batch [b', y'] (3 rows) → evaluate `b' < y'`
//! ```

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, RecordBatch, RecordBatchOptions, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use arrow_select::take::take;
use datafusion_common::DFSchema;
use datafusion_expr::Expr;
use tenon_kernels::{JoinFilter, KernelError};

use crate::expr::context::QueryContext;
use crate::expr::error::{ExprError, Result};
use crate::expr::physical::PhysicalExpr;

/// A residual join predicate compiled from an expression, for the kernels'
/// [`JoinFilter`] slot.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch, UInt32Array};
/// use arrow_schema::{DataType, Field, Schema};
/// use datafusion_common::DFSchema;
/// use datafusion_expr::col;
/// use tenon_kernels::JoinFilter;
/// use tenon_planner::expr::{ExprJoinFilter, QueryContext};
///
/// let l = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
/// let r = Arc::new(Schema::new(vec![Field::new("v", DataType::Int64, false)]));
/// let combined = DFSchema::try_from_qualified_schema("a", &l)?
///     .join(&DFSchema::try_from_qualified_schema("b", &r)?)?;
/// let filter = ExprJoinFilter::try_new(
///     &col("a.v").lt(col("b.v")), &combined, 1, &QueryContext::new())?;
///
/// let left = RecordBatch::try_new(l, vec![Arc::new(Int64Array::from(vec![1, 5]))])?;
/// let right = RecordBatch::try_new(r, vec![Arc::new(Int64Array::from(vec![3]))])?;
/// let keep = filter.evaluate(&left, &right,
///     &UInt32Array::from(vec![0, 1]), &UInt32Array::from(vec![0, 0]))?;
/// assert_eq!(keep.iter().collect::<Vec<_>>(), vec![Some(true), Some(false)]);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ExprJoinFilter {
    /// The predicate, reading column `i` of the pair batch for the i-th
    /// referenced column.
    expr: PhysicalExpr,
    /// The referenced columns: (from the left side?, column index there).
    sources: Vec<(bool, usize)>,
    /// Schema of the pair batch.
    schema: SchemaRef,
}

impl ExprJoinFilter {
    /// Compiles `expr`, a predicate over `schema`: the join's combined
    /// schema, whose first `left_columns` fields are the left input's
    /// columns and the rest the right input's.
    ///
    /// # Errors
    ///
    /// As [`PhysicalExpr::compile`], a non-boolean expression, or
    /// `left_columns` larger than the schema.
    pub fn try_new(
        expr: &Expr,
        schema: &DFSchema,
        left_columns: usize,
        ctx: &QueryContext,
    ) -> Result<Self> {
        let compiled = PhysicalExpr::compile(expr, schema, ctx)?;
        let fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        Self::from_physical(compiled, &fields, left_columns)
    }

    /// Wraps an expression already compiled over the combined schema whose
    /// fields are `fields` (left columns first, `left_columns` of them).
    ///
    /// # Errors
    ///
    /// A non-boolean expression, or `left_columns` larger than `fields`.
    pub fn from_physical(
        expr: PhysicalExpr,
        fields: &[Field],
        left_columns: usize,
    ) -> Result<Self> {
        if !matches!(expr.data_type(), DataType::Boolean | DataType::Null) {
            return Err(ExprError::type_error(
                &expr.text,
                format!(
                    "a join condition must be boolean, this one has type {}",
                    expr.data_type()
                ),
            ));
        }
        if left_columns > fields.len() {
            return Err(ExprError::type_error(
                &expr.text,
                format!(
                    "the left side is said to have {left_columns} columns, but the combined \
                     schema has only {}",
                    fields.len()
                ),
            ));
        }
        let used = expr.columns();
        let sources = used
            .iter()
            .map(|&i| {
                if i < left_columns {
                    (true, i)
                } else {
                    (false, i - left_columns)
                }
            })
            .collect();
        let schema = Arc::new(Schema::new(
            used.iter()
                .map(|&i| fields[i].clone().with_nullable(true))
                .collect::<Vec<_>>(),
        ));
        let expr = expr.remap_columns(&|i| used.binary_search(&i).unwrap_or(usize::MAX));
        Ok(ExprJoinFilter {
            expr,
            sources,
            schema,
        })
    }

    /// The compiled predicate (over the pair batch's columns).
    pub fn expr(&self) -> &PhysicalExpr {
        &self.expr
    }

    /// Evaluates the predicate on candidate pairs, with this module's error
    /// type.
    ///
    /// # Errors
    ///
    /// Index vectors of different lengths or out of range, input columns of
    /// other types than the expression was compiled for, or an evaluation
    /// error.
    pub fn evaluate_pairs(
        &self,
        left: &RecordBatch,
        right: &RecordBatch,
        left_rows: &UInt32Array,
        right_rows: &UInt32Array,
    ) -> Result<BooleanArray> {
        let text = &self.expr.text;
        if left_rows.len() != right_rows.len() {
            return Err(ExprError::Eval {
                expr: text.to_string(),
                message: format!(
                    "{} left rows but {} right rows in one chunk of candidate pairs",
                    left_rows.len(),
                    right_rows.len()
                ),
            });
        }
        let columns = self
            .sources
            .iter()
            .map(|&(is_left, i)| {
                let (batch, rows, side) = if is_left {
                    (left, left_rows, "left")
                } else {
                    (right, right_rows, "right")
                };
                let column = batch.columns().get(i).ok_or_else(|| ExprError::Eval {
                    expr: text.to_string(),
                    message: format!(
                        "the {side} input has {} columns, the filter reads column {i}",
                        batch.num_columns()
                    ),
                })?;
                take(column.as_ref(), rows, None).map_err(|e| ExprError::arrow(text, e))
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(left_rows.len()));
        let pairs = RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
            .map_err(|e| ExprError::arrow(text, e))?;
        self.expr.evaluate_predicate(&pairs)
    }
}

impl JoinFilter for ExprJoinFilter {
    fn evaluate(
        &self,
        left: &RecordBatch,
        right: &RecordBatch,
        left_rows: &UInt32Array,
        right_rows: &UInt32Array,
    ) -> tenon_kernels::Result<BooleanArray> {
        self.evaluate_pairs(left, right, left_rows, right_rows)
            .map_err(|e| KernelError::Filter(e.to_string()))
    }
}

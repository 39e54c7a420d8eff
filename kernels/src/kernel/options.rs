//! The options every kernel shares.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use arrow_schema::{Schema, SchemaRef};

use super::output::OutputLayout;
use super::validate::check_batch_size;
use crate::error::{KernelError, Result};
use crate::filter::JoinFilter;
use crate::join_type::JoinType;
use crate::memory::MemoryBudget;

/// The options of a join that do not depend on its strategy: output batch
/// size, worker threads, memory budget, output projection and residual
/// filter. Every kernel holds one, and every kernel's builder methods
/// ([`JoinKernel::batch_size`](crate::JoinKernel::batch_size) and the
/// others) set it.
///
/// Defaults: batches of 8192 rows, the current rayon pool (`threads` 0),
/// no memory limit, every column of each output side, no filter.
///
/// ```
/// use arrow_schema::{DataType, Field, Schema};
/// use tenon_kernels::{JoinOptions, JoinType};
///
/// let left = Schema::new(vec![
///     Field::new("k", DataType::Int64, false),
///     Field::new("v", DataType::Utf8, false),
/// ]);
/// let right = Schema::new(vec![Field::new("k", DataType::Int64, false)]);
/// let options = JoinOptions {
///     left_projection: Some(vec![1]),
///     ..JoinOptions::default()
/// };
/// let schema = options.output_schema(JoinType::Left, &left, &right).unwrap();
/// let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
/// assert_eq!(names, ["v", "k"]);
/// assert!(schema.field(1).is_nullable()); // the NULL-extended side
/// ```
#[derive(Clone)]
pub struct JoinOptions {
    /// At most this many rows per output batch (at least 1).
    pub batch_size: usize,
    /// Worker threads: 0 runs `for_each` and `collect` on the current rayon
    /// pool (the global one by default) and `execute` on a pool of its own
    /// as large as the current one; `n > 0` runs on a pool of its own with
    /// `n` threads.
    pub threads: usize,
    /// The memory budget the kernel reserves its tables and copies from.
    pub memory: MemoryBudget,
    /// The left columns to output, in this order (`None`: all).
    pub left_projection: Option<Vec<usize>>,
    /// The right columns to output, in this order (`None`: all).
    pub right_projection: Option<Vec<usize>>,
    /// A residual condition over candidate pairs (the rest of an ON
    /// clause), ANDed with the kernel's own conditions.
    pub filter: Option<Arc<dyn JoinFilter>>,
    /// When set, the join stops with [`KernelError::Cancelled`] soon after
    /// the flag is: the nested loop checks it between blocks of candidate
    /// pairs, where it may run long without output (the other kernels stop
    /// at their next output batch, as their sink's caller checks).
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for JoinOptions {
    fn default() -> Self {
        JoinOptions {
            batch_size: 8192,
            threads: 0,
            memory: MemoryBudget::unlimited(),
            left_projection: None,
            right_projection: None,
            filter: None,
            cancel: None,
        }
    }
}

impl std::fmt::Debug for JoinOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinOptions")
            .field("batch_size", &self.batch_size)
            .field("threads", &self.threads)
            .field("left_projection", &self.left_projection)
            .field("right_projection", &self.right_projection)
            .field("filter", &self.filter.is_some())
            .finish()
    }
}

impl JoinOptions {
    /// [`KernelError::Cancelled`] once [`JoinOptions::cancel`] is set.
    pub(crate) fn check_cancelled(&self) -> Result<()> {
        match &self.cancel {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(KernelError::Cancelled),
            _ => Ok(()),
        }
    }

    /// The schema of the output of a `join_type` join over inputs of these
    /// schemas (see [`join_schema`](crate::join_schema)).
    ///
    /// # Errors
    ///
    /// A projection index out of range.
    pub fn output_schema(
        &self,
        join_type: JoinType,
        left: &Schema,
        right: &Schema,
    ) -> Result<SchemaRef> {
        Ok(OutputLayout::new(
            left,
            right,
            join_type,
            self.left_projection.as_deref(),
            self.right_projection.as_deref(),
        )?
        .schema)
    }

    /// The output layout of a join about to run, after checking the batch
    /// size (and, as [`JoinOptions::output_schema`], the projections).
    pub(crate) fn layout(
        &self,
        join_type: JoinType,
        left: &Schema,
        right: &Schema,
    ) -> Result<OutputLayout> {
        check_batch_size(self.batch_size)?;
        OutputLayout::new(
            left,
            right,
            join_type,
            self.left_projection.as_deref(),
            self.right_projection.as_deref(),
        )
    }
}

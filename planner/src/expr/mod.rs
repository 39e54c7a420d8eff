//! Expressions evaluated vectorized on Arrow compute kernels, and join
//! filters built from them.
//!
//! The SQL front end produces DataFusion [`Expr`](datafusion_expr::Expr)s
//! over a [`DFSchema`](datafusion_common::DFSchema), not type-coerced.
//! [`PhysicalExpr::compile`] binds one to column indices, infers types and
//! inserts the casts SQL coercion needs (DataFusion's coercion rules);
//! [`PhysicalExpr::evaluate`] runs it on a `RecordBatch`, one Arrow kernel
//! call per node and batch.
//!
//! # Design
//!
//! * **A tree of enum nodes**, not trait objects. The set of node kinds is
//!   closed and small, the evaluator is one `match` per node, and a tree
//!   can be walked, remapped (a join filter reads a narrower batch) and
//!   folded without downcasting. Function calls are the open end: they hold
//!   DataFusion's `ScalarUDF` and call its vectorized implementation.
//! * **Scalars stay scalars**: literals and constant subtrees are [`Value`]
//!   scalars handed to the kernels as scalar `Datum`s.
//! * **Errors, not panics**: every failure is an [`ExprError`] naming the
//!   expression; integer overflow and division by zero are errors (checked
//!   kernels), never wrapped values.
//! * **Lazy where SQL expects it**: CASE branches, COALESCE arguments and
//!   the right operand of AND/OR (when it can fail) are evaluated only on
//!   the rows that need them.
//! * **One clock per query**: [`QueryContext`] fixes `NOW()` and
//!   `CURRENT_DATE` when the query starts (docs/hints.md J05).
//!
//! For joins, [`ExprJoinFilter`] implements the kernels' `JoinFilter`; the
//! comparisons the kernels can search instead of testing pairs are pulled
//! out of a join's predicate where the join is lowered
//! (`exec/lower/ranges.rs`).
//!
//! # Examples
//!
//! See [`PhysicalExpr::compile`].

mod coerce;
pub(crate) mod collection_fn;
mod column_index;
mod compile;
mod conditional;
mod context;
pub(crate) mod decimal;
mod dictionary;
mod error;
mod eval;
pub mod flink;
mod interval;
mod join_filter;
mod like;
mod logic;
mod narrow;
mod narrow_arith;
mod physical;
mod prune;
mod scalar_fn;
pub mod string_size;
pub mod time_text;
mod value;
mod view_compare;

pub use context::QueryContext;
pub use error::{ExprError, Result};
pub(crate) use interval::readable_intervals;
pub use join_filter::ExprJoinFilter;
pub(crate) use narrow_arith::evaluate_narrow;
pub use physical::PhysicalExpr;
pub use prune::{ColumnStatistics, ScanFilter};
pub use value::Value;

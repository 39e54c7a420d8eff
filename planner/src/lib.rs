//! The tenon planner: SQL with join hints to physical plans (in progress).
//!
//! * [`config`]: the settings (`--set KEY=VALUE`), defaults and checks.
//! * [`choose`]: SQL to a strategy and build side for every join (EXPLAIN).
//! * [`hints`]: the hint grammar (HINTS.md H01–H07) and hint resolution.
//! * [`sql`]: SQL text to DataFusion logical plans, with each query block's
//!   hints kept.
//! * [`expr`]: expressions evaluated vectorized on Arrow compute kernels,
//!   and join filters built from them.
//!
//! The physical planner and the pipelines that run plans on the kernels
//! come next.
#![deny(missing_docs)]

pub mod choose;
pub mod config;
pub mod exec;
pub mod expr;
pub mod hints;
pub mod prepare;
pub mod sql;

pub use tenon_kernels as kernels;

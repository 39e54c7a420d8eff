//! Running planned queries: logical plans lowered to a physical plan
//! ([`lower`]) whose joins run on the kernels with the chosen strategy,
//! executed as push-based pipelines on a rayon pool ([`execute`]).
//!
//! ```text
//! JoinPlan (choose) ──lower──► PhysicalPlan (operators, Arrow schemas)
//!     ──execute──► pipelines: scan → filter → project ─┐ streaming, fused
//!                  breakers: join inputs, aggregate, sort, limit
//!                  (an aggregate over an INNER join: fused into it, join_aggregate)
//! ```
//!
//! A hash join's complete build side gives the operators below its probe
//! side a filter over its keys ([`runtime_filter`]).

mod adapt;
mod aggregate;
mod error;
mod expand;
pub mod held_form;
mod join_aggregate;
mod join_run;
mod limit;
pub mod lookup;
mod lower;
mod multi_join;
mod plan;
mod run;
mod runtime_filter;
mod set_op;
pub(crate) mod shared;
mod sort;
mod source;
pub mod spill;

pub use aggregate::{AggregateSink, HashAggregate};
pub use error::{ExecError, Result};
pub use join_aggregate::JoinAggregate;
pub use lower::lower;
pub use plan::{Operator, OperatorMetrics, PhysicalPlan};
pub use run::{Sink, collect, execute, execute_cancellable};
pub use runtime_filter::{
    AppliedFilter, MIN_PROBE_ROWS_PER_BUILD_ROW, ProducedFilter, RuntimeFilterInfo, RuntimeFilters,
    filter_name,
};
pub use sort::SortExec;
pub use source::{ScanReport, ScanRequest, TableData, TableSource, Tables};

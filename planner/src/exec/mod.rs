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

mod adapt;
mod aggregate;
mod error;
mod join_aggregate;
mod join_run;
mod limit;
mod lower;
mod plan;
mod run;
mod set_op;
mod sort;
mod source;

pub use aggregate::{AggregateSink, HashAggregate};
pub use error::{ExecError, Result};
pub use join_aggregate::JoinAggregate;
pub use lower::lower;
pub use plan::{Operator, OperatorMetrics, PhysicalPlan};
pub use run::{Sink, collect, execute};
pub use sort::SortExec;
pub use source::{ScanReport, ScanRequest, TableData, TableSource, Tables};

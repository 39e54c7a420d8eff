//! The tenon planner: SQL with join hints to physical plans that run on
//! the join kernels.
//!
//! * [`prepare`]: the one entry point. [`prepare::plan_statement`] takes
//!   SQL, a [`prepare::CatalogProvider`] that the embedding program
//!   implements (tables, statistics, views, functions, and each scan's
//!   source given its OPTIONS) and the [`config::Config`], and returns a
//!   [`prepare::PreparedQuery`] ready to run as often as needed.
//! * [`sql`]: the SQL front end: SQL text to a DataFusion logical plan
//!   (datafusion-sql's `SqlToRel` with tenon's dialect), each query block's
//!   hints kept and each join attributed to its block, and tenon's own
//!   rewrites (implicit joins, IN/EXISTS/scalar subqueries as joins, filter
//!   pushdown, equi keys split from the residual), views, DDL and scripts,
//!   and the statement limits.
//! * [`hints`]: the hint grammar and its resolution per query block, and
//!   the default choice without a valid hint (docs/hints.md H01–H25).
//! * [`choose`]: the one place that decides each join's strategy and build
//!   side before anything runs (hinted, default, and the joins of
//!   INTERSECT/EXCEPT), with size estimates; each join node carries its
//!   decision ([`choose::JoinPlan::decision_of`]); EXPLAIN's text and JSON
//!   (docs/cli.md).
//! * [`exec`]: lowering (`exec::lower`, with projection pushdown) and
//!   execution as push-based pipelines on a rayon pool: scans (lazy file
//!   sources included), joins on the kernels (`exec/join_run.rs`) with the
//!   run-time adaptations (`exec/adapt.rs`: the adaptive build side, and
//!   skipping a probe side that cannot match), runtime join filters,
//!   hash aggregation, sorts and top-N, streaming LIMIT/OFFSET, set
//!   operations, all charged to the query's memory budget.
//! * [`expr`]: expressions compiled and evaluated vectorized on Arrow
//!   compute kernels; join filters and range conditions built from them;
//!   scan filters checked against Parquet statistics.
//! * [`lookup`]: lookup joins' sources ([`lookup::LookupSource`], which an
//!   embedder implements for its store) and options (the `LOOKUP` hint).
//! * [`config`]: the settings (`--set KEY=VALUE`), their defaults and bounds.
//!
//! The kernels are `tenon-kernels`' own (`tenon_kernels::HashJoin`, ...):
//! this crate builds on them and does not re-export them.
#![deny(missing_docs)]

pub mod choose;
pub mod config;
pub mod exec;
pub mod expr;
pub mod hints;
pub mod lookup;
pub mod prepare;
pub mod sql;
pub mod statistics;
pub mod table_function;
pub mod words;

//! The planner's integration tests, one module per former test file, in
//! one binary: each test binary links DataFusion, and linking thirteen of
//! them was most of CI's build time.

mod choose_explain;
mod choose_lowering;
mod choose_rules;
mod choose_statistics;
mod exec_aggregate;
mod exec_aggregate_props;
mod exec_sort;
mod expr_eval;
mod expr_join_filter;
mod hints_conflicts;
mod hints_default;
mod hints_parse;
mod hints_resolve;
mod hints_seeds;
mod hints_support;
mod sql_blocks;
mod sql_errors;
mod sql_exists;
mod sql_joins;
mod sql_pushdown;
mod sql_support;
mod sql_views;

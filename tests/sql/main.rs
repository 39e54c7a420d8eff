//! SQL through the `tenon` facade, end to end: the Session API (joins of
//! every type under every strategy against a naive reference, the hint
//! rules of `docs/hints.md`, the other operators, errors) and
//! `tenon query` as a user runs it (`docs/cli.md`).
//!
//! One test binary with modules: each test binary links DataFusion (through
//! the planner), and linking several of them was most of CI's build time.

mod cancel;
mod cli_output;
mod cli_query;
mod cli_script;
mod cluster;
mod common;
mod ddl;
mod deep_sql;
mod differential;
mod differential_duckdb;
mod docs_contract;
mod error_words;
mod errors;
mod fidelity;
mod flink_functions;
mod flink_statements;
mod floats;
mod fuzz;
mod held_aggregates;
mod hints;
mod interval;
mod join_aggregate;
mod join_reorder;
mod joins;
mod lazy_scans;
mod lazy_tables;
mod limits;
mod lookup;
mod memory;
mod multi_join;
mod nested_types;
mod operators;
mod options;
mod or_joins;
mod out_of_range;
mod page_pruning;
mod runtime_filters;
mod session_api;
mod set_ops;
mod shared_subplans;
mod shell;
mod small_edges;
mod spill;
mod spill_aggregate;
mod spill_collected;
mod spill_safety;
mod spill_set_ops;
mod spill_sort;
mod spill_time;
mod statistics;
mod time_asof;
mod time_ddl;
mod time_temporal;
mod tpch;
mod tpch_hints;
mod tpch_spill;
mod unnest;
mod views;
mod wide_tables;

//! Issue 52's wrong answers at the edges, each test named after the case
//! it pins down: the answers are SQL's (and DuckDB's, which gives the same
//! rows for every query here).

mod edges;
mod empty_group;
mod join_syntax;
mod not_in_spill;
mod ties;
mod unions;
mod using;

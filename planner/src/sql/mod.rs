//! The SQL front end: SQL text to logical plans with hints kept per query block (in progress).

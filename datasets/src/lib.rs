//! Synthetic join workloads for tenon's tests and benchmarks.
//!
//! [`generate`] materializes one [`Workload`] at a given scale and seed as a
//! pair of Arrow [`RecordBatch`](arrow_array::RecordBatch)es ([`Tables`]):
//! the big/left `probe` side and the small/right `build` side.
//! [`split_batches`] cuts a side into zero-copy batches for streaming.
//!
//! Every side has the non-null columns `k: Int64` (join key), `p: Int64`
//! (the row's index in its table) and `s: Utf8` (4 to 12 characters);
//! `band` adds `t: Int64` and `nlj` adds `v: Int64`. Join keys are integer
//! ids multiplied by the odd constant `0x9E37_79B9_7F4A_7C15` (wrapping), so
//! distinct ids have distinct keys but no dense key range.
//!
//! Generation is deterministic in `(workload, scale, seed)` and independent
//! of the number of rayon threads. The crate README describes each
//! workload's distribution and expected match counts.
//!
//! ```
//! use tenon_datasets::{Workload, generate, split_batches};
//!
//! let tables = generate(Workload::FkSmall, 0.001, 42);
//! assert_eq!(tables.probe.num_rows(), 10_000);
//! assert_eq!(tables.build.num_rows(), 1);
//! let batches = split_batches(&tables.probe, 4_096);
//! assert_eq!(batches.len(), 3);
//! ```
#![deny(missing_docs)]

mod columns;
mod generator;
mod nested;
mod rng;
mod shuffle;
mod split;
pub mod tpch;
mod workload;
mod zipf;

pub use generator::{Tables, generate};
pub use nested::{ARRAYS_FULL_ROWS, arrays};
pub use split::split_batches;
pub use workload::{ParseWorkloadError, Workload};

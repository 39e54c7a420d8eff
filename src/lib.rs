//! tenon: an Arrow-native, vectorized join execution engine.
//!
//! Today the library offers the join kernels ([`kernels`]: hash, sort-merge
//! and nested-loop joins), the synthetic workloads they are measured on
//! ([`datasets`]) and the benchmark suite over them ([`suite`]); the SQL
//! planner and the session API come next (see the README's status list).
//!
//! # Examples
//!
//! ```
//! use tenon::datasets::{Workload, generate};
//! use tenon::kernels::{HashJoin, HashJoinMode, JoinInput, JoinKernel, JoinType};
//! use tenon::measure::count_and_sum;
//!
//! let t = generate(Workload::FkSmall, 0.0001, 42);
//! let join = HashJoin::new(JoinType::Inner, vec![(0, 0)]).mode(HashJoinMode::Broadcast);
//! let r = count_and_sum(&join.into(), &JoinInput::from_batch(t.probe), &JoinInput::from_batch(t.build)).unwrap();
//! assert_eq!(r.rows, 1000); // every probe row finds its key
//! ```
#![deny(missing_docs)]

pub mod bench;
pub mod error;
pub mod io;
pub mod measure;
pub mod options;
pub mod session;
pub mod suite;

pub use error::Error;
pub use session::{Explain, QueryOutput, QueryStream, Session, StatementOutput};
pub use tenon_planner as planner;
pub use tenon_planner::config::Config;

pub use tenon_datasets as datasets;
pub use tenon_kernels as kernels;

//! tenon: an Arrow-native, vectorized join execution engine.
//!
//! What a program that embeds tenon gets:
//!
//! * [`Session`]: register tables (Arrow batches, Parquet / CSV / Arrow IPC
//!   / JSON files read lazily or held in memory, the TPC-H tables), run SQL
//!   with join hints (`/*+ BROADCAST(t) */`), DDL (`CREATE TABLE ... WITH`,
//!   `CREATE VIEW`) and scripts; settings as `set(key, value)` strings or
//!   typed methods ([`Session::set_memory_limit`], ...).
//! * [`Query`]: a statement planned once by [`Session::sql`], to collect,
//!   stream, explain or explain-analyze as often as needed.
//! * [`JoinBuilder`]: a join built in Rust without SQL
//!   ([`Session::table`], [`TableRef::join`], [`JoinBuilder::strategy`]),
//!   planned as the hinted SQL it stands for.
//! * [`Explain`] and [`PlanReport`]: each join's strategy, build side and
//!   reason, and the operator tree, as text, JSON or serializable types.
//! * [`Error`]: one error type, whose variants tell bad input from
//!   execution failures ([`Error::exit_code`]) and keep their causes
//!   ([`std::error::Error::source`]).
//! * [`io`]: reading and writing Arrow data as Parquet, CSV, JSON and Arrow
//!   IPC; [`kernels`]: the join kernels themselves (hash, sort-merge,
//!   nested loop, as-of); [`planner`]: the SQL planner; [`datasets`],
//!   [`suite`], [`bench`](mod@bench) and [`measure`]: the synthetic
//!   workloads and the benchmark report behind `tenon bench`.
//!
//! The `tenon` command line is the `cli` feature (on by default); build
//! with `default-features = false` for the library alone (no clap,
//! indicatif, mimalloc or signal-hook).
//!
//! # Examples
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Int64Array, RecordBatch};
//! use tenon::{Config, JoinType, Session, Strategy};
//!
//! let mut session = Session::new(Config::default())?;
//! session.register_batch("orders", RecordBatch::try_from_iter([
//!     ("cust", Arc::new(Int64Array::from(vec![1, 1, 2])) as _),
//! ])?)?;
//! session.register_batch("customers", RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from(vec![1, 2])) as _),
//! ])?)?;
//! let query = session.sql(
//!     "SELECT /*+ BROADCAST(customers) */ count(*) FROM orders JOIN customers ON cust = id",
//! )?;
//! assert_eq!(query.explain()?.joins[0].strategy, Strategy::Broadcast);
//! assert_eq!(query.collect()?[0].num_rows(), 1);
//!
//! let built = session
//!     .table("orders")?
//!     .join(session.table("customers")?, JoinType::Inner, ["cust"], ["id"])?
//!     .strategy(Strategy::ShuffleHash);
//! assert_eq!(built.run()?.num_rows(), 3);
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! The kernels alone, on a synthetic workload:
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

// The command line's modules name the library as `tenon::...`, as a program
// that embeds it would.
extern crate self as tenon;

pub mod bench;
/// The `tenon` command line (feature `cli`): in the library, so that the
/// binary and the Python package run the same code (`tenon.bench()` is
/// `tenon bench`).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
mod error;
pub mod io;
mod lookup;
pub mod measure;
pub mod options;
mod session;
pub mod suite;

pub use error::{Cause, Error};
pub use session::{
    CancelHandle, Explain, JoinBuilder, JoinReport, PlanReport, Query, QueryOutput, QueryStream,
    RuntimeFilterReport, Session, StatementOutput, TableRef,
};
pub use tenon_kernels::{JoinSide, JoinType, Strategy};
pub use tenon_planner as planner;
pub use tenon_planner::config::{Config, HintMode};

pub use tenon_datasets as datasets;
pub use tenon_kernels as kernels;

//! The tenon planner: SQL with join hints to physical plans.
//!
//! Not written yet: this crate is a placeholder in the workspace layout so
//! that the dependency direction `tenon -> tenon-planner -> tenon-kernels`
//! is fixed from the start. It re-exports the kernels it will plan onto.
#![deny(missing_docs)]

pub use tenon_kernels as kernels;

//! `tenon._tenon`: the Rust half of tenon's Python package. The package
//! (`python/tenon/__init__.py`) re-exports it and adds `tenon.bench()`.
//!
//! - [`session`]: `tenon.Session`, which registers Arrow data (anything
//!   with `__arrow_c_stream__`, without copying its buffers), files and
//!   the TPC-H tables, takes settings, and runs SQL with join hints.
//! - [`result`]: `tenon.Result`, a planned query: an Arrow stream itself,
//!   collected to pyarrow, Polars or pandas, explained, explain-analyzed.
//! - [`arrow`]: the Arrow PyCapsule interface, both ways.
//! - [`errors`]: tenon's errors as Python exceptions.
//! - [`interrupt`]: running with the GIL released, stopping on Ctrl-C.

use pyo3::prelude::*;

mod arrow;
mod errors;
mod interrupt;
mod result;
mod session;

// Joins allocate many short-lived buffers, which glibc's malloc hands back
// to the kernel and faults in again batch after batch (the `tenon` binary
// uses mimalloc for the same reason). Only Rust's allocations go through it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs `tenon bench` with `args` (what follows `bench` on the command
/// line), with the GIL released; Ctrl-C stops waiting for it.
#[pyfunction]
fn _bench(py: Python<'_>, args: Vec<String>) -> PyResult<()> {
    interrupt::run(py, move || tenon::cli::bench(args))
        .and_then(|r| r.map_err(|(code, message)| errors::bench_error(code, message)))
}

/// The extension module.
#[pymodule]
fn _tenon(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<session::PySession>()?;
    m.add_class::<result::QueryResult>()?;
    m.add_class::<arrow::Batches>()?;
    m.add_function(wrap_pyfunction!(_bench, m)?)?;
    errors::register(m)?;
    Ok(())
}

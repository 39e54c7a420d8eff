//! Running tenon with the GIL released, so that other Python threads go
//! on, and Ctrl-C still reaches the caller promptly.
//!
//! Python's own SIGINT handler only sets a flag, which
//! `PyErr_CheckSignals` (`Python::check_signals`) turns into
//! `KeyboardInterrupt` on the main thread, with the GIL held. So the work
//! runs elsewhere (the query's own threads, or a thread of its own) while
//! this thread waits for it without the GIL, a few milliseconds at a time,
//! taking the GIL back between waits to check for a signal.

use std::sync::mpsc;
use std::time::Duration;

use arrow_array::RecordBatch;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use tenon::QueryStream;

use crate::errors::to_py;

/// How long a wait lasts before the signal check: Ctrl-C is seen within
/// this much time.
const POLL: Duration = Duration::from_millis(50);

/// Every batch of `stream`, waited for without the GIL. On Ctrl-C the query
/// is cancelled (its threads stop at their next batch) and the
/// `KeyboardInterrupt` returned.
pub(crate) fn collect(py: Python<'_>, stream: QueryStream) -> PyResult<Vec<RecordBatch>> {
    collect_or_error(py, stream)?.map_err(to_py)
}

/// As [`collect`], with the query's own error kept as tenon's (`Ok(Err)`),
/// apart from the interrupt (`Err`): for a caller that adds context to it.
pub(crate) fn collect_or_error(
    py: Python<'_>,
    mut stream: QueryStream,
) -> PyResult<Result<Vec<RecordBatch>, tenon::Error>> {
    let mut batches = Vec::new();
    loop {
        match py.detach(|| stream.next_timeout(POLL)) {
            Some(Some(Ok(batch))) => batches.push(batch),
            Some(Some(Err(e))) => return Ok(Err(e)),
            Some(None) => return Ok(Ok(batches)),
            None => {
                if let Err(interrupt) = py.check_signals() {
                    stream.cancel_handle().cancel();
                    return Err(interrupt);
                }
            }
        }
    }
}

/// `work`'s result, run on a thread of its own while this one waits
/// without the GIL. On Ctrl-C the `KeyboardInterrupt` is returned at once
/// and the work goes on to its end in the background (what calls this
/// cannot be cancelled: registering data, a benchmark).
pub(crate) fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("tenon-python".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver is not `Sync`: it goes into the wait and comes back.
        let (got, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match got {
            Ok(value) => return Ok(value),
            Err(mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "internal: tenon's thread ended without a result (it panicked)",
                ));
            }
        }
    }
}

//! Where a kernel's work runs: the caller's rayon pool, or one of its own.

use crate::error::{KernelError, Result};

/// Runs `f` on the current rayon pool when `threads` is 0, else on a new
/// pool of `threads` workers (the `threads(n)` option of every kernel).
pub(crate) fn install<R: Send>(threads: usize, f: impl FnOnce() -> Result<R> + Send) -> Result<R> {
    if threads == 0 {
        f()
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| KernelError::Internal(format!("cannot start worker threads: {e}")))?;
        pool.install(f)
    }
}

/// The workers `install(threads, ..)` runs on: `threads`, or the current
/// pool's when it is 0.
pub(crate) fn threads_of(threads: usize) -> usize {
    if threads == 0 {
        rayon::current_num_threads()
    } else {
        threads
    }
}

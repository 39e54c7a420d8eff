//! The output of a join as an iterator of batches.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::emit::BatchSink;
use crate::error::{KernelError, Result};

/// Output batches of a running join, in the order the workers finish them.
///
/// The join runs on its worker threads while the stream is read; they stop
/// when a few batches per thread are waiting, so memory stays bounded
/// however large the result. Dropping the stream stops the join.
///
/// Batch order is not fixed between runs with several threads; the multiset
/// of rows is.
#[derive(Debug)]
pub struct JoinStream {
    schema: SchemaRef,
    rx: Option<Receiver<Result<RecordBatch>>>,
    handle: Option<JoinHandle<()>>,
}

impl JoinStream {
    /// Runs `run` on a thread of its own, on a rayon pool of `threads`
    /// workers (0: as many as the caller's current pool), streaming what it
    /// pushes into its sink. Every kernel's `execute` goes through here.
    pub(crate) fn spawn<F>(threads: usize, schema: SchemaRef, run: F) -> Result<Self>
    where
        F: FnOnce(&BatchSink<'_>) -> Result<()> + Send + 'static,
    {
        // The join always gets a pool of its own here: on a shared pool, a
        // consumer that reads the stream from one of the pool's own threads
        // would wait for workers it is itself keeping busy.
        let threads = if threads == 0 {
            rayon::current_num_threads()
        } else {
            threads
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| KernelError::Internal(format!("cannot start worker threads: {e}")))?;
        let (tx, rx) = sync_channel::<Result<RecordBatch>>(threads * 2);
        let handle = std::thread::Builder::new()
            .name("tenon-join".into())
            .spawn(move || {
                let send = |b: RecordBatch| tx.send(Ok(b)).map_err(|_| KernelError::Cancelled);
                let res = catch_unwind(AssertUnwindSafe(|| pool.install(|| run(&send))));
                let err = match res {
                    Ok(Ok(())) | Ok(Err(KernelError::Cancelled)) => return,
                    Ok(Err(e)) => e,
                    Err(panic) => {
                        let msg = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "a worker panicked".into());
                        KernelError::Internal(msg)
                    }
                };
                let _ = tx.send(Err(err));
            })
            .map_err(|e| KernelError::Internal(format!("cannot start the join thread: {e}")))?;
        Ok(JoinStream {
            schema,
            rx: Some(rx),
            handle: Some(handle),
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Runs `run` with a sink that keeps every batch, and returns them: the
/// `collect` of every kernel.
pub(crate) fn collect_batches(
    run: impl FnOnce(&BatchSink<'_>) -> Result<()>,
) -> Result<Vec<RecordBatch>> {
    let out = std::sync::Mutex::new(Vec::new());
    run(&|b| {
        out.lock().unwrap_or_else(|e| e.into_inner()).push(b);
        Ok(())
    })?;
    Ok(out.into_inner().unwrap_or_else(|e| e.into_inner()))
}

impl Iterator for JoinStream {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.rx.as_ref()?.recv().ok()
    }
}

impl Drop for JoinStream {
    fn drop(&mut self) {
        // Close the channel first so that blocked workers fail their send
        // and stop, then wait for them.
        self.rx.take();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

//! The stacks a statement is planned and run on.
//!
//! Planning recurses over the statement's syntax tree and plans (in the
//! SQL parser and planner tenon builds on, and in tenon's own passes), and
//! running a plan recurses over its operators and expressions, so the
//! depth of a statement (a chain of 4,000 `OR` terms, 4,000 `UNION ALL`
//! branches, hundreds of joined tables or chained views) needs stack in
//! proportion. The caller's stack is not tenon's to choose (8 MB for a
//! program's main thread, 2 MB for a spawned one), so every statement is
//! planned on a thread of its own with [`PLANNING_STACK`] bytes of stack,
//! the worker pool's threads, which run the plan, get [`WORKER_STACK`],
//! and the thread that hands a streamed query to the pool (and only waits
//! for it) gets [`QUERY_THREAD_STACK`].
//!
//! # The trade-off: depth against address space
//!
//! A thread's stack is address space reserved when the thread starts:
//! only the pages a statement touches are backed by memory, but an
//! address-space cap (`ulimit -v`, `RLIMIT_AS`) counts the whole
//! reservation, and nothing can reserve a thread stack without it (the
//! mapping is made in full at `pthread_create`, and `MAP_NORESERVE` does
//! not exempt it from `RLIMIT_AS`). So the stacks are sized to what the
//! deepest statements the front end accepts need (its limits:
//! `tenon_planner::sql` `EXPRESSION_DEPTH_LIMIT` and friends), with about
//! twice that as headroom in a debug build (whose frames are the largest),
//! and no more: planning plus 4 workers reserve 768 MB; each further
//! worker 128 MB (`--threads` sizes the pool: fewer threads leave more of
//! a cap for data). The allocators' own reservations are kept small by the
//! CLI (`cli::allocator`).
//!
//! Statements deeper than these stacks hold are refused by the front end
//! with an error that names the limit, never by a stack overflow.

use std::cell::Cell;

use crate::error::{Cause, Error};

/// Stack bytes of the thread a statement is planned (and its result
/// gathered) on.
pub(crate) const PLANNING_STACK: usize = 256 << 20;

/// Stack bytes of each worker of a session's pool.
pub(crate) const WORKER_STACK: usize = 128 << 20;

/// Stack bytes of the thread that runs a streamed query: it hands the plan
/// to the pool (whose workers run it) and waits.
pub(crate) const QUERY_THREAD_STACK: usize = 16 << 20;

thread_local! {
    /// Whether this thread is one [`on_planning_stack`] started.
    static ON_PLANNING_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` on a thread with [`PLANNING_STACK`] bytes of stack (at once
/// when this already is such a thread) and returns its result; a panic in
/// `work` goes on in the caller.
///
/// # Errors
///
/// `work`'s errors, and [`Error::Resource`] when the thread cannot start.
pub(crate) fn on_planning_stack<T: Send>(
    work: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error> {
    if ON_PLANNING_STACK.with(Cell::get) {
        return work();
    }
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("tenon-statement".into())
            .stack_size(PLANNING_STACK)
            .spawn_scoped(scope, || {
                ON_PLANNING_STACK.with(|on| on.set(true));
                work()
            })
            .map_err(|e| {
                Error::Resource(Cause::context("cannot start the statement's thread", e))
            })?;
        handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

//! The stack a statement is planned and run on.
//!
//! Planning recurses over the statement's syntax tree and plans (in the
//! SQL parser and planner tenon builds on, and in tenon's own passes), and
//! running a plan recurses over its operators, so the depth of a statement
//! (a chain of 1,000 `OR` terms, 1,000 `UNION ALL` branches, hundreds of
//! joined tables or chained views) needs stack in proportion. The caller's
//! stack is not tenon's to choose (8 MB for a program's main thread, 2 MB
//! for a spawned one), so every statement runs on a thread of its own with
//! [`PLANNING_STACK`] bytes of stack, and the worker pool's threads get
//! [`WORKER_STACK`]. Stack is address space reserved, not memory used: only
//! the pages a statement touches are backed.
//!
//! Statements deeper than these stacks hold are refused by the front end
//! with an error that names the limit (`tenon_planner::sql` limits), never
//! by a stack overflow.

use std::cell::Cell;

use crate::error::Error;

/// Stack bytes of the thread a statement is planned (and its result
/// gathered) on.
pub(crate) const PLANNING_STACK: usize = 512 << 20;

/// Stack bytes of each worker of a session's pool.
pub(crate) const WORKER_STACK: usize = 128 << 20;

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
            .map_err(|e| Error::Resource(format!("cannot start the statement's thread: {e}")))?;
        handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

//! SIGINT (Ctrl-C) and SIGTERM: the command stops at once, wherever it is
//! (planning, running a query, waiting for a FIFO's reader, writing), removes
//! the temporary file of an unfinished `--output`
//! ([`tenon::io::remove_unfinished_files`]) and the spill directories of
//! its queries ([`tenon_planner::exec::spill::remove_spill_directories`]),
//! says so on stderr and exits with
//! 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, as shells
//! report a process a signal ended.
//!
//! The signals are taken by signal-hook's iterator on a thread of their own,
//! so that nothing but signal-hook's async-signal-safe handler runs in
//! signal context; that thread then ends the process with
//! [`std::process::exit`], which stops the query's workers with it (the
//! query needs no cancellation points of its own). SIGKILL cannot be
//! caught: its leftovers are removed by the next write into the directory
//! ([`tenon::io::Destination`]), its spill directories by the next process
//! that spills into the same parent directory.

use std::io::Write as _;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Starts the thread that handles SIGINT and SIGTERM and waits until it
/// has taken them; `what` says what was stopped ("the query was
/// cancelled"). When the thread cannot be started or the handler installed,
/// the signals keep their default action (the process ends, though without
/// removing its temporary file; the next run into the directory does).
pub(crate) fn install(what: &'static str) {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
    let started = std::thread::Builder::new()
        .name("tenon-signals".into())
        .spawn(move || {
            // Registered on this thread, so that a failure anywhere leaves
            // the signals untouched (dropping a registration would leave
            // them caught and unanswered).
            let Ok(mut signals) = Signals::new([SIGINT, SIGTERM]) else {
                return;
            };
            let _ = ready_tx.send(());
            let Some(signal) = signals.forever().next() else {
                return;
            };
            let removed = tenon::io::remove_unfinished_files();
            let spilled = tenon_planner::exec::spill::remove_spill_directories();
            let name = if signal == SIGINT {
                "SIGINT"
            } else {
                "SIGTERM"
            };
            let file = if removed > 0 {
                "; the unfinished output file was removed"
            } else {
                ""
            };
            let spill = if spilled > 0 {
                "; its spill files were removed"
            } else {
                ""
            };
            let _ = writeln!(
                std::io::stderr().lock(),
                "error: {what} (interrupted by {name}){file}{spill}"
            );
            std::process::exit(128 + signal);
        });
    if started.is_ok() {
        // Returns at once when the thread gave up (the sender is dropped).
        let _ = ready_rx.recv();
    }
}

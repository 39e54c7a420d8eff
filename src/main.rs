//! The `tenon` command line.

mod allocator;

// Join outputs are many short-lived buffers of a few dozen KiB; glibc's
// malloc hands such memory back to the kernel and faults it in again for
// every batch, zeroing fresh pages each time. mimalloc keeps it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

fn main() -> ExitCode {
    tenon::cli::main()
}

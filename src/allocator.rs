//! The CLI's allocator settings, made before `main`: keeping the address
//! space for data, and keeping freed memory for the next query.
//!
//! # Address space
//!
//! A query under an address-space cap (`ulimit -v`, `RLIMIT_AS`) should
//! get its memory-limit error instead of failing to start its workers or
//! aborting. An address-space cap counts every mapping, used or only
//! reserved. Two reservations of the process's allocators took most of a
//! 1.5 GB cap before a query read a row:
//!
//! * mimalloc (the CLI's global allocator) reserves its first arena of
//!   1 GiB at the first allocation, and later ones as it needs them;
//! * glibc's malloc, still used by the C runtime in every thread, makes an
//!   arena of 64 MiB (reserved) per thread that calls it: 7 of them
//!   (448 MiB) with 4 workers.
//!
//! With the thread stacks (`tenon::Session`'s module docs), a 1.5 GB cap
//! then had no room to start 4 workers. So before `main` (in
//! `.init_array`, ahead of the first allocation) mimalloc is told to
//! reserve [`ARENA_RESERVE_KIB`] at a time (it grows its reservations as
//! it reserves more arenas, so large heaps cost few of them), and glibc to
//! keep [`GLIBC_ARENAS`] arenas. The memory a query uses is the same; only
//! the address space reserved ahead of use shrinks.
//!
//! # Freed memory
//!
//! mimalloc returns freed pages to the OS 10 ms after they are freed by
//! default, so the next query (or the next of `--runs`) faults them in
//! again, and the kernel zeroes every page it hands back: 21 runs of a
//! GROUP BY of TPC-H's 1.5M orders faulted 10,400 pages, against 1,700
//! when nothing is returned. Freed pages are kept for [`PURGE_DELAY_MS`]
//! instead (one second still faulted 10,400: the buffers the table's load
//! frees sit unused for longer than that before the queries reuse them);
//! a process that stops using memory still gives it back. The pages kept
//! are the ones the next allocations reuse, so the peak barely moves.

use std::ffi::{c_int, c_long};

/// The arena size mimalloc reserves at a time, in KiB (64 MiB).
const ARENA_RESERVE_KIB: c_long = 64 * 1024;

/// How long mimalloc keeps freed pages before returning them to the OS,
/// in ms (its default is 10; see the module docs).
const PURGE_DELAY_MS: c_long = 10_000;

/// glibc malloc arenas at most (the C runtime's few allocations need no
/// more).
const GLIBC_ARENAS: c_int = 2;

/// `mi_option_arena_reserve` in the `mi_option_t` of mimalloc 3 (the
/// version `libmimalloc-sys` builds by default); set only when
/// [`mi_version`] says 3.x (it returns major * 10000 + minor * 100 +
/// patch), as the enum differs between major versions.
const MI_OPTION_ARENA_RESERVE_V3: c_int = 23;

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (as above).
const MI_OPTION_PURGE_DELAY_V3: c_int = 15;

/// glibc's `M_ARENA_MAX` (`malloc.h`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_ARENA_MAX: c_int = -8;

unsafe extern "C" {
    fn mi_version() -> c_int;
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn mallopt(param: c_int, value: c_int) -> c_int;
}

/// Sets the allocators' reservations and mimalloc's purge delay (see the
/// module docs).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
extern "C" fn set_allocators() {
    // SAFETY: `mi_version` only returns a constant; `mi_option_set` stores
    // an option value (any value is accepted, mimalloc clamps it) and is
    // made to be called before or after mimalloc's initialization.
    unsafe {
        if mi_version() / 10_000 == 3 {
            mi_option_set(MI_OPTION_ARENA_RESERVE_V3, ARENA_RESERVE_KIB);
            mi_option_set(MI_OPTION_PURGE_DELAY_V3, PURGE_DELAY_MS);
        }
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` with a known parameter sets a malloc tunable; it is
    // thread-safe and may be called at any time, before any allocation too.
    unsafe {
        mallopt(M_ARENA_MAX, GLIBC_ARENAS);
    }
}

/// Runs [`set_allocators`] before `main`, ahead of the Rust runtime's
/// first allocation.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static SET_ALLOCATORS: extern "C" fn() = set_allocators;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mimalloc_linked_is_the_version_whose_option_number_is_used() {
        // SAFETY: returns a constant.
        let version = unsafe { mi_version() };
        assert_eq!(
            version / 10_000,
            3,
            "mimalloc {version}: check the MI_OPTION_*_V3 numbers"
        );
    }
}

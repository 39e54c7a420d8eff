//! Keeping the CLI's address space for data, so that a query under an
//! address-space cap (`ulimit -v`, `RLIMIT_AS`) gets its memory-limit error
//! instead of failing to start its workers or aborting.
//!
//! An address-space cap counts every mapping, used or only reserved. Two
//! reservations of the process's allocators took most of a 1.5 GB cap
//! before a query read a row:
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

use std::ffi::{c_int, c_long};

/// The arena size mimalloc reserves at a time, in KiB (64 MiB).
const ARENA_RESERVE_KIB: c_long = 64 * 1024;

/// glibc malloc arenas at most (the C runtime's few allocations need no
/// more).
const GLIBC_ARENAS: c_int = 2;

/// `mi_option_arena_reserve` in the `mi_option_t` of mimalloc 3 (the
/// version `libmimalloc-sys` builds by default); set only when
/// [`mi_version`] says 3.x (it returns major * 10000 + minor * 100 +
/// patch), as the enum differs between major versions.
const MI_OPTION_ARENA_RESERVE_V3: c_int = 23;

/// glibc's `M_ARENA_MAX` (`malloc.h`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_ARENA_MAX: c_int = -8;

unsafe extern "C" {
    fn mi_version() -> c_int;
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn mallopt(param: c_int, value: c_int) -> c_int;
}

/// Sets the allocators' reservations (see the module docs).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
extern "C" fn limit_reservations() {
    // SAFETY: `mi_version` only returns a constant; `mi_option_set` stores
    // an option value (any value is accepted, mimalloc clamps it) and is
    // made to be called before or after mimalloc's initialization.
    unsafe {
        if mi_version() / 10_000 == 3 {
            mi_option_set(MI_OPTION_ARENA_RESERVE_V3, ARENA_RESERVE_KIB);
        }
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` with a known parameter sets a malloc tunable; it is
    // thread-safe and may be called at any time, before any allocation too.
    unsafe {
        mallopt(M_ARENA_MAX, GLIBC_ARENAS);
    }
}

/// Runs [`limit_reservations`] before `main`, ahead of the Rust runtime's
/// first allocation.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static LIMIT_RESERVATIONS: extern "C" fn() = limit_reservations;

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
            "mimalloc {version}: check MI_OPTION_ARENA_RESERVE_V3"
        );
    }
}

//! Large buffers backed by transparent huge pages.
//!
//! The first touch of every fresh 4 KiB page is a page fault, so filling a
//! new hash table of hundreds of MiB spends a noticeable time in faults
//! alone, and probing it at random misses the TLB on nearly every access.
//! Linux backs a mapping with 2 MiB pages when asked with
//! `madvise(MADV_HUGEPAGE)` (needed where the THP mode is `madvise`): far
//! fewer faults, and 512 times fewer TLB entries (figures:
//! `benches/README.md`, "Kernel design notes (history)").
//!
//! [`huge_vec`] reserves a vector and gives that advice for buffers of at
//! least [`HUGE_MIN_BYTES`] before anything is written to them. Elsewhere
//! (other systems, small buffers) it is a plain `Vec::with_capacity`.

/// Buffers smaller than this are left alone (a few huge pages at most).
pub(crate) const HUGE_MIN_BYTES: usize = 8 << 20;

/// A vector with room for `cap` elements, advised to use huge pages when
/// large. Nothing is written.
pub(crate) fn huge_vec<T>(cap: usize) -> Vec<T> {
    let v = Vec::with_capacity(cap);
    let bytes = cap.saturating_mul(std::mem::size_of::<T>());
    if bytes >= HUGE_MIN_BYTES {
        advise(v.as_ptr() as usize, bytes);
    }
    v
}

/// Makes room for `cap` elements in `v` (which must be empty), advising huge
/// pages when the buffer has to be reallocated and is large.
pub(crate) fn reserve_huge<T>(v: &mut Vec<T>, cap: usize) {
    debug_assert!(v.is_empty());
    if v.capacity() < cap {
        *v = huge_vec(cap);
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn advise(addr: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    const SYS_MADVISE: usize = 28;
    const MADV_HUGEPAGE: usize = 14;
    // Only whole 2 MiB pages inside the buffer can be huge.
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) / HUGE * HUGE;
    if end <= start {
        return;
    }
    // SAFETY: madvise(MADV_HUGEPAGE) on [start, end), a page-aligned range
    // inside an allocation this process owns, only changes how the kernel
    // backs those pages; it changes no contents and unmaps nothing. The
    // result is ignored: without THP support the call fails harmlessly.
    // The `syscall` instruction clobbers rcx and r11, declared here.
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") SYS_MADVISE => _,
            in("rdi") start,
            in("rsi") end - start,
            in("rdx") MADV_HUGEPAGE,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn advise(_addr: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_vec_is_an_ordinary_vector() {
        let mut v: Vec<u64> = huge_vec(3 << 20);
        v.resize(3 << 20, 7);
        assert_eq!(v.iter().sum::<u64>(), 7 * (3 << 20));
        let mut w: Vec<u32> = Vec::new();
        reserve_huge(&mut w, 10);
        assert!(w.capacity() >= 10);
    }
}

//! Bitmaps that remember which rows found a match.

use std::sync::atomic::{AtomicU64, Ordering};

/// A fixed-size bitmap shared by all probe workers: the "visited" marks of
/// build rows for outer, semi and anti joins.
///
/// Setting reads first and writes only when the bit is clear, so hot build
/// rows (matched by many probe rows) do not bounce their cache line between
/// cores.
#[derive(Debug)]
pub(crate) struct AtomicBitmap {
    words: Vec<AtomicU64>,
}

impl AtomicBitmap {
    pub(crate) fn new(len: usize) -> Self {
        let words = (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        AtomicBitmap { words }
    }

    /// Bytes held.
    pub(crate) fn bytes_for(len: usize) -> usize {
        len.div_ceil(64) * 8
    }

    #[inline]
    pub(crate) fn set(&self, i: usize) {
        let w = &self.words[i / 64];
        let bit = 1u64 << (i % 64);
        if w.load(Ordering::Relaxed) & bit == 0 {
            w.fetch_or(bit, Ordering::Relaxed);
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words[i / 64].load(Ordering::Relaxed) & (1u64 << (i % 64)) != 0
    }
}

/// A plain bitmap owned by one worker (probe rows of one morsel).
#[derive(Debug, Default)]
pub(crate) struct Bitmap {
    words: Vec<u64>,
}

impl Bitmap {
    /// Clears and resizes to `len` bits, keeping the allocation.
    pub(crate) fn reset(&mut self, len: usize) {
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
    }

    #[inline]
    pub(crate) fn set(&mut self, i: usize) {
        self.words[i / 64] |= 1u64 << (i % 64);
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> bool {
        self.words[i / 64] & (1u64 << (i % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_bitmap_sets_and_reads_bits_across_words() {
        let b = AtomicBitmap::new(130);
        b.set(0);
        b.set(64);
        b.set(129);
        assert!(b.get(0) && b.get(64) && b.get(129));
        assert!(!b.get(1) && !b.get(128));
    }

    #[test]
    fn local_bitmap_reset_clears_old_bits() {
        let mut b = Bitmap::default();
        b.reset(10);
        b.set(3);
        b.reset(10);
        assert!(!b.get(3));
    }
}

//! A memory budget shared by the operators of one query.
//!
//! Operators reserve bytes where memory grows (hash tables, partition
//! buffers, concatenated inputs, the batches a pipeline breaker holds, group
//! tables, sort buffers) *before* they allocate them, and give them back
//! when the reservation is dropped. A reservation that does not fit fails
//! with [`KernelError::MemoryLimitExceeded`], which says how much was asked
//! for: with a `memory_limit` set, a query that would exceed it gets that
//! error before the allocator is asked, never an abort.
//!
//! Without a limit (or under a limit larger than the memory there is), the
//! allocator can still fail first, and Rust's global allocator aborts the
//! process on failure (`handle_alloc_error`; the hook that could change
//! that is unstable). So a large reservation (at least [`PROBE_BYTES`])
//! also asks the allocator, fallibly, whether that many bytes can be had
//! now ([`Vec::try_reserve_exact`], given back at once: address space, no
//! page is touched); when not, the reservation fails with
//! [`KernelError::AllocationFailed`] instead of letting the allocation
//! that follows abort; and each time a budget's use crosses a multiple of
//! [`PROBE_BYTES`], the allocator is asked for [`PROBE_HEADROOM`] the same
//! way, so that many small reservations (a collected input's batches) stop
//! with that error while some memory is left. This turns most failures
//! under an address-space cap (`ulimit -v`) into an error; an allocation
//! that no reservation precedes (Arrow's temporaries, memory the budget
//! does not see) can still abort when it is the one that meets the cap. A global allocator wrapper would not help: it cannot make
//! a failed allocation unwind, only return null, which aborts the same.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::{Array, RecordBatch};

use crate::error::{KernelError, Result};

/// Reservations of at least this many bytes first check, fallibly, that the
/// allocator can provide them (see the module docs).
pub const PROBE_BYTES: usize = 8 << 20;

/// Each time a budget's use crosses a multiple of [`PROBE_BYTES`] (however
/// small the reservations that make it grow), the allocator is asked,
/// fallibly, for this much: when it cannot provide it, the process is near
/// its limit and the reservation fails while there is still room to report
/// it.
pub const PROBE_HEADROOM: usize = 2 * PROBE_BYTES;

/// Bytes a batch's rows occupy (slices count only the rows they cover), the
/// measure every charge of held batches uses.
pub fn batch_bytes(batch: &RecordBatch) -> usize {
    batch
        .columns()
        .iter()
        .map(|c| {
            c.to_data()
                .get_slice_memory_size()
                .unwrap_or_else(|_| c.get_array_memory_size())
        })
        .sum()
}

/// The memory a set of held batches keeps alive: every distinct buffer
/// they reference, by its allocated capacity, each counted once however
/// many batches share it (slices of one table, views into one data
/// buffer). Unlike [`batch_bytes`], it sees the slack of buffers that grew
/// by doubling (Arrow's builders), which can be as much again as their
/// rows; unlike [`RecordBatch::get_array_memory_size`], it counts a buffer
/// shared by many batches once.
#[derive(Debug, Default)]
pub struct HeldBuffers {
    seen: std::collections::HashSet<usize>,
}

impl HeldBuffers {
    /// No buffers held yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of the buffers of `batch` not held before (and now held).
    pub fn add(&mut self, batch: &RecordBatch) -> usize {
        batch
            .columns()
            .iter()
            .map(|c| self.add_data(&c.to_data()))
            .sum()
    }

    fn add_data(&mut self, data: &arrow_data::ArrayData) -> usize {
        let mut bytes = 0;
        let buffers = data
            .buffers()
            .iter()
            .chain(data.nulls().map(|n| n.buffer()));
        for b in buffers {
            if self.seen.insert(b.data_ptr().as_ptr() as usize) {
                bytes += b.capacity();
            }
        }
        for child in data.child_data() {
            bytes += self.add_data(child);
        }
        bytes
    }
}

/// Whether the allocator can provide `bytes` now: allocated fallibly and
/// given back at once (untouched pages cost no memory).
fn allocator_can_provide(bytes: usize) -> bool {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).is_ok()
}

#[derive(Debug)]
struct Budget {
    limit: usize,
    /// Bytes kept free for what cannot spill (a pipeline's batches in
    /// flight): [`MemoryReservation::grow_spillable`] stops short of them.
    kept: usize,
    used: AtomicUsize,
    /// The most ever reserved at once.
    peak: AtomicUsize,
}

/// What one holder (an operator of a query) has reserved from a budget,
/// now and at most: a budget [`tracked`](MemoryBudget::tracked) by it
/// counts every reservation made through it here too (EXPLAIN ANALYZE's
/// per-operator peak memory).
#[derive(Debug, Default)]
pub struct MemoryTracker {
    used: AtomicUsize,
    peak: AtomicUsize,
}

impl MemoryTracker {
    /// Nothing reserved yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes reserved now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// The most bytes reserved at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Starts measuring the peak again from what is reserved now.
    pub fn reset_peak(&self) {
        self.peak.store(self.used(), Ordering::Relaxed);
    }

    fn add(&self, bytes: usize) {
        let now = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn sub(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// A byte budget; clones share the same counter.
///
/// # Examples
///
/// ```
/// use tenon_kernels::MemoryBudget;
///
/// let budget = MemoryBudget::new(1024);
/// let r = budget.try_reserve("example", 1000).unwrap();
/// assert_eq!(budget.used(), 1000);
/// assert!(budget.try_reserve("example", 100).is_err());
/// drop(r);
/// assert_eq!(budget.used(), 0);
/// ```
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    inner: Arc<Budget>,
    /// Who reserves through this handle, if counted apart.
    tracker: Option<Arc<MemoryTracker>>,
}

impl Default for MemoryBudget {
    fn default() -> Self {
        Self::unlimited()
    }
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Self {
        MemoryBudget {
            inner: Arc::new(Budget {
                limit,
                kept: 0,
                used: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
            }),
            tracker: None,
        }
    }

    /// A budget of `limit` bytes of which operators that can spill leave
    /// `kept` bytes free (see [`MemoryReservation::grow_spillable`]).
    ///
    /// ```
    /// use tenon_kernels::MemoryBudget;
    ///
    /// let budget = MemoryBudget::keeping(1000, 250);
    /// let mut r = budget.try_reserve("a sort", 0).unwrap();
    /// assert!(r.grow_spillable(800).is_err()); // it would eat the kept 250
    /// r.grow_spillable(750).unwrap();
    /// let _scan = budget.try_reserve("a scan's batch", 250).unwrap();
    /// ```
    pub fn keeping(limit: usize, kept: usize) -> Self {
        MemoryBudget {
            inner: Arc::new(Budget {
                limit,
                kept: kept.min(limit),
                used: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
            }),
            tracker: None,
        }
    }

    /// The same budget, whose reservations `tracker` counts as well.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tenon_kernels::{MemoryBudget, MemoryTracker};
    ///
    /// let budget = MemoryBudget::new(1000);
    /// let sort = Arc::new(MemoryTracker::new());
    /// let r = budget.tracked(&sort).try_reserve("a sort", 300).unwrap();
    /// let _other = budget.try_reserve("a scan", 200).unwrap();
    /// drop(r);
    /// assert_eq!((sort.used(), sort.peak(), budget.used()), (0, 300, 200));
    /// ```
    pub fn tracked(&self, tracker: &Arc<MemoryTracker>) -> MemoryBudget {
        MemoryBudget {
            inner: Arc::clone(&self.inner),
            tracker: Some(Arc::clone(tracker)),
        }
    }

    /// A budget that never runs out (it still counts).
    pub fn unlimited() -> Self {
        Self::new(usize::MAX)
    }

    /// The limit in bytes.
    pub fn limit(&self) -> usize {
        self.inner.limit
    }

    /// Bytes reserved now.
    pub fn used(&self) -> usize {
        self.inner.used.load(Ordering::Relaxed)
    }

    /// The most bytes ever reserved at once (`tenon bench`'s peak memory).
    pub fn peak(&self) -> usize {
        self.inner.peak.load(Ordering::Relaxed)
    }

    /// Starts measuring the peak again from what is reserved now (a plan
    /// run again measures each run's peak).
    pub fn reset_peak(&self) {
        self.inner
            .peak
            .store(self.inner.used.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Reserves `bytes` for `what`, or fails without reserving anything.
    ///
    /// # Errors
    ///
    /// [`KernelError::MemoryLimitExceeded`] when the budget cannot hold it.
    pub fn try_reserve(&self, what: &'static str, bytes: usize) -> Result<MemoryReservation> {
        let mut r = MemoryReservation {
            budget: self.clone(),
            what,
            bytes: 0,
        };
        r.grow(bytes)?;
        Ok(r)
    }
}

/// Bytes held from a [`MemoryBudget`]; given back on drop.
#[derive(Debug)]
pub struct MemoryReservation {
    budget: MemoryBudget,
    what: &'static str,
    bytes: usize,
}

impl MemoryReservation {
    /// Bytes held by this reservation.
    pub fn size(&self) -> usize {
        self.bytes
    }

    /// The budget it is held from.
    pub fn budget(&self) -> &MemoryBudget {
        &self.budget
    }

    /// Reserves `bytes` more.
    ///
    /// # Errors
    ///
    /// [`KernelError::MemoryLimitExceeded`] when the budget cannot hold it.
    pub fn grow(&mut self, bytes: usize) -> Result<()> {
        self.grow_within(bytes, self.budget.inner.limit)
    }

    /// Reserves `bytes` more for an operator that can spill instead: fails
    /// when the budget would keep less than its kept share free (see
    /// [`MemoryBudget::keeping`]), so that what cannot spill still fits.
    ///
    /// # Errors
    ///
    /// As [`MemoryReservation::grow`].
    pub fn grow_spillable(&mut self, bytes: usize) -> Result<()> {
        let b = &self.budget.inner;
        self.grow_within(bytes, b.limit - b.kept)
    }

    fn grow_within(&mut self, bytes: usize, limit: usize) -> Result<()> {
        if bytes >= PROBE_BYTES && !allocator_can_provide(bytes) {
            return Err(KernelError::AllocationFailed {
                what: self.what,
                needed: bytes,
            });
        }
        let b = &self.budget.inner;
        let mut used = b.used.load(Ordering::Relaxed);
        loop {
            let new = used.checked_add(bytes).filter(|n| *n <= limit);
            let Some(new) = new else {
                return Err(KernelError::MemoryLimitExceeded {
                    what: self.what,
                    needed: bytes,
                    used,
                    limit: b.limit,
                });
            };
            match b
                .used
                .compare_exchange_weak(used, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    if new / PROBE_BYTES != used / PROBE_BYTES
                        && !allocator_can_provide(PROBE_HEADROOM)
                    {
                        b.used.fetch_sub(bytes, Ordering::Relaxed);
                        return Err(KernelError::AllocationFailed {
                            what: self.what,
                            needed: bytes,
                        });
                    }
                    b.peak.fetch_max(new, Ordering::Relaxed);
                    if let Some(t) = &self.budget.tracker {
                        t.add(bytes);
                    }
                    break;
                }
                Err(now) => used = now,
            }
        }
        self.bytes += bytes;
        Ok(())
    }

    /// Gives back up to `bytes` of this reservation (memory freed early).
    pub fn shrink(&mut self, bytes: usize) {
        let bytes = bytes.min(self.bytes);
        self.budget.inner.used.fetch_sub(bytes, Ordering::Relaxed);
        if let Some(t) = &self.budget.tracker {
            t.sub(bytes);
        }
        self.bytes -= bytes;
    }

    /// Moves up to `bytes` of this reservation into a new one (the budget's
    /// use does not change): a holder that hands part of its memory to
    /// another gives its charge with it.
    pub fn split(&mut self, bytes: usize) -> MemoryReservation {
        let bytes = bytes.min(self.bytes);
        self.bytes -= bytes;
        MemoryReservation {
            budget: self.budget.clone(),
            what: self.what,
            bytes,
        }
    }

    /// Grows or shrinks this reservation to exactly `bytes`.
    ///
    /// # Errors
    ///
    /// As [`MemoryReservation::grow`], when it must grow; the reservation is
    /// then unchanged.
    pub fn resize(&mut self, bytes: usize) -> Result<()> {
        if bytes > self.bytes {
            self.grow(bytes - self.bytes)
        } else {
            self.shrink(self.bytes - bytes);
            Ok(())
        }
    }

    /// Grows this reservation by the bytes of `batches` (as
    /// [`batch_bytes`] counts them).
    ///
    /// # Errors
    ///
    /// As [`MemoryReservation::grow`].
    pub fn grow_for(&mut self, batches: &[RecordBatch]) -> Result<()> {
        self.grow(batches.iter().map(batch_bytes).sum())
    }
}

impl Drop for MemoryReservation {
    fn drop(&mut self) {
        self.budget
            .inner
            .used
            .fetch_sub(self.bytes, Ordering::Relaxed);
        if let Some(t) = &self.budget.tracker {
            t.sub(self.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exceeding_the_budget_reports_need_and_limit() {
        let budget = MemoryBudget::new(100);
        let _a = budget.try_reserve("a", 60).unwrap();
        let err = budget.try_reserve("hash table", 50).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("hash table needs 50"), "{msg}");
        assert!(msg.contains("100-byte limit"), "{msg}");
        assert_eq!(budget.used(), 60);
    }

    #[test]
    fn a_reservation_the_allocator_cannot_provide_is_an_error_not_an_abort() {
        // more than any address space: the allocator refuses, the
        // reservation reports it (an unlimited budget would take it)
        let budget = MemoryBudget::unlimited();
        let err = budget
            .try_reserve("a huge sort", usize::MAX / 2)
            .unwrap_err();
        assert!(
            matches!(err, KernelError::AllocationFailed { needed, .. } if needed == usize::MAX / 2),
            "{err}"
        );
        assert!(err.to_string().contains("a huge sort"), "{err}");
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn resize_and_shrink_give_back_what_they_release() {
        let budget = MemoryBudget::new(100);
        let mut r = budget.try_reserve("a", 10).unwrap();
        r.resize(80).unwrap();
        assert_eq!(budget.used(), 80);
        assert!(r.resize(101).is_err());
        assert_eq!(budget.used(), 80);
        r.shrink(30);
        assert_eq!((r.size(), budget.used()), (50, 50));
        r.resize(5).unwrap();
        assert_eq!(budget.used(), 5);
        drop(r);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn reservations_are_returned_on_drop() {
        let budget = MemoryBudget::new(100);
        {
            let mut r = budget.try_reserve("a", 10).unwrap();
            r.grow(20).unwrap();
            assert_eq!(budget.used(), 30);
        }
        assert_eq!(budget.used(), 0);
    }
}

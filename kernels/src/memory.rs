//! A memory budget shared by the operators of one query.
//!
//! Operators reserve bytes where memory grows (hash tables, partition
//! buffers, concatenated inputs) and give them back when the reservation is
//! dropped. A reservation that does not fit fails with
//! [`KernelError::MemoryLimitExceeded`], which says how much was asked for.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{KernelError, Result};

#[derive(Debug)]
struct Budget {
    limit: usize,
    used: AtomicUsize,
    /// The most ever reserved at once.
    peak: AtomicUsize,
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
                used: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
            }),
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

    /// Reserves `bytes` more.
    ///
    /// # Errors
    ///
    /// [`KernelError::MemoryLimitExceeded`] when the budget cannot hold it.
    pub fn grow(&mut self, bytes: usize) -> Result<()> {
        let b = &self.budget.inner;
        let mut used = b.used.load(Ordering::Relaxed);
        loop {
            let new = used.checked_add(bytes).filter(|n| *n <= b.limit);
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
                    b.peak.fetch_max(new, Ordering::Relaxed);
                    break;
                }
                Err(now) => used = now,
            }
        }
        self.bytes += bytes;
        Ok(())
    }
}

impl Drop for MemoryReservation {
    fn drop(&mut self) {
        self.budget
            .inner
            .used
            .fetch_sub(self.bytes, Ordering::Relaxed);
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

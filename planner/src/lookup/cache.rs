//! Lookup caches (Flink's connector options `'lookup.cache' = 'PARTIAL' |
//! 'FULL'`): rows fetched by key kept for later probe batches, in this
//! query and, since a cache belongs to its table, in later queries of the
//! session.
//!
//! * PARTIAL: each key's rows (after the join's retries) are kept, up to
//!   `max_rows` rows in all (quick_cache's weighted S3-FIFO cache: a
//!   well-kept concurrent cache, each entry weighing its row count), and
//!   dropped `expire_after_write` after they were fetched or
//!   `expire_after_access` after they were last used. A key the source had
//!   no row for is kept too, unless `cache_missing_key` is off.
//! * FULL: the whole table is read once (the source's scan) and every
//!   lookup answered from it; it is read again when `reload_interval` has
//!   passed since it was read, at the next lookup.
//!
//! Time comes from a [`Clock`], so tests move it instead of sleeping.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;

/// Where a cache reads the time from.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Milliseconds since some fixed start.
    fn now_millis(&self) -> u64;
}

/// The machine's monotonic clock.
#[derive(Debug)]
pub struct SystemClock(Instant);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(Instant::now())
    }
}

impl Clock for SystemClock {
    fn now_millis(&self) -> u64 {
        self.0.elapsed().as_millis() as u64
    }
}

/// A clock that moves only when told (tests).
///
/// ```
/// use std::time::Duration;
/// use tenon_planner::lookup::{Clock, ManualClock};
///
/// let c = ManualClock::default();
/// c.advance(Duration::from_secs(2));
/// assert_eq!(c.now_millis(), 2000);
/// ```
#[derive(Debug, Default)]
pub struct ManualClock(AtomicU64);

impl ManualClock {
    /// Moves the clock forward.
    pub fn advance(&self, d: Duration) {
        self.0.fetch_add(d.as_millis() as u64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Which cache, with its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheMode {
    /// No cache: every lookup goes to the source.
    None,
    /// Each key's rows kept after they are fetched.
    Partial {
        /// Rows kept at most, over all keys (a key without rows counts 1).
        max_rows: u64,
        /// Dropped this long after they were fetched.
        expire_after_write: Option<Duration>,
        /// Dropped this long after they were last used.
        expire_after_access: Option<Duration>,
        /// Whether a key without rows is kept too.
        cache_missing_key: bool,
    },
    /// The whole table kept, read again after `reload_interval`.
    Full {
        /// How long a read of the table serves (`None`: for good).
        reload_interval: Option<Duration>,
    },
}

/// A lookup table's cache: its options, clock and contents.
#[derive(Debug)]
pub struct LookupCache {
    /// The options.
    pub mode: CacheMode,
    clock: Arc<dyn Clock>,
    partial: Option<quick_cache::sync::Cache<Vec<u8>, Arc<Entry>, RowsWeight>>,
    full: Mutex<Option<Arc<FullTable>>>,
}

/// One key's cached rows.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The key's rows (the columns its join fetches); none for a missing
    /// key.
    pub rows: RecordBatch,
    written: u64,
    accessed: AtomicU64,
}

#[derive(Debug, Clone)]
struct RowsWeight;

impl quick_cache::Weighter<Vec<u8>, Arc<Entry>> for RowsWeight {
    fn weight(&self, _key: &Vec<u8>, val: &Arc<Entry>) -> u64 {
        (val.rows.num_rows() as u64).max(1)
    }
}

/// Encoded key → the rows of the table with that key.
pub(crate) type KeyRows = HashMap<Vec<u8>, Vec<u32>>;

/// The whole table as read for a FULL cache, with the indexes built on it.
#[derive(Debug)]
pub(crate) struct FullTable {
    /// When it was read.
    pub read_at: u64,
    /// Every row, every column.
    pub batch: RecordBatch,
    /// Per set of key columns: encoded key → its rows.
    pub indexes: Mutex<HashMap<Vec<usize>, Arc<KeyRows>>>,
}

impl LookupCache {
    /// A cache of `mode` on `clock` (`None` for [`CacheMode::None`]).
    pub fn new(mode: CacheMode, clock: Arc<dyn Clock>) -> Option<Arc<Self>> {
        let partial = match &mode {
            CacheMode::None => return None,
            CacheMode::Partial { max_rows, .. } => Some(quick_cache::sync::Cache::with_weighter(
                (*max_rows).clamp(16, 1 << 20) as usize,
                *max_rows,
                RowsWeight,
            )),
            CacheMode::Full { .. } => None,
        };
        Some(Arc::new(LookupCache {
            mode,
            clock,
            partial,
            full: Mutex::new(None),
        }))
    }

    /// The cached rows of `key`, if they are there and fresh.
    pub(crate) fn get(&self, key: &[u8]) -> Option<RecordBatch> {
        let cache = self.partial.as_ref()?;
        let CacheMode::Partial {
            expire_after_write,
            expire_after_access,
            ..
        } = &self.mode
        else {
            return None;
        };
        let entry = cache.get(key)?;
        let now = self.clock.now_millis();
        let old = |since: u64, limit: &Option<Duration>| {
            limit.is_some_and(|l| now.saturating_sub(since) >= l.as_millis() as u64)
        };
        if old(entry.written, expire_after_write)
            || old(entry.accessed.load(Ordering::Relaxed), expire_after_access)
        {
            cache.remove(key);
            return None;
        }
        entry.accessed.store(now, Ordering::Relaxed);
        Some(entry.rows.clone())
    }

    /// Keeps `rows` as `key`'s (a missing key: no rows, kept only with
    /// `cache_missing_key`).
    pub(crate) fn put(&self, key: Vec<u8>, rows: RecordBatch) {
        let (
            Some(cache),
            CacheMode::Partial {
                cache_missing_key, ..
            },
        ) = (self.partial.as_ref(), &self.mode)
        else {
            return;
        };
        if rows.num_rows() == 0 && !cache_missing_key {
            return;
        }
        let now = self.clock.now_millis();
        cache.insert(
            key,
            Arc::new(Entry {
                rows,
                written: now,
                accessed: AtomicU64::new(now),
            }),
        );
    }

    /// Whether this is a FULL cache.
    pub fn is_full(&self) -> bool {
        matches!(self.mode, CacheMode::Full { .. })
    }

    /// The whole table of a FULL cache, read by `read` when there is none
    /// yet or its reload interval has passed since it was read.
    pub(crate) fn full_table(
        &self,
        read: impl FnOnce() -> crate::exec::Result<RecordBatch>,
    ) -> crate::exec::Result<Arc<FullTable>> {
        let CacheMode::Full { reload_interval } = &self.mode else {
            return Err(crate::exec::ExecError::Unsupported(
                "internal: a FULL cache's table asked of another cache".into(),
            ));
        };
        let mut slot = self.full.lock().map_err(|_| {
            crate::exec::ExecError::Unsupported("internal: a lookup cache was poisoned".into())
        })?;
        let now = self.clock.now_millis();
        let stale = |t: &FullTable| {
            reload_interval.is_some_and(|i| now.saturating_sub(t.read_at) >= i.as_millis() as u64)
        };
        match slot.as_ref() {
            Some(t) if !stale(t) => Ok(Arc::clone(t)),
            _ => {
                let table = Arc::new(FullTable {
                    read_at: now,
                    batch: read()?,
                    indexes: Mutex::new(HashMap::new()),
                });
                *slot = Some(Arc::clone(&table));
                Ok(table)
            }
        }
    }
}

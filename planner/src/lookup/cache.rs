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
    partial: Option<quick_cache::sync::Cache<CacheKey, Arc<Entry>, RowsWeight>>,
    /// A short number for each join's tag (what tells its entries from
    /// another join's), so that keys stay small.
    tags: Mutex<HashMap<Vec<u8>, u32>>,
    full: Mutex<Option<Arc<FullTable>>>,
}

/// One key's cached rows.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The key's rows (the columns its join fetches); none for a missing
    /// key.
    pub rows: EncodedRows,
    written: u64,
    accessed: AtomicU64,
}

/// Rows in arrow-row's encoding (of the columns a join fetches), one after
/// another: a probe batch's cache hits decode into one batch in one pass,
/// where batches per key would have to be concatenated.
#[derive(Debug, Default, Clone)]
pub(crate) struct EncodedRows {
    /// The encoded rows.
    pub bytes: Vec<u8>,
    /// Where each row ends in `bytes`.
    pub ends: Vec<u32>,
}

impl EncodedRows {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no rows (a missing key).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends one encoded row.
    pub fn push(&mut self, row: &[u8]) {
        self.bytes.extend_from_slice(row);
        self.ends.push(self.bytes.len() as u32);
    }

    /// Each encoded row.
    pub fn rows(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(a, b)| &self.bytes[a as usize..b as usize])
    }
}

/// A PARTIAL cache's key: a join's short tag and an encoded key, held
/// inline when short (no pointer to follow when the cache compares keys).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CacheKey {
    /// Up to [`INLINE`] bytes, zero-padded.
    Inline { len: u8, bytes: [u8; INLINE] },
    /// Longer keys.
    Heap(Box<[u8]>),
}

/// The longest key held inline.
const INLINE: usize = 30;

impl CacheKey {
    fn new(key: &[u8]) -> Self {
        if key.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..key.len()].copy_from_slice(key);
            CacheKey::Inline {
                len: key.len() as u8,
                bytes,
            }
        } else {
            CacheKey::Heap(key.into())
        }
    }
}

#[derive(Debug, Clone)]
struct RowsWeight;

impl quick_cache::Weighter<CacheKey, Arc<Entry>> for RowsWeight {
    fn weight(&self, _key: &CacheKey, val: &Arc<Entry>) -> u64 {
        (val.rows.len() as u64).max(1)
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
            tags: Mutex::new(HashMap::new()),
        }))
    }

    /// The short tag of a join's entries whose long tag (its key columns,
    /// constants and fetched columns) is `tag`: the prefix of its keys.
    pub(crate) fn short_tag(&self, tag: &[u8]) -> [u8; 4] {
        let mut tags = match self.tags.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(n) = tags.get(tag) {
            return n.to_le_bytes();
        }
        let next = tags.len() as u32;
        tags.insert(tag.to_vec(), next);
        next.to_le_bytes()
    }

    /// The time now on the cache's clock, to give [`LookupCache::get`].
    pub(crate) fn now(&self) -> u64 {
        self.clock.now_millis()
    }

    /// The cached rows of `key`, if they are there and fresh at `now`.
    pub(crate) fn get(&self, key: &[u8], now: u64) -> Option<Arc<Entry>> {
        let cache = self.partial.as_ref()?;
        let CacheMode::Partial {
            expire_after_write,
            expire_after_access,
            ..
        } = &self.mode
        else {
            return None;
        };
        let key = CacheKey::new(key);
        let entry = cache.get(&key)?;
        let old = |since: u64, limit: &Option<Duration>| {
            limit.is_some_and(|l| now.saturating_sub(since) >= l.as_millis() as u64)
        };
        if old(entry.written, expire_after_write)
            || old(entry.accessed.load(Ordering::Relaxed), expire_after_access)
        {
            cache.remove(&key);
            return None;
        }
        // only expiry after access reads it; a write per hit would bounce
        // the entry's cache line between the workers
        if expire_after_access.is_some() && entry.accessed.load(Ordering::Relaxed) != now {
            entry.accessed.store(now, Ordering::Relaxed);
        }
        Some(entry)
    }

    /// Keeps `rows` as `key`'s (a missing key: no rows, kept only with
    /// `cache_missing_key`).
    pub(crate) fn put(&self, key: &[u8], rows: EncodedRows) {
        let (
            Some(cache),
            CacheMode::Partial {
                cache_missing_key, ..
            },
        ) = (self.partial.as_ref(), &self.mode)
        else {
            return;
        };
        if rows.is_empty() && !cache_missing_key {
            return;
        }
        let now = self.clock.now_millis();
        cache.insert(
            CacheKey::new(key),
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

//! Per-query state that expressions read: the query's start time.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use datafusion_common::config::ConfigOptions;

const NANOS_PER_DAY: i64 = 86_400 * 1_000_000_000;

/// What one query's expressions share.
///
/// `NOW()`, `CURRENT_TIMESTAMP`, `CURRENT_DATE` and `CURRENT_TIME` are
/// evaluated once per query (docs/hints.md J05): they compile to constants taken
/// from [`QueryContext::start_nanos`], so every row, batch, join filter and
/// subquery of the query sees the same instant. Create one context per query
/// and compile all of its expressions with it.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use tenon_planner::expr::QueryContext;
///
/// let ctx = QueryContext::at(UNIX_EPOCH + Duration::from_secs(86_400 + 5));
/// assert_eq!(ctx.start_nanos(), 86_405_000_000_000);
/// assert_eq!(ctx.current_date(), 1); // 1970-01-02, days since the epoch
/// ```
#[derive(Debug, Clone)]
pub struct QueryContext {
    start_nanos: i64,
    config: Arc<ConfigOptions>,
}

impl QueryContext {
    /// A context whose query starts now (the system clock, UTC).
    pub fn new() -> Self {
        QueryContext::at(SystemTime::now())
    }

    /// A context whose query started at `start` (for tests and replays).
    /// Times before 1970 and after 2262 are clamped to what an `i64` of
    /// nanoseconds holds.
    pub fn at(start: SystemTime) -> Self {
        let start_nanos = match start.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
            Err(e) => i64::try_from(e.duration().as_nanos())
                .map(|n| -n)
                .unwrap_or(i64::MIN),
        };
        QueryContext {
            start_nanos,
            config: Arc::new(ConfigOptions::default()),
        }
    }

    /// The query start as nanoseconds since 1970-01-01 00:00 UTC: the value
    /// of `NOW()` as a `Timestamp(Nanosecond)`.
    pub fn start_nanos(&self) -> i64 {
        self.start_nanos
    }

    /// `CURRENT_DATE`: the UTC date of the query start, as days since the
    /// epoch (a `Date32` value).
    pub fn current_date(&self) -> i32 {
        let days = self.start_nanos.div_euclid(NANOS_PER_DAY);
        i32::try_from(days).unwrap_or(if days < 0 { i32::MIN } else { i32::MAX })
    }

    /// `CURRENT_TIME`: nanoseconds since midnight UTC of the query start (a
    /// `Time64(Nanosecond)` value).
    pub fn current_time(&self) -> i64 {
        self.start_nanos.rem_euclid(NANOS_PER_DAY)
    }

    /// The DataFusion configuration handed to DataFusion's scalar functions.
    pub fn config(&self) -> &Arc<ConfigOptions> {
        &self.config
    }
}

impl Default for QueryContext {
    fn default() -> Self {
        QueryContext::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_before_the_epoch_give_earlier_dates() {
        let ctx = QueryContext::at(UNIX_EPOCH - Duration::from_secs(1));
        assert_eq!(ctx.start_nanos(), -1_000_000_000);
        assert_eq!(ctx.current_date(), -1);
        assert_eq!(ctx.current_time(), NANOS_PER_DAY - 1_000_000_000);
    }

    #[test]
    fn one_context_keeps_its_start() {
        let ctx = QueryContext::new();
        let copy = ctx.clone();
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(ctx.start_nanos(), copy.start_nanos());
    }
}

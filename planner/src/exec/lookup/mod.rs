//! Running a lookup join ([`Operator::Lookup`]): each probe batch's
//! distinct keys fetched from the table's [`LookupSource`] in one request,
//! the fetched rows matched back to the probe rows (module `matching`).
//!
//! Sync (the default): the worker that produced the probe batch makes the
//! request and waits, retrying missing keys after the fixed delay; so as
//! many requests are in flight as the plan has workers. Async (`'async' =
//! 'true'`): requests go out through [`LookupSource::lookup_async`], up to
//! `capacity` at a time, while the workers go on with the next batches;
//! their output goes out in the batches' order (`ordered`) or as they
//! complete (`allow_unordered`), module `flight`. Either way the timeout
//! covers a batch's request and its retries: past it the query fails,
//! naming the table, a key and the timeout (async: when it expires; sync:
//! when the attempt that overran returns, since a call in progress cannot
//! be stopped).

mod flight;
mod full;
mod matching;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use datafusion_common::ScalarValue;

use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::{ExecError, Result};
use crate::expr::PhysicalExpr;
use crate::lookup::{LookupCache, LookupOptions, LookupSource};
use matching::Probe;

/// A lookup join, configured: what [`Operator::Lookup`] runs.
#[derive(Debug)]
pub struct LookupJoin {
    /// The lookup table's entry in the executor's tables.
    pub table: String,
    /// Where its rows come from (for EXPLAIN and messages).
    pub source: String,
    /// The probe key expressions, over the input's columns, each of its
    /// key column's type.
    pub probe_keys: Vec<PhysicalExpr>,
    /// The constant key values (`c.country = 'US'`), of their columns'
    /// types.
    pub constants: Vec<ScalarValue>,
    /// The table columns looked up by: one per probe key, then one per
    /// constant.
    pub key_columns: Vec<usize>,
    /// The table columns fetched: the probe keys' columns first (in
    /// order), then the columns the output and the residual read.
    pub fetch: Vec<usize>,
    /// The types of the fetched columns.
    pub fetch_types: Vec<DataType>,
    /// The rest of the ON condition, over the pair (every input column,
    /// then every fetched column).
    pub residual: Option<PhysicalExpr>,
    /// LEFT: a probe row without a fetched row that passes is kept once
    /// with NULLs.
    pub outer: bool,
    /// The input columns in the output, before the fetched ones.
    pub keep: Vec<usize>,
    /// The fetched columns (positions in `fetch`) in the output.
    pub output_fetched: Vec<usize>,
    /// How requests run.
    pub options: LookupOptions,
    /// The ON condition as written, for EXPLAIN.
    pub text: String,
    /// What the requests did (EXPLAIN ANALYZE).
    pub metrics: LookupMetrics,
}

/// What a lookup join's requests did, for EXPLAIN ANALYZE.
#[derive(Debug, Default)]
pub struct LookupMetrics {
    /// Requests sent to the source (retries included).
    pub requests: AtomicU64,
    /// Keys asked for, over all requests.
    pub keys: AtomicU64,
    /// Rows the source returned.
    pub rows: AtomicU64,
    /// Requests that were retries of missing keys.
    pub retries: AtomicU64,
    /// Nanoseconds the join waited on the source (summed over workers).
    pub wait_nanos: AtomicU64,
    /// The most requests that were in flight at once.
    pub peak_in_flight: AtomicU64,
    /// Keys a lookup cache answered.
    pub cache_hits: AtomicU64,
    /// Keys a lookup cache did not hold (asked of the source).
    pub cache_misses: AtomicU64,
}

impl LookupMetrics {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// A request of `keys` keys sent (`retry`: of missing keys).
    fn sent(&self, keys: usize, retry: bool) {
        Self::add(&self.requests, 1);
        Self::add(&self.keys, keys as u64);
        if retry {
            Self::add(&self.retries, 1);
        }
    }

    fn waited(&self, d: Duration) {
        Self::add(&self.wait_nanos, d.as_nanos().min(u64::MAX as u128) as u64);
    }

    fn in_flight(&self, n: usize) {
        self.peak_in_flight.fetch_max(n as u64, Ordering::Relaxed);
    }
}

impl fmt::Display for LookupMetrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        write!(
            f,
            "requests={} keys={} fetched_rows={} retries={} source_wait={:.3}ms \
             peak_in_flight={} cache_hits={} cache_misses={}",
            get(&self.requests),
            get(&self.keys),
            get(&self.rows),
            get(&self.retries),
            get(&self.wait_nanos) as f64 / 1e6,
            get(&self.peak_in_flight),
            get(&self.cache_hits),
            get(&self.cache_misses)
        )
    }
}

impl LookupJoin {
    /// One line for EXPLAIN.
    pub fn describe(&self) -> String {
        format!(
            "LookupJoin: {} {} from {} on=[{}] ({})",
            if self.outer { "LEFT" } else { "INNER" },
            self.table,
            self.source,
            self.text,
            self.options.describe()
        )
    }

    /// What tells this join's entries in its table's cache from another
    /// join's: the key columns, constants and fetched columns.
    fn cache_tag(&self) -> Vec<u8> {
        let mut tag = format!(
            "{:?}|{:?}|{:?}|",
            self.key_columns, self.constants, self.fetch
        )
        .into_bytes();
        tag.push(0);
        tag
    }

    /// The timeout error for a request whose first key is `key`.
    fn timed_out_text(&self, key: &str) -> ExecError {
        ExecError::Source(
            format!(
                "lookup join on `{}` ({}): the lookup of key {} took longer than its timeout of \
                 {:?} (retries included); raise it with LOOKUP('table'='{}', 'timeout'='...') \
                 or --set lookup.async.timeout=...",
                self.table, self.source, key, self.options.timeout, self.table
            )
            .into(),
        )
    }

    /// The error when a key of the request whose first key is `key` was
    /// missing and its retry, `delay` away, would end after the timeout:
    /// the lookup did not take that long, waiting would have.
    fn retry_past_timeout(&self, key: &str, delay: std::time::Duration) -> ExecError {
        ExecError::Source(
            format!(
                "lookup join on `{}` ({}): a key of the lookup of key {} was missing, and \
                 retrying it after 'fixed-delay' = {:?} would end after the timeout of {:?} \
                 (retries included); lower 'fixed-delay' or raise the timeout with \
                 LOOKUP('table'='{}', 'timeout'='...') or --set lookup.async.timeout=...",
                self.table, self.source, key, delay, self.options.timeout, self.table
            )
            .into(),
        )
    }

    /// The source's error for a request, in the join's words.
    fn failed(&self, e: crate::lookup::LookupError) -> ExecError {
        ExecError::Source(
            format!(
                "lookup join on `{}` ({}): the lookup failed: {e}",
                self.table, self.source
            )
            .into(),
        )
    }
}

impl Run<'_> {
    /// Runs lookup join `plan` into `sink` (which records its output rows).
    pub(super) fn lookup(&self, plan: &PhysicalPlan, sink: &Sink<'_>) -> Result<()> {
        let Operator::Lookup { input, join, .. } = &plan.operator else {
            return Err(ExecError::Unsupported(
                "internal: a lookup join's run got another operator".into(),
            ));
        };
        let table = self.tables.get(&join.table);
        let cache = table.and_then(|t| t.lookup_cache.clone());
        let source = table.and_then(|t| t.lookup.clone()).ok_or_else(|| {
            ExecError::Unsupported(format!(
                "table `{}` has no lookup source registered: register it as a lookup \
                     table before running the query",
                join.table
            ))
        })?;
        let schema = source.schema();
        if let Some(&c) = join
            .key_columns
            .iter()
            .find(|&&c| !source.can_look_up_by(c))
        {
            let name = |c: usize| schema.fields().get(c).map_or("?", |f| f.name().as_str());
            let able: Vec<&str> = (0..schema.fields().len())
                .filter(|&c| source.can_look_up_by(c))
                .map(name)
                .collect();
            return Err(ExecError::Unsupported(format!(
                "lookup join on `{}`: {} cannot look rows up by column `{}`; it looks up by {}: \
                 compare one of those with `=` in ON",
                join.table,
                join.source,
                name(c),
                if able.is_empty() {
                    "no column".to_string()
                } else {
                    able.join(", ")
                }
            )));
        }
        let schema = &plan.schema;
        let metrics = &plan.metrics;
        if let Some(c) = cache.as_ref().filter(|c| c.is_full()) {
            // every lookup answered from the table read whole
            return self.push(input, &|b: RecordBatch| {
                let start = Instant::now();
                let probe = Probe::new(join, b)?;
                let fetched =
                    full::lookup(join, source.as_ref(), &probe, c, &self.budget_of(plan))?;
                probe.join(join, &fetched, schema, self.batch_size, &mut |out| {
                    sink(out)
                })?;
                metrics.add_time(start.elapsed());
                Ok(())
            });
        }
        if join.options.is_async {
            return flight::run(self, plan, join, source, cache, sink);
        }
        self.push(input, &|b: RecordBatch| {
            let start = Instant::now();
            let mut probe = Probe::new(join, b)?;
            let fetched = fetch_sync(join, source.as_ref(), &mut probe, cache.as_deref())?;
            probe.join(join, &fetched, schema, self.batch_size, &mut |out| {
                sink(out)
            })?;
            metrics.add_time(start.elapsed());
            Ok(())
        })
    }
}

/// The rows of `probe`'s keys on this thread: from the cache what it
/// holds, then the request for the rest and the retries of missing keys,
/// within the timeout; what was fetched goes into the cache.
fn fetch_sync(
    join: &LookupJoin,
    source: &dyn LookupSource,
    probe: &mut Probe,
    cache: Option<&LookupCache>,
) -> Result<RecordBatch> {
    let schema = fetch_schema(join, source)?;
    if probe.key_count() == 0 {
        return Ok(RecordBatch::new_empty(schema));
    }
    let tag = join.cache_tag();
    let (mut parts, asked) = match cache {
        Some(c) => c_hits(join, probe, &schema, &tag, c)?,
        None => (Vec::new(), probe.all_keys()),
    };
    if asked.is_empty() {
        return concat(&schema, &parts);
    }
    let hits = parts.len();
    let deadline = Instant::now() + join.options.timeout;
    let mut ask = asked.clone();
    let mut attempt = 0u32;
    loop {
        let request = probe.request(join, Some(&ask))?;
        join.metrics.sent(request.len(), attempt > 0);
        join.metrics.in_flight(1);
        let start = Instant::now();
        let fetched = source.lookup(&request).map_err(|e| join.failed(e))?;
        join.metrics.waited(start.elapsed());
        LookupMetrics::add(&join.metrics.rows, fetched.num_rows() as u64);
        parts.push(fetched);
        if Instant::now() > deadline {
            return Err(join.timed_out_text(&probe.first_key_text()));
        }
        let Some(retry) = join.options.retry.filter(|r| attempt < r.max_attempts) else {
            break;
        };
        let missing = probe.missing(join, &parts, &asked)?;
        if missing.is_empty() {
            break;
        }
        if Instant::now() + retry.delay > deadline {
            return Err(join.retry_past_timeout(&probe.first_key_text(), retry.delay));
        }
        std::thread::sleep(retry.delay);
        ask = missing;
        attempt += 1;
    }
    let all = concat(&schema, &parts)?;
    if let Some(c) = cache {
        let fetched = concat(&schema, &parts[hits..])?;
        probe.remember(join, &tag, c, &fetched, &asked)?;
    }
    Ok(all)
}

/// A PARTIAL cache's rows for `probe`'s keys, and the keys to ask for
/// (counted as hits and misses).
fn c_hits(
    join: &LookupJoin,
    probe: &Probe,
    schema: &SchemaRef,
    tag: &[u8],
    cache: &LookupCache,
) -> Result<(Vec<RecordBatch>, Vec<u32>)> {
    let (rows, hits, misses) = probe.cached(join, schema, tag, cache)?;
    LookupMetrics::add(&join.metrics.cache_hits, hits as u64);
    LookupMetrics::add(&join.metrics.cache_misses, misses.len() as u64);
    Ok((rows, misses))
}

/// The schema of the fetched rows.
fn fetch_schema(join: &LookupJoin, source: &dyn LookupSource) -> Result<SchemaRef> {
    crate::lookup::LookupRequest {
        key_columns: join.key_columns.clone(),
        keys: Vec::new(),
        columns: join.fetch.clone(),
    }
    .schema(&source.schema())
    .map(|s| {
        let fields: Vec<arrow_schema::Field> = s
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        Arc::new(arrow_schema::Schema::new(fields))
    })
    .map_err(|e| ExecError::arrow("a lookup join's columns", e))
}

fn concat(schema: &SchemaRef, parts: &[RecordBatch]) -> Result<RecordBatch> {
    match parts {
        [one] => Ok(one.clone()),
        _ => arrow_select::concat::concat_batches(schema, parts)
            .map_err(|e| ExecError::arrow("a lookup join's fetched rows", e)),
    }
}

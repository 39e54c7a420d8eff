//! Async lookups: each probe batch's request goes out through
//! [`LookupSource::lookup_async`] while the workers go on, up to `capacity`
//! requests in flight.
//!
//! There is no thread of its own: whichever worker adds a batch, or waits
//! for room, *drives* the flight (module docs of `exec::lookup`). Driving
//! checks the deadlines, turns returned requests into retries of their
//! missing keys (after the fixed delay) or into finished batches, sends
//! the retries that are due, and emits finished batches: in sequence order
//! (`ordered`) or as they finish (`allow_unordered`). One driver emits at
//! a time, so ordered output stays ordered; every driver looks again after
//! any change it made, so no finished batch waits for a wake-up. The
//! caller drives until every batch is out once its input has ended.
//! Completions only record their result and wake the drivers: a source
//! may call them from any thread, even inside `lookup_async`, so nothing
//! is sent while the state's lock is held.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;

use super::matching::Probe;
use super::{LookupJoin, LookupMetrics, concat, fetch_schema};
use crate::exec::plan::{Operator, PhysicalPlan};
use crate::exec::run::{Run, Sink};
use crate::exec::{ExecError, Result};
use crate::lookup::{LookupCache, LookupError, LookupRequest, LookupSource, OutputMode};

/// Where one probe batch is.
#[derive(Debug)]
enum Stage {
    /// Its request is out.
    InFlight,
    /// Its request came back; a driver has not looked at it yet.
    Returned,
    /// Keys missing: asked again for these at this time.
    RetryAt(Instant, Vec<u32>),
    /// Every row it will fetch is in: ready to emit.
    Ready,
}

#[derive(Debug)]
struct Entry {
    /// `None` while a driver works on it.
    probe: Option<Probe>,
    parts: Vec<RecordBatch>,
    attempt: u32,
    deadline: Instant,
    stage: Stage,
    /// Its first key, for a timeout's message.
    key_text: String,
    /// The keys its first request asked for (the others came from the
    /// cache, in the first `hits` parts).
    asked: Vec<u32>,
    hits: usize,
}

#[derive(Debug, Default)]
struct State {
    entries: BTreeMap<u64, Entry>,
    next_seq: u64,
    next_emit: u64,
    in_flight: usize,
    emitting: bool,
    failure: Option<LookupError>,
}

/// The shared state of one run of an async lookup join.
#[derive(Debug, Default)]
struct Flight {
    state: Mutex<State>,
    changed: Condvar,
}

type Returned = (u64, Probe, Vec<RecordBatch>, u32, Vec<u32>, usize);

/// What a driver took out of the state to do without its lock.
struct Work {
    /// Returned requests to look at: (sequence, probe, parts, attempt,
    /// keys asked, cache hits).
    returned: Vec<Returned>,
    /// Retries to send.
    send: Vec<(u64, LookupRequest)>,
    /// Batches to emit, in order.
    emit: Vec<(Probe, Vec<RecordBatch>)>,
}

impl Flight {
    fn lock(&self) -> Result<MutexGuard<'_, State>> {
        self.state.lock().map_err(|_| {
            ExecError::Unsupported("internal: a lookup join's state was poisoned".into())
        })
    }

    /// Sends `request` for batch `seq`, whose completion records it.
    fn send(
        self: &Arc<Self>,
        join: &LookupJoin,
        source: &Arc<dyn LookupSource>,
        seq: u64,
        request: LookupRequest,
        retry: bool,
    ) {
        join.metrics.sent(request.len(), retry);
        let flight = Arc::clone(self);
        // the worker waits on the source while it starts the request (all
        // of it for a source that runs requests on the caller's thread)
        let started = Instant::now();
        Arc::clone(source).lookup_async(
            request,
            Box::new(move |result| {
                if let Ok(mut s) = flight.state.lock() {
                    s.in_flight = s.in_flight.saturating_sub(1);
                    match result {
                        Ok(batch) => {
                            if let Some(e) = s.entries.get_mut(&seq) {
                                e.parts.push(batch);
                                e.stage = Stage::Returned;
                            }
                        }
                        Err(e) => {
                            s.failure.get_or_insert(e);
                        }
                    }
                }
                flight.changed.notify_all();
            }),
        );
        join.metrics.waited(started.elapsed());
    }

    /// Adds a probe batch: waits (driving) for room, then sends its
    /// request.
    fn add(self: &Arc<Self>, ctx: &Ctx<'_, '_>, probe: Probe) -> Result<()> {
        let join = ctx.join;
        let deadline = Instant::now() + join.options.timeout;
        let key_text = probe.first_key_text();
        let (hits, asked) = match ctx.cache {
            Some(c) => super::c_hits(join, &probe, &ctx.fetch_schema, &ctx.tag, c)?,
            None => (Vec::new(), probe.all_keys()),
        };
        let hit_parts = hits.len();
        if asked.is_empty() {
            let mut s = self.lock()?;
            let seq = s.next_seq;
            s.next_seq += 1;
            s.entries.insert(
                seq,
                Entry {
                    probe: Some(probe),
                    parts: hits,
                    attempt: 0,
                    deadline,
                    stage: Stage::Ready,
                    key_text,
                    asked,
                    hits: hit_parts,
                },
            );
            return Ok(());
        }
        let request = probe.request(join, Some(&asked))?;
        let mut hits = Some(hits);
        let waited = Instant::now();
        let seq = loop {
            self.drive(ctx)?;
            let s = self.lock()?;
            if s.in_flight < join.options.capacity {
                let mut s = s;
                let seq = s.next_seq;
                s.next_seq += 1;
                s.in_flight += 1;
                join.metrics.in_flight(s.in_flight);
                s.entries.insert(
                    seq,
                    Entry {
                        probe: Some(probe),
                        parts: hits.take().unwrap_or_default(),
                        attempt: 0,
                        deadline,
                        stage: Stage::InFlight,
                        key_text,
                        asked,
                        hits: hit_parts,
                    },
                );
                break seq;
            }
            if has_work(&s, &ctx.join.options) {
                continue;
            }
            let wait = next_event(&s);
            drop(
                self.changed
                    .wait_timeout(s, wait)
                    .map_err(|_| ExecError::Unsupported("internal: poisoned".into()))?,
            );
        };
        join.metrics.waited(waited.elapsed());
        self.send(join, ctx.source, seq, request, false);
        Ok(())
    }

    /// Does what can be done now; returns when nothing is left to do
    /// without waiting.
    fn drive(self: &Arc<Self>, ctx: &Ctx<'_, '_>) -> Result<()> {
        let join = ctx.join;
        loop {
            let work = self.take_work(join)?;
            if work.returned.is_empty() && work.send.is_empty() && work.emit.is_empty() {
                return Ok(());
            }
            for (seq, request) in work.send {
                self.send(join, ctx.source, seq, request, true);
            }
            for (seq, mut probe, parts, attempt, asked, hits) in work.returned {
                let fresh = parts.last().map_or(0, RecordBatch::num_rows);
                LookupMetrics::add(&join.metrics.rows, fresh as u64);
                let retry = join.options.retry.filter(|r| attempt < r.max_attempts);
                let missing = match retry {
                    Some(_) => probe.missing(join, &parts, &asked)?,
                    None => Vec::new(),
                };
                if let Some(c) = ctx.cache.filter(|_| missing.is_empty()) {
                    let fetched = concat(&ctx.fetch_schema, &parts[hits..])?;
                    probe.remember(join, &ctx.tag, c, &fetched, &asked)?;
                }
                let mut s = self.lock()?;
                let Some(e) = s.entries.get_mut(&seq) else {
                    continue;
                };
                e.probe = Some(probe);
                match retry {
                    Some(r) if !missing.is_empty() => {
                        let at = Instant::now() + r.delay;
                        if at > e.deadline {
                            return Err(join.retry_past_timeout(&e.key_text, r.delay));
                        }
                        e.stage = Stage::RetryAt(at, missing);
                        e.attempt += 1;
                    }
                    _ => e.stage = Stage::Ready,
                }
            }
            let emitted = !work.emit.is_empty();
            let result = work.emit.into_iter().try_for_each(|(probe, parts)| {
                let fetched = concat(&ctx.fetch_schema, &parts)?;
                probe.join(join, &fetched, ctx.schema, ctx.size, &mut |b| (ctx.sink)(b))
            });
            if emitted {
                self.lock()?.emitting = false;
            }
            result?;
        }
    }

    /// Under the lock: the failure or a timeout, else the work to do.
    fn take_work(&self, join: &LookupJoin) -> Result<Work> {
        let mut s = self.lock()?;
        if let Some(e) = s.failure.take() {
            return Err(join.failed(e));
        }
        let now = Instant::now();
        if let Some(e) = s
            .entries
            .values()
            .find(|e| !matches!(e.stage, Stage::Ready) && now > e.deadline)
        {
            return Err(join.timed_out_text(&e.key_text));
        }
        let mut work = Work {
            returned: Vec::new(),
            send: Vec::new(),
            emit: Vec::new(),
        };
        let capacity = join.options.capacity;
        let mut in_flight = s.in_flight;
        for (&seq, e) in s.entries.iter_mut() {
            match &e.stage {
                Stage::Returned if e.probe.is_some() => {
                    if let Some(p) = e.probe.take() {
                        work.returned.push((
                            seq,
                            p,
                            e.parts.clone(),
                            e.attempt,
                            e.asked.clone(),
                            e.hits,
                        ));
                    }
                }
                Stage::RetryAt(at, keys) if *at <= now && in_flight < capacity => {
                    if let Some(p) = &e.probe {
                        work.send.push((seq, p.request(join, Some(keys))?));
                        e.stage = Stage::InFlight;
                        in_flight += 1;
                    }
                }
                _ => {}
            }
        }
        s.in_flight = in_flight;
        join.metrics.in_flight(in_flight);
        if !s.emitting {
            let ready = |e: &Entry| matches!(e.stage, Stage::Ready) && e.probe.is_some();
            let seqs: Vec<u64> = match join.options.output_mode {
                OutputMode::Ordered => {
                    let mut seqs = Vec::new();
                    let mut next = s.next_emit;
                    while s.entries.get(&next).is_some_and(ready) {
                        seqs.push(next);
                        next += 1;
                    }
                    s.next_emit = next;
                    seqs
                }
                OutputMode::AllowUnordered => s
                    .entries
                    .iter()
                    .filter(|(_, e)| ready(e))
                    .map(|(&k, _)| k)
                    .collect(),
            };
            for seq in seqs {
                if let Some(mut e) = s.entries.remove(&seq)
                    && let Some(p) = e.probe.take()
                {
                    work.emit.push((p, e.parts));
                }
            }
            s.emitting = !work.emit.is_empty();
        }
        Ok(work)
    }

    /// Drives until every batch is out.
    fn finish(self: &Arc<Self>, ctx: &Ctx<'_, '_>) -> Result<()> {
        let start = Instant::now();
        loop {
            self.drive(ctx)?;
            let s = self.lock()?;
            if s.entries.is_empty() {
                break;
            }
            if has_work(&s, &ctx.join.options) {
                continue;
            }
            let wait = next_event(&s);
            drop(
                self.changed
                    .wait_timeout(s, wait)
                    .map_err(|_| ExecError::Unsupported("internal: poisoned".into()))?,
            );
        }
        ctx.join.metrics.waited(start.elapsed());
        Ok(())
    }
}

/// Whether a driver has something to do now (a completion may have come
/// in after its last look): a returned request, a retry due, or a
/// finished batch while no one emits.
fn has_work(s: &State, options: &crate::lookup::LookupOptions) -> bool {
    let now = Instant::now();
    let ordered = options.output_mode == OutputMode::Ordered;
    s.failure.is_some()
        || s.entries.iter().any(|(&seq, e)| match &e.stage {
            Stage::Returned => e.probe.is_some(),
            Stage::RetryAt(at, _) => *at <= now && s.in_flight < options.capacity,
            Stage::Ready => !s.emitting && e.probe.is_some() && (!ordered || seq == s.next_emit),
            Stage::InFlight => false,
        })
}

/// How long a waiting driver may sleep: until the next retry is due or
/// the next deadline passes (a completion wakes it sooner).
fn next_event(s: &State) -> Duration {
    let now = Instant::now();
    s.entries
        .values()
        .flat_map(|e| {
            let retry = match &e.stage {
                Stage::RetryAt(at, _) => Some(*at),
                _ => None,
            };
            [Some(e.deadline), retry]
        })
        .flatten()
        .min()
        .map_or(Duration::from_millis(50), |t| {
            t.saturating_duration_since(now) + Duration::from_millis(1)
        })
}

/// What every driver needs.
struct Ctx<'a, 's> {
    join: &'a LookupJoin,
    source: &'a Arc<dyn LookupSource>,
    schema: &'a arrow_schema::SchemaRef,
    fetch_schema: arrow_schema::SchemaRef,
    size: usize,
    sink: &'a Sink<'s>,
    cache: Option<&'a LookupCache>,
    /// The join's tag in the cache.
    tag: Vec<u8>,
}

/// Runs async lookup join `plan` (see the module docs).
pub(super) fn run(
    run: &Run<'_>,
    plan: &PhysicalPlan,
    join: &LookupJoin,
    source: Arc<dyn LookupSource>,
    cache: Option<Arc<LookupCache>>,
    sink: &Sink<'_>,
) -> Result<()> {
    let Operator::Lookup { input, .. } = &plan.operator else {
        return Err(ExecError::Unsupported(
            "internal: a lookup join's run got another operator".into(),
        ));
    };
    let flight = Arc::new(Flight::default());
    let ctx = Ctx {
        join,
        source: &source,
        schema: &plan.schema,
        fetch_schema: fetch_schema(join, source.as_ref())?,
        size: run.batch_size,
        sink,
        cache: cache.as_deref(),
        tag: join.cache_tag(),
    };
    run.push(input, &|b: RecordBatch| {
        let start = Instant::now();
        let probe = Probe::new(join, b)?;
        flight.add(&ctx, probe)?;
        flight.drive(&ctx)?;
        plan.metrics.add_time(start.elapsed());
        Ok(())
    })?;
    let start = Instant::now();
    flight.finish(&ctx)?;
    plan.metrics.add_time(start.elapsed());
    Ok(())
}

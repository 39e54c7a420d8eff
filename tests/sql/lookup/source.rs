//! The LOOKUP hint's options against a test source that injects latency,
//! failures and late rows (a key whose row appears only after some
//! attempts), and counts what it is asked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use tenon::Session;
use tenon_planner::lookup::{LookupError, LookupRequest, LookupSource};

use crate::common::{TempDir, collect, empty_session, row_strings, row_strings_unsorted, temp_dir};

/// `dim (id, val)`: `val = id * 10` for the keys it has.
#[derive(Debug, Default)]
struct TestSource {
    /// Keys with a row.
    present: Vec<i64>,
    /// Keys whose row appears only from this attempt on (1-based).
    late: HashMap<i64, usize>,
    /// Each request sleeps this long, or, per key, as long as its key's
    /// entry says (the request's first key).
    latency: Duration,
    latency_of: HashMap<i64, Duration>,
    /// Requests that fail (by their number, from 0).
    failing: Vec<usize>,
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    /// How often each key was asked for.
    asked: Mutex<HashMap<i64, usize>>,
}

fn dim_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("val", DataType::Int64, false),
    ]))
}

impl LookupSource for TestSource {
    fn schema(&self) -> SchemaRef {
        dim_schema()
    }

    fn describe(&self) -> String {
        "the test source".into()
    }

    fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError> {
        let n = self.requests.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        let keys = request.keys[0].as_primitive::<Int64Type>();
        let first = keys.iter().flatten().next().unwrap_or(0);
        std::thread::sleep(*self.latency_of.get(&first).unwrap_or(&self.latency));
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.failing.contains(&n) {
            return Err(format!("injected failure of request {n}").into());
        }
        let mut found = Vec::new();
        let mut asked = self.asked.lock().unwrap();
        for k in keys.iter().flatten() {
            let attempt = {
                let a = asked.entry(k).or_insert(0);
                *a += 1;
                *a
            };
            let there =
                self.present.contains(&k) || self.late.get(&k).is_some_and(|&from| attempt >= from);
            if there {
                found.push(k);
            }
        }
        let all: [ArrayRef; 2] = [
            Arc::new(Int64Array::from(found.clone())),
            Arc::new(Int64Array::from(
                found.iter().map(|k| k * 10).collect::<Vec<_>>(),
            )),
        ];
        let columns = request.columns.iter().map(|&c| all[c].clone()).collect();
        Ok(RecordBatch::try_new(
            request.schema(&dim_schema())?,
            columns,
        )?)
    }
}

/// A session with `orders (k)` holding `keys` (NULL for `None`) in order,
/// and `dim` served by `source`.
fn session(
    source: Arc<TestSource>,
    keys: &[Option<i64>],
    threads: usize,
    batch: usize,
) -> (Session, TempDir) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = temp_dir(&format!(
        "lookup-source-{}",
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let mut csv = String::from("k\n");
    for k in keys {
        csv.push_str(&k.map_or(String::new(), |k| k.to_string()));
        csv.push('\n');
    }
    std::fs::write(dir.join("orders.csv"), csv).unwrap();
    let session = empty_session(threads, batch);
    session
        .execute(&format!(
            "CREATE TABLE orders (k BIGINT, p AS PROCTIME()) WITH ('connector' = 'filesystem', \
             'path' = '{}', 'format' = 'csv')",
            dir.join("orders.csv").display()
        ))
        .unwrap();
    session.register_lookup_table("dim", source, None).unwrap();
    (session, dir)
}

fn query(hint: &str, join: &str) -> String {
    format!(
        "SELECT {hint} o.k, d.val FROM orders AS o {join} dim FOR SYSTEM_TIME AS OF o.p AS d \
         ON o.k = d.id"
    )
}

const RETRY: &str = "'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', \
                     'fixed-delay'='5ms', 'max-attempts'='3'";

#[test]
fn retries_ask_again_for_missing_keys_exactly_as_often_as_the_options_say() {
    for is_async in ["false", "true"] {
        let source = Arc::new(TestSource {
            present: vec![1],
            late: HashMap::from([(5, 3)]), // there from the third attempt
            ..TestSource::default()
        });
        let (session, _dir) = session(source.clone(), &[Some(1), Some(5), Some(6)], 1, 8192);
        let hint = format!("/*+ LOOKUP('table'='d', 'async'='{is_async}', {RETRY}) */");
        let rows = row_strings(&collect(&session, &query(&hint, "LEFT JOIN")));
        assert_eq!(rows, ["1|10", "5|50", "6|NULL"], "async={is_async}");
        let asked = source.asked.lock().unwrap().clone();
        assert_eq!(asked[&1], 1, "a key found is not asked again");
        assert_eq!(asked[&5], 3, "asked until its row appeared");
        assert_eq!(asked[&6], 4, "the first attempt and max-attempts retries");
        // the first request and three retries
        assert_eq!(source.requests.load(Ordering::SeqCst), 4);
    }
    // without the retry options a missing key is asked for once
    let source = Arc::new(TestSource {
        late: HashMap::from([(5, 2)]),
        ..TestSource::default()
    });
    let (session, _dir) = session(source.clone(), &[Some(5)], 1, 8192);
    assert_eq!(run_rows(&session, &query("", "LEFT JOIN")), ["5|NULL"]);
    assert_eq!(source.asked.lock().unwrap()[&5], 1);
}

fn run_rows(session: &Session, sql: &str) -> Vec<String> {
    row_strings(&collect(session, sql))
}

#[test]
fn the_timeout_fails_the_query_naming_the_table_the_key_and_the_timeout() {
    for is_async in ["true", "false"] {
        let source = Arc::new(TestSource {
            present: vec![7],
            latency: Duration::from_millis(300),
            ..TestSource::default()
        });
        let (session, _dir) = session(source, &[Some(7)], 1, 8192);
        let hint = format!("/*+ LOOKUP('table'='d', 'async'='{is_async}', 'timeout'='40ms') */");
        let e = session.collect(&query(&hint, "JOIN")).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("`dim`") && text.contains("key (7)") && text.contains("40ms"),
            "{text}"
        );
        assert_eq!(e.exit_code(), 3, "{text}");
    }
}

#[test]
fn capacity_bounds_the_requests_in_flight() {
    let keys: Vec<Option<i64>> = (0..24).map(Some).collect();
    for (capacity, most) in [(1, 1), (3, 3)] {
        let source = Arc::new(TestSource {
            present: (0..24).collect(),
            latency: Duration::from_millis(3),
            ..TestSource::default()
        });
        let (session, _dir) = session(source.clone(), &keys, 4, 2);
        let hint = format!("/*+ LOOKUP('table'='d', 'async'='true', 'capacity'='{capacity}') */");
        assert_eq!(run_rows(&session, &query(&hint, "JOIN")).len(), 24);
        let peak = source.peak.load(Ordering::SeqCst);
        assert!(
            peak <= most,
            "capacity {capacity}: {peak} requests in flight at once"
        );
        assert_eq!(
            source.requests.load(Ordering::SeqCst),
            12,
            "one request per batch of 2"
        );
    }
}

#[test]
fn ordered_output_keeps_the_input_order_and_unordered_has_the_same_rows() {
    // earlier batches answer slower, so completions come back reversed
    let keys: Vec<Option<i64>> = (0..16).map(Some).collect();
    let latency_of: HashMap<i64, Duration> = (0..16)
        .map(|k| (k, Duration::from_millis(2 * (16 - k as u64))))
        .collect();
    let input: Vec<String> = (0..16).map(|k| format!("{k}|{}", k * 10)).collect();
    for (mode, ordered) in [("ordered", true), ("allow_unordered", false)] {
        let source = Arc::new(TestSource {
            present: (0..16).collect(),
            latency_of: latency_of.clone(),
            ..TestSource::default()
        });
        let (session, _dir) = session(source, &keys, 1, 2);
        let hint = format!(
            "/*+ LOOKUP('table'='d', 'async'='true', 'capacity'='8', 'output-mode'='{mode}') */"
        );
        let rows = row_strings_unsorted(&collect(&session, &query(&hint, "JOIN")));
        if ordered {
            assert_eq!(rows, input);
        } else {
            let mut sorted = rows.clone();
            sorted.sort_by_key(|r| r.split('|').next().unwrap().parse::<i64>().unwrap());
            assert_eq!(sorted, input);
        }
    }
}

#[test]
fn a_failing_request_fails_the_query_with_the_sources_error() {
    let source = Arc::new(TestSource {
        present: vec![1],
        failing: vec![0],
        ..TestSource::default()
    });
    let (session, _dir) = session(source, &[Some(1)], 1, 8192);
    let e = session.collect(&query("", "JOIN")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("the test source") && text.contains("injected failure of request 0"),
        "{text}"
    );
    assert_eq!(e.exit_code(), 3);
}

#[test]
fn a_key_column_the_source_cannot_look_up_by_filters_the_fetched_rows() {
    #[derive(Debug)]
    struct ById(TestSource);
    impl LookupSource for ById {
        fn schema(&self) -> SchemaRef {
            dim_schema()
        }
        fn describe(&self) -> String {
            "a source by id".into()
        }
        fn can_look_up_by(&self, column: usize) -> bool {
            column == 0
        }
        fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError> {
            self.0.lookup(request)
        }
    }
    let keys = [Some(1), Some(2), Some(3), Some(4), None, Some(2)];
    let (session, _dir) = session(Arc::new(TestSource::default()), &keys, 1, 8192);
    let source = TestSource {
        present: vec![1, 2, 3],
        ..Default::default()
    };
    session
        .register_lookup_table("dim", Arc::new(ById(source)), None)
        .unwrap();
    let join = "SELECT /*+ LOOKUP('table' = 'd') */ o.k, d.val FROM orders AS o JOIN dim FOR \
                SYSTEM_TIME AS OF o.p AS d ON";
    // only `id` goes to the source; the equalities on `val` filter its rows
    let rows = row_strings(&collect(
        &session,
        &format!("{join} o.k = d.id AND d.val = 20"),
    ));
    assert_eq!(rows, ["2|20", "2|20"]);
    let rows = row_strings(&collect(
        &session,
        &format!("{join} o.k = d.id AND o.k * 10 = d.val"),
    ));
    assert_eq!(rows, ["1|10", "2|20", "2|20", "3|30"]);
    // with no equality on `id`, there is nothing to look up by
    let e = session.collect(&format!("{join} o.k = d.val")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("a source by id looks rows up only by id")
            && text.contains("`probe.x = lookup.id`"),
        "{text}"
    );
}

/// `TestSource` read whole (for FULL caches): every present key's row.
#[derive(Debug)]
struct Scannable(TestSource, AtomicUsize);

impl LookupSource for Scannable {
    fn schema(&self) -> SchemaRef {
        dim_schema()
    }
    fn describe(&self) -> String {
        "a scannable test source".into()
    }
    fn lookup(&self, request: &LookupRequest) -> Result<RecordBatch, LookupError> {
        self.0.lookup(request)
    }
    fn can_scan(&self) -> bool {
        true
    }
    fn scan(
        &self,
        request: &tenon_planner::exec::ScanRequest<'_>,
        sink: &tenon_planner::exec::Sink<'_>,
    ) -> tenon_planner::exec::Result<()> {
        self.1.fetch_add(1, Ordering::SeqCst);
        let ids = self.0.present.clone();
        let all: [ArrayRef; 2] = [
            Arc::new(Int64Array::from(ids.clone())),
            Arc::new(Int64Array::from(
                ids.iter().map(|k| k * 10).collect::<Vec<_>>(),
            )),
        ];
        let columns = request.columns.iter().map(|&c| all[c].clone()).collect();
        let schema = Arc::new(dim_schema().project(request.columns).unwrap());
        sink(RecordBatch::try_new(schema, columns).unwrap())
    }
}

fn partial(
    write: Option<u64>,
    access: Option<u64>,
    missing: bool,
    max_rows: u64,
) -> tenon_planner::lookup::CacheMode {
    tenon_planner::lookup::CacheMode::Partial {
        max_rows,
        expire_after_write: write.map(Duration::from_secs),
        expire_after_access: access.map(Duration::from_secs),
        cache_missing_key: missing,
    }
}

/// A PARTIAL cache serves later queries of the session; entries expire
/// after write and after access as the clock (moved by hand) says; a
/// missing key is cached unless told otherwise.
#[test]
fn a_partial_cache_keeps_keys_until_they_expire() {
    use tenon_planner::lookup::ManualClock;
    let keys = [Some(1), Some(2), Some(9)];
    let setup = |mode| {
        let source = Arc::new(TestSource {
            present: vec![1, 2],
            ..TestSource::default()
        });
        let clock = Arc::new(ManualClock::default());
        let (session, dir) = session(Arc::new(TestSource::default()), &keys, 1, 8192);
        session
            .register_lookup_table_cached("dim", source.clone(), None, mode, clock.clone())
            .unwrap();
        (session, dir, source, clock)
    };
    let asked = |s: &TestSource, k: i64| s.asked.lock().unwrap().get(&k).copied().unwrap_or(0);
    let sql = query("", "LEFT JOIN");
    let expected = ["1|10", "2|20", "9|NULL"];

    // after write: 10 s
    let (session, _dir, source, clock) = setup(partial(Some(10), None, true, 100));
    assert_eq!(run_rows(&session, &sql), expected);
    clock.advance(Duration::from_secs(5));
    let (analyzed, out) = session.explain_analyze(&sql).unwrap();
    assert_eq!(row_strings(&out.batches), expected);
    let text = analyzed.to_text();
    assert!(
        text.contains("requests=0") && text.contains("cache_hits=3 cache_misses=0"),
        "{text}"
    );
    assert_eq!(
        (asked(&source, 1), asked(&source, 9)),
        (1, 1),
        "a missing key is cached too"
    );
    clock.advance(Duration::from_secs(5));
    assert_eq!(run_rows(&session, &sql), expected);
    assert_eq!(asked(&source, 1), 2, "expired 10 s after it was written");

    // after access: 10 s since the last use
    let (session, _dir, source, clock) = setup(partial(None, Some(10), true, 100));
    run_rows(&session, &sql);
    for _ in 0..3 {
        clock.advance(Duration::from_secs(6));
        run_rows(&session, &sql);
    }
    assert_eq!(asked(&source, 1), 1, "each use within 10 s keeps it");
    clock.advance(Duration::from_secs(11));
    run_rows(&session, &sql);
    assert_eq!(asked(&source, 1), 2, "unused for 11 s: expired");

    // missing keys not cached
    let (session, _dir, source, _clock) = setup(partial(None, None, false, 100));
    run_rows(&session, &sql);
    run_rows(&session, &sql);
    assert_eq!((asked(&source, 1), asked(&source, 9)), (1, 2));
}

/// With retries, the cache keeps the result after them: a key whose row
/// appears on its third attempt is cached with its row.
#[test]
fn a_partial_cache_keeps_the_result_after_the_retries() {
    use tenon_planner::lookup::ManualClock;
    for is_async in ["false", "true"] {
        let source = Arc::new(TestSource {
            late: HashMap::from([(5, 3)]),
            ..TestSource::default()
        });
        let (session, _dir) = session(Arc::new(TestSource::default()), &[Some(5)], 1, 8192);
        session
            .register_lookup_table_cached(
                "dim",
                source.clone(),
                None,
                partial(None, None, true, 100),
                Arc::new(ManualClock::default()),
            )
            .unwrap();
        let hint = format!("/*+ LOOKUP('table'='d', 'async'='{is_async}', {RETRY}) */");
        for _ in 0..2 {
            assert_eq!(run_rows(&session, &query(&hint, "LEFT JOIN")), ["5|50"]);
        }
        assert_eq!(source.asked.lock().unwrap()[&5], 3, "async={is_async}");
    }
}

/// A FULL cache reads the table once, answers every lookup from it, and
/// reads it again once the reload interval has passed.
#[test]
fn a_full_cache_reads_the_table_once_per_reload_interval() {
    use tenon_planner::lookup::{CacheMode, ManualClock};
    let source = Arc::new(Scannable(
        TestSource {
            present: vec![1, 2, 3],
            ..TestSource::default()
        },
        AtomicUsize::new(0),
    ));
    let clock = Arc::new(ManualClock::default());
    let (session, _dir) = session(
        Arc::new(TestSource::default()),
        &[Some(1), Some(3), Some(4)],
        1,
        2,
    );
    session
        .register_lookup_table_cached(
            "dim",
            source.clone(),
            None,
            CacheMode::Full {
                reload_interval: Some(Duration::from_secs(60)),
            },
            clock.clone(),
        )
        .unwrap();
    let sql = query("", "LEFT JOIN");
    for _ in 0..2 {
        assert_eq!(run_rows(&session, &sql), ["1|10", "3|30", "4|NULL"]);
    }
    assert_eq!(source.1.load(Ordering::SeqCst), 1, "read once");
    assert_eq!(
        source.0.requests.load(Ordering::SeqCst),
        0,
        "no lookup reached the source"
    );
    clock.advance(Duration::from_secs(61));
    run_rows(&session, &sql);
    assert_eq!(
        source.1.load(Ordering::SeqCst),
        2,
        "read again after the interval"
    );
}

//! Intervals in SQL and interval joins (docs/time.md).
//!
//! The interval joins (the three forms of the seed and its orders /
//! shipments example) run for every join type under every strategy hint
//! on random microsecond timestamps with NULLs and ties, at several thread
//! counts and batch sizes, against a nested-loop reference computed here;
//! EXPLAIN shows that a constant interval reached the kernel as an offset
//! (no column computed for it). Then interval arithmetic: calendar months,
//! negative intervals, `HOUR TO MINUTE`, `DATE ± DAY`, NULLs and overflow.

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use tenon::Session;

use crate::common::{empty_session, query_err, run};

/// Microseconds.
const SEC: i64 = 1_000_000;
const MIN: i64 = 60 * SEC;
const HOUR: i64 = 60 * MIN;
/// 2024-01-01T00:00:00 in microseconds.
const BASE: i64 = 1_704_067_200 * SEC;

/// A tiny deterministic generator (xorshift), so that the data needs no
/// dependency and every run sees the same rows.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }

    /// `None` one time in `1 / p`.
    fn maybe(&mut self, p: u64, v: i64) -> Option<i64> {
        (self.below(p) != 0).then_some(v)
    }
}

/// One side of an interval join: `id` (unique), `k` (a key, nullable) and
/// `t` (a timestamp, nullable).
#[derive(Debug, Clone)]
struct Side {
    rows: Vec<(i64, Option<i64>, Option<i64>)>,
}

impl Side {
    /// `n` rows with times of `span` microseconds from [`BASE`] in steps of
    /// `step` (ties), keys in `0..keys`.
    fn random(g: &mut Gen, n: usize, id0: i64, keys: u64, span: i64, step: i64) -> Side {
        let rows = (0..n)
            .map(|i| {
                let k = g.below(keys);
                let t = BASE + g.below((span / step) as u64) * step;
                (id0 + i as i64, g.maybe(9, k), g.maybe(7, t))
            })
            .collect();
        Side { rows }
    }

    /// The side with its times (microseconds, whole seconds for coarser
    /// units) as timestamps of `unit`.
    fn batch_in(&self, names: [&str; 3], unit: &Unit) -> RecordBatch {
        let ty = DataType::Timestamp(unit.0, unit.1.map(Into::into));
        let schema = Arc::new(Schema::new(vec![
            Field::new(names[0], DataType::Int64, false),
            Field::new(names[1], DataType::Int64, true),
            Field::new(names[2], ty.clone(), true),
        ]));
        let ids = Int64Array::from_iter_values(self.rows.iter().map(|r| r.0));
        let ks = Int64Array::from_iter(self.rows.iter().map(|r| r.1));
        let us = TimestampMicrosecondArray::from_iter(self.rows.iter().map(|r| r.2));
        let ts = arrow_cast::cast(&us, &ty).unwrap();
        RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(ks), ts]).unwrap()
    }
}

/// A timestamp unit and time zone.
struct Unit(TimeUnit, Option<&'static str>);

/// A pair predicate over (k, t) of a left and a right row; `None` is
/// unknown.
type Pred = fn((Option<i64>, Option<i64>), (Option<i64>, Option<i64>)) -> Option<bool>;

/// The reference: for every join type, the rows a nested loop gives, as
/// `lid|rid` strings (semi/anti: `lid`).
fn reference(l: &Side, r: &Side, pred: Pred, kind: &str) -> Vec<String> {
    let matches = |a: &(i64, Option<i64>, Option<i64>), b: &(i64, Option<i64>, Option<i64>)| {
        pred((a.1, a.2), (b.1, b.2)) == Some(true)
    };
    let mut out = Vec::new();
    for a in &l.rows {
        let hits: Vec<i64> = r
            .rows
            .iter()
            .filter(|b| matches(a, b))
            .map(|b| b.0)
            .collect();
        match kind {
            "SEMI" if !hits.is_empty() => out.push(a.0.to_string()),
            "ANTI" if hits.is_empty() => out.push(a.0.to_string()),
            "SEMI" | "ANTI" => {}
            _ => {
                out.extend(hits.iter().map(|h| format!("{}|{h}", a.0)));
                if hits.is_empty() && matches!(kind, "LEFT" | "FULL") {
                    out.push(format!("{}|NULL", a.0));
                }
            }
        }
    }
    if matches!(kind, "RIGHT" | "FULL") {
        for b in &r.rows {
            if !l.rows.iter().any(|a| matches(a, b)) {
                out.push(format!("NULL|{}", b.0));
            }
        }
    }
    out.sort();
    out
}

/// Three-valued `a <op> b + offset`, exact.
fn cmp(a: Option<i64>, b: Option<i64>, offset: i64, op: fn(i128, i128) -> bool) -> Option<bool> {
    Some(op(i128::from(a?), i128::from(b?) + i128::from(offset)))
}

fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

const HINTS: [&str; 7] = [
    "",
    "/*+ SHUFFLE_MERGE(r) */",
    "/*+ NEST_LOOP(r) */",
    "/*+ NEST_LOOP(l) */",
    "/*+ BROADCAST(r) */",
    "/*+ SHUFFLE_HASH(r) */",
    "/*+ SHUFFLE_MERGE(l) */",
];
const KINDS: [&str; 6] = ["INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"];
/// (threads, batch size).
const CONFIGS: [(usize, usize); 4] = [(1, 1), (4, 7), (1, 2), (4, 8192)];

fn sessions(l: &Side, r: &Side, names: ([&str; 3], [&str; 3], &str, &str)) -> Vec<Session> {
    sessions_in(l, r, names, &Unit(TimeUnit::Microsecond, None))
}

fn sessions_in(
    l: &Side,
    r: &Side,
    names: ([&str; 3], [&str; 3], &str, &str),
    unit: &Unit,
) -> Vec<Session> {
    CONFIGS
        .iter()
        .map(|&(threads, batch)| {
            let mut s = empty_session(threads, batch);
            s.register_batch(names.2, l.batch_in(names.0, unit))
                .unwrap();
            s.register_batch(names.3, r.batch_in(names.1, unit))
                .unwrap();
            s
        })
        .collect()
}

/// The query of one join type over `l` and `r` with condition `on`. A
/// semi/anti join's hint names `l` (the subquery's `r` is not in the outer
/// block's scope).
fn query(hint: &str, kind: &str, on: &str) -> String {
    match kind {
        "SEMI" | "ANTI" => {
            let not = if kind == "ANTI" { "NOT " } else { "" };
            let hint = hint.replace("(r)", "(l)");
            format!("SELECT {hint} l.id FROM l WHERE {not}EXISTS (SELECT 1 FROM r WHERE {on})")
        }
        _ => format!("SELECT {hint} l.id, r.id FROM l {kind} JOIN r ON {on}"),
    }
}

/// Every join type and hint of `on` against the reference.
fn check_join(on: &str, pred: Pred, seed: u64, keys: u64, step: i64) {
    check_join_in(
        on,
        pred,
        seed,
        keys,
        step,
        &Unit(TimeUnit::Microsecond, None),
    );
}

/// [`check_join`] on timestamps of `unit`.
fn check_join_in(on: &str, pred: Pred, seed: u64, keys: u64, step: i64, unit: &Unit) {
    let mut g = Gen(seed);
    let l = Side::random(&mut g, 70, 0, keys, 30 * MIN, step);
    let r = Side::random(&mut g, 60, 1000, keys, 30 * MIN, step);
    let names = ["id", "k", "t"];
    let sessions = sessions_in(&l, &r, (names, names, "l", "r"), unit);
    for kind in KINDS {
        let want = reference(&l, &r, pred, kind);
        for hint in HINTS {
            let sql = query(hint, kind, on);
            for (s, cfg) in sessions.iter().zip(CONFIGS) {
                assert_eq!(run(s, &sql), want, "{sql} (threads, batch) = {cfg:?}");
            }
        }
    }
}

#[test]
fn equal_times() {
    check_join(
        "l.t = r.t",
        |a, b| cmp(a.1, b.1, 0, |x, y| x == y),
        7,
        3,
        MIN,
    );
}

#[test]
fn a_ten_minute_window() {
    check_join(
        "l.t >= r.t AND l.t < r.t + INTERVAL '10' MINUTE",
        |a, b| {
            and(
                cmp(a.1, b.1, 0, |x, y| x >= y),
                cmp(a.1, b.1, 10 * MIN, |x, y| x < y),
            )
        },
        11,
        3,
        30 * SEC,
    );
}

#[test]
fn a_window_within_keys() {
    check_join(
        "l.k = r.k AND l.t >= r.t AND l.t < r.t + INTERVAL '10' MINUTE",
        |a, b| {
            and(
                Some(a.0? == b.0?),
                and(
                    cmp(a.1, b.1, 0, |x, y| x >= y),
                    cmp(a.1, b.1, 10 * MIN, |x, y| x < y),
                ),
            )
        },
        13,
        4,
        30 * SEC,
    );
}

#[test]
fn between_two_offsets() {
    check_join(
        "l.t BETWEEN r.t - INTERVAL '10' SECOND AND r.t + INTERVAL '5' SECOND",
        |a, b| {
            and(
                cmp(a.1, b.1, -10 * SEC, |x, y| x >= y),
                cmp(a.1, b.1, 5 * SEC, |x, y| x <= y),
            )
        },
        17,
        3,
        SEC,
    );
}

/// Seconds, milliseconds with a time zone and nanoseconds: the offset is in
/// the column's unit (and a day, in a zone, is computed per row).
#[test]
fn other_units_and_zones() {
    for unit in [
        Unit(TimeUnit::Second, None),
        Unit(TimeUnit::Millisecond, Some("+05:30")),
        Unit(TimeUnit::Nanosecond, None),
    ] {
        check_join_in(
            "l.t BETWEEN r.t - INTERVAL '90' SECOND AND r.t + INTERVAL '0:03' HOUR TO MINUTE",
            |a, b| {
                and(
                    cmp(a.1, b.1, -90 * SEC, |x, y| x >= y),
                    cmp(a.1, b.1, 3 * MIN, |x, y| x <= y),
                )
            },
            29,
            2,
            30 * SEC,
            &unit,
        );
        check_join_in(
            "l.k = r.k AND l.t > r.t - INTERVAL '1' DAY AND l.t <= r.t - INTERVAL '10' MINUTE",
            |a, b| {
                and(
                    Some(a.0? == b.0?),
                    and(
                        cmp(a.1, b.1, -24 * 60 * MIN, |x, y| x > y),
                        cmp(a.1, b.1, -10 * MIN, |x, y| x <= y),
                    ),
                )
            },
            31,
            3,
            SEC,
            &unit,
        );
    }
}

/// The seed's example: orders shipped within four hours of being placed.
#[test]
fn orders_and_shipments() {
    let mut g = Gen(23);
    // Orders(id, o_k (unused), order_time), Shipments(id, order_id, ship_time)
    let orders = Side::random(&mut g, 50, 0, 1, 12 * HOUR, MIN);
    let mut ships = Side::random(&mut g, 70, 500, 1, 12 * HOUR, MIN);
    for row in &mut ships.rows {
        let order = g.below(55); // order ids 0..55, some unknown
        row.1 = g.maybe(10, order);
    }
    let sessions = sessions(
        &orders,
        &ships,
        (
            ["id", "o_k", "order_time"],
            ["id", "order_id", "ship_time"],
            "orders",
            "shipments",
        ),
    );
    let on = "o.id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND \
              s.ship_time";
    // the reference sees (id, time) of an order and (order_id, time) of a shipment
    let keyed = |s: &Side, id_is_key: bool| Side {
        rows: s
            .rows
            .iter()
            .map(|&(id, k, t)| (id, if id_is_key { Some(id) } else { k }, t))
            .collect(),
    };
    let pred: Pred = |a, b| {
        and(
            Some(a.0? == b.0?),
            and(
                cmp(a.1, b.1, -4 * HOUR, |x, y| x >= y),
                cmp(a.1, b.1, 0, |x, y| x <= y),
            ),
        )
    };
    let (lo, ls) = (keyed(&orders, true), keyed(&ships, false));
    for kind in KINDS {
        let want = reference(&lo, &ls, pred, kind);
        for hint in HINTS {
            let hint = hint.replace("(r)", "(s)").replace("(l)", "(o)");
            let sql = match kind {
                "SEMI" | "ANTI" => format!(
                    "SELECT {} o.id FROM Orders o WHERE {}EXISTS (SELECT 1 FROM Shipments s \
                     WHERE {on})",
                    hint.replace("(s)", "(o)"),
                    if kind == "ANTI" { "NOT " } else { "" }
                ),
                "INNER" => {
                    format!("SELECT {hint} o.id, s.id FROM Orders o, Shipments s WHERE {on}")
                }
                _ => format!(
                    "SELECT {hint} o.id, s.id FROM Orders o {kind} JOIN Shipments s ON {on}"
                ),
            };
            for (s, cfg) in sessions.iter().zip(CONFIGS) {
                assert_eq!(run(s, &sql), want, "{sql} (threads, batch) = {cfg:?}");
            }
        }
    }
}

/// The kernel searches `r.t + 10 minutes` as an offset: EXPLAIN shows it,
/// and no computed key column.
#[test]
fn explain_shows_the_offset_at_the_kernel() {
    let mut g = Gen(5);
    let side = Side::random(&mut g, 5, 0, 2, HOUR, SEC);
    let names = ["id", "k", "t"];
    let s = &sessions(&side, &side, (names, names, "l", "r"))[0];
    for (hint, window) in [
        (
            "/*+ SHUFFLE_MERGE(r) */",
            "ranges=[left.t >= right.t, left.t < right.t + 600000000us]",
        ),
        (
            "/*+ NEST_LOOP(r) */",
            "ranges=[left.t >= right.t - 10000000us, left.t <= right.t + 5000000us]",
        ),
    ] {
        let on = if hint.contains("MERGE") {
            "l.k = r.k AND l.t >= r.t AND l.t < r.t + INTERVAL '10' MINUTE"
        } else {
            "l.t BETWEEN r.t - INTERVAL '10' SECOND AND r.t + INTERVAL '5' SECOND"
        };
        let text = s
            .explain(&query(hint, "INNER", on))
            .unwrap()
            .tree()
            .to_string();
        assert!(text.contains(window), "{text}");
        assert!(!text.contains("__key"), "{text}");
    }
    // a month is calendar arithmetic: computed per row, still right
    let text = s
        .explain(&query(
            "/*+ NEST_LOOP(r) */",
            "INNER",
            "l.t < r.t + INTERVAL '1' MONTH",
        ))
        .unwrap()
        .tree()
        .to_string();
    assert!(text.contains("left.t < right.__key0"), "{text}");
}

/// One value of a constant query, as its row string.
fn value(s: &Session, expr: &str) -> String {
    let rows = run(s, &format!("SELECT {expr} AS v"));
    assert_eq!(rows.len(), 1, "{expr}");
    rows[0].clone()
}

#[test]
fn interval_arithmetic() {
    let s = empty_session(1, 8192);
    for (expr, want) in [
        // calendar months clamp to the month's last day
        ("DATE '2024-01-31' + INTERVAL '1' MONTH", "2024-02-29"),
        ("DATE '2023-01-31' + INTERVAL '1' MONTH", "2023-02-28"),
        ("DATE '2024-03-31' - INTERVAL '1' MONTH", "2024-02-29"),
        ("DATE '2024-02-29' + INTERVAL '1' YEAR", "2025-02-28"),
        (
            "TIMESTAMP '2024-01-31 10:00:00' + INTERVAL '1' MONTH",
            "2024-02-29T10:00:00",
        ),
        (
            "CAST('2024-01-31 12:00:00' AS TIMESTAMP(3)) + INTERVAL '1' MONTH",
            "2024-02-29T12:00:00",
        ),
        // days, hours, minutes, seconds, negative and negated intervals
        ("DATE '2024-03-01' - INTERVAL '1' DAY", "2024-02-29"),
        ("INTERVAL '3' DAY + DATE '2024-12-30'", "2025-01-02"),
        (
            "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '10' MINUTE",
            "2024-01-01T00:10:00",
        ),
        (
            "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '-5' SECOND",
            "2023-12-31T23:59:55",
        ),
        (
            "TIMESTAMP '2024-01-01 00:00:00' - (- INTERVAL '5' SECOND)",
            "2024-01-01T00:00:05",
        ),
        (
            "INTERVAL '2' HOUR + TIMESTAMP '2024-01-01 23:00:00'",
            "2024-01-02T01:00:00",
        ),
        (
            "CAST('2024-01-01 12:00:00' AS TIMESTAMP(0)) - INTERVAL '90' MINUTE",
            "2024-01-01T10:30:00",
        ),
        (
            "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1:30' HOUR TO MINUTE",
            "2024-01-01T01:30:00",
        ),
        (
            "TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '1 02:03' DAY TO MINUTE",
            "2023-12-30T21:57:00",
        ),
        // a date with a time of day is a timestamp (PostgreSQL)
        (
            "DATE '2024-01-01' + INTERVAL '90' MINUTE",
            "2024-01-01T01:30:00",
        ),
        (
            "CAST('2024-01-31 12:00:00' AS TIMESTAMP(6)) + INTERVAL '1:30' HOUR TO MINUTE",
            "2024-01-31T13:30:00",
        ),
        (
            "arrow_typeof(CAST('2024-01-31 12:00:00' AS TIMESTAMP(3)) - INTERVAL '1' SECOND)",
            "Timestamp(ms)",
        ),
        ("CAST(NULL AS TIMESTAMP) + INTERVAL '1' DAY", "NULL"),
        ("CAST(NULL AS DATE) - INTERVAL '1' MONTH", "NULL"),
        // comparisons across types and units keep working
        (
            "DATE '2024-01-01' + INTERVAL '1' DAY > TIMESTAMP '2024-01-01 12:00:00'",
            "true",
        ),
        (
            "CAST('2024-01-01 12:00:00' AS TIMESTAMP(3)) = TIMESTAMP '2024-01-01 12:00:00'",
            "true",
        ),
    ] {
        assert_eq!(value(&s, expr), want, "{expr}");
    }
}

#[test]
fn interval_results_out_of_range_are_errors_naming_the_expression() {
    let s = empty_session(1, 8192);
    for expr in [
        "TIMESTAMP '2262-01-01 00:00:00' + INTERVAL '1000' DAY",
        "CAST('2262-04-01 00:00:00' AS TIMESTAMP(9)) + INTERVAL '100' MONTH",
        "DATE '2024-01-01' + INTERVAL '2147483647' DAY",
    ] {
        let err = query_err(&s, &format!("SELECT {expr} AS v")).to_string();
        assert!(
            err.contains("INTERVAL") || err.contains("Interval"),
            "{expr}: {err}"
        );
        assert!(err.contains("out of the range of"), "{expr}: {err}");
    }
}

/// A timestamp with a time zone keeps its zone and unit, and a day is a
/// calendar day there (23 hours across the spring change in Berlin).
#[test]
fn zoned_timestamps_keep_their_zone() {
    use arrow_array::TimestampMillisecondArray;
    let mut s = empty_session(1, 8192);
    let zone = "Europe/Berlin";
    // 2024-03-30T12:00:00+01:00 and 2024-01-01T00:00:00+01:00
    let t =
        TimestampMillisecondArray::from(vec![Some(1_711_796_400_000), None]).with_timezone(zone);
    let b = RecordBatch::try_from_iter([("t", Arc::new(t) as _)]).unwrap();
    s.register_batch("z", b).unwrap();
    let rows = run(
        &s,
        "SELECT arrow_typeof(t + INTERVAL '1' DAY), t + INTERVAL '1' DAY, \
         t - INTERVAL '90' MINUTE, t + INTERVAL '1' MONTH FROM z",
    );
    assert_eq!(
        rows,
        vec![
            "Timestamp(ms, \"Europe/Berlin\")|2024-03-31T12:00:00+02:00|2024-03-30T10:30:00+01:00|2024-04-30T12:00:00+02:00",
            "Timestamp(ms, \"Europe/Berlin\")|NULL|NULL|NULL",
        ]
    );
}

/// A date plus intervals computed per row: whole days and months give
/// dates; a time of day, which Arrow would drop, is an error that says
/// what to do.
#[test]
fn a_date_plus_interval_values_with_a_time_of_day_is_an_error() {
    use arrow_array::{Date32Array, IntervalMonthDayNanoArray};
    use arrow_buffer::IntervalMonthDayNano;
    let mut s = empty_session(1, 8192);
    let batch = |nanos: i64| {
        // 2024-01-31 twice and NULL
        let d = Date32Array::from(vec![Some(19_753), Some(19_753), None]);
        let i = IntervalMonthDayNanoArray::from(vec![
            Some(IntervalMonthDayNano::new(1, 1, 0)),
            Some(IntervalMonthDayNano::new(0, 0, nanos)),
            // NULL in, NULL out: not refused
            Some(IntervalMonthDayNano::new(0, 0, 1)),
        ]);
        RecordBatch::try_from_iter([("d", Arc::new(d) as _), ("i", Arc::new(i) as _)]).unwrap()
    };
    s.register_batch("days", batch(0)).unwrap();
    s.register_batch("hours", batch(3_600_000_000_000)).unwrap();
    assert_eq!(
        run(
            &s,
            "SELECT d + i FROM days WHERE d IS NULL OR i <> INTERVAL '0' DAY"
        ),
        ["2024-03-01", "NULL"]
    );
    let err = query_err(&s, "SELECT d + i FROM hours").to_string();
    assert!(err.contains("cast the date to TIMESTAMP"), "{err}");
}

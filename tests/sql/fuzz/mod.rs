//! The SQL/hint fuzzer: statements made by mutating seeds, run through
//! `tenon::Session` on tiny tables; any outcome but rows or a clean error
//! is a failure.
//!
//! **Seeds** ([`seeds`]): the TPC-H queries, the README's queries,
//! statements over the small test tables (every join type, set operations,
//! subqueries, CASE, string/date functions, WITH, OPTIONS), and the
//! differential test's queries (`tests/differential/cases.sql`).
//!
//! **Mutations** ([`mutate`]), 1 to 4 per statement: drop, duplicate or swap
//! tokens; a literal set to an extreme (±2^63 and beyond, 39-digit
//! decimals, 1e309, NaN, -inf, -0.0, empty and 70,000-character strings,
//! dates 0001/9999, NULL); a hint block inserted or replaced, valid or
//! mangled (unknown names, bad arguments, unterminated, nested); the
//! statement wrapped (derived table, WITH, `UNION ALL` of itself, `ORDER
//! BY 1 LIMIT 3`); a value nested in parentheses, CASE, coalesce, unary
//! minus or NOT, up to [`MAX_DEPTH`] levels; a chain of up to
//! [`MAX_CHAIN`] `OR` terms, `+` terms or `UNION ALL` branches; a keyword or
//! operator inserted; a piece of another seed spliced in; a name replaced by
//! another.
//!
//! **Tables**: the TPC-H tables at scale 0.001 cut to [`TPCH_ROWS`] rows
//! each (so that a cross product of all eight stays small), the test tables
//! `a`, `b`, `c`, `e`, `n`, and the differential test's tables.
//!
//! **A case** runs on its own thread ([`STACK`] bytes of stack, as a main
//! thread has) in a session with `memory_limit` [`MEMORY_LIMIT`], through
//! `Session::sql` (so execution runs on the query thread), consuming at
//! most [`MAX_ROWS`] rows. It fails when it panics (in planning, caught by
//! `catch_unwind`, or on the query thread, which surfaces as "internal:
//! the query thread panicked"), or when it is not done within [`TIMEOUT`]
//! (a hang; the run stops there). Failures are listed with their SQL, case
//! number and seed, so each can be replayed.
//!
//! **Depth**: CI nests at most [`MAX_DEPTH`] levels and chains at most
//! [`MAX_CHAIN`] terms, below where today's code overflows its stack (a
//! stack overflow aborts the whole test process, it cannot be caught): in
//! a debug build an `OR` chain of 60 terms runs and one of 100 overflows
//! (release: about 937, issue 14), and nested `NOT (` parses in
//! exponential time. Parentheses deeper than 50 are refused cleanly
//! ("nested too deeply"). Longer runs:
//!
//! ```sh
//! TENON_FUZZ_CASES=100000 TENON_FUZZ_SEED=7 TENON_FUZZ_DEPTH=40 TENON_FUZZ_CHAIN=2000 \
//!   cargo nextest run --test sql fuzz_statements --no-capture
//! ```
//!
//! `TENON_FUZZ_CASES` (default [`CASES`]), `TENON_FUZZ_SEED` (default
//! [`SEED`]: a different seed, different statements),
//! `TENON_FUZZ_DEPTH` (default [`MAX_DEPTH`]), `TENON_FUZZ_CHAIN` (default
//! [`MAX_CHAIN`]), `TENON_FUZZ_FIRST` (default
//! 0: the first case number; with `TENON_FUZZ_CASES=1`, replays one case),
//! `TENON_FUZZ_VERBOSE=1` prints every statement before it runs and its
//! outcome after (to find the one that aborted).
//!
//! A separate test, [`fuzz_errors_are_in_tenons_own_words`], checks that
//! each error is tenon's own words: no DataFusion "Internal error", no
//! "bug report", no Rust `Debug` dumps (`Ident {`, `BinaryOp {`).
//!
//! Each crash found becomes a regression test named after its defect, next
//! to the code it tests (the one found so far, the exponential parse of
//! nested `NOT (`, is `deep_sql.rs`'s
//! `nested_not_parses_in_linear_time_and_says_what_limit_it_hit`).

mod mutate;
mod seeds;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use arrow_array::RecordBatch;
use tenon::{Config, Session};

use crate::common::std_tables;

/// Statements per run in CI.
pub const CASES: u64 = 3000;
/// The default run seed.
pub const SEED: u64 = 14;
/// The deepest nesting CI generates.
pub const MAX_DEPTH: usize = 8;
/// The longest chain (`OR` terms, `+` terms, `UNION ALL` branches) CI
/// generates.
pub const MAX_CHAIN: usize = 32;
/// Rows per TPC-H table.
pub const TPCH_ROWS: usize = 5;
/// Rows a case reads from its stream before it stops the query.
pub const MAX_ROWS: usize = 100_000;
/// A case not done by then is a hang.
pub const TIMEOUT: Duration = Duration::from_secs(20);
/// The stack of a case's thread.
pub const STACK: usize = 8 << 20;
/// The sessions' `memory_limit`.
pub const MEMORY_LIMIT: u64 = 64 << 20;

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Rows (how many were read).
    Rows(usize),
    /// A clean error: its message.
    Error(String),
    /// A panic: its message.
    Panic(String),
    /// Not done within [`TIMEOUT`].
    Hang,
}

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    match std::env::var(key) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{key}={v} is not a valid number")),
        Err(_) => default,
    }
}

/// The sessions the cases alternate between: (1 thread, 2-row batches)
/// and (4 threads, 8192-row batches), each with the fuzzer's tables.
pub fn sessions() -> Vec<Arc<Session>> {
    let mut tpch: Vec<(&str, RecordBatch)> = Vec::new();
    for (name, batches) in tenon::datasets::tpch::tpch_tables_cached(0.001) {
        let b = &batches[0];
        tpch.push((name, b.slice(0, TPCH_ROWS.min(b.num_rows()))));
    }
    [(1, 2), (4, 8192)]
        .into_iter()
        .map(|(threads, batch_size)| {
            let config = Config {
                threads,
                batch_size,
                memory_limit: Some(MEMORY_LIMIT),
                ..Config::default()
            };
            let mut s = Session::new(config).expect("a session");
            for (name, b) in &tpch {
                s.register_batch(name, b.clone()).expect("a TPC-H table");
            }
            for t in std_tables() {
                s.register_batch(&t.name, t.batch()).expect("a test table");
            }
            crate::differential_duckdb::register(&mut s);
            Arc::new(s)
        })
        .collect()
}

/// The message of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

/// Runs `sql` in `session` as a case (see the module docs).
pub fn run_case(session: &Arc<Session>, sql: &str) -> Outcome {
    let (tx, rx) = channel();
    let (session, text) = (Arc::clone(session), sql.to_string());
    let spawned = std::thread::Builder::new()
        .name("tenon-fuzz-case".into())
        .stack_size(STACK)
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| {
                let stream = session
                    .sql(&text)
                    .and_then(|q| q.stream())
                    .map_err(|e| e.to_string())?;
                let mut rows = 0;
                for batch in stream {
                    rows += batch.map_err(|e| e.to_string())?.num_rows();
                    if rows >= MAX_ROWS {
                        break;
                    }
                }
                Ok::<usize, String>(rows)
            }));
            let outcome = match result {
                Ok(Ok(rows)) => Outcome::Rows(rows),
                Ok(Err(e)) if e.contains("the query thread panicked") => Outcome::Panic(e),
                Ok(Err(e)) => Outcome::Error(e),
                Err(p) => Outcome::Panic(panic_message(p.as_ref())),
            };
            let _ = tx.send(outcome);
        });
    if let Err(e) = spawned {
        return Outcome::Panic(format!("cannot start the case's thread: {e}"));
    }
    match rx.recv_timeout(TIMEOUT) {
        Ok(outcome) => outcome,
        Err(RecvTimeoutError::Timeout) => Outcome::Hang,
        Err(RecvTimeoutError::Disconnected) => Outcome::Panic("the case's thread died".into()),
    }
}

/// Every statement of the run: (case number, SQL).
fn statements(cases: u64) -> Vec<(u64, String)> {
    let seeds = seeds::seeds();
    let (seed, depth) = (
        env_or("TENON_FUZZ_SEED", SEED),
        env_or("TENON_FUZZ_DEPTH", MAX_DEPTH),
    );
    let chain = env_or("TENON_FUZZ_CHAIN", MAX_CHAIN);
    let first = env_or("TENON_FUZZ_FIRST", 0);
    (first..first + cases)
        .map(|case| (case, mutate::statement(&seeds, seed, case, depth, chain)))
        .collect()
}

/// Runs `cases` statements and calls `check` with each outcome; stops at
/// a hang.
fn run_all(cases: u64, mut check: impl FnMut(u64, &str, &Outcome)) {
    let sessions = sessions();
    let verbose = std::env::var_os("TENON_FUZZ_VERBOSE").is_some();
    for (case, sql) in statements(cases) {
        if verbose {
            eprintln!("case {case}: {}", shown(&sql));
        }
        let outcome = run_case(&sessions[case as usize % sessions.len()], &sql);
        if verbose {
            eprintln!("  -> {outcome:?}");
        }
        check(case, &sql, &outcome);
        if outcome == Outcome::Hang {
            break;
        }
    }
}

/// A statement shortened for a report.
fn shown(sql: &str) -> String {
    if sql.len() <= 2000 {
        return sql.to_string();
    }
    let cut = (0..=2000)
        .rev()
        .find(|&i| sql.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}... ({} bytes)", &sql[..cut], sql.len())
}

#[test]
fn fuzz_statements_never_panic_or_hang() {
    let cases = env_or("TENON_FUZZ_CASES", CASES);
    let (mut failures, mut ok, mut errors) = (Vec::new(), 0, 0);
    run_all(cases, |case, sql, outcome| match outcome {
        Outcome::Rows(_) => ok += 1,
        Outcome::Error(_) => errors += 1,
        Outcome::Panic(m) => failures.push(format!("case {case}: panicked: {m}\n  {}", shown(sql))),
        Outcome::Hang => failures.push(format!(
            "case {case}: not done in {TIMEOUT:?} (the run stopped here)\n  {}",
            shown(sql)
        )),
    });
    eprintln!(
        "fuzz: {cases} statements (seed {}): {ok} ran, {errors} clean errors, {} failures",
        env_or("TENON_FUZZ_SEED", SEED),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} statements panicked or hung:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        cases < 100 || (ok > 0 && errors > 0),
        "the generator makes no variety"
    );
}

/// What an error message must not contain: a dependency's internals.
const LEAKS: [&str; 10] = [
    "Internal error",
    "Error during planning",
    "Arrow error",
    "bug report",
    "DataFusion",
    "Ident {",
    "BinaryOp {",
    "quote_style",
    "span:",
    "[return_type]",
];

/// The leak `message` contains, if any: one of [`LEAKS`], or a
/// dependency's error-kind prefix (`Cast error: `, issue 52).
pub fn leak(message: &str) -> Option<&'static str> {
    LEAKS
        .iter()
        .copied()
        .find(|l| message.contains(l))
        .or_else(|| tenon_planner::words::dependency_prefix(message))
}

#[test]
fn fuzz_errors_are_in_tenons_own_words() {
    let cases = env_or("TENON_FUZZ_CASES", CASES / 3);
    let mut leaks = Vec::new();
    run_all(cases, |case, sql, outcome| {
        if let Outcome::Error(m) = outcome
            && let Some(l) = leak(m)
        {
            leaks.push(format!("case {case}: `{l}` in: {m}\n  {}", shown(sql)));
        }
    });
    assert!(
        leaks.is_empty(),
        "{} errors leak internals:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[test]
fn fuzz_harness_reports_panics_and_clean_errors() {
    let sessions = sessions();
    assert_eq!(
        run_case(&sessions[0], "SELECT k FROM a WHERE k = 1"),
        Outcome::Rows(2)
    );
    assert!(matches!(
        run_case(&sessions[1], "SELEC 1"),
        Outcome::Error(_)
    ));
    assert_eq!(
        leak("Internal error: x. This was likely caused by a bug"),
        Some("Internal error")
    );
    assert_eq!(leak("unknown column `x` in `a`"), None);
}

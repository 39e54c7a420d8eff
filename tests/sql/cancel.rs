//! Cancelling a running query (`QueryStream::cancel_handle`, what Ctrl-C
//! does in the shell and in Python): it stops within moments, the stream
//! ends with `Error::Cancelled`, and the session runs the next query.

use std::time::{Duration, Instant};

use tenon::{Config, Error, Session};

/// A join of every pair of lineitem rows at scale 0.01 (3.6e9 pairs):
/// minutes of work, whatever the machine.
const LONG: &str = "SELECT count(*) FROM lineitem a JOIN lineitem b \
     ON a.l_quantity < b.l_quantity AND a.l_discount + b.l_tax < b.l_discount + 0.05";

fn tpch(threads: usize) -> Session {
    let config = Config {
        threads,
        ..Config::default()
    };
    let mut session = Session::new(config).expect("a session");
    session.register_tpch(0.01).expect("TPC-H");
    session
}

#[test]
fn a_cancelled_query_stops_promptly_and_says_so() {
    for threads in [1, 4] {
        let session = tpch(threads);
        let query = session.sql(LONG).expect("plans");
        let mut stream = query.stream().expect("starts");
        let cancel = stream.cancel_handle();
        // It runs: nothing arrives in the first half second.
        assert!(
            stream.next_timeout(Duration::from_millis(500)).is_none(),
            "threads={threads}: the long query finished at once"
        );
        let asked = Instant::now();
        cancel.cancel();
        assert!(cancel.is_cancelled());
        let mut last = None;
        for item in stream.by_ref() {
            last = Some(item);
        }
        let took = asked.elapsed();
        assert!(
            matches!(last, Some(Err(Error::Cancelled))),
            "threads={threads}: the stream ended with {last:?}"
        );
        assert!(
            took < Duration::from_secs(10),
            "threads={threads}: the cancel took {took:?}"
        );
        assert_eq!(Error::Cancelled.exit_code(), 130);
        // The session goes on.
        let rows = session
            .collect("SELECT count(*) FROM nation")
            .expect("runs");
        assert_eq!(rows[0].num_rows(), 1);
    }
}

#[test]
fn a_nested_loop_that_outputs_nothing_stops_too() {
    // Its filter keeps no pair, so no batch ever reaches the operators'
    // checks: the kernel checks the flag itself.
    let session = tpch(2);
    for sql in [
        "SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_extendedprice + b.l_extendedprice < 0",
        "SELECT a.l_orderkey FROM lineitem a, lineitem b WHERE a.l_extendedprice + b.l_extendedprice < 0",
    ] {
        let query = session.sql(sql).expect("plans");
        let mut stream = query.stream().expect("starts");
        assert!(
            stream.next_timeout(Duration::from_millis(300)).is_none(),
            "{sql}: finished at once"
        );
        let asked = Instant::now();
        stream.cancel_handle().cancel();
        let last = stream.by_ref().last();
        assert!(
            matches!(last, Some(Err(Error::Cancelled))),
            "{sql}: ended with {last:?}"
        );
        assert!(
            asked.elapsed() < Duration::from_secs(10),
            "{sql}: the cancel took {:?}",
            asked.elapsed()
        );
    }
}

#[test]
fn next_timeout_gives_what_next_gives() {
    let session = tpch(2);
    let query = session
        .sql("SELECT n_name FROM nation ORDER BY n_name")
        .expect("plans");
    let mut stream = query.stream().expect("starts");
    let mut rows = 0;
    loop {
        match stream.next_timeout(Duration::from_millis(20)) {
            None => continue,
            Some(None) => break,
            Some(Some(batch)) => rows += batch.expect("a batch").num_rows(),
        }
    }
    assert_eq!(rows, 25);
    assert!(stream.next().is_none(), "the stream stays ended");
}

#[test]
fn cancelling_a_finished_query_changes_nothing() {
    let session = tpch(2);
    let query = session.sql("SELECT count(*) FROM region").expect("plans");
    let stream = query.stream().expect("starts");
    let cancel = stream.cancel_handle();
    let batches: Vec<_> = stream.collect::<Result<_, _>>().expect("runs");
    cancel.cancel();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 1);
}

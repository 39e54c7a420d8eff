//! The rules of `docs/hints.md` that can be observed from SQL,
//! one test per rule (named after it), through the Session API with data:
//! each asserts the strategy and build side EXPLAIN reports and that the
//! rows are the reference's. Then every join hint example of Flink's SQL
//! hints documentation ("Join Hints" and their conflict cases) and of
//! FLIP-229 (Join Hint for Flink SQL Batch Job), on tables named as in the
//! examples.

use tenon::kernels::{JoinType, Strategy};
use tenon::planner::hints::{DecisionSource, IgnoreReason};
use tenon::{Error, Session};

use crate::common::*;

use Strategy::{Broadcast, NestLoop, ShuffleHash, ShuffleMerge};

/// Every table of the tests: `a`, `b`, `c`, `e`, `n` and the seed tables
/// `t1`, `t2`, `t3`.
fn all_tables() -> Vec<Table> {
    let mut t = std_tables();
    t.extend(seed_tables());
    t
}

fn sess() -> Session {
    session_with(&all_tables(), 2, 8192)
}

fn rel(name: &str) -> Rel {
    all_tables()
        .into_iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no table {name}"))
        .rel()
}

/// What a test expects of one join in EXPLAIN.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// Decided by a hint: this strategy and build side.
    Hint(Strategy, Option<&'static str>),
    /// The planner's default, with this strategy if given.
    Default(Option<Strategy>),
}

use Want::{Default as Dflt, Hint as H};

/// Checks EXPLAIN's joins against `want` and the rows (in every
/// [`CONFIGS`] session) against `expected`.
fn check(sql: &str, want: &[Want], expected: &Rel) {
    let tables = all_tables();
    let s = session_with(&tables, 2, 8192);
    let x = s
        .explain(sql)
        .unwrap_or_else(|e| panic!("EXPLAIN {sql}\n  failed: {e}"));
    let text = x.to_text();
    assert_eq!(x.joins.len(), want.len(), "{sql}\n{text}");
    for (i, (j, w)) in x.joins.iter().zip(want).enumerate() {
        match *w {
            H(strategy, build) => {
                assert_eq!(
                    (j.strategy, j.build.as_deref()),
                    (strategy, build),
                    "join {i} of {sql}\n{text}"
                );
                assert!(
                    matches!(j.source, DecisionSource::Hint(_)),
                    "join {i} of {sql}: {:?}\n{text}",
                    j.source
                );
                assert!(j.reason.contains(strategy.name()), "{}", j.reason);
            }
            Dflt(strategy) => {
                assert_eq!(
                    j.source,
                    DecisionSource::Default,
                    "join {i} of {sql}\n{text}"
                );
                assert!(j.reason.starts_with("default"), "{}", j.reason);
                if let Some(st) = strategy {
                    assert_eq!(j.strategy, st, "join {i} of {sql}\n{text}");
                }
            }
        }
    }
    let expected = expected.strings();
    for &(t, b) in &CONFIGS {
        let s = session_with(&tables, t, b);
        assert_eq!(run(&s, sql), expected, "{sql}\nthreads={t} batch={b}");
    }
}

/// `sql`'s error, which must be an [`Error::Hint`] with exit code 2 (and
/// the same from EXPLAIN); returns its message.
fn hint_err(s: &Session, sql: &str) -> String {
    let e = query_err(s, sql);
    assert!(matches!(e, Error::Hint(_)), "{sql}: {e:?}");
    assert_eq!(e.exit_code(), 2, "{sql}");
    // EXPLAIN fails the same way
    let x = s.explain(sql).expect_err("EXPLAIN fails too");
    assert_eq!(x.to_string(), e.to_string());
    e.to_string()
}

/// `l JOIN r ON l.lc = r.rc` (SQL `=`) in the reference.
fn join2(l: &str, r: &str, jt: RefJoin, lc: &str, rc: &str) -> Rel {
    let (lr, rr) = (rel(l), rel(r));
    let (x, y) = (lr.col(lc), rr.col(rc));
    ref_join(&lr, &rr, jt, |p, q| eq(p[x], q[y]))
}

/// `(l JOIN m ON ..) JOIN r ON ..` in the reference: `first` and
/// `second` are `(left column, right column)` of each join.
fn join3(l: &str, m: &str, r: &str, first: (&str, &str), second: (&str, &str)) -> Rel {
    let lm = join2(l, m, RefJoin::Inner, first.0, first.1);
    let rr = rel(r);
    let (x, y) = (lm.col(second.0), rr.col(second.1));
    ref_join(&lm, &rr, RefJoin::Inner, |p, q| eq(p[x], q[y]))
}

const EQ_AB: &str = "FROM a JOIN b ON a.k = b.k";

fn ab_inner() -> Rel {
    join2("a", "b", RefJoin::Inner, "a.k", "b.k")
}

const T12: &str = "FROM t1 JOIN t2 ON t1.id = t2.id";
const T123: &str = "FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id";

fn t12() -> Rel {
    join2("t1", "t2", RefJoin::Inner, "t1.id", "t2.id")
}

fn t123() -> Rel {
    join3("t1", "t2", "t3", ("t1.id", "t2.id"), ("t1.id", "t3.id"))
}

mod rules;
mod scope;
mod semantics;

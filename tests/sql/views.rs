//! Views and WITH (docs/hints.md H30, H31; docs/cli.md's join order): a view is
//! planned where it is read, as the derived table `(body) AS v`, and is its
//! own query block: its hints apply to its joins only, the outer query's
//! hints may name the view as a join input, and EXPLAIN lists the view's
//! joins before those of the block that reads it. The same for a WITH
//! query's SELECT.

use tenon::kernels::Strategy::{self, Broadcast, NestLoop, ShuffleHash, ShuffleMerge};
use tenon::planner::hints::DecisionSource;
use tenon::{Error, Session, StatementOutput};

use crate::common::*;

/// The standard tables and the seed tables `t1`, `t2`, `t3`.
fn sess() -> Session {
    let mut tables = std_tables();
    tables.extend(seed_tables());
    session_with(&tables, 2, 8192)
}

fn ddl(s: &Session, sql: &str) -> String {
    match s.execute(sql) {
        Ok(StatementOutput::Done(what)) => what,
        Ok(StatementOutput::Rows(_)) => panic!("{sql}: a query, not DDL"),
        Err(e) => panic!("{sql}\n  failed: {e}"),
    }
}

fn ddl_err(s: &Session, sql: &str) -> Error {
    match s.execute(sql) {
        Ok(_) => panic!("{sql}: expected an error"),
        Err(e) => e,
    }
}

/// `(strategy, build, decided by a hint)` of each join, in EXPLAIN order.
fn decisions(s: &Session, sql: &str) -> Vec<(Strategy, Option<String>, bool)> {
    s.explain(sql)
        .unwrap_or_else(|e| panic!("EXPLAIN {sql}\n  failed: {e}"))
        .joins
        .iter()
        .map(|j| {
            (
                j.strategy,
                j.build.clone(),
                matches!(j.source, DecisionSource::Hint(_)),
            )
        })
        .collect()
}

fn d(strategy: Strategy, build: Option<&str>, hinted: bool) -> (Strategy, Option<String>, bool) {
    (strategy, build.map(str::to_string), hinted)
}

const VIEW_T12: &str = "CREATE VIEW v12 AS SELECT /*+ NEST_LOOP(t2) */ t1.id, t1.a, t2.name \
                        FROM t1 JOIN t2 ON t1.id = t2.id";
const BODY_T12: &str = "SELECT t1.id, t1.a, t2.name FROM t1 JOIN t2 ON t1.id = t2.id";

#[test]
fn h31_view_hints_apply_to_the_views_joins_and_outer_hints_name_the_view() {
    let s = sess();
    assert_eq!(ddl(&s, VIEW_T12), "created view v12");
    let sql = "SELECT /*+ SHUFFLE_HASH(v12) */ v12.id, t3.age FROM v12 JOIN t3 ON v12.id = t3.id";
    assert_eq!(
        decisions(&s, sql),
        [
            d(NestLoop, Some("t2"), true),
            d(ShuffleHash, Some("v12"), true)
        ]
    );
    // the same rows as the derived table the view stands for
    let derived =
        format!("SELECT v12.id, t3.age FROM ({BODY_T12}) AS v12 JOIN t3 ON v12.id = t3.id");
    assert!(!run(&s, sql).is_empty());
    assert_eq!(run(&s, sql), run(&s, &derived));
    // an alias of the view is the name to use (H32)
    let aliased = "SELECT /*+ BROADCAST(w) */ w.id FROM v12 AS w JOIN t3 ON w.id = t3.id";
    assert_eq!(
        decisions(&s, aliased),
        [d(NestLoop, Some("t2"), true), d(Broadcast, Some("w"), true)]
    );
}

#[test]
fn h30_outer_hints_do_not_reach_into_a_view() {
    let s = sess();
    ddl(
        &s,
        "CREATE VIEW plain AS SELECT t1.id, t2.name FROM t1 JOIN t2 ON t1.id = t2.id",
    );
    // FLIP-229's example: BROADCAST(t1) names the outer t1, not the view's
    let sql = "SELECT /*+ BROADCAST(t1) */ * FROM plain JOIN t1 ON plain.id = t1.id";
    let x = decisions(&s, sql);
    assert!(!x[0].2, "the view's join takes the default: {x:?}");
    assert_eq!(x[1], d(Broadcast, Some("t1"), true));
    // a hint naming a table that is only inside the view is an error (H11)
    let e = query_err(
        &s,
        "SELECT /*+ BROADCAST(t2) */ * FROM plain JOIN t3 ON plain.id = t3.id",
    );
    assert_eq!(e.exit_code(), 2, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("`t2`") && msg.contains("`plain`"), "{msg}");
}

#[test]
fn explain_json_lists_a_views_joins_before_the_block_that_reads_it() {
    let s = sess();
    ddl(&s, VIEW_T12);
    let x = s
        .explain("SELECT /*+ BROADCAST(t3) */ * FROM t3 JOIN v12 ON t3.id = v12.id")
        .unwrap();
    let json = x.to_json();
    let view_join = json.find(r#""left": "t1", "right": "t2""#);
    let outer_join = json.find(r#""left": "t3", "right": "v12""#);
    assert!(
        view_join.is_some() && view_join < outer_join,
        "the view's join comes first: {json}"
    );
    assert!(json.contains(r#""build": "v12""#) || json.contains(r#""build": "t3""#));
}

#[test]
fn nested_views_each_keep_their_hints() {
    let s = sess();
    ddl(&s, VIEW_T12);
    ddl(
        &s,
        "CREATE VIEW v123 AS SELECT /*+ SHUFFLE_MERGE(t3) */ v12.id, v12.name, t3.age \
         FROM v12 JOIN t3 ON v12.id = t3.id",
    );
    let sql = "SELECT /*+ BROADCAST(a) */ v123.id, a.s FROM v123 JOIN a ON v123.id = a.k";
    assert_eq!(
        decisions(&s, sql),
        [
            d(NestLoop, Some("t2"), true),
            d(ShuffleMerge, None, true),
            d(Broadcast, Some("a"), true)
        ]
    );
    let derived = format!(
        "SELECT v123.id, a.s FROM (SELECT v12.id, v12.name, t3.age FROM ({BODY_T12}) AS v12 \
         JOIN t3 ON v12.id = t3.id) AS v123 JOIN a ON v123.id = a.k"
    );
    assert_eq!(run(&s, sql), run(&s, &derived));
}

#[test]
fn a_view_read_twice_plans_its_body_twice() {
    let s = sess();
    ddl(&s, VIEW_T12);
    let sql = "SELECT /*+ SHUFFLE_HASH(y) */ x.id FROM v12 x JOIN v12 y ON x.id = y.id";
    assert_eq!(
        decisions(&s, sql),
        [
            d(NestLoop, Some("t2"), true),
            d(NestLoop, Some("t2"), true),
            d(ShuffleHash, Some("y"), true)
        ]
    );
    let derived = format!("SELECT x.id FROM ({BODY_T12}) x JOIN ({BODY_T12}) y ON x.id = y.id");
    assert_eq!(run(&s, sql), run(&s, &derived));
}

#[test]
fn view_in_a_subquery_and_with_column_names() {
    let s = sess();
    ddl(
        &s,
        "CREATE VIEW keys (key, val) AS SELECT k, v FROM b WHERE k IS NOT NULL",
    );
    assert_eq!(
        run(&s, "SELECT key FROM keys WHERE val > 30"),
        run(&s, "SELECT k FROM b WHERE k IS NOT NULL AND v > 30")
    );
    assert_eq!(
        run(&s, "SELECT k FROM a WHERE k IN (SELECT key FROM keys)"),
        run(
            &s,
            "SELECT k FROM a WHERE k IN (SELECT k FROM b WHERE k IS NOT NULL)"
        )
    );
    let e = ddl_err(&s, "CREATE VIEW two (x, y) AS SELECT k FROM b");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("2 columns"), "{e}");
}

#[test]
fn drop_view_and_name_rules() {
    let s = sess();
    ddl(&s, "CREATE TEMPORARY VIEW tv AS SELECT k FROM a");
    assert_eq!(s.view_names(), ["tv"]);
    // a second CREATE: an error, IF NOT EXISTS: nothing, OR REPLACE: replaced
    let e = ddl_err(&s, "CREATE VIEW tv AS SELECT k FROM b");
    assert!(
        matches!(e, Error::Ddl(_)) && e.to_string().contains("already exists"),
        "{e}"
    );
    assert_eq!(
        ddl(&s, "CREATE VIEW IF NOT EXISTS tv AS SELECT 1"),
        "view tv exists"
    );
    assert_eq!(run(&s, "SELECT count(*) FROM tv"), ["8"]);
    ddl(&s, "CREATE OR REPLACE VIEW tv AS SELECT k FROM n");
    assert_eq!(run(&s, "SELECT count(*) FROM tv"), ["3"]);
    // tables and views share one namespace
    let e = ddl_err(&s, "CREATE VIEW a AS SELECT 1");
    assert!(e.to_string().contains("a table has that name"), "{e}");
    let e = ddl_err(&s, "DROP VIEW a");
    assert!(e.to_string().contains("DROP TABLE a"), "{e}");
    // DROP VIEW, then the name is unknown
    assert_eq!(ddl(&s, "DROP TEMPORARY VIEW tv"), "dropped view tv");
    let e = query_err(&s, "SELECT * FROM tv");
    assert!(
        matches!(e, Error::Sql(_)) && e.to_string().contains("unknown table `tv`"),
        "{e}"
    );
    let e = ddl_err(&s, "DROP VIEW tv");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("no such view"), "{e}");
    ddl(&s, "DROP VIEW IF EXISTS tv");
    // the query methods take DDL too (and give no rows)
    assert!(
        s.collect("CREATE VIEW again AS SELECT 1 AS one")
            .unwrap()
            .is_empty()
    );
    assert_eq!(run(&s, "SELECT one FROM again"), ["1"]);
    assert!(s.explain("DROP VIEW again").is_err());
}

#[test]
fn views_in_a_cycle_and_broken_views_are_errors_naming_the_view() {
    let s = sess();
    ddl(&s, "CREATE VIEW v1 AS SELECT k FROM a");
    ddl(&s, "CREATE VIEW v2 AS SELECT k FROM v1");
    // replacing v1 by a query of v2 would close a cycle: refused, v1 kept
    let e = ddl_err(&s, "CREATE OR REPLACE VIEW v1 AS SELECT k FROM v2");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("v1 -> v2 -> v1"), "{e}");
    assert_eq!(run(&s, "SELECT count(*) FROM v2"), ["8"]);
    let e = ddl_err(&s, "CREATE VIEW self_ AS SELECT * FROM self_");
    assert!(e.to_string().contains("cycle"), "{e}");
    // a view whose table is gone says which view failed
    let mut s = sess();
    ddl(&s, "CREATE VIEW over_n AS SELECT k FROM n");
    s.register_batch("n", table_a().renamed("n").batch())
        .unwrap();
    assert_eq!(run(&s, "SELECT count(*) FROM over_n"), ["8"]);
    ddl(&s, "DROP TABLE n");
    let e = query_err(&s, "SELECT * FROM over_n");
    let msg = e.to_string();
    assert!(
        msg.contains("in view `over_n`") && msg.contains("unknown table `n`"),
        "{msg}"
    );
    // a view's body with an error is refused when it is created
    let e = ddl_err(
        &s,
        "CREATE VIEW bad AS SELECT /*+ BROADCAST(zz) */ a.k FROM a JOIN b ON a.k = b.k",
    );
    assert!(e.to_string().contains("zz"), "{e}");
    let e = ddl_err(&s, "CREATE VIEW bad AS SELECT * FROM a JOIN b ON a.k = b.k");
    assert!(
        e.to_string().contains("in view `bad`: ")
            && e.to_string()
                .contains("two columns of the view are named `k`"),
        "{e}"
    );
    assert!(s.view_names().iter().all(|v| v != "bad"));
}

#[test]
fn options_after_a_view_name_are_an_error() {
    let s = sess();
    ddl(&s, VIEW_T12);
    let e = query_err(
        &s,
        "SELECT * FROM v12 /*+ OPTIONS('scan.batch-size' = '2') */",
    );
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("not a table"), "{e}");
}

#[test]
fn h30_a_with_query_is_its_own_block() {
    let s = sess();
    let sql = "WITH j AS (SELECT /*+ BROADCAST(t2) */ t1.id, t2.name FROM t1 JOIN t2 ON t1.id = t2.id) \
               SELECT /*+ SHUFFLE_HASH(j) */ j.id, t3.age FROM j JOIN t3 ON j.id = t3.id";
    assert_eq!(
        decisions(&s, sql),
        [
            d(Broadcast, Some("t2"), true),
            d(ShuffleHash, Some("j"), true)
        ]
    );
    let derived = "SELECT j.id, t3.age FROM (SELECT t1.id, t2.name FROM t1 JOIN t2 \
                   ON t1.id = t2.id) AS j JOIN t3 ON j.id = t3.id";
    assert_eq!(run(&s, sql), run(&s, derived));
    // the outer block cannot name the WITH query's tables
    let e = query_err(
        &s,
        "WITH j AS (SELECT t1.id FROM t1 JOIN t2 ON t1.id = t2.id) \
         SELECT /*+ BROADCAST(t2) */ * FROM j JOIN t3 ON j.id = t3.id",
    );
    assert!(e.to_string().contains("`t2`"), "{e}");
}

#[test]
fn a_with_query_shadows_a_view_and_does_not_leak_into_one() {
    let s = sess();
    ddl(&s, "CREATE VIEW shadow AS SELECT k FROM a");
    // the WITH query named like the view wins inside its statement
    assert_eq!(
        run(
            &s,
            "WITH shadow AS (SELECT k FROM n) SELECT count(*) FROM shadow"
        ),
        ["3"]
    );
    // a WITH query named like a table the view reads does not change the view
    assert_eq!(
        run(
            &s,
            "WITH a AS (SELECT k FROM n) SELECT count(*) FROM shadow"
        ),
        ["8"]
    );
}

//! A correlated `NOT IN` keeps its NULL rules per correlation group
//! whether its build side spills or not: a NULL subquery key removes only
//! the outer rows whose subquery holds it, and an outer row with a NULL
//! key is removed only when its own subquery has rows.
//!
//! Over the built-in TPC-H tables (scale 0.01): 15000 orders, none of
//! whose keys + 10,000,000 is a lineitem key; the subquery of an order
//! with ship mode 'MAIL' holds the 'MAIL' lineitems (no NULL among them),
//! and one row (NULL, 'zzz') that no outer row correlates with. Expected
//! counts follow from SQL's definition of NOT IN, row by row: every order
//! is kept; the outer rows with a NULL key and the mode 'nothing' (an
//! empty subquery) are kept, those with a NULL key and 'MAIL' are not.

use crate::common::*;
use crate::tpch::session;

const NOT_IN: &str = "SELECT count(*) FROM ( \
       SELECT o_orderkey + 10000000 AS k, 'MAIL' AS s FROM orders \
       UNION ALL SELECT CASE WHEN o_orderkey < 0 THEN 1 END, 'nothing' FROM orders WHERE o_orderkey <= 100 \
       UNION ALL SELECT CASE WHEN o_orderkey < 0 THEN 1 END, 'MAIL' FROM orders WHERE o_orderkey <= 100 \
     ) a \
     WHERE a.k NOT IN ( \
       SELECT b.k FROM (SELECT l_orderkey AS k, l_shipmode AS s FROM lineitem \
                        UNION ALL SELECT NULL, 'zzz') b \
       WHERE b.s = a.s)";

fn count(limit: &str, threads: usize) -> String {
    let mut s = session();
    s.set("threads", &threads.to_string()).unwrap();
    s.set("memory_limit", limit).unwrap();
    run(&s, NOT_IN).join(",")
}

#[test]
fn correlated_not_in_keeps_its_null_rules_per_group_when_it_spills() {
    let s = session();
    let orders: i64 = run(&s, "SELECT count(*) FROM orders")[0].parse().unwrap();
    let small: i64 = run(&s, "SELECT count(*) FROM orders WHERE o_orderkey <= 100")[0]
        .parse()
        .unwrap();
    assert!(small > 0);
    let expected = (orders + small).to_string();
    for threads in [1, 4] {
        for limit in ["unlimited", "4MB", "1MB", "256KB"] {
            assert_eq!(
                count(limit, threads),
                expected,
                "memory_limit={limit} threads={threads}"
            );
        }
    }
}

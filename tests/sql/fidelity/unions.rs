//! One type rule for a UNION wherever it stands: its branches meet at the
//! type they compare in, at the top of a query, under ORDER BY and inside
//! a subquery alike (a NULL branch takes the other branch's type; UInt64
//! with a negative Int8 meets at DECIMAL(20,0), as at the top level).

use std::sync::Arc;

use arrow_array::{Int8Array, RecordBatch, UInt64Array};

use crate::common::*;

fn session_u() -> tenon::Session {
    let mut s = empty_session(2, 8192);
    let t = RecordBatch::try_from_iter([
        ("u", Arc::new(UInt64Array::from(vec![1u64, 7])) as _),
        ("i", Arc::new(Int8Array::from(vec![-40i8, 3])) as _),
    ])
    .unwrap();
    s.register_batch("t", t).unwrap();
    s
}

#[test]
fn union_of_unsigned_and_negative_is_the_same_type_under_order_by_and_in_a_subquery() {
    let s = session_u();
    let top = "SELECT u AS x FROM t UNION ALL SELECT i FROM t";
    let mut expected = run(&s, top);
    expected.sort();
    assert_eq!(expected, ["-40", "1", "3", "7"]);
    assert_eq!(
        run_ordered(&s, &format!("{top} ORDER BY x")),
        ["-40", "1", "3", "7"]
    );
    assert_eq!(run(&s, &format!("SELECT x FROM ({top}) s")), expected);
    assert_eq!(
        run_ordered(&s, &format!("SELECT x + 1 FROM ({top}) s ORDER BY 1")),
        ["-39", "2", "4", "8"]
    );
}

#[test]
fn union_with_a_null_first_branch_in_a_subquery() {
    let s = empty_session(2, 8192);
    assert_eq!(
        run(&s, "SELECT * FROM (SELECT NULL a UNION ALL SELECT 11 a) s"),
        ["11", "NULL"]
    );
    assert_eq!(
        run(
            &s,
            "SELECT a + 1 FROM (SELECT NULL a UNION ALL SELECT 11 a) s"
        ),
        ["12", "NULL"]
    );
}

//! The test tables.

#![allow(unused_imports)]

use super::*;

// --------------------------------------------------------- the tables

use ColType::{I32, I64, Str};

fn r(cells: &[Option<i64>]) -> Row {
    cells.to_vec()
}

/// `a(k BIGINT, v BIGINT, s VARCHAR)`: duplicate keys (1), NULL keys, a
/// NULL value, a key with no partner in `b` (5), a NULL payload.
pub fn table_a() -> Table {
    Table::new(
        "a",
        &[("k", I64), ("v", I64), ("s", Str)],
        vec![
            r(&[Some(1), Some(10), Some(1)]),
            r(&[Some(1), Some(20), Some(2)]),
            r(&[Some(2), Some(30), Some(3)]),
            r(&[None, Some(40), Some(4)]),
            r(&[Some(3), None, Some(5)]),
            r(&[Some(5), Some(50), Some(6)]),
            r(&[None, None, Some(7)]),
            r(&[Some(2), Some(31), None]),
        ],
    )
}

/// `b(k BIGINT, v BIGINT, s VARCHAR)`: duplicate keys (1 three times, 2
/// twice: many-to-many with `a`), a NULL key, a key with no partner in `a`
/// (4), an exact duplicate of a row but for its NULL payload.
pub fn table_b() -> Table {
    Table::new(
        "b",
        &[("k", I64), ("v", I64), ("s", Str)],
        vec![
            r(&[Some(1), Some(15), Some(1)]),
            r(&[Some(1), Some(5), Some(2)]),
            r(&[Some(2), Some(30), Some(3)]),
            r(&[Some(2), Some(35), Some(4)]),
            r(&[None, Some(40), Some(5)]),
            r(&[Some(4), Some(60), Some(6)]),
            r(&[Some(3), Some(1), Some(7)]),
            r(&[Some(1), Some(15), None]),
        ],
    )
}

/// `c`: `b`'s rows with an Int32 key (`c(k INT, v BIGINT, s VARCHAR)`).
pub fn table_c() -> Table {
    let mut t = table_b().renamed("c");
    t.cols[0].1 = I32;
    t
}

/// `e`: `a`'s columns, no rows.
pub fn table_e() -> Table {
    Table::new("e", &[("k", I64), ("v", I64), ("s", Str)], Vec::new())
}

/// `n(k BIGINT)`: keys without NULLs, for `NOT IN` without NULLs.
pub fn table_n() -> Table {
    Table::new(
        "n",
        &[("k", I64)],
        vec![r(&[Some(1)]), r(&[Some(4)]), r(&[Some(1)])],
    )
}

/// The seed documents' tables `t1`, `t2`, `t3`: `(id BIGINT, name STRING,
/// age INT)` as in flink-sql-hints, plus FLIP-229's join columns `a`, `b`,
/// `c` (BIGINT).
pub fn seed_tables() -> Vec<Table> {
    let cols: &[(&str, ColType)] = &[
        ("id", I64),
        ("name", Str),
        ("age", I32),
        ("a", I64),
        ("b", I64),
        ("c", I64),
    ];
    let n = None;
    let s = Some;
    vec![
        Table::new(
            "t1",
            cols,
            vec![
                r(&[s(1), s(1), s(20), s(1), s(1), s(1)]),
                r(&[s(2), s(2), s(30), s(2), s(3), n]),
                r(&[s(2), s(3), s(40), s(3), s(2), s(2)]),
                r(&[s(3), s(4), n, n, s(4), s(3)]),
                r(&[n, s(5), s(50), s(2), n, s(4)]),
            ],
        ),
        Table::new(
            "t2",
            cols,
            vec![
                r(&[s(1), s(1), s(21), s(1), s(2), s(5)]),
                r(&[s(2), s(2), s(31), s(2), s(1), s(1)]),
                r(&[s(4), s(3), s(41), n, s(3), s(2)]),
                r(&[n, s(4), s(51), s(3), s(3), n]),
                r(&[s(2), n, s(61), s(2), s(2), s(2)]),
            ],
        ),
        Table::new(
            "t3",
            cols,
            vec![
                r(&[s(1), s(1), s(22), s(1), s(1), s(2)]),
                r(&[s(2), s(2), s(32), s(5), n, s(3)]),
                r(&[s(2), s(3), s(42), s(2), s(2), s(3)]),
                r(&[s(5), s(4), n, s(4), s(5), n]),
            ],
        ),
    ]
}

/// A generated table `name(k BIGINT, v BIGINT, s VARCHAR, t VARCHAR)` of
/// `rows` rows (deterministic for a `seed`): keys in `0..keys` with about
/// 3% NULLs and 5% of the rows on the hot key 7 (skew), values in
/// `0..1000` with about 2% NULLs, `s` the row number, `t` the string
/// `"t{k % 50}"` (NULL with the key).
pub fn generated(name: &str, rows: usize, keys: i64, seed: u64) -> Table {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let data = (0..rows)
        .map(|i| {
            let k = match next(100) {
                0..=2 => None,
                3..=7 => Some(7),
                _ => Some(next(keys as u64) as i64),
            };
            let v = if next(50) == 0 {
                None
            } else {
                Some(next(1000) as i64)
            };
            vec![k, v, Some(i as i64), k.map(|k| k % 50)]
        })
        .collect();
    Table::new(
        name,
        &[("k", I64), ("v", I64), ("s", Str), ("t", ColType::Text)],
        data,
    )
}

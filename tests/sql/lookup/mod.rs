//! Lookup joins (docs/lookup.md): against a real SQLite file, the lookup
//! join equals the same query as a regular join and a naive reference
//! (`sqlite.rs`); with a test source that injects latency, failures and
//! late rows, the LOOKUP hint's options do what they say (`source.rs`);
//! bad input gets clear errors (`errors.rs`).

mod errors;
mod postgres;
mod secrets;
mod source;
mod sqlite;

use std::path::Path;

use crate::common::Lcg;

/// A row of `customers`: `(id, k2, cc, val)`.
pub(crate) type Customer = (Option<i64>, Option<i64>, Option<&'static str>, Option<i64>);

/// The rows of the probe table `orders (k, k2, v)` and the lookup table
/// `customers (id, k2, cc, val)`, as cells (`None`: NULL).
pub(crate) struct Shop {
    pub orders: Vec<[Option<i64>; 3]>,
    pub customers: Vec<Customer>,
}

impl Shop {
    /// Random rows: keys from a small range (duplicates on both sides),
    /// NULL keys, a country that is 'US', 'DE' or NULL.
    pub(crate) fn random(seed: u64, orders: usize, customers: usize) -> Shop {
        let mut g = Lcg(seed);
        let range = (customers as i64 / 2).max(2) + 3;
        let orders = (0..orders)
            .map(|_| [g.cell(range, 6), g.cell(3, 8), g.cell(100, 10)])
            .collect();
        let customers = (0..customers)
            .map(|_| {
                let cc = match g.next(5) {
                    0 => None,
                    1 | 2 => Some("US"),
                    _ => Some("DE"),
                };
                (g.cell(range, 9), g.cell(3, 8), cc, g.cell(100, 10))
            })
            .collect();
        Shop { orders, customers }
    }

    /// Writes `orders.csv` and `shop.db` into `dir`.
    pub(crate) fn write(&self, dir: &Path) {
        self.write_orders(dir);
        let db = dir.join("shop.db");
        let _ = std::fs::remove_file(&db);
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE customers (id INTEGER, k2 INTEGER, cc TEXT, val INTEGER);",
        )
        .unwrap();
        let mut insert = conn
            .prepare("INSERT INTO customers VALUES (?1, ?2, ?3, ?4)")
            .unwrap();
        for c in &self.customers {
            insert
                .execute(rusqlite::params![c.0, c.1, c.2, c.3])
                .unwrap();
        }
    }

    /// Writes `orders.csv` into `dir`.
    pub(crate) fn write_orders(&self, dir: &Path) {
        let cell = |c: &Option<i64>| c.map_or(String::new(), |v| v.to_string());
        let mut csv = String::from("k,k2,v\n");
        for o in &self.orders {
            csv.push_str(&format!(
                "{},{},{}\n",
                cell(&o[0]),
                cell(&o[1]),
                cell(&o[2])
            ));
        }
        std::fs::write(dir.join("orders.csv"), csv).unwrap();
    }
}

/// The DDL of `orders` (with a PROCTIME() column `p`) in `dir`.
pub(crate) fn orders_ddl(dir: &Path) -> String {
    format!(
        "CREATE TABLE orders (k BIGINT, k2 INT, v BIGINT, p AS PROCTIME()) WITH \
         ('connector' = 'filesystem', 'path' = '{}', 'format' = 'csv');",
        dir.join("orders.csv").display()
    )
}

/// The DDL of `orders` and of the lookup table `customers` in `dir`'s
/// `shop.db`.
pub(crate) fn ddl(dir: &Path) -> String {
    format!(
        "{}\nCREATE TABLE customers (id BIGINT, k2 INT, cc STRING, val BIGINT) WITH \
         ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:{}', 'table-name' = 'customers');",
        orders_ddl(dir),
        dir.join("shop.db").display()
    )
}

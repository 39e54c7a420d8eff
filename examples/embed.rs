//! tenon embedded in a Rust program: tables registered from Arrow batches,
//! a query planned once and run twice, the same join built without SQL,
//! typed settings, and the plan as JSON.
//!
//! `cargo run --example embed` (the library alone would do:
//! `tenon = { default-features = false }`).

use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use tenon::{Config, HintMode, JoinType, Session, Strategy};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut session = Session::new(Config::default())?;
    session.set_threads(2)?;
    session.set_hint_mode(HintMode::Strict)?;
    session.register_batch(
        "orders",
        RecordBatch::try_from_iter([
            (
                "o_custkey",
                Arc::new(Int64Array::from(vec![1, 1, 2, 3, 9])) as _,
            ),
            (
                "o_total",
                Arc::new(Int64Array::from(vec![10, 20, 30, 40, 50])) as _,
            ),
        ])?,
    )?;
    session.register_batch(
        "customer",
        RecordBatch::try_from_iter([(
            "c_custkey",
            Arc::new(Int64Array::from(vec![1, 2, 3])) as _,
        )])?,
    )?;

    // Planned once; explained, then run twice without planning again.
    let query = session.sql(
        "SELECT /*+ BROADCAST(customer) */ c_custkey, sum(o_total) AS total \
         FROM orders JOIN customer ON o_custkey = c_custkey GROUP BY c_custkey",
    )?;
    print!("{}", query.explain()?.to_text());
    for run in 1..=2 {
        let out = query.run()?;
        println!("run {run}: {} rows in {:?}", out.num_rows(), out.elapsed);
    }

    // The same kind of join, built in Rust: planned as its hinted SQL.
    let join = session
        .table("orders")?
        .join(
            session.table("customer")?,
            JoinType::Left,
            ["o_custkey"],
            ["c_custkey"],
        )?
        .strategy(Strategy::ShuffleHash);
    println!("{}", join.to_sql());
    let explain = join.explain()?;
    println!("{}", serde_json::to_string_pretty(&explain.report())?);
    let rows: usize = join.collect()?.iter().map(|b| b.num_rows()).sum();
    println!("left join: {rows} rows");
    Ok(())
}

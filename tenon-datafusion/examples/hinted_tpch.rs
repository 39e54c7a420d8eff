//! A hinted TPC-H query (Q5, scale 0.01 in memory) through DataFusion's
//! `SessionContext` with tenon's joins: tenon's front end reads the hints,
//! DataFusion plans and runs the query, and the joins are tenon's kernels
//! as the hints asked.
//!
//! ```text
//! cargo run -p tenon-datafusion --example hinted_tpch
//! ```

use std::sync::Arc;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::datasource::MemTable;
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use tenon_datafusion::{TenonJoinRule, hinted_sql, session_state};

const Q5: &str = "
select /*+ BROADCAST(nation), BROADCAST(region), SHUFFLE_HASH(orders) */
    n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey
    and c_nationkey = s_nationkey and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey and r_name = 'ASIA'
    and o_orderdate >= date '1994-01-01' and o_orderdate < date '1995-01-01'
group by n_name order by revenue desc";

#[tokio::main]
async fn main() -> datafusion::error::Result<()> {
    // a SessionContext whose unhinted joins are tenon's too
    let ctx = SessionContext::new_with_state(session_state(
        SessionConfig::new().with_target_partitions(2),
        TenonJoinRule::new(),
    ));
    for (name, batches) in tenon_datasets::tpch::tpch_tables(0.01) {
        let table = MemTable::try_new(batches[0].schema(), vec![batches])?;
        ctx.register_table(name, Arc::new(table))?;
    }
    let (df, decisions) = hinted_sql(&ctx, Q5).await?;
    println!("tenon's decisions:");
    for d in &decisions {
        println!(
            "  {:?} on {:?}: {} ({})",
            d.build_side, d.keys, d.strategy, d.reason
        );
    }
    let plan = df.clone().create_physical_plan().await?;
    println!(
        "\nDataFusion's plan:\n{}",
        displayable(plan.as_ref()).indent(false)
    );
    println!("{}", pretty_format_batches(&df.collect().await?)?);
    Ok(())
}

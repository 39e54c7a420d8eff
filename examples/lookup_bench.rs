//! Lookup joins measured: orders enriched with customers from SQLite and
//! PostgreSQL by tenon's batched lookup join (with and without a cache,
//! sync and async), against a row-at-a-time lookup loop (one query per
//! order, what a per-row lookup does) and against reading the customers
//! whole and hash joining them; then a small probe side, where a lookup
//! should beat the scan, and which of the two the planner's default picks.
//!
//! `benches/lookup/run.sh` runs it with a PostgreSQL server of its own; by
//! hand: `cargo run --release --example lookup_bench -- --orders 1000000
//! --customers 100000 --threads 2 --runs 3 [--postgres 127.0.0.1:5432
//! --pg-user postgres]` (no `--postgres`: SQLite only).

use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tenon::{Config, Session};

type Res<T> = Result<T, Box<dyn Error>>;

/// What to measure, from the command line.
struct Args {
    orders: usize,
    customers: usize,
    threads: usize,
    runs: usize,
    dir: PathBuf,
    postgres: Option<(String, String)>,
}

fn args() -> Res<Args> {
    let mut a = Args {
        orders: 1_000_000,
        customers: 100_000,
        threads: 2,
        runs: 3,
        dir: std::env::temp_dir().join(format!("tenon-lookup-bench-{}", std::process::id())),
        postgres: None,
    };
    let (mut pg, mut user) = (None, "postgres".to_string());
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--orders" => a.orders = value()?.parse()?,
            "--customers" => a.customers = value()?.parse()?,
            "--threads" => a.threads = value()?.parse()?,
            "--runs" => a.runs = value()?.parse::<usize>()?.max(1),
            "--dir" => a.dir = PathBuf::from(value()?),
            "--postgres" => pg = Some(value()?),
            "--pg-user" => user = value()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    a.postgres = pg.map(|p| (p, user));
    Ok(a)
}

/// A deterministic hash of `i` (splitmix64), for reproducible orders.
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const COUNTRIES: [&str; 10] = ["US", "DE", "FR", "KR", "JP", "BR", "IN", "CN", "GB", "CA"];

/// Writes the orders as CSV; returns each order's customer id.
fn write_orders(path: &Path, orders: usize, customers: usize) -> Res<Vec<i64>> {
    let mut text = String::with_capacity(orders * 32);
    text.push_str("order_id,customer_id,shop,day,amount\n");
    let mut ids = Vec::with_capacity(orders);
    for i in 0..orders as u64 {
        let h = mix(i);
        let customer = (h % customers as u64) as i64;
        ids.push(customer);
        let (shop, day) = ((h >> 20) % 10, (h >> 30) % 100);
        writeln!(
            text,
            "{i},{customer},{shop},{day},{}.{:02}",
            h % 500,
            h % 100
        )?;
    }
    std::fs::write(path, text)?;
    Ok(ids)
}

fn customer(id: usize) -> (String, &'static str, String) {
    (
        format!("customer-{id}"),
        COUNTRIES[id % 10],
        format!("{:05}", (id * 7919) % 100_000),
    )
}

fn sqlite_customers(path: &Path, customers: usize) -> Res<()> {
    let _ = std::fs::remove_file(path);
    let mut db = rusqlite::Connection::open(path)?;
    db.execute_batch(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, country TEXT, zip TEXT)",
    )?;
    let tx = db.transaction()?;
    {
        let mut insert = tx.prepare("INSERT INTO customers VALUES (?1, ?2, ?3, ?4)")?;
        for id in 0..customers {
            let (name, country, zip) = customer(id);
            insert.execute(rusqlite::params![id as i64, name, country, zip])?;
        }
    }
    tx.commit()?;
    Ok(())
}

fn pg_connect(host_port: &str, user: &str) -> Res<postgres::Client> {
    let (host, port) = host_port
        .rsplit_once(':')
        .ok_or("--postgres takes host:port")?;
    Ok(postgres::Client::connect(
        &format!("host={host} port={port} user={user} dbname=postgres"),
        postgres::NoTls,
    )?)
}

fn pg_customers(host_port: &str, user: &str, customers: usize) -> Res<()> {
    let mut db = pg_connect(host_port, user)?;
    db.batch_execute(&format!(
        "DROP TABLE IF EXISTS customers;
         CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, country TEXT, zip TEXT);
         INSERT INTO customers
           SELECT i, 'customer-' || i,
                  (ARRAY['US','DE','FR','KR','JP','BR','IN','CN','GB','CA'])[i % 10 + 1],
                  lpad(((i::bigint * 7919) % 100000)::text, 5, '0')
           FROM generate_series(0, {}) AS i;
         ANALYZE customers;",
        customers - 1
    ))?;
    Ok(())
}

/// One query per order from `threads` connections, each reading its share
/// of the orders; returns the rows found.
fn per_row_loop(
    ids: &[i64],
    threads: usize,
    lookup: &(dyn Fn(&[i64]) -> Res<usize> + Sync),
) -> Res<usize> {
    let chunk = ids.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .chunks(chunk)
            .map(|part| s.spawn(move || lookup(part).map_err(|e| e.to_string())))
            .collect();
        let mut found = 0;
        for h in handles {
            found += h.join().map_err(|_| "a lookup thread panicked")??;
        }
        Ok(found)
    })
}

fn sqlite_loop(path: &Path, ids: &[i64]) -> Res<usize> {
    let db =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut stmt = db.prepare("SELECT name, country FROM customers WHERE id = ?1")?;
    let (mut found, mut names) = (0, Vec::with_capacity(ids.len()));
    for id in ids {
        let mut rows = stmt.query([id])?;
        while let Some(r) = rows.next()? {
            names.push((r.get::<_, String>(0)?, r.get::<_, String>(1)?));
            found += 1;
        }
    }
    Ok(found)
}

fn pg_loop(host_port: &str, user: &str, ids: &[i64]) -> Res<usize> {
    let mut db = pg_connect(host_port, user)?;
    let stmt = db.prepare("SELECT name, country FROM customers WHERE id = $1")?;
    let (mut found, mut names) = (0, Vec::with_capacity(ids.len()));
    for &id in ids {
        for r in db.query(&stmt, &[&(id as i32)])? {
            names.push((r.get::<_, String>(0), r.get::<_, String>(1)));
            found += 1;
        }
    }
    Ok(found)
}

/// The median of `runs` timed runs after one warm-up.
fn timed(runs: usize, mut f: impl FnMut() -> Res<usize>) -> Res<(Duration, usize)> {
    f()?;
    let mut times = Vec::with_capacity(runs);
    let mut rows = 0;
    for _ in 0..runs {
        let start = Instant::now();
        rows = f()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok((times[times.len() / 2], rows))
}

fn output_rows(session: &Session, sql: &str) -> Res<usize> {
    let out = session.query(sql)?;
    Ok(out.batches.iter().map(|b| b.num_rows()).sum())
}

/// The requests, keys and time waiting on the source of the query's
/// lookup join, as text from EXPLAIN ANALYZE (`None`: it ran no lookup
/// join).
fn lookup_counts(session: &Session, sql: &str) -> Res<Option<String>> {
    let text = session.explain_analyze(sql)?.0.to_text();
    let number = |key: &str| {
        text.split(key)
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<u64>().ok())
    };
    let wait_ms = text
        .split("source_wait=")
        .nth(1)
        .and_then(|rest| rest.split("ms").next())
        .and_then(|n| n.parse::<f64>().ok());
    Ok(number("requests=")
        .zip(number("keys="))
        .map(|(r, k)| match wait_ms {
            Some(w) => format!("{r} ({k} keys, {:.3} s waiting)", w / 1e3),
            None => format!("{r} ({k} keys)"),
        }))
}

/// One line of the report.
struct Line {
    database: &'static str,
    variant: String,
    wall: Duration,
    requests: String,
    probe_rows: usize,
    out_rows: usize,
}

fn print(lines: &[Line]) {
    println!(
        "{:<10} {:<44} {:>8} {:>36} {:>10} {:>9}",
        "database", "variant", "wall (s)", "requests", "orders/s", "out rows"
    );
    for l in lines {
        println!(
            "{:<10} {:<44} {:>8.3} {:>36} {:>10.0} {:>9}",
            l.database,
            l.variant,
            l.wall.as_secs_f64(),
            l.requests,
            l.probe_rows as f64 / l.wall.as_secs_f64(),
            l.out_rows
        );
    }
}

/// Every tenon variant against one database whose lookup table is
/// `table` (a `CREATE TABLE ... WITH (...)` option list in `with`).
fn tenon_variants(
    session: &Session,
    database: &'static str,
    with: &str,
    a: &Args,
    lines: &mut Vec<Line>,
) -> Res<()> {
    let columns = "(id INT, name STRING, country STRING, zip STRING)";
    let key = database.to_lowercase();
    session.execute(&format!("CREATE TABLE c_{key} {columns} WITH ({with})"))?;
    let select = |hint: &str, table: &str, lookup: bool, filter: &str| {
        let time = if lookup {
            " FOR SYSTEM_TIME AS OF o.proc_time"
        } else {
            ""
        };
        format!(
            "SELECT {hint} o.order_id, c.name, c.country FROM orders AS o \
             JOIN {table}{time} AS c ON o.customer_id = c.id {filter}"
        )
    };
    let forced = "/*+ LOOKUP('table' = 'c') */";
    let asynch = "/*+ LOOKUP('table' = 'c', 'async' = 'true', 'output-mode' = 'allow_unordered', \
                  'capacity' = '4') */";
    let table = format!("c_{key}");
    let small = "WHERE o.shop = 7 AND o.day = 3";
    let small_rows = output_rows(session, &format!("SELECT * FROM orders AS o {small}"))?;
    let cases: Vec<(String, String, usize)> = vec![
        (
            "lookup, no cache".into(),
            select(forced, &table, true, ""),
            a.orders,
        ),
        (
            "lookup, no cache, async capacity 4".into(),
            select(asynch, &table, true, ""),
            a.orders,
        ),
        (
            "scan + hash join".into(),
            select("", &table, false, ""),
            a.orders,
        ),
        (
            "planner default".into(),
            select("", &table, true, ""),
            a.orders,
        ),
        (
            format!("small probe ({small_rows} orders): lookup"),
            select(forced, &table, true, small),
            small_rows,
        ),
        (
            format!("small probe ({small_rows} orders): scan + join"),
            select("", &table, false, small),
            small_rows,
        ),
        (
            format!("small probe ({small_rows} orders): default"),
            select("", &table, true, small),
            small_rows,
        ),
    ];
    for (variant, sql, probe_rows) in cases {
        let (wall, out_rows) = timed(a.runs, || output_rows(session, &sql))?;
        let requests = lookup_counts(session, &sql)?.unwrap_or_else(|| "1 scan".into());
        let variant = if variant.ends_with("default") {
            let ran = if requests == "1 scan" {
                "ran scan + join"
            } else {
                "ran lookup"
            };
            format!("{variant} ({ran})")
        } else {
            variant
        };
        lines.push(Line {
            database,
            variant,
            wall,
            requests,
            probe_rows,
            out_rows,
        });
    }
    // a PARTIAL cache, cold for each run (the table is created again) and
    // then warm (the session's next query)
    let cached = format!(
        "{with}, 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '{}'",
        a.customers * 2
    );
    let name = format!("p_{key}");
    let sql = select(forced, &name, true, "");
    let create = || -> Res<()> {
        session.execute(&format!("DROP TABLE IF EXISTS {name}"))?;
        session.execute(&format!("CREATE TABLE {name} {columns} WITH ({cached})"))?;
        Ok(())
    };
    let mut cold = Vec::new();
    let mut out_rows = 0;
    for _ in 0..a.runs {
        create()?;
        let start = Instant::now();
        out_rows = output_rows(session, &sql)?;
        cold.push(start.elapsed());
    }
    cold.sort();
    create()?;
    let requests = lookup_counts(session, &sql)?.unwrap_or_else(|| "?".into());
    lines.push(Line {
        database,
        variant: "lookup, PARTIAL cache, cold".into(),
        wall: cold[cold.len() / 2],
        requests,
        probe_rows: a.orders,
        out_rows,
    });
    let (wall, out_rows) = timed(a.runs, || output_rows(session, &sql))?;
    let requests = lookup_counts(session, &sql)?.unwrap_or_else(|| "?".into());
    lines.push(Line {
        database,
        variant: "lookup, PARTIAL cache, warm".into(),
        wall,
        requests,
        probe_rows: a.orders,
        out_rows,
    });
    Ok(())
}

/// The baseline: one query per probe row over `a.threads` connections.
fn per_row_line(
    database: &'static str,
    ids: &[i64],
    a: &Args,
    lookup: &(dyn Fn(&[i64]) -> Res<usize> + Sync),
) -> Res<Line> {
    let (wall, found) = timed(a.runs, || per_row_loop(ids, a.threads, lookup))?;
    Ok(Line {
        database,
        variant: format!("per-row loop, {} connections", a.threads),
        wall,
        requests: a.orders.to_string(),
        probe_rows: a.orders,
        out_rows: found,
    })
}

fn main() -> Res<()> {
    let a = args()?;
    std::fs::create_dir_all(&a.dir)?;
    let orders_csv = a.dir.join("orders.csv");
    let db = a.dir.join("shop.db");
    let ids = write_orders(&orders_csv, a.orders, a.customers)?;
    sqlite_customers(&db, a.customers)?;
    if let Some((pg, user)) = &a.postgres {
        pg_customers(pg, user, a.customers)?;
    }
    let mut session = Session::new(Config::default())?;
    session.set_threads(a.threads)?;
    session.execute(&format!(
        "CREATE TABLE orders (order_id BIGINT, customer_id INT, shop INT, day INT, \
         amount DOUBLE, proc_time AS PROCTIME()) WITH ('connector' = 'filesystem', \
         'path' = '{}', 'format' = 'csv', 'scan.in-memory' = 'true')",
        orders_csv.display()
    ))?;
    output_rows(&session, "SELECT count(*) FROM orders")?;
    let mut lines = Vec::new();

    lines.push(per_row_line("SQLite", &ids, &a, &|part| {
        sqlite_loop(&db, part)
    })?);
    let with = format!(
        "'connector' = 'jdbc', 'url' = 'jdbc:sqlite:{}', 'table-name' = 'customers'",
        db.display()
    );
    tenon_variants(&session, "SQLite", &with, &a, &mut lines)?;

    if let Some((pg, user)) = &a.postgres {
        lines.push(per_row_line("PostgreSQL", &ids, &a, &|part| {
            pg_loop(pg, user, part)
        })?);
        let with = format!(
            "'connector' = 'jdbc', 'url' = 'jdbc:postgresql://{pg}/postgres', \
             'table-name' = 'customers', 'username' = '{user}'"
        );
        tenon_variants(&session, "PostgreSQL", &with, &a, &mut lines)?;
    } else {
        println!("PostgreSQL: skipped (no --postgres host:port)");
    }
    print(&lines);
    let _ = std::fs::remove_dir_all(&a.dir);
    Ok(())
}

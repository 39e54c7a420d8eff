//! `tenon bench --query FILE|DIR`: the join strategies side by side on the
//! user's own queries (docs/cli.md, "tenon bench --query").
//!
//! Each query is planned once; each join whose inputs have names gets one
//! variant per strategy that can run it (a hint block inserted at its
//! block's `SELECT`, [`tenon::bench::variants`]), the other joins left to
//! the planner; a query of at most [`CROSS_PRODUCT_JOINS`] joins also
//! runs every combination. A variant runs only when its EXPLAIN says its
//! hint applied. Every variant must return the default's rows (a
//! disagreement is a bug in tenon: exit 1 naming the variant and the
//! first differing row, [`check`]). The results are `tenon-bench/1`
//! workloads named `<file>#join<N>` (and `<file>#all` for the
//! combinations), one row per strategy (`A+B` for a combination), so that
//! `--json`, `--svg`, `--baseline`, `--against` and `--measure
//! instructions` ([`callgrind`]) work as on the built-in workloads.
//! Identical variants (the same query text) run once. A file may be a
//! script: DDL around its one query ([`script`]). Without `--table` and
//! `--memory-table`, the TPC-H tables are built in ([`tables`]).

mod callgrind;
mod check;
mod script;
mod tables;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tenon::bench::variants::{STRATEGIES, SelectSites, has_order_by, hint_for};
use tenon::bench::{BenchReport, Choice, Settings, StrategyTiming, WorkloadReport, svg};
use tenon::{Config, Error, JoinReport, Session, Strategy};

use super::against::InjectedSlowdown;
use super::{BenchArgs, Job, Measure};
use crate::cli::{CliError, write_text_atomically};

/// Queries of at most this many joins also run every combination of their
/// joins' strategies (4 strategies each: at most 64 variants).
pub(crate) const CROSS_PRODUCT_JOINS: usize = 3;

/// One variant of a query: the hints added to it (none: the default).
#[derive(Debug, Clone)]
struct Row {
    /// The strategy (`BROADCAST`), or a combination's (`BROADCAST+NEST_LOOP`).
    name: String,
    /// `(block, hint)` inserted; empty for the planner's default.
    hints: Vec<(usize, String)>,
    /// `(join index, strategy)` the variant's EXPLAIN must show as hinted.
    checks: Vec<(usize, Strategy)>,
}

/// One workload of a query: a join's strategies, or the combinations.
#[derive(Debug)]
struct Workload {
    name: String,
    /// The default's row name.
    default: String,
    /// The default's reason, as EXPLAIN gives it.
    reason: String,
    rows: Vec<Row>,
}

/// One way to run a join: its strategy, and the hint asking for it
/// (`None`: the planner's default, which runs without a hint).
/// `None`: the multi-way join a MULTI_JOIN group runs the join with (the
/// default then, which no strategy hint asks for).
type WayToRun = (Option<Strategy>, Option<String>);

/// The name of a way to run a join.
fn way_name(s: Option<Strategy>) -> &'static str {
    s.map_or(MULTI_JOIN, |s| s.name())
}

/// What EXPLAIN calls a join run by a MULTI_JOIN group's multi-way join.
const MULTI_JOIN: &str = "MULTI_JOIN";

/// A query file, planned.
struct Planned {
    name: String,
    path: PathBuf,
    /// The file's statements: its query and the DDL around it.
    script: script::QueryScript,
    sql: String,
    ordered: bool,
    joins: Vec<JoinReport>,
    sites: SelectSites,
    workloads: Vec<Workload>,
    /// Per join: what was not varied, and why.
    notes: Vec<String>,
}

/// The figures of one variant (one distinct query text).
#[derive(Debug, Clone)]
struct Measured {
    runs_s: Vec<f64>,
    peak: u64,
    spilled: u64,
    /// With `--measure instructions`: the measured run's count.
    instructions: Option<u64>,
}

/// How the queries run: the options, the job, the session, the scale of
/// the built-in TPC-H tables (`None`: not used) and the testing aid of
/// [`check::INJECT_WRONG_ROWS`].
struct Bench<'a> {
    args: &'a BenchArgs,
    job: &'a Job,
    session: Session,
    tpch_scale: Option<f64>,
    inject: Option<Strategy>,
}

/// Runs `tenon bench --query ...` (also as a child of `--against`).
pub(super) fn run(args: &BenchArgs, job: &Job) -> Result<(), CliError> {
    let rows_asked = row_filter(&args.strategies)?;
    let inject = check::injected_wrong_rows()?;
    let files = query_files(args)?;
    let (session, tpch_scale) = session(args, job, &files)?;
    let b = Bench {
        args,
        job,
        session,
        tpch_scale,
        inject,
    };
    let planned = plan_all(&b, &files, rows_asked.as_deref())?;
    if let Some(other) = &args.against {
        let names: Vec<String> = planned
            .iter()
            .flat_map(|p| p.workloads.iter().map(|w| w.name.clone()))
            .collect();
        return super::against::run(args, job, other, &names);
    }
    let mut report = BenchReport {
        tenon_version: env!("CARGO_PKG_VERSION").to_string(),
        settings: Settings {
            threads: job.threads,
            runs: job.runs,
            scale: b.tpch_scale.unwrap_or(1.0),
            seed: args.seed,
            batch_size: args.batch_size,
        },
        workloads: Vec::new(),
    };
    for p in &planned {
        let start = report.workloads.len();
        let scope = p.script.enter(&b.session, &p.path)?;
        let fastest = measure_query(&b, p, &mut report)?;
        p.script.leave(&b.session, &p.path, scope)?;
        print_query(p, &report.workloads[start..], fastest.as_ref());
    }
    if let Some(path) = &args.json {
        write_text_atomically(path, &report.to_json())?;
    }
    if let Some(path) = &args.svg {
        write_text_atomically(path, &svg::chart(&report))?;
    }
    match &job.baseline {
        Some(base) => super::baseline::compare_with_baseline(args, base, &report),
        None => Ok(()),
    }
}

/// The options that do not apply to queries (checked before anything
/// else, so that they are named rather than what they would need).
pub(super) fn check(args: &BenchArgs) -> Result<(), CliError> {
    if args.data.is_some() {
        return Err(CliError::usage(
            "--data holds the built-in workloads' data; --query runs on the tables given with \
             --table, --memory-table and -f (or the built-in TPC-H tables without them)",
        ));
    }
    if args.scale.is_some() && !(args.tables.is_empty() && args.memory_tables.is_empty()) {
        return Err(CliError::usage(
            "--scale with --query is the scale of the built-in TPC-H tables, which are there \
             only without --table and --memory-table: your tables have the size they have",
        ));
    }
    if let Some(w) = args.workloads.iter().find(|w| !w.contains('#')) {
        return Err(CliError::usage(format!(
            "--workload {w} with --query: a built-in workload cannot run with --query (run them \
             in two commands); with --query, --workload narrows to a query's workload, e.g. \
             --workload q05.sql#join1"
        )));
    }
    Ok(())
}

/// `--strategies` for queries: `None` for all, else the row names asked
/// for (a strategy, or a combination `A+B` of them).
fn row_filter(spec: &str) -> Result<Option<Vec<String>>, CliError> {
    if spec.trim().eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    let mut names = Vec::new();
    for item in spec.split(',') {
        let mut parts = Vec::new();
        for part in item.split('+') {
            let s = Strategy::from_name(part).ok_or_else(|| {
                CliError::usage(format!(
                    "--strategies: unknown strategy `{}`; use `all` or a comma-separated list \
                     of BROADCAST, SHUFFLE_HASH, SHUFFLE_MERGE, NEST_LOOP (with --query, a \
                     combination such as BROADCAST+NEST_LOOP names one row of `<file>#all`)",
                    part.trim()
                ))
            })?;
            parts.push(s.name());
        }
        names.push(parts.join("+"));
    }
    Ok(Some(names))
}

/// Whether row `name` is asked for: named, or made of strategies named.
fn row_asked(asked: Option<&[String]>, name: &str) -> bool {
    asked.is_none_or(|a| {
        a.iter().any(|n| n == name) || name.split('+').all(|p| a.iter().any(|n| n == p))
    })
}

/// A session with the tables registered as `tenon query` registers them
/// (the built-in TPC-H tables when `files` or `-f` read them and no
/// table is given: their scale then), then the `-f` script run.
fn session(
    args: &BenchArgs,
    job: &Job,
    files: &[PathBuf],
) -> Result<(Session, Option<f64>), CliError> {
    let mut config: Config = job.config.clone();
    config
        .set("threads", &job.threads.to_string())
        .map_err(|e| CliError::usage(format!("--threads {}: {e}", job.threads)))?;
    config
        .set("batch_size", &args.batch_size.to_string())
        .map_err(|e| CliError::usage(format!("--batch-size {}: {e}", args.batch_size)))?;
    let mut session = Session::new(config).map_err(|e| CliError {
        code: e.exit_code() as u8,
        message: e.to_string(),
    })?;
    let script = match &args.file {
        None => None,
        Some(file) => Some(std::fs::read_to_string(file).map_err(|e| {
            CliError::usage(format!(
                "-f {}: cannot read the script: {e}",
                file.display()
            ))
        })?),
    };
    let mut tpch_scale = None;
    if args.tables.is_empty() && args.memory_tables.is_empty() {
        // unreadable files are reported when they are planned
        let texts: Vec<String> = script
            .iter()
            .cloned()
            .chain(files.iter().filter_map(|f| std::fs::read_to_string(f).ok()))
            .collect();
        if let Some(kept) = tables::builtin_tpch_needed(&texts) {
            // (in range: checked with the other options)
            let scale = args.scale.unwrap_or(tables::BUILTIN_TPCH_SCALE);
            session.register_tpch(scale).map_err(|e| CliError {
                code: e.exit_code() as u8,
                message: format!("the built-in TPC-H tables at scale {scale}: {e}"),
            })?;
            for t in tables::tpch_tables().iter().filter(|t| !kept.contains(t)) {
                // declared by a CREATE TABLE: that table replaces it
                let _ = session.execute(&format!("DROP TABLE \"{t}\""));
            }
            tpch_scale = Some(scale);
        }
    }
    crate::cli::query::register_tables(&mut session, &args.tables, &args.memory_tables)?;
    if let (Some(file), Some(script)) = (&args.file, &script) {
        session.execute_script(script).map_err(|e| CliError {
            code: e.exit_code() as u8,
            message: format!("-f {}: {e}", file.display()),
        })?;
    }
    Ok((session, tpch_scale))
}

/// The query files: each `--query` file, or each `*.sql` of a `--query`
/// directory sorted by name.
fn query_files(args: &BenchArgs) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for q in &args.queries {
        if q.is_dir() {
            let entries = std::fs::read_dir(q).map_err(|e| {
                CliError::usage(format!(
                    "--query {}: cannot read the directory: {e}",
                    q.display()
                ))
            })?;
            let mut sql: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "sql"))
                .collect();
            if sql.is_empty() {
                return Err(CliError::usage(format!(
                    "--query {}: the directory holds no *.sql file",
                    q.display()
                )));
            }
            sql.sort();
            files.extend(sql);
        } else if q.is_file() {
            files.push(q.clone());
        } else {
            return Err(CliError::usage(format!(
                "--query {}: no such file or directory; give a .sql file holding one query, or \
                 a directory of them",
                q.display()
            )));
        }
    }
    Ok(files)
}

/// Every query file planned (its DDL run around it), narrowed to
/// `--workload` and `--strategies`.
fn plan_all(
    b: &Bench<'_>,
    files: &[PathBuf],
    rows_asked: Option<&[String]>,
) -> Result<Vec<Planned>, CliError> {
    let args = b.args;
    let mut planned: Vec<Planned> = Vec::new();
    for path in files {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        if planned.iter().any(|p| p.name == name) {
            return Err(CliError::usage(format!(
                "--query: two query files are named {name}; the report names workloads by file \
                 name: rename one"
            )));
        }
        let wanted = |w: &str| args.workloads.is_empty() || args.workloads.iter().any(|x| x == w);
        if !args.workloads.is_empty()
            && !args
                .workloads
                .iter()
                .any(|w| w.starts_with(&format!("{name}#")))
        {
            continue;
        }
        let mut p = plan_query(b, path, name)?;
        p.workloads.retain(|w| wanted(&w.name));
        for w in &mut p.workloads {
            w.rows.retain(|r| row_asked(rows_asked, &r.name));
        }
        planned.push(p);
    }
    for w in &args.workloads {
        if !planned
            .iter()
            .any(|p| p.workloads.iter().any(|x| &x.name == w))
        {
            let known: Vec<String> = planned
                .iter()
                .flat_map(|p| p.workloads.iter().map(|x| x.name.clone()))
                .collect();
            return Err(CliError::usage(format!(
                "--workload: unknown workload {w:?}; the queries' workloads are: {}",
                known.join(", ")
            )));
        }
    }
    Ok(planned)
}

/// Reads, plans (between the file's DDL) and splits one query file into
/// its workloads.
fn plan_query(b: &Bench<'_>, path: &Path, name: String) -> Result<Planned, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::usage(format!("--query {}: cannot read it: {e}", path.display())))?;
    let in_file = |e: Error| {
        let mut message = format!("--query {}: {e}", path.display());
        if message.contains("unknown table") {
            message.push_str(
                "; register the tables the query reads with --table NAME=PATH, \
                 --memory-table NAME=PATH, -f DDL.sql or CREATE TABLE in the file (without \
                 --table and --memory-table the TPC-H tables are built in)",
            );
        }
        CliError {
            code: e.exit_code() as u8,
            message,
        }
    };
    let script = script::QueryScript::parse(path, &text)?;
    let sql = script.query.text.clone();
    let scope = script.enter(&b.session, path)?;
    let explained = b.session.explain(&sql).map_err(in_file);
    script.leave(&b.session, path, scope)?;
    let joins = explained?.report().joins;
    let sites = SelectSites::of(&sql)
        .map_err(|e| CliError::usage(format!("--query {}: {e}", path.display())))?;
    let mut notes = Vec::new();
    // per join: (default row, every row) when it can be varied
    let mut options: Vec<(usize, Vec<WayToRun>)> = Vec::new();
    for (i, j) in joins.iter().enumerate() {
        let label = format!("join{}", i + 1);
        if sites.site(j.block).is_none() {
            notes.push(format!(
                "{label}: not varied: it is in block {} (a view's body), whose SELECT is not in \
                 the query text",
                j.block
            ));
            continue;
        }
        if j.left.is_none() && j.right.is_none() {
            notes.push(format!(
                "{label}: not varied: neither input has a table or alias name a hint could use"
            ));
            continue;
        }
        let mut opts = Vec::new();
        let mut cannot = Vec::new();
        if j.strategy == MULTI_JOIN {
            opts.push((None, None));
        }
        for s in STRATEGIES {
            if s.name() == j.strategy {
                opts.push((Some(s), None));
                continue;
            }
            match hint_for(j, s) {
                Ok(h) => opts.push((Some(s), Some(h))),
                Err(why) => cannot.push(format!("{s}: {why}")),
            }
        }
        if !cannot.is_empty() {
            notes.push(format!("{label}: not tried: {}", cannot.join("; ")));
        }
        if opts.iter().any(|(_, h)| h.is_some()) {
            options.push((i, opts));
        } else {
            notes.push(format!(
                "{label}: not varied: no strategy but the default can run it"
            ));
        }
    }
    let mut workloads = Vec::new();
    for (i, opts) in &options {
        let j = &joins[*i];
        workloads.push(Workload {
            name: format!("{name}#join{}", i + 1),
            default: j.strategy.clone(),
            reason: j.reason.clone(),
            rows: opts
                .iter()
                .map(|(s, h)| Row {
                    name: way_name(*s).to_string(),
                    hints: h.iter().map(|h| (j.block, h.clone())).collect(),
                    checks: s.iter().filter(|_| h.is_some()).map(|s| (*i, *s)).collect(),
                })
                .collect(),
        });
    }
    if joins.len() <= CROSS_PRODUCT_JOINS && options.len() >= 2 {
        let mut rows = vec![Row {
            name: String::new(),
            hints: Vec::new(),
            checks: Vec::new(),
        }];
        for (i, opts) in &options {
            let block = joins[*i].block;
            rows = rows
                .iter()
                .flat_map(|r| {
                    opts.iter().map(move |(s, h)| {
                        let mut r = r.clone();
                        r.name = if r.name.is_empty() {
                            way_name(*s).to_string()
                        } else {
                            format!("{}+{}", r.name, way_name(*s))
                        };
                        if let (Some(h), Some(s)) = (h, s) {
                            r.hints.push((block, h.clone()));
                            r.checks.push((*i, *s));
                        }
                        r
                    })
                })
                .collect();
        }
        // a strategy hinted on one join of a MULTI_JOIN group makes the
        // group run as binary joins: no combination names both
        rows.retain(|r| r.hints.is_empty() || !r.name.split('+').any(|n| n == MULTI_JOIN));
        let default: Vec<&str> = options
            .iter()
            .map(|(i, _)| joins[*i].strategy.as_str())
            .collect();
        workloads.push(Workload {
            name: format!("{name}#all"),
            default: default.join("+"),
            reason: "the planner's default for every join".to_string(),
            rows,
        });
    }
    if joins.is_empty() {
        notes.push("the plan has no join: there is nothing to vary".to_string());
    }
    Ok(Planned {
        ordered: has_order_by(&sql),
        name,
        path: path.to_path_buf(),
        script,
        sql,
        joins,
        sites,
        workloads,
        notes,
    })
}

/// Measures every row of `p`'s workloads into `report`; the fastest
/// variant's text and median, with the default's median, when measured.
fn measure_query(
    b: &Bench<'_>,
    p: &Planned,
    report: &mut BenchReport,
) -> Result<Option<(String, f64, f64)>, CliError> {
    if p.workloads.iter().all(|w| w.rows.is_empty()) {
        return Ok(None);
    }
    let session = &b.session;
    let failed = |what: &str, e: Error| CliError {
        code: e.exit_code() as u8,
        message: format!("{}: {what}: {e}", p.name),
    };
    let reference = {
        let out = session
            .sql(&p.sql)
            .and_then(|q| q.run())
            .map_err(|e| failed("the query", e))?;
        check::Reference::of(&p.name, &out.batches, p.ordered)?
    };
    let mut measured: HashMap<String, Measured> = HashMap::new();
    let mut not_applied = Vec::new();
    for w in &p.workloads {
        let mut timings = Vec::new();
        for row in &w.rows {
            let Some(sql) = p.sites.insert(&p.sql, &row.hints) else {
                continue;
            };
            let block = hint_block(&row.hints);
            if !measured.contains_key(&sql) {
                if let Some(why) = not_applying(session, p, row, &sql) {
                    not_applied.push(format!("{} {} ({block}): {why}", w.name, row.name));
                    continue;
                }
                let variant = format!("{} {}", w.name, row.name);
                let mut m = measure(b, p, &sql, (&variant, &block), &reference)?;
                if b.args.measure == Measure::Instructions {
                    m.instructions = Some(callgrind::count(b.args, &p.path, &w.name, &row.name)?);
                }
                measured.insert(sql.clone(), m);
            }
            if let Some(m) = measured.get(&sql) {
                timings.push(StrategyTiming {
                    strategy: row.name.clone(),
                    runs_s: m.runs_s.clone(),
                    peak_memory_bytes: m.peak,
                    spilled_bytes: m.spilled,
                    instructions: m.instructions,
                });
            }
        }
        if timings.is_empty() {
            continue;
        }
        let mut wr = WorkloadReport {
            workload: w.name.clone(),
            probe_rows: 0,
            build_rows: 0,
            output_rows: reference.exact.row_count(),
            strategies: timings,
            default: Choice {
                strategy: w.default.clone(),
                hint: None,
                reason: w.reason.clone(),
            },
            hinted: Choice {
                strategy: String::new(),
                hint: None,
                reason: String::new(),
            },
        };
        if let Some(f) = wr.fastest().map(|t| t.strategy.clone()) {
            let hints = w
                .rows
                .iter()
                .find(|r| r.name == f)
                .map(|r| hint_block(&r.hints));
            wr.hinted = Choice {
                strategy: f,
                hint: hints,
                reason: "the fastest variant measured".to_string(),
            };
        }
        report.workloads.push(wr);
    }
    for n in &not_applied {
        println!("note: {}: {n}", p.name);
    }
    let median = |m: &Measured| {
        StrategyTiming {
            strategy: String::new(),
            runs_s: m.runs_s.clone(),
            peak_memory_bytes: 0,
            spilled_bytes: 0,
            instructions: None,
        }
        .median_s()
    };
    let default = measured.get(&p.sql).map(median);
    let fastest = measured
        .iter()
        .map(|(sql, m)| (sql, median(m)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    Ok(match (fastest, default) {
        (Some((sql, best)), Some(d)) => Some((sql.clone(), best, d)),
        _ => None,
    })
}

/// The hint block of a variant, as it reads inside `/*+ ... */`.
fn hint_block(hints: &[(usize, String)]) -> String {
    if hints.is_empty() {
        return "the planner's default, no hint".to_string();
    }
    let all: Vec<&str> = hints.iter().map(|(_, h)| h.as_str()).collect();
    format!("/*+ {} */", all.join(", "))
}

/// Why `sql`'s hints did not all apply (EXPLAIN), or `None` when they did.
fn not_applying(session: &Session, p: &Planned, row: &Row, sql: &str) -> Option<String> {
    let joins = match session.explain(sql) {
        Ok(e) => e.report().joins,
        Err(e) => return Some(format!("planning the variant failed: {e}")),
    };
    if joins.len() != p.joins.len() {
        return Some(format!(
            "the variant plans {} joins, the query {}",
            joins.len(),
            p.joins.len()
        ));
    }
    for &(i, s) in &row.checks {
        let j = &joins[i];
        if !(j.hinted && j.reason.starts_with("hint") && j.strategy == s.name()) {
            let mut why = format!("join{} runs {}: {}", i + 1, j.strategy, j.reason);
            for h in &j.ignored_hints {
                why.push_str("; ");
                why.push_str(h);
            }
            return Some(format!("the hint did not apply, not timed: {why}"));
        }
    }
    None
}

/// One warm-up run (its rows checked against the default's) and `--runs`
/// timed runs of `sql`, the variant `(workload and row, hint block)`.
fn measure(
    b: &Bench<'_>,
    p: &Planned,
    sql: &str,
    (variant, block): (&str, &str),
    reference: &check::Reference,
) -> Result<Measured, CliError> {
    let job = b.job;
    let failed = |e: Error| CliError {
        code: e.exit_code() as u8,
        message: format!("{} with {block}: {e}", p.name),
    };
    let query = b.session.sql(sql).map_err(failed)?;
    let mut m = Measured {
        runs_s: Vec::with_capacity(job.runs),
        peak: 0,
        spilled: 0,
        instructions: None,
    };
    for run in 0..=job.runs {
        let out = callgrind::callgrind_measured_region_of_query(&query).map_err(failed)?;
        let start = Instant::now();
        InjectedSlowdown::pad(job.slowdown.as_ref(), &p.name, out.elapsed);
        let padded: Duration = out.elapsed + start.elapsed();
        if run == 0 {
            check::check_rows(&p.name, variant, block, &out.batches, reference, b.inject)?;
            continue;
        }
        m.runs_s.push(padded.as_secs_f64());
        m.peak = m.peak.max(out.peak_memory);
        m.spilled = m.spilled.max(out.spilled_bytes);
    }
    Ok(m)
}

/// Prints one query's joins, notes, rows and fastest variant.
fn print_query(p: &Planned, workloads: &[WorkloadReport], fastest: Option<&(String, f64, f64)>) {
    println!("{}: {} join(s)", p.name, p.joins.len());
    for (i, j) in p.joins.iter().enumerate() {
        let names = format!(
            "{} {} {}",
            j.left.as_deref().unwrap_or("(join)"),
            j.join_type,
            j.right.as_deref().unwrap_or("(join)")
        );
        println!(
            "  join{} (block {}) {names}: default {}{} ({})",
            i + 1,
            j.block,
            j.strategy,
            j.build
                .as_ref()
                .map_or(String::new(), |b| format!(" build {b}")),
            j.reason
        );
    }
    for n in &p.notes {
        println!("  {n}");
    }
    if workloads.is_empty() {
        println!();
        return;
    }
    println!(
        "  {:<22} {:<38} {:>10} {:>10} {:>10} {:>9} {:>11} {:>10} {:>7}",
        "workload",
        "strategy",
        "median_s",
        "min_s",
        "max_s",
        "peak_MiB",
        "spilled_MiB",
        "out_rows",
        "vs_best"
    );
    for w in workloads {
        let best = w.fastest().map_or(0.0, StrategyTiming::median_s);
        for t in &w.strategies {
            let median = t.median_s();
            println!(
                "  {:<22} {:<38} {:>10.4} {:>10.4} {:>10.4} {:>9.1} {:>11.1} {:>10} {:>7.2}{}{}",
                w.workload,
                t.strategy,
                median,
                t.min_s(),
                t.max_s(),
                t.peak_memory_bytes as f64 / (1 << 20) as f64,
                t.spilled_bytes as f64 / (1 << 20) as f64,
                w.output_rows,
                if best > 0.0 { median / best } else { 0.0 },
                if t.strategy == w.default.strategy {
                    "  default"
                } else {
                    ""
                },
                t.instructions
                    .map_or(String::new(), |n| format!("  instructions={n}"))
            );
        }
    }
    for w in workloads {
        let regret = w
            .regret(&w.default)
            .map_or("n/a".to_string(), |r| format!("{r:.2}"));
        println!(
            "  {}: default {} (regret {regret}); fastest {}: {}",
            w.workload,
            w.default.strategy,
            w.hinted.strategy,
            w.hinted.hint.as_deref().unwrap_or("")
        );
    }
    match fastest {
        Some((sql, _, _)) if *sql == p.sql => {
            println!("  fastest: the planner's default (no hint)");
        }
        Some((sql, best, default)) => {
            println!(
                "  fastest ({best:.4} s; the default {default:.4} s, regret {:.2}):",
                if *best > 0.0 { default / best } else { 0.0 }
            );
            println!("fastest: {}", sql.trim());
            if p.script.has_ddl() {
                println!(
                    "  (the query of {}: run it between the file's other statements)",
                    p.name
                );
            }
        }
        None => {}
    }
    println!();
}

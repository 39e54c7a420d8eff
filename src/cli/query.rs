//! `tenon query`: run one SQL query with join hints, or a script of
//! statements (`-f/--file`), docs/cli.md.

use std::path::{Path, PathBuf};

use clap::Args;
use tenon::io::{Destination, IoError, OutputFormat, write_to};
use tenon::planner::sql::{SqlStatement, parse_statement, split_statements};
use tenon::{Config, Error, QueryOutput, Session};

use super::CliError;

#[cfg(feature = "cluster")]
mod cluster;

/// Scale factor of the built-in TPC-H tables.
pub(crate) const BUILTIN_TPCH_SCALE: f64 = 0.01;

/// Options of `tenon query`.
#[derive(Debug, Args)]
pub(crate) struct QueryArgs {
    /// The SQL query (one statement). It may begin with a `--` comment
    /// (`tenon query "-- top nations<newline>SELECT ..."`): an argument that
    /// starts with `--` and a space, tab or newline is SQL, not an option.
    /// After a lone `--`, any argument is the SQL.
    #[arg(value_name = "SQL")]
    sql: Option<String>,
    /// Run the statements of FILE, separated by `;` (CREATE TABLE ... WITH
    /// (...), CREATE VIEW ..., queries, DROP ...) and print the last
    /// query's result (--explain, --analyze, --timing, --runs apply to it).
    #[arg(
        short = 'f',
        long = "file",
        value_name = "FILE",
        conflicts_with = "sql"
    )]
    file: Option<PathBuf>,
    /// Register a table (repeatable): NAME=PATH, PATH a .parquet, .csv,
    /// .arrow/.ipc/.feather file or a directory of such files. NAME is
    /// folded to lower case, as SQL folds unquoted names. Without any
    /// --table, the TPC-H tables at scale 0.01 are registered (unless the
    /// SQL declares tables with CREATE TABLE and names no other TPC-H
    /// table).
    /// Each query reads only the columns it uses, while its scans run
    /// (batch by batch, charged to memory_limit; Parquet: only the row
    /// groups its filters can match, see --analyze's row_groups=).
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// Register a table held in memory (repeatable): NAME=PATH as for
    /// --table, but read once before the query, kept for every --runs,
    /// and charged to memory_limit while a query runs.
    #[arg(long = "memory-table", value_name = "NAME=PATH")]
    memory_tables: Vec<String>,
    /// Output format: table, csv, json, ndjson, parquet, arrow. Default:
    /// from --output's extension (.csv, .json, .ndjson/.jsonl, .parquet,
    /// .arrow/.ipc/.feather), else table.
    #[arg(long)]
    format: Option<String>,
    /// Write the result (or the plan) to PATH instead of stdout. A regular
    /// file (or a new one; a symbolic link is followed to its file) is
    /// complete or absent: written to a hidden temporary file beside it,
    /// then renamed over it. A device (/dev/null) or FIFO is written
    /// directly; `-` and /dev/stdout are stdout. Anything else (a
    /// directory, a socket) is refused.
    #[arg(long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Worker threads, 0 to 1024 (default 0: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Rows per batch, 1 to 1048576 (default 8192).
    #[arg(long)]
    batch_size: Option<usize>,
    /// A setting KEY=VALUE (repeatable): broadcast_threshold, hint_mode,
    /// disabled_strategies, memory_limit, spill_dir, spill_limit, threads, batch_size,
    /// fused_aggregate, runtime_filters, shared_subplans,
    /// lookup.async.capacity, lookup.async.timeout, lookup.async.output-mode.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Print the plan (each join's strategy and why) instead of running.
    #[arg(long)]
    explain: bool,
    /// Run, then print the plan with rows, batches, bytes and time per
    /// operator.
    #[arg(long)]
    analyze: bool,
    /// After running, print `elapsed_ms=<float> rows=<int>
    /// reads_files=<bool> peak_memory=<bytes> spilled_bytes=<bytes>` to
    /// stderr: reads_files=true when the time includes reading --table
    /// files (use --memory-table to time the query alone); peak_memory is
    /// what memory_limit bounds.
    #[arg(long)]
    timing: bool,
    /// Run the query this many times (tables loaded once); --timing then
    /// reports the median run and the output is the last run's.
    #[arg(long, default_value_t = 1, value_name = "N")]
    runs: usize,
    /// Run the query on the workers at URL[,URL...] (`tenon worker`, e.g.
    /// 127.0.0.1:50051,127.0.0.1:50052): planned here with tenon's hints,
    /// run by tenon's kernels on the workers, which read the --table files
    /// themselves. --explain shows the stages and exchanges. Settings:
    /// hint_mode, broadcast_threshold, disabled_strategies, join_reorder,
    /// threads, batch_size, cluster.timeout (how long a worker has to
    /// answer, default 10s), cluster.task_bytes (file bytes each partition
    /// of a task scans, default 16MB: less makes more tasks),
    /// cluster.joins (tenon, or datafusion: DataFusion's own joins, to
    /// compare).
    /// Needs a tenon built with `--features cluster`.
    #[arg(long, value_name = "URLS")]
    cluster: Option<String>,
}

/// The CLI's error for a library error: its message and exit code.
pub(crate) fn fail(e: Error) -> CliError {
    CliError {
        code: u8::try_from(e.exit_code()).unwrap_or(3),
        message: e.to_string(),
    }
}

/// `--threads` and `--batch-size` into `config`, through `Config::set`,
/// so that the options and `--set` have the same bounds and messages.
fn thread_and_batch_options(
    config: &mut Config,
    threads: Option<usize>,
    batch_size: Option<usize>,
) -> Result<(), CliError> {
    if let Some(t) = threads {
        config
            .set("threads", &t.to_string())
            .map_err(|e| CliError::usage(format!("--threads {t}: {e}")))?;
    }
    if let Some(b) = batch_size {
        config
            .set("batch_size", &b.to_string())
            .map_err(|e| CliError::usage(format!("--batch-size {b}: {e}")))?;
    }
    Ok(())
}

/// The settings of `--set KEY=VALUE` (in order), then `--threads` and
/// `--batch-size`: what `tenon query` and `tenon shell` start their session
/// with.
pub(crate) fn options_config(
    settings: &[String],
    threads: Option<usize>,
    batch_size: Option<usize>,
) -> Result<Config, CliError> {
    let mut config = Config::default();
    for pair in settings {
        config
            .set_pair(pair)
            .map_err(|e| CliError::usage(format!("--set {pair}: {e}")))?;
    }
    thread_and_batch_options(&mut config, threads, batch_size)?;
    Ok(config)
}

fn session(args: &QueryArgs) -> Result<Session, CliError> {
    let config = options_config(&args.settings, args.threads, args.batch_size)?;
    let mut session = Session::new(config).map_err(fail)?;
    let text = script_text(args);
    let declared = text.as_deref().map(declared_tables).unwrap_or_default();
    if args.tables.is_empty()
        && args.memory_tables.is_empty()
        && uses_builtin_tpch(text.as_deref(), &declared)
    {
        session.register_tpch(BUILTIN_TPCH_SCALE).map_err(fail)?;
        for name in declared {
            // the script's own table of that name replaces the built-in one
            let _ = session.execute(&format!(
                "DROP TABLE IF EXISTS \"{}\"",
                name.replace('"', "\"\"")
            ));
        }
    }
    register_tables(&mut session, &args.tables, &args.memory_tables)?;
    Ok(session)
}

/// Registers `--table NAME=PATH` (read while a query runs) and
/// `--memory-table NAME=PATH` (read once, held in memory) in `session`:
/// names folded to lower case as SQL folds unquoted names, each name once.
/// `tenon query` and `tenon bench --query` register tables this way.
pub(crate) fn register_tables(
    session: &mut Session,
    tables: &[String],
    memory_tables: &[String],
) -> Result<(), CliError> {
    for (option, name, path) in table_specs(tables, memory_tables)? {
        let registered = if option == "--table" {
            session.register_file(&name, path)
        } else {
            session.register_file_in_memory(&name, path)
        };
        registered.map_err(|e| CliError::usage(format!("{option} {name}: {e}")))?;
    }
    Ok(())
}

/// The tables of `--table NAME=PATH` and `--memory-table NAME=PATH` as
/// (option, name, path): names folded to lower case as SQL folds unquoted
/// names, each name once.
fn table_specs<'a>(
    tables: &'a [String],
    memory_tables: &'a [String],
) -> Result<Vec<(&'static str, String, &'a str)>, CliError> {
    let mut seen: Vec<(String, &str)> = Vec::new();
    let mut out = Vec::new();
    let specs = tables
        .iter()
        .map(|s| ("--table", s))
        .chain(memory_tables.iter().map(|s| ("--memory-table", s)));
    for (option, spec) in specs {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(CliError::usage(format!(
                "{option} {spec}: expected NAME=PATH, e.g. {option} orders=data/orders.parquet"
            )));
        };
        // SQL folds unquoted names to lower case: register the name so
        // that `FROM Orders` finds `--table Orders=...`.
        let name = name.trim().to_lowercase();
        if name.is_empty() || path.is_empty() {
            return Err(CliError::usage(format!(
                "{option} {spec}: expected NAME=PATH with a non-empty name and path"
            )));
        }
        if let Some((_, earlier)) = seen.iter().find(|(n, _)| *n == name) {
            return Err(CliError::usage(format!(
                "{option} {spec}: table `{name}` is registered twice (also {earlier}): \
                 give each table its own name"
            )));
        }
        seen.push((name.clone(), spec.as_str()));
        out.push((option, name, path));
    }
    Ok(out)
}

/// The error of writing the output: `None` for a closed pipe (`tenon query
/// ... | head`), which ends quietly with exit 0 as `cat` does.
fn output_error(e: IoError) -> Option<CliError> {
    if e.is_broken_pipe() {
        return None;
    }
    Some(fail(e.into()))
}

/// What the (last) query gives to print.
enum Final {
    /// A plan (EXPLAIN, EXPLAIN ANALYZE).
    Text(String),
    /// A result.
    Rows(QueryOutput),
    /// A script without a query.
    Nothing,
}

/// The output format: `--format`'s, else the one `--output`'s extension
/// names (a Parquet file is not written as a text table by mistake), else
/// the table.
fn output_format(
    format: Option<&str>,
    output: Option<&std::path::Path>,
) -> Result<OutputFormat, CliError> {
    if let Some(f) = format {
        return f
            .parse()
            .map_err(|e| CliError::usage(format!("--format: {e}")));
    }
    let by_extension = output
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .filter(|e| !e.eq_ignore_ascii_case("table"))
        .and_then(|e| e.parse().ok());
    Ok(by_extension.unwrap_or(OutputFormat::Table))
}

pub(crate) fn run(args: QueryArgs) -> Result<(), CliError> {
    let format = output_format(args.format.as_deref(), args.output.as_deref())?;
    if args.sql.is_none() && args.file.is_none() {
        return Err(CliError::usage(
            "no query given: write the SQL as the argument, e.g. \
             tenon query \"SELECT count(*) FROM nation\", or run a script with -f FILE",
        ));
    }
    if args.explain && args.analyze {
        return Err(CliError::usage(
            "--explain and --analyze: choose one (--analyze runs the query and shows the plan)",
        ));
    }
    if args.explain
        && !matches!(
            format,
            OutputFormat::Json | OutputFormat::Ndjson | OutputFormat::Table
        )
    {
        return Err(CliError::usage(format!(
            "--explain prints text or JSON: use --format table or json, not {format}"
        )));
    }
    if args.runs == 0 {
        return Err(CliError::usage("--runs must be at least 1"));
    }
    if let Some(cluster) = &args.cluster {
        return on_cluster(&args, cluster, format);
    }
    let mut session = session(&args)?;
    // Opened before anything runs: a path that cannot be written is
    // reported before the work, and a file's temporary file is removed
    // when the query fails, or on SIGINT or SIGTERM (`signals`).
    let destination = match Destination::open_or_stdout(args.output.as_deref(), format) {
        Ok(d) => d,
        Err(e) => return output_error(e).map_or(Ok(()), Err),
    };
    let result = match (&args.file, &args.sql) {
        (Some(file), _) => run_script(&mut session, file, &args, format)?,
        // one DDL statement (or SET, RESET) runs and prints nothing (a
        // query's empty result would be printed as a table without
        // columns)
        (None, Some(sql))
            if !args.explain
                && !args.analyze
                && parse_statement(sql).is_ok_and(|s| !s.gives_rows()) =>
        {
            session.execute_mut(sql).map_err(fail)?;
            Final::Nothing
        }
        (None, Some(sql)) => run_last(&session, sql, &args, format).map_err(fail)?,
        (None, None) => Final::Nothing,
    };
    let written = match result {
        Final::Text(text) => destination.write_all_and_finish(text.as_bytes()),
        Final::Rows(out) => write_to(&out.batches, &out.schema, format, destination),
        // nothing to print: a file destination is left as it was
        Final::Nothing => Ok(()),
    };
    written.or_else(|e| output_error(e).map_or(Ok(()), Err))
}

/// `tenon query --cluster`: the query on the workers (`cluster`).
#[cfg(feature = "cluster")]
fn on_cluster(args: &QueryArgs, urls: &str, format: OutputFormat) -> Result<(), CliError> {
    let destination = match Destination::open_or_stdout(args.output.as_deref(), format) {
        Ok(d) => d,
        Err(e) => return output_error(e).map_or(Ok(()), Err),
    };
    cluster::run(args, urls, format, destination)
}

/// `tenon query --cluster` in a tenon built without the cluster.
#[cfg(not(feature = "cluster"))]
fn on_cluster(_: &QueryArgs, _: &str, _: OutputFormat) -> Result<(), CliError> {
    Err(CliError::usage(super::WITHOUT_CLUSTER))
}

/// Runs the query whose output is printed, as the options say.
fn run_last(
    session: &Session,
    sql: &str,
    args: &QueryArgs,
    format: OutputFormat,
) -> Result<Final, Error> {
    let json = matches!(format, OutputFormat::Json | OutputFormat::Ndjson);
    if args.explain {
        let explain = session.explain(sql)?;
        return Ok(Final::Text(if json {
            format!("{}\n", explain.to_json())
        } else {
            explain.to_text()
        }));
    }
    if args.analyze {
        let (explain, out) = session.explain_analyze(sql)?;
        if args.timing {
            timing(&out);
        }
        return Ok(Final::Text(if json {
            format!("{}\n", explain.to_json())
        } else {
            explain.to_text()
        }));
    }
    // Planned once, run --runs times.
    let query = session.sql(sql)?;
    let mut elapsed = Vec::with_capacity(args.runs);
    let mut out = query.run()?;
    elapsed.push(out.elapsed);
    for _ in 1..args.runs {
        out = query.run()?;
        elapsed.push(out.elapsed);
    }
    elapsed.sort();
    out.elapsed = elapsed[elapsed.len() / 2];
    if args.timing {
        timing(&out);
    }
    Ok(Final::Rows(out))
}

/// Runs a script: every statement in order; the last query as
/// [`run_last`] runs it (earlier queries run and their rows are dropped;
/// with --explain they are only planned). An error names the file and the
/// statement.
/// The tables the statement or script declares (`CREATE TABLE`): a
/// built-in TPC-H table of the same name (`orders`, say) gives way to it.
/// A script that cannot be read or split says so when it runs.
/// The SQL given with `-f` or on the command line (`None` when neither, or
/// the file cannot be read: running it says why).
fn script_text(args: &QueryArgs) -> Option<String> {
    match (&args.file, &args.sql) {
        (Some(file), _) => std::fs::read_to_string(file).ok(),
        (None, Some(sql)) => Some(sql.clone()),
        (None, None) => None,
    }
}

/// The eight built-in TPC-H tables.
pub(crate) const TPCH_TABLES: [&str; 8] = [
    "customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier",
];

/// Whether the built-in TPC-H tables are registered for `text`: always,
/// unless the script declares tables of its own and names none of the
/// TPC-H tables it does not declare (generating them takes about a second
/// of start-up, mostly tpchgen's text pool, which such a script never
/// reads).
fn uses_builtin_tpch(text: Option<&str>, declared: &[String]) -> bool {
    let Some(text) = text.filter(|_| !declared.is_empty()) else {
        return true;
    };
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| {
            TPCH_TABLES.iter().any(|t| {
                word.eq_ignore_ascii_case(t) && !declared.iter().any(|d| d.eq_ignore_ascii_case(t))
            })
        })
}

/// The tables `text`'s CREATE TABLE statements declare (none when it does
/// not split: planning reports that).
pub(crate) fn declared_tables(text: &str) -> Vec<String> {
    let Ok(statements) = split_statements(text) else {
        return Vec::new();
    };
    statements
        .iter()
        .filter_map(|s| match parse_statement(&s.text) {
            Ok(SqlStatement::CreateTable(t)) => Some(t.name),
            _ => None,
        })
        .collect()
}

fn run_script(
    session: &mut Session,
    file: &Path,
    args: &QueryArgs,
    format: OutputFormat,
) -> Result<Final, CliError> {
    let script = std::fs::read_to_string(file).map_err(|e| {
        CliError::usage(format!(
            "-f {}: cannot read the script: {e}",
            file.display()
        ))
    })?;
    let in_file = |e: Error| CliError {
        code: e.exit_code() as u8,
        message: format!("{}: {e}", file.display()),
    };
    let statements = split_statements(&script).map_err(|e| in_file(e.into()))?;
    let mut kinds = Vec::with_capacity(statements.len());
    for s in &statements {
        let kind = parse_statement(&s.text).map_err(|e| in_file(Error::from(e).in_statement(s)))?;
        kinds.push(kind);
    }
    // the last statement that gives rows (a query, SHOW TABLES, ...) is
    // the script's result
    let last = kinds.iter().rposition(SqlStatement::gives_rows);
    let mut result = Final::Nothing;
    for (i, s) in statements.iter().enumerate() {
        let done = if Some(i) == last {
            run_last(session, &s.text, args, format).map(|r| result = r)
        } else if kinds[i] == SqlStatement::Query && args.explain {
            session.explain(&s.text).map(drop)
        } else {
            session.execute_mut(&s.text).map(drop)
        };
        done.map_err(|e| in_file(e.in_statement(s)))?;
    }
    Ok(result)
}

fn timing(out: &QueryOutput) {
    eprintln!(
        "elapsed_ms={:.3} rows={} reads_files={} peak_memory={} spilled_bytes={}",
        out.elapsed.as_secs_f64() * 1e3,
        out.num_rows(),
        out.reads_files,
        out.peak_memory,
        out.spilled_bytes
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tpch_only_when_the_script_may_read_it() {
        let own = vec!["orders".to_string(), "c".to_string()];
        // no DDL, or no SQL at all: the built-in tables
        assert!(uses_builtin_tpch(Some("SELECT * FROM lineitm"), &[]));
        assert!(uses_builtin_tpch(None, &[]));
        // the script's own tables only
        let script = "CREATE TABLE orders (k INT) WITH (...); SELECT * FROM orders JOIN c";
        assert!(!uses_builtin_tpch(Some(script), &own));
        // a TPC-H table it does not declare, in any case
        let script = "CREATE TABLE orders (k INT) WITH (...); SELECT * FROM orders, LineItem";
        assert!(uses_builtin_tpch(Some(script), &own));
        // part of a longer name is not a mention
        assert!(!uses_builtin_tpch(
            Some("SELECT parts FROM my_nation_x"),
            &own
        ));
        assert_eq!(
            declared_tables(
                "CREATE TABLE Shop (k INT) WITH ('connector' = 'filesystem'); SELECT 1"
            ),
            ["shop"]
        );
    }
}

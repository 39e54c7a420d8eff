//! `tenon query --cluster URL[,URL...]`: the query planned here with
//! tenon's front end and hints, run by tenon's kernels on the workers
//! (`tenon worker`) through DataFusion and datafusion-distributed
//! (tenon-datafusion). This process is the coordinator: it checks the
//! workers, plans, sends the stages and streams the result back.

use std::time::{Duration, Instant};

use tenon::Config;
use tenon::io::{Destination, OutputFormat, write_to};

use tenon_datafusion::cluster::{
    check_workers, coordinator_builder, datafusion_coordinator_builder, explain_failure,
    register_file,
};
use tenon_datafusion::datafusion::common::DataFusionError;
use tenon_datafusion::datafusion::prelude::{SessionConfig, SessionContext};
use tenon_datafusion::{TenonJoinRule, hinted_sql_configured};

use super::{CliError, QueryArgs, output_error, table_specs, thread_and_batch_options};

/// How long each worker has to answer before a query (`cluster.timeout`).
const DEFAULT_WORKER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a worker has to answer after a query failed, to learn whether
/// it is the one that died.
const AFTER_FAILURE_TIMEOUT: Duration = Duration::from_secs(2);

/// The settings of tenon's that mean something on a cluster (the rest
/// are about this process's executor: memory_limit, spilling, fused
/// aggregates, runtime filters, shared subplans, lookups).
const CLUSTER_KEYS: [&str; 6] = [
    "hint_mode",
    "broadcast_threshold",
    "disabled_strategies",
    "join_reorder",
    "threads",
    "batch_size",
];

/// The settings of the cluster: `cluster.*` keys of `--set`.
struct ClusterSettings {
    /// How long each worker has to answer before the query.
    timeout: Duration,
    /// Bytes of a file a task scans (the engine's default when `None`).
    task_bytes: Option<usize>,
    /// DataFusion's own joins instead of tenon's (`cluster.joins`), to
    /// measure tenon's against.
    datafusion_joins: bool,
}

fn refuse(what: &str, why: &str) -> CliError {
    CliError::usage(format!("{what} does not apply with --cluster: {why}"))
}

/// Runs `args`' query on the workers of `cluster`, writing the result (or
/// the plan) to `destination` in `format`.
pub(super) fn run(
    args: &QueryArgs,
    cluster: &str,
    format: OutputFormat,
    destination: Destination,
) -> Result<(), CliError> {
    if args.file.is_some() {
        return Err(refuse(
            "-f",
            "a cluster runs one query: give it as the argument",
        ));
    }
    if !args.memory_tables.is_empty() {
        return Err(refuse(
            "--memory-table",
            "the workers read the tables' files themselves: use --table",
        ));
    }
    if args.analyze {
        return Err(refuse(
            "--analyze",
            "use --explain for the stages, --timing for the time",
        ));
    }
    if args.tables.is_empty() {
        return Err(CliError::usage(
            "--cluster needs --table NAME=PATH for every table the query reads: the workers \
             read the files themselves (the built-in TPC-H tables live in this process; \
             write them with tenon gen tpch --scale 0.01 --out DIR)",
        ));
    }
    let urls = worker_urls(cluster)?;
    let (config, settings) = settings(args)?;
    let sql = args.sql.as_deref().unwrap_or_default();
    if settings.datafusion_joins && sql.contains("/*+") {
        return Err(CliError::usage(
            "--set cluster.joins=datafusion runs DataFusion's own joins, which take no hints: \
             remove the hint block or use tenon's joins",
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::exec(format!("cannot start the coordinator's runtime: {e}")))?;
    let json = matches!(format, OutputFormat::Json | OutputFormat::Ndjson);
    let out = runtime.block_on(async {
        check_workers(&urls, settings.timeout)
            .await
            .map_err(|e| CliError::exec(message(e)))?;
        let ctx = coordinator(&urls, &config, &settings)?;
        for (option, name, path) in table_specs(&args.tables, &[])? {
            register_file(&ctx, &name, path)
                .await
                .map_err(|e| CliError::usage(format!("{option} {name}: {}", message(e))))?;
        }
        let plan = || async {
            if settings.datafusion_joins {
                let df = ctx
                    .sql(sql)
                    .await
                    .map_err(|e| CliError::usage(message(e)))?;
                return Ok((df, Vec::new()));
            }
            hinted_sql_configured(&ctx, sql, TenonJoinRule::new(), &config)
                .await
                .map_err(|e| CliError::usage(message(e)))
        };
        if args.explain {
            let (df, decisions) = plan().await?;
            let physical = df
                .create_physical_plan()
                .await
                .map_err(|e| CliError::exec(message(e)))?;
            let stages = tenon_datafusion::datafusion_distributed::display_plan_ascii(
                physical.as_ref(),
                false,
            );
            let joins = if settings.datafusion_joins {
                Joins::DataFusion
            } else {
                Joins::Tenon(&decisions)
            };
            return Ok(Output::Text(explain_text(joins, &stages, json)));
        }
        let mut elapsed = Vec::with_capacity(args.runs);
        let mut result = None;
        for _ in 0..args.runs {
            let (df, _) = plan().await?;
            let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
            let started = Instant::now();
            let batches = match df.collect().await {
                Ok(b) => b,
                Err(e) => {
                    let e = explain_failure(&urls, e, AFTER_FAILURE_TIMEOUT).await;
                    return Err(CliError::exec(format!(
                        "the query failed on the cluster: {}",
                        message(e)
                    )));
                }
            };
            elapsed.push(started.elapsed());
            result = Some((schema, batches));
        }
        let (schema, batches) = result.expect("--runs is at least 1");
        if args.timing {
            elapsed.sort();
            let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
            eprintln!(
                "elapsed_ms={:.3} rows={rows} workers={}",
                elapsed[elapsed.len() / 2].as_secs_f64() * 1e3,
                urls.len()
            );
        }
        // the batches' schema: DataFusion's logical schema may differ in
        // nullability from what the plan produced
        let schema = batches.first().map(|b| b.schema()).unwrap_or(schema);
        Ok(Output::Rows(schema, batches))
    })?;
    // the runtime's threads end before the output is written
    drop(runtime);
    let written = match out {
        Output::Text(text) => destination.write_all_and_finish(text.as_bytes()),
        Output::Rows(schema, batches) => write_to(&batches, &schema, format, destination),
    };
    written.or_else(|e| output_error(e).map_or(Ok(()), Err))
}

/// What a query on the cluster gives to print.
enum Output {
    /// EXPLAIN's text.
    Text(String),
    /// The result.
    Rows(
        tenon_datafusion::datafusion::arrow::datatypes::SchemaRef,
        Vec<tenon_datafusion::datafusion::arrow::array::RecordBatch>,
    ),
}

/// A DataFusion error in tenon's words: its message without the kind's
/// prefix where the message is tenon's own.
fn message(e: DataFusionError) -> String {
    match e {
        DataFusionError::Configuration(m) | DataFusionError::Execution(m) => m,
        DataFusionError::Plan(m) => m.strip_prefix("tenon: ").unwrap_or(&m).to_string(),
        DataFusionError::Context(c, inner) => format!("{c}: {}", message(*inner)),
        other => other.strip_backtrace(),
    }
}

/// The workers' URLs of `--cluster` (`host:port` gets `http://`).
fn worker_urls(cluster: &str) -> Result<Vec<String>, CliError> {
    let urls: Vec<String> = cluster
        .split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(|u| {
            if u.contains("://") {
                u.to_string()
            } else {
                format!("http://{u}")
            }
        })
        .collect();
    if urls.is_empty() {
        return Err(CliError::usage(
            "--cluster: no worker given: write the workers as \
             --cluster 127.0.0.1:50051,127.0.0.1:50052",
        ));
    }
    Ok(urls)
}

/// tenon's settings for planning and the cluster's own from `--set`,
/// `--threads` and `--batch-size`; a setting about this process's
/// executor is refused.
fn settings(args: &QueryArgs) -> Result<(Config, ClusterSettings), CliError> {
    let mut config = Config::default();
    let mut cluster = ClusterSettings {
        timeout: DEFAULT_WORKER_TIMEOUT,
        task_bytes: None,
        datafusion_joins: false,
    };
    for pair in &args.settings {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(CliError::usage(format!("--set {pair}: expected KEY=VALUE")));
        };
        let key = key.trim().to_ascii_lowercase();
        let bad = |why: &str| CliError::usage(format!("--set {pair}: {why}"));
        // Flink's name of a setting as tenon's
        let canonical = Config::canonical_key(&key).unwrap_or(key.as_str());
        match canonical {
            "cluster.timeout" => {
                let seconds: f64 = value
                    .trim()
                    .trim_end_matches('s')
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                    .ok_or_else(|| bad("expected seconds between 0 and 3600, e.g. 10s"))?;
                cluster.timeout = Duration::from_secs_f64(seconds);
            }
            "cluster.task_bytes" => {
                let bytes = tenon::planner::config::parse_bytes(value)
                    .map_err(|w| bad(&w))?
                    .max(1);
                cluster.task_bytes = Some(usize::try_from(bytes).unwrap_or(usize::MAX));
            }
            "cluster.joins" => match value.trim().to_ascii_lowercase().as_str() {
                "tenon" => cluster.datafusion_joins = false,
                "datafusion" => cluster.datafusion_joins = true,
                _ => return Err(bad("expected tenon (the default) or datafusion")),
            },
            k if CLUSTER_KEYS.contains(&k) => {
                config.set(&key, value).map_err(|e| bad(&e.to_string()))?;
            }
            k if Config::KEYS.contains(&k) => {
                return Err(refuse(
                    &format!("--set {k}"),
                    "it sets this process's executor; on a cluster the settings are hint_mode, \
                     broadcast_threshold, disabled_strategies, join_reorder, threads (partitions \
                     a task runs), batch_size, cluster.timeout, cluster.task_bytes and cluster.joins",
                ));
            }
            _ => {
                // the unknown key's message, which lists the keys
                config.set(&key, value).map_err(|e| bad(&e.to_string()))?;
            }
        }
    }
    thread_and_batch_options(&mut config, args.threads, args.batch_size)?;
    Ok((config, cluster))
}

/// The coordinator's session: tenon's rule, the workers, the settings.
fn coordinator(
    urls: &[String],
    config: &Config,
    settings: &ClusterSettings,
) -> Result<SessionContext, CliError> {
    let partitions = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    };
    let session = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_batch_size(config.batch_size);
    let builder = if settings.datafusion_joins {
        datafusion_coordinator_builder(session, urls)
    } else {
        coordinator_builder(session, TenonJoinRule::new(), urls)
    };
    let mut builder = builder.map_err(|e| CliError::usage(format!("--cluster: {}", message(e))))?;
    if let Some(bytes) = settings.task_bytes {
        use tenon_datafusion::datafusion_distributed::DistributedExt;
        builder = builder
            .with_distributed_file_scan_config_bytes_per_partition(bytes)
            .map_err(|e| CliError::usage(format!("--set cluster.task_bytes: {}", message(e))))?;
    }
    Ok(SessionContext::from(builder.build()))
}

/// Whose joins a cluster runs.
enum Joins<'a> {
    /// tenon's, as decided.
    Tenon(&'a [tenon_datafusion::JoinDecision]),
    /// DataFusion's own (`cluster.joins=datafusion`).
    DataFusion,
}

/// EXPLAIN on a cluster: tenon's decision for each join, then the stages
/// and the exchanges between them.
fn explain_text(joins: Joins<'_>, stages: &str, json: bool) -> String {
    let Joins::Tenon(decisions) = joins else {
        return if json {
            format!(
                "{}\n",
                serde_json::json!({ "joins": "datafusion", "stages": stages })
            )
        } else {
            format!(
                "Joins: DataFusion's own (cluster.joins=datafusion)\n\nStages on the cluster:\n{stages}\n"
            )
        };
    };
    if json {
        let joins: Vec<_> = decisions
            .iter()
            .map(|d| {
                serde_json::json!({
                    "strategy": if d.hinted { d.strategy.to_string() } else { "DATAFUSION".into() },
                    "build_side": d.build_side.map(|s| format!("{s:?}").to_lowercase()),
                    "keys": d.keys.iter().map(|(l, r)| format!("{l} = {r}")).collect::<Vec<_>>(),
                    "reason": d.reason,
                })
            })
            .collect();
        return format!(
            "{}\n",
            serde_json::json!({ "joins": joins, "stages": stages })
        );
    }
    let mut text = String::from("Joins (tenon's decisions):\n");
    if decisions.is_empty() {
        text.push_str("  (none)\n");
    }
    for d in decisions {
        let keys: Vec<_> = d.keys.iter().map(|(l, r)| format!("{l} = {r}")).collect();
        let strategy = if d.hinted {
            d.strategy.to_string()
        } else {
            "DataFusion's choice".to_string()
        };
        text.push_str(&format!(
            "  {strategy} on {} ({})\n",
            keys.join(" AND "),
            d.reason
        ));
    }
    text.push_str("\nStages on the cluster:\n");
    text.push_str(stages);
    if !stages.ends_with('\n') {
        text.push('\n');
    }
    text
}

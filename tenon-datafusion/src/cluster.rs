//! tenon's joins on a cluster of datafusion-distributed workers (the
//! `cluster` feature): a worker that decodes tenon's nodes ([`serve_worker`],
//! the `tenon-worker` binary), and a coordinator session whose plans run
//! on the workers with tenon's rule, codec and the engine's broadcast
//! exchange ([`coordinator_state`]).
//!
//! The coordinator is the process that plans the query (`tenon query
//! --cluster`, or a program with [`coordinator_state`]): the engine has no
//! scheduler process of its own, and the coordinator streams each stage's
//! output from the workers that ran it.
//!
//! Workers bind to 127.0.0.1 unless told another address: a worker runs
//! any plan it is sent, so exposing one beyond the machine is a decision
//! for its operator, not a default.

use std::net::SocketAddr;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::session_state::SessionState;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::prelude::SessionConfig;
use datafusion_distributed::grpc::{BoxCloneSyncChannel, create_worker_client};
use datafusion_distributed::{
    BroadcastExec, DistributedExt, GetWorkerInfoRequest, SessionStateBuilderExt, Worker,
    WorkerQueryContext, WorkerResolver,
};
use url::Url;

use crate::{
    BroadcastExchange, TENON_VERSION, TenonCodec, TenonJoinRule, physical_optimizer_rules,
};

/// The workers' addresses, as given.
#[derive(Debug, Clone)]
struct Workers(Vec<Url>);

#[async_trait]
impl WorkerResolver for Workers {
    fn get_urls(&self) -> Result<Vec<Url>, DataFusionError> {
        Ok(self.0.clone())
    }
}

/// `rule` with the engine's broadcast exchange around every BROADCAST's
/// build side (a task would otherwise build only its share of it).
pub fn distributed_rule(rule: TenonJoinRule) -> TenonJoinRule {
    rule.with_broadcast_exchange(broadcast_exchange())
}

/// The engine's broadcast exchange: every task of the join's stage reads
/// the whole build side.
fn broadcast_exchange() -> BroadcastExchange {
    BroadcastExchange(Arc::new(|build| {
        Arc::new(CoalescePartitionsExec::new(Arc::new(BroadcastExec::new(
            build, 1,
        ))))
    }))
}

/// A coordinator's session: DataFusion's defaults, tenon's joins
/// ([`distributed_rule`] of `rule`), and the distributed planner sending
/// its stages to `workers` (`http://host:port`) with tenon's codec.
/// [`crate::hinted_sql`] on it takes the broadcast exchange from the session.
///
/// # Errors
///
/// A worker address that is not a URL.
pub fn coordinator_state(
    config: SessionConfig,
    rule: TenonJoinRule,
    workers: &[String],
) -> datafusion::common::Result<SessionState> {
    Ok(coordinator_builder(config, rule, workers)?.build())
}

/// [`coordinator_state`]'s builder, for settings of the distributed
/// planner's own (e.g. how many bytes of a file make a task:
/// `with_distributed_file_scan_config_bytes_per_partition`).
///
/// # Errors
///
/// A worker address that is not a URL.
pub fn coordinator_builder(
    config: SessionConfig,
    rule: TenonJoinRule,
    workers: &[String],
) -> datafusion::common::Result<SessionStateBuilder> {
    let exchange = broadcast_exchange();
    // hinted_sql takes the exchange from the config (its rule replaces this one)
    let config = config.with_extension(Arc::new(exchange.clone()));
    Ok(
        distributed_builder(config, workers)?.with_physical_optimizer_rules(
            physical_optimizer_rules(rule.with_broadcast_exchange(exchange)),
        ),
    )
}

/// A coordinator's session with DataFusion's own joins on the same
/// workers: what tenon's joins are measured against.
///
/// # Errors
///
/// A worker address that is not a URL.
pub fn datafusion_coordinator_builder(
    config: SessionConfig,
    workers: &[String],
) -> datafusion::common::Result<SessionStateBuilder> {
    distributed_builder(config, workers)
}

/// `config`, DataFusion's defaults and the distributed planner on
/// `workers` with tenon's codec (the engine keeps its settings in the
/// config, so the config comes first).
fn distributed_builder(
    config: SessionConfig,
    workers: &[String],
) -> datafusion::common::Result<SessionStateBuilder> {
    let urls = workers
        .iter()
        .map(|w| {
            Url::parse(w).map_err(|e| {
                DataFusionError::Configuration(format!(
                    "the worker address {w:?} is not a URL ({e}); write it as http://host:port"
                ))
            })
        })
        .collect::<datafusion::common::Result<Vec<_>>>()?;
    Ok(SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .with_distributed_worker_resolver(Workers(urls))
        .with_distributed_planner()
        .with_distributed_user_codec(TenonCodec))
}

/// Serves a worker on `addr` until the future is dropped: it runs the
/// stages a coordinator sends, decoding tenon's nodes, and reports tenon's
/// version.
///
/// # Errors
///
/// The address cannot be bound, or the server fails.
pub async fn serve_worker(addr: SocketAddr) -> Result<(), tonic::transport::Error> {
    let worker = Worker::from_session_builder(|ctx: WorkerQueryContext| async move {
        Ok(ctx.builder.with_distributed_user_codec(TenonCodec).build())
    })
    .with_version(TENON_VERSION);
    tonic::transport::Server::builder()
        .add_service(worker.into_worker_server())
        .serve(addr)
        .await
}

/// Checks that every worker answers within `wait` and runs this tenon
/// version: a coordinator should call it before planning on `workers`.
///
/// # Errors
///
/// A configuration error naming the first worker that is not a URL, does
/// not answer (and after how long), or runs another tenon version (both
/// versions named).
pub async fn check_workers(
    workers: &[String],
    wait: std::time::Duration,
) -> datafusion::common::Result<()> {
    for w in workers {
        check_worker(w, wait)
            .await
            .map_err(DataFusionError::Configuration)?;
    }
    Ok(())
}

/// Why the worker at `w` cannot take a query, if it cannot: it does not
/// answer within `wait`, cannot be reached, or runs another tenon version.
async fn check_worker(w: &str, wait: std::time::Duration) -> Result<(), String> {
    use std::time::Instant;
    let started = Instant::now();
    let failed = |what: String| {
        format!(
            "the tenon worker at {w} {what} (after {:.1} s)",
            started.elapsed().as_secs_f64()
        )
    };
    let endpoint = tonic::transport::Endpoint::from_shared(w.to_string())
        .map_err(|e| failed(format!("is not a URL ({e}); write it as http://host:port")))?
        .connect_timeout(wait)
        .timeout(wait);
    let channel = match tokio::time::timeout(wait, endpoint.connect()).await {
        Err(_) => return Err(failed("did not answer".into())),
        Ok(Err(e)) => return Err(failed(format!("cannot be reached: {e}"))),
        Ok(Ok(c)) => c,
    };
    let mut client = create_worker_client(BoxCloneSyncChannel::new(channel));
    let info =
        match tokio::time::timeout(wait, client.get_worker_info(GetWorkerInfoRequest {})).await {
            Err(_) => return Err(failed("did not answer".into())),
            Ok(Err(e)) if e.to_string().contains("Timeout expired") => {
                return Err(failed("did not answer".into()));
            }
            Ok(Err(e)) => return Err(failed(format!("did not say its version: {e}"))),
            Ok(Ok(info)) => info,
        };
    if info.version != TENON_VERSION {
        return Err(failed(format!(
            "runs tenon {:?}, and this is tenon {TENON_VERSION}: run the same tenon version \
             on the coordinator and every worker",
            info.version
        )));
    }
    Ok(())
}

/// Registers the file or directory `path` in `ctx` as table `name`, read
/// by DataFusion's reader of its format (by extension: `.parquet`, `.csv`
/// with a header, `.json`/`.ndjson`/`.jsonl` as one object a line (a
/// `.json` file may also be one array of objects),
/// `.arrow`/`.ipc`/`.feather`; a directory by its files' extension). On a
/// cluster every worker reads the path itself, so it must name the same
/// data on each host (a shared or copied directory).
///
/// # Errors
///
/// A path that does not exist, a format the extension does not name, or
/// DataFusion's error reading the schema.
pub async fn register_file(
    ctx: &datafusion::prelude::SessionContext,
    name: &str,
    path: &str,
) -> datafusion::common::Result<()> {
    use datafusion::datasource::file_format::options::{ArrowReadOptions, JsonReadOptions};
    use datafusion::prelude::{CsvReadOptions, ParquetReadOptions};
    let fs_path = std::path::Path::new(path);
    let meta = std::fs::metadata(fs_path).map_err(|e| {
        DataFusionError::Configuration(format!("table {name}: cannot read {path}: {e}"))
    })?;
    let extension = |p: &std::path::Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
    };
    let ext = if meta.is_dir() {
        let mut found = None;
        for entry in std::fs::read_dir(fs_path)? {
            let p = entry?.path();
            if p.is_file()
                && let Some(e) = extension(&p)
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.'))
            {
                found = Some(e);
                break;
            }
        }
        found
    } else {
        extension(fs_path)
    };
    // a directory's files of that extension
    let dotted = ext.as_deref().map(|e| format!(".{e}")).unwrap_or_default();
    match ext.as_deref() {
        Some("parquet") => {
            ctx.register_parquet(
                name,
                path,
                ParquetReadOptions::default().file_extension(&dotted),
            )
            .await
        }
        Some("csv") => {
            ctx.register_csv(name, path, CsvReadOptions::new().file_extension(&dotted))
                .await
        }
        Some(e @ ("json" | "ndjson" | "jsonl")) => {
            // a .json file may be one array of objects
            let array = e == "json"
                && meta.is_file()
                && std::fs::read(fs_path).is_ok_and(|bytes| {
                    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
                });
            ctx.register_json(
                name,
                path,
                JsonReadOptions {
                    file_extension: &dotted,
                    newline_delimited: !array,
                    ..Default::default()
                },
            )
            .await
        }
        Some("arrow" | "ipc" | "feather") => {
            ctx.register_arrow(
                name,
                path,
                ArrowReadOptions {
                    file_extension: &dotted,
                    ..Default::default()
                },
            )
            .await
        }
        other => Err(DataFusionError::Configuration(format!(
            "table {name}: {path} is {}: a cluster reads .parquet, .csv, .json/.ndjson/.jsonl \
             and .arrow/.ipc/.feather files (or a directory of them)",
            match other {
                Some(e) => format!("a .{e} file"),
                None if meta.is_dir() => "a directory without files".to_string(),
                None => "a file without an extension".to_string(),
            }
        ))),
    }
}

/// `error`, a query's failure on `workers`, in words that say what to do:
/// the workers that no longer answer (within `wait` each) are named first
/// (the engine's own error for a worker that died mid-query is a broken
/// stream that need not say which worker it was), and a worker that could
/// not decode a node of tenon's (a stock worker of the engine, without
/// tenon's codec, reports only that a codec is missing) is told so, with
/// the node's name.
pub async fn explain_failure(
    workers: &[String],
    error: DataFusionError,
    wait: std::time::Duration,
) -> DataFusionError {
    let text = error.strip_backtrace();
    if text.contains(MISSING_CODEC) {
        return DataFusionError::Execution(format!(
            "a worker could not decode tenon's plan node TenonJoinExec: every worker must be \
             `tenon worker` (or serve_worker) of tenon {TENON_VERSION}; a stock worker of the \
             distributed engine knows no tenon node (the worker said: {})",
            text.lines().next().unwrap_or_default()
        ));
    }
    let mut gone = Vec::new();
    for w in workers {
        if let Err(e) = check_worker(w, wait).await {
            gone.push(e);
        }
    }
    if gone.is_empty() {
        return error;
    }
    DataFusionError::Execution(format!(
        "{}; the query failed with: {text}",
        gone.join("; ")
    ))
}

/// What datafusion-proto says when a plan holds an extension node no
/// codec of the worker's decodes.
const MISSING_CODEC: &str = "Can't find required codec in codec list";

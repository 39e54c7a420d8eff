//! tenon's joins on a cluster of datafusion-distributed workers (the
//! `cluster` feature): a worker that decodes tenon's nodes ([`serve_worker`],
//! the `tenon-worker` binary), and a coordinator session whose plans run
//! on the workers with tenon's rule, codec and the engine's broadcast
//! exchange ([`coordinator_state`]).
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
    rule.with_broadcast_exchange(BroadcastExchange(Arc::new(|build| {
        Arc::new(CoalescePartitionsExec::new(Arc::new(BroadcastExec::new(
            build, 1,
        ))))
    })))
}

/// A coordinator's session: DataFusion's defaults, tenon's joins
/// ([`distributed_rule`] of `rule`), and the distributed planner sending
/// its stages to `workers` (`http://host:port`) with tenon's codec.
/// Use the same rule with [`crate::hinted_sql_with`] for hinted queries.
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
        .with_physical_optimizer_rules(physical_optimizer_rules(distributed_rule(rule)))
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
    use std::time::Instant;
    for w in workers {
        let started = Instant::now();
        let failed = |what: String| {
            DataFusionError::Configuration(format!(
                "the tenon worker at {w} {what} (after {:.1} s)",
                started.elapsed().as_secs_f64()
            ))
        };
        let endpoint = tonic::transport::Endpoint::from_shared(w.clone())
            .map_err(|e| failed(format!("is not a URL ({e}); write it as http://host:port")))?
            .connect_timeout(wait)
            .timeout(wait);
        let channel = match tokio::time::timeout(wait, endpoint.connect()).await {
            Err(_) => return Err(failed("did not answer".into())),
            Ok(Err(e)) => return Err(failed(format!("cannot be reached: {e}"))),
            Ok(Ok(c)) => c,
        };
        let mut client = create_worker_client(BoxCloneSyncChannel::new(channel));
        let info = match tokio::time::timeout(wait, client.get_worker_info(GetWorkerInfoRequest {}))
            .await
        {
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
    }
    Ok(())
}

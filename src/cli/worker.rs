//! `tenon worker`: a worker of a tenon cluster. It runs the stages a
//! coordinator (`tenon query --cluster`) sends, with tenon's join kernels,
//! until it is stopped (SIGINT, SIGTERM).

use clap::Args;

use super::CliError;

/// Options of `tenon worker`.
#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// The port to listen on.
    #[arg(long, default_value_t = 50051)]
    port: u16,
    /// The address to listen on. A worker runs any plan a coordinator
    /// sends it, so it listens on the loopback address unless told
    /// otherwise (e.g. --bind 0.0.0.0 on a private network).
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    bind: std::net::IpAddr,
}

/// Serves until stopped.
#[cfg(feature = "cluster")]
pub(crate) fn run(args: WorkerArgs) -> Result<(), CliError> {
    let addr = std::net::SocketAddr::new(args.bind, args.port);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::exec(format!("cannot start the worker's runtime: {e}")))?;
    eprintln!(
        "tenon worker {} starting on {addr}",
        tenon_datafusion::TENON_VERSION
    );
    runtime
        .block_on(tenon_datafusion::cluster::serve_worker(addr))
        .map_err(|e| {
            let why =
                std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
            CliError::exec(format!("the worker cannot serve on {addr}: {why}"))
        })
}

/// `tenon worker` in a tenon built without the cluster.
#[cfg(not(feature = "cluster"))]
pub(crate) fn run(_: WorkerArgs) -> Result<(), CliError> {
    Err(CliError::usage(super::WITHOUT_CLUSTER))
}

//! `tenon-worker`: a worker of a tenon cluster (the `cluster` feature of
//! tenon-datafusion): runs the stages a coordinator sends, with tenon's
//! join kernels.
//!
//! ```text
//! tenon-worker [--port PORT] [--bind ADDR]   (default 127.0.0.1:50051)
//! ```

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: tenon-worker [--port PORT] [--bind ADDR] (default 127.0.0.1:50051)");
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut port: u16 = 50051;
    let mut bind = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next();
        match (a.as_str(), value) {
            ("--port", Some(v)) => match v.parse() {
                Ok(p) => port = p,
                Err(_) => {
                    eprintln!("error: --port {v:?} is not a port number (1-65535)");
                    return ExitCode::from(2);
                }
            },
            ("--bind", Some(v)) => match v.parse() {
                Ok(ip) => bind = ip,
                Err(_) => {
                    eprintln!("error: --bind {v:?} is not an IP address");
                    return ExitCode::from(2);
                }
            },
            _ => return usage(),
        }
    }
    let addr = SocketAddr::new(bind, port);
    eprintln!(
        "tenon-worker {} serving on {addr}",
        tenon_datafusion::TENON_VERSION
    );
    match tenon_datafusion::cluster::serve_worker(addr).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: tenon-worker on {addr}: {e}");
            ExitCode::from(1)
        }
    }
}

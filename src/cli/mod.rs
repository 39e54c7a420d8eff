//! Command-line parsing and dispatch.

mod bench;
mod callgrind;
mod embedded;
mod generate;
mod query;
mod shell;
mod signals;
mod worker;

pub use embedded::bench;
use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// tenon: an Arrow-native, vectorized join engine. Without a command, an
/// interactive SQL shell (statements from standard input when it is not a
/// terminal): see `tenon shell --help`.
#[derive(Debug, Parser)]
#[command(name = "tenon", version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The shell's options, for `tenon` without a command.
    #[command(flatten)]
    shell: shell::ShellArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one SQL query with join hints (built-in TPC-H tables unless
    /// --table is given).
    Query(query::QueryArgs),
    /// An interactive SQL shell on one session (also `tenon` alone):
    /// statements ended by `;`, dot commands (.help), history; reads
    /// standard input when it is not a terminal.
    Shell(shell::ShellArgs),
    /// Time the join strategies on the synthetic workloads.
    Bench(bench::BenchArgs),
    /// Write benchmark data (TPC-H tables, synthetic workloads) to files.
    Gen(generate::GenArgs),
    /// Serve as a worker of a cluster: run the stages `tenon query
    /// --cluster` sends (needs a tenon built with `--features cluster`).
    Worker(worker::WorkerArgs),
}

/// The error of `--cluster` and `tenon worker` in a tenon built without
/// the cluster.
#[cfg(not(feature = "cluster"))]
const WITHOUT_CLUSTER: &str = "this tenon was built without the cluster: build it with \
     `cargo build --release --features cluster` (it adds DataFusion's engine and gRPC)";

/// An error the CLI reports: its message and exit code.
#[derive(Debug)]
pub(crate) struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    /// Bad usage or bad input (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// Execution failure (exit code 3).
    pub fn exec(message: impl Into<String>) -> Self {
        CliError {
            code: 3,
            message: message.into(),
        }
    }

    /// A failure with exit code `code` whose messages were already printed
    /// (the shell's, as each statement failed).
    pub fn reported(code: u8) -> Self {
        CliError {
            code,
            message: String::new(),
        }
    }
}

/// Writes `text` to `path` completely or not at all: a regular file is
/// replaced atomically, a device or FIFO written directly
/// ([`tenon::io::Destination`], the one home of that rule).
pub(crate) fn write_text_atomically(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    // The format only names what is written in the library's messages,
    // which are replaced here.
    tenon::io::Destination::open(path, tenon::io::OutputFormat::Json)
        .and_then(|d| d.write_all_and_finish(text.as_bytes()))
        .map_err(|e| {
            let why = match e {
                tenon::io::IoError::Write { message, .. } => message,
                other => other.to_string(),
            };
            CliError::exec(format!("cannot write {}: {why}", path.display()))
        })
}

/// The command line's arguments, with SQL that begins with a `--` comment
/// made unmistakable for clap: an option's name follows `--` at once, so an
/// argument of `--` and a space, tab or newline is SQL (`tenon query "--
/// top nations\nSELECT ..."`), and gets a leading space, which SQL ignores
/// (its first line is the comment, so no position in an error moves).
///
/// sqlite3's `-bail` becomes the shell's `--bail` (clap would read it as
/// `-b -a -i -l`), where the shell takes options: before any other command's
/// name.
fn arguments() -> impl Iterator<Item = std::ffi::OsString> {
    let mut other_command = false;
    std::env::args_os().map(move |arg| match arg.to_str() {
        Some("-bail") if !other_command => "--bail".into(),
        Some(name @ ("query" | "bench" | "gen" | "worker" | "help")) => {
            other_command = true;
            name.into()
        }
        Some(text)
            if text
                .strip_prefix("--")
                .and_then(|rest| rest.chars().next())
                .is_some_and(char::is_whitespace) =>
        {
            format!(" {text}").into()
        }
        _ => arg,
    })
}

/// Runs the command line on the process's arguments: what the `tenon`
/// binary does.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(arguments()) {
        Ok(c) => c,
        Err(e) => {
            if !e.use_stderr() {
                // --help, --version
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // docs/cli.md: errors are `error: ...` lines on stderr.
            for line in e.to_string().lines().filter(|l| !l.trim().is_empty()) {
                match line.strip_prefix("error: ") {
                    Some(rest) => eprintln!("error: {rest}"),
                    None => eprintln!("error: {}", line.trim()),
                }
            }
            return ExitCode::from(2);
        }
    };
    let res = match cli.command {
        // Ctrl-C cancels the shell's query, not the shell: its own handler
        None => shell::run(cli.shell),
        Some(Command::Shell(args)) => shell::run(args),
        Some(Command::Query(args)) => {
            signals::install("the query was cancelled");
            query::run(args)
        }
        Some(Command::Bench(args)) => {
            signals::install("the benchmark was cancelled");
            bench::run(args)
        }
        Some(Command::Gen(args)) => {
            signals::install("writing the data was cancelled");
            generate::run(args)
        }
        Some(Command::Worker(args)) => {
            signals::install("the worker was stopped");
            worker::run(args)
        }
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln!, which panics when stderr is gone.
            let mut err = std::io::stderr().lock();
            for line in e.message.lines() {
                let _ = writeln!(err, "error: {line}");
            }
            ExitCode::from(e.code)
        }
    }
}

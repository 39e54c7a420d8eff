//! Command-line parsing and dispatch.

mod bench;
mod callgrind;
mod generate;
mod query;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// tenon: an Arrow-native, vectorized join engine.
#[derive(Debug, Parser)]
#[command(name = "tenon", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one SQL query with join hints (built-in TPC-H tables unless
    /// --table is given).
    Query(query::QueryArgs),
    /// Time the join strategies on the synthetic workloads.
    Bench(bench::BenchArgs),
    /// Write benchmark data (TPC-H tables, synthetic workloads) to files.
    Gen(generate::GenArgs),
}

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
}

/// Writes `text` to `path` completely or not at all (a temporary file in
/// the same directory, then renamed).
pub(crate) fn write_text_atomically(path: &std::path::Path, text: &str) -> Result<(), CliError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = path.with_file_name(format!(".{name}.tenon-tmp-{}", std::process::id()));
    let result = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(CliError::exec(format!(
            "cannot write {}: {e}; check that the directory exists and is writable",
            path.display()
        )));
    }
    Ok(())
}

pub(crate) fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            if !e.use_stderr() {
                // --help, --version
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // CLI.md: errors are `error: ...` lines on stderr.
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
        Command::Query(args) => query::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Gen(args) => generate::run(args),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            for line in e.message.lines() {
                eprintln!("error: {line}");
            }
            ExitCode::from(e.code)
        }
    }
}

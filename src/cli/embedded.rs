//! The command line's subcommands for a program that embeds tenon (the
//! Python package's `tenon.bench()`): the same options, checks, runs and
//! report files as on the command line, without the process-wide signal
//! handlers the binary installs (a Ctrl-C there exits the process).

use clap::Parser;

/// `tenon bench`'s options alone.
#[derive(Debug, Parser)]
#[command(name = "tenon bench", no_binary_name = true)]
struct BenchOnly {
    #[command(flatten)]
    args: super::bench::BenchArgs,
}

/// Runs `tenon bench` with `args`, the arguments that follow `bench` on
/// the command line (`["--workload", "fk_small", "--json", "out.json"]`):
/// its table goes to stdout, its report to `--json`'s file.
///
/// # Errors
///
/// The exit code `tenon bench` would give (2 for bad options or input, 3
/// for a failed run, 1 for a regression past `--max-regression`) and its
/// message.
pub fn bench<I, S>(args: I) -> Result<(), (u8, String)>
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let parsed = BenchOnly::try_parse_from(args).map_err(|e| {
        let text = e.to_string();
        let message = text
            .lines()
            .map(|l| l.strip_prefix("error: ").unwrap_or(l).trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        (2, message)
    })?;
    super::bench::run(parsed.args).map_err(|e| (e.code, e.message))
}

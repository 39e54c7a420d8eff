//! `tenon shell` (and `tenon` with no command): an interactive SQL shell on
//! one [`Session`], as sqlite3 and duckdb have (docs/cli.md, "Shell").
//!
//! On a terminal, lines are read with a line editor (rustyline: editing,
//! history recall, a history file kept across sessions); from a pipe or
//! file, they are read as they come. Either way the lines go through one
//! path: a [`StatementBuffer`] gathers them into dot commands (`.tables`,
//! `.mode csv`, ...) and complete SQL statements (ended by a `;` outside
//! quotes and comments), which run in order on the session, so that DDL and
//! views persist for the whole shell.
//!
//! Ctrl-C while a query runs cancels that query and returns to the prompt:
//! the terminal is in cooked mode then, so Ctrl-C is SIGINT, which sets a
//! flag ([`signal_hook::flag`]) that the running query polls
//! ([`execute`]). At the prompt the line editor reads Ctrl-C as a key and
//! clears the line. A shell fed from a pipe stops at a SIGINT (exit 130).

mod dot;
mod execute;
mod output;
mod pipe;
mod statements;
mod terminal;

use std::io::{IsTerminal as _, Write as _};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use tenon::Session;
use tenon::io::OutputFormat;

use super::CliError;
use super::query::{BUILTIN_TPCH_SCALE, TPCH_TABLES, fail, options_config, register_tables};
use output::Output;
use pipe::{PipedLine, PipedLines};
use statements::{Chunk, Input, StatementBuffer};
use terminal::{Terminal, TerminalLine};

/// The prompt of a new statement.
const PROMPT: &str = "tenon> ";

/// The prompt of a statement's next line.
const CONTINUATION_PROMPT: &str = "   ...> ";

/// The exit code of a shell that SIGINT stopped (128 + 2, as shells report
/// it; also [`tenon::Error::Cancelled`]'s).
const INTERRUPTED_CODE: u8 = 130;

/// Options of `tenon shell` (also taken by `tenon` with no command).
#[derive(Debug, Args)]
pub(crate) struct ShellArgs {
    /// Register a table (repeatable): NAME=PATH, PATH a .parquet, .csv,
    /// .arrow/.ipc/.feather, .json/.ndjson file or a directory of such
    /// files, read by each query as `tenon query --table` does. Without
    /// any --table or --memory-table, the TPC-H tables at scale 0.01 are
    /// built in.
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// Register a table held in memory (repeatable): NAME=PATH as for
    /// --table, read once when the shell starts.
    #[arg(long = "memory-table", value_name = "NAME=PATH")]
    memory_tables: Vec<String>,
    /// Worker threads, 0 to 1024 (default 0: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Rows per batch, 1 to 1048576 (default 8192).
    #[arg(long)]
    batch_size: Option<usize>,
    /// A setting KEY=VALUE (repeatable), as `tenon query --set`; `.set
    /// KEY=VALUE` changes one in the shell.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    settings: Vec<String>,
    /// Stop at the first statement or dot command that fails, with its
    /// exit code (also `-bail`, as sqlite3 spells it).
    #[arg(long)]
    bail: bool,
}

/// What the shell does after a statement, a dot command or a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    /// Go on with the next input.
    Next,
    /// `.quit` or `.exit`, or stdout closed: end the shell.
    Quit,
    /// Ctrl-C stopped a statement: the rest of this input (the line's other
    /// statements, the rest of a `.read` file) is dropped.
    Interrupted,
    /// `--bail`: a statement failed with this exit code; end the shell.
    Bail(u8),
}

/// Where a line came from, for the context of its errors: a person at
/// the terminal sees the statement they typed; a script's errors name
/// the statement and line (and the `.read` file), as `tenon query -f`'s do.
#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    /// Typed at the terminal.
    Terminal,
    /// Standard input, not a terminal.
    Pipe,
    /// A `.read` file.
    File(&'a Path),
}

/// The shell's state: the session and the dot commands' settings.
struct Shell {
    /// The one session of the whole shell: tables, views, settings.
    session: Session,
    /// `.mode`: how results are written.
    mode: OutputFormat,
    /// `.output`: where results are written.
    output: Output,
    /// `.timer`: print each statement's run time.
    timer: bool,
    /// `.explain`: print each query's joins before its rows.
    explain: bool,
    /// `--bail`: stop at the first failure.
    bail: bool,
    /// Set by SIGINT (Ctrl-C while a query runs).
    interrupted: Arc<AtomicBool>,
    /// The built-in TPC-H tables not dropped or replaced yet: a `CREATE
    /// TABLE` of one of their names replaces the built-in table, as in
    /// `tenon query`.
    builtin: Vec<String>,
    /// The exit code of the first failure (a shell fed from a pipe exits
    /// with it).
    failure: Option<u8>,
    /// How many `.read` files are being read, one inside the other.
    read_depth: usize,
}

/// Runs the shell: interactive when standard input is a terminal, else
/// reading statements from standard input to its end.
pub(crate) fn run(args: ShellArgs) -> Result<(), CliError> {
    let interactive = std::io::stdin().is_terminal();
    let interrupted = Arc::new(AtomicBool::new(false));
    if let Err(e) =
        signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&interrupted))
    {
        warn(&format!(
            "Ctrl-C cannot cancel queries in this shell ({e}): it ends the shell"
        ));
    }
    let mut shell = Shell::new(&args, interrupted)?;
    let terminal = match interactive.then(Terminal::open) {
        Some(Ok(terminal)) => Some(terminal),
        Some(Err(why)) => {
            warn(&format!(
                "the line editor cannot start ({why}): statements are read without it"
            ));
            None
        }
        None => None,
    };
    let flow = match terminal {
        Some(mut terminal) => {
            say(&format!(
                "tenon {}: end each statement with `;`; .help for the shell's commands, \
                 Ctrl-D to leave",
                env!("CARGO_PKG_VERSION")
            ));
            shell.interactive(&mut terminal)
        }
        None => shell.piped(),
    };
    shell.close(flow, interactive)
}

impl Shell {
    /// The session of `args`, with its tables (the built-in TPC-H tables
    /// when `args` names none).
    fn new(args: &ShellArgs, interrupted: Arc<AtomicBool>) -> Result<Shell, CliError> {
        let config = options_config(&args.settings, args.threads, args.batch_size)?;
        let mut session = Session::new(config).map_err(fail)?;
        let mut builtin = Vec::new();
        if args.tables.is_empty() && args.memory_tables.is_empty() {
            session.register_tpch(BUILTIN_TPCH_SCALE).map_err(fail)?;
            builtin = TPCH_TABLES.iter().map(|t| t.to_string()).collect();
        }
        register_tables(&mut session, &args.tables, &args.memory_tables)?;
        Ok(Shell {
            session,
            mode: OutputFormat::Table,
            output: Output::stdout(),
            timer: false,
            explain: false,
            bail: args.bail,
            interrupted,
            builtin,
            failure: None,
            read_depth: 0,
        })
    }

    /// Reads lines from the terminal until Ctrl-D, `.quit` or a bail.
    fn interactive(&mut self, terminal: &mut Terminal) -> Flow {
        let mut buffer = StatementBuffer::new(false);
        loop {
            let prompt = if buffer.is_empty() {
                PROMPT
            } else {
                CONTINUATION_PROMPT
            };
            let line = terminal.read(prompt);
            // A Ctrl-C from before this line is not meant for it.
            self.interrupted.store(false, Ordering::SeqCst);
            let input = match line {
                TerminalLine::Text(text) => buffer.push(&text),
                // Ctrl-C at the prompt: the statement being typed is dropped.
                TerminalLine::Interrupted => {
                    buffer.clear();
                    continue;
                }
                // Ctrl-D: the statement being typed runs as if ended.
                TerminalLine::Eof => {
                    return match buffer.finish() {
                        Some(input) => {
                            let flow = self.input(input, Source::Terminal, Some(terminal));
                            if flow == Flow::Interrupted {
                                Flow::Next
                            } else {
                                flow
                            }
                        }
                        None => Flow::Next,
                    };
                }
                // the terminal is gone: an execution failure, whatever --bail
                TerminalLine::Failed(message) => {
                    self.report(3, &format!("cannot read the terminal: {message}"));
                    return Flow::Bail(3);
                }
            };
            match self.input(input, Source::Terminal, Some(terminal)) {
                Flow::Next | Flow::Interrupted => {}
                end => return end,
            }
        }
    }

    /// Reads statements from standard input (not a terminal) to its end.
    fn piped(&mut self) -> Flow {
        let mut lines = PipedLines::start();
        let mut buffer = StatementBuffer::new(true);
        loop {
            let input = match lines.next(&self.interrupted) {
                PipedLine::Text(text) => buffer.push(&text),
                PipedLine::Eof => {
                    return match buffer.finish() {
                        Some(input) => self.input(input, Source::Pipe, None),
                        None => Flow::Next,
                    };
                }
                PipedLine::Interrupted => {
                    let _ = writeln!(
                        std::io::stderr().lock(),
                        "error: the shell was interrupted (SIGINT)"
                    );
                    return Flow::Interrupted;
                }
                PipedLine::Failed(message) => {
                    buffer.skip_line();
                    let flow = self.report(2, &message);
                    if flow == Flow::Next {
                        continue;
                    }
                    return flow;
                }
            };
            match self.input(input, Source::Pipe, None) {
                Flow::Next => {}
                end => return end,
            }
        }
    }

    /// Runs what a line completed: a dot command, or SQL statements (kept in
    /// the terminal's history, when there is one).
    fn input(
        &mut self,
        input: Result<Input, statements::SplitError>,
        source: Source<'_>,
        terminal: Option<&mut Terminal>,
    ) -> Flow {
        let input = match input {
            Ok(input) => input,
            Err(e) => {
                if let Some(t) = terminal {
                    t.remember(&e.typed);
                }
                let error = tenon::Error::from(e.error);
                return self.report_error(error, source, None);
            }
        };
        match input {
            Input::More => Flow::Next,
            Input::Dot { line, at } => {
                if let Some(t) = terminal {
                    t.remember(&line);
                }
                self.dot(&line, at, source)
            }
            Input::Sql(chunk) => {
                if let Some(t) = terminal {
                    t.remember(&chunk.typed);
                }
                self.chunk(&chunk, source)
            }
        }
    }

    /// Runs a chunk's statements in order, until one ends the shell or is
    /// interrupted.
    fn chunk(&mut self, chunk: &Chunk, source: Source<'_>) -> Flow {
        for statement in &chunk.statements {
            if self.interrupted.swap(false, Ordering::SeqCst) {
                return self.report_error(tenon::Error::Cancelled, source, None);
            }
            let flow = match self.statement(&statement.text) {
                Ok(flow) => flow,
                Err(e) => self.report_error(e, source, Some(statement)),
            };
            if flow != Flow::Next {
                return flow;
            }
        }
        Flow::Next
    }

    /// Prints a library error with its context (the statement of a script,
    /// the `.read` file) and notes the failure.
    fn report_error(
        &mut self,
        error: tenon::Error,
        source: Source<'_>,
        statement: Option<&tenon::planner::sql::ScriptStatement>,
    ) -> Flow {
        let code = u8::try_from(error.exit_code()).unwrap_or(3);
        let error = match (source, statement) {
            (Source::Pipe | Source::File(_), Some(s)) => error.in_statement(s),
            _ => error,
        };
        let message = match source {
            Source::File(path) => format!("{}: {error}", path.display()),
            Source::Terminal | Source::Pipe => error.to_string(),
        };
        self.report(code, &message)
    }

    /// Prints `message` as `error:` lines and notes the failure: the shell
    /// goes on, unless `--bail` (or Ctrl-C, code 130) stops it.
    fn report(&mut self, code: u8, message: &str) -> Flow {
        let mut err = std::io::stderr().lock();
        for line in message.lines() {
            let _ = writeln!(err, "error: {line}");
        }
        if code == INTERRUPTED_CODE {
            return Flow::Interrupted;
        }
        self.failure.get_or_insert(code);
        if self.bail {
            Flow::Bail(code)
        } else {
            Flow::Next
        }
    }

    /// Ends the shell: the `.output` file is written (unless a failure
    /// stopped the shell: then it is left as it was), and the exit code is
    /// chosen: a shell fed from a pipe fails with its first failure's code.
    fn close(mut self, flow: Flow, interactive: bool) -> Result<(), CliError> {
        let code = match flow {
            Flow::Bail(code) => Some(code),
            Flow::Interrupted => Some(INTERRUPTED_CODE),
            Flow::Next | Flow::Quit => None,
        };
        if let Some(code) = code {
            self.output.abandon();
            return Err(CliError::reported(code));
        }
        if let Err(e) = self.output.finish() {
            return Err(fail(tenon::Error::from(e)));
        }
        match self.failure {
            Some(code) if !interactive => Err(CliError::reported(code)),
            _ => Ok(()),
        }
    }
}

/// Prints `text` and a line break on stdout (what the shell says: dot
/// commands' answers, plans). A closed stdout is not an error here: the
/// next result written there ends the shell.
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// Prints a `warning:` line on stderr: something did not work, and the
/// shell goes on without it.
fn warn(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}

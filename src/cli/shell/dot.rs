//! The shell's dot commands (sqlite3's and duckdb's): `.tables`,
//! `.schema`, `.mode`, `.output`, `.read`, `.timer`, `.explain`, `.set`,
//! `.help`, `.quit`.

use std::path::{Path, PathBuf};

use tenon::io::OutputFormat;

use super::super::query::fail;
use super::statements::StatementBuffer;
use super::{Flow, Shell, Source, say};

/// The most `.read` files read one inside the other (a file that reads
/// itself stops there).
const MAX_READ_DEPTH: usize = 16;

/// The formats `.mode` takes: the text formats, which one file or
/// terminal can hold one result after another.
const MODES: [OutputFormat; 4] = [
    OutputFormat::Table,
    OutputFormat::Csv,
    OutputFormat::Json,
    OutputFormat::Ndjson,
];

/// `.help`'s text.
const HELP: &str = "\
SQL statements end with `;` (a statement may take several lines). Dot commands:
  .tables              the tables and views
  .schema [NAME]       the columns and types of table or view NAME (or of all)
  .mode [MODE]         how results are printed: table, csv, json or ndjson
  .output [FILE]       write results to FILE (complete when .output changes
                       or the shell ends); without FILE: to stdout again
  .read FILE           run the statements and dot commands of FILE
  .timer on|off        print each statement's run time (on stderr)
  .explain on|off      print each query's joins (strategy, build side, why)
  .set KEY=VALUE       change a setting (docs/cli.md, \"Settings\")
  .help                this text
  .quit, .exit         leave the shell (also Ctrl-D)
Ctrl-C cancels the running query, or clears the line being typed.";

/// A dot command, parsed.
#[derive(Debug, PartialEq)]
enum Dot {
    Tables,
    Schema(Option<String>),
    Mode(Option<OutputFormat>),
    Output(Option<PathBuf>),
    Read(PathBuf),
    Timer(Option<bool>),
    Explain(Option<bool>),
    Set(String, String),
    Help,
    Quit,
}

/// Parses a dot command's line (`.mode csv`).
///
/// # Errors
///
/// An unknown command, or arguments it does not take: what to write.
fn parse(line: &str) -> Result<Dot, String> {
    let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let arg = unquote(rest.trim());
    let none = |dot: Dot| {
        if arg.is_empty() {
            Ok(dot)
        } else {
            Err(format!("{name} takes no argument (got `{arg}`)"))
        }
    };
    match name {
        ".tables" => none(Dot::Tables),
        ".help" => none(Dot::Help),
        ".quit" | ".exit" => none(Dot::Quit),
        // SQL folds unquoted names to lower case; "Name" keeps its case
        ".schema" if rest.trim().starts_with('"') => Ok(Dot::Schema(Some(arg.to_string()))),
        ".schema" => Ok(Dot::Schema((!arg.is_empty()).then(|| arg.to_lowercase()))),
        ".mode" if arg.is_empty() => Ok(Dot::Mode(None)),
        ".mode" => MODES
            .iter()
            .find(|m| m.name().eq_ignore_ascii_case(arg))
            .map(|m| Dot::Mode(Some(*m)))
            .ok_or_else(|| format!("unknown mode `{arg}`: .mode takes table, csv, json or ndjson")),
        ".output" => Ok(Dot::Output((!arg.is_empty()).then(|| PathBuf::from(arg)))),
        ".read" if arg.is_empty() => Err("write the file to read: .read FILE".to_string()),
        ".read" => Ok(Dot::Read(PathBuf::from(arg))),
        ".timer" => on_off(name, arg).map(Dot::Timer),
        ".explain" => on_off(name, arg).map(Dot::Explain),
        ".set" => match arg.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                Ok(Dot::Set(key.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(format!(
                "expected .set KEY=VALUE, e.g. .set memory_limit=2GB (got `{}`)",
                arg
            )),
        },
        _ => Err(format!(
            "unknown dot command `{name}`: .help lists the commands (.tables, .schema, .mode, \
             .output, .read, .timer, .explain, .set, .help, .quit)"
        )),
    }
}

/// `on` or `off` (`None`: no argument, which shows the setting).
fn on_off(name: &str, arg: &str) -> Result<Option<bool>, String> {
    match arg.to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "on" => Ok(Some(true)),
        "off" => Ok(Some(false)),
        _ => Err(format!("{name} takes on or off (got `{arg}`)")),
    }
}

/// An argument without the quotes around it (`'my file.csv'`).
fn unquote(arg: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = arg.strip_prefix(q).and_then(|a| a.strip_suffix(q)) {
            return inner;
        }
    }
    arg
}

/// `on` or `off`.
fn on_off_word(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

impl Shell {
    /// Runs the dot command of `line` (line `at` of `source`).
    pub(super) fn dot(&mut self, line: &str, at: u64, source: Source<'_>) -> Flow {
        let done = match parse(line) {
            Ok(dot) => self.run_dot(dot),
            Err(message) => Err((2, message)),
        };
        match done {
            Ok(flow) => flow,
            Err((code, message)) => {
                let message = match source {
                    Source::Terminal => message,
                    Source::Pipe => format!("line {at}: {message}"),
                    Source::File(path) => format!("{}: line {at}: {message}", path.display()),
                };
                self.report(code, &message)
            }
        }
    }

    /// Runs a parsed dot command; an error is its exit code and message.
    fn run_dot(&mut self, dot: Dot) -> Result<Flow, (u8, String)> {
        let library = |e: tenon::Error| {
            let e = fail(e);
            (e.code, e.message)
        };
        match dot {
            Dot::Tables => self.tables(),
            Dot::Schema(name) => self.schema(name.as_deref()).map_err(library)?,
            Dot::Mode(None) => say(self.mode.name()),
            Dot::Mode(Some(mode)) => self.mode = mode,
            Dot::Output(path) => self
                .output
                .set(path.as_deref(), self.mode)
                .map_err(|e| library(e.into()))?,
            Dot::Read(path) => return self.read(&path),
            Dot::Timer(None) => say(on_off_word(self.timer)),
            Dot::Timer(Some(on)) => self.timer = on,
            Dot::Explain(None) => say(on_off_word(self.explain)),
            Dot::Explain(Some(on)) => self.explain = on,
            Dot::Set(key, value) => self
                .session
                .set(&key, &value)
                .map_err(|e| (2, format!(".set {key}={value}: {e}")))?,
            Dot::Help => say(HELP),
            Dot::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Next)
    }

    /// `.tables`: the tables, then the views (marked), one a line.
    fn tables(&self) {
        let mut lines: Vec<String> = self.session.table_names();
        lines.extend(
            self.session
                .view_names()
                .into_iter()
                .map(|v| format!("{v} (view)")),
        );
        if lines.is_empty() {
            say("no tables: register one with --table NAME=PATH or CREATE TABLE");
        } else {
            say(&lines.join("\n"));
        }
    }

    /// `.schema NAME`: the columns of a table or view, with their types;
    /// without a name, those of every table and view.
    fn schema(&self, name: Option<&str>) -> Result<(), tenon::Error> {
        let names = match name {
            Some(n) => vec![n.to_string()],
            None => {
                let mut all = self.session.table_names();
                all.extend(self.session.view_names());
                all
            }
        };
        let mut text = String::new();
        for name in &names {
            let sql = format!("SELECT * FROM \"{}\"", name.replace('"', "\"\""));
            let schema = self.session.sql(&sql)?.schema();
            let width = schema
                .fields()
                .iter()
                .map(|f| f.name().chars().count())
                .max()
                .unwrap_or(0);
            text.push_str(name);
            text.push('\n');
            for field in schema.fields() {
                let null = if field.is_nullable() { "" } else { " NOT NULL" };
                text.push_str(&format!(
                    "  {:width$}  {}{null}\n",
                    field.name(),
                    field.data_type()
                ));
            }
        }
        say(&text);
        Ok(())
    }

    /// `.read FILE`: its lines run as if typed (statements and dot
    /// commands); its errors name the file, statement and line. Ctrl-C, a
    /// bail or `.quit` stops it.
    fn read(&mut self, path: &Path) -> Result<Flow, (u8, String)> {
        if self.read_depth >= MAX_READ_DEPTH {
            return Err((
                2,
                format!(
                    ".read {}: files read inside each other {MAX_READ_DEPTH} deep (does a file \
                     read itself?)",
                    path.display()
                ),
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            (
                2,
                format!(".read {}: cannot read the file: {e}", path.display()),
            )
        })?;
        self.read_depth += 1;
        let flow = self.read_lines(&text, path);
        self.read_depth -= 1;
        Ok(flow)
    }

    /// The lines of a `.read` file, run in order.
    fn read_lines(&mut self, text: &str, path: &Path) -> Flow {
        let mut buffer = StatementBuffer::new(true);
        let source = Source::File(path);
        for line in text.lines() {
            let flow = self.input(buffer.push(line), source, None);
            if flow != Flow::Next {
                return flow;
            }
        }
        match buffer.finish() {
            Some(input) => self.input(input, source, None),
            None => Flow::Next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_commands_parse_or_say_what_to_write() {
        assert_eq!(parse(".tables"), Ok(Dot::Tables));
        assert_eq!(parse(".mode CSV"), Ok(Dot::Mode(Some(OutputFormat::Csv))));
        assert_eq!(parse(".mode"), Ok(Dot::Mode(None)));
        assert_eq!(
            parse(".output 'my file.csv'"),
            Ok(Dot::Output(Some(PathBuf::from("my file.csv"))))
        );
        assert_eq!(parse(".output"), Ok(Dot::Output(None)));
        assert_eq!(parse(".timer on"), Ok(Dot::Timer(Some(true))));
        assert_eq!(parse(".explain OFF"), Ok(Dot::Explain(Some(false))));
        assert_eq!(
            parse(".set memory_limit = 2GB"),
            Ok(Dot::Set("memory_limit".into(), "2GB".into()))
        );
        assert_eq!(
            parse(".schema Orders"),
            Ok(Dot::Schema(Some("orders".into())))
        );
        assert_eq!(
            parse(".schema \"Orders\""),
            Ok(Dot::Schema(Some("Orders".into())))
        );
        assert_eq!(parse(".exit"), Ok(Dot::Quit));
        let err = |line| parse(line).unwrap_err();
        assert!(err(".frobnicate").starts_with("unknown dot command `.frobnicate`"));
        assert!(err(".mode parquet").contains("table, csv, json or ndjson"));
        assert!(err(".timer maybe").contains("on or off"));
        assert!(err(".set memory_limit").starts_with("expected .set KEY=VALUE"));
        assert!(err(".tables x").contains("takes no argument"));
        assert!(err(".read").contains(".read FILE"));
    }
}

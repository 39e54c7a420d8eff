//! Lines typed at a terminal: rustyline's line editor, and the history
//! file that keeps what was typed across sessions.
//!
//! The history file is `$TENON_HISTORY` when that is set (set and empty:
//! no file), else `~/.tenon_history`. Each statement and dot command goes
//! into the history when it is complete (a statement typed on several
//! lines is one entry, recalled whole by the up arrow), and is appended to
//! the file at once, so that a shell that is killed loses nothing. A file
//! that cannot be read or written is a warning: the history is then kept
//! for the session only.

use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::{Config, DefaultEditor};

use super::warn;

/// The most entries the history keeps (the oldest go first).
const HISTORY_SIZE: usize = 1000;

/// What reading a line at the terminal gives.
#[derive(Debug)]
pub(super) enum TerminalLine {
    /// A line (or several, pasted or recalled from the history).
    Text(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D at an empty prompt.
    Eof,
    /// The terminal could not be read: why.
    Failed(String),
}

/// The line editor and its history file.
pub(super) struct Terminal {
    editor: DefaultEditor,
    /// Where the history is kept (`None`: for this session only).
    history: Option<PathBuf>,
}

impl Terminal {
    /// Starts the line editor and reads the history file.
    ///
    /// # Errors
    ///
    /// Why the editor cannot start (the shell then reads lines without it).
    pub(super) fn open() -> Result<Terminal, String> {
        let config = Config::builder()
            .max_history_size(HISTORY_SIZE)
            .and_then(|c| c.history_ignore_dups(true))
            .map_err(|e| e.to_string())?
            .auto_add_history(false)
            .build();
        let mut editor = DefaultEditor::with_config(config).map_err(|e| e.to_string())?;
        let mut history = history_file();
        if let Some(path) = &history {
            match editor.load_history(path) {
                Ok(()) => {}
                Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    // Not written either: it may be some other file.
                    warn(&format!(
                        "cannot read the history file {}: {e}; the history is kept for this \
                         session only (TENON_HISTORY names another file)",
                        path.display()
                    ));
                    history = None;
                }
            }
        }
        Ok(Terminal { editor, history })
    }

    /// Shows `prompt` and reads a line.
    pub(super) fn read(&mut self, prompt: &str) -> TerminalLine {
        match self.editor.readline(prompt) {
            Ok(line) => TerminalLine::Text(line),
            Err(ReadlineError::Interrupted) => TerminalLine::Interrupted,
            Err(ReadlineError::Eof) => TerminalLine::Eof,
            Err(e) => TerminalLine::Failed(e.to_string()),
        }
    }

    /// Adds a complete statement or dot command to the history, and to the
    /// history file.
    pub(super) fn remember(&mut self, entry: &str) {
        let entry = entry.trim();
        if entry.is_empty() {
            return;
        }
        if !matches!(self.editor.add_history_entry(entry), Ok(true)) {
            return;
        }
        let Some(path) = &self.history else {
            return;
        };
        if let Err(e) = self.editor.append_history(path) {
            warn(&format!(
                "cannot write the history file {}: {e}; the history is kept for this session \
                 only (TENON_HISTORY names another file)",
                path.display()
            ));
            self.history = None;
        }
    }
}

/// The history file: `$TENON_HISTORY` (none when it is set and empty),
/// else `.tenon_history` in the home directory (none without `$HOME`).
fn history_file() -> Option<PathBuf> {
    match std::env::var_os("TENON_HISTORY") {
        Some(path) if path.is_empty() => None,
        Some(path) => Some(PathBuf::from(path)),
        None => std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(|home| PathBuf::from(home).join(".tenon_history")),
    }
}

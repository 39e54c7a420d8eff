//! Where the shell writes results: stdout, or the file `.output FILE`
//! names.
//!
//! A file is a [`Destination`], the one home of "written completely or not
//! at all" that `tenon query --output` uses: the results of the queries go
//! to a hidden temporary file beside it, one after the other, which
//! replaces the file when `.output` names another file or stdout, or the
//! shell ends. A failed write, a shell stopped by `--bail` or Ctrl-C, or
//! one that is killed leaves the file as it was.

use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use tenon::io::{Destination, IoError, OutputFormat, write_batches, write_to};

/// The shell's output: stdout, or an open file.
pub(super) struct Output {
    file: Option<(PathBuf, Destination)>,
}

impl Output {
    /// Results go to stdout.
    pub(super) fn stdout() -> Output {
        Output { file: None }
    }

    /// The file results go to (`None`: stdout).
    pub(super) fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|(p, _)| p.as_path())
    }

    /// Writes one result in `format`.
    ///
    /// # Errors
    ///
    /// [`IoError::Unwritable`] (a type the format cannot hold, nothing
    /// written), or [`IoError::Write`]: a file is then dropped (left as it
    /// was), and later results go to stdout.
    pub(super) fn write(
        &mut self,
        batches: &[RecordBatch],
        schema: &SchemaRef,
        format: OutputFormat,
    ) -> Result<(), IoError> {
        let Some((path, destination)) = &mut self.file else {
            return write_to(batches, schema, format, Destination::stdout(format));
        };
        let written = write_batches(batches, schema, format, destination.writer());
        match written {
            Err(IoError::Write {
                format,
                message,
                io_error,
                ..
            }) => {
                let path = path.clone();
                // dropped unfinished: its temporary file is removed
                self.file = None;
                Err(IoError::Write {
                    path: Some(path),
                    format,
                    message: format!(
                        "{message} (the file is left as it was; results go to stdout again)"
                    ),
                    io_error,
                })
            }
            other => other,
        }
    }

    /// Sends later results to `path` (`None`: stdout); the file written so
    /// far is finished first. `format` only names what is written in
    /// messages.
    ///
    /// # Errors
    ///
    /// The new file cannot be opened (the output stays as it was), or the
    /// old one cannot be finished (it is left as it was before `.output`).
    pub(super) fn set(&mut self, path: Option<&Path>, format: OutputFormat) -> Result<(), IoError> {
        let next = match path {
            Some(p) => {
                let destination = Destination::open(p, format)?;
                // `-` and /dev/stdout are stdout
                (!destination.is_stdout()).then(|| (p.to_path_buf(), destination))
            }
            None => None,
        };
        let old = std::mem::replace(&mut self.file, next);
        match old {
            Some((_, destination)) => destination.finish(),
            None => Ok(()),
        }
    }

    /// Finishes the file, if any: it now holds every result written to it.
    ///
    /// # Errors
    ///
    /// As [`Destination::finish`] (the file is then left as it was).
    pub(super) fn finish(&mut self) -> Result<(), IoError> {
        match self.file.take() {
            Some((_, destination)) => destination.finish(),
            None => Ok(()),
        }
    }

    /// Drops the file unfinished: it is left as it was.
    pub(super) fn abandon(&mut self) {
        self.file = None;
    }
}

//! Lines from standard input when it is not a terminal (`tenon shell <
//! script.sql`, `generate | tenon`).
//!
//! A thread of its own reads them, so that the shell waits for the next
//! line with a timeout and sees a SIGINT meanwhile: the shell's SIGINT
//! handler only sets a flag, and a read from a pipe that a signal
//! interrupts is restarted, so a shell blocked in the read itself would
//! not notice Ctrl-C until the next line came.

use std::io::BufRead as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::Duration;

/// How often the shell looks at the SIGINT flag while it waits for a line.
const POLL: Duration = Duration::from_millis(50);

/// Lines read ahead of the shell (the reader waits when they are not
/// taken).
const READ_AHEAD: usize = 256;

/// What waiting for the next line gives.
#[derive(Debug)]
pub(super) enum PipedLine {
    /// A line, without its line break (`\n` or `\r\n`).
    Text(String),
    /// The end of the input.
    Eof,
    /// SIGINT came while waiting.
    Interrupted,
    /// A line that is not UTF-8, or a failed read: what to say.
    Failed(String),
}

/// The lines of standard input, read by a thread.
pub(super) struct PipedLines {
    rx: Receiver<Result<Vec<u8>, std::io::Error>>,
    /// The number of the last line taken.
    line: u64,
}

impl PipedLines {
    /// Starts the thread that reads standard input line by line. When it
    /// cannot start, the input reads as empty, with a message.
    pub(super) fn start() -> PipedLines {
        let (tx, rx) = sync_channel(READ_AHEAD);
        let spawned = std::thread::Builder::new()
            .name("tenon-shell-stdin".into())
            .spawn({
                let tx = tx.clone();
                move || {
                    let mut input = std::io::stdin().lock();
                    loop {
                        let mut line = Vec::new();
                        match input.read_until(b'\n', &mut line) {
                            Ok(0) => return,
                            Ok(_) => {
                                if tx.send(Ok(line)).is_err() {
                                    return;
                                }
                            }
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => {
                                let _ = tx.send(Err(e));
                                return;
                            }
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            let _ = tx.send(Err(e));
        }
        PipedLines { rx, line: 0 }
    }

    /// The next line; `interrupted` is looked at while waiting for it.
    pub(super) fn next(&mut self, interrupted: &AtomicBool) -> PipedLine {
        loop {
            if interrupted.swap(false, Ordering::SeqCst) {
                return PipedLine::Interrupted;
            }
            match self.rx.recv_timeout(POLL) {
                Ok(Ok(bytes)) => {
                    self.line += 1;
                    return decode(bytes, self.line);
                }
                Ok(Err(e)) => {
                    return PipedLine::Failed(format!("cannot read standard input: {e}"));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return PipedLine::Eof,
            }
        }
    }
}

/// Line `number`'s bytes as text, without the line break.
fn decode(mut bytes: Vec<u8>, number: u64) -> PipedLine {
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    }
    match String::from_utf8(bytes) {
        Ok(text) => PipedLine::Text(text),
        Err(e) => PipedLine::Failed(format!(
            "line {number} of standard input is not UTF-8 text (byte {} of the line): \
             the line is skipped; convert the script to UTF-8",
            e.utf8_error().valid_up_to() + 1
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_lose_their_line_breaks_and_must_be_utf8() {
        let text = |p: PipedLine| match p {
            PipedLine::Text(t) => t,
            other => panic!("{other:?}"),
        };
        assert_eq!(text(decode(b"SELECT 1;\r\n".to_vec(), 1)), "SELECT 1;");
        assert_eq!(text(decode(b"SELECT 1;\n".to_vec(), 1)), "SELECT 1;");
        assert_eq!(text(decode(b"last".to_vec(), 1)), "last");
        let PipedLine::Failed(message) = decode(b"SELECT '\xff';\n".to_vec(), 7) else {
            panic!("not UTF-8")
        };
        assert!(
            message.starts_with("line 7 of standard input is not UTF-8"),
            "{message}"
        );
        assert!(message.contains("byte 9"), "{message}");
    }
}

//! Lines into dot commands and complete SQL statements.
//!
//! A line that starts with `.` when no statement is being typed is a dot
//! command. Every other line goes into the statement being typed, which is
//! complete when its last token is a `;` outside quotes and comments. The
//! planner's own splitter ([`split_statements`], the one `tenon query -f`
//! and [`Session::execute_script`](tenon::Session::execute_script) use)
//! decides that: the text is complete when a word put on a line after it
//! starts a statement of its own (after a `;`, it does; in the middle of a
//! statement it joins that statement; inside an unclosed string or
//! comment, the text does not split at all).

use tenon::planner::sql::{ScriptStatement, SqlError, split_statements};

/// The most line breaks put before a statement so that the positions in
/// its errors are its script's (line 20001 of a script is reported
/// relative to its statement: padding costs the tokenizer a token a line).
const MAX_PADDING_LINES: u64 = 20_000;

/// What a line gives.
#[derive(Debug)]
pub(super) enum Input {
    /// The statement goes on: read another line.
    More,
    /// A dot command: the line, trimmed, and its line number.
    Dot {
        /// The command's line, without surrounding white space.
        line: String,
        /// Its line in its source (1-based).
        at: u64,
    },
    /// Complete statements.
    Sql(Chunk),
}

/// Statements that a line completed, with the text they were typed as.
#[derive(Debug)]
pub(super) struct Chunk {
    /// The lines as typed (for the history).
    pub typed: String,
    /// The statements, numbered from the source's start; with positions
    /// in the source when the buffer is `in_place`.
    pub statements: Vec<ScriptStatement>,
}

/// Text that cannot be split into statements: an unclosed string or
/// comment at the end of the input.
#[derive(Debug)]
pub(super) struct SplitError {
    /// The lines as typed (for the history).
    pub typed: String,
    /// The splitter's error, with its position.
    pub error: SqlError,
}

/// The statement being typed, and where in its source it began.
#[derive(Debug)]
pub(super) struct StatementBuffer {
    /// The lines since the last complete statement, joined by `\n`.
    text: String,
    /// The source line `text` begins on (1-based).
    first_line: u64,
    /// The source line of the next line pushed.
    next_line: u64,
    /// Statements handed out so far (the next one's number is one more).
    numbered: usize,
    /// Whether statements are put at their place in the source (a
    /// script's errors then give its lines), or left where they are in
    /// their chunk (what a person typed).
    in_place: bool,
}

impl StatementBuffer {
    /// An empty buffer at line 1 of its source; `in_place`: see
    /// [`StatementBuffer::in_place`].
    pub(super) fn new(in_place: bool) -> Self {
        StatementBuffer {
            text: String::new(),
            first_line: 1,
            next_line: 1,
            numbered: 0,
            in_place,
        }
    }

    /// Whether no statement is being typed (only white space so far).
    pub(super) fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Drops the statement being typed (Ctrl-C at the prompt).
    pub(super) fn clear(&mut self) {
        self.text.clear();
    }

    /// Counts a line of the source that is not pushed (one that could not
    /// be read), so that the later lines keep their numbers.
    pub(super) fn skip_line(&mut self) {
        self.next_line += 1;
    }

    /// Adds one line (without its line break).
    ///
    /// # Errors
    ///
    /// Statements that do not split (not expected: the text split once).
    pub(super) fn push(&mut self, line: &str) -> Result<Input, SplitError> {
        let at = self.next_line;
        // A pasted or recalled statement may hold several lines.
        self.next_line += 1 + line.matches('\n').count() as u64;
        if self.is_empty() {
            let command = line.trim();
            if command.starts_with('.') {
                self.text.clear();
                return Ok(Input::Dot {
                    line: command.to_string(),
                    at,
                });
            }
            self.text.clear();
            self.first_line = at;
        } else {
            self.text.push('\n');
        }
        self.text.push_str(line);
        if !is_complete(&self.text) {
            return Ok(Input::More);
        }
        self.take().map(Input::Sql)
    }

    /// The end of the input: the statement being typed, if any, runs as if
    /// ended by `;`.
    pub(super) fn finish(&mut self) -> Option<Result<Input, SplitError>> {
        if self.is_empty() {
            self.text.clear();
            return None;
        }
        Some(self.take().map(Input::Sql))
    }

    /// The buffer's statements, which are complete; the buffer is emptied.
    fn take(&mut self) -> Result<Chunk, SplitError> {
        let typed = std::mem::take(&mut self.text);
        let padding = if self.in_place && self.first_line <= MAX_PADDING_LINES {
            self.first_line.saturating_sub(1)
        } else {
            0
        };
        let mut text = "\n".repeat(padding as usize);
        text.push_str(&typed);
        let statements = match split_statements(&text) {
            Ok(s) => s,
            Err(error) => return Err(SplitError { typed, error }),
        };
        let first_line = self.first_line;
        let numbered = self.numbered;
        self.numbered += statements.len();
        let statements = statements
            .into_iter()
            .map(|s| ScriptStatement {
                number: numbered + s.number,
                // their lines in the source, also when not padded
                line: s.line + first_line.saturating_sub(1) - padding,
                text: s.text,
            })
            .collect();
        Ok(Chunk { typed, statements })
    }
}

/// Whether `text` ends with a complete statement (or holds none: white
/// space and comments): a word on a line after it would start a new
/// statement.
fn is_complete(text: &str) -> bool {
    let Ok(now) = split_statements(text) else {
        // an unclosed string, quoted name or comment
        return false;
    };
    split_statements(&format!("{text}\nx")).is_ok_and(|more| more.len() > now.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statements' texts (trimmed) of what `lines` complete, and
    /// whether the last line left a statement unfinished.
    fn feed(buffer: &mut StatementBuffer, lines: &[&str]) -> (Vec<String>, bool) {
        let mut out = Vec::new();
        let mut more = false;
        for line in lines {
            match buffer.push(line).expect("splits") {
                Input::More => more = true,
                Input::Dot { line, .. } => {
                    more = false;
                    out.push(line);
                }
                Input::Sql(chunk) => {
                    more = false;
                    out.extend(chunk.statements.iter().map(|s| s.text.trim().to_string()));
                }
            }
        }
        (out, more)
    }

    #[test]
    fn a_statement_ends_at_a_semicolon_outside_quotes_and_comments() {
        let mut b = StatementBuffer::new(false);
        let (done, more) = feed(&mut b, &["SELECT 'a;", "b' AS s -- c;", "/* ; */ FROM t"]);
        assert!(done.is_empty() && more);
        assert!(!b.is_empty());
        let (done, more) = feed(&mut b, &[";"]);
        assert_eq!(done.len(), 1, "{done:?}");
        assert!(done[0].starts_with("SELECT 'a;\nb' AS s"), "{done:?}");
        assert!(!more && b.is_empty());
        // two statements on a line; a third left open, then ended
        let (done, more) = feed(&mut b, &["SELECT 1; SELECT 2; SELECT"]);
        assert!(done.is_empty() && more);
        let (done, _) = feed(&mut b, &["3;"]);
        assert_eq!(done, ["SELECT 1", "SELECT 2", "SELECT\n3"]);
    }

    #[test]
    fn dot_commands_only_between_statements() {
        let mut b = StatementBuffer::new(false);
        let (done, _) = feed(&mut b, &["  .tables  ", "SELECT a", ".5 AS x;"]);
        assert_eq!(done, [".tables", "SELECT a\n.5 AS x"]);
        // comments alone complete nothing and leave the buffer empty
        let (done, more) = feed(&mut b, &["-- a comment", ".mode csv"]);
        assert_eq!(done, [".mode csv"]);
        assert!(!more && b.is_empty());
    }

    #[test]
    fn the_end_of_the_input_ends_the_statement() {
        let mut b = StatementBuffer::new(false);
        let (_, more) = feed(&mut b, &["SELECT 1"]);
        assert!(more);
        let Some(Ok(Input::Sql(chunk))) = b.finish() else {
            panic!("the open statement runs at the end")
        };
        assert_eq!(chunk.statements[0].text.trim(), "SELECT 1");
        assert!(b.finish().is_none());
        // an unclosed string is the splitter's error, with the text typed
        feed(&mut b, &["SELECT 'open"]);
        let Some(Err(e)) = b.finish() else {
            panic!("an unclosed string does not split")
        };
        assert_eq!(e.typed, "SELECT 'open");
    }

    #[test]
    fn statements_of_a_script_are_numbered_and_placed_at_their_lines() {
        let mut b = StatementBuffer::new(true);
        let mut chunks = Vec::new();
        for line in ["-- setup", "", "SELECT 1;", ".tables", "SELECT", "  nope;"] {
            if let Input::Sql(c) = b.push(line).expect("splits") {
                chunks.push(c);
            }
        }
        let all: Vec<&ScriptStatement> = chunks.iter().flat_map(|c| &c.statements).collect();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].number, all[0].line), (1, 3));
        assert_eq!((all[1].number, all[1].line), (2, 5));
        // the text is at its place: an error's line and column are the script's
        assert_eq!(all[1].text.lines().count(), 6);
        assert!(all[1].text.starts_with("\n\n\n\n"));
        // unplaced: the text is as typed, the line still the source's
        let mut b = StatementBuffer::new(false);
        feed(&mut b, &["", "", "SELECT"]);
        let Ok(Input::Sql(c)) = b.push("2;") else {
            panic!("complete")
        };
        assert_eq!(c.statements[0].line, 3);
        assert_eq!(c.statements[0].text, "SELECT\n2");
    }
}

//! One SQL statement in the shell: a query streams its rows while the
//! shell watches for Ctrl-C, then prints them in the `.mode`; DDL runs on
//! the session and prints nothing.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tenon::planner::sql::{SqlStatement, parse_statement};
use tenon::{Error, Explain};

use super::{Flow, Shell, say};

/// How often a running query looks at the SIGINT flag.
const POLL: Duration = Duration::from_millis(50);

/// How long a cancelled query is waited for before the shell goes on
/// without it (it then stops by itself at its next batch).
const CANCEL_WAIT: Duration = Duration::from_secs(3);

impl Shell {
    /// Runs one statement: a query's rows are written to the output, DDL
    /// prints nothing. With `.timer on`, the time it took goes to stderr.
    ///
    /// # Errors
    ///
    /// The statement's error ([`Error::Cancelled`] after Ctrl-C).
    pub(super) fn statement(&mut self, sql: &str) -> Result<Flow, Error> {
        let started = Instant::now();
        let flow = match parse_statement(sql) {
            // a statement that does not parse is planned as a query, which
            // gives the planner's error; SHOW TABLES, DESCRIBE, SET and
            // EXPLAIN give rows as a query does
            Err(_) => self.query(sql, true)?,
            Ok(s) if s.gives_rows() => self.query(sql, s == SqlStatement::Query)?,
            Ok(ddl) => {
                self.replace_builtin(&ddl)?;
                self.session.execute_mut(sql)?;
                Flow::Next
            }
        };
        if self.timer {
            eprintln_quietly(&format!(
                "Run Time: {:.3} s",
                started.elapsed().as_secs_f64()
            ));
        }
        Ok(flow)
    }

    /// A `CREATE TABLE` of a built-in TPC-H table's name replaces the
    /// built-in table (as in `tenon query`); a `DROP TABLE` of one drops
    /// it for good.
    fn replace_builtin(&mut self, statement: &SqlStatement) -> Result<(), Error> {
        match statement {
            SqlStatement::CreateTable(t) => {
                if let Some(i) = self.builtin.iter().position(|b| *b == t.name) {
                    self.builtin.remove(i);
                    self.session.execute(&format!(
                        "DROP TABLE IF EXISTS \"{}\"",
                        t.name.replace('"', "\"\"")
                    ))?;
                }
            }
            SqlStatement::DropTable(drop) => {
                self.builtin.retain(|b| !drop.names.contains(b));
            }
            _ => {}
        }
        Ok(())
    }

    /// Plans and runs a query (its joins first, with `.explain on` when
    /// `planned`: a statement such as SHOW TABLES has no plan), and writes
    /// its rows. Ctrl-C cancels it.
    fn query(&mut self, sql: &str, planned: bool) -> Result<Flow, Error> {
        let query = self.session.sql(sql)?;
        if self.explain && planned {
            say(&joins_text(&query.explain()?));
        }
        let mut stream = query.stream()?;
        let cancel = stream.cancel_handle();
        let schema = Arc::clone(stream.schema());
        let mut batches = Vec::new();
        let mut cancelled: Option<Instant> = None;
        loop {
            if self.interrupted.swap(false, Ordering::SeqCst) {
                if cancelled.is_some() {
                    // a second Ctrl-C: wait no longer
                    return Err(Error::Cancelled);
                }
                cancel.cancel();
                cancelled = Some(Instant::now());
            }
            if cancelled.is_some_and(|at| at.elapsed() > CANCEL_WAIT) {
                return Err(Error::Cancelled);
            }
            match stream.next_timeout(POLL) {
                None => {}
                Some(None) => break,
                Some(Some(Ok(batch))) => batches.push(batch),
                Some(Some(Err(e))) => return Err(e),
            }
        }
        if cancelled.is_some() {
            // finished before it saw the cancel: Ctrl-C still means stop
            return Err(Error::Cancelled);
        }
        match self.output.write(&batches, &schema, self.mode) {
            Ok(()) => Ok(Flow::Next),
            // a closed pipe (`tenon < script.sql | head`): nothing more
            // can be shown, the shell ends quietly, as `tenon query` does
            Err(e) if e.is_broken_pipe() && self.output.path().is_none() => Ok(Flow::Quit),
            Err(e) => Err(e.into()),
        }
    }
}

/// The joins part of a plan: each join's strategy, build side and why
/// (what EXPLAIN prints before the operator tree).
fn joins_text(explain: &Explain) -> String {
    let joins = explain.joins_text().trim_end();
    if joins.is_empty() {
        "no joins".to_string()
    } else {
        joins.to_string()
    }
}

/// Prints a line on stderr; a closed stderr is not an error.
fn eprintln_quietly(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

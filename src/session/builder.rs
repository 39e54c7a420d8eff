//! Joins built in Rust, without writing SQL: [`Session::table`], then
//! [`TableRef::join`] and [`JoinBuilder::strategy`].
//!
//! A built join is planned as the hinted SQL statement it stands for
//! ([`JoinBuilder::to_sql`]: identifiers quoted where SQL would otherwise
//! fold or misread them, the strategy a hint after `SELECT`), through the same single call into the planner as
//! [`Session::sql`]. So it gets the same plan, the same EXPLAIN, and the
//! same errors and fallbacks for a strategy that cannot run the join (a
//! SHUFFLE_HASH without equality keys, `hint_mode=strict`) as the SQL
//! form, by construction: there is one planner input, not a second way
//! into the planner to keep in step with the first. The key columns are
//! checked before planning, so that an unknown one is named with the
//! table's columns.

use sqlparser::keywords::ALL_KEYWORDS;
use tenon_kernels::{JoinSide, JoinType, Strategy};
use tenon_planner::sql::SqlError;

use super::output::Explain;
use super::query::Query;
use super::{QueryOutput, Session};
use crate::error::{Cause, Error};

/// A registered table, to join ([`Session::table`]).
#[derive(Debug, Clone)]
pub struct TableRef<'s> {
    session: &'s Session,
    name: String,
    columns: Vec<String>,
}

/// A join of two tables built in Rust: every column of both inputs (of the
/// kept side for semi and anti joins), planned as [`JoinBuilder::to_sql`].
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use tenon::kernels::{JoinType, Strategy};
/// use tenon::{Config, Session};
///
/// let mut session = Session::new(Config::default())?;
/// session.register_batch("orders", RecordBatch::try_from_iter([
///     ("o_custkey", Arc::new(Int64Array::from(vec![1, 1, 2, 9])) as _),
/// ])?)?;
/// session.register_batch("customer", RecordBatch::try_from_iter([
///     ("c_custkey", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
/// ])?)?;
///
/// let join = session
///     .table("orders")?
///     .join(session.table("customer")?, JoinType::Left, ["o_custkey"], ["c_custkey"])?
///     .strategy(Strategy::Broadcast);
/// let explain = join.explain()?;
/// assert_eq!(explain.joins[0].strategy.name(), "BROADCAST");
/// assert_eq!(explain.joins[0].build.as_deref(), Some("customer"));
/// // the same plan as the hinted SQL
/// let sql = "SELECT /*+ BROADCAST(customer) */ * FROM orders \
///            LEFT JOIN customer ON o_custkey = c_custkey";
/// assert_eq!(explain.to_text(), session.explain(sql)?.to_text());
/// let rows: usize = join.collect()?.iter().map(|b| b.num_rows()).sum();
/// assert_eq!(rows, 4);
///
/// // an unknown key column is named
/// let err = session
///     .table("orders")?
///     .join(session.table("customer")?, JoinType::Inner, ["custkey"], ["c_custkey"])
///     .unwrap_err();
/// assert!(err.to_string().contains("`orders.custkey`"), "{err}");
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct JoinBuilder<'s> {
    left: TableRef<'s>,
    right: TableRef<'s>,
    join_type: JoinType,
    keys: Vec<(String, String)>,
    strategy: Option<(Strategy, JoinSide)>,
}

/// `name` as an SQL identifier that means exactly `name`: as it is when
/// SQL reads it so unquoted (lower case letters, digits and `_`, not a
/// keyword: so that the hinted SQL, its EXPLAIN and its errors read as a
/// person would write them), else quoted.
fn quoted(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && ALL_KEYWORDS
            .binary_search(&name.to_ascii_uppercase().as_str())
            .is_err();
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

impl Session {
    /// The registered table `name` (exact spelling), to build a join on
    /// ([`TableRef::join`]).
    ///
    /// # Errors
    ///
    /// [`Error::Sql`] ([`SqlError::UnknownTable`]) when no table has that
    /// name (views are not tables here: join them in SQL).
    pub fn table(&self, name: &str) -> Result<TableRef<'_>, Error> {
        let registry = self.read();
        let Some(table) = registry.catalog.table(name) else {
            return Err(Error::Sql(SqlError::UnknownTable {
                name: name.to_string(),
                known: registry.catalog.table_names(),
            }));
        };
        let columns = table
            .schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        Ok(TableRef {
            session: self,
            name: name.to_string(),
            columns,
        })
    }
}

impl<'s> TableRef<'s> {
    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the table has column `name` (exact spelling).
    fn check_column(&self, name: &str) -> Result<(), Error> {
        if self.columns.iter().any(|c| c == name) {
            return Ok(());
        }
        Err(Error::Sql(SqlError::UnknownColumn {
            name: format!("{}.{name}", self.name),
            valid: self
                .columns
                .iter()
                .map(|c| format!("{}.{c}", self.name))
                .collect(),
        }))
    }

    /// Joins this table (the left input) to `right` on
    /// `left_keys[i] = right_keys[i]` (column names, exact spelling), with
    /// the default strategy until [`JoinBuilder::strategy`] says otherwise.
    ///
    /// # Errors
    ///
    /// [`Error::Sql`] ([`SqlError::UnknownColumn`]) for a key column its
    /// table does not have; [`Error::Plan`] when the key lists differ in
    /// length or are empty, for a table joined to itself, and for
    /// [`JoinType::LeftAntiNullAware`] (write `NOT IN` in SQL).
    pub fn join<L, R>(
        self,
        right: TableRef<'s>,
        join_type: JoinType,
        left_keys: L,
        right_keys: R,
    ) -> Result<JoinBuilder<'s>, Error>
    where
        L: IntoIterator,
        L::Item: AsRef<str>,
        R: IntoIterator,
        R::Item: AsRef<str>,
    {
        let left_keys: Vec<String> = left_keys
            .into_iter()
            .map(|k| k.as_ref().to_string())
            .collect();
        let right_keys: Vec<String> = right_keys
            .into_iter()
            .map(|k| k.as_ref().to_string())
            .collect();
        if left_keys.is_empty() || left_keys.len() != right_keys.len() {
            return Err(Error::Plan(Cause::from(format!(
                "join of `{}` and `{}`: give one right key per left key, at least one \
                 ({} left, {} right)",
                self.name,
                right.name,
                left_keys.len(),
                right_keys.len()
            ))));
        }
        if self.name == right.name {
            return Err(Error::Plan(Cause::from(format!(
                "join of `{}` to itself: the builder names inputs by their tables; \
                 write the self-join in SQL with two aliases",
                self.name
            ))));
        }
        if join_type == JoinType::LeftAntiNullAware {
            return Err(Error::Plan(Cause::from(
                "the null-aware anti join is SQL's `NOT IN (subquery)`: write it in SQL, \
                 or use JoinType::LeftAnti",
            )));
        }
        for (l, r) in left_keys.iter().zip(&right_keys) {
            self.check_column(l)?;
            right.check_column(r)?;
        }
        Ok(JoinBuilder {
            left: self,
            right,
            join_type,
            keys: left_keys.into_iter().zip(right_keys).collect(),
            strategy: None,
        })
    }
}

impl<'s> JoinBuilder<'s> {
    /// Runs the join with `strategy`, building on the right input, as the
    /// hint `STRATEGY(right)` would (for SHUFFLE_MERGE, which builds on
    /// neither, the hint names the right input). A strategy the join cannot
    /// run falls back to the default with the reason, or, with
    /// `hint_mode=strict`, is an error, as for the hint.
    pub fn strategy(self, strategy: Strategy) -> Self {
        self.strategy_on(strategy, JoinSide::Right)
    }

    /// As [`JoinBuilder::strategy`], with the hint naming input `side`.
    pub fn strategy_on(mut self, strategy: Strategy, side: JoinSide) -> Self {
        self.strategy = Some((strategy, side));
        self
    }

    /// The hinted SQL statement the join is planned as.
    pub fn to_sql(&self) -> String {
        let (l, r) = (quoted(&self.left.name), quoted(&self.right.name));
        let hint = match self.strategy {
            Some((s, side)) => {
                let named = if side == JoinSide::Left { &l } else { &r };
                format!("/*+ {}({named}) */ ", s.name())
            }
            None => String::new(),
        };
        let join = match self.join_type {
            JoinType::Inner => "JOIN",
            JoinType::Left => "LEFT JOIN",
            JoinType::Right => "RIGHT JOIN",
            JoinType::Full => "FULL OUTER JOIN",
            JoinType::LeftSemi => "LEFT SEMI JOIN",
            JoinType::LeftAnti | JoinType::LeftAntiNullAware => "LEFT ANTI JOIN",
            JoinType::RightSemi => "RIGHT SEMI JOIN",
            JoinType::RightAnti => "RIGHT ANTI JOIN",
        };
        let on: Vec<String> = self
            .keys
            .iter()
            .map(|(a, b)| format!("{l}.{} = {r}.{}", quoted(a), quoted(b)))
            .collect();
        format!("SELECT {hint}* FROM {l} {join} {r} ON {}", on.join(" AND "))
    }

    /// Plans the join once: a [`Query`] to collect, stream or explain.
    ///
    /// # Errors
    ///
    /// As [`Session::sql`] for [`JoinBuilder::to_sql`]: [`Error::Hint`]
    /// for a strategy strict mode cannot apply, or with every runnable
    /// strategy disabled.
    pub fn query(&self) -> Result<Query, Error> {
        self.left.session.sql(&self.to_sql())
    }

    /// The join's plan (nothing runs).
    ///
    /// # Errors
    ///
    /// As [`JoinBuilder::query`].
    pub fn explain(&self) -> Result<Explain, Error> {
        self.query()?.explain()
    }

    /// Runs the join: the schema, the batches, the time.
    ///
    /// # Errors
    ///
    /// As [`JoinBuilder::query`], and execution errors.
    pub fn run(&self) -> Result<QueryOutput, Error> {
        self.query()?.run()
    }

    /// Runs the join and collects its batches.
    ///
    /// # Errors
    ///
    /// As [`JoinBuilder::run`].
    pub fn collect(&self) -> Result<Vec<arrow_array::RecordBatch>, Error> {
        self.query()?.collect()
    }
}

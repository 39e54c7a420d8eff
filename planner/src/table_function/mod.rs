//! Table functions: `FROM orders, LATERAL TABLE(f(order_id)) AS t(res)`
//! joins each row with the rows `f` returns for it.
//!
//! A [`TableFunction`] is called once per *batch* of input rows with its
//! arguments as arrays, and pushes its output rows in chunks, each row
//! tagged with the input row it belongs to ([`TableFunctionRows`]): the
//! function runs vectorized, not once per row, and a call that returns
//! millions of rows for one input row still gives bounded batches.
//!
//! Built in: [`GenerateSeries`] (`generate_series(start, stop[, step])`
//! over integers, dates and timestamps), [`Range`] (`range([start, ]stop[,
//! step])`, DuckDB's, the stop excluded) and [`StringToTable`]
//! (`string_to_table(text, delimiter)`, as PostgreSQL's). Programs register their own with
//! [`Catalog::register_table_function`](crate::sql::Catalog::register_table_function).

mod series;
mod string_to_table;

use std::fmt::Debug;
use std::sync::Arc;

use arrow_array::{ArrayRef, UInt32Array};
use arrow_schema::{DataType, FieldRef};

pub use series::{GenerateSeries, Range};
pub use string_to_table::StringToTable;

/// A chunk of a table function's output: its rows, each tagged with the
/// input row (of the batch it was called with) it belongs to.
#[derive(Debug, Clone)]
pub struct TableFunctionRows {
    /// The input row of each output row, ascending (not necessarily every
    /// input row: a row for which the function returns nothing is absent).
    pub rows: UInt32Array,
    /// The output columns, as many and of the types
    /// [`TableFunction::columns`] said, each as long as `rows`.
    pub columns: Vec<ArrayRef>,
}

/// What a table function's `call` pushes its chunks into.
pub type TableFunctionSink<'a> = dyn FnMut(TableFunctionRows) -> Result<(), String> + 'a;

/// A function that returns rows: called from SQL as `LATERAL TABLE(f(...))`.
///
/// # Examples
///
/// A function that returns each of its input's characters as a row:
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Array, ArrayRef, StringArray, UInt32Array, cast::AsArray};
/// use arrow_schema::{DataType, Field, FieldRef};
/// use tenon_planner::table_function::{TableFunction, TableFunctionRows, TableFunctionSink};
///
/// #[derive(Debug)]
/// struct Chars;
///
/// impl TableFunction for Chars {
///     fn name(&self) -> &str {
///         "chars"
///     }
///     fn columns(&self, args: &[DataType]) -> Result<Vec<FieldRef>, String> {
///         match args {
///             [DataType::Utf8] => Ok(vec![Arc::new(Field::new("c", DataType::Utf8, true))]),
///             _ => Err("chars takes one string".into()),
///         }
///     }
///     fn call(
///         &self,
///         args: &[ArrayRef],
///         _max_rows: usize,
///         sink: &mut TableFunctionSink<'_>,
///     ) -> Result<(), String> {
///         let text = args[0].as_string::<i32>();
///         let (mut rows, mut out) = (Vec::new(), Vec::new());
///         for (row, value) in text.iter().enumerate() {
///             for c in value.unwrap_or_default().chars() {
///                 rows.push(row as u32);
///                 out.push(c.to_string());
///             }
///         }
///         sink(TableFunctionRows {
///             rows: UInt32Array::from(rows),
///             columns: vec![Arc::new(StringArray::from(out)) as ArrayRef],
///         })
///     }
/// }
///
/// let mut catalog = tenon_planner::sql::Catalog::new();
/// catalog.register_table_function(Arc::new(Chars));
/// assert!(catalog.table_function("chars").is_some());
/// ```
pub trait TableFunction: Debug + Send + Sync {
    /// The name SQL calls it by (matched without regard to case).
    fn name(&self) -> &str;

    /// The output columns for arguments of types `args`, or why those
    /// arguments do not fit (said to the user as it is: name the function,
    /// what it takes, what it got).
    ///
    /// # Errors
    /// The arguments' types do not fit.
    fn columns(&self, args: &[DataType]) -> Result<Vec<FieldRef>, String>;

    /// Calls the function for every row of a batch (`args`: one array per
    /// argument, all of the batch's length), pushing its output rows into
    /// `sink` in chunks whose input rows ascend, across chunks too; a chunk
    /// should hold at most about `max_rows` rows.
    ///
    /// # Errors
    /// Bad argument values (say which row and why), or `sink`'s error
    /// (pass it on).
    fn call(
        &self,
        args: &[ArrayRef],
        max_rows: usize,
        sink: &mut TableFunctionSink<'_>,
    ) -> Result<(), String>;
}

/// The built-in table functions.
pub fn built_in() -> Vec<Arc<dyn TableFunction>> {
    vec![
        Arc::new(GenerateSeries),
        Arc::new(Range),
        Arc::new(StringToTable),
    ]
}

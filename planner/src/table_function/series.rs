//! `generate_series(start, stop[, step])`.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, Scalar, UInt32Array, new_empty_array};
use arrow_schema::{DataType, Field, FieldRef};

use super::string_to_table::type_list;
use super::{TableFunction, TableFunctionRows, TableFunctionSink};

/// `generate_series(start, stop[, step])`, as PostgreSQL's: one row (column
/// `generate_series`) per value from `start` to `stop` inclusive, `step`
/// apart (default 1; a negative step counts down). Over integers (BIGINT
/// out), dates and timestamps with an interval step (a date's default step
/// is one day; a timestamp needs one). Months step by the calendar. A NULL
/// argument gives no row; a zero step is an error (an interval is zero as
/// PostgreSQL compares it, a month counting 30 days), and so is a calendar
/// step that stops advancing (a month less 30 days, from January 31).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, cast::AsArray, types::Int64Type};
/// use tenon_planner::table_function::{GenerateSeries, TableFunction};
///
/// let start: ArrayRef = Arc::new(Int64Array::from(vec![1, 10]));
/// let stop: ArrayRef = Arc::new(Int64Array::from(vec![3, 6]));
/// let step: ArrayRef = Arc::new(Int64Array::from(vec![1, -2]));
/// let mut values = Vec::new();
/// GenerateSeries
///     .call(&[start, stop, step], 8192, &mut |chunk| {
///         values.extend(chunk.columns[0].as_primitive::<Int64Type>().values().iter().copied());
///         Ok(())
///     })
///     .unwrap();
/// assert_eq!(values, vec![1, 2, 3, 10, 8, 6]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct GenerateSeries;

/// The kind of series the argument types make.
enum Series {
    Integers,
    /// Dates or timestamps of this type.
    Times(DataType),
}

fn series_of(args: &[DataType]) -> Result<Series, String> {
    let int = |t: &DataType| t.is_integer() || *t == DataType::Null;
    let time = |t: &DataType| matches!(t, DataType::Date32 | DataType::Timestamp(_, _));
    let interval = |t: &DataType| matches!(t, DataType::Interval(_) | DataType::Null);
    let wrong = || {
        format!(
            "generate_series(start, stop[, step]) takes integers, or dates or timestamps with \
             an interval step, not ({})",
            type_list(args)
        )
    };
    match args {
        [a, b] | [a, b, _] if int(a) && int(b) && args.get(2).is_none_or(int) => {
            Ok(Series::Integers)
        }
        [a, b, ..] if time(a) || time(b) => {
            let t = if time(a) { a } else { b };
            if !(a == t || *a == DataType::Null) || !(b == t || *b == DataType::Null) {
                return Err(wrong());
            }
            match args.get(2) {
                Some(s) if interval(s) => Ok(Series::Times(t.clone())),
                None if *t == DataType::Date32 => Ok(Series::Times(t.clone())),
                None => Err(
                    "generate_series over timestamps needs a step: generate_series(start, stop, \
                     INTERVAL '1' HOUR)"
                        .into(),
                ),
                Some(_) => Err(wrong()),
            }
        }
        _ => Err(wrong()),
    }
}

impl TableFunction for GenerateSeries {
    fn name(&self) -> &str {
        "generate_series"
    }

    fn columns(&self, args: &[DataType]) -> Result<Vec<FieldRef>, String> {
        let t = match series_of(args)? {
            Series::Integers => DataType::Int64,
            Series::Times(t) => t,
        };
        Ok(vec![Arc::new(Field::new("generate_series", t, true))])
    }

    fn call(
        &self,
        args: &[ArrayRef],
        max_rows: usize,
        sink: &mut TableFunctionSink<'_>,
    ) -> Result<(), String> {
        let types: Vec<DataType> = args.iter().map(|a| a.data_type().clone()).collect();
        match series_of(&types)? {
            Series::Integers => integers(args, true, max_rows.max(1), sink),
            Series::Times(t) => times(args, &t, max_rows.max(1), sink),
        }
    }
}

fn err(e: impl std::fmt::Display) -> String {
    format!("generate_series: {e}")
}

/// `range(stop)` / `range(start, stop[, step])`, as DuckDB's: one BIGINT
/// row (column `range`) per value from `start` (default 0) up to `stop`
/// exclusive, `step` apart (default 1; a negative step counts down). A
/// NULL argument gives no row; a zero step is an error.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, cast::AsArray, types::Int64Type};
/// use tenon_planner::table_function::{Range, TableFunction};
///
/// let stop: ArrayRef = Arc::new(Int64Array::from(vec![3]));
/// let mut values = Vec::new();
/// Range
///     .call(&[stop], 8192, &mut |chunk| {
///         values.extend(chunk.columns[0].as_primitive::<Int64Type>().values().iter().copied());
///         Ok(())
///     })
///     .unwrap();
/// assert_eq!(values, vec![0, 1, 2]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Range;

impl TableFunction for Range {
    fn name(&self) -> &str {
        "range"
    }

    fn columns(&self, args: &[DataType]) -> Result<Vec<FieldRef>, String> {
        let int = |t: &DataType| t.is_integer() || *t == DataType::Null;
        if args.is_empty() || args.len() > 3 || !args.iter().all(int) {
            return Err(format!(
                "range(stop) or range(start, stop[, step]) takes integers, not ({})",
                type_list(args)
            ));
        }
        Ok(vec![Arc::new(Field::new("range", DataType::Int64, true))])
    }

    fn call(
        &self,
        args: &[ArrayRef],
        max_rows: usize,
        sink: &mut TableFunctionSink<'_>,
    ) -> Result<(), String> {
        let types: Vec<DataType> = args.iter().map(|a| a.data_type().clone()).collect();
        self.columns(&types)?;
        let args: Vec<ArrayRef> = match args {
            [stop] => vec![
                Arc::new(Int64Array::from(vec![0; stop.len()])),
                Arc::clone(stop),
            ],
            _ => args.to_vec(),
        };
        integers(&args, false, max_rows.max(1), sink)
    }
}

/// Integer series (`stop` included when `inclusive`): runs of values
/// filled without a per-row call.
fn integers(
    args: &[ArrayRef],
    inclusive: bool,
    max_rows: usize,
    sink: &mut TableFunctionSink<'_>,
) -> Result<(), String> {
    let cast = |a: &ArrayRef| arrow_cast::cast(a, &DataType::Int64).map_err(err);
    let start = cast(&args[0])?;
    let stop = cast(&args[1])?;
    let step = match args.get(2) {
        Some(s) => Some(cast(s)?),
        None => None,
    };
    let (start, stop) = (
        start.as_primitive::<Int64Type>(),
        stop.as_primitive::<Int64Type>(),
    );
    let step = step.as_ref().map(|s| s.as_primitive::<Int64Type>());
    let mut rows: Vec<u32> = Vec::new();
    let mut values: Vec<i64> = Vec::new();
    let mut flush = |rows: &mut Vec<u32>, values: &mut Vec<i64>| {
        sink(TableFunctionRows {
            rows: UInt32Array::from(std::mem::take(rows)),
            columns: vec![Arc::new(Int64Array::from(std::mem::take(values))) as ArrayRef],
        })
    };
    for row in 0..start.len() {
        if start.is_null(row) || stop.is_null(row) || step.is_some_and(|s| s.is_null(row)) {
            continue;
        }
        let (a, s) = (start.value(row), step.map_or(1, |s| s.value(row)));
        if s == 0 {
            return Err(format!("generate_series: the step of row {} is 0", row + 1));
        }
        // The last value allowed (an exclusive stop is one short of it),
        // in i128 so that extreme bounds cannot overflow.
        let b = i128::from(stop.value(row)) - if inclusive { 0 } else { i128::from(s.signum()) };
        let r = u32::try_from(row).map_err(err)?;
        let n = if (s > 0 && i128::from(a) > b) || (s < 0 && i128::from(a) < b) {
            0
        } else {
            ((b - i128::from(a)) / i128::from(s) + 1) as u128
        };
        let mut k: u128 = 0;
        while k < n {
            let room = (max_rows - values.len()) as u128;
            let take = room.min(n - k);
            let first = i128::from(a) + i128::from(s) * k as i128;
            values.extend((0..take).map(|j| (first + i128::from(s) * j as i128) as i64));
            rows.extend(std::iter::repeat_n(r, take as usize));
            k += take;
            if values.len() >= max_rows {
                flush(&mut rows, &mut values)?;
            }
        }
    }
    if !values.is_empty() {
        flush(&mut rows, &mut values)?;
    }
    Ok(())
}

/// Date and timestamp series: each value the previous plus the interval
/// (Arrow's calendar arithmetic), one value at a time.
fn times(
    args: &[ArrayRef],
    t: &DataType,
    max_rows: usize,
    sink: &mut TableFunctionSink<'_>,
) -> Result<(), String> {
    let cast = |a: &ArrayRef, t: &DataType| arrow_cast::cast(a, t).map_err(err);
    let start = cast(&args[0], t)?;
    let stop = cast(&args[1], t)?;
    let day = DataType::Interval(arrow_schema::IntervalUnit::MonthDayNano);
    let step = match args.get(2) {
        Some(s) => cast(s, &day)?,
        None => {
            let one = arrow_array::IntervalMonthDayNanoArray::from(vec![
                arrow_array::types::IntervalMonthDayNanoType::make_value(0, 1, 0),
            ]);
            let one: ArrayRef = Arc::new(one);
            arrow_select::concat::concat(&vec![one.as_ref(); start.len()]).map_err(err)?
        }
    };
    let mut rows: Vec<u32> = Vec::new();
    let mut parts: Vec<ArrayRef> = Vec::new();
    let mut held = 0usize;
    let mut flush = |rows: &mut Vec<u32>, parts: &mut Vec<ArrayRef>| -> Result<(), String> {
        let refs: Vec<&dyn Array> = parts.iter().map(|p| p.as_ref()).collect();
        let column = if refs.is_empty() {
            new_empty_array(t)
        } else {
            arrow_select::concat::concat(&refs).map_err(err)?
        };
        parts.clear();
        sink(TableFunctionRows {
            rows: UInt32Array::from(std::mem::take(rows)),
            columns: vec![column],
        })
    };
    let less = |a: &ArrayRef, b: &ArrayRef| -> Result<bool, String> {
        let lt = arrow_ord::cmp::lt(a, b).map_err(err)?;
        Ok(lt.value(0))
    };
    for row in 0..start.len() {
        if start.is_null(row) || stop.is_null(row) || step.is_null(row) {
            continue;
        }
        let r = u32::try_from(row).map_err(err)?;
        let stop_v = stop.slice(row, 1);
        let step_v = Scalar::new(step.slice(row, 1));
        let mut cur = start.slice(row, 1);
        // The step's direction as PostgreSQL reads an interval (a month
        // counts 30 days): `INTERVAL '1' MONTH - INTERVAL '30' DAY` is zero.
        let interval = step
            .as_primitive::<arrow_array::types::IntervalMonthDayNanoType>()
            .value(row);
        const DAY_NS: i128 = 86_400_000_000_000;
        let span = i128::from(interval.months) * 30 * DAY_NS
            + i128::from(interval.days) * DAY_NS
            + i128::from(interval.nanoseconds);
        if span == 0 {
            return Err(format!(
                "generate_series: the step of row {} is 0 (a month counts as 30 days)",
                row + 1
            ));
        }
        let down = span < 0;
        loop {
            let past = if down {
                less(&cur, &stop_v)?
            } else {
                less(&stop_v, &cur)?
            };
            if past {
                break;
            }
            rows.push(r);
            parts.push(Arc::clone(&cur));
            held += 1;
            if held >= max_rows {
                flush(&mut rows, &mut parts)?;
                held = 0;
            }
            let next = arrow_arith::numeric::add(&cur, &step_v).map_err(err)?;
            // A calendar step may stand still or turn back on some dates
            // (a month less 30 days from January 31): an error, not a
            // series that never ends.
            let advances = if down {
                less(&next, &cur)?
            } else {
                less(&cur, &next)?
            };
            if !advances {
                return Err(format!(
                    "generate_series: the step of row {} does not advance from {}; use a step \
                     of days or of whole months",
                    row + 1,
                    arrow_cast::display::array_value_to_string(&cur, 0).map_err(err)?
                ));
            }
            cur = next;
        }
    }
    if held > 0 {
        flush(&mut rows, &mut parts)?;
    }
    Ok(())
}

//! Flink's built-in functions, with Flink's names, argument orders, Java
//! date patterns, types and NULL rules: the one home of the functions
//! tenon takes from Flink rather than from DataFusion (docs/functions.md).
//!
//! Each is a DataFusion `ScalarUDF` registered after DataFusion's own
//! (`sql::catalog`), so a Flink name that DataFusion also defines
//! (`DATE_FORMAT`, `TO_TIMESTAMP`, `TO_DATE`, `FROM_UNIXTIME`, ...) means
//! Flink's function. Syntax Flink writes that is not a plain call is
//! rewritten before planning (`sql::flink_calls`: `IF`, the unit of
//! `TIMESTAMPADD`, `LOCALTIMESTAMP`); the clock functions are fixed once
//! per query where calls are compiled (`expr::scalar_fn`).
//!
//! * [`java_pattern`]: Java date patterns (`yyyy-MM-dd HH:mm`).
//! * [`time_fn`]: `DATE_FORMAT`, `TIMESTAMPADD`, `TIMESTAMPDIFF`,
//!   `UNIX_TIMESTAMP`, `FROM_UNIXTIME`, `TO_TIMESTAMP`, `TO_DATE` and the
//!   date parts (`YEAR`, `DAYOFWEEK`, ...).
//! * [`text_fn`]: `SPLIT_INDEX`, `REGEXP_EXTRACT`, `JSON_VALUE`, `RAND`,
//!   `RAND_INTEGER`.

pub(crate) mod java_pattern;
mod text_fn;
mod time_fn;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};
use arrow_schema::{Field, FieldRef};
use chrono::NaiveDateTime;
use datafusion_common::{Result as DfResult, ScalarValue, exec_err};
use datafusion_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    TypeSignature, Volatility,
};

use crate::expr::time_text;

/// How a function's result type follows from its argument types.
type ReturnFn = fn(&[DataType]) -> DfResult<DataType>;
/// Checks the constant arguments of a call (a literal pattern, unit) when
/// it is planned, so a mistake is found before any row is read.
type CheckFn = fn(&[Option<&ScalarValue>]) -> DfResult<()>;
/// Computes a call of the function named first on arrays of `rows` rows;
/// the last argument is the result type.
type InvokeFn = fn(&str, &[ArrayRef], usize, &DataType) -> DfResult<ArrayRef>;

/// A Flink function: a name, how many arguments, the result type, a
/// check of constant arguments and the computation. Two are equal when
/// their names and signatures are (a name is one function).
#[derive(Debug)]
struct FlinkFn {
    name: &'static str,
    signature: Signature,
    arity: (usize, usize),
    ret: ReturnFn,
    check: Option<CheckFn>,
    invoke: InvokeFn,
}

impl ScalarUDFImpl for FlinkFn {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> DfResult<DataType> {
        self.arity_check(args.len())?;
        (self.ret)(args)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> DfResult<FieldRef> {
        let types: Vec<DataType> = args
            .arg_fields
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        let t = self.return_type(&types)?;
        if let Some(check) = self.check {
            check(args.scalar_arguments)?;
        }
        Ok(Arc::new(Field::new(self.name, t, true)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<DfResult<Vec<_>>>()?;
        let out = (self.invoke)(self.name, &arrays, rows, args.return_field.data_type())?;
        Ok(ColumnarValue::Array(out))
    }
}

impl PartialEq for FlinkFn {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.signature == other.signature && self.arity == other.arity
    }
}

impl Eq for FlinkFn {}

impl std::hash::Hash for FlinkFn {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.signature.hash(state);
        self.arity.hash(state);
    }
}

impl FlinkFn {
    fn arity_check(&self, n: usize) -> DfResult<()> {
        let (lo, hi) = self.arity;
        if n < lo || n > hi {
            let name = self.name.to_uppercase();
            let takes = match (lo, hi) {
                (lo, hi) if lo == hi => format!("{lo}"),
                (lo, hi) => format!("{lo} to {hi}"),
            };
            return datafusion_common::plan_err!("{name} takes {takes} arguments, not {n}");
        }
        Ok(())
    }
}

/// A Flink function of `arity` arguments (any types: the function reads
/// and converts them itself).
fn function(
    name: &'static str,
    arity: (usize, usize),
    volatility: Volatility,
    ret: ReturnFn,
    check: Option<CheckFn>,
    invoke: InvokeFn,
) -> Arc<ScalarUDF> {
    let signature = Signature::new(
        TypeSignature::OneOf(vec![TypeSignature::Nullary, TypeSignature::VariadicAny]),
        volatility,
    );
    Arc::new(ScalarUDF::new_from_impl(FlinkFn {
        name,
        signature,
        arity,
        ret,
        check,
        invoke,
    }))
}

/// Every Flink function tenon defines itself, for the function registry.
pub(crate) fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    let mut all = time_fn::functions();
    all.extend(text_fn::functions());
    all
}

/// The names of the Flink functions tenon defines itself (lower case),
/// sorted: what docs/functions.md must describe.
pub fn function_names() -> Vec<String> {
    let mut names: Vec<String> = scalar_functions()
        .iter()
        .chain(clock_functions().iter())
        .map(|f| f.name().to_string())
        .collect();
    names.sort();
    names
}

/// The names `sql::flink_calls` and `expr::scalar_fn` give the clock
/// functions Flink writes without parentheses or as a call, with their
/// types: `LOCALTIMESTAMP` is a `TIMESTAMP(3)`, `PROCTIME()` a
/// `TIMESTAMP_LTZ(3)`.
pub(crate) fn clock_functions() -> Vec<Arc<ScalarUDF>> {
    fn local(_: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Timestamp(TimeUnit::Millisecond, None))
    }
    fn ltz(_: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("UTC".into()),
        ))
    }
    fn unreachable(_: &str, _: &[ArrayRef], _: usize, _: &DataType) -> DfResult<ArrayRef> {
        exec_err!("the clock functions are fixed when the query is compiled")
    }
    vec![
        function(
            "localtimestamp",
            (0, 0),
            Volatility::Stable,
            local,
            None,
            unreachable,
        ),
        function(
            "proctime",
            (0, 0),
            Volatility::Stable,
            ltz,
            None,
            unreachable,
        ),
    ]
}

// ------------------------------------------------------ argument readers

/// The constant text of a literal argument, if it is one (`Some(None)`:
/// a NULL literal).
fn literal_text(arg: Option<&ScalarValue>) -> Option<Option<String>> {
    let v = arg?;
    if v.is_null() {
        return Some(None);
    }
    v.try_as_str().map(|s| s.map(str::to_string))
}

/// `a`'s values as text (a timestamp in the timestamp text format), NULLs
/// as `None`.
fn strings(a: &ArrayRef) -> DfResult<Vec<Option<String>>> {
    let text = time_text::cast(a, &DataType::Utf8, &Default::default())?;
    Ok(text
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect())
}

/// `a`'s values as 64-bit integers (converted as a CAST would), NULLs as
/// `None`.
fn integers(a: &ArrayRef) -> DfResult<Vec<Option<i64>>> {
    let ints = arrow_cast::cast(a, &DataType::Int64)?;
    Ok(ints.as_primitive::<Int64Type>().iter().collect())
}

/// `a`'s values as dates and times: a timestamp (with a zone: its
/// wall-clock time there), a date (midnight), or text in Flink's default
/// format (`yyyy-MM-dd[ HH:mm[:ss[.fraction]]]`; other text is NULL).
fn date_times(a: &ArrayRef) -> DfResult<Vec<Option<NaiveDateTime>>> {
    let out = match a.data_type() {
        DataType::Timestamp(unit, tz) => {
            let zone: Option<arrow_array::timezone::Tz> =
                tz.as_deref().map(str::parse).transpose()?;
            let values = arrow_cast::cast(a, &DataType::Int64)?;
            let values = values.as_primitive::<Int64Type>();
            values
                .iter()
                .map(|v| {
                    let t = v.and_then(|v| time_text::to_naive(v, *unit))?;
                    Some(match &zone {
                        Some(z) => time_text::in_zone(t, z),
                        None => t,
                    })
                })
                .collect()
        }
        DataType::Date32 | DataType::Date64 => {
            let d = arrow_cast::cast(a, &DataType::Date32)?;
            let d = d.as_primitive::<arrow_array::types::Date32Type>();
            d.iter()
                .map(|v| {
                    let v = v?;
                    arrow_array::temporal_conversions::as_datetime::<
                        arrow_array::types::Date32Type,
                    >(i64::from(v))
                })
                .collect()
        }
        DataType::Null => vec![None; a.len()],
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => strings(a)?
            .into_iter()
            .map(|s| s.and_then(|s| java_pattern::parse_default_timestamp(&s)))
            .collect(),
        other => {
            return exec_err!("takes a timestamp, a date or a string, not {other}");
        }
    };
    Ok(out)
}

/// Whether `t` is a type [`date_times`] reads.
fn is_date_time_or_text(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Timestamp(..)
            | DataType::Date32
            | DataType::Date64
            | DataType::Null
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
    )
}

/// Milliseconds since the epoch of `t` read as UTC.
fn epoch_millis(t: &NaiveDateTime) -> i64 {
    t.and_utc().timestamp_millis()
}

/// An array of `t` values, the result type of a call.
fn timestamps_of(values: Vec<Option<NaiveDateTime>>, t: &DataType) -> DfResult<ArrayRef> {
    let DataType::Timestamp(unit, tz) = t else {
        return exec_err!("internal: not a timestamp result type: {t}");
    };
    let ints: Vec<Option<i64>> = values
        .iter()
        .map(|v| {
            let v = v.as_ref()?;
            let u = v.and_utc();
            match unit {
                TimeUnit::Second => Some(u.timestamp()),
                TimeUnit::Millisecond => Some(u.timestamp_millis()),
                TimeUnit::Microsecond => Some(u.timestamp_micros()),
                TimeUnit::Nanosecond => u.timestamp_nanos_opt(),
            }
        })
        .collect();
    let a: ArrayRef = Arc::new(arrow_array::Int64Array::from(ints));
    let naive = arrow_cast::cast(&a, &DataType::Timestamp(*unit, None))?;
    // the values are wall-clock times: with a zone, they are read there
    match tz {
        None => Ok(naive),
        Some(_) => Ok(arrow_cast::cast(&naive, t)?),
    }
}

/// The length every argument array has.
fn rows_of(args: &[ArrayRef], rows: usize) -> usize {
    args.first().map_or(rows, |a| a.len())
}

//! One aggregate call compiled: which function, its argument and filter as
//! [`PhysicalExpr`]s, and the types it reads, accumulates and returns.
//!
//! The types follow DataFusion's signatures (the logical plan's schema was
//! derived with them), argument coercion included, since the front end does
//! not run DataFusion's coercion analyzer:
//!
//! | call           | argument cast to            | output                                  |
//! |----------------|-----------------------------|-----------------------------------------|
//! | `count(..)`    | (not cast)                  | Int64                                   |
//! | `sum(ints)`    | Int64 / UInt64 (unsigned)   | Int64 / UInt64                          |
//! | `sum(floats)`  | Float64                     | Float64                                 |
//! | `sum(dec(p,s))`| (summed as Decimal128)      | same width, `(min(max, p + 10), s)`     |
//! | `avg(numbers)` | Float64                     | Float64                                 |
//! | `avg(dec(p,s))`| (summed as Decimal128)      | same width, `(min(max, p + 4), min(max, s + 4))` |
//! | `min`, `max`   | the argument's type (a dictionary's value type) | the same          |
//!
//! The result is then compared with the plan's schema: equal, or cast to
//! the schema's type when Arrow can, or an error naming both types.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Decimal128Type, Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch};
use arrow_cast::{CastOptions, can_cast_types, cast_with_options};
use arrow_schema::{ArrowError, DataType, Field};
use datafusion_common::DFSchema;
use datafusion_expr::Expr;
use datafusion_expr::expr::AggregateFunction;

use super::accumulate::{Accumulator, AvgAcc, CountAcc, SumAcc, overflow};
use super::collection::{CollectionAcc, Make, output_type};
use super::distinct::DistinctAcc;
use super::min_max::min_max;
use crate::exec::error::{ExecError, Result};
use crate::expr::{PhysicalExpr, QueryContext};

/// What tenon aggregates, for error messages.
const SUPPORTED: &str = "tenon runs count(*), count(x), sum, min, max and avg (alias mean), \
                         with DISTINCT and FILTER (WHERE ...), and array_agg and collect \
                         (with FILTER)";

/// The aggregate functions tenon runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Func {
    /// `count(*)`, `count(x)`.
    Count,
    /// `sum(x)`.
    Sum,
    /// `avg(x)`.
    Avg,
    /// `min(x)`.
    Min,
    /// `max(x)`.
    Max,
    /// `array_agg(x)`: the values as an array.
    ArrayAgg,
    /// `collect(x)`: the values as a multiset.
    Collect,
}

/// An aggregate call that reads one input column as it is (or no column:
/// `count(*)`), without DISTINCT or FILTER, for an operator that
/// accumulates it itself and hands the state back to the call's own
/// accumulator ([`HashAggregate::merge_states`](crate::exec::HashAggregate)).
#[derive(Debug, Clone)]
pub(crate) struct ColumnCall {
    /// The call's text (its output column's name).
    pub name: Arc<str>,
    /// The function.
    pub func: Func,
    /// The input column (`None`: `count(*)`).
    pub column: Option<usize>,
    /// The type the column's values are cast to before they are
    /// accumulated (see the module docs' table).
    pub input: DataType,
    /// The type of the state the accumulator produces (a sum's type).
    pub produces: DataType,
}

/// One compiled aggregate call.
#[derive(Debug, Clone)]
pub(super) struct AggSpec {
    /// The output column's name (`count(*)`, `sum(t.b)`): the call's text.
    pub(super) name: Arc<str>,
    func: Func,
    /// `None` for `count(*)` (and `count` of a non-NULL constant).
    arg: Option<PhysicalExpr>,
    /// The type the argument is cast to before it is accumulated.
    input: DataType,
    /// The type the accumulator produces.
    produces: DataType,
    /// The output column's type (the plan's schema).
    output: DataType,
    distinct: bool,
    filter: Option<PhysicalExpr>,
}

impl AggSpec {
    /// The input columns the argument and filter read.
    pub(super) fn columns(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .arg
            .iter()
            .chain(&self.filter)
            .flat_map(PhysicalExpr::columns)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Reads input column `map(i)` wherever it read column `i`.
    pub(super) fn remap_columns(&mut self, map: &impl Fn(usize) -> usize) {
        self.arg = self.arg.as_ref().map(|e| e.remap_columns(map));
        self.filter = self.filter.as_ref().map(|e| e.remap_columns(map));
    }

    /// Compiles `expr` (an aggregate call, possibly aliased) over the input
    /// `schema`; `field` is its output field in the plan's schema.
    ///
    /// # Errors
    ///
    /// [`ExecError::Unsupported`] for other functions and argument types,
    /// compile errors of the argument and filter, and an output type that
    /// does not match the schema's.
    pub(super) fn compile(
        expr: &Expr,
        field: &Field,
        schema: &DFSchema,
        ctx: &QueryContext,
    ) -> Result<Self> {
        let name: Arc<str> = field.name().as_str().into();
        let mut call = expr;
        while let Expr::Alias(a) = call {
            call = &a.expr;
        }
        let Expr::AggregateFunction(AggregateFunction { func, params }) = call else {
            return Err(ExecError::Unsupported(format!(
                "aggregate expression `{name}` is not an aggregate call; {SUPPORTED}"
            )));
        };
        let func = match func.name().to_ascii_lowercase().as_str() {
            "count" => Func::Count,
            "sum" => Func::Sum,
            "avg" | "mean" => Func::Avg,
            "min" => Func::Min,
            "max" => Func::Max,
            "array_agg" => Func::ArrayAgg,
            "collect" => Func::Collect,
            other => {
                return Err(ExecError::Unsupported(format!(
                    "aggregate function `{other}` in `{name}`; {SUPPORTED}"
                )));
            }
        };
        let [arg] = params.args.as_slice() else {
            return Err(ExecError::Unsupported(format!(
                "`{name}` with {} arguments; {SUPPORTED}, each with one argument",
                params.args.len()
            )));
        };
        let collection = matches!(func, Func::ArrayAgg | Func::Collect);
        if collection && params.distinct {
            return Err(ExecError::Unsupported(format!(
                "`{name}` with DISTINCT: tenon runs array_agg and collect over all values \
                 (a multiset counts repeats: `collect(x)`; distinct values: `array_agg(x)` \
                 over `SELECT DISTINCT`)"
            )));
        }
        if collection && !params.order_by.is_empty() {
            return Err(ExecError::Unsupported(format!(
                "`{name}` with ORDER BY inside the call: not supported yet; array_agg's \
                 elements come in arrival order"
            )));
        }
        let filter = params
            .filter
            .as_deref()
            .map(|f| PhysicalExpr::compile(f, schema, ctx))
            .transpose()?;
        if let Some(f) = &filter
            && f.data_type() != &DataType::Boolean
        {
            return Err(ExecError::Unsupported(format!(
                "`{name}`: FILTER (WHERE {f}) has type {}; it must be a boolean condition",
                f.data_type()
            )));
        }
        let count_rows = func == Func::Count
            && !params.distinct
            && matches!(arg, Expr::Literal(v, _) if !v.is_null());
        // `count(*)` is planned as `count(Int64(1))`: show it as written
        let name: Arc<str> = if count_rows {
            let planned = format!("count({})", arg.schema_name());
            name.replacen(&planned, "count(*)", 1).into()
        } else {
            name
        };
        let arg = if count_rows {
            None
        } else {
            Some(PhysicalExpr::compile(arg, schema, ctx)?)
        };
        let arg_type = arg
            .as_ref()
            .map_or(DataType::Int64, |a| a.data_type().clone());
        let (input, produces, expected) = types(func, &arg_type).ok_or_else(|| {
            ExecError::Unsupported(format!(
                "`{name}` over {arg_type}: sum and avg take integers, floats and decimals; \
                 cast the argument to one of them"
            ))
        })?;
        let output = field.data_type().clone();
        if expected != output && !can_cast_types(&expected, &output) {
            return Err(ExecError::Unsupported(format!(
                "`{name}`: tenon computes {expected} from an argument of type {arg_type}, but \
                 the plan's schema says {output}; cast the argument explicitly"
            )));
        }
        Ok(AggSpec {
            name,
            func,
            arg,
            input,
            produces,
            output,
            // min and max are the same over distinct values
            distinct: params.distinct && matches!(func, Func::Count | Func::Sum | Func::Avg),
            filter,
        })
    }

    /// The call as a [`ColumnCall`], when it is one.
    pub(super) fn column_call(&self) -> Option<ColumnCall> {
        if self.distinct
            || self.filter.is_some()
            || matches!(self.func, Func::ArrayAgg | Func::Collect)
        {
            return None;
        }
        let column = match &self.arg {
            None => None,
            Some(a) => Some(a.as_column()?),
        };
        Some(ColumnCall {
            name: Arc::clone(&self.name),
            func: self.func,
            column,
            input: self.input.clone(),
            produces: self.produces.clone(),
        })
    }

    /// Whether the aggregate's partial state is (group, value) pairs: a
    /// DISTINCT aggregate's, array_agg's and collect's.
    pub(super) fn state_is_pairs(&self) -> bool {
        self.distinct || matches!(self.func, Func::ArrayAgg | Func::Collect)
    }

    /// A fresh accumulator.
    ///
    /// # Errors
    ///
    /// An input type without an accumulator.
    pub(super) fn accumulator(&self) -> Result<Box<dyn Accumulator>> {
        let name = Arc::clone(&self.name);
        let unsupported =
            || ExecError::Unsupported(format!("`{}` over {}; {SUPPORTED}", self.name, self.input));
        let plain: Box<dyn Accumulator> = match self.func {
            Func::Count => Box::new(CountAcc::new()),
            Func::Sum => match &self.produces {
                DataType::Int64 => Box::new(SumAcc::<Int64Type>::new(name, DataType::Int64)),
                DataType::UInt64 => Box::new(SumAcc::<UInt64Type>::new(name, DataType::UInt64)),
                DataType::Float64 => Box::new(SumAcc::<Float64Type>::new(name, DataType::Float64)),
                DataType::Decimal128(..) => {
                    Box::new(SumAcc::<Decimal128Type>::new(name, self.produces.clone()))
                }
                _ => return Err(unsupported()),
            },
            Func::Avg => match (&self.input, &self.produces) {
                (DataType::Float64, DataType::Float64) => Box::new(AvgAcc::<Float64Type>::new(
                    name,
                    DataType::Float64,
                    DataType::Float64,
                )),
                (DataType::Decimal128(_, s), DataType::Decimal128(..)) => {
                    Box::new(AvgAcc::<Decimal128Type>::new(
                        name,
                        DataType::Decimal128(38, *s),
                        self.produces.clone(),
                    ))
                }
                _ => return Err(unsupported()),
            },
            Func::Min | Func::Max => min_max(name, &self.input, self.func == Func::Max)?,
            Func::ArrayAgg => {
                Box::new(CollectionAcc::new(name, Make::Array, self.produces.clone()))
            }
            Func::Collect => Box::new(CollectionAcc::new(
                name,
                Make::Multiset,
                self.produces.clone(),
            )),
        };
        if self.distinct {
            Ok(Box::new(DistinctAcc::new(
                Arc::clone(&self.name),
                &self.input,
                plain,
            )?))
        } else {
            Ok(plain)
        }
    }

    /// The argument's values on `batch`, cast to the input type (`None` for
    /// `count(*)`).
    ///
    /// # Errors
    ///
    /// Evaluation errors of the argument, and a failing cast.
    pub(super) fn values(&self, batch: &RecordBatch) -> Result<Option<ArrayRef>> {
        let Some(arg) = &self.arg else {
            return Ok(None);
        };
        // A sum reads a held table's narrow values (and arithmetic over
        // them) as unscaled integers (`lanes`), of the scale it sums at.
        if matches!(self.func, Func::Sum | Func::Avg)
            && !self.distinct
            && (arg.data_type == self.input
                || matches!(
                    (&arg.data_type, &self.input),
                    (DataType::Decimal128(_, a), DataType::Decimal128(_, b)) if a == b
                ))
            && let Some(narrow) = crate::expr::evaluate_narrow(arg, batch)?
        {
            return Ok(Some(narrow));
        }
        let values = arg.evaluate(batch)?;
        if values.data_type() == &self.input
            || matches!(
                (values.data_type(), &self.input),
                (DataType::Decimal128(_, a), DataType::Decimal128(_, b)) if a == b
            )
        {
            return Ok(Some(values));
        }
        cast(&values, &self.input)
            .map(Some)
            .map_err(|e| ExecError::arrow(format!("aggregate `{}` (argument)", self.name), e))
    }

    /// Which rows of `batch` the aggregate reads: `None` for all of them,
    /// else the rows where FILTER (WHERE ...) is true.
    ///
    /// # Errors
    ///
    /// Evaluation errors of the filter.
    pub(super) fn selection(&self, batch: &RecordBatch) -> Result<Option<BooleanArray>> {
        let Some(filter) = &self.filter else {
            return Ok(None);
        };
        let keep = filter.evaluate_predicate(batch)?;
        let keep = match keep.nulls() {
            Some(_) => arrow_select::filter::prep_null_mask_filter(&keep),
            None => keep,
        };
        Ok((keep.true_count() < keep.len()).then_some(keep))
    }

    /// The accumulator's output as the schema's type.
    ///
    /// # Errors
    ///
    /// A decimal result that does not fit the output precision (an
    /// overflow), or a failing cast.
    pub(super) fn finish(&self, array: ArrayRef) -> Result<ArrayRef> {
        // decimal sums are held at precision 38: check the output's
        if let (DataType::Decimal128(..), Some(precision)) =
            (array.data_type(), decimal_precision(&self.output))
        {
            array
                .as_primitive::<Decimal128Type>()
                .validate_decimal_precision(precision)
                .map_err(|e| {
                    overflow(
                        &self.name,
                        format!("{e}: the result does not fit {}", self.output),
                    )
                })?;
        }
        if array.data_type() == &self.output {
            return Ok(array);
        }
        cast(&array, &self.output).map_err(|e| match e {
            ArrowError::ArithmeticOverflow(_) | ArrowError::InvalidArgumentError(_)
                if self.output.is_numeric() =>
            {
                overflow(
                    &self.name,
                    format!("{e}: the result does not fit {}", self.output),
                )
            }
            e => ExecError::arrow(format!("aggregate `{}` (result)", self.name), e),
        })
    }

    /// The call as text (its output column name).
    pub(super) fn name(&self) -> &str {
        &self.name
    }
}

/// The precision of a decimal type.
fn decimal_precision(t: &DataType) -> Option<u8> {
    match *t {
        DataType::Decimal32(p, _)
        | DataType::Decimal64(p, _)
        | DataType::Decimal128(p, _)
        | DataType::Decimal256(p, _) => Some(p),
        _ => None,
    }
}

fn cast(array: &ArrayRef, to: &DataType) -> Result<ArrayRef, ArrowError> {
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    cast_with_options(array, to, &options)
}

/// `(argument cast to, accumulator produces, output)` of `func` over an
/// argument of type `arg`, or `None` if `func` does not take `arg`.
fn types(func: Func, arg: &DataType) -> Option<(DataType, DataType, DataType)> {
    use DataType as D;
    let same = |t: &DataType| Some((t.clone(), t.clone(), t.clone()));
    // (decimal's max precision, precision, scale) of a decimal argument
    let decimal = |t: &DataType| match *t {
        D::Decimal32(p, s) => Some((9, p, s)),
        D::Decimal64(p, s) => Some((18, p, s)),
        D::Decimal128(p, s) => Some((38, p, s)),
        _ => None,
    };
    // a decimal type of the argument's width
    let like = |t: &DataType, p: u8, s: i8| match t {
        D::Decimal32(..) => D::Decimal32(p, s),
        D::Decimal64(..) => D::Decimal64(p, s),
        _ => D::Decimal128(p, s),
    };
    match func {
        Func::Count => Some((arg.clone(), D::Int64, D::Int64)),
        Func::ArrayAgg | Func::Collect => {
            let make = if func == Func::ArrayAgg {
                Make::Array
            } else {
                Make::Multiset
            };
            let out = output_type(make, arg);
            Some((arg.clone(), out.clone(), out))
        }
        Func::Min | Func::Max => match arg {
            D::Dictionary(_, value) => same(value),
            other => same(other),
        },
        Func::Sum => match arg {
            D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::Null => same(&D::Int64),
            D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => same(&D::UInt64),
            D::Float16 | D::Float32 | D::Float64 => same(&D::Float64),
            t => {
                let (max, p, s) = decimal(t)?;
                let input = if matches!(t, D::Decimal128(..)) {
                    t.clone()
                } else {
                    D::Decimal128(38, s)
                };
                Some((input, D::Decimal128(38, s), like(t, max.min(p + 10), s)))
            }
        },
        Func::Avg => match arg {
            t if t.is_integer() || t.is_floating() || t.is_null() => same(&D::Float64),
            t => {
                let (max, p, s) = decimal(t)?;
                let input = if matches!(t, D::Decimal128(..)) {
                    t.clone()
                } else {
                    D::Decimal128(38, s)
                };
                let (p, s) = (max.min(p + 4), (max as i8).min(s + 4));
                Some((input, D::Decimal128(p, s), like(t, p, s)))
            }
        },
    }
}

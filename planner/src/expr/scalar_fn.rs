//! Scalar functions: the per-query clock functions, COALESCE and NULLIF
//! natively, everything else through DataFusion's own vectorized
//! implementations (`datafusion-functions`: SUBSTR, UPPER, LOWER, ABS,
//! `date_part` / EXTRACT, ...), with their arguments cast to the function's
//! signature at compile time.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, FieldRef};
use datafusion_common::ScalarValue;
use datafusion_expr::binary::comparison_coercion;
use datafusion_expr::binary::type_union_resolution;
use datafusion_expr::expr::ScalarFunction;
use datafusion_expr::type_coercion::functions::fields_with_udf;
use datafusion_expr::{ReturnFieldArgs, ScalarFunctionArgs};

use crate::expr::coerce::{cast_to, comparison_type};
use crate::expr::compile::{Compiler, literal};
use crate::expr::error::{ExprError, Result};
use crate::expr::physical::{Node, PhysicalExpr};
use crate::expr::value::Value;

/// Compiles a call of a scalar function.
pub(crate) fn compile(c: &Compiler<'_>, f: &ScalarFunction, text: String) -> Result<PhysicalExpr> {
    let name = f.func.name().to_ascii_lowercase();
    let no_field_args = ReturnFieldArgs {
        arg_fields: &[],
        scalar_arguments: &[],
    };
    // The clock functions: one value per query (docs/hints.md J05).
    match name.as_str() {
        "now" | "current_timestamp" => {
            let field = f
                .func
                .return_field_from_args(no_field_args)
                .map_err(|e| ExprError::datafusion(&text, e))?;
            let tz = match field.data_type() {
                DataType::Timestamp(_, tz) => tz.clone(),
                _ => Some("+00:00".into()),
            };
            let v = ScalarValue::TimestampNanosecond(Some(c.ctx.start_nanos()), tz);
            return literal(&v, text);
        }
        // Flink's LOCALTIMESTAMP (a TIMESTAMP(3)) and PROCTIME() (a
        // TIMESTAMP_LTZ(3)): the query's start, in milliseconds.
        "localtimestamp" | "proctime" if f.args.is_empty() => {
            let millis = c.ctx.start_nanos().div_euclid(1_000_000);
            let tz = (name == "proctime").then(|| "UTC".into());
            return literal(&ScalarValue::TimestampMillisecond(Some(millis), tz), text);
        }
        // Flink's UNIX_TIMESTAMP(): the query's start in seconds.
        "unix_timestamp" if f.args.is_empty() => {
            let secs = c.ctx.start_nanos().div_euclid(1_000_000_000);
            return literal(&ScalarValue::Int64(Some(secs)), text);
        }
        "current_date" | "today" => {
            return literal(&ScalarValue::Date32(Some(c.ctx.current_date())), text);
        }
        "current_time" => {
            return literal(
                &ScalarValue::Time64Nanosecond(Some(c.ctx.current_time())),
                text,
            );
        }
        _ => {}
    }
    let args = f
        .args
        .iter()
        .map(|a| c.compile(a))
        .collect::<Result<Vec<_>>>()?;
    match name.as_str() {
        // Flink's IFNULL(a, b): the type of `a`, `b` converted to it
        // (`IFNULL(ts, '2099-01-01')` is a timestamp).
        // (DataFusion names IFNULL `nvl`, whose rule is the same.)
        "ifnull" | "nvl" if args.len() == 2 && args[0].data_type() != &DataType::Null => {
            let t = args[0].data_type().clone();
            let args = args
                .into_iter()
                .map(|a| cast_to(a, &t, &text))
                .collect::<Result<Vec<_>>>()?;
            Ok(PhysicalExpr::new(Node::Coalesce(args), t, text))
        }
        "coalesce" | "nvl" | "ifnull" if !args.is_empty() => {
            let types: Vec<DataType> = args.iter().map(|a| a.data_type().clone()).collect();
            let t = type_union_resolution(&types).ok_or_else(|| {
                ExprError::type_error(
                    &text,
                    format!("the arguments have types {types:?} that do not meet in one type"),
                )
            })?;
            let args = args
                .into_iter()
                .map(|a| cast_to(a, &t, &text))
                .collect::<Result<Vec<_>>>()?;
            Ok(PhysicalExpr::new(Node::Coalesce(args), t, text))
        }
        "nullif" if args.len() == 2 => {
            let mut it = args.into_iter();
            let (a, b) = (it.next(), it.next());
            let (Some(a), Some(b)) = (a, b) else {
                return Err(ExprError::unsupported(text, "NULLIF takes two arguments"));
            };
            comparison_type(&a, &b, &text)?;
            let t = comparison_coercion(a.data_type(), b.data_type()).ok_or_else(|| {
                ExprError::type_error(
                    &text,
                    format!("cannot compare {} with {}", a.data_type(), b.data_type()),
                )
            })?;
            let (a, b) = (cast_to(a, &t, &text)?, cast_to(b, &t, &text)?);
            Ok(PhysicalExpr::new(Node::NullIf(a, b), t, text))
        }
        "array_element" if args.len() == 2 => array_element(c, f, args, text),
        "arrow_cast" => arrow_cast(args, text),
        _ => udf(c, f, args, text),
    }
}

/// `arrow_cast(x, 'Int64')`: a CAST to the Arrow type named by the text
/// (DataFusion plans it as a CAST before running; tenon does it here).
fn arrow_cast(args: Vec<PhysicalExpr>, text: String) -> Result<PhysicalExpr> {
    let usage = "arrow_cast takes a value and an Arrow type name as literal text:                  arrow_cast(x, 'Int64')";
    let mut it = args.into_iter();
    let (Some(value), Some(type_name), None) = (it.next(), it.next(), it.next()) else {
        return Err(ExprError::unsupported(text, usage));
    };
    let name = match &*type_name.node {
        Node::Literal(v) => ScalarValue::try_from_array(v.inner().as_ref(), 0)
            .ok()
            .and_then(|s| s.try_as_str().flatten().map(str::to_string)),
        _ => None,
    };
    let Some(name) = name else {
        return Err(ExprError::unsupported(text, usage));
    };
    let to: DataType = name.parse().map_err(|_| {
        ExprError::type_error(
            &text,
            format!(
                "'{name}' is not an Arrow type name (write one as Arrow prints it: 'Int64',                  'Utf8', 'Timestamp(Millisecond, None)', ...)"
            ),
        )
    })?;
    if value.data_type() == &to {
        return Ok(value);
    }
    if !arrow_cast::can_cast_types(value.data_type(), &to) {
        return Err(ExprError::type_error(
            &text,
            format!("cannot cast {} to {to}", value.data_type()),
        ));
    }
    Ok(PhysicalExpr::new(
        Node::Cast {
            input: value,
            safe: false,
        },
        to,
        text,
    ))
}

/// `arr[i]`: 1-based, as in Flink; an index past either end (0, negative
/// and beyond any list's length included) gives NULL, where DataFusion's `array_element`
/// counts a negative index from the end. A literal 0 is refused, since it
/// is always a mistake for a 1-based index.
fn array_element(
    c: &Compiler<'_>,
    f: &ScalarFunction,
    args: Vec<PhysicalExpr>,
    text: String,
) -> Result<PhysicalExpr> {
    let literal_index = match &*args[1].node {
        Node::Literal(v) => ScalarValue::try_from_array(v.inner().as_ref(), 0)
            .ok()
            .and_then(|s| s.cast_to(&DataType::Int64).ok()),
        _ => None,
    };
    // A List's offsets are 32-bit: no index beyond i32::MAX is inside one
    // (DataFusion errors on such an index instead of giving NULL).
    let last = match args[0].data_type() {
        DataType::LargeList(_) => i64::MAX,
        _ => i64::from(i32::MAX),
    };
    if let Some(ScalarValue::Int64(Some(i))) = literal_index
        && (i <= 0 || i > last)
    {
        if i == 0 {
            return Err(ExprError::unsupported(
                text,
                "arrays are 1-based (as in Flink and the SQL standard): the first element is \
                 `arr[1]`",
            ));
        }
        let call = udf(c, f, args, text.clone())?;
        let null =
            ScalarValue::try_from(call.data_type()).map_err(|e| ExprError::datafusion(&text, e))?;
        return literal(&null, text);
    }
    let index = f.args[1].clone();
    let positive = c.compile(
        &index
            .clone()
            .gt_eq(datafusion_expr::lit(1i64))
            .and(index.lt_eq(datafusion_expr::lit(last))),
    )?;
    let call = udf(c, f, args, text.clone())?;
    if literal_index.is_some() {
        return Ok(call);
    }
    let t = call.data_type().clone();
    Ok(PhysicalExpr::new(
        Node::Case {
            branches: vec![(positive, call)],
            otherwise: None,
        },
        t,
        text,
    ))
}

/// A DataFusion function called through its `invoke_with_args`.
fn udf(
    c: &Compiler<'_>,
    f: &ScalarFunction,
    args: Vec<PhysicalExpr>,
    text: String,
) -> Result<PhysicalExpr> {
    let func = Arc::clone(&f.func);
    let fields: Vec<FieldRef> = args
        .iter()
        .enumerate()
        .map(|(i, a)| Arc::new(Field::new(format!("arg{i}"), a.data_type().clone(), true)))
        .collect();
    let coerced = fields_with_udf(&fields, func.as_ref()).map_err(|e| {
        let types: Vec<String> = fields.iter().map(|f| f.data_type().to_string()).collect();
        ExprError::type_error(
            &text,
            format!(
                "{}() does not take arguments of types ({}): {}",
                func.name(),
                types.join(", "),
                crate::sql::planner_words(&e.strip_backtrace())
            ),
        )
    })?;
    let args = args
        .into_iter()
        .zip(&coerced)
        .map(|(a, f)| cast_to(a, f.data_type(), &text))
        .collect::<Result<Vec<_>>>()?;
    let scalars: Vec<Option<ScalarValue>> = args
        .iter()
        .map(|a| match &*a.node {
            Node::Literal(v) => ScalarValue::try_from_array(v.inner().as_ref(), 0).ok(),
            _ => None,
        })
        .collect();
    let scalar_refs: Vec<Option<&ScalarValue>> = scalars.iter().map(Option::as_ref).collect();
    let return_field = func
        .return_field_from_args(ReturnFieldArgs {
            arg_fields: &coerced,
            scalar_arguments: &scalar_refs,
        })
        .map_err(|e| ExprError::datafusion(&text, e))?;
    let t = return_field.data_type().clone();
    Ok(PhysicalExpr::new(
        Node::Function {
            func,
            args,
            arg_fields: coerced,
            return_field,
            config: Arc::clone(c.ctx.config()),
        },
        t,
        text,
    ))
}

/// Evaluates a DataFusion function node.
pub(crate) fn evaluate(expr: &PhysicalExpr, batch: &RecordBatch) -> Result<Value> {
    let Node::Function {
        func,
        args,
        arg_fields,
        return_field,
        config,
    } = &*expr.node
    else {
        return Err(ExprError::unsupported(
            &expr.text,
            "internal: not a function node (please report)",
        ));
    };
    let arrow = |e: arrow_schema::ArrowError| ExprError::arrow(&expr.text, e);
    let values = args
        .iter()
        .map(|a| a.evaluate_value(batch))
        .collect::<Result<Vec<_>>>()?;
    crate::expr::string_size::check(
        &expr.text,
        &func.name().to_ascii_lowercase(),
        &values,
        batch.num_rows(),
    )?;
    let all_scalar = values.iter().all(Value::is_scalar);
    let columnar = values
        .iter()
        .map(|v| v.to_columnar().map_err(arrow))
        .collect::<Result<Vec<_>>>()?;
    let out = func
        .invoke_with_args(ScalarFunctionArgs {
            args: columnar,
            arg_fields: arg_fields.clone(),
            // a volatile function (RAND, UUID) gives each row its own value
            number_rows: if all_scalar
                && !args.is_empty()
                && func.signature().volatility != datafusion_expr::Volatility::Volatile
            {
                1
            } else {
                batch.num_rows()
            },
            return_field: Arc::clone(return_field),
            config_options: Arc::clone(config),
        })
        .map_err(|e| ExprError::datafusion(&expr.text, e))?;
    let v = Value::from_columnar(out).map_err(arrow)?;
    if v.data_type() != expr.data_type() {
        return Err(ExprError::Eval {
            expr: expr.text.to_string(),
            message: format!(
                "{}() returned {} where {} was declared",
                func.name(),
                v.data_type(),
                expr.data_type()
            ),
        });
    }
    Ok(v)
}

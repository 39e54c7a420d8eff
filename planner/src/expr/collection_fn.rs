//! Functions of collections that tenon defines itself: `ELEMENT(x)`,
//! `CARDINALITY(x)` (which counts a multiset's repeats) and the `COLLECT(x)`
//! aggregate's signature (the executor's aggregate runs it:
//! `exec::aggregate`).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, new_null_array};
use arrow_schema::{DataType, Field, FieldRef};
use datafusion_common::{Result as DfResult, exec_err, internal_err, plan_err};
use datafusion_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, ColumnarValue, ScalarFunctionArgs, ScalarUDF,
    ScalarUDFImpl, Signature, Volatility,
};
use tenon_kernels::{Collection, multiset_type};

/// `ELEMENT(x)`, as in Flink: the only element of an array or multiset,
/// NULL when it is empty or NULL; more than one element is an error.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Element {
    signature: Signature,
}

/// Per row, `(first value index, number of elements)` of a list or
/// multiset, a multiset's repeats counted; `None` for a NULL row.
fn spans(a: &ArrayRef) -> DfResult<Vec<Option<(usize, usize)>>> {
    let rows = 0..a.len();
    Ok(match a.data_type() {
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            rows.map(|r| {
                (!l.is_null(r)).then(|| (l.value_offsets()[r] as usize, l.value_length(r) as usize))
            })
            .collect()
        }
        DataType::LargeList(_) => {
            let l = a.as_list::<i64>();
            rows.map(|r| {
                (!l.is_null(r)).then(|| (l.value_offsets()[r] as usize, l.value_length(r) as usize))
            })
            .collect()
        }
        DataType::FixedSizeList(_, n) => {
            let n = *n as usize;
            rows.map(|r| (!a.is_null(r)).then(|| ((a.offset() + r) * n, n)))
                .collect()
        }
        t if Collection::is_multiset(t) => {
            let m = a.as_map();
            let counts = arrow_cast::cast(m.values(), &DataType::Int64)?;
            let counts = counts.as_primitive::<Int64Type>();
            rows.map(|r| {
                (!m.is_null(r)).then(|| {
                    let (s, e) = (
                        m.value_offsets()[r] as usize,
                        m.value_offsets()[r + 1] as usize,
                    );
                    let n: i64 = (s..e).map(|i| counts.value(i).max(0)).sum();
                    // the first entry with a positive count
                    let first = (s..e).find(|&i| counts.value(i) > 0).unwrap_or(s);
                    (first, n as usize)
                })
            })
            .collect()
        }
        other => return plan_err!("{other} is not an array or a multiset"),
    })
}

impl ScalarUDFImpl for Element {
    fn name(&self) -> &str {
        "element"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> DfResult<DataType> {
        match args {
            [DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _)] => {
                Ok(f.data_type().clone())
            }
            [t] if Collection::is_multiset(t) => match t {
                DataType::Map(entries, _) => match entries.data_type() {
                    DataType::Struct(fs) => Ok(fs[0].data_type().clone()),
                    _ => internal_err!("a multiset without entries"),
                },
                _ => internal_err!("a multiset that is not a map"),
            },
            [t] => plan_err!("ELEMENT takes an array or a multiset, not {t}"),
            _ => plan_err!("ELEMENT takes one argument"),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return exec_err!("ELEMENT takes one argument");
        };
        let a = arg.to_array(args.number_rows)?;
        let values: ArrayRef = match a.data_type() {
            DataType::List(_) => Arc::clone(a.as_list::<i32>().values()),
            DataType::LargeList(_) => Arc::clone(a.as_list::<i64>().values()),
            DataType::FixedSizeList(_, _) => Arc::clone(a.as_fixed_size_list().values()),
            _ => Arc::clone(a.as_map().keys()),
        };
        let mut index: Vec<Option<u32>> = Vec::with_capacity(a.len());
        for (row, span) in spans(&a)?.into_iter().enumerate() {
            index.push(match span {
                None | Some((_, 0)) => None,
                Some((first, 1)) => Some(first as u32),
                Some((_, n)) => {
                    return exec_err!(
                        "ELEMENT of a collection of {n} elements (row {}): it takes one of at \
                         most one element",
                        row + 1
                    );
                }
            });
        }
        let index = arrow_array::UInt32Array::from(index);
        Ok(ColumnarValue::Array(arrow_select::take::take(
            &values, &index, None,
        )?))
    }
}

/// `CARDINALITY(x)`: the number of elements of an array, of entries of a
/// map, of elements of a multiset counting repeats; NULL for NULL.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Cardinality {
    signature: Signature,
}

impl ScalarUDFImpl for Cardinality {
    fn name(&self) -> &str {
        "cardinality"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> DfResult<DataType> {
        match args {
            [
                DataType::List(_)
                | DataType::LargeList(_)
                | DataType::FixedSizeList(_, _)
                | DataType::Map(_, _)
                | DataType::Null,
            ] => Ok(DataType::UInt64),
            [t] => plan_err!("CARDINALITY takes an array, a map or a multiset, not {t}"),
            _ => plan_err!("CARDINALITY takes one argument"),
        }
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return exec_err!("CARDINALITY takes one argument");
        };
        let a = arg.to_array(args.number_rows)?;
        let out: Vec<Option<u64>> = match a.data_type() {
            DataType::Null => {
                return Ok(ColumnarValue::Array(new_null_array(
                    &DataType::UInt64,
                    a.len(),
                )));
            }
            DataType::Map(_, _) if !Collection::is_multiset(a.data_type()) => {
                let m = a.as_map();
                (0..a.len())
                    .map(|r| (!m.is_null(r)).then(|| m.value_length(r) as u64))
                    .collect()
            }
            _ => spans(&a)?
                .into_iter()
                .map(|s| s.map(|(_, n)| n as u64))
                .collect(),
        };
        Ok(ColumnarValue::Array(Arc::new(
            arrow_array::UInt64Array::from(out),
        )))
    }
}

/// `COLLECT(x)`'s signature for the SQL planner: the multiset of the
/// values (Flink's); the executor's aggregate computes it.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Collect {
    signature: Signature,
}

impl AggregateUDFImpl for Collect {
    fn name(&self) -> &str {
        "collect"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> DfResult<DataType> {
        match args {
            [t] => Ok(multiset_type(t.clone())),
            _ => plan_err!("COLLECT takes one argument"),
        }
    }

    fn state_fields(&self, args: StateFieldsArgs) -> DfResult<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(
            "pairs",
            args.return_field.data_type().clone(),
            true,
        ))])
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> DfResult<Box<dyn Accumulator>> {
        internal_err!("COLLECT is run by tenon's aggregate, not DataFusion's")
    }
}

/// The scalar functions of this module.
pub(crate) fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    let any = || Signature::any(1, Volatility::Immutable);
    vec![
        Arc::new(ScalarUDF::new_from_impl(Element { signature: any() })),
        Arc::new(ScalarUDF::new_from_impl(Cardinality { signature: any() })),
    ]
}

/// The aggregate functions of this module.
pub(crate) fn aggregate_functions() -> Vec<Arc<AggregateUDF>> {
    vec![Arc::new(AggregateUDF::new_from_impl(Collect {
        signature: Signature::any(1, Volatility::Immutable),
    }))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::builder::{Int64Builder, ListBuilder};

    #[test]
    fn element_takes_the_one_element_and_refuses_two() {
        let mut b = ListBuilder::new(Int64Builder::new());
        b.append_value([Some(7)]);
        b.append_value([]);
        b.append(false);
        let list: ArrayRef = Arc::new(b.finish());
        let f = Element {
            signature: Signature::any(1, Volatility::Immutable),
        };
        let field = Arc::new(Field::new("x", list.data_type().clone(), true));
        let call = |a: ArrayRef| {
            f.invoke_with_args(ScalarFunctionArgs {
                number_rows: a.len(),
                args: vec![ColumnarValue::Array(a)],
                arg_fields: vec![Arc::clone(&field)],
                return_field: Arc::new(Field::new("e", DataType::Int64, true)),
                config_options: Arc::default(),
            })
        };
        let ColumnarValue::Array(out) = call(Arc::clone(&list)).unwrap() else {
            panic!("an array")
        };
        let out = out.as_primitive::<Int64Type>();
        assert_eq!(out.iter().collect::<Vec<_>>(), vec![Some(7), None, None]);
        let mut b = ListBuilder::new(Int64Builder::new());
        b.append_value([Some(1), Some(2)]);
        let err = call(Arc::new(b.finish())).unwrap_err().to_string();
        assert!(err.contains("collection of 2 elements"), "{err}");
    }
}

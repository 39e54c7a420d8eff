//! The time columns of an as-of join: which types they may have, and
//! their order-preserving images (through [`ordered_values`], the one
//! definition of that image).

use arrow_array::ArrayRef;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Schema};

use super::TimeRule;
use crate::condition::ordered_values;
use crate::error::{KernelError, Result};

/// The largest `Decimal128` precision a time column may have (its values
/// then fit an `i64` exactly).
const MAX_DECIMAL_PRECISION: u8 = 18;

/// Whether an as-of join takes time columns of type `t`: integers,
/// Date32/Date64, Time32/Time64, Timestamp (any unit and time zone:
/// instants), Duration, and Decimal128 of precision at most 18. Floats are
/// refused: a time is exact.
fn time_type_supported(t: &DataType) -> bool {
    use DataType::*;
    match t {
        Decimal128(p, _) => *p <= MAX_DECIMAL_PRECISION,
        Float16 | Float32 | Float64 => false,
        other => crate::condition::range_type_supported(other),
    }
}

/// Checks that the time column(s) of `rule` exist and have one supported
/// type.
pub(super) fn check_time(rule: &TimeRule, left: &Schema, right: &Schema) -> Result<()> {
    let column = |schema: &Schema, side: &str, c: usize| {
        schema.fields().get(c).cloned().ok_or_else(|| {
            KernelError::InvalidOptions(format!(
                "the as-of join's time condition names {side} column {c}, but the {side} input \
                 has {} columns",
                schema.fields().len()
            ))
        })
    };
    let (left_type, right_type) = match *rule {
        TimeRule::Latest(None) => return Ok(()),
        TimeRule::Latest(Some(r)) => (None, column(right, "right", r)?.data_type().clone()),
        TimeRule::Cond(c) => (
            Some(column(left, "left", c.left)?.data_type().clone()),
            column(right, "right", c.right)?.data_type().clone(),
        ),
    };
    if let Some(lt) = &left_type {
        let same = match (lt, &right_type) {
            (DataType::Timestamp(a, _), DataType::Timestamp(b, _)) => a == b,
            (a, b) => a == b,
        };
        if !same {
            return Err(KernelError::InvalidOptions(format!(
                "the as-of join's time condition compares left type {lt} with right type \
                 {right_type}; cast one side so that both have the same type"
            )));
        }
    }
    if !time_type_supported(&right_type) {
        let why = match right_type {
            DataType::Decimal128(p, _) => format!(
                "decimal times need precision {MAX_DECIMAL_PRECISION} or less (this one has \
                 {p}); cast the time to a smaller decimal or an integer"
            ),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => {
                "floats are not exact times; cast the time to an integer, decimal, date or \
                 timestamp"
                    .to_string()
            }
            _ => "use an integer, decimal, date, time, timestamp or duration column".to_string(),
        };
        return Err(KernelError::InvalidOptions(format!(
            "the as-of join's time column has type {right_type}, which cannot be a time: {why}"
        )));
    }
    Ok(())
}

/// One side's times: an order-preserving `i64` per row and the validity.
#[derive(Debug)]
pub(super) struct Times {
    pub values: Vec<i64>,
    pub nulls: Option<NullBuffer>,
}

impl Times {
    /// The times of `column`, or (`None`) each row's number, which orders
    /// rows as the input does (the latest mode without a time column).
    pub(super) fn of(column: Option<&ArrayRef>, rows: usize) -> Result<Times> {
        match column {
            Some(c) => {
                let (values, nulls) = ordered_values(c.as_ref())?;
                Ok(Times {
                    values,
                    nulls: nulls.filter(|n| n.null_count() > 0),
                })
            }
            None => Ok(Times {
                values: (0..rows as i64).collect(),
                nulls: None,
            }),
        }
    }

    /// Whether row `i` has a time.
    #[inline(always)]
    pub(super) fn valid(&self, i: usize) -> bool {
        self.nulls.as_ref().is_none_or(|n| n.is_valid(i))
    }
}

/// `Some(column)` unless the rule needs no column of this side.
pub(super) fn time_column(batch: &arrow_array::RecordBatch, c: Option<usize>) -> Option<&ArrayRef> {
    c.map(|c| batch.column(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::condition::{CmpOp, RangeCondition};
    use arrow_schema::{Field, TimeUnit};

    fn schema(t: DataType) -> Schema {
        Schema::new(vec![Field::new("t", t, true)])
    }

    #[test]
    fn timestamps_of_one_unit_compare_whatever_their_zones() {
        let rule = TimeRule::Cond(RangeCondition::new(0, CmpOp::Ge, 0));
        let l = schema(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some("UTC".into()),
        ));
        let r = schema(DataType::Timestamp(TimeUnit::Millisecond, None));
        assert!(check_time(&rule, &l, &r).is_ok());
        let r = schema(DataType::Timestamp(TimeUnit::Second, None));
        assert!(check_time(&rule, &l, &r).is_err());
    }

    #[test]
    fn row_numbers_stand_for_missing_times() {
        let t = Times::of(None, 3).unwrap();
        assert_eq!(t.values, vec![0, 1, 2]);
        assert!(t.valid(2));
    }
}

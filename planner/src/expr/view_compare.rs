//! `=` and `<>` between a string (or binary) view column and one constant,
//! decided on the 16-byte views themselves.
//!
//! Arrow's generic comparison of view arrays calls a per-row closure that
//! reads each value's bytes; for the short codes TPC-H filters on
//! (`l_returnflag = 'R'`, `r_name = 'EUROPE'`, `l_shipmode IN (...)`) that
//! closure can cost more than any other operator of the query. A view
//! starts with the
//! value's length and, for values of at most 12 bytes, holds the value
//! itself; otherwise its first four bytes. So:
//!
//! * a constant of at most 12 bytes equals a value exactly when the view's
//!   first `4 + len` bytes equal the constant's (one masked `u128` compare
//!   per row, whatever the padding after the value);
//! * a longer constant is compared to the view's length and prefix first
//!   (one `u64` compare), and to the data buffer only when those agree.

use arrow_array::cast::AsArray;
use arrow_array::types::ByteViewType;
use arrow_array::{Array, BooleanArray, GenericByteViewArray};
use arrow_buffer::BooleanBuffer;
use arrow_schema::DataType;

use crate::expr::physical::CompareOp;
use crate::expr::value::Value;

/// The comparison of a view column with a constant, or `None` when this is
/// not one (other types or operators go to Arrow's kernels).
pub(crate) fn try_compare(op: CompareOp, l: &Value, r: &Value) -> Option<BooleanArray> {
    let negate = match op {
        CompareOp::Eq => false,
        CompareOp::NotEq => true,
        _ => return None,
    };
    let (array, constant) = match (l, r) {
        (Value::Array(a), Value::Scalar(s)) | (Value::Scalar(s), Value::Array(a)) => (a, s),
        _ => return None,
    };
    if array.data_type() != constant.data_type() || constant.len() != 1 {
        return None;
    }
    match array.data_type() {
        DataType::Utf8View => Some(equal_to(
            array.as_string_view(),
            constant.as_string_view(),
            negate,
        )),
        DataType::BinaryView => Some(equal_to(
            array.as_binary_view(),
            constant.as_binary_view(),
            negate,
        )),
        _ => None,
    }
}

/// `array = constant[0]` (or `<>` when `negate`), NULL where either is.
fn equal_to<T: ByteViewType + ?Sized>(
    array: &GenericByteViewArray<T>,
    constant: &GenericByteViewArray<T>,
    negate: bool,
) -> BooleanArray {
    if constant.is_null(0) {
        return BooleanArray::new_null(array.len());
    }
    let needle: &[u8] = constant.value(0).as_ref();
    let views = array.views();
    let len = needle.len();
    let values = if len <= 12 {
        let mut key = [0u8; 16];
        key[..4].copy_from_slice(&(len as u32).to_le_bytes());
        key[4..4 + len].copy_from_slice(needle);
        let key = u128::from_le_bytes(key);
        let mask = if len == 12 {
            u128::MAX
        } else {
            (1u128 << ((4 + len) * 8)) - 1
        };
        BooleanBuffer::collect_bool(views.len(), |i| ((views[i] & mask) == key) != negate)
    } else {
        let mut head = [0u8; 8];
        head[..4].copy_from_slice(&(len as u32).to_le_bytes());
        head[4..].copy_from_slice(&needle[..4]);
        let head = u64::from_le_bytes(head);
        let buffers = array.data_buffers();
        BooleanBuffer::collect_bool(views.len(), |i| {
            let view = views[i];
            let hit = view as u64 == head && {
                // A view of a value longer than 12 bytes: buffer index in
                // bits 64..96, offset in bits 96..128.
                let buffer = (view >> 64) as u32 as usize;
                let offset = (view >> 96) as u32 as usize;
                buffers
                    .get(buffer)
                    .and_then(|b| b.get(offset..offset + len))
                    .is_some_and(|bytes| bytes == needle)
            };
            hit != negate
        })
    };
    BooleanArray::new(values, array.nulls().cloned())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, BinaryViewArray, StringViewArray};

    use super::*;

    fn reference(op: CompareOp, l: &Value, r: &Value) -> BooleanArray {
        match op {
            CompareOp::Eq => arrow_ord::cmp::eq(l, r).unwrap(),
            _ => arrow_ord::cmp::neq(l, r).unwrap(),
        }
    }

    fn strings() -> Vec<Option<&'static str>> {
        vec![
            Some(""),
            Some("R"),
            Some("RR"),
            None,
            Some("EUROPE"),
            Some("EUROPEAN"),
            Some("twelve bytes"),
            Some("twelve byteS"),
            Some("thirteen byte"),
            Some("thirteen bytes, and more"),
            Some("thirteen bytez"),
            Some("thirXeen byte"),
            Some("R"),
        ]
    }

    #[test]
    fn agrees_with_arrow_on_every_length_and_both_sides() {
        let values = strings();
        let array: ArrayRef = Arc::new(StringViewArray::from(values.clone()));
        // Also a sliced array, whose views start mid-buffer.
        let sliced = array.slice(2, 9);
        let mut constants: Vec<Option<&str>> = values.clone();
        constants.push(Some("absent but long enough"));
        constants.push(Some("twelve bytez"));
        for column in [&array, &sliced] {
            for c in &constants {
                let constant: ArrayRef = Arc::new(StringViewArray::from(vec![*c]));
                for op in [CompareOp::Eq, CompareOp::NotEq] {
                    let l = Value::Array(column.clone());
                    let r = Value::Scalar(constant.clone());
                    let ours = try_compare(op, &l, &r).expect("a view comparison");
                    assert_eq!(ours, reference(op, &l, &r), "{op:?} {c:?}");
                    let swapped = try_compare(op, &r, &l).expect("a view comparison");
                    assert_eq!(swapped, reference(op, &r, &l), "{op:?} {c:?} swapped");
                }
            }
        }
    }

    #[test]
    fn bytes_after_a_short_value_are_ignored() {
        // "ab" with non-zero bytes after it in the view: valid Arrow (the
        // format does not require zero padding), still equal to 'ab'.
        let mut view = [0u8; 16];
        view[..4].copy_from_slice(&2u32.to_le_bytes());
        view[4..6].copy_from_slice(b"ab");
        view[6..].fill(0x7f);
        let views = arrow_buffer::ScalarBuffer::from(vec![u128::from_le_bytes(view)]);
        let Ok(array) = StringViewArray::try_new(views, vec![], None) else {
            // This Arrow version rejects such views: nothing to check.
            return;
        };
        let constant: ArrayRef = Arc::new(StringViewArray::from(vec!["ab"]));
        let l = Value::Array(Arc::new(array));
        let out = try_compare(CompareOp::Eq, &l, &Value::Scalar(constant)).unwrap();
        assert!(out.value(0));
    }

    #[test]
    fn binary_views() {
        let array: ArrayRef = Arc::new(BinaryViewArray::from(vec![
            Some(b"ab".as_slice()),
            Some(b"abc".as_slice()),
            None,
            Some(b"a long binary value".as_slice()),
        ]));
        let constant: ArrayRef = Arc::new(BinaryViewArray::from(vec![Some(b"ab".as_slice())]));
        let l = Value::Array(array.clone());
        let r = Value::Scalar(constant);
        let ours = try_compare(CompareOp::Eq, &l, &r).unwrap();
        assert_eq!(ours, reference(CompareOp::Eq, &l, &r));
        assert_eq!(
            ours.iter().collect::<Vec<_>>(),
            vec![Some(true), Some(false), None, Some(false)]
        );
    }

    #[test]
    fn other_operators_and_types_are_left_to_arrow() {
        let array: ArrayRef = Arc::new(StringViewArray::from(vec!["a"]));
        let l = Value::Array(array.clone());
        let r = Value::Scalar(array.clone());
        assert!(try_compare(CompareOp::Lt, &l, &r).is_none());
        assert!(try_compare(CompareOp::Eq, &l, &l).is_none());
        let utf8: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["a"]));
        assert!(
            try_compare(
                CompareOp::Eq,
                &Value::Array(utf8.clone()),
                &Value::Scalar(utf8)
            )
            .is_none()
        );
    }

    #[test]
    fn a_null_constant_gives_null_rows() {
        let array: ArrayRef = Arc::new(StringViewArray::from(vec!["a", "b"]));
        let constant: ArrayRef = Arc::new(StringViewArray::from(vec![None::<&str>]));
        let out = try_compare(
            CompareOp::Eq,
            &Value::Array(array),
            &Value::Scalar(constant),
        )
        .unwrap();
        assert_eq!(out.null_count(), 2);
    }
}

//! Hashes of join keys for code outside the kernel that must send equal
//! keys of both sides to the same place: the planner's spilling hash join
//! partitions both inputs by them before it runs this kernel on each
//! partition.

use arrow_array::{Array, ArrayRef};
use arrow_buffer::NullBuffer;

use crate::error::{KernelError, Result};
use crate::kernel::dispatch::with_key_encoding;
use crate::keys::{KeyKind, KeySource};

/// The hash every row with a NULL in a key column gets: such rows never
/// match (or, null-equal, match only each other), so one place holds them.
const NULL_KEY_HASH: u64 = 0x5bd1_e995_9e37_79b9;

/// One 64-bit hash per row of the key columns `cols` (all of one length),
/// equal for rows whose keys the hash join finds equal: the same encoding
/// as the join's (floats canonical, so `-0.0` and `0.0` hash alike), for
/// either side, so that partitioning both sides by these hashes keeps every
/// matching pair inside one partition. Rows with a NULL in any key column
/// all get one hash, whether or not the join is `null_equal`.
///
/// # Errors
///
/// Key types the hash join does not support, or columns of different
/// lengths.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array};
/// use tenon_kernels::key_hashes;
///
/// let a: ArrayRef = Arc::new(Int64Array::from(vec![Some(7), None, Some(7)]));
/// let b: ArrayRef = Arc::new(Int64Array::from(vec![None, Some(7)]));
/// let (ha, hb) = (key_hashes(&[a], false).unwrap(), key_hashes(&[b], false).unwrap());
/// assert_eq!(ha[0], ha[2]);
/// assert_eq!(ha[0], hb[1]);
/// assert_eq!(ha[1], hb[0]); // NULL keys share one hash
/// ```
pub fn key_hashes(cols: &[ArrayRef], null_equal: bool) -> Result<Vec<u64>> {
    let Some(first) = cols.first() else {
        return Err(KernelError::InvalidKeys("no key column to hash".into()));
    };
    let n = first.len();
    if cols.iter().any(|c| c.len() != n) {
        return Err(KernelError::InvalidKeys(
            "key columns of different lengths".into(),
        ));
    }
    let types: Vec<_> = cols.iter().map(|c| c.data_type().clone()).collect();
    let kind = KeyKind::for_join(&types, null_equal)?;
    let mut hashes = with_key_encoding!(&kind, S => {
        let keys = S::encode(&kind, cols)?;
        (0..n).map(|i| S::hash(keys.tag(i))).collect::<Vec<u64>>()
    });
    let nulls: Vec<Option<NullBuffer>> = cols.iter().map(|c| c.logical_nulls()).collect();
    if let Some(nulls) = NullBuffer::union_many(nulls.iter().map(|n| n.as_ref()))
        && nulls.null_count() > 0
    {
        for (h, valid) in hashes.iter_mut().zip(nulls.iter()) {
            if !valid {
                *h = NULL_KEY_HASH;
            }
        }
    }
    Ok(hashes)
}

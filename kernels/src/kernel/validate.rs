//! Checks every kernel makes before it runs, written once so that the
//! strategies reject the same inputs with the same messages.

use arrow_schema::{DataType, Schema};

use super::input::JoinInput;
use crate::error::{KernelError, Result};
use crate::join_type::JoinType;
use crate::keys::KeyKind;

/// Largest row count of one side (row indices are `u32`).
pub(crate) const MAX_ROWS: usize = u32::MAX as usize - 1;

/// Every batch of `input` has the input's column types, and the input is
/// not larger than row indices can address. `side` names it in messages.
pub(crate) fn check_input(input: &JoinInput, side: &'static str) -> Result<()> {
    let want = input.schema().fields();
    for (i, b) in input.batches().iter().enumerate() {
        if !same_types(input.schema(), b) {
            return Err(KernelError::InvalidOptions(format!(
                "batch {i} of the {side} input has schema {:?}, which does not match the \
                 {side} input's schema {want:?}",
                b.schema()
            )));
        }
    }
    let rows = input.num_rows();
    if rows > MAX_ROWS {
        return Err(KernelError::TooManyRows {
            side,
            rows,
            max: MAX_ROWS,
        });
    }
    Ok(())
}

/// The key pairs `on` of a `kernel` ("hash join", "sort-merge join"): at
/// least one, in range, and of equal types on both sides. Returns the key
/// types.
pub(crate) fn check_keys(
    kernel: &str,
    on: &[(usize, usize)],
    left: &Schema,
    right: &Schema,
) -> Result<Vec<DataType>> {
    if on.is_empty() {
        return Err(KernelError::InvalidKeys(format!(
            "a {kernel} needs at least one key pair; use a nested-loop join for conditions \
             without an equality"
        )));
    }
    let mut types = Vec::with_capacity(on.len());
    for (i, &(l, r)) in on.iter().enumerate() {
        if l >= left.fields().len() || r >= right.fields().len() {
            return Err(KernelError::InvalidKeys(format!(
                "key pair {i} is ({l}, {r}), but the left input has {} columns and the right \
                 input {}",
                left.fields().len(),
                right.fields().len()
            )));
        }
        let (lt, rt) = (left.field(l).data_type(), right.field(r).data_type());
        if lt != rt {
            return Err(KernelError::KeyTypeMismatch {
                index: i,
                left: lt.clone(),
                right: rt.clone(),
            });
        }
        types.push(lt.clone());
    }
    Ok(types)
}

/// The equality keys of a kernel that joins on key pairs (hash,
/// sort-merge), and the options that go with them.
#[derive(Debug, Clone)]
pub(crate) struct EquiKeys {
    /// `(left column, right column)` pairs, compared with SQL `=`.
    pub on: Vec<(usize, usize)>,
    /// Compare with `IS NOT DISTINCT FROM` (NULL matches NULL).
    pub null_equal: bool,
    /// A forced partition count (a power of two), else chosen by size.
    pub partitions: Option<usize>,
}

impl EquiKeys {
    /// Keys `on`, NULL never equal, the partition count left to the kernel.
    pub(crate) fn new(on: Vec<(usize, usize)>) -> Self {
        EquiKeys {
            on,
            null_equal: false,
            partitions: None,
        }
    }

    /// The checks of a `kernel` ("hash join") of `join_type` over these
    /// inputs: the key pairs, NOT IN's rules, the partition count and both
    /// inputs. Returns the key types and how they are encoded.
    pub(crate) fn check(
        &self,
        kernel: &str,
        join_type: JoinType,
        left: &JoinInput,
        right: &JoinInput,
    ) -> Result<(Vec<DataType>, KeyKind)> {
        let types = check_keys(kernel, &self.on, left.schema(), right.schema())?;
        check_not_in(join_type, self.on.len(), self.null_equal)?;
        check_partitions(self.partitions)?;
        check_input(left, "left")?;
        check_input(right, "right")?;
        let kind = KeyKind::for_join(&types, self.null_equal)?;
        Ok((types, kind))
    }

    /// The key columns of the left input, in key order.
    pub(crate) fn left_columns(&self) -> Vec<usize> {
        self.on.iter().map(|p| p.0).collect()
    }

    /// The key columns of the right input, in key order.
    pub(crate) fn right_columns(&self) -> Vec<usize> {
        self.on.iter().map(|p| p.1).collect()
    }
}

/// A null-aware anti join (NOT IN) has exactly one key and its own NULL
/// rules.
pub(crate) fn check_not_in(join_type: JoinType, keys: usize, null_equal: bool) -> Result<()> {
    if join_type != JoinType::LeftAntiNullAware {
        return Ok(());
    }
    if keys != 1 {
        return Err(KernelError::InvalidOptions(format!(
            "a null-aware anti join (NOT IN) takes exactly one key pair, got {keys}"
        )));
    }
    if null_equal {
        return Err(KernelError::InvalidOptions(
            "a null-aware anti join (NOT IN) has its own NULL rules and cannot be null-equal"
                .into(),
        ));
    }
    Ok(())
}

/// `batch_size` is at least 1.
pub(crate) fn check_batch_size(n: usize) -> Result<()> {
    if n == 0 {
        return Err(KernelError::InvalidOptions(
            "batch_size must be at least 1".into(),
        ));
    }
    Ok(())
}

/// A partition count, when given, is a power of two from 1 to 65536.
pub(crate) fn check_partitions(p: Option<usize>) -> Result<()> {
    if let Some(p) = p
        && (!p.is_power_of_two() || p > 1 << 16)
    {
        return Err(KernelError::InvalidOptions(format!(
            "partitions must be a power of two from 1 to 65536, got {p}"
        )));
    }
    Ok(())
}

/// Whether `batch` has the column types of `schema` (names and
/// nullability aside).
pub(crate) fn same_types(
    schema: &arrow_schema::SchemaRef,
    batch: &arrow_array::RecordBatch,
) -> bool {
    let (want, got) = (schema.fields(), batch.schema_ref().fields());
    got.len() == want.len()
        && got
            .iter()
            .zip(want.iter())
            .all(|(g, w)| g.data_type() == w.data_type())
}

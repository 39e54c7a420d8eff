//! The key-type dispatch: the one place where the [`KeyKind`] a join's key
//! types were given at run time becomes the key encoding type that a
//! kernel's generic code is compiled for.
//!
//! [`KeyKind`]: crate::keys::KeyKind

/// Evaluates `$body` with the type alias `$S` set to the key encoding of
/// `$kind` (a `&KeyKind`): [`U64Keys`](crate::keys::U64Keys),
/// [`U128Keys`](crate::keys::U128Keys) or a
/// [`BytesKeys`](crate::keys::BytesKeys) of the matching byte array.
/// Once per join: the body is monomorphized for each encoding, so no row
/// pays for the choice.
macro_rules! with_key_encoding {
    ($kind:expr, $S:ident => $body:expr) => {
        match $kind {
            $crate::keys::KeyKind::U64(_) => {
                type $S = $crate::keys::U64Keys;
                $body
            }
            $crate::keys::KeyKind::U128 | $crate::keys::KeyKind::Pair(..) => {
                type $S = $crate::keys::U128Keys;
                $body
            }
            $crate::keys::KeyKind::Binary => {
                type $S = $crate::keys::BytesKeys<arrow_array::BinaryArray>;
                $body
            }
            $crate::keys::KeyKind::LargeBinary => {
                type $S = $crate::keys::BytesKeys<arrow_array::LargeBinaryArray>;
                $body
            }
            $crate::keys::KeyKind::BinaryView => {
                type $S = $crate::keys::BytesKeys<arrow_array::BinaryViewArray>;
                $body
            }
            $crate::keys::KeyKind::Rows(_) => {
                type $S = $crate::keys::BytesKeys<arrow_row::Rows>;
                $body
            }
        }
    };
}

pub(crate) use with_key_encoding;

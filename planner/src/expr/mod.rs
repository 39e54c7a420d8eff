//! Vectorized evaluation of expressions over Arrow batches (in progress).

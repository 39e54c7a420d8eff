//! The nested-loop join (in progress).

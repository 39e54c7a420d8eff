//! The sort-merge join (in progress).

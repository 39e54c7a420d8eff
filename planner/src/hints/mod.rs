//! Join and table hints: parsing and resolution (in progress).

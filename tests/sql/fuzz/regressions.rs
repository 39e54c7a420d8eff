//! Statements the fuzzer found crashing tenon, each a test named after
//! its defect (it failed before the fix).

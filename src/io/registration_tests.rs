//! What registering a table checks before any query (issue 14): the
//! layout of a table directory, column names, and a file that changes
//! while it is read.

use std::fs;

use super::tests::TestDir;

/// A table directory with subdirectories ignored them silently (a
/// partitioned layout read as an empty or partial table).
#[test]
fn a_table_directory_with_subdirectories_says_so() {
    let dir = TestDir::new();
    fs::write(dir.path("a.csv"), "x\n1\n").unwrap();
    for sub in ["year=2024", "more.parquet"] {
        fs::create_dir(dir.path(sub)).unwrap();
        let err = crate::io::read_table(&dir.0, 100).unwrap_err().to_string();
        assert!(err.contains("subdirectories") && err.contains(sub), "{err}");
        let err = crate::io::table_schema(&dir.0).unwrap_err().to_string();
        assert!(err.contains("subdirectories"), "{err}");
        fs::remove_dir(dir.path(sub)).unwrap();
    }
}

/// Duplicate column names in a file (ignoring case) are an error when the
/// table is registered, naming both, not at the first query.
#[test]
fn duplicate_column_names_are_reported_when_the_table_is_registered() {
    let dir = TestDir::new();
    fs::write(dir.path("d.csv"), "id,ID,x\n1,2,3\n").unwrap();
    let err = crate::io::table_schema(&dir.path("d.csv"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`id`") && err.contains("`ID`") && err.contains("rename"),
        "{err}"
    );
}

/// A Parquet file replaced while it is being read is an error that says
/// the file changed, not the decoder's `Unexpected struct field type 14`.
#[test]
fn a_parquet_file_replaced_while_read_says_that_it_changed() {
    use crate::io::FileStamp;
    let dir = TestDir::new();
    let path = dir.path("t.parquet");
    fs::write(&path, b"PAR1 first version").unwrap();
    let stamp = FileStamp::of(&path);
    // unchanged: the decoder's words are kept
    let same = super::read::parquet_error(&path, stamp, "Unexpected struct field type 14");
    assert!(same.to_string().contains("type 14"), "{same}");
    fs::write(&path, b"PAR1 a longer second version of the file").unwrap();
    let changed = super::read::parquet_error(&path, stamp, "Unexpected struct field type 14");
    let msg = changed.to_string();
    assert!(msg.contains("changed while it was being read"), "{msg}");
    assert!(!msg.contains("type 14"), "{msg}");
}

//! Round trips through every format, directories, and every error.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::Array;
use arrow_array::builder::{ListBuilder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int64Array, RecordBatch,
    StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::*;

/// A directory under the system's temporary directory, removed on drop.
pub(super) struct TestDir(pub(super) PathBuf);

impl TestDir {
    pub(super) fn new() -> TestDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tenon-io-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TestDir(dir)
    }

    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The names of the directory's entries, sorted.
    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl std::ops::Deref for TestDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Columns every format keeps exactly: Int64, Float64, Utf8 (with commas,
/// quotes, brackets and braces) and Boolean, all nullable, with NULLs.
fn plain_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("price", DataType::Float64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("ok", DataType::Boolean, true),
    ]))
}

fn plain_batches() -> Vec<RecordBatch> {
    let schema = plain_schema();
    let a = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])),
            Arc::new(Float64Array::from(vec![Some(1.5), Some(-0.25), None])),
            Arc::new(StringArray::from(vec![
                Some("plain"),
                Some("a, \"quoted\" [x], {y}"),
                None,
            ])),
            Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
        ],
    )
    .unwrap();
    let b = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![Some(40), Some(50)])),
            Arc::new(Float64Array::from(vec![Some(1e10), Some(3.0)])),
            Arc::new(StringArray::from(vec![
                Some("line\nbreak"),
                Some("ünïcödé"),
            ])),
            Arc::new(BooleanArray::from(vec![Some(false), Some(true)])),
        ],
    )
    .unwrap();
    vec![a, b]
}

/// Adds a Date32 column (CSV infers it back; JSON does not).
fn with_date(batches: &[RecordBatch]) -> (SchemaRef, Vec<RecordBatch>) {
    let mut fields: Vec<Field> = plain_schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("day", DataType::Date32, true));
    let schema = Arc::new(Schema::new(fields));
    let batches = batches
        .iter()
        .map(|b| {
            let n = b.num_rows() as i32;
            let days: Date32Array = (0..n)
                .map(|i| if i == 1 { None } else { Some(19_000 + i) })
                .collect();
            let mut cols = b.columns().to_vec();
            cols.push(Arc::new(days));
            RecordBatch::try_new(schema.clone(), cols).unwrap()
        })
        .collect();
    (schema, batches)
}

/// Types only the binary formats keep: Utf8View, Decimal128, a dictionary,
/// a list.
fn rich_batch() -> RecordBatch {
    let mut dict = StringDictionaryBuilder::<Int32Type>::new();
    dict.append_value("x");
    dict.append_null();
    dict.append_value("x");
    let mut list = ListBuilder::new(arrow_array::builder::Int64Builder::new());
    list.values().append_value(1);
    list.values().append_value(2);
    list.append(true);
    list.append(false);
    list.append(true);
    let cols: Vec<(&str, ArrayRef)> = vec![
        (
            "v",
            Arc::new(StringViewArray::from(vec![
                Some("short"),
                None,
                Some("a string longer than twelve bytes"),
            ])),
        ),
        (
            "money",
            Arc::new(
                Decimal128Array::from(vec![Some(12345), None, Some(-1)])
                    .with_precision_and_scale(15, 2)
                    .unwrap(),
            ),
        ),
        ("d", Arc::new(dict.finish())),
        ("l", Arc::new(list.finish())),
    ];
    RecordBatch::try_from_iter_with_nullable(cols.into_iter().map(|(n, c)| (n, c, true))).unwrap()
}

fn concat(schema: &SchemaRef, batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(schema, batches).unwrap()
}

/// Writes `batches` to `name` in `format`, reads the file back, and checks
/// that the schema and the rows are the same.
fn round_trip(schema: &SchemaRef, batches: &[RecordBatch], format: OutputFormat, name: &str) {
    let dir = TestDir::new();
    let path = dir.path(name);
    write_to_path(batches, schema, format, &path).unwrap();
    assert_eq!(
        dir.entries(),
        vec![name.to_string()],
        "no temporary file left"
    );
    let loaded = read_table(&path, 2).unwrap();
    assert_eq!(&loaded.schema, schema, "{format}");
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(loaded.rows, rows as u64);
    assert!(loaded.bytes > 0);
    for b in &loaded.batches {
        assert!(b.num_rows() <= 2 && b.num_rows() > 0);
        assert_eq!(&b.schema(), schema);
    }
    assert_eq!(
        concat(schema, &loaded.batches),
        concat(schema, batches),
        "{format}"
    );
}

#[test]
fn parquet_round_trip() {
    let (schema, batches) = with_date(&plain_batches());
    round_trip(&schema, &batches, OutputFormat::Parquet, "t.parquet");
    let rich = rich_batch();
    round_trip(
        &rich.schema(),
        std::slice::from_ref(&rich),
        OutputFormat::Parquet,
        "r.parquet",
    );
}

#[test]
fn arrow_ipc_round_trip() {
    let (schema, batches) = with_date(&plain_batches());
    round_trip(&schema, &batches, OutputFormat::Arrow, "t.arrow");
    let rich = rich_batch();
    round_trip(
        &rich.schema(),
        std::slice::from_ref(&rich),
        OutputFormat::Arrow,
        "r.feather",
    );
}

#[test]
fn csv_round_trip_with_quotes_nulls_and_dates() {
    let (schema, batches) = with_date(&plain_batches());
    round_trip(&schema, &batches, OutputFormat::Csv, "t.csv");
}

#[test]
fn json_round_trips() {
    let schema = plain_schema();
    round_trip(&schema, &plain_batches(), OutputFormat::Json, "t.json");
    round_trip(&schema, &plain_batches(), OutputFormat::Ndjson, "t.ndjson");
    round_trip(&schema, &plain_batches(), OutputFormat::Ndjson, "t.jsonl");
}

#[test]
fn json_is_one_array_and_ndjson_one_object_per_line() {
    let schema = plain_schema();
    let mut json = Vec::new();
    write_batches(&plain_batches(), &schema, OutputFormat::Json, &mut json).unwrap();
    let mut ndjson = Vec::new();
    write_batches(&plain_batches(), &schema, OutputFormat::Ndjson, &mut ndjson).unwrap();
    let ndjson = String::from_utf8(ndjson).unwrap();
    let lines: Vec<&str> = ndjson.lines().collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(
        lines[1],
        r#"{"id":null,"price":-0.25,"name":"a, \"quoted\" [x], {y}","ok":null}"#
    );
    assert_eq!(
        String::from_utf8(json).unwrap(),
        format!("[{}]\n", lines.join(","))
    );
}

#[test]
fn empty_results() {
    let schema = plain_schema();
    let text = |format| {
        let mut out = Vec::new();
        write_batches(&[], &schema, format, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    assert_eq!(text(OutputFormat::Json), "[]\n");
    assert_eq!(text(OutputFormat::Ndjson), "");
    assert_eq!(text(OutputFormat::Csv), "id,price,name,ok\n");
    let table = text(OutputFormat::Table);
    assert!(table.contains("| id | price | name | ok |"), "{table}");
    // Binary formats keep the schema of an empty result.
    for (format, name) in [
        (OutputFormat::Parquet, "e.parquet"),
        (OutputFormat::Arrow, "e.arrow"),
    ] {
        let dir = TestDir::new();
        write_to_path(&[], &schema, format, &dir.path(name)).unwrap();
        let loaded = read_table(&dir.path(name), 10).unwrap();
        assert_eq!(loaded.schema, schema);
        assert_eq!(loaded.rows, 0);
        assert!(loaded.batches.is_empty());
    }
}

#[test]
fn table_format() {
    let schema = plain_schema();
    let mut out = Vec::new();
    write_batches(&plain_batches(), &schema, OutputFormat::Table, &mut out).unwrap();
    let expected = "\
+----+---------------+----------------------+-------+
| id | price         | name                 | ok    |
+----+---------------+----------------------+-------+
| 1  | 1.5           | plain                | true  |
|    | -0.25         | a, \"quoted\" [x], {y} |       |
| -3 |               |                      | false |
| 40 | 10000000000.0 | line                 | false |
|    |               | break                |       |
| 50 | 3.0           | ünïcödé              | true  |
+----+---------------+----------------------+-------+
";
    assert_eq!(String::from_utf8(out).unwrap(), expected);
}

#[test]
fn batches_get_the_given_schema() {
    // Output columns are named by the schema, not by the batches.
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
    let batch =
        RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from(vec![7])) as ArrayRef)])
            .unwrap();
    let mut out = Vec::new();
    write_batches(&[batch], &schema, OutputFormat::Csv, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "n\n7\n");
    // A batch of other types is an error.
    let strings =
        RecordBatch::try_from_iter([("x", Arc::new(StringArray::from(vec!["a"])) as ArrayRef)])
            .unwrap();
    let err = write_batches(&[strings], &schema, OutputFormat::Csv, &mut Vec::new()).unwrap_err();
    assert!(matches!(err, IoError::Write { path: None, .. }), "{err}");
}

#[test]
fn parquet_row_groups_read_in_parallel_keep_their_order() {
    let dir = TestDir::new();
    let path = dir.path("groups.parquet");
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(7))
        .build();
    let file = fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(props)).unwrap();
    let all: Vec<i64> = (0..100).collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from(all.clone()))],
    )
    .unwrap();
    w.write(&batch).unwrap();
    let meta = w.close().unwrap();
    assert_eq!(meta.num_row_groups(), 15);
    let loaded = read_table(&path, 5).unwrap();
    assert_eq!(loaded.rows, 100);
    assert!(loaded.batches.iter().all(|b| b.num_rows() <= 5));
    let got: Vec<i64> = loaded
        .batches
        .iter()
        .flat_map(|b| {
            b.column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap()
                .values()
                .to_vec()
        })
        .collect();
    assert_eq!(got, all);
}

#[test]
fn ipc_stream_format_is_accepted_too() {
    let dir = TestDir::new();
    let path = dir.path("s.arrow");
    let (schema, batches) = with_date(&plain_batches());
    let mut bytes = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut bytes, &schema).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    drop(w);
    fs::write(&path, bytes).unwrap();
    let loaded = read_table(&path, 100).unwrap();
    assert_eq!(loaded.schema, schema);
    assert_eq!(concat(&schema, &loaded.batches), concat(&schema, &batches));
}

#[test]
fn large_ipc_batches_are_sliced_and_memory_is_counted_once() {
    let dir = TestDir::new();
    let path = dir.path("big.ipc");
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from(
            (0..10_000).collect::<Vec<i64>>(),
        ))],
    )
    .unwrap();
    write_to_path(
        std::slice::from_ref(&batch),
        &schema,
        OutputFormat::Arrow,
        &path,
    )
    .unwrap();
    let loaded = read_table(&path, 1000).unwrap();
    assert_eq!(loaded.batches.len(), 10);
    assert_eq!(loaded.rows, 10_000);
    // Ten slices of one 80 KB buffer: counted once, not ten times.
    assert!(
        loaded.bytes >= 80_000 && loaded.bytes < 100_000,
        "{}",
        loaded.bytes
    );
    let whole = LoadedTable::new(schema, vec![batch.clone(), batch.slice(0, 10)]);
    assert_eq!(
        whole.bytes,
        LoadedTable::new(batch.schema(), vec![batch]).bytes
    );
}

#[test]
fn json_arrays_with_nesting_and_whitespace() {
    let dir = TestDir::new();
    let path = dir.path("nested.json");
    fs::write(
        &path,
        "  [\n {\"a\": 1, \"s\": \"x],[y\\\"}\", \"o\": {\"p\": [1, 2]}},\n\t{\"a\": 2, \"s\": null, \"o\": null}\n]\n",
    )
    .unwrap();
    let loaded = read_table(&path, 10).unwrap();
    assert_eq!(loaded.rows, 2);
    let names: Vec<&str> = loaded
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["a", "s", "o"]);
    let s = loaded.batches[0]
        .column(1)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(s.value(0), "x],[y\"}");
    assert!(s.is_null(1));
}

#[test]
fn a_directory_is_one_table_of_its_data_files_in_name_order() {
    let dir = TestDir::new();
    let schema = plain_schema();
    let batches = plain_batches();
    // Different formats may share a directory if their schemas agree.
    write_to_path(
        &batches[1..],
        &schema,
        OutputFormat::Csv,
        &dir.path("b.csv"),
    )
    .unwrap();
    write_to_path(
        &batches[..1],
        &schema,
        OutputFormat::Parquet,
        &dir.path("a.parquet"),
    )
    .unwrap();
    fs::write(dir.path(".hidden.csv"), "x\n1\n").unwrap();
    fs::write(dir.path("notes.txt"), "not data").unwrap();
    fs::write(dir.path("_SUCCESS"), "").unwrap();
    let loaded = read_table(&dir.0, 100).unwrap();
    assert_eq!(loaded.schema, schema);
    assert_eq!(loaded.rows, 5);
    assert_eq!(concat(&schema, &loaded.batches), concat(&schema, &batches));
}

#[test]
fn nullability_differences_between_files_are_merged() {
    let dir = TestDir::new();
    let required: SchemaRef = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, false)]));
    let optional: SchemaRef = Arc::new(Schema::new(vec![Field::new("k", DataType::Int64, true)]));
    let one = |s: &SchemaRef, v: Option<i64>| {
        RecordBatch::try_new(s.clone(), vec![Arc::new(Int64Array::from(vec![v]))]).unwrap()
    };
    let a = dir.path("a.parquet");
    write_to_path(
        &[one(&required, Some(1))],
        &required,
        OutputFormat::Parquet,
        &a,
    )
    .unwrap();
    let b = dir.path("b.arrow");
    write_to_path(&[one(&optional, None)], &optional, OutputFormat::Arrow, &b).unwrap();
    let loaded = read_table(&dir.0, 100).unwrap();
    assert_eq!(loaded.schema, optional);
    assert!(loaded.batches.iter().all(|b| b.schema() == optional));
}

#[test]
fn schema_mismatch_names_the_first_differing_file() {
    let dir = TestDir::new();
    fs::write(dir.path("1.csv"), "k,v\n1,a\n").unwrap();
    fs::write(dir.path("2.csv"), "k,v\n2,b\n").unwrap();
    fs::write(dir.path("3.csv"), "k,v\nthree,c\n").unwrap();
    fs::write(dir.path("4.csv"), "k\n4\n").unwrap();
    let err = read_table(&dir.0, 100).unwrap_err();
    match &err {
        IoError::SchemaMismatch {
            path,
            first,
            detail,
        } => {
            assert_eq!(path, &dir.path("3.csv"));
            assert_eq!(first, &dir.path("1.csv"));
            assert_eq!(detail, "column `k` has type Utf8 instead of Int64");
        }
        other => panic!("{other}"),
    }
    let text = err.to_string();
    assert!(text.contains("3.csv") && text.contains("1.csv"), "{text}");
    fs::remove_file(dir.path("3.csv")).unwrap();
    let err = read_table(&dir.0, 100).unwrap_err();
    assert!(
        err.to_string()
            .contains("1 columns (k) instead of 2 (k, v)"),
        "{err}"
    );
}

#[test]
fn missing_paths_and_unknown_formats() {
    let dir = TestDir::new();
    let missing = dir.path("nope.parquet");
    let err = read_table(&missing, 10).unwrap_err();
    assert!(matches!(&err, IoError::NotFound { path } if path == &missing));
    assert!(
        err.to_string().contains("nope.parquet: no such file"),
        "{err}"
    );

    fs::write(dir.path("data.xlsx"), "?").unwrap();
    let err = read_table(&dir.path("data.xlsx"), 10).unwrap_err();
    assert!(matches!(err, IoError::UnknownFormat { .. }));
    assert!(
        err.to_string()
            .contains(".parquet, .csv, .arrow, .ipc, .feather"),
        "{err}"
    );

    // Only the unknown file: the directory has no data files.
    let err = read_table(&dir.0, 10).unwrap_err();
    assert!(matches!(err, IoError::EmptyDirectory { .. }), "{err}");
}

#[test]
fn corrupt_files() {
    let dir = TestDir::new();
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    for (name, format) in [("bad.parquet", "Parquet"), ("bad.arrow", "Arrow IPC")] {
        let path = dir.path(name);
        fs::write(&path, &garbage).unwrap();
        let err = read_table(&path, 10).unwrap_err();
        match &err {
            IoError::Corrupt {
                path: p, format: f, ..
            } => {
                assert_eq!(p, &path);
                assert_eq!(*f, format);
            }
            other => panic!("{name}: {other}"),
        }
        assert!(err.to_string().contains(name), "{err}");
    }
    // A Parquet file cut short loses its footer.
    let schema = plain_schema();
    let good = dir.path("cut.parquet");
    write_to_path(&plain_batches(), &schema, OutputFormat::Parquet, &good).unwrap();
    let bytes = fs::read(&good).unwrap();
    fs::write(&good, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(
        read_table(&good, 10).unwrap_err(),
        IoError::Corrupt { .. }
    ));
}

#[test]
fn csv_parse_errors_name_the_line_and_column() {
    let dir = TestDir::new();
    let path = dir.path("late.csv");
    // 1000 integer rows decide the type; the bad value is on line 1003
    // (the header is line 1).
    let mut text = String::from("id,amount\n");
    for i in 0..1001 {
        text.push_str(&format!("{i},{}\n", i * 10));
    }
    text.push_str("1001,12abc\n1002,5\n");
    fs::write(&path, &text).unwrap();
    let err = read_table(&path, 64).unwrap_err();
    match &err {
        IoError::Parse { line, column, .. } => {
            assert_eq!(*line, Some(1003));
            assert_eq!(column.as_deref(), Some("amount"));
        }
        other => panic!("{other}"),
    }
    let shown = err.to_string();
    assert!(
        shown.contains("late.csv, line 1003, column `amount`"),
        "{shown}"
    );
    assert!(shown.contains("cannot read `12abc` as Int64"), "{shown}");

    let path = dir.path("ragged.csv");
    fs::write(&path, "a,b\n1,2\n3,4\n5\n").unwrap();
    let err = read_table(&path, 64).unwrap_err();
    assert!(matches!(err, IoError::Parse { line: Some(4), .. }), "{err}");
    assert!(
        err.to_string().ends_with(
            "line 4: the row has 1 fields but the header has 2 (quote fields that contain commas)"
        ),
        "{err}"
    );
    // Past the rows the types are inferred from, the file's lines still.
    let path = dir.path("late_ragged.csv");
    let mut text = String::from("a,b\n");
    for i in 0..1001 {
        text.push_str(&format!("{i},x\n"));
    }
    text.push_str("5\n");
    fs::write(&path, &text).unwrap();
    let err = read_table(&path, 64).unwrap_err();
    assert!(
        matches!(
            err,
            IoError::Parse {
                line: Some(1003),
                ..
            }
        ),
        "{err}"
    );

    let path = dir.path("empty.csv");
    fs::write(&path, "").unwrap();
    let err = read_table(&path, 64).unwrap_err();
    assert!(err.to_string().contains("header row"), "{err}");
}

#[test]
fn csv_with_only_a_header_is_an_empty_table() {
    let dir = TestDir::new();
    let path = dir.path("h.csv");
    fs::write(&path, "a,b\n").unwrap();
    let loaded = read_table(&path, 64).unwrap();
    assert_eq!(loaded.rows, 0);
    assert_eq!(loaded.schema.fields().len(), 2);
}

#[test]
fn failed_writes_leave_no_file() {
    let dir = TestDir::new();
    // CSV cannot hold a union column: found before any file is made.
    let rich = nested::union_batch();
    let path = dir.path("out.csv");
    let err = write_to_path(
        std::slice::from_ref(&rich),
        &rich.schema(),
        OutputFormat::Csv,
        &path,
    )
    .unwrap_err();
    assert!(
        matches!(&err, IoError::Unwritable { column, .. } if column == "u"),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("the csv format cannot hold column `u`"),
        "{err}"
    );
    assert_eq!(dir.entries(), Vec::<String>::new());

    // An existing file survives a failed write unchanged.
    fs::write(&path, "old").unwrap();
    write_to_path(
        std::slice::from_ref(&rich),
        &rich.schema(),
        OutputFormat::Csv,
        &path,
    )
    .unwrap_err();
    assert_eq!(fs::read_to_string(&path).unwrap(), "old");
    assert_eq!(dir.entries(), vec!["out.csv".to_string()]);
    // ... and is replaced by a successful one.
    write_to_path(&plain_batches(), &plain_schema(), OutputFormat::Csv, &path).unwrap();
    assert!(fs::read_to_string(&path).unwrap().starts_with("id,price"));

    // A directory that does not exist.
    let nowhere = dir.path("no/such/dir/out.parquet");
    let err = write_to_path(
        &plain_batches(),
        &plain_schema(),
        OutputFormat::Parquet,
        &nowhere,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("check that the directory exists"),
        "{err}"
    );
    assert!(!nowhere.exists());

    // A destination that is a directory.
    fs::create_dir(dir.path("d.arrow")).unwrap();
    let err = write_to_path(
        &[],
        &plain_schema(),
        OutputFormat::Arrow,
        &dir.path("d.arrow"),
    )
    .unwrap_err();
    assert!(err.is_write(), "{err}");
    assert_eq!(
        dir.entries(),
        vec!["d.arrow".to_string(), "out.csv".to_string()]
    );
}

#[test]
fn broken_pipes_are_recognised() {
    struct Closed;
    impl std::io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    for format in OutputFormat::ALL {
        let err =
            write_batches(&plain_batches(), &plain_schema(), format, &mut Closed).unwrap_err();
        assert!(err.is_broken_pipe(), "{format}: {err}");
    }
}

#[test]
fn output_format_names() {
    for f in OutputFormat::ALL {
        assert_eq!(f.to_string().parse::<OutputFormat>().unwrap(), f);
        assert_eq!(f.name().to_uppercase().parse::<OutputFormat>().unwrap(), f);
    }
    assert_eq!(
        "jsonl".parse::<OutputFormat>().unwrap(),
        OutputFormat::Ndjson
    );
    assert_eq!(
        "feather".parse::<OutputFormat>().unwrap(),
        OutputFormat::Arrow
    );
    let err = "xml".parse::<OutputFormat>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown output format `xml`: choose one of table, csv, json, ndjson, parquet, arrow"
    );
    assert_eq!(
        OutputFormat::from_extension(Path::new("x/y.PARQUET")),
        Some(OutputFormat::Parquet)
    );
    assert_eq!(OutputFormat::from_extension(Path::new("y.txt")), None);
    assert!(OutputFormat::Arrow.is_binary() && !OutputFormat::Csv.is_binary());
}

mod nested;

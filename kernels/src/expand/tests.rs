//! The expansion against a naive row-at-a-time oracle that reads each
//! collection through Arrow's per-row accessors (`value(row)`), not the
//! offsets the kernel walks.

use std::sync::Arc;

use arrow_array::builder::{
    FixedSizeListBuilder, Int32Builder, Int64Builder, LargeListBuilder, ListBuilder, MapBuilder,
    StringBuilder, StructBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, new_null_array};
use arrow_schema::{DataType, Field, Fields};
use proptest::prelude::*;

use super::*;

/// One generated row of a collection: NULL, or its elements (each `None`
/// for a NULL element), a map's value / multiset's count being the
/// element's position when it is even... kept simple: the element itself.
type Row = Option<Vec<Option<i64>>>;

#[derive(Debug, Clone, Copy)]
enum Kind {
    List,
    LargeListUtf8,
    Fixed2,
    Map,
    Multiset,
    ListOfRows,
    /// A list of Int32 without NULL elements (a NULL element is 0): the
    /// fixed-width copy of a LEFT or zipped expansion's padded column.
    ListDense,
}

const KINDS: [Kind; 7] = [
    Kind::List,
    Kind::LargeListUtf8,
    Kind::Fixed2,
    Kind::Map,
    Kind::Multiset,
    Kind::ListOfRows,
    Kind::ListDense,
];

/// Builds the collection array of `kind` from the rows.
fn build(kind: Kind, rows: &[Row]) -> ArrayRef {
    match kind {
        Kind::List => {
            let mut b = ListBuilder::new(Int64Builder::new());
            for r in rows {
                match r {
                    // a NULL row over values of its own, as pyarrow's
                    // `ListArray.from_arrays(..., mask=...)` writes them
                    None => {
                        b.values().append_value(98);
                        b.values().append_value(99);
                        b.append(false);
                    }
                    Some(v) => {
                        for e in v {
                            b.values().append_option(*e);
                        }
                        b.append(true);
                    }
                }
            }
            Arc::new(b.finish())
        }
        Kind::ListDense => {
            let mut b = ListBuilder::new(Int32Builder::new());
            for r in rows {
                match r {
                    None => b.append(false),
                    Some(v) => {
                        for e in v {
                            b.values().append_value(e.unwrap_or(0) as i32);
                        }
                        b.append(true);
                    }
                }
            }
            Arc::new(b.finish())
        }
        Kind::LargeListUtf8 => {
            let mut b = LargeListBuilder::new(StringBuilder::new());
            for r in rows {
                match r {
                    None => b.append(false),
                    Some(v) => {
                        for e in v {
                            b.values().append_option(e.map(|x| format!("s{x}")));
                        }
                        b.append(true);
                    }
                }
            }
            Arc::new(b.finish())
        }
        Kind::Fixed2 => {
            let mut b = FixedSizeListBuilder::new(Int32Builder::new(), 2);
            for r in rows {
                let v = r.clone().unwrap_or_default();
                for k in 0..2 {
                    b.values()
                        .append_option(v.get(k).copied().flatten().map(|x| x as i32));
                }
                b.append(r.is_some());
            }
            Arc::new(b.finish())
        }
        Kind::Map | Kind::Multiset => {
            let mut b = MapBuilder::new(None, Int64Builder::new(), Int64Builder::new());
            for r in rows {
                match r {
                    None => b.append(false).unwrap(),
                    Some(v) => {
                        for (i, e) in v.iter().enumerate() {
                            b.keys().append_value(i as i64 * 10);
                            // a multiset's count: 0..=3 (0 and NULL: no copy)
                            let v = e.map(|x| x.rem_euclid(4));
                            if matches!(kind, Kind::Multiset) {
                                b.values().append_value(v.unwrap_or(0));
                            } else {
                                b.values().append_option(v);
                            }
                        }
                        b.append(true).unwrap();
                    }
                }
            }
            let m = b.finish();
            if matches!(kind, Kind::Map) {
                return Arc::new(m);
            }
            // rename the entries as a multiset's
            let t = multiset_type(DataType::Int64);
            let data = m.to_data().into_builder().data_type(t.clone());
            let (_, entries) = match &t {
                DataType::Map(e, _) => ((), e.clone()),
                _ => unreachable!(),
            };
            let DataType::Struct(fs) = entries.data_type() else {
                unreachable!()
            };
            let s = m.entries();
            let renamed = StructArray::new(fs.clone(), s.columns().to_vec(), None);
            let data = data.child_data(vec![renamed.to_data()]).build().unwrap();
            make_array(data)
        }
        Kind::ListOfRows => {
            let fields = Fields::from(vec![
                Field::new("a", DataType::Int64, true),
                Field::new("b", DataType::Utf8, true),
            ]);
            let mut b = ListBuilder::new(StructBuilder::from_fields(fields, 0));
            for r in rows {
                match r {
                    None => b.append(false),
                    Some(v) => {
                        for e in v {
                            let s = b.values();
                            s.field_builder::<Int64Builder>(0)
                                .unwrap()
                                .append_option(*e);
                            s.field_builder::<StringBuilder>(1)
                                .unwrap()
                                .append_option(e.map(|x| x.to_string()));
                            // an element NULL as a whole when it is a
                            // multiple of 5
                            s.append(e.is_none_or(|x| x % 5 != 0));
                        }
                        b.append(true);
                    }
                }
            }
            Arc::new(b.finish())
        }
    }
}

/// The oracle's output columns of one argument for row `row`: element `k`
/// (or NULL past its end), read by `value(row)`.
fn oracle_element(arg: &ArrayRef, row: usize, k: usize) -> Vec<ArrayRef> {
    let fields = Collection::columns(arg.data_type()).unwrap();
    let nulls = || {
        fields
            .iter()
            .map(|f| new_null_array(f.data_type(), 1))
            .collect()
    };
    if arg.is_null(row) {
        return nulls();
    }
    let split = |e: ArrayRef| -> Vec<ArrayRef> {
        match e.data_type() {
            DataType::Struct(_) if fields.len() > 1 || e.as_struct().num_columns() == 1 => {
                let s = e.as_struct();
                s.columns()
                    .iter()
                    .map(|c| {
                        if s.is_null(0) {
                            new_null_array(c.data_type(), 1)
                        } else {
                            c.clone()
                        }
                    })
                    .collect()
            }
            _ => vec![e],
        }
    };
    match arg.data_type() {
        DataType::List(_) => {
            let v = arg.as_list::<i32>().value(row);
            if k < v.len() {
                split(v.slice(k, 1))
            } else {
                nulls()
            }
        }
        DataType::LargeList(_) => {
            let v = arg.as_list::<i64>().value(row);
            if k < v.len() {
                split(v.slice(k, 1))
            } else {
                nulls()
            }
        }
        DataType::FixedSizeList(_, _) => {
            let v = arg.as_fixed_size_list().value(row);
            if k < v.len() {
                split(v.slice(k, 1))
            } else {
                nulls()
            }
        }
        _ => {
            let entries = arg.as_map().value(row);
            if Collection::is_multiset(arg.data_type()) {
                let counts = entries
                    .column(1)
                    .as_primitive::<arrow_array::types::Int64Type>();
                let mut seen = 0usize;
                for e in 0..entries.len() {
                    let c = if counts.is_null(e) {
                        0
                    } else {
                        counts.value(e).max(0) as usize
                    };
                    if k < seen + c {
                        return vec![entries.column(0).slice(e, 1)];
                    }
                    seen += c;
                }
                nulls()
            } else if k < entries.len() {
                vec![entries.column(0).slice(k, 1), entries.column(1).slice(k, 1)]
            } else {
                nulls()
            }
        }
    }
}

/// The oracle's length of an argument in a row.
fn oracle_len(arg: &ArrayRef, row: usize) -> usize {
    if arg.is_null(row) {
        return 0;
    }
    let mut k = 0;
    // count by probing elements until the first all-NULL padding would be
    // ambiguous: use the accessors' lengths instead
    match arg.data_type() {
        DataType::List(_) => k = arg.as_list::<i32>().value(row).len(),
        DataType::LargeList(_) => k = arg.as_list::<i64>().value(row).len(),
        DataType::FixedSizeList(_, n) => k = *n as usize,
        _ => {
            let entries = arg.as_map().value(row);
            if Collection::is_multiset(arg.data_type()) {
                let counts = entries
                    .column(1)
                    .as_primitive::<arrow_array::types::Int64Type>();
                for e in 0..entries.len() {
                    if !counts.is_null(e) {
                        k += counts.value(e).max(0) as usize;
                    }
                }
            } else {
                k = entries.len();
            }
        }
    }
    k
}

/// The whole expansion, row at a time, as columns.
fn oracle(payload: &ArrayRef, args: &[ArrayRef], outer: bool, ordinality: bool) -> Vec<ArrayRef> {
    let mut cols: Vec<Vec<ArrayRef>> = Vec::new();
    let mut push = |row_cols: Vec<ArrayRef>| {
        if cols.is_empty() {
            cols = row_cols.iter().map(|_| Vec::new()).collect();
        }
        for (c, v) in cols.iter_mut().zip(row_cols) {
            c.push(v);
        }
    };
    for row in 0..payload.len() {
        let len = args.iter().map(|a| oracle_len(a, row)).max().unwrap_or(0);
        let emit = if len == 0 && outer { 1 } else { len };
        for k in 0..emit {
            let mut r = vec![payload.slice(row, 1)];
            for a in args {
                if len == 0 {
                    r.extend(
                        Collection::columns(a.data_type())
                            .unwrap()
                            .iter()
                            .map(|f| new_null_array(f.data_type(), 1)),
                    );
                } else {
                    r.extend(oracle_element(a, row, k));
                }
            }
            if ordinality {
                let o: Option<i64> = (len > 0).then_some(k as i64 + 1);
                r.push(Arc::new(Int64Array::from(vec![o])));
            }
            push(r);
        }
    }
    cols.iter()
        .map(|c| {
            let refs: Vec<&dyn Array> = c.iter().map(|a| a.as_ref()).collect();
            arrow_select::concat::concat(&refs).unwrap()
        })
        .collect()
}

fn row_strategy() -> impl Strategy<Value = Row> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Vec::new())),
        6 => proptest::collection::vec(
            prop_oneof![1 => Just(None), 5 => (-20i64..20).prop_map(Some)],
            0..12
        )
        .prop_map(Some),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn expansion_matches_the_oracle(
        rows in proptest::collection::vec(
            (row_strategy(), row_strategy(), row_strategy()), 0..24),
        kinds in proptest::collection::vec(0usize..KINDS.len(), 1..=3),
        outer in any::<bool>(),
        ordinality in any::<bool>(),
        max_rows in prop_oneof![Just(1usize), Just(2), Just(7), Just(8192)],
        skip in 0usize..3,
        carry in any::<bool>(),
    ) {
        let skip = skip.min(rows.len());
        let args: Vec<ArrayRef> = kinds
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let r: Vec<Row> = rows
                    .iter()
                    .map(|t| match i { 0 => t.0.clone(), 1 => t.1.clone(), _ => t.2.clone() })
                    .collect();
                // sliced: a non-zero offset into the arrays
                build(KINDS[k], &r).slice(skip, rows.len() - skip)
            })
            .collect();
        let payload: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows.len() as i64));
        let payload = payload.slice(skip, rows.len() - skip);
        let mut expected = oracle(&payload, &args, outer, ordinality);
        // without a carried column, no parent index is made
        let carried = if carry {
            vec![payload]
        } else {
            if !expected.is_empty() {
                expected.remove(0);
            }
            Vec::new()
        };
        let collections: Vec<Collection> =
            args.iter().map(|a| Collection::new(a.clone()).unwrap()).collect();
        let mut chunks: Vec<Vec<ArrayRef>> = Vec::new();
        Expand::new(outer, ordinality)
            .run(&carried, &collections, max_rows, &mut |c| {
                assert!(c[0].len() <= max_rows && !c[0].is_empty());
                chunks.push(c);
                Ok(())
            })
            .unwrap();
        if expected.is_empty() {
            prop_assert!(chunks.is_empty());
        } else {
            for (i, e) in expected.iter().enumerate() {
                let parts: Vec<&dyn Array> = chunks.iter().map(|c| c[i].as_ref()).collect();
                let got = if parts.is_empty() {
                    new_null_array(e.data_type(), 0)
                } else {
                    arrow_select::concat::concat(&parts).unwrap()
                };
                prop_assert_eq!(&got, e, "column {}", i);
            }
        }
    }
}

#[test]
fn a_non_collection_is_refused_with_its_type() {
    let err = Collection::new(Arc::new(Int64Array::from(vec![1]))).unwrap_err();
    assert!(
        err.to_string().contains("Int64 is not a collection"),
        "{err}"
    );
}

#[test]
fn one_long_row_is_split_into_bounded_chunks_with_continuing_positions() {
    let mut b = ListBuilder::new(Int64Builder::new());
    for i in 0..10_000 {
        b.values().append_value(i);
    }
    b.append(true);
    let arg = Collection::new(Arc::new(b.finish())).unwrap();
    let mut sizes = Vec::new();
    let mut last = 0i64;
    Expand::new(false, true)
        .run(&[], &[arg], 4096, &mut |c| {
            sizes.push(c[0].len());
            let pos = c[1].as_primitive::<arrow_array::types::Int64Type>();
            assert_eq!(pos.value(0), last + 1);
            last = pos.value(pos.len() - 1);
            Ok(())
        })
        .unwrap();
    assert_eq!(sizes, vec![4096, 4096, 1808]);
    assert_eq!(last, 10_000);
}

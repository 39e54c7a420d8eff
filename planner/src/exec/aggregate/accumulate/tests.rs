//! The accumulators against exact sums.

use arrow_array::Decimal128Array;
use arrow_array::types::Decimal128Type;
use proptest::prelude::*;

use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Decimal sums of few groups, whose batches are added in i64 lanes
    /// when their sums fit and in i128 lanes (or checked) otherwise,
    /// equal the exact sums, with NULLs and any batch cuts.
    #[test]
    fn decimal_sums_of_few_groups_are_exact(
        rows in proptest::collection::vec(
            (
                0u32..4,
                proptest::option::weighted(
                    0.9,
                    prop_oneof![
                        -1000i128..1000,
                        -(10i128.pow(17))..10i128.pow(17),
                        -(10i128.pow(30))..10i128.pow(30),
                    ],
                ),
            ),
            0..400,
        ),
        cut in 1usize..300,
    ) {
        let dt = DataType::Decimal128(38, 2);
        let mut acc = SumAcc::<Decimal128Type>::new(Arc::from("sum(v)"), dt.clone());
        let mut want: [Option<i128>; 4] = [None; 4];
        let mut n = 0usize;
        for chunk in rows.chunks(cut) {
            let groups: Vec<u32> = chunk.iter().map(|(g, _)| *g).collect();
            n = n.max(groups.iter().map(|&g| g as usize + 1).max().unwrap_or(0));
            let values: ArrayRef = Arc::new(
                Decimal128Array::from(chunk.iter().map(|(_, v)| *v).collect::<Vec<_>>())
                    .with_data_type(dt.clone()),
            );
            acc.update(&groups, Some(&values), n).unwrap();
            for (g, v) in chunk {
                if let Some(v) = v {
                    let s = want[*g as usize].get_or_insert(0);
                    *s += v;
                }
            }
        }
        let got = acc.finish(n).unwrap();
        let got = got.as_any().downcast_ref::<Decimal128Array>().unwrap();
        let got: Vec<Option<i128>> = got.iter().collect();
        prop_assert_eq!(got, want[..n].to_vec());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The sum of a batch without GROUP BY, Int64 (the branch-free path),
    /// equals the sum of its non-NULL values: NULLs anywhere (their slots
    /// holding any value), a slice at any offset, lengths around the 64-value
    /// blocks; a sum past i64 is an error, not a wrapped value.
    #[test]
    fn int64_sums_skip_nulls_and_refuse_overflow(
        rows in proptest::collection::vec(
            (any::<bool>(), prop_oneof![-1000i64..1000, Just(i64::MAX), Just(i64::MIN)]),
            0..300,
        ),
        skip in 0usize..70,
    ) {
        let values: Vec<i64> = rows.iter().map(|(_, v)| *v).collect();
        let valid: Vec<bool> = rows.iter().map(|(ok, _)| *ok).collect();
        let array = Int64Array::new(values.into(), Some(NullBuffer::from(valid)));
        let skip = skip.min(array.len());
        let array: ArrayRef = Arc::new(array.slice(skip, array.len() - skip));
        let want: Option<i128> = rows[skip..]
            .iter()
            .filter(|(ok, _)| *ok)
            .map(|(_, v)| i128::from(*v))
            .reduce(|a, b| a + b);
        let mut acc = SumAcc::<Int64Type>::new(Arc::from("sum(v)"), DataType::Int64);
        match (acc.update_all(Some(&array), array.len()), want) {
            (Ok(()), Some(w)) if i64::try_from(w).is_ok() => {
                let got = acc.finish(1).unwrap();
                prop_assert_eq!(got.as_primitive::<Int64Type>().value(0) as i128, w);
            }
            (Ok(()), None) => {
                prop_assert!(acc.finish(1).unwrap().is_null(0));
            }
            (Err(_), Some(w)) => prop_assert!(i64::try_from(w).is_err()),
            (got, w) => prop_assert!(false, "{:?} for the sum {:?}", got.is_ok(), w),
        }
    }
}

//! The default way to run a lookup join that no `LOOKUP` hint names
//! (docs/hints.md H51, docs/lookup.md): fetch the probe side's keys from
//! the source batch by batch, or read the lookup table whole (a scan) and
//! hash join it, whichever the estimates say costs less.
//!
//! A lookup costs about one indexed fetch per probe key (each batch's
//! distinct keys, so at most the probe rows); a scan costs one sequential
//! row per row of the lookup table, and the hash join after it. A fetch by
//! key costs [`LOOKUP_KEY_COST`] scanned rows (measured with
//! `benches/lookup/run.sh`, benches/README.md), so the lookup wins when
//! `probe rows x LOOKUP_KEY_COST < table rows`. The lookup stays when an
//! estimate is missing (Flink's behaviour: a lookup join looks up), when
//! the lookup table has a cache (which keeps its rows across the session's
//! queries where a scan reads them again each time), and when its source
//! cannot be read whole ([`crate::sql::CatalogTable::lookup_only`]).

use crate::hints::SizeEstimate;

/// What one fetch by key costs, in rows read by a scan of the same table
/// (benches/README.md, "Lookup joins": about 0.7 on a SQLite file and
/// 1.5 on PostgreSQL over loopback; rounded up, towards the scan, whose cost
/// is bounded by the table, where a remote store's lookups are not).
pub(crate) const LOOKUP_KEY_COST: f64 = 2.0;

/// How to run a lookup join that no `LOOKUP` hint names.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum LookupOrScan {
    /// Look the probe keys up; the reason.
    Lookup(String),
    /// Read the table whole and join it as any other table; the reason.
    Scan(String),
}

/// The default for a lookup join whose probe side is estimated at `probe`
/// and whose lookup table at `table`; `lookup_only`: why the table must be
/// looked up whatever the sizes.
pub(super) fn lookup_or_scan(
    probe: Option<SizeEstimate>,
    table: Option<SizeEstimate>,
    lookup_only: Option<&str>,
) -> LookupOrScan {
    if let Some(why) = lookup_only {
        return LookupOrScan::Lookup(format!("default: {why}, so LOOKUP the probe keys"));
    }
    let (Some(probe), Some(table)) = (probe, table) else {
        let which = if probe.is_none() {
            "the probe side's rows"
        } else {
            "the lookup table's rows"
        };
        return LookupOrScan::Lookup(format!(
            "default: no estimate of {which}, so LOOKUP the probe keys"
        ));
    };
    let lookup = probe.rows as f64 * LOOKUP_KEY_COST;
    let comparison = format!(
        "about {} probe keys x {LOOKUP_KEY_COST} (the cost of a fetch by key, in scanned rows) \
         {} {} rows of the lookup table",
        probe.rows,
        if lookup < table.rows as f64 {
            "<"
        } else {
            ">="
        },
        table.rows
    );
    if lookup < table.rows as f64 {
        LookupOrScan::Lookup(format!("default: {comparison}, so LOOKUP the probe keys"))
    } else {
        LookupOrScan::Scan(format!(
            "default: {comparison}, so read the lookup table whole (a scan) and join it; a \
             LOOKUP hint naming it keeps the lookup"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: u64) -> Option<SizeEstimate> {
        Some(SizeEstimate {
            rows,
            bytes: rows * 8,
        })
    }

    #[test]
    fn few_probe_keys_look_up_and_many_scan() {
        assert!(matches!(
            lookup_or_scan(rows(1_000), rows(100_000), None),
            LookupOrScan::Lookup(_)
        ));
        let LookupOrScan::Scan(why) = lookup_or_scan(rows(1_000_000), rows(100_000), None) else {
            panic!("a million probe rows against 100K table rows should scan");
        };
        assert!(why.contains("1000000 probe keys"), "{why}");
        assert!(why.contains(">= 100000 rows"), "{why}");
    }

    #[test]
    fn unknown_sizes_and_caches_look_up() {
        assert!(matches!(
            lookup_or_scan(None, rows(10), None),
            LookupOrScan::Lookup(_)
        ));
        assert!(matches!(
            lookup_or_scan(rows(10), None, None),
            LookupOrScan::Lookup(_)
        ));
        let LookupOrScan::Lookup(why) = lookup_or_scan(
            rows(1_000_000),
            rows(10),
            Some("the lookup table has a cache"),
        ) else {
            panic!("a cached lookup table should be looked up");
        };
        assert!(why.contains("cache"), "{why}");
    }
}

//! The catalogue of workloads: names, descriptions and full-scale sizes.

use std::fmt;
use std::str::FromStr;

/// A synthetic join workload. Each one describes a probe (big/left) side and
/// a build (small/right) side; [`crate::generate`] materializes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// 10M probe rows, each matching one of 1K unique build keys.
    FkSmall,
    /// 10M probe rows, each matching one of 1M unique build keys.
    FkMedium,
    /// 10M x 10M, 1:1: the probe side is a shuffle of the build keys.
    FkLarge,
    /// 10M probe rows with Zipf(1.1)-distributed keys over 1M unique build keys.
    Zipf,
    /// 10M probe rows of which 1% match one of 1M unique build keys.
    LowMatch,
    /// 1M x 1M rows over 100K shared key ids (many-to-many).
    M2n,
    /// 100K x 100K rows over 1K key ids, with a time column `t` for a band join.
    Band,
    /// 20K x 20K rows with a value column `v` for a nested-loop (`<`) join.
    Nlj,
    /// 1M x 1M rows over 10K key ids, with a time column `t` (microseconds
    /// over one day) for an interval join (a ±5-minute window).
    Interval,
    /// 10M trades x 1M quotes over 1K key ids (symbols), with a time column
    /// `t` (microseconds over one day) for an as-of join: the latest quote
    /// of its symbol at or before each trade.
    Asof,
}

impl Workload {
    /// Every workload, in catalogue order.
    pub const ALL: [Workload; 10] = [
        Workload::FkSmall,
        Workload::FkMedium,
        Workload::FkLarge,
        Workload::Zipf,
        Workload::LowMatch,
        Workload::M2n,
        Workload::Band,
        Workload::Nlj,
        Workload::Interval,
        Workload::Asof,
    ];

    /// The equi-join workloads the hash join is measured on (all but the
    /// band, nested-loop, interval and as-of ones).
    pub const HASH_JOIN: [Workload; 6] = [
        Workload::FkSmall,
        Workload::FkMedium,
        Workload::FkLarge,
        Workload::Zipf,
        Workload::LowMatch,
        Workload::M2n,
    ];

    /// The workload's snake_case name, e.g. `"fk_small"`.
    pub fn name(&self) -> &'static str {
        match self {
            Workload::FkSmall => "fk_small",
            Workload::FkMedium => "fk_medium",
            Workload::FkLarge => "fk_large",
            Workload::Zipf => "zipf",
            Workload::LowMatch => "low_match",
            Workload::M2n => "m2n",
            Workload::Band => "band",
            Workload::Nlj => "nlj",
            Workload::Interval => "interval",
            Workload::Asof => "asof",
        }
    }

    /// The workload called `name` (exact, case-sensitive match of
    /// [`Workload::name`]), if any.
    pub fn from_name(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }

    /// A one-line description of the workload at scale 1.0.
    pub fn description(&self) -> &'static str {
        match self {
            Workload::FkSmall => {
                "10M probe rows, every one matching a 1K-key build side (uniform foreign key)"
            }
            Workload::FkMedium => {
                "10M probe rows, every one matching a 1M-key build side (uniform foreign key)"
            }
            Workload::FkLarge => {
                "10M x 10M 1:1: every build key appears exactly once in the shuffled probe side"
            }
            Workload::Zipf => {
                "10M probe rows with Zipf(s=1.1) keys over a 1M-key build side, hot keys at random ids"
            }
            Workload::LowMatch => "10M probe rows, 1% matching a 1M-key build side, 99% missing it",
            Workload::M2n => {
                "1M x 1M rows, keys uniform over 100K ids on both sides (~10M equi-join rows)"
            }
            Workload::Band => {
                "100K x 100K over 1K keys, t in 0..2095: ~10M equi pairs, ~100K within |a.t - b.t| <= 10"
            }
            Workload::Nlj => {
                "20K x 20K rows, v uniform: a.v < b.v holds for ~200M of the 400M pairs"
            }
            Workload::Interval => {
                "1M x 1M over 10K keys, t uniform over one day (us): ~100M equi pairs, ~0.7M within 5 minutes"
            }
            Workload::Asof => {
                "10M trades x 1M quotes over 1K keys, t uniform over one day (us): each trade's latest quote at or before it"
            }
        }
    }

    /// `(probe rows, build rows)` at scale 1.0.
    pub fn full_size(&self) -> (usize, usize) {
        match self {
            Workload::FkSmall => (10_000_000, 1_000),
            Workload::FkMedium | Workload::Zipf | Workload::LowMatch => (10_000_000, 1_000_000),
            Workload::FkLarge => (10_000_000, 10_000_000),
            Workload::M2n => (1_000_000, 1_000_000),
            Workload::Band => (100_000, 100_000),
            Workload::Nlj => (20_000, 20_000),
            Workload::Interval => (1_000_000, 1_000_000),
            Workload::Asof => (10_000_000, 1_000_000),
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown workload name; its message lists the valid
/// names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseWorkloadError {
    name: String,
}

impl fmt::Display for ParseWorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown workload {:?}; valid workloads are: ", self.name)?;
        for (i, workload) in Workload::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(workload.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseWorkloadError {}

impl FromStr for Workload {
    type Err = ParseWorkloadError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Workload::from_name(name).ok_or_else(|| ParseWorkloadError {
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_from_name_display_and_from_str() {
        let names: Vec<_> = Workload::ALL.iter().map(|w| w.name()).collect();
        assert_eq!(
            names,
            [
                "fk_small",
                "fk_medium",
                "fk_large",
                "zipf",
                "low_match",
                "m2n",
                "band",
                "nlj",
                "interval",
                "asof"
            ]
        );
        for workload in Workload::ALL {
            assert_eq!(Workload::from_name(workload.name()), Some(workload));
            assert_eq!(workload.to_string(), workload.name());
            assert_eq!(workload.name().parse::<Workload>(), Ok(workload));
            assert!(!workload.description().is_empty());
            assert!(!workload.description().contains('\n'));
        }
    }

    #[test]
    fn from_name_rejects_unknown_names_listing_valid_ones() {
        assert_eq!(Workload::from_name("FK_SMALL"), None);
        assert_eq!(Workload::from_name(""), None);
        let err = "tpch".parse::<Workload>().unwrap_err();
        let message = err.to_string();
        assert!(message.contains("\"tpch\""), "{message}");
        for workload in Workload::ALL {
            assert!(message.contains(workload.name()), "{message}");
        }
    }

    #[test]
    fn full_sizes_match_the_issue() {
        let sizes: Vec<_> = Workload::ALL.iter().map(|w| w.full_size()).collect();
        assert_eq!(
            sizes,
            [
                (10_000_000, 1_000),
                (10_000_000, 1_000_000),
                (10_000_000, 10_000_000),
                (10_000_000, 1_000_000),
                (10_000_000, 1_000_000),
                (1_000_000, 1_000_000),
                (100_000, 100_000),
                (20_000, 20_000),
                (1_000_000, 1_000_000),
                (10_000_000, 1_000_000),
            ]
        );
    }
}

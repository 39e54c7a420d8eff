//! The CPU the kernels run on: its instruction-set level, detected once,
//! and the one way a hot loop is compiled for it ([`dispatch!`]).
//!
//! tenon is built for the baseline x86-64 target (SSE2), so that one binary
//! runs on any x86-64 CPU. A hot loop wrapped in [`dispatch!`] is compiled
//! three times: for the baseline, for x86-64-v3 (AVX2, BMI1/2, FMA, LZCNT,
//! MOVBE: Haswell and Zen 1 on) and for x86-64-v4 (v3 plus AVX-512 F, BW,
//! CD, DQ, VL: Skylake-X, Ice Lake, Sapphire Rapids, Zen 4 on), and each
//! call runs the copy of the best level this CPU has. The level is found by
//! `is_x86_feature_detected!` on the first call and kept in an atomic, so a
//! call pays one relaxed load and a predictable branch; dispatch is done
//! once per batch or morsel, never per row.
//!
//! `TENON_CPU` (read once, at the first dispatch) caps the level:
//! `baseline`, `x86-64-v3` (or `v3`), `x86-64-v4` (or `v4`); unset or
//! `native` means the best level detected. A level above what the CPU has
//! is lowered to what it has, so no setting can make the binary run an
//! instruction its CPU lacks; an unknown value means `baseline`. Use it to
//! compare the levels on one binary, or to rule the wide copies out.
//!
//! Why dispatch and not a `target-cpu` build: a binary built with
//! `-C target-cpu=native` (or `x86-64-v3`) stops with SIGILL on a CPU
//! without those instructions, and the peers' wheels are run on whatever
//! CPU a user has. Dispatch gives the hot loops the wide instructions and
//! leaves the rest of the program (Arrow's kernels, the planner) at the
//! baseline. What dispatch cannot reach: code in dependencies (Arrow's
//! `take`, ahash's AES path for byte keys, which is chosen at compile time
//! from `target_feature = "aes"`).

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level the hot loops are compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// The baseline x86-64 target (SSE2), or any other architecture.
    Baseline = 1,
    /// x86-64-v3: AVX2, BMI1, BMI2, FMA, LZCNT, MOVBE, F16C.
    V3 = 2,
    /// x86-64-v4: v3 plus AVX-512 F, BW, CD, DQ and VL.
    V4 = 3,
}

impl Level {
    /// The level's name, as `TENON_CPU` spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::V3 => "x86-64-v3",
            Level::V4 => "x86-64-v4",
        }
    }

    fn from_u8(v: u8) -> Option<Level> {
        match v {
            1 => Some(Level::Baseline),
            2 => Some(Level::V3),
            3 => Some(Level::V4),
            _ => None,
        }
    }
}

/// The best level this CPU has.
fn detected() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        let v3 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("movbe")
            && is_x86_feature_detected!("f16c")
            && is_x86_feature_detected!("popcnt");
        let v4 = v3
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl");
        if v4 {
            Level::V4
        } else if v3 {
            Level::V3
        } else {
            Level::Baseline
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Level::Baseline
}

/// The cap a `TENON_CPU` value asks for (`None`: no cap).
fn parse_cap(value: Option<&str>) -> Option<Level> {
    match value.map(str::trim) {
        None | Some("" | "native") => None,
        Some("x86-64-v4" | "v4") => Some(Level::V4),
        Some("x86-64-v3" | "v3") => Some(Level::V3),
        Some(_) => Some(Level::Baseline),
    }
}

/// 0 until the first [`level`] call, then a [`Level`] as `u8`.
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// The level the hot loops run at: the best this CPU has, capped by
/// `TENON_CPU` (see the module docs).
#[inline(always)]
pub(crate) fn level() -> Level {
    match Level::from_u8(LEVEL.load(Ordering::Relaxed)) {
        Some(l) => l,
        None => init(),
    }
}

#[cold]
fn init() -> Level {
    let cap = parse_cap(std::env::var("TENON_CPU").ok().as_deref());
    let l = cap.map_or(detected(), |c| c.min(detected()));
    LEVEL.store(l as u8, Ordering::Relaxed);
    l
}

/// The name of the instruction-set level tenon's hot loops run at on this
/// CPU (`"baseline"`, `"x86-64-v3"` or `"x86-64-v4"`): the best the CPU
/// has, capped by the `TENON_CPU` environment variable (`baseline`,
/// `x86-64-v3`, `x86-64-v4`; unset or `native` for no cap). For benchmark
/// reports and diagnostics.
pub fn cpu_level() -> &'static str {
    level().name()
}

/// Makes the hot loops run at `level` (at most what the CPU has), or at the
/// detected level again with `None`; for the tests that compare the levels.
#[cfg(test)]
pub(crate) fn force(level: Option<Level>) {
    let l = level.map_or(detected(), |c| c.min(detected()));
    LEVEL.store(l as u8, Ordering::Relaxed);
}

/// Runs `f` compiled for x86-64-v3. Only [`dispatch!`] calls it.
///
/// `f` is a closure made for this one call, so LLVM inlines it (and the
/// `#[inline(always)]` loop it calls) into this function, whose features
/// then apply to all of it.
#[cfg(target_arch = "x86_64")]
// The features of `-C target-cpu=x86-64-v3` beyond the baseline (AVX2
// implies AVX and the SSE levels below it).
#[target_feature(enable = "avx2,bmi1,bmi2,fma,lzcnt,movbe,f16c,popcnt")]
#[inline]
pub(crate) fn run_v3<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Runs `f` compiled for x86-64-v4 (see [`run_v3`]).
#[cfg(target_arch = "x86_64")]
// x86-64-v3's features and AVX-512 F, BW, CD, DQ, VL.
#[target_feature(
    enable = "avx2,bmi1,bmi2,fma,lzcnt,movbe,f16c,popcnt,avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
)]
#[inline]
pub(crate) fn run_v4<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Evaluates `$body` (an expression, typically a call of an
/// `#[inline(always)]` loop) compiled for the best instruction-set level
/// of this CPU ([`level`]).
///
/// The expression is expanded once per level, each inside its own closure
/// handed to a `#[target_feature]` function, so everything it inlines is
/// compiled with that level's features; code it calls without inlining
/// (allocation, Arrow) stays at the baseline. So the loop itself must be
/// `#[inline(always)]`, as must the helpers of its body that matter. The
/// body must not `return` or use `?` (they would act inside the closure).
macro_rules! dispatch {
    ($body:expr) => {
        match $crate::cpu::level() {
            #[cfg(target_arch = "x86_64")]
            $crate::cpu::Level::V4 => {
                // SAFETY: `level()` is V4 only when `is_x86_feature_detected!`
                // found every x86-64-v4 feature on this CPU.
                unsafe { $crate::cpu::run_v4(|| $body) }
            }
            #[cfg(target_arch = "x86_64")]
            $crate::cpu::Level::V3 => {
                // SAFETY: `level()` is V3 only when `is_x86_feature_detected!`
                // found every x86-64-v3 feature on this CPU.
                unsafe { $crate::cpu::run_v3(|| $body) }
            }
            _ => $body,
        }
    };
}

pub(crate) use dispatch;

/// Asks the CPU to start loading the cache line of `value`, so that a
/// read of it a little later does not wait for memory.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads nothing the program can
    // observe and never faults, and the pointer comes from a reference.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast::<i8>(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Serializes the tests that force a level (the level is global).
    pub(crate) static FORCED: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Runs `f` once at every level this CPU has, returning the results
    /// (baseline first).
    pub(crate) fn at_every_level<R>(f: impl Fn() -> R) -> Vec<(Level, R)> {
        let _guard = FORCED.lock().unwrap_or_else(|e| e.into_inner());
        let out = [Level::Baseline, Level::V3, Level::V4]
            .into_iter()
            .filter(|&l| l <= detected())
            .map(|l| {
                force(Some(l));
                assert_eq!(level(), l);
                (l, f())
            })
            .collect();
        force(None);
        out
    }

    #[test]
    fn tenon_cpu_values() {
        assert_eq!(parse_cap(None), None);
        assert_eq!(parse_cap(Some("native")), None);
        assert_eq!(parse_cap(Some("baseline")), Some(Level::Baseline));
        assert_eq!(parse_cap(Some("x86-64-v3")), Some(Level::V3));
        assert_eq!(parse_cap(Some(" v4 ")), Some(Level::V4));
        assert_eq!(parse_cap(Some("avx9000")), Some(Level::Baseline));
    }

    #[test]
    fn a_forced_level_is_never_above_the_cpus() {
        for (l, name) in at_every_level(cpu_level) {
            assert!(l <= detected());
            assert_eq!(name, l.name());
        }
    }

    #[inline(always)]
    fn sum_hashes(v: &[u64]) -> u64 {
        v.iter()
            .fold(0u64, |s, &k| s.wrapping_add(crate::keys::hash_u64(k)))
    }

    #[test]
    fn every_level_computes_the_same() {
        let v: Vec<u64> = (0..10_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9))
            .collect();
        let got = at_every_level(|| dispatch!(sum_hashes(&v)));
        assert!(got.windows(2).all(|w| w[0].1 == w[1].1), "{got:?}");
    }
}

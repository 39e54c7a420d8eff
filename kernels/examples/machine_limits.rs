//! The tight-loop limits of the machine this runs on, on one thread: what
//! a hash join's probe cannot beat, to compare the kernel's ns per probe
//! row with (the figures are quoted in `kernels/src/hash/mod.rs`).
//!
//! * a *dependent* random read inside L2: a pointer chase over a random
//!   cycle of 1 MiB, each load's address the previous load's value (the
//!   load-to-use latency, no overlap possible);
//! * *independent* random probes into open-addressing tables of 1K, 1M and
//!   16M u64 keys (16 bytes a slot, load 1/2, keys mixed by a multiply),
//!   every probe a hit, once as a plain loop (the out-of-order core overlaps
//!   the misses it can see) and once in blocks of 32 whose home slots are
//!   prefetched first (as the kernel's probe does);
//! * sequential read bandwidth: a sum over 1 GiB of u64.
//!
//! Run: `cargo run --release -p tenon-kernels --example machine_limits`
//! (best of 5 runs each; `RUSTFLAGS='-C target-cpu=native'` changes
//! nothing that matters here: the loops wait for memory).

use std::hint::black_box;
use std::time::Instant;

/// A splitmix64 stream: reproducible random numbers without a crate.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The best (smallest) of `runs` timings of `f`, in seconds.
fn best(runs: usize, mut f: impl FnMut() -> u64) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// ns per load of a pointer chase over `bytes` of u64 slots.
fn dependent_read(bytes: usize) -> f64 {
    let n = bytes / 8;
    // A random cyclic permutation (Sattolo's algorithm): one cycle through
    // every slot.
    let mut next: Vec<u64> = (0..n as u64).collect();
    let mut rng = Random(7);
    for i in (1..n).rev() {
        let j = rng.below(i);
        next.swap(i, j);
    }
    let steps = 20_000_000usize;
    let s = best(5, || {
        let mut at = 0u64;
        for _ in 0..steps {
            at = next[at as usize];
        }
        at
    });
    s * 1e9 / steps as f64
}

/// One slot of the probe tables: a key and a payload, as the kernel's
/// entries (tag, row, count) are 16 bytes.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    value: u64,
}

fn home(k: u64, shift: u32) -> usize {
    (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> shift) as usize
}

/// ns per probe into a table of `keys` keys: (plain, prefetched).
fn probes(keys: usize) -> (f64, f64) {
    let slots = (2 * keys).next_power_of_two();
    let bits = slots.trailing_zeros();
    let shift = 64 - bits;
    let mask = slots - 1;
    let mut table = vec![Slot::default(); slots];
    let mut rng = Random(11);
    let stored: Vec<u64> = (0..keys).map(|_| rng.next() | 1).collect();
    for (i, &k) in stored.iter().enumerate() {
        let mut p = home(k, shift);
        while table[p].key != 0 {
            p = (p + 1) & mask;
        }
        table[p] = Slot {
            key: k,
            value: i as u64,
        };
    }
    let n = 10_000_000usize;
    let probe: Vec<u64> = (0..n).map(|_| stored[rng.below(keys)]).collect();
    let find = |k: u64| {
        let mut p = home(k, shift);
        loop {
            let s = table[p];
            if s.key == k {
                return s.value;
            }
            if s.key == 0 {
                return 0;
            }
            p = (p + 1) & mask;
        }
    };
    let plain = best(5, || {
        probe.iter().fold(0u64, |s, &k| s.wrapping_add(find(k)))
    });
    let prefetched = best(5, || {
        let mut sum = 0u64;
        for block in probe.chunks(32) {
            for &k in block {
                let p = table.as_ptr().wrapping_add(home(k, shift));
                #[cfg(target_arch = "x86_64")]
                // SAFETY: a prefetch is only a hint: it never faults and
                // reads nothing the program observes; `p` is in `table`.
                unsafe {
                    core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                        p as *const i8,
                    )
                };
                #[cfg(not(target_arch = "x86_64"))]
                black_box(p);
            }
            for &k in block {
                sum = sum.wrapping_add(find(k));
            }
        }
        sum
    });
    (plain * 1e9 / n as f64, prefetched * 1e9 / n as f64)
}

/// GB/s of a sum over 1 GiB of u64.
fn bandwidth() -> f64 {
    let n = (1usize << 30) / 8;
    let v: Vec<u64> = (0..n as u64).collect();
    let s = best(5, || v.iter().fold(0u64, |s, &x| s.wrapping_add(x)));
    (n * 8) as f64 / s / 1e9
}

fn main() {
    println!(
        "dependent random read, 1 MiB (in L2): {:.2} ns/read",
        dependent_read(1 << 20)
    );
    for keys in [1usize << 10, 1 << 20, 1 << 24] {
        let (plain, pre) = probes(keys);
        println!(
            "random probe, {keys} keys ({} KiB table): {plain:.2} ns/probe plain, {pre:.2} ns/probe prefetched",
            ((2 * keys).next_power_of_two() * 16) >> 10
        );
    }
    println!("sequential read: {:.1} GB/s", bandwidth());
}

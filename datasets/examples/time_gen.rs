//! throwaway
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let w: tenon_datasets::Workload = args[1].parse().unwrap();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let tables = tenon_datasets::generate(w, 1.0, 42);
        println!("{w}: {:?} ({} x {})", t.elapsed(), tables.probe.num_rows(), tables.build.num_rows());
    }
}

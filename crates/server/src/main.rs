//! The `regard` binary: parses the command line and hands over to the library.

/// mimalloc rather than glibc's allocator: the server allocates on one thread and frees on
/// another all the time (rows made on the database's threads, answers written on the runtime's),
/// which glibc serves through locked arenas. On the list benchmark it took the server's CPU per
/// answer from 1.30 to 1.03 ms (docs/operations.md, "Load").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    require_cpu_level();
    regard::cli::main()
}

/// A build for x86-64-v3 (`.cargo/config.toml`) would die of an illegal instruction somewhere on
/// an older CPU: say so plainly before anything else runs.
fn require_cpu_level() {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        let level3 = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("movbe");
        if !level3 {
            eprintln!(
                "regard: this build needs an x86-64-v3 CPU (AVX2, FMA, BMI2: Intel Haswell, AMD \
                 Excavator or later). Rebuild it for this machine with \
                 RUSTFLAGS=\"-C target-cpu=x86-64\" cargo build --release"
            );
            std::process::exit(1);
        }
    }
}

//! What the benchmark examples share: a synthetic image and this thread's CPU time.

/// A cheap deterministic texture (a gradient, noise and a checkerboard) so nothing is flat;
/// `seed` varies the noise.
pub fn texture(w: usize, h: usize, seed: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        for x in 0..w {
            let n =
                (x as u32).wrapping_mul(0x9e37_79b1) ^ (y as u32).wrapping_mul(0x85eb_ca6b) ^ seed;
            let n = (n ^ (n >> 15)).wrapping_mul(0x2c1b_3c6d);
            v.push(((x * 255 / w) as u32 + (n & 15)) as u8);
            v.push(((y * 255 / h) as u32 ^ (((x / 40 + y / 40) as u32 & 1) * 90)) as u8);
            v.push((n >> 24) as u8 / 2 + 60);
        }
    }
    v
}

/// CPU time of this thread in ms (the machine may be shared: wall time alone misleads).
pub fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e6)
}

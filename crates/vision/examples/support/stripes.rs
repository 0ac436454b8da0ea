//! The stripe-flatness figure of rendering.md §2 ("Measuring it"), shared by the quality
//! example and the renderer's tests (`#[path]`-included by both): 2-px black and white stripes
//! shown at scale `s` on a panel in mild perspective, and the largest deviation of the
//! render's low-passed 8-bit values from their mean. A filter that lets the stripes beat
//! against the pixel grid leaves bands there; an anti-aliased one leaves a flat grey.

use regard_vision::composite::coverage::Edges;

/// Photo size of the scene.
pub const PHOTO: (usize, usize) = (400, 300);

/// The panel: about 300 × 213 px, its scale varying by about ±2 % (mild perspective).
pub const QUAD: [[f64; 2]; 4] = [[50.0, 40.0], [352.0, 48.5], [347.5, 262.0], [54.3, 255.0]];

/// σ of the low-pass in photo pixels: its window (±3σ) spans several stripe periods at every
/// measured scale (the period is 4·s px: 2.6 px at 0.65×, 1.4 px at 0.35×).
pub const SIGMA: f64 = 2.0;

/// A creative of 2-px stripes (vertical: along x) sized to appear at scale `s` on [`QUAD`]
/// with the stretch fit: `(width, height, RGB8 pixels)`.
pub fn creative(s: f64, vertical: bool) -> (usize, usize, Vec<u8>) {
    let (w, h) = ((300.0 / s).round() as usize, (215.0 / s).round() as usize);
    let rgb = (0..w * h)
        .flat_map(|i| {
            let c = if vertical { i % w } else { i / w };
            [if (c / 2) % 2 == 0 { 255 } else { 0 }; 3]
        })
        .collect();
    (w, h, rgb)
}

/// The largest |low-pass − mean| (8-bit levels) of channel 0 of an RGB8 render of [`PHOTO`]'s
/// size, over the pixels whose Gaussian window (σ = `sigma`, radius ⌈3σ⌉) lies inside `quad`.
pub fn deviation(rgb: &[u8], quad: &[[f64; 2]; 4], sigma: f64) -> f64 {
    let (w, h) = PHOTO;
    let r = (3.0 * sigma).ceil() as usize;
    let k: Vec<f64> = (0..=2 * r)
        .map(|i| {
            let d = i as f64 - r as f64;
            (-d * d / (2.0 * sigma * sigma)).exp()
        })
        .collect();
    let ks: f64 = k.iter().sum();
    let edges = Edges::new(quad);
    // Pixels whose whole window is inside the panel (their centre at least r + 1.5 px from
    // every edge).
    let keep = |x: usize, y: usize| {
        let d = edges.distances(x as f64 + 0.5, y as f64 + 0.5);
        d.iter().all(|&v| v >= r as f64 + 1.5)
    };
    let mut rows = vec![0f64; w * h];
    for y in 0..h {
        for x in r..w - r {
            rows[y * w + x] = (0..=2 * r)
                .map(|i| k[i] * rgb[(y * w + x + i - r) * 3] as f64)
                .sum::<f64>()
                / ks;
        }
    }
    let mut low = Vec::new();
    for y in r..h - r {
        for x in r..w - r {
            if keep(x, y) {
                let v = (0..=2 * r)
                    .map(|j| k[j] * rows[(y + j - r) * w + x])
                    .sum::<f64>();
                low.push(v / ks);
            }
        }
    }
    assert!(!low.is_empty(), "no pixel deep enough inside the quad");
    let mean = low.iter().sum::<f64>() / low.len() as f64;
    low.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max)
}

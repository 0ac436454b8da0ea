//! Quality of the perspective renderer (rendering.md): a 2-px checkerboard shrunk about 8× onto
//! a perspective quad must come out flat (PSNR against its mean on pixels fully inside), and the
//! panel's edges must match exact coverage (PSNR in a 5-px band against a 16 × 16 supersampled
//! reference). For scale, the same render shifted by half a pixel is scored too.
//! `cargo run --release -p regard-vision --example bench_render_quality`

use regard_vision::RgbImage;
use regard_vision::composite::colour::{linear_to_srgb, srgb_to_linear};
use regard_vision::composite::coverage::Edges;
use regard_vision::composite::{Adjustments, Fit, RenderSpec, render};

fn image(w: usize, h: usize, f: impl Fn(usize, usize) -> [u8; 3]) -> Vec<u8> {
    (0..w * h).flat_map(|i| f(i % w, i / w)).collect()
}

fn spec(quad: [[f64; 2]; 4]) -> RenderSpec {
    RenderSpec {
        quad,
        fit: Fit::Stretch,
        background: [0; 3],
        panel_aspect: None,
        adjustments: Adjustments::default(),
    }
}

fn psnr(pairs: &[(f64, f64)]) -> f64 {
    let mse = pairs.iter().map(|(a, b)| (a - b) * (a - b)).sum::<f64>() / pairs.len() as f64;
    10.0 * (255.0f64 * 255.0 / mse.max(1e-12)).log10()
}

fn checkerboard() {
    let (w, h, n) = (400, 300, 2048);
    let board = image(n, n, |x, y| {
        [if (x / 2 + y / 2) % 2 == 0 { 255 } else { 0 }; 3]
    });
    let photo = image(w, h, |_, _| [128; 3]);
    // About 256 px for 2048: 8× shrink, with perspective.
    let quad = [[60.0, 30.0], [330.5, 52.0], [318.0, 262.0], [72.0, 290.5]];
    let out = render(
        &RgbImage::new(w, h, &photo).unwrap(),
        &RgbImage::new(n, n, &board).unwrap(),
        None,
        &spec(quad),
    )
    .unwrap();
    let mean = linear_to_srgb(0.5) * 255.0;
    let edges = Edges::new(&quad);
    let mut pairs = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if edges.coverage(x as f64, y as f64) >= 1.0 {
                for k in 0..3 {
                    pairs.push((out[(y * w + x) * 3 + k] as f64, mean));
                }
            }
        }
    }
    println!(
        "checkerboard 2 px, 2048² → ~256 px quad: PSNR vs mean colour {:.1} dB over {} pixels (target ≥ 45)",
        psnr(&pairs),
        pairs.len() / 3
    );
}

fn edge_band(quad: [[f64; 2]; 4], shift: f64) -> f64 {
    let (w, h) = (400, 300);
    let (bg, fg) = ([30u8, 90, 200], [230u8, 40, 40]);
    let photo = image(w, h, |_, _| bg);
    let creative = image(16, 16, |_, _| fg);
    let shifted = quad.map(|p| [p[0] + shift, p[1] + shift]);
    let out = render(
        &RgbImage::new(w, h, &photo).unwrap(),
        &RgbImage::new(16, 16, &creative).unwrap(),
        None,
        &spec(shifted),
    )
    .unwrap();
    let edges = Edges::new(&quad);
    let mut pairs = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let d = edges.distances(x as f64 + 0.5, y as f64 + 0.5);
            if !d.iter().any(|v| v.abs() < 5.0) {
                continue;
            }
            let mut hits = 0;
            for j in 0..16 {
                for i in 0..16 {
                    let d = edges.distances(
                        x as f64 + (i as f64 + 0.5) / 16.0,
                        y as f64 + (j as f64 + 0.5) / 16.0,
                    );
                    hits += d.iter().all(|&v| v >= 0.0) as usize;
                }
            }
            let cov = hits as f64 / 256.0;
            for k in 0..3 {
                let lin = srgb_to_linear(bg[k] as f64 / 255.0) * (1.0 - cov)
                    + srgb_to_linear(fg[k] as f64 / 255.0) * cov;
                pairs.push((out[(y * w + x) * 3 + k] as f64, linear_to_srgb(lin) * 255.0));
            }
        }
    }
    psnr(&pairs)
}

fn main() {
    checkerboard();
    let quad = [[61.3, 40.7], [341.6, 65.2], [327.9, 250.4], [75.1, 271.8]];
    println!(
        "edges, 5-px band vs 16×16 supersampled coverage: PSNR {:.1} dB (target ≥ 38)",
        edge_band(quad, 0.0)
    );
    println!(
        "  for scale, the same render shifted by half a pixel: PSNR {:.1} dB",
        edge_band(quad, 0.5)
    );
}

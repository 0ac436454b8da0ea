//! Quality of the perspective renderer (rendering.md): a 2-px checkerboard shrunk about 8× onto
//! a perspective quad must come out flat (PSNR against its mean on pixels fully inside); 2-px
//! stripes at moderate shrinks must not beat into bands (the stripe flatness of rendering.md
//! §2); a creative magnified about 8× must be its bilinear reconstruction (PSNR against one
//! computed in f64); and the panel's edges must match exact coverage (PSNR in a 5-px band
//! against a 16 × 16 supersampled reference). For scale, the same render shifted by half a
//! pixel is scored too.
//! `cargo run --release -p regard-vision --example bench_render_quality`

use regard_vision::RgbImage;
use regard_vision::composite::colour::{linear_to_srgb, srgb_to_linear};
use regard_vision::composite::coverage::Edges;
use regard_vision::composite::{Adjustments, Fit, Homography, RenderSpec, render};

#[path = "support/stripes.rs"]
mod stripes;

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
        site: None,
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

fn stripe_flatness() {
    let (w, h) = stripes::PHOTO;
    let photo = image(w, h, |_, _| [128; 3]);
    let mut line = String::new();
    for s in [0.8, 0.71, 0.65, 0.5, 0.42, 0.35, 0.25] {
        let mut worst: f64 = 0.0;
        for vertical in [true, false] {
            let (cw, ch, c) = stripes::creative(s, vertical);
            let out = render(
                &RgbImage::new(w, h, &photo).unwrap(),
                &RgbImage::new(cw, ch, &c).unwrap(),
                None,
                &spec(stripes::QUAD),
            )
            .unwrap();
            worst = worst.max(stripes::deviation(&out, &stripes::QUAD, stripes::SIGMA));
        }
        line += &format!(" {s}×: {worst:.2}");
    }
    println!(
        "stripes 2 px, low-frequency deviation (levels, Gaussian σ = {} px; target ≤ 1.0 at 0.65–0.35×):{line}",
        stripes::SIGMA
    );
}

fn magnification() {
    let (w, h, cw, ch) = (400, 300, 40, 30);
    let creative = image(cw, ch, |x, y| {
        let r = (128.0 + 120.0 * (x as f64 * 0.7).sin() * (y as f64 * 0.4).cos()) as u8;
        let g = if (x / 5 + y / 5) % 2 == 0 { 230 } else { 20 };
        [r, g, ((x * 13 + y * 29) % 256) as u8]
    });
    let photo = image(w, h, |_, _| [128; 3]);
    // About 8× (7.5–8.8×), in perspective.
    let quad = [[40.0, 30.0], [372.0, 46.0], [361.5, 281.0], [33.0, 262.5]];
    let out = render(
        &RgbImage::new(w, h, &photo).unwrap(),
        &RgbImage::new(cw, ch, &creative).unwrap(),
        None,
        &spec(quad),
    )
    .unwrap();
    let inv = Homography::square_to_quad(&quad).inverse();
    let edges = Edges::new(&quad);
    let lin = |x: i64, y: i64, k: usize| {
        let (x, y) = (x.clamp(0, cw as i64 - 1), y.clamp(0, ch as i64 - 1));
        srgb_to_linear(creative[(y as usize * cw + x as usize) * 3 + k] as f64 / 255.0)
    };
    let mut pairs = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if edges.coverage(x as f64, y as f64) < 1.0 {
                continue;
            }
            let (s, t) = inv.apply(x as f64 + 0.5, y as f64 + 0.5);
            let (u, v) = (s * cw as f64 - 0.5, t * ch as f64 - 0.5);
            let (u0, v0) = (u.floor(), v.floor());
            let (fu, fv) = (u - u0, v - v0);
            let (i, j) = (u0 as i64, v0 as i64);
            for k in 0..3 {
                let top = lin(i, j, k) * (1.0 - fu) + lin(i + 1, j, k) * fu;
                let bot = lin(i, j + 1, k) * (1.0 - fu) + lin(i + 1, j + 1, k) * fu;
                let want = linear_to_srgb(top * (1.0 - fv) + bot * fv) * 255.0;
                pairs.push((out[(y * w + x) * 3 + k] as f64, want));
            }
        }
    }
    println!(
        "magnification ~8×, vs f64 bilinear reconstruction: PSNR {:.1} dB over {} pixels",
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
    stripe_flatness();
    magnification();
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

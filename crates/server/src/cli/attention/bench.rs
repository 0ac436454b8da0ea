//! `regard bench-saliency`: times the engine from decoded pixels to map, score and analysis, on
//! synthetic 1920×1080 and 24-megapixel images (or given files), and reports the median, the
//! 10th and 90th percentiles and the process's peak memory (VmHWM).

use anyhow::Result;
use regard_vision::{Model, RgbImage, analyse, predict_model};
use std::path::PathBuf;
use std::time::Instant;

/// A deterministic synthetic photo-like scene: a gradient sky, textured ground, a few
/// saturated shapes and a band of fine stripes (text-like).
fn synthetic(w: usize, h: usize) -> Vec<u8> {
    let mut d = vec![0u8; w * h * 3];
    let mut seed = 0x2545_f491_u32;
    for y in 0..h {
        for x in 0..w {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let n = (seed & 31) as f32;
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            let mut c = if fy < 0.55 {
                [110.0 + 80.0 * fy, 150.0 + 60.0 * fy, 230.0 - 30.0 * fy]
            } else {
                [90.0 + n, 120.0 + n, 60.0 + n]
            };
            let circle = (fx - 0.3).powi(2) + (fy - 0.6).powi(2) < 0.01;
            let square = (0.62..0.78).contains(&fx) && (0.25..0.45).contains(&fy);
            let stripes = (0.1..0.5).contains(&fx)
                && (0.12..0.18).contains(&fy)
                && (x / (w / 320).max(1)).is_multiple_of(3);
            if circle {
                c = [230.0, 40.0, 30.0];
            } else if square {
                c = [250.0, 210.0, 20.0];
            } else if stripes {
                c = [20.0, 20.0, 20.0];
            }
            let i = (y * w + x) * 3;
            for k in 0..3 {
                d[i + k] = c[k] as u8;
            }
        }
    }
    d
}

fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn time(
    label: &str,
    w: usize,
    h: usize,
    data: &[u8],
    runs: usize,
    model: Model,
    threads: usize,
) -> Result<()> {
    let img = RgbImage::new(w, h, data)?;
    let mut t = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let p = predict_model(&img, model, threads);
        let a = analyse(&p.map, &p.faces, &p.texts);
        t.push(t0.elapsed().as_secs_f64() * 1e3);
        last = Some(a);
    }
    t.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| t[((t.len() - 1) as f64 * f).round() as usize];
    let a = last.expect("at least one run");
    println!(
        "{label:<28} {w}×{h}: median {:.1} ms, p10 {:.1} ms, p90 {:.1} ms ({} runs; score {:.0}, {} hotspots); peak RSS so far {:.0} MiB",
        q(0.5),
        q(0.1),
        q(0.9),
        t.len(),
        a.score,
        a.hotspots.len(),
        peak_rss_mib().unwrap_or(f64::NAN)
    );
    Ok(())
}

/// Runs the benchmark.
pub fn run(runs: usize, model: Model, threads: usize, images: &[PathBuf]) -> Result<()> {
    println!(
        "model {model:?}, {threads} thread{}; time = decoded pixels → map + score + analysis",
        if threads == 1 { "" } else { "s" }
    );
    // Warm the models (weights decoded once) so the first timed run is not an outlier.
    let small = synthetic(64, 48);
    let _ = predict_model(&RgbImage::new(64, 48, &small)?, model, threads);
    if images.is_empty() {
        let d = synthetic(1920, 1080);
        time("synthetic", 1920, 1080, &d, runs, model, threads)?;
        drop(d);
        let d = synthetic(6000, 4000);
        time(
            "synthetic",
            6000,
            4000,
            &d,
            runs.div_ceil(2),
            model,
            threads,
        )?;
    } else {
        for p in images {
            let (w, h, d) = super::heatmap::decode(p)?;
            time(&p.display().to_string(), w, h, &d, runs, model, threads)?;
        }
    }
    Ok(())
}

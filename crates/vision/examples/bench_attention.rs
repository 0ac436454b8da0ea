//! Speed of attention model v3 (crates/vision/src/deep) on one thread: decoded pixels of a
//! synthetic image → network input → both heads' density grids, then upsampled to the working
//! size and analysed (scores, hotspots), for both maps. Prints median, p10 and p90 of wall and thread CPU time, with the
//! classical model's `predict` + `analyse` for comparison.
//! `cargo run --release -p regard-vision --example bench_attention [runs] [width height]`

use regard_vision::deep::DeepModel;
use regard_vision::image::working_size;
use regard_vision::model::WORK_LONG_SIDE;
use regard_vision::{Model, RgbImage, analyse, predict_model};
use std::time::Instant;

mod support;

use support::cpu_ms;

/// The shared texture with a saturated disc on it.
fn texture(w: usize, h: usize) -> Vec<u8> {
    let mut v = support::texture(w, h, 0);
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
            if (fx - 0.3).powi(2) + (fy - 0.6).powi(2) < 0.01 {
                v[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&[230, 40, 30]);
            }
        }
    }
    v
}

fn report(label: &str, mut wall: Vec<f64>, mut cpu: Vec<f64>) {
    let q = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * p).round() as usize]
    };
    println!(
        "{label:<40} wall median {:7.1} ms (p10 {:7.1}, p90 {:7.1});  cpu median {:7.1} ms",
        q(&mut wall, 0.5),
        q(&mut wall, 0.1),
        q(&mut wall, 0.9),
        q(&mut cpu, 0.5)
    );
}

fn time(runs: usize, mut f: impl FnMut()) -> (Vec<f64>, Vec<f64>) {
    f(); // warm-up (decodes the embedded weights once)
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let (t0, c0) = (Instant::now(), cpu_ms());
        f();
        wall.push(t0.elapsed().as_secs_f64() * 1e3);
        cpu.push(cpu_ms() - c0);
    }
    (wall, cpu)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let runs = args.first().copied().unwrap_or(11);
    let (w, h) = match args[..] {
        [_, w, h, ..] => (w, h),
        _ => (1920, 1080),
    };
    let data = texture(w, h);
    let img = RgbImage::new(w, h, &data).expect("valid image");
    let m = DeepModel::embedded();
    let input = m.input(&img);
    println!(
        "{w}×{h}, network input {}×{}, {runs} runs, one thread",
        input.w, input.h
    );
    let (a, b) = time(runs, || {
        std::hint::black_box(m.input(&img));
    });
    report("input (area average, scaling)", a, b);
    let (a, b) = time(runs, || {
        std::hint::black_box(m.features(&input, 1));
    });
    report("backbone", a, b);
    let feats = m.features(&input, 1);
    let (a, b) = time(runs, || {
        std::hint::black_box(m.mean_densities(&feats));
    });
    report(
        &format!("{} readouts × 2 heads (mean densities)", m.readout_count()),
        a,
        b,
    );
    let (ww, wh) = working_size(w, h, WORK_LONG_SIDE);
    let (a, b) = time(runs, || {
        let grids = m.densities(&m.input(&img), 1);
        for grid in &grids.0 {
            let mut map = grid.resize_bilinear(ww, wh);
            map.normalize_sum();
            std::hint::black_box(analyse(&map, &[], &[]));
        }
    });
    report("v3: pixels → both maps → analyses", a, b);
    let (a, b) = time(runs, || {
        let p = regard_vision::deep::predict(&img);
        std::hint::black_box(analyse(&p.map, &p.faces, &p.texts));
        std::hint::black_box(analyse(&p.glance, &p.faces, &p.texts));
    });
    report("v3 predict (faces, text) + 2 analyses", a, b);
    let (a, b) = time(runs, || {
        let p = predict_model(&img, Model::Classical, 1);
        std::hint::black_box(analyse(&p.map, &p.faces, &p.texts));
    });
    report("classical: predict + analyse", a, b);
}

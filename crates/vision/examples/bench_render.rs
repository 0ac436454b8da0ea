//! Speed of the perspective renderer on the benchmark scene of rendering.md: a 12-megapixel
//! photo, a 1920 × 1080 creative on a close-up panel of about 1600 × 950 px, one thread.
//! `cargo run --release -p regard-vision --example bench_render [runs] [case index]`

use regard_vision::RgbImage;
use regard_vision::composite::{Adjustments, Fit, Night, RenderSpec, Scratch, render_in_place};
use std::time::Instant;

mod support;

use support::{cpu_ms, texture};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let (pw, ph) = (4000, 3000);
    let (cw, ch) = (1920, 1080);
    let photo = texture(pw, ph, 1);
    let creative = texture(cw, ch, 2);
    let c = RgbImage::new(cw, ch, &creative).unwrap();
    let quad = [
        [1200.0, 1000.0],
        [2820.0, 1050.0],
        [2800.0, 1960.0],
        [1210.0, 1990.0],
    ];
    let all = Adjustments {
        brightness: 0.1,
        contrast: 0.2,
        saturation: 0.15,
        warmth: 0.2,
        sharpness: 0.3,
        grain: 0.5,
        glare: 0.3,
        auto_match: true,
        night: None,
        view: None,
    };
    let cases = [
        ("plain", Adjustments::default()),
        ("all adjustments", all),
        (
            "all + night led",
            Adjustments {
                night: Some(Night::Led),
                ..all
            },
        ),
    ];
    let only: Option<usize> = std::env::args().nth(2).and_then(|a| a.parse().ok());
    // As `regard render --bench` and a server thread do: rendered in the photo's own buffer
    // (restored before each run, untimed), the scratch storage kept between runs.
    let mut out = photo.clone();
    let mut scratch = Scratch::default();
    for (k, (name, adjustments)) in cases.into_iter().enumerate() {
        if only.is_some_and(|o| o != k) {
            continue;
        }
        let spec = RenderSpec {
            quad,
            fit: Fit::Cover,
            background: [0, 0, 0],
            panel_aspect: None,
            adjustments,
            site: None,
        };
        let mut t = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..runs {
            out.copy_from_slice(&photo);
            let (s, c0) = (Instant::now(), cpu_ms());
            render_in_place(&mut out, pw, ph, &c, None, &spec, &mut scratch).unwrap();
            t.push(s.elapsed().as_secs_f64() * 1e3);
            cpu.push(cpu_ms() - c0);
        }
        t.sort_by(f64::total_cmp);
        cpu.sort_by(f64::total_cmp);
        println!(
            "{name:>16}: wall median {:.1} ms (min {:.1}), CPU median {:.1} ms (min {:.1}), {runs} runs",
            t[t.len() / 2],
            t[0],
            cpu[cpu.len() / 2],
            cpu[0]
        );
    }
}

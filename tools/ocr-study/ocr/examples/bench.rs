//! Reads posters (PNG) with the embedded models on one thread; prints per-poster time to stderr
//! and, with --json, the lines in the evaluation format (pixels) to stdout.
//! usage: cargo run --release --example bench -- [--json] posters/out/p*.png
use std::time::Instant;
mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    // --warm: read every poster once first, so that the times are those of a process that has
    // already optimised the networks for these sizes (a server after its first creatives).
    let warm = args.iter().any(|a| a == "--warm");

    let t = Instant::now();
    let reader = regard_ocr::Reader::new().expect("models load");
    let side: usize = args
        .iter()
        .position(|a| a == "--det-side")
        .map(|i| args[i + 1].parse().expect("--det-side N"))
        .unwrap_or(regard_ocr::DET_LONG_SIDE);
    let reader = reader.with_det_long_side(side);
    let reader = if warm {
        warm_reader(&args).with_det_long_side(side)
    } else {
        reader
    };
    eprintln!(
        "model load + optimise: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut out = Vec::new();
    let mut times = Vec::new();
    let mut cpu = Vec::new();
    for path in args.iter().filter(|a| a.ends_with(".png")) {
        let id = std::path::Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let (rgb, w, h) = common::load_png(path);
        let t = Instant::now();
        let c = cpu_ns();
        let lines = reader.read(&rgb, w, h).expect("read");
        let cpu_ms = (cpu_ns() - c) as f64 / 1e6;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        cpu.push(cpu_ms);
        eprintln!(
            "{id} {w}x{h} {ms:.0} ms wall, {cpu_ms:.0} ms on the CPU, {} lines",
            lines.len()
        );
        let ls: Vec<String> = lines
            .iter()
            .map(|l| {
                let r = l.rect;
                format!(
                    "{{\"box\":[{:.1},{:.1},{:.1},{:.1}],\"text\":{},\"letter_height_px\":{:.2},\"conf\":{:.3},\"capitals\":{}}}",
                    r.x * w as f32,
                    r.y * h as f32,
                    (r.x + r.width) * w as f32,
                    (r.y + r.height) * h as f32,
                    json_str(&l.text),
                    l.letter_height * h as f32,
                    l.confidence,
                    l.capitals
                )
            })
            .collect();
        out.push(format!(
            "\"{id}\":{{\"ms\":{ms:.1},\"lines\":[{}]}}",
            ls.join(",")
        ));
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    if !times.is_empty() {
        eprintln!(
            "posters: {}  wall ms median {:.0} max {:.0}; thread CPU ms median {:.0} max {:.0}",
            times.len(),
            times[times.len() / 2],
            times[times.len() - 1],
            cpu[cpu.len() / 2],
            cpu[cpu.len() - 1]
        );
    }
    if json {
        println!("{{{}}}", out.join(",\n"));
    }
}

/// Time this thread has spent on a CPU (Linux: /proc/thread-self/schedstat), in ns: unlike the
/// wall clock, not inflated when other processes share the cores.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn warm_reader(args: &[String]) -> regard_ocr::Reader {
    let side: usize = args
        .iter()
        .position(|a| a == "--det-side")
        .map(|i| args[i + 1].parse().expect("--det-side N"))
        .unwrap_or(regard_ocr::DET_LONG_SIDE);
    let reader = regard_ocr::Reader::new()
        .expect("models load")
        .with_det_long_side(side);
    for path in args.iter().filter(|a| a.ends_with(".png")) {
        let (rgb, w, h) = common::load_png(path);
        reader.read(&rgb, w, h).expect("read");
    }
    reader
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

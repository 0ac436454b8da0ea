//! Peak memory of the media ingest on the worst uploads we can build within the limits (issue
//! 14, review item 1: a 778 KB PNG of 10000×10000 RGBA at 16 bits once took 1.27 GB).
//!
//! ```text
//! cargo run --release -p regard --example bench_ingest_memory
//! ```
//!
//! Each case is written to a file, then ingested in a child process of its own (this program
//! run with `--case FILE`), so that one case's memory cannot hide in another's: the child
//! resets its peak (VmHWM) once the upload is staged, runs `prepare` and `finish`, and prints
//! the decoding cost `prepare` worked out, the peak resident memory, and the outcome. The
//! budget is the default, `MediaLimits::max_decode_bytes`.

use std::io::Write;
use std::path::Path;
use std::process::Command;

mod support;

use image::ImageEncoder;
use regard::media::{self, MediaLimits, Upload};

/// Smooth photo-like RGB (gradients and mild noise) that JPEG compresses to well under the
/// 50 MB file limit even at 90 megapixels.
fn rgb_pixels(width: u32, height: u32) -> Vec<u8> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut pixels = Vec::with_capacity(width as usize * height as usize * 3);
    for y in 0..height {
        for x in 0..width {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let noise = (seed >> 61) as u32;
            let r = (x * 200 / width + noise) as u8;
            let g = (y * 200 / height + noise) as u8;
            pixels.extend_from_slice(&[r, g, ((x + y) / 64 % 2) as u8 * 60 + 80]);
        }
    }
    pixels
}

fn jpeg(width: u32, height: u32, progressive: bool) -> Vec<u8> {
    let pixels = rgb_pixels(width, height);
    let mut out = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut out, 85);
    encoder.set_progressive(progressive);
    encoder
        .encode(
            &pixels,
            width as u16,
            height as u16,
            jpeg_encoder::ColorType::Rgb,
        )
        .unwrap();
    out
}

/// An EXIF APP1 segment with only an orientation, spliced in after SOI.
fn with_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let mut t: Vec<u8> = b"Exif\0\0II*\0\x08\0\0\0\x01\0".to_vec();
    t.extend_from_slice(&0x0112u16.to_le_bytes());
    t.extend_from_slice(&3u16.to_le_bytes());
    t.extend_from_slice(&1u32.to_le_bytes());
    t.extend_from_slice(&orientation.to_le_bytes());
    t.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((t.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&t);
    out.extend_from_slice(&jpeg[2..]);
    out
}

/// The review's file: RGBA at 16 bits per channel, a smooth gradient (compresses to ~1 MB),
/// written row by row.
fn png16(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    write_png16(&mut out, width, height);
    out
}

fn write_png16(out: &mut Vec<u8>, width: u32, height: u32) {
    let mut encoder = png::Encoder::new(out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Sixteen);
    let mut writer = encoder.write_header().unwrap();
    let mut stream = writer.stream_writer().unwrap();
    let mut row = Vec::with_capacity(width as usize * 8);
    for y in 0..height {
        row.clear();
        for x in 0..width {
            for v in [(x * 6) as u16, (y * 6) as u16, 30_000, u16::MAX] {
                row.extend_from_slice(&v.to_be_bytes());
            }
        }
        stream.write_all(&row).unwrap();
    }
    stream.finish().unwrap();
}

fn webp_lossless(width: u32, height: u32) -> Vec<u8> {
    let pixels = rgb_pixels(width, height);
    let mut out = Vec::new();
    image::codecs::webp::WebPEncoder::new_lossless(&mut out)
        .write_image(&pixels, width, height, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

/// The child: ingests one file and prints one line.
fn run_case(path: &Path, unlimited: bool) {
    let mut limits = MediaLimits::default();
    if unlimited {
        limits.max_decode_bytes = u64::MAX;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = std::fs::read(path).unwrap();
    let upload = Upload::from_bytes(&data, tmp.path()).unwrap();
    drop(data);
    assert!(support::reset_peak_rss(), "VmHWM reset (Linux ≥ 4.0)");
    let base = support::status_kib("VmRSS:").unwrap_or(0);
    let outcome = match media::prepare(upload, &limits) {
        Err(err) => format!("refused: {} ({err})", err.code()),
        Ok(prepared) => {
            let cost = prepared.cost();
            match prepared.finish(&limits) {
                Ok(m) => format!(
                    "accepted: cost {} MiB, original {}x{}, preview {}x{}",
                    cost >> 20,
                    m.width(),
                    m.height(),
                    m.preview.width,
                    m.preview.height
                ),
                Err(err) => format!("failed: {err}"),
            }
        }
    };
    let peak = support::status_kib("VmHWM:").unwrap_or(0);
    println!(
        "peak {:>4} MiB (process before: {} MiB)  {outcome}",
        peak >> 10,
        base >> 10
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 3 && (args[1] == "--case" || args[1] == "--case-unlimited") {
        run_case(Path::new(&args[2]), args[1] == "--case-unlimited");
        return;
    }
    let budget = MediaLimits::default().max_decode_bytes >> 20;
    println!(
        "bench_ingest_memory: decoding budget {budget} MiB per upload; one child process per case"
    );
    let dir = tempfile::tempdir().unwrap();
    type Make = Box<dyn Fn() -> Vec<u8>>;
    let cases: Vec<(&str, Make)> = vec![
        (
            "PNG 10000x10000 RGBA 16-bit (the review's file)",
            Box::new(|| png16(10_000, 10_000)),
        ),
        (
            "JPEG 9000x9000 baseline, upright (81 MP)",
            Box::new(|| jpeg(9_000, 9_000, false)),
        ),
        (
            "JPEG 10000x10000 baseline, upright (100 MP)",
            Box::new(|| jpeg(10_000, 10_000, false)),
        ),
        (
            "JPEG 8160x6120 baseline, orientation 6 (50 MP phone)",
            Box::new(|| with_orientation(&jpeg(8_160, 6_120, false), 6)),
        ),
        (
            "JPEG 7000x5000 progressive, upright (35 MP)",
            Box::new(|| jpeg(7_000, 5_000, true)),
        ),
        (
            "JPEG 9000x9000 progressive, upright (81 MP)",
            Box::new(|| jpeg(9_000, 9_000, true)),
        ),
        (
            "WebP 7000x5000 lossless (35 MP)",
            Box::new(|| webp_lossless(7_000, 5_000)),
        ),
        (
            "JPEG 6000x4000 progressive, upright (24 MP)",
            Box::new(|| jpeg(6_000, 4_000, true)),
        ),
    ];
    let exe = std::env::current_exe().unwrap();
    for (i, (name, make)) in cases.iter().enumerate() {
        let data = make();
        let path = dir.path().join(format!("case-{i}"));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&data)
            .unwrap();
        println!("{name}, {:.1} MB", data.len() as f64 / 1e6);
        // With the default budget, then without any: what it really takes, refused or not.
        for (mode, label) in [("--case", "budget   "), ("--case-unlimited", "no budget")] {
            let out = Command::new(&exe).arg(mode).arg(&path).output().unwrap();
            print!("  {label} {}", String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                println!("  child failed: {}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}

//! Benchmark of the media ingest target: a 24-megapixel JPEG validated, decoded, oriented,
//! stripped, hashed, turned into a preview and a thumbnail, and stored to local storage, in at
//! most 1.5 s (median, one core) and 400 MB peak memory.
//!
//! ```text
//! cargo run --release -p regard --example bench_ingest [-- RUNS]
//! taskset -c 0 target/release/examples/bench_ingest 9      # pinned to one core
//! ```
//!
//! Each run streams the upload to a temporary file (as `POST /api/v1/media` does), ingests it
//! from there and stores the objects, the original streamed from its own temporary file.
//!
//! Two inputs: an upright photo with EXIF and GPS (metadata stripped losslessly) and the same
//! photo with EXIF orientation 6 (rotated, so the original is re-encoded: the slow path).
//! Everything runs on the calling thread. Peak memory is the process's VmHWM, reset after the
//! fixtures are generated so it measures the ingest alone.

use std::time::{Duration, Instant};

mod support;

use regard::media::{self, MediaLimits};
use regard::storage::ObjectStorage;

const WIDTH: u32 = 6000;
const HEIGHT: u32 = 4000;

/// A photo-like 24 MP image: smooth gradients, a few shapes and sensor-like noise, so it
/// compresses like a real photo (about 1 byte per pixel at quality 90) rather than like a
/// flat synthetic image.
fn photo_jpeg() -> Vec<u8> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut noise = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 59) as i32 - 16
    };
    let mut pixels = Vec::with_capacity((WIDTH * HEIGHT * 3) as usize);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (fx, fy) = (x as f32 / WIDTH as f32, y as f32 / HEIGHT as f32);
            let circle = ((fx - 0.6).powi(2) + (fy - 0.4).powi(2)).sqrt() < 0.2;
            let stripes = ((x / 40 + y / 40) % 2) as f32 * 30.0;
            let base = [
                120.0 + 100.0 * fx + stripes,
                80.0 + 120.0 * fy,
                if circle { 220.0 } else { 60.0 + 60.0 * fx * fy },
            ];
            for channel in base {
                pixels.push((channel as i32 + noise()).clamp(0, 255) as u8);
            }
        }
    }
    let mut out = Vec::new();
    let encoder = jpeg_encoder::Encoder::new(&mut out, 90);
    encoder
        .encode(
            &pixels,
            WIDTH as u16,
            HEIGHT as u16,
            jpeg_encoder::ColorType::Rgb,
        )
        .unwrap();
    out
}

/// An EXIF APP1 segment with an orientation and a GPS position, spliced in after SOI.
fn with_exif(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let mut t: Vec<u8> = b"Exif\0\0II*\0\x08\0\0\0".to_vec();
    let entry = |t: &mut Vec<u8>, tag: u16, kind: u16, count: u32, value: [u8; 4]| {
        t.extend_from_slice(&tag.to_le_bytes());
        t.extend_from_slice(&kind.to_le_bytes());
        t.extend_from_slice(&count.to_le_bytes());
        t.extend_from_slice(&value);
    };
    t.extend_from_slice(&2u16.to_le_bytes());
    let o = orientation.to_le_bytes();
    entry(&mut t, 0x0112, 3, 1, [o[0], o[1], 0, 0]);
    entry(&mut t, 0x8825, 4, 1, 38u32.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes());
    t.extend_from_slice(&4u16.to_le_bytes());
    entry(&mut t, 1, 2, 2, [b'N', 0, 0, 0]);
    entry(&mut t, 2, 5, 3, 92u32.to_le_bytes());
    entry(&mut t, 3, 2, 2, [b'E', 0, 0, 0]);
    entry(&mut t, 4, 5, 3, 116u32.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes());
    for value in [48u32, 51, 3024, 2, 17, 4020] {
        t.extend_from_slice(&value.to_le_bytes());
        t.extend_from_slice(&(if value > 100 { 100u32 } else { 1 }).to_le_bytes());
    }
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((t.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&t);
    out.extend_from_slice(&jpeg[2..]);
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = (p * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank]
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("RUNS must be a number"))
        .unwrap_or(7)
        .max(1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let storage = ObjectStorage::local(&dir.path().join("media")).unwrap();
    let tmp = dir.path().join("tmp");
    let limits = MediaLimits::default();

    let base = photo_jpeg();
    let cases = [
        ("upright (lossless strip)", with_exif(&base, 1)),
        ("orientation 6 (re-encode)", with_exif(&base, 6)),
    ];
    drop(base);
    let peak_reset = support::reset_peak_rss();
    let rss_before = support::status_kib("VmRSS:").unwrap_or(0);

    println!(
        "bench_ingest: {WIDTH}x{HEIGHT} JPEG ({:.1} MB), {runs} runs per case, one thread",
        cases[0].1.len() as f64 / 1e6
    );
    for (name, data) in &cases {
        let mut totals = Vec::with_capacity(runs);
        let mut ingests = Vec::with_capacity(runs);
        let mut last = None;
        for _ in 0..runs {
            let start = Instant::now();
            // The upload arrives in 64 KiB chunks and is streamed to a temporary file.
            let chunks = data
                .chunks(64 << 10)
                .map(|chunk| Ok(bytes::Bytes::copy_from_slice(chunk)));
            let upload = rt
                .block_on(media::collect_upload(
                    futures::stream::iter(chunks),
                    &limits,
                    &tmp,
                ))
                .expect("upload");
            let ingested = media::ingest(upload, &limits).expect("ingest");
            let ingest_time = start.elapsed();
            let stored = rt
                .block_on(media::store(&storage, &ingested))
                .expect("store");
            totals.push(start.elapsed());
            ingests.push(ingest_time);
            // Remove the objects so the next run stores them again instead of deduplicating.
            rt.block_on(async {
                for key in stored.keys() {
                    regard::storage::Storage::delete(&storage, key)
                        .await
                        .unwrap();
                }
            });
            last = Some(ingested);
        }
        totals.sort();
        ingests.sort();
        let m = last.unwrap();
        println!("\n{name}");
        println!(
            "  total (ingest + store): median {}  p10 {}  p90 {}",
            ms(percentile(&totals, 0.5)),
            ms(percentile(&totals, 0.1)),
            ms(percentile(&totals, 0.9))
        );
        println!(
            "  ingest alone:           median {}",
            ms(percentile(&ingests, 0.5))
        );
        println!(
            "  result: {}x{} {}, original {:.1} MB, preview {}x{} ({} KB), thumbnail {}x{} ({} KB), gps {:?}",
            m.width(),
            m.height(),
            m.mime(),
            m.bytes() as f64 / 1e6,
            m.preview.width,
            m.preview.height,
            m.preview.data.len() / 1000,
            m.thumbnail.width,
            m.thumbnail.height,
            m.thumbnail.data.len() / 1000,
            m.gps
        );
    }
    let hwm = support::status_kib("VmHWM:").unwrap_or(0);
    println!(
        "\npeak RSS (VmHWM): {:.0} MB{} (fixtures resident: {:.0} MB)",
        hwm as f64 / 1024.0,
        if peak_reset {
            ", reset after fixture generation"
        } else {
            ", including fixture generation"
        },
        rss_before as f64 / 1024.0
    );
}
